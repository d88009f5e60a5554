// sytrd rows of gpueig_bench: the two-stage method on device-resident data beside
// cuSOLVER's Householder dsytrd (values only) and dsytrd + dorgtr (with Q), beside the seed's
// tree method, the host call beside OpenBLAS dsytrd, and the auto crossover.
//
// Accuracy: for values only, the eigenvalues of T (dsterf) against those of cuSOLVER's T, as
// max |l - l'| / (n ||A||_1 ulp); with Q, ||A - Q T Q^T||_1 / (n ||A||_1 ulp) (computed with
// cuBLAS on the device), the LAPACK ratios of DESIGN.md.
#include <cublas_v2.h>
#include <cusolverDn.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "bench.hpp"
#include "gpueig.h"
#include "lapack_ref.hpp"
#include "ratios.hpp"
#include "sytrd.hpp"
#include "zoo.hpp"

namespace bench {
namespace {

#define SOLVER_OK(x) LIB_OK(x, CUSOLVER_STATUS_SUCCESS, "cuSOLVER")
#define BLAS_OK(x) LIB_OK(x, CUBLAS_STATUS_SUCCESS, "cuBLAS")

// a(i, j) := a(j, i) above the diagonal: a random symmetric matrix from a random one.
__global__ void symmetrize(double *a, int64_t n) {
  for (int64_t idx = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; idx < n * n;
       idx += int64_t(gridDim.x) * blockDim.x) {
    const int64_t i = idx % n, j = idx / n;
    if (i < j) a[i + j * n] = a[j + i * n];
  }
}

// w := q T for T = tridiag(e, d, e) (all n x n, leading dimension n).
__global__ void times_tridiagonal(const double *q, const double *d, const double *e, int64_t n,
                                  double *w) {
  for (int64_t idx = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; idx < n * n;
       idx += int64_t(gridDim.x) * blockDim.x) {
    const int64_t i = idx % n, j = idx / n;
    double v = d[j] * q[i + j * n];
    if (j > 0) v += e[j - 1] * q[i + (j - 1) * n];
    if (j + 1 < n) v += e[j] * q[i + (j + 1) * n];
    w[idx] = v;
  }
}

__global__ void add_identity(double *a, int64_t n, double alpha) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x)
    a[i + i * n] += alpha;
}

// sums[j] = sum_i |a(i, j)|.
__global__ void column_sums(const double *a, int64_t n, double *sums) {
  for (int64_t j = blockIdx.x; j < n; j += gridDim.x) {
    double s = 0;
    for (int64_t i = threadIdx.x; i < n; i += blockDim.x) s += fabs(a[i + j * n]);
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    __shared__ double part[8];
    if (threadIdx.x % 32 == 0) part[threadIdx.x / 32] = s;
    __syncthreads();
    if (threadIdx.x == 0) {
      double t = 0;
      for (int w = 0; w < 8; ++w) t += part[w];
      sums[j] = t;
    }
    __syncthreads();
  }
}

struct Gpu {
  cudaStream_t st;
  cublasHandle_t blas;
  cusolverDnHandle_t solver;
};

// One n x n problem on the device: the pristine random symmetric a0, the working copy a, the
// outputs of both libraries, ours' workspace.
struct Problem {
  int64_t n;
  size_t count;
  cudaStream_t st;
  double *a0 = nullptr, *a = nullptr, *z = nullptr, *d = nullptr, *e = nullptr, *tau = nullptr;
  double *work = nullptr;
  int *info = nullptr;

  Problem(int64_t n_, cudaStream_t s, bool wantz) : n(n_), count(size_t(n_) * n_), st(s) {
    CUDA_OK(cudaMalloc(&a0, count * sizeof(double)));
    CUDA_OK(cudaMalloc(&a, count * sizeof(double)));
    if (wantz) CUDA_OK(cudaMalloc(&z, count * sizeof(double)));
    CUDA_OK(cudaMalloc(&d, n * sizeof(double)));
    CUDA_OK(cudaMalloc(&e, n * sizeof(double)));
    CUDA_OK(cudaMalloc(&tau, n * sizeof(double)));
    CUDA_OK(cudaMalloc(&info, sizeof(int)));
    CUDA_OK(cudaMalloc(&work, gpueig::gpu::sytrd_two_stage_bytes(
                           n, wantz ? gpueig::gpu::SytrdZ::form : gpueig::gpu::SytrdZ::none)));
    fill_random(st, a0, int64_t(count), 1234 + n);
    symmetrize<<<4096, 256, 0, st>>>(a0, n);
    CUDA_OK(cudaGetLastError());
  }
  ~Problem() {
    for (void *p : {(void *)a0, (void *)a, (void *)z, (void *)d, (void *)e, (void *)tau, (void *)work, (void *)info})
      cudaFree(p);
  }
  void reset() const {
    CUDA_OK(cudaMemcpyAsync(a, a0, count * sizeof(double), cudaMemcpyDeviceToDevice, st));
  }
  void identity_z() const {
    CUDA_OK(cudaMemsetAsync(z, 0, count * sizeof(double), st));
    add_identity<<<256, 256, 0, st>>>(z, n, 1.0);
    CUDA_OK(cudaGetLastError());
  }
  std::vector<double> host(const double *p, size_t len) const {
    std::vector<double> v(len);
    CUDA_OK(cudaStreamSynchronize(st));
    CUDA_OK(cudaMemcpy(v.data(), p, len * sizeof(double), cudaMemcpyDeviceToHost));
    return v;
  }
};

double norm1(const Gpu &g, const double *a, int64_t n) {
  double *sums;
  CUDA_OK(cudaMalloc(&sums, n * sizeof(double)));
  column_sums<<<1024, 256, 0, g.st>>>(a, n, sums);
  std::vector<double> h(n);
  CUDA_OK(cudaStreamSynchronize(g.st));
  CUDA_OK(cudaMemcpy(h.data(), sums, n * sizeof(double), cudaMemcpyDeviceToHost));
  cudaFree(sums);
  double m = 0;
  for (double v : h) m = std::max(m, v);
  return m;
}

// ||a0 - Q T Q^T||_1 / (n ||a0||_1 ulp), with Q = p.z and T from p.d, p.e.
double similarity_ratio(const Gpu &g, const Problem &p) {
  const int64_t n = p.n;
  double *w, *r;
  CUDA_OK(cudaMalloc(&w, p.count * sizeof(double)));
  CUDA_OK(cudaMalloc(&r, p.count * sizeof(double)));
  times_tridiagonal<<<4096, 256, 0, g.st>>>(p.z, p.d, p.e, n, w);
  CUDA_OK(cudaMemcpyAsync(r, p.a0, p.count * sizeof(double), cudaMemcpyDeviceToDevice, g.st));
  const double minus = -1, one = 1;
  const int ni = static_cast<int>(n);
  BLAS_OK(cublasDgemm(g.blas, CUBLAS_OP_N, CUBLAS_OP_T, ni, ni, ni, &minus, w, ni, p.z, ni, &one, r, ni));
  const double ratio = norm1(g, r, n) / (double(n) * norm1(g, p.a0, n) * ratios::kUlp);
  cudaFree(w);
  cudaFree(r);
  return ratio;
}

// Eigenvalues of tridiag(e, d, e) (host copies), by dsterf.
std::vector<double> tridiagonal_eigenvalues(std::vector<double> d, std::vector<double> e) {
  int n = static_cast<int>(d.size()), info = 0;
  dsterf_(&n, d.data(), e.data(), &info);
  return d;
}

void set_stream(const Gpu &g) {
  BLAS_OK(cublasSetStream(g.blas, g.st));
  SOLVER_OK(cusolverDnSetStream(g.solver, g.st));
}

double ours_ms(const Gpu &g, const Problem &p, int reps, bool wantz, std::string &backend) {
  return device_ms(
      g.st, reps,
      [&] {
        p.reset();
        if (wantz) p.identity_z();
      },
      [&] {
        const gpueig::gpu::Status s = gpueig::gpu::sytrd_two_stage(
            g.st, p.n, p.a, p.n, p.d, p.e, wantz ? p.z : nullptr, p.n,
            wantz ? gpueig::gpu::SytrdZ::form : gpueig::gpu::SytrdZ::none, p.work);
        if (!s) backend = "FAILED: " + s.reason;
      });
}

// Values only: ours and cusolverDnDsytrd on the same matrix.
void values_row(const Gpu &g, int64_t n, int reps) {
  const Problem p(n, g.st, false);
  std::string backend = "gpu";
  const double ours = ours_ms(g, p, reps, false, backend);
  const std::vector<double> ev = tridiagonal_eigenvalues(p.host(p.d, n), p.host(p.e, n - 1));
  int lwork = 0;
  const int ni = static_cast<int>(n);
  SOLVER_OK(cusolverDnDsytrd_bufferSize(g.solver, CUBLAS_FILL_MODE_LOWER, ni, p.a, ni, p.d, p.e,
                                        p.tau, &lwork));
  double *work;
  CUDA_OK(cudaMalloc(&work, std::max(1, lwork) * sizeof(double)));
  const double theirs = device_ms(g.st, reps, [&] { p.reset(); }, [&] {
    SOLVER_OK(cusolverDnDsytrd(g.solver, CUBLAS_FILL_MODE_LOWER, ni, p.a, ni, p.d, p.e, p.tau,
                               work, lwork, p.info));
  });
  cudaFree(work);
  const std::vector<double> ref = tridiagonal_eigenvalues(p.host(p.d, n), p.host(p.e, n - 1));
  const double ratio = ratios::eigenvalue_distance(ev, ref, n, norm1(g, p.a0, n));
  g_rows.push_back({"sytrd", "random, vect N", "device", n, backend, ours, "cuSOLVER dsytrd",
                    theirs, ratio, -1, 0});
  // The same reduction through the public device-pointer API (gpu_sytrd_dev on this stream): its
  // time against sytrd_two_stage's is the API's own cost (the copy and mirror of A, the NaN scan,
  // the checks read on the host, the stream-ordered workspace).
  std::string api_backend = "gpu";
  const double api = device_ms(g.st, reps, [&] {}, [&] {
    if (gpu_sytrd_dev('N', 'L', int(n), p.a0, int(n), p.d, p.e, nullptr, 1, p.info, g.st) != 0)
      api_backend = "FAILED";
  });
  std::printf("  sytrd device-pointer API: n=%lld  gpu_sytrd_dev %9.3f ms  sytrd_two_stage %9.3f ms  (%.3fx)\n",
              (long long)n, api, ours, api / ours);
  g_rows.push_back({"sytrd_dev", "random, vect N", "device pointers", n, api_backend, api,
                    "cuSOLVER dsytrd", theirs, -1, -1, 0});
  // Where the time goes: stage 1 (dense -> band) alone, by either method (GPUEIG_SYTRD_STAGE1
  // picks the one sytrd_two_stage uses).
  void *w1 = nullptr;
  CUDA_OK(cudaMalloc(&w1, std::max(gpueig::gpu::sytrd_hh_bytes(n, false), gpueig::gpu::sytrd_band_blocks_bytes(n, false))));
  const double hh = device_ms(g.st, reps, [&] { p.reset(); }, [&] {
    gpueig::gpu::sytrd_hh_to_band(g.st, n, p.a, n, nullptr, n, w1, false);
  });
  const double givens = device_ms(g.st, reps, [&] { p.reset(); }, [&] {
    gpueig::gpu::sytrd_to_band(g.st, n, p.a, n, nullptr, n, static_cast<double *>(w1), false);
  });
  CUDA_OK(cudaFree(w1));
  std::printf("  sytrd n=%lld vect N: %.2f ms (stage 1: Householder %.2f ms, Givens %.2f ms), cuSOLVER dsytrd %.2f ms "
              "(x%.2f), eigenvalue ratio %.2f\n",
              (long long)n, ours, hh, givens, theirs, theirs / ours, ratio);
}

// With Q: ours (Q formed) and cusolverDnDsytrd + cusolverDnDorgtr.
void vectors_row(const Gpu &g, int64_t n, int reps) {
  Problem p(n, g.st, true);
  std::string backend = "gpu";
  const double ours = ours_ms(g, p, reps, true, backend);
  const double ours_ratio = similarity_ratio(g, p);
  const int ni = static_cast<int>(n);
  int l1 = 0, l2 = 0;
  SOLVER_OK(cusolverDnDsytrd_bufferSize(g.solver, CUBLAS_FILL_MODE_LOWER, ni, p.a, ni, p.d, p.e,
                                        p.tau, &l1));
  SOLVER_OK(cusolverDnDorgtr_bufferSize(g.solver, CUBLAS_FILL_MODE_LOWER, ni, p.a, ni, p.tau, &l2));
  const int lwork = std::max(1, std::max(l1, l2));
  double *work;
  CUDA_OK(cudaMalloc(&work, lwork * sizeof(double)));
  const double theirs = device_ms(g.st, reps, [&] { p.reset(); }, [&] {
    SOLVER_OK(cusolverDnDsytrd(g.solver, CUBLAS_FILL_MODE_LOWER, ni, p.a, ni, p.d, p.e, p.tau,
                               work, lwork, p.info));
    SOLVER_OK(cusolverDnDorgtr(g.solver, CUBLAS_FILL_MODE_LOWER, ni, p.a, ni, p.tau, work, lwork,
                               p.info));
  });
  cudaFree(work);
  CUDA_OK(cudaMemcpyAsync(p.z, p.a, p.count * sizeof(double), cudaMemcpyDeviceToDevice, g.st));
  const double their_ratio = similarity_ratio(g, p);
  g_rows.push_back({"sytrd", "random, vect V", "device", n, backend, ours,
                    "cuSOLVER dsytrd+dorgtr", theirs, ours_ratio, their_ratio, 0});
  std::printf("  sytrd n=%lld vect V: %.2f ms, cuSOLVER dsytrd+dorgtr %.2f ms (x%.2f), "
              "||A-QTQ'|| ratio %.2f (cuSOLVER %.2f)\n",
              (long long)n, ours, theirs, theirs / ours, ours_ratio, their_ratio);
}

// ||Z^T Z - I||_1 / (n ulp) for the n x n columns at z (dort01's ratio), with cuBLAS.
double orthogonality_ratio(const Gpu &g, const double *z, int64_t n) {
  double *r;
  CUDA_OK(cudaMalloc(&r, size_t(n) * n * sizeof(double)));
  const double one = 1, zero = 0;
  const int ni = static_cast<int>(n);
  BLAS_OK(cublasDgemm(g.blas, CUBLAS_OP_T, CUBLAS_OP_N, ni, ni, ni, &one, z, ni, z, ni, &zero, r, ni));
  add_identity<<<256, 256, 0, g.st>>>(r, n, -1.0);
  CUDA_OK(cudaGetLastError());
  const double ratio = norm1(g, r, n) / (double(n) * ratios::kUlp);
  cudaFree(r);
  return ratio;
}

// All eigenpairs of a random symmetric matrix in device memory: gpu_syevd_dev (the caller's
// stream; Z over A) against cuSOLVER's cusolverDnXsyevd on the same matrix in the same process,
// both timed with CUDA events around the call after resetting A (untimed), and the host call
// gpu_syevd (GPU forced: A up, Z down) by wall time. Accuracy: dsyt21's ||A - Z W Z^T||_1 /
// (n ||A||_1 ulp) and dort01's ||Z^T Z - I||_1 / (n ulp), the larger of the two per library.
void syevd_dev_row(const Gpu &g, int64_t n, int reps) {
  Problem p(n, g.st, true);
  const int ni = static_cast<int>(n);
  CUDA_OK(cudaMemsetAsync(p.e, 0, n * sizeof(double), g.st));  // W Z^T as "tridiagonal" diag(W)
  std::string backend = "gpu";
  const double ours = device_ms(g.st, reps, [&] { p.reset(); }, [&] {
    const int r = gpu_syevd_dev('V', 'L', ni, p.a, ni, p.d, p.info, g.st);
    if (r != 0) backend = "FAILED: " + std::to_string(r);
  });
  int info = -1;
  CUDA_OK(cudaMemcpy(&info, p.info, sizeof(int), cudaMemcpyDeviceToHost));
  if (info != 0) backend = "INFO " + std::to_string(info);
  CUDA_OK(cudaMemcpyAsync(p.z, p.a, p.count * sizeof(double), cudaMemcpyDeviceToDevice, g.st));
  const std::vector<double> w_ours = p.host(p.d, n);
  const double ours_ratio = std::max(similarity_ratio(g, p), orthogonality_ratio(g, p.z, n));

  cusolverDnParams_t params;
  SOLVER_OK(cusolverDnCreateParams(&params));
  size_t dbytes = 0, hbytes = 0;
  SOLVER_OK(cusolverDnXsyevd_bufferSize(g.solver, params, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, n,
                                        CUDA_R_64F, p.a, n, CUDA_R_64F, p.d, CUDA_R_64F, &dbytes, &hbytes));
  void *dwork = nullptr;
  CUDA_OK(cudaMalloc(&dwork, std::max<size_t>(dbytes, 1)));
  std::vector<char> hwork(std::max<size_t>(hbytes, 1));
  const double theirs = device_ms(g.st, reps, [&] { p.reset(); }, [&] {
    SOLVER_OK(cusolverDnXsyevd(g.solver, params, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, n, CUDA_R_64F,
                               p.a, n, CUDA_R_64F, p.d, CUDA_R_64F, dwork, dbytes, hwork.data(), hbytes, p.info));
  });
  cudaFree(dwork);
  cusolverDnDestroyParams(params);
  CUDA_OK(cudaMemcpyAsync(p.z, p.a, p.count * sizeof(double), cudaMemcpyDeviceToDevice, g.st));
  const std::vector<double> w_theirs = p.host(p.d, n);
  const double their_ratio = std::max(similarity_ratio(g, p), orthogonality_ratio(g, p.z, n));
  double wdiff = 0;
  for (int64_t i = 0; i < n; ++i) wdiff = std::max(wdiff, std::fabs(w_ours[i] - w_theirs[i]));

  // The host call on the same matrix (GPU forced): what the device pointers save.
  std::vector<double> a_host = p.host(p.a0, p.count), work_a(p.count), w(n);
  gpueig_set_backend("gpu");
  const double host = host_ms(reps, [&] { work_a = a_host; },
                              [&] { gpu_syevd('V', 'L', ni, work_a.data(), ni, w.data()); });
  gpueig_set_backend("auto");
  g_rows.push_back({"syevd_dev", "random, vectors", "device pointers", n, backend, ours, "cuSOLVER Xsyevd",
                    theirs, ours_ratio, their_ratio, 0});
  std::printf("  syevd_dev n=%lld vectors: gpu_syevd_dev %.2f ms, cuSOLVER Xsyevd %.2f ms (x%.2f), host call "
              "gpu_syevd %.2f ms; ratios %.2f (cuSOLVER %.2f), max |w - w_cusolver| %.1e\n",
              (long long)n, ours, theirs, theirs / ours, host, ours_ratio, their_ratio, wdiff);
}

// The smallest 1% of the eigenpairs of a random symmetric matrix in device memory: gpu_syevx_dev
// against cuSOLVER's cusolverDnXsyevdx (RANGE I) on the same matrix in the same process, both
// timed with CUDA events after resetting A (untimed), and the host call gpu_syevx (GPU forced: A
// up, the n x M vectors down) by wall time. Accuracy: the larger of max_j ||A z_j - w_j z_j||_1 /
// (n ||A||_1 ulp) and ||Z^T Z - I||_1 / (n ulp), computed with cuBLAS.
void syevx_dev_row(const Gpu &g, int64_t n, int reps) {
  Problem p(n, g.st, true);
  const int ni = static_cast<int>(n), iu = std::max(1, ni / 100);
  double *w2, *r;
  int *ifail;
  CUDA_OK(cudaMalloc(&w2, n * sizeof(double)));
  CUDA_OK(cudaMalloc(&r, p.count * sizeof(double)));
  CUDA_OK(cudaMalloc(&ifail, n * sizeof(int)));
  // max_j ||A z_j - w_j z_j||_1 / (n ||A||_1 ulp) and dort01's ratio for the M columns of z.
  auto ratio = [&](const double *z, const double *w, int m) {
    const double one = 1, zero = 0;
    CUDA_OK(cudaMemcpyAsync(r, z, size_t(n) * m * sizeof(double), cudaMemcpyDeviceToDevice, g.st));
    BLAS_OK(cublasDdgmm(g.blas, CUBLAS_SIDE_RIGHT, ni, m, z, ni, w, 1, r, ni));  // r := Z diag(w)
    const double minus = -1;
    BLAS_OK(cublasDgemm(g.blas, CUBLAS_OP_N, CUBLAS_OP_N, ni, m, ni, &one, p.a0, ni, z, ni, &minus, r, ni));
    std::vector<double> h = p.host(r, size_t(n) * m);
    double worst = 0;
    for (int j = 0; j < m; ++j) {
      double c = 0;
      for (int64_t i = 0; i < n; ++i) c += std::fabs(h[i + j * n]);
      worst = std::max(worst, c);
    }
    BLAS_OK(cublasDgemm(g.blas, CUBLAS_OP_T, CUBLAS_OP_N, m, m, ni, &one, z, ni, z, ni, &zero, r, m));
    std::vector<double> gm = p.host(r, size_t(m) * m);
    double orth = 0;
    for (int j = 0; j < m; ++j) {
      double c = 0;
      for (int i = 0; i < m; ++i) c += std::fabs(gm[i + j * m] - (i == j ? 1 : 0));
      orth = std::max(orth, c);
    }
    return std::max(worst / (double(n) * norm1(g, p.a0, n) * ratios::kUlp), orth / (double(n) * ratios::kUlp));
  };
  std::string backend = "gpu";
  int m = 0;
  const double ours = device_ms(g.st, reps, [&] { p.reset(); }, [&] {
    const int rc = gpu_syevx_dev('V', 'I', 'L', ni, p.a, ni, 0, 0, 1, iu, 0, &m, p.d, p.z, ni, ifail, p.info, g.st);
    if (rc != 0) backend = "FAILED: " + std::to_string(rc);
  });
  const double ours_ratio = m == iu ? ratio(p.z, p.d, m) : 1e300;

  cusolverDnParams_t params;
  SOLVER_OK(cusolverDnCreateParams(&params));
  size_t dbytes = 0, hbytes = 0;
  int64_t found = 0;
  double vl = 0, vu = 0;
  SOLVER_OK(cusolverDnXsyevdx_bufferSize(g.solver, params, CUSOLVER_EIG_MODE_VECTOR, CUSOLVER_EIG_RANGE_I,
                                         CUBLAS_FILL_MODE_LOWER, n, CUDA_R_64F, p.a, n, &vl, &vu, 1, iu, &found,
                                         CUDA_R_64F, w2, CUDA_R_64F, &dbytes, &hbytes));
  void *dwork = nullptr;
  CUDA_OK(cudaMalloc(&dwork, std::max<size_t>(dbytes, 1)));
  std::vector<char> hwork(std::max<size_t>(hbytes, 1));
  const double theirs = device_ms(g.st, reps, [&] { p.reset(); }, [&] {
    SOLVER_OK(cusolverDnXsyevdx(g.solver, params, CUSOLVER_EIG_MODE_VECTOR, CUSOLVER_EIG_RANGE_I,
                                CUBLAS_FILL_MODE_LOWER, n, CUDA_R_64F, p.a, n, &vl, &vu, 1, iu, &found, CUDA_R_64F,
                                w2, CUDA_R_64F, dwork, dbytes, hwork.data(), hbytes, p.info));
  });
  cudaFree(dwork);
  cusolverDnDestroyParams(params);
  const double their_ratio = found == iu ? ratio(p.a, w2, iu) : 1e300;
  const std::vector<double> wo = p.host(p.d, iu), wt = p.host(w2, iu);
  double wdiff = 0;
  for (int i = 0; i < iu; ++i) wdiff = std::max(wdiff, std::fabs(wo[i] - wt[i]));

  std::vector<double> a_host = p.host(p.a0, p.count), work_a(p.count), w(n), z(size_t(n) * iu);
  std::vector<int> hif(n);
  int hm = 0;
  gpueig_set_backend("gpu");
  const double host = host_ms(reps, [&] { work_a = a_host; }, [&] {
    gpu_syevx('V', 'I', 'L', ni, work_a.data(), ni, 0, 0, 1, iu, 0, &hm, w.data(), z.data(), ni, hif.data());
  });
  gpueig_set_backend("auto");
  g_rows.push_back({"syevx_dev", "random, smallest 1%, vectors", "device pointers", n, backend, ours,
                    "cuSOLVER Xsyevdx", theirs, ours_ratio, their_ratio, 0});
  std::printf("  syevx_dev n=%lld smallest %d with vectors: gpu_syevx_dev %.2f ms, cuSOLVER Xsyevdx %.2f ms "
              "(x%.2f), host call gpu_syevx %.2f ms; ratios %.2f (cuSOLVER %.2f), max |w - w_cusolver| %.1e\n",
              (long long)n, iu, ours, theirs, theirs / ours, host, ours_ratio, their_ratio, wdiff);
  cudaFree(w2);
  cudaFree(r);
  cudaFree(ifail);
}

}  // namespace

void bench_syevd_dev(cudaStream_t stream, bool quick) {
  Gpu g{stream, nullptr, nullptr};
  BLAS_OK(cublasCreate(&g.blas));
  SOLVER_OK(cusolverDnCreate(&g.solver));
  set_stream(g);
  std::printf("syevd_dev, syevx_dev (device pointers vs cuSOLVER Xsyevd / Xsyevdx, device-resident):\n");
  for (int64_t n : quick ? std::vector<int64_t>{1024, 4096} : std::vector<int64_t>{1024, 2048, 4096, 8192})
    syevd_dev_row(g, n, n >= 8192 ? 3 : 5);
  for (int64_t n : quick ? std::vector<int64_t>{1024, 4096} : std::vector<int64_t>{1024, 2048, 4096, 8192})
    syevx_dev_row(g, n, n >= 8192 ? 3 : 5);
  cusolverDnDestroy(g.solver);
  cublasDestroy(g.blas);
}

namespace {

// The seed's tree method in the same process: the speed-up the issue asks of the default method.
void tree_row(const Gpu &g, int64_t n, int reps) {
  const Problem p(n, g.st, false);
  std::string backend = "gpu";
  const double ours = ours_ms(g, p, reps, false, backend);
  const std::vector<double> ev = tridiagonal_eigenvalues(p.host(p.d, n), p.host(p.e, n - 1));
  const double tree = device_ms(g.st, reps, [&] { p.reset(); }, [&] {
    const gpueig::gpu::Status s = gpueig::gpu::sytrd_tree(g.st, n, p.a, n, p.d, p.e, nullptr, n);
    if (!s) backend = "tree FAILED: " + s.reason;
  });
  const std::vector<double> ref = tridiagonal_eigenvalues(p.host(p.d, n), p.host(p.e, n - 1));
  const double ratio = ratios::eigenvalue_distance(ev, ref, n, norm1(g, p.a0, n));
  g_rows.push_back({"sytrd", "random, vect N", "device", n, backend, ours,
                    "tree method (seed scheme)", tree, ratio, -1, 0});
  std::printf("  sytrd n=%lld vect N: %.2f ms, tree method %.2f ms (x%.1f)\n", (long long)n, ours,
              tree, tree / ours);
}

// The public call (upload, reduction, download of d and e) beside OpenBLAS dsytrd.
void host_row(int n, int reps) {
  const std::vector<double> a0 = zoo::symmetric("random", n, n, 35);
  std::vector<double> a, d(n), e(n), tau(n), work, q(1);
  std::string backend;
  const double ours = host_ms(reps, [&] { a = a0; }, [&] {
    gpu_sytrd_givens('N', 'L', n, a.data(), n, d.data(), e.data(), q.data(), 1);
    backend = gpueig_last_backend();
  });
  const std::vector<double> ev = tridiagonal_eigenvalues(d, std::vector<double>(e.begin(), e.end() - 1));
  int info = 0;
  const double theirs = host_ms(0, [&] { a = a0; }, [&] {
    int nn = n, lwork = -1;
    double query = 0;
    dsytrd_("L", &nn, a.data(), &nn, d.data(), e.data(), tau.data(), &query, &lwork, &info, 1);
    lwork = static_cast<int>(query);
    work.resize(lwork);
    dsytrd_("L", &nn, a.data(), &nn, d.data(), e.data(), tau.data(), work.data(), &lwork, &info, 1);
  });
  const std::vector<double> ref = tridiagonal_eigenvalues(d, std::vector<double>(e.begin(), e.end() - 1));
  const double ratio = ratios::eigenvalue_distance(ev, ref, n, ratios::norm1(n, n, a0.data(), n));
  g_rows.push_back({"sytrd", "random, vect N", "host", n, backend, ours, "OpenBLAS dsytrd", theirs,
                    ratio, -1, 0});
  std::printf("  sytrd host call n=%d: %.2f ms (%s), OpenBLAS dsytrd %.2f ms\n", n, ours,
              backend.c_str(), theirs);
}

// Smallest swept n from which the GPU-forced public call (values only) beats the CPU one.
long long crossover() {
  long long found = -1;
  for (int n : {64, 128, 256, 384, 512, 768, 1024, 1536, 2048}) {
    const std::vector<double> a0 = zoo::symmetric("random", n, n, 36);
    std::vector<double> a, d(n), e(n), q(1);
    auto run = [&](const char *backend) {
      gpueig_set_backend(backend);
      const double t = host_ms(3, [&] { a = a0; }, [&] {
        gpu_sytrd_givens('N', 'L', n, a.data(), n, d.data(), e.data(), q.data(), 1);
      });
      gpueig_set_backend("auto");
      return t;
    };
    const double gpu = run("gpu"), cpu = run("cpu");
    std::printf("  crossover sweep n=%d: gpu %.3f ms, cpu %.3f ms\n", n, gpu, cpu);
    if (gpu < cpu && found < 0) found = n;
    if (gpu >= cpu) found = -1;
  }
  return found;
}

}  // namespace

void bench_sytrd(cudaStream_t stream, bool quick, bool values_only) {
  Gpu g{stream, nullptr, nullptr};
  BLAS_OK(cublasCreate(&g.blas));
  SOLVER_OK(cusolverDnCreate(&g.solver));
  set_stream(g);
  std::printf("sytrd (device-resident, two-stage method vs cuSOLVER):\n");
  if (values_only) {
    for (int64_t n : {512, 1024, 2048, 4096, 8192}) values_row(g, n, n >= 8192 ? 3 : 7);
  } else {
    for (int64_t n : quick ? std::vector<int64_t>{1024, 4096} : std::vector<int64_t>{1024, 2048, 4096, 8192})
      values_row(g, n, n >= 8192 ? 3 : 5);
    for (int64_t n : quick ? std::vector<int64_t>{1024, 4096} : std::vector<int64_t>{1024, 4096, 8192})
      vectors_row(g, n, n >= 8192 ? 3 : 5);
    tree_row(g, quick ? 1024 : 4096, 1);
    host_row(quick ? 2048 : 4096, 3);
    std::printf("  sytrd crossover (auto sends n >= this to the GPU): %lld\n", crossover());
  }
  cusolverDnDestroy(g.solver);
  cublasDestroy(g.blas);
}

}  // namespace bench
