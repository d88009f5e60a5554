// toeplitz rows of gpueig_bench: gpu_toeplitz_eig's host call (t in, eigenvalues out, everything
// included) beside what a user does today: form the dense T and call cuSOLVER's dsyevd (or
// dsyevdx for a range), device-resident (forming and uploading T not counted), or OpenBLAS dsyevd
// on the host. Also the auto crossover (GPU method against the CPU method, both host calls).
//
// Accuracy: max |l - l'| / (n ||T||_1 ulp) against the anchor's eigenvalues.
#include <cusolverDn.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "bench.hpp"
#include "gpueig.h"
#include "lapack_ref.hpp"
#include "ratios.hpp"
#include "zoo.hpp"

namespace bench {
namespace {

#define SOLVER_OK(x) LIB_OK(x, CUSOLVER_STATUS_SUCCESS, "cuSOLVER")

// The dense T(i, j) = t(|i - j|) on the device (the anchor's input; not timed).
__global__ void dense_toeplitz(const double *t, int64_t n, double *a) {
  for (int64_t idx = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; idx < n * n;
       idx += int64_t(gridDim.x) * blockDim.x) {
    const int64_t i = idx % n, j = idx / n;
    a[idx] = t[i > j ? i - j : j - i];
  }
}

// ||T||_1 of the Toeplitz matrix: the largest column sum, in O(n) per column... O(n^2) in all.
double toeplitz_norm1(const std::vector<double> &t) {
  const int64_t n = static_cast<int64_t>(t.size());
  std::vector<double> prefix(n + 1, 0.0);
  for (int64_t k = 0; k < n; ++k) prefix[k + 1] = prefix[k] + std::fabs(t[k]);
  double best = 0;
  for (int64_t j = 0; j < n; ++j)  // column j: |t(0..j)| + |t(1..n-1-j)|
    best = std::max(best, prefix[j + 1] + prefix[n - j] - prefix[1]);
  return best;
}

struct Ours {
  double ms;
  std::string backend;
  std::vector<double> w;
};

// The host call, eigenvalues il..iu (il = 0: all), with eigenvectors (`vectors`: Z comes back
// to the host, n x M) or not, on the policy given.
Ours ours(const std::vector<double> &t, int il, int iu, int reps, const char *policy, bool vectors = false) {
  const int n = static_cast<int>(t.size());
  Ours o{0, "", std::vector<double>(n)};
  std::vector<double> z(vectors ? size_t(n) * n : 1);
  int m = 0;
  gpueig_set_backend(policy);
  o.ms = host_ms(reps, [] {}, [&] {
    gpu_toeplitz_eig(vectors ? 'V' : 'N', il ? 'I' : 'A', n, t.data(), 0, 0, il, iu, 0.0, &m, o.w.data(),
                     z.data(), vectors ? n : 1);
    o.backend = gpueig_last_backend();
  });
  gpueig_set_backend("auto");
  o.w.resize(m);
  return o;
}

// cuSOLVER syevd (il = 0) or syevdx (RANGE I, il..iu), the 64-bit API in double precision, on
// the dense T, device-resident: the matrix is reset from a pristine copy before each run (not
// timed). reps = 0: one timed run.
double cusolver_dense(cudaStream_t s, cusolverDnHandle_t h, const std::vector<double> &t, int il,
                      int iu, int reps, std::vector<double> *w_out, bool vectors = false) {
  const int64_t n = static_cast<int64_t>(t.size());
  double *dt = nullptr, *a0 = nullptr, *a = nullptr, *w = nullptr;
  void *work = nullptr;
  int *info = nullptr;
  CUDA_OK(cudaMalloc(&dt, n * sizeof(double)));
  CUDA_OK(cudaMalloc(&a0, n * n * sizeof(double)));
  CUDA_OK(cudaMalloc(&a, n * n * sizeof(double)));
  CUDA_OK(cudaMalloc(&w, n * sizeof(double)));
  CUDA_OK(cudaMalloc(&info, sizeof(int)));
  CUDA_OK(cudaMemcpy(dt, t.data(), n * sizeof(double), cudaMemcpyHostToDevice));
  dense_toeplitz<<<8192, 256, 0, s>>>(dt, n, a0);
  CUDA_OK(cudaGetLastError());
  cusolverDnParams_t params;
  SOLVER_OK(cusolverDnCreateParams(&params));
  const auto jobz = vectors ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR;
  const auto uplo = CUBLAS_FILL_MODE_LOWER;
  size_t dbytes = 0, hbytes = 0;
  int64_t found = 0;
  double vl = 0, vu = 0;
  if (il == 0)
    SOLVER_OK(cusolverDnXsyevd_bufferSize(h, params, jobz, uplo, n, CUDA_R_64F, a, n, CUDA_R_64F,
                                          w, CUDA_R_64F, &dbytes, &hbytes));
  else
    SOLVER_OK(cusolverDnXsyevdx_bufferSize(h, params, jobz, CUSOLVER_EIG_RANGE_I, uplo, n,
                                           CUDA_R_64F, a, n, &vl, &vu, il, iu, &found,
                                           CUDA_R_64F, w, CUDA_R_64F, &dbytes, &hbytes));
  CUDA_OK(cudaMalloc(&work, std::max<size_t>(dbytes, 1)));
  std::vector<char> hwork(std::max<size_t>(hbytes, 1));
  auto reset = [&] {
    CUDA_OK(cudaMemcpyAsync(a, a0, n * n * sizeof(double), cudaMemcpyDeviceToDevice, s));
  };
  auto run = [&] {
    if (il == 0)
      SOLVER_OK(cusolverDnXsyevd(h, params, jobz, uplo, n, CUDA_R_64F, a, n, CUDA_R_64F, w,
                                 CUDA_R_64F, work, dbytes, hwork.data(), hbytes, info));
    else
      SOLVER_OK(cusolverDnXsyevdx(h, params, jobz, CUSOLVER_EIG_RANGE_I, uplo, n, CUDA_R_64F, a,
                                  n, &vl, &vu, il, iu, &found, CUDA_R_64F, w, CUDA_R_64F, work,
                                  dbytes, hwork.data(), hbytes, info));
  };
  double ms;
  if (reps > 0) {
    ms = device_ms(s, reps, reset, run);
  } else {
    reset();
    CUDA_OK(cudaStreamSynchronize(s));
    ms = host_ms(0, [] {}, [&] {
      run();
      CUDA_OK(cudaStreamSynchronize(s));
    });
  }
  w_out->resize(il == 0 ? n : found);
  CUDA_OK(cudaMemcpy(w_out->data(), w, w_out->size() * sizeof(double), cudaMemcpyDeviceToHost));
  cusolverDnDestroyParams(params);
  for (void *p : {(void *)dt, (void *)a0, (void *)a, (void *)w, work, (void *)info}) cudaFree(p);
  return ms;
}

double distance(const std::vector<double> &x, const std::vector<double> &y, int64_t n, double tnorm) {
  return x.size() == y.size() ? ratios::eigenvalue_distance(x, y, n, tnorm) : 1e300;
}

// OpenBLAS dsyevd (values only) on the dense T on the host.
double openblas_dense(const std::vector<double> &t, std::vector<double> *w) {
  const int n = static_cast<int>(t.size());
  const std::vector<double> dense0 = zoo::toeplitz_dense(t);
  std::vector<double> a, work(2 * n + 1);
  std::vector<int> iwork(1);
  w->resize(n);
  int lwork = static_cast<int>(work.size()), liwork = 1, info = 0, nn = n;
  return host_ms(0, [&] { a = dense0; }, [&] {
    dsyevd_("N", "L", &nn, a.data(), &nn, w->data(), work.data(), &lwork, iwork.data(), &liwork,
            &info, 1, 1);
  });
}

}  // namespace

void bench_toeplitz(cudaStream_t s, bool quick) {
  cusolverDnHandle_t h;
  SOLVER_OK(cusolverDnCreate(&h));
  SOLVER_OK(cusolverDnSetStream(h, s));

  std::printf("toeplitz crossover sweep (all eigenvalues, host calls: GPU method vs CPU method):\n");
  for (int n : {256, 512, 1024, 2048, 4096}) {
    const std::vector<double> t = zoo::toeplitz("random", n, 51);
    const Ours g = ours(t, 0, 0, 5, "gpu"), c = ours(t, 0, 0, 3, "cpu");
    std::printf("  n=%5d  gpu %9.3f ms  cpu %9.3f ms\n", n, g.ms, c.ms);
  }

  {  // n = 2048, all: against OpenBLAS dsyevd on the dense T
    const std::vector<double> t = zoo::toeplitz("random", 2048, 52);
    const Ours o = ours(t, 0, 0, 5, "auto");
    std::vector<double> wref;
    const double anchor = openblas_dense(t, &wref);
    g_rows.push_back({"toeplitz", "random, all values", "host", 2048, o.backend, o.ms,
                      "OpenBLAS dsyevd on dense T", anchor,
                      distance(o.w, wref, 2048, toeplitz_norm1(t)), -1, 0});
  }
  std::vector<int> sizes = {8192, 16384};
  if (!quick) sizes.push_back(32768);
  for (int n : sizes) {  // all eigenvalues against cuSOLVER dsyevd on the dense T
    const std::vector<double> t = zoo::toeplitz("random", n, 53);
    const Ours o = ours(t, 0, 0, n <= 8192 ? 5 : 2, "auto");
    std::vector<double> wref;
    const double anchor = cusolver_dense(s, h, t, 0, 0, n <= 8192 ? 3 : 0, &wref);
    g_rows.push_back({"toeplitz", "random, all values", "host", n, o.backend, o.ms,
                      "cuSOLVER dsyevd on dense T (device)", anchor,
                      distance(o.w, wref, n, toeplitz_norm1(t)), -1, 0});
  }
  {  // n = 8192, the first 1% by index: against cuSOLVER dsyevdx
    const int n = 8192, iu = n / 100;
    const std::vector<double> t = zoo::toeplitz("random", n, 54);
    const Ours o = ours(t, 1, iu, 5, "auto");
    std::vector<double> wref;
    const double anchor = cusolver_dense(s, h, t, 1, iu, 3, &wref);
    g_rows.push_back({"toeplitz", "random, first 1% by index", "host", n, o.backend, o.ms,
                      "cuSOLVER dsyevdx on dense T (device)", anchor,
                      distance(o.w, wref, n, toeplitz_norm1(t)), -1, 0});
  }
  for (int n : {4096, 8192}) {  // all eigenpairs against cuSOLVER dsyevd with vectors on the dense T
    const std::vector<double> t = zoo::toeplitz("random", n, 55);
    const Ours o = ours(t, 0, 0, 3, "auto", true);
    std::vector<double> wref;
    const double anchor = cusolver_dense(s, h, t, 0, 0, 3, &wref, true);
    g_rows.push_back({"toeplitz", "random, all pairs (Z to host)", "host", n, o.backend, o.ms,
                      "cuSOLVER dsyevd+vectors on dense T (device)", anchor,
                      distance(o.w, wref, n, toeplitz_norm1(t)), -1, 0});
  }
  cusolverDnDestroy(h);
}

}  // namespace bench
