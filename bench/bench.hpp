// Shared by the benchmark's files: the result rows and the timing helpers (medians after a
// warm-up; GPU times with CUDA events).
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

namespace bench {

#define CUDA_OK(x)                                                                    \
  do {                                                                                \
    cudaError_t e_ = (x);                                                             \
    if (e_ != cudaSuccess) {                                                          \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(2);                                                                   \
    }                                                                                 \
  } while (0)
// A cuSPARSE / cuSOLVER / cuBLAS call that must return `ok` (its library's success status).
#define LIB_OK(x, ok, lib)                                                                  \
  do {                                                                                      \
    const auto s_ = (x);                                                                    \
    if (s_ != (ok)) {                                                                       \
      std::fprintf(stderr, "%s:%d %s: %s status %d\n", __FILE__, __LINE__, #x, lib, (int)s_); \
      std::exit(2);                                                                         \
    }                                                                                       \
  } while (0)
struct Row {
  std::string routine, problem, mode;  // mode: "device" (device-resident) or "host" (host call)
  long long n;
  std::string backend;                 // where libgpueig ran
  double ours_ms;
  std::string anchor;
  double anchor_ms;
  double ours_ratio, anchor_ratio;     // accuracy ratios (LAPACK test ratio; threshold 30)
  double gbps;                         // ours, at the minimal traffic, 0 if not meaningful
  double ours_gflops = 0, anchor_gflops = 0;  // for factorizations, 0 if not meaningful
};
inline std::vector<Row> g_rows;

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Host wall time of `run`, `reset` (untimed) before each repetition; one warm-up, except with
// reps = 0: a single timed run (for CPU anchors that take seconds and need no warm-up).
inline double host_ms(int reps, const std::function<void()> &reset, const std::function<void()> &run) {
  std::vector<double> t;
  for (int r = 0; r <= reps; ++r) {
    reset();
    auto t0 = std::chrono::steady_clock::now();
    run();
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (r > 0 || reps == 0) t.push_back(ms);
  }
  return median(t);
}

// Device time of `run` on `stream` with CUDA events, `reset` (untimed) before each repetition.
inline double device_ms(cudaStream_t stream, int reps, const std::function<void()> &reset,
                 const std::function<void()> &run) {
  cudaEvent_t a, b;
  CUDA_OK(cudaEventCreate(&a));
  CUDA_OK(cudaEventCreate(&b));
  std::vector<double> t;
  for (int r = 0; r <= reps; ++r) {
    reset();
    CUDA_OK(cudaStreamSynchronize(stream));
    CUDA_OK(cudaEventRecord(a, stream));
    run();
    CUDA_OK(cudaEventRecord(b, stream));
    CUDA_OK(cudaEventSynchronize(b));
    float ms = 0;
    CUDA_OK(cudaEventElapsedTime(&ms, a, b));
    if (r > 0) t.push_back(ms);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return median(t);
}

// Uniform [-1, 1) entries from a hash of the index (a random matrix without a host copy), queued
// on `stream` (bench/random_fill.cu).
void fill_random(cudaStream_t stream, double *a, int64_t count, uint64_t seed);

// The getrf rows (bench/getrf_bench.cu): device-resident and host-call factorizations beside
// cuSOLVER and OpenBLAS, the block-size sweep and the host-call crossover sweep.
void bench_getrf(cudaStream_t stream, bool quick, bool panel_only, bool tall_only = false,
                 bool sweep_only = false, bool host_only = false);

// The sytrd rows (bench/sytrd_bench.cu): the two-stage method device-resident beside cuSOLVER's
// dsytrd (values only) and dsytrd + dorgtr (with Q), beside the tree method, the host call, and
// the auto crossover.
// values_only: the device-resident values rows alone, n = 512 .. 8192 (--sytrd-values).
void bench_sytrd(cudaStream_t stream, bool quick, bool values_only = false);

// The syevd_dev and syevx_dev rows (bench/sytrd_bench.cu): gpu_syevd_dev (all pairs) and
// gpu_syevx_dev (the smallest 1%) on device memory beside cuSOLVER's Xsyevd / Xsyevdx
// (device-resident, same process) and the host calls gpu_syevd / gpu_syevx.
void bench_syevd_dev(cudaStream_t stream, bool quick);

// The toeplitz rows (bench/toeplitz_bench.cu): the host call beside cuSOLVER dsyevd / dsyevdx on
// the dense T (device-resident) and OpenBLAS dsyevd, and the auto crossover sweep.
void bench_toeplitz(cudaStream_t stream, bool quick);
void bench_toeplitz_structured(cudaStream_t stream, bool quick, int64_t big);
// The structured search replayed on the host evaluator (no GPU): its rounds, evaluations and the
// waves they would take with `slots` evaluations side by side; false if a search did not settle.
bool structured_replay(int64_t n, int seeds, int slots);
// The stedc rows (bench/stedc_bench.cu): all eigenpairs of a random tridiagonal by the device's
// divide and conquer beside LAPACK's DSTEDC and DSTEMR on the CPU.
void bench_stedc(cudaStream_t stream, bool quick);
// The stein rows (bench/stedc_bench.cu): gpu_stein's host call (GPU forced) against LAPACK's
// DSTEIN on the same eigenvalues, all of them (n <= 2048) and the smallest 1%, n = 32 .. 8192:
// the sweep that sets stein's auto crossover.
void bench_stein(bool quick);

}  // namespace bench
