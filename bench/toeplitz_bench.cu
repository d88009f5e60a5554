// toeplitz rows of gpueig_bench: gpu_toeplitz_eig's host call (t in, eigenvalues out, everything
// included) beside what a user does today: form the dense T and call cuSOLVER's dsyevd (or
// dsyevdx for a range), device-resident (forming and uploading T not counted), or OpenBLAS dsyevd
// on the host. Also the auto crossover (GPU method against the CPU method, both host calls).
//
// Accuracy: max |l - l'| / (n ||T||_1 ulp) against the anchor's eigenvalues.
#include <cusolverDn.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "bench.hpp"
#include "gpueig.h"
#include "lapack_ref.hpp"
#include "ratios.hpp"
#include "toeplitz_structured.hpp"
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

// The structured method's test matrices at large n: t_k = u_k / (1 + 0.01 k) with u uniform in
// (-1, 1) and t_0 = 4 (a random decaying symbol; `seed` its generator's), KMS (0.5^k), and the
// 1-2-1 matrix.
std::vector<double> large_family(const std::string &kind, int64_t n, uint64_t seed = 77) {
  std::vector<double> t(n, 0.0);
  if (kind == "tridiagonal") {
    t[0] = 2;
    if (n > 1) t[1] = -1;
  } else if (kind == "kms") {
    for (int64_t k = 0; k < n; ++k) t[k] = std::pow(0.5, double(k));
  } else {
    std::mt19937_64 g(seed);
    std::uniform_real_distribution<double> u(-1, 1);
    for (int64_t k = 0; k < n; ++k) t[k] = u(g) / (1 + 0.01 * double(k));
    t[0] = 4;
  }
  return t;
}

// One host call with the method forced by GPUEIG_TOEPLITZ_METHOD, RANGE 'I' il..iu: its wall time
// (median of reps after a warm-up; reps = 0: one cold run). The device memory the structured
// method held is in its GPUEIG_VERBOSE line (run the bench with GPUEIG_VERBOSE=1).
struct Structured {
  double ms = 0;
  std::vector<double> w, z;  // z: n x m with JOBZ = 'V'
  int info = 0;
};
Structured structured_call(const std::vector<double> &t, const char *method, int il, int iu, int reps,
                           char jobz = 'N') {
  const int n = static_cast<int>(t.size());
  Structured r;
  r.w.assign(n, 0.0);
  r.z.assign(jobz == 'V' ? size_t(n) * size_t(iu - il + 1) : 1, 0.0);
  setenv("GPUEIG_TOEPLITZ_METHOD", method, 1);
  gpueig_set_backend("gpu");
  int m = 0;
  r.ms = host_ms(reps, [] {}, [&] {
    r.info = gpu_toeplitz_eig(jobz, 'I', n, t.data(), 0, 0, il, iu, 0.0, &m, r.w.data(), r.z.data(),
                              jobz == 'V' ? n : 1);
  });
  r.w.resize(r.info == 0 ? m : 0);
  gpueig_set_backend("auto");
  unsetenv("GPUEIG_TOEPLITZ_METHOD");
  return r;
}

}  // namespace

// The structured method's search replayed on the host evaluator (no GPU): with `slots` evaluations
// side by side, as the GPU runs its clusters (7 at n = 200000 on the H100 and H200), a round of k
// (shift, half) tasks costs ceil(k / slots) waves, and on the GPU a wave takes about one
// evaluation's time, so the waves are what a change to the search buys there. Rounds, evaluations
// and waves for the large-n rows' families and ranges (the 16 smallest, 16 in the middle), summed
// over `seeds` generators of the random family. O(n^2) host work an evaluation: n of a few
// thousand. False if a search did not settle its 16 eigenvalues.
bool structured_replay(int64_t n, int seeds, int slots) {
  bool all = true;
  std::printf("structured search replay: n = %lld, %d side by side (host evaluator, %d threads)\n",
              (long long)n, slots, gpueig::structured::host_slots());
  for (const char *kind : {"random", "kms", "tridiagonal"}) {
    const int runs = std::strcmp(kind, "random") ? 1 : seeds;
    for (const int64_t il : {int64_t(1), n / 2 - 7}) {
      long long rounds = 0, evaluations = 0, waves = 0;
      int settled = 0;
      for (int r = 0; r < runs; ++r) {
        const std::vector<double> t = large_family(kind, n, 77 + uint64_t(r));
        const gpueig::structured::CauchyForm form = gpueig::structured::cauchy_form(n, t.data());
        const gpueig::structured::Evaluate host = gpueig::structured::host_evaluator(form);
        const gpueig::structured::Evaluate counted = [&](const std::vector<gpueig::gpu::InertiaTask> &tasks,
                                                         std::vector<gpueig::gpu::ToeplitzInertia> &out) {
          waves += (int64_t(tasks.size()) + slots - 1) / slots;
          return host(tasks, out);
        };
        const gpueig::structured::Guide guide = gpueig::structured::guide_of(form);
        std::vector<double> w(n);
        int m = 0;
        const gpueig::structured::Report rep =
            gpueig::structured::search(n, t.data(), 'I', 0, 0, int(il), int(il + 15), 0.0, slots, counted, -1, &m,
                                       w.data(), &guide);
        settled += rep.ok && m == 16;
        rounds += rep.rounds, evaluations += rep.evaluations;
      }
      std::printf("  %-11s %lld..%lld: %d of %d settled, rounds %lld, evaluations %lld, waves %lld\n", kind,
                  (long long)il, (long long)il + 15, settled, runs, rounds, evaluations, waves);
      all &= settled == runs;
    }
  }
  return all;
}

// gpu_toeplitz_eig's structured method (a few eigenvalues of a large T, never formed): at n = 16384
// against our dense half-block method and cuSOLVER dsyevdx on the dense T (device-resident), and
// at n = 200000 (no dense method fits) for three families, 16 smallest and 16 in the middle.
void bench_toeplitz_structured(cudaStream_t s, bool quick, int64_t big) {
  cusolverDnHandle_t h;
  SOLVER_OK(cusolverDnCreate(&h));
  SOLVER_OK(cusolverDnSetStream(h, s));
  for (const char *kind : {"random", "kms", "tridiagonal"}) {
    const int n = 16384;
    const std::vector<double> t = large_family(kind, n);
    const Structured st = structured_call(t, "structured", 1, 16, 3);
    const Structured de = structured_call(t, "dense", 1, 16, quick ? 1 : 3);
    std::vector<double> wref;
    const double anchor = cusolver_dense(s, h, t, 1, 16, quick ? 1 : 3, &wref);
    const double norm = toeplitz_norm1(t);
    std::printf("  toeplitz structured n=%d %-11s 16 smallest: structured %9.3f ms  dense halves "
                "%9.3f ms  cuSOLVER dsyevdx %9.3f ms  (%.3fx, %.3fx)  ratio vs cuSOLVER %.3f\n",
                n, kind, st.ms, de.ms, anchor, st.ms / de.ms, st.ms / anchor,
                distance(st.w, wref, n, norm));
    g_rows.push_back({"toeplitz", std::string(kind) + ", 16 smallest, structured", "host", n, "gpu", st.ms,
                      "cuSOLVER dsyevdx on dense T (device)", anchor, distance(st.w, wref, n, norm), -1, 0});
  }
  // With eigenvectors (JOBZ = 'V'): the structured bases against our dense halves with vectors
  // and cuSOLVER dsyevdx with vectors on the dense T (device-resident).
  for (const char *kind : {"random", "kms", "tridiagonal"}) {
    const int n = 16384;
    const std::vector<double> t = large_family(kind, n);
    const Structured st = structured_call(t, "structured", 1, 16, 3, 'V');
    const Structured de = structured_call(t, "dense", 1, 16, quick ? 1 : 3, 'V');
    std::vector<double> wref;
    const double anchor = cusolver_dense(s, h, t, 1, 16, quick ? 1 : 3, &wref, true);
    const double norm = toeplitz_norm1(t);
    std::printf("  toeplitz structured n=%d %-11s 16 smallest with vectors: structured %9.3f ms  dense halves "
                "%9.3f ms  cuSOLVER dsyevdx %9.3f ms  (%.3fx, %.3fx)  ratio vs cuSOLVER %.3f\n",
                n, kind, st.ms, de.ms, anchor, st.ms / de.ms, st.ms / anchor, distance(st.w, wref, n, norm));
    g_rows.push_back({"toeplitz", std::string(kind) + ", 16 smallest + vectors, structured", "host", n, "gpu",
                      st.ms, "cuSOLVER dsyevdx + vectors on dense T (device)", anchor, distance(st.w, wref, n, norm),
                      -1, 0});
  }
  cusolverDnDestroy(h);
  const double pi = std::acos(-1.0);
  for (const char *kind : {"tridiagonal", "kms", "random"}) {
    const int64_t n = big;
    const std::vector<double> t = large_family(kind, n);
    for (int il : {1, int(n / 2 - 7)}) {
      const Structured st = structured_call(t, "structured", il, il + 15, 0);
      double err = -1;  // the 1-2-1 matrix: against its analytic eigenvalues, in n ||T||_1 ulp
      if (!std::strcmp(kind, "tridiagonal") && st.info == 0 && st.w.size() == 16) {
        std::vector<double> exact(16);
        for (int j = 0; j < 16; ++j) exact[j] = 2 - 2 * std::cos(double(il + j) * pi / double(n + 1));
        err = ratios::eigenvalue_distance(st.w, exact, n, 4.0);
      }
      std::printf("  toeplitz structured n=%lld %-11s eigenvalues %d..%d: %10.1f ms  info %d  ratio %s\n",
                  (long long)n, kind, il, il + 15, st.ms, st.info,
                  err < 0 ? "(no analytic spectrum)" : std::to_string(err).c_str());
    }
    // The 16 smallest with their vectors (residuals certified by the library's FFT products:
    // GPUEIG_VERBOSE); the 1-2-1 matrix's against its exact sine vectors.
    const Structured sv = structured_call(t, "structured", 1, 16, 0, 'V');
    double angle = -1;  // max 1 - |<z_j, s_j>|
    if (!std::strcmp(kind, "tridiagonal") && sv.info == 0 && sv.w.size() == 16) {
      angle = 0;
      for (int j = 0; j < 16; ++j) {
        long double dot = 0;
        for (int64_t k = 1; k <= n; ++k)
          dot += (long double)sv.z[size_t(j) * n + k - 1] * std::sqrt(2.0 / double(n + 1)) *
                 std::sin(std::fmod(double(j + 1) * double(k), 2.0 * double(n + 1)) * pi / double(n + 1));
        angle = std::max(angle, double(1 - std::fabs(dot)));
      }
    }
    char closeness[64] = "";
    if (angle >= 0) std::snprintf(closeness, sizeof closeness, "1 - |cos| to the exact vectors <= %.1e", angle);
    std::printf("  toeplitz structured n=%lld %-11s 1..16 with vectors: %10.1f ms  info %d  %s\n", (long long)n,
                kind, sv.ms, sv.info, closeness);
  }
}

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
