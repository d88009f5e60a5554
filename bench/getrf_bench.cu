// getrf rows of gpueig_bench: the device-resident factorization beside cuSOLVER's dgetrf, the host
// call beside what a drop-in user does without us (pageable cudaMemcpy up, cusolverDnDgetrf,
// cudaMemcpy down) and beside OpenBLAS dgetrf, plus a block-size sweep and the auto crossover.
//
// Accuracy (acc): ||P A x - L (U x)||_1 / (n ||A||_1 ||x||_1 eps) for a random x, the matrix
// ratio ||P A - L U|| / (n ||A|| eps) probed by one vector: O(n^2) on the host where the full
// ratio would be O(n^3).
#include <cublas_v2.h>
#include <cusolverDn.h>

#include <cmath>
#include <cstdint>
#include <algorithm>
#include <chrono>
#include <functional>
#include <thread>
#include <utility>
#include <vector>

#include "bench.hpp"
#include "context.hpp"
#include "getrf.hpp"
#include "gpueig.h"
#include "lapack_ref.hpp"
#include "ratios.hpp"
#include "staging.hpp"
#include "zoo.hpp"

namespace bench {
namespace {

#define SOLVER_OK(x) LIB_OK(x, CUSOLVER_STATUS_SUCCESS, "cuSOLVER")

double gflops(int64_t n, double ms) { return 2.0 / 3.0 * double(n) * n * n / (ms * 1e6); }

// The probe ratio above for the m x n matrix a (leading dimension m) and its factors.
double probe_ratio(int64_t m, int64_t n, const std::vector<double> &a, const std::vector<double> &lu,
                   const std::vector<int> &ipiv) {
  return ratios::getrf_probe_residual(m, n, a.data(), m, lu.data(), m, ipiv.data());
}

struct Gpu {
  cudaStream_t st;
  cublasHandle_t blas;
  cusolverDnHandle_t solver;
};

// A random n x n device matrix a0, the working copy a that reset() restores from it, and the
// outputs and scratch of one factorization (flags: ours INFO and non-finite, cuSOLVER's INFO).
struct DeviceLu {
  int64_t n;
  size_t count;
  cudaStream_t st;
  double *a0 = nullptr, *a = nullptr;
  int *ipiv = nullptr, *flags = nullptr;
  void *scratch = nullptr;

  DeviceLu(int64_t n_, cudaStream_t s, uint64_t seed) : n(n_), count(size_t(n_) * n_), st(s) {
    CUDA_OK(cudaMalloc(&a0, count * sizeof(double)));
    CUDA_OK(cudaMalloc(&a, count * sizeof(double)));
    CUDA_OK(cudaMalloc(&ipiv, n * sizeof(int)));
    CUDA_OK(cudaMalloc(&flags, 4 * sizeof(int)));
    CUDA_OK(cudaMalloc(&scratch, gpueig::gpu::getrf_scratch_bytes()));
    fill_random(st, a0, int64_t(count), seed);
  }
  ~DeviceLu() {
    for (void *q : {(void *)a0, (void *)a, (void *)ipiv, (void *)flags, scratch}) cudaFree(q);
  }
  void reset() const {
    CUDA_OK(cudaMemcpyAsync(a, a0, count * sizeof(double), cudaMemcpyDeviceToDevice, st));
  }
  gpueig::gpu::Status ours(cublasHandle_t blas, int nb = 0) const {
    return gpueig::gpu::getrf_device(blas, st, n, n, a, n, ipiv, flags, flags + 1, scratch, nb);
  }
};

// Device times of several runs on `st`, interleaved (run 0 of each, then run 1 of each, ...;
// `reset`, untimed, before every one), after one warm-up round: each run's times, in order.
std::vector<std::vector<double>> interleaved(cudaStream_t st, int reps,
                                             const std::function<void()> &reset,
                                             const std::vector<std::function<void()>> &runs) {
  cudaEvent_t e0, e1;
  CUDA_OK(cudaEventCreate(&e0));
  CUDA_OK(cudaEventCreate(&e1));
  std::vector<std::vector<double>> t(runs.size());
  for (int r = 0; r <= reps; ++r)
    for (size_t i = 0; i < runs.size(); ++i) {
      reset();
      CUDA_OK(cudaStreamSynchronize(st));
      CUDA_OK(cudaEventRecord(e0, st));
      runs[i]();
      CUDA_OK(cudaEventRecord(e1, st));
      CUDA_OK(cudaEventSynchronize(e1));
      float ms = 0;
      CUDA_OK(cudaEventElapsedTime(&ms, e0, e1));
      if (r > 0) t[i].push_back(ms);
    }
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  return t;
}

// The same for host calls, timed by the host clock (`reset` untimed).
std::vector<std::vector<double>> interleaved_host(int reps, const std::function<void()> &reset,
                                                  const std::vector<std::function<void()>> &runs) {
  std::vector<std::vector<double>> t(runs.size());
  for (int r = 0; r <= reps; ++r)
    for (size_t i = 0; i < runs.size(); ++i) {
      reset();
      const auto t0 = std::chrono::steady_clock::now();
      runs[i]();
      const std::chrono::duration<double, std::milli> ms = std::chrono::steady_clock::now() - t0;
      if (r > 0) t[i].push_back(ms.count());
    }
  return t;
}

// GPUEIG_GETRF_LOOKAHEAD for the runs that follow (the library reads it at every call): the
// library's rule (auto), forced on, or off.
void lookahead(const char *mode) { setenv("GPUEIG_GETRF_LOOKAHEAD", mode, 1); }
void lookahead(bool on) { lookahead(on ? "auto" : "off"); }

// Device-resident: ours (with and without look-ahead), the public device-pointer API, and
// cusolverDnDgetrf on the same matrix, each reset from a pristine copy, runs interleaved, medians.
void device_rows(const Gpu &g, int64_t n, int reps, bool accuracy) {
  const DeviceLu d(n, g.st, 7);
  const size_t count = d.count;
  double *a = d.a;
  int *ipiv = d.ipiv;
  auto reset = [&] { d.reset(); };
  auto factors = [&](std::vector<double> &lu, std::vector<int> &p) {
    lu.resize(count);
    p.resize(n);
    CUDA_OK(cudaStreamSynchronize(g.st));
    CUDA_OK(cudaMemcpy(lu.data(), a, count * sizeof(double), cudaMemcpyDeviceToHost));
    CUDA_OK(cudaMemcpy(p.data(), ipiv, n * sizeof(int), cudaMemcpyDeviceToHost));
  };
  std::string backend = "gpu", api_backend = "gpu";
  int lwork = 0;
  SOLVER_OK(cusolverDnDgetrf_bufferSize(g.solver, int(n), int(n), a, int(n), &lwork));
  double *work;
  CUDA_OK(cudaMalloc(&work, std::max(1, lwork) * sizeof(double)));
  auto ours = [&] {
    gpueig::gpu::Status s = d.ours(g.blas);
    if (!s) backend = "FAILED: " + s.reason;
  };
  auto ours_in_order = [&] {
    lookahead(false);
    ours();
    lookahead(true);
  };
  // The public device-pointer API (gpu_getrf_dev on this stream): its time against
  // getrf_device's is the API's own cost (argument and pointer checks, the stream-ordered
  // workspace, the cuBLAS handle's stream).
  auto api = [&] {
    if (gpu_getrf_dev(int(n), int(n), a, int(n), ipiv, d.flags + 3, g.st) != 0) api_backend = "FAILED";
  };
  auto theirs = [&] {
    SOLVER_OK(cusolverDnDgetrf(g.solver, int(n), int(n), a, int(n), work, ipiv, d.flags + 2));
  };
  lookahead(true);
  const auto t = interleaved(g.st, reps, reset, {ours, ours_in_order, api, theirs});
  const double t_ours = median(t[0]), t_order = median(t[1]), t_api = median(t[2]),
               t_theirs = median(t[3]);
  std::printf("  getrf device-resident: n=%lld  ours %9.3f ms (%6.0f GFLOP/s)  without look-ahead %9.3f"
              "  cuSOLVER %9.3f ms (%6.0f GFLOP/s)  ratio %.3f  gpu_getrf_dev %9.3f (%.3fx ours)  runs:",
              (long long)n, t_ours, gflops(n, t_ours), t_order, t_theirs, gflops(n, t_theirs),
              t_theirs / t_ours, t_api, t_api / t_ours);
  for (size_t i = 0; i < t[0].size(); ++i) std::printf(" %.2f/%.2f/%.2f", t[0][i], t[1][i], t[3][i]);
  std::printf("\n");
  std::vector<double> host_a, lu;
  std::vector<int> p;
  double ours_acc = -1, their_acc = -1;
  if (accuracy) {
    host_a.resize(count);
    CUDA_OK(cudaMemcpy(host_a.data(), d.a0, count * sizeof(double), cudaMemcpyDeviceToHost));
    reset();
    ours();
    factors(lu, p);
    ours_acc = probe_ratio(n, n, host_a, lu, p);
    reset();
    theirs();
    factors(lu, p);
    their_acc = probe_ratio(n, n, host_a, lu, p);
  }
  Row r{"getrf", "random, square", "device", n, backend, t_ours, "cuSOLVER dgetrf", t_theirs,
        ours_acc, their_acc, 0};
  r.ours_gflops = gflops(n, t_ours);
  r.anchor_gflops = gflops(n, t_theirs);
  g_rows.push_back(r);
  Row v{"getrf_dev", "random, square", "device", n, api_backend, t_api, "cuSOLVER dgetrf", t_theirs, -1, -1, 0};
  v.ours_gflops = gflops(n, t_api);
  v.anchor_gflops = gflops(n, t_theirs);
  g_rows.push_back(v);
  cudaFree(work);
}

// Look-ahead's side-stream panels at n: blocks per launch (getrf_side_blocks's data),
// interleaved runs against look-ahead off and cuSOLVER (printed, not tabled: the tuning data).
void lookahead_sweep(const Gpu &g, int64_t n, int reps) {
  const DeviceLu d(n, g.st, 9);
  int lwork = 0;
  SOLVER_OK(cusolverDnDgetrf_bufferSize(g.solver, int(n), int(n), d.a, int(n), &lwork));
  double *work;
  CUDA_OK(cudaMalloc(&work, std::max(1, lwork) * sizeof(double)));
  struct Config {
    const char *blocks;  // GPUEIG_GETRF_SIDE_BLOCKS (0: getrf_side_blocks's choice)
    const char *mode;    // GPUEIG_GETRF_LOOKAHEAD
  };
  const std::vector<Config> configs{{"0", "off"}, {"0", "auto"}, {"0", "on"}, {"88", "on"},
                                    {"77", "on"}, {"66", "on"}, {"60", "on"}, {"55", "on"},
                                    {"44", "on"}};
  std::vector<std::function<void()>> runs;
  for (const Config &c : configs)
    runs.push_back([&g, &d, c] {
      lookahead(c.mode);
      setenv("GPUEIG_GETRF_SIDE_BLOCKS", c.blocks, 1);
      d.ours(g.blas);
    });
  runs.push_back([&] {
    SOLVER_OK(cusolverDnDgetrf(g.solver, int(n), int(n), d.a, int(n), work, d.ipiv, d.flags + 2));
  });
  const auto t = interleaved(g.st, reps, [&] { d.reset(); }, runs);
  for (size_t i = 0; i < configs.size(); ++i)
    std::printf("  getrf look-ahead sweep: n=%lld look-ahead %-4s side blocks %3s  %9.3f ms"
                "  (cuSOLVER %9.3f, ratio %.3f)\n",
                (long long)n, configs[i].mode, configs[i].blocks,
                median(t[i]), median(t.back()), median(t.back()) / median(t[i]));
  lookahead(true);
  unsetenv("GPUEIG_GETRF_SIDE_BLOCKS");
  cudaFree(work);
}

// Device-resident time of ours at n for each block size (printed, not tabled): the tuning data.
void block_sweep(const Gpu &g, int64_t n) {
  const DeviceLu d(n, g.st, 8);
  for (int nb : {64, 128, 256})
    for (bool ahead : {true, false}) {
      lookahead(ahead);
      const double ms = device_ms(g.st, 3, [&] { d.reset(); }, [&] { d.ours(g.blas, nb); });
      std::printf("  getrf block sweep: n=%lld nb=%3d look-ahead %-3s  %9.3f ms  %7.0f GFLOP/s\n",
                  (long long)n, nb, ahead ? "on" : "off", ms, gflops(n, ms));
    }
  lookahead(true);
}

// One panel of 128 columns (an m x nb factorization: no block row, no DGEMM of K > 0),
// printed as time per column: the part of the factorization that does not scale with flops.
void panel_probe(const Gpu &g) {
  const int nb = 128;
  for (int64_t m : {1024, 2048, 4096, 8192, 16384, 32768}) {
    double *a, *a0;
    int *ipiv, *flags;
    void *scratch;
    const size_t count = size_t(m) * nb;
    CUDA_OK(cudaMalloc(&a, count * sizeof(double)));
    CUDA_OK(cudaMalloc(&a0, count * sizeof(double)));
    CUDA_OK(cudaMalloc(&ipiv, nb * sizeof(int)));
    CUDA_OK(cudaMalloc(&flags, 2 * sizeof(int)));
    CUDA_OK(cudaMalloc(&scratch, gpueig::gpu::getrf_scratch_bytes()));
    fill_random(g.st, a0, int64_t(count), 11);
    const double ms = device_ms(
        g.st, 10,
        [&] { CUDA_OK(cudaMemcpyAsync(a, a0, count * sizeof(double), cudaMemcpyDeviceToDevice, g.st)); },
        [&] { gpueig::gpu::getrf_device(g.blas, g.st, m, nb, a, m, ipiv, flags, flags + 1, scratch); });
    std::printf("  getrf panel: %lld x %d  %8.3f ms  %6.2f us/column\n", (long long)m, nb, ms,
                ms * 1e3 / nb);
    for (void *q : {(void *)a, (void *)a0, (void *)ipiv, (void *)flags, scratch}) cudaFree(q);
  }
}

// Host calls: ours (GPU forced) vs our own device-resident factorization of the same matrix
// (timed by the host clock too, call to synchronize: the host call's transfers cost what it
// takes beyond it), the plain cuSOLVER way and, where asked, OpenBLAS dgetrf, runs interleaved
// (each from a fresh copy of the matrix, untimed), medians of `reps` after a warm-up round.
// (OpenBLAS's threads spin for a while after each of its calls and slow the host calls run
// next to them: it is asked for only where it is the anchor, n <= 4096.)
void host_rows(const Gpu &g, int n, int reps, bool with_openblas) {
  const size_t count = size_t(n) * n;
  std::vector<double> a0 = zoo::uniform(count, -1, 1, 5), a(count);
  std::vector<int> ipiv(n);
  std::string backend;
  // The plain way: device buffers allocated once (not timed), pageable copies, cuSOLVER.
  double *d;
  int *dpiv, *dinfo;
  CUDA_OK(cudaMalloc(&d, count * sizeof(double)));
  CUDA_OK(cudaMalloc(&dpiv, n * sizeof(int)));
  CUDA_OK(cudaMalloc(&dinfo, sizeof(int)));
  int lwork = 0;
  SOLVER_OK(cusolverDnDgetrf_bufferSize(g.solver, n, n, d, n, &lwork));
  double *work;
  CUDA_OK(cudaMalloc(&work, std::max(1, lwork) * sizeof(double)));
  auto ours = [&] {
    gpueig_set_backend("gpu");
    gpu_getrf_crout(n, n, a.data(), n, ipiv.data());
    backend = gpueig_last_backend();
    gpueig_set_backend("auto");
  };
  // Our device-resident call on the same matrix (dev reset from dev0 before every run).
  double *dev0, *dev;
  int *dflags;
  void *scratch;
  CUDA_OK(cudaMalloc(&dev0, count * sizeof(double)));
  CUDA_OK(cudaMalloc(&dev, count * sizeof(double)));
  CUDA_OK(cudaMalloc(&dflags, 2 * sizeof(int)));
  CUDA_OK(cudaMalloc(&scratch, gpueig::gpu::getrf_scratch_bytes()));
  CUDA_OK(cudaMemcpy(dev0, a0.data(), count * sizeof(double), cudaMemcpyHostToDevice));
  std::string dev_backend = "gpu";
  auto device = [&] {
    if (!gpueig::gpu::getrf_device(g.blas, g.st, n, n, dev, n, dpiv, dflags, dflags + 1, scratch))
      dev_backend = "FAILED";
    CUDA_OK(cudaStreamSynchronize(g.st));
  };
  auto reset = [&] {
    a = a0;
    CUDA_OK(cudaMemcpyAsync(dev, dev0, count * sizeof(double), cudaMemcpyDeviceToDevice, g.st));
    CUDA_OK(cudaStreamSynchronize(g.st));
  };
  auto plain = [&] {
    CUDA_OK(cudaMemcpy(d, a.data(), count * sizeof(double), cudaMemcpyHostToDevice));
    SOLVER_OK(cusolverDnDgetrf(g.solver, n, n, d, n, work, dpiv, dinfo));
    CUDA_OK(cudaMemcpy(a.data(), d, count * sizeof(double), cudaMemcpyDeviceToHost));
    CUDA_OK(cudaMemcpy(ipiv.data(), dpiv, n * sizeof(int), cudaMemcpyDeviceToHost));
  };
  int info = 0;
  auto openblas = [&] { dgetrf_(&n, &n, a.data(), &n, ipiv.data(), &info); };
  std::vector<std::function<void()>> runs{ours, plain, device};
  if (with_openblas) runs.push_back(openblas);
  const auto t = interleaved_host(reps, reset, runs);
  std::vector<double> acc;
  for (size_t i = 0; i < 2; ++i) {
    a = a0;
    runs[i]();
    acc.push_back(probe_ratio(n, n, a0, a, ipiv));
  }
  if (with_openblas) {
    a = a0;
    openblas();
    acc.push_back(probe_ratio(n, n, a0, a, ipiv));
  }
  const double t_dev = median(t[2]);
  std::printf("  getrf host call: n=%d  ours %9.3f ms  device-resident %9.3f ms (%s; host call %+.2f"
              " ms)  plain cuSOLVER %9.3f ms", n, median(t[0]), t_dev, dev_backend.c_str(),
              median(t[0]) - t_dev, median(t[1]));
  if (with_openblas) std::printf("  OpenBLAS %9.3f ms", median(t[3]));
  std::printf("  runs (ours/device/plain):");
  for (size_t k = 0; k < t[0].size(); ++k) std::printf(" %.2f/%.2f/%.2f", t[0][k], t[2][k], t[1][k]);
  std::printf("\n");
  Row h{"getrf", "random, square", "host", n, backend, median(t[0]), "our device-resident call",
        t_dev, acc[0], -1, 0};
  h.ours_gflops = gflops(n, h.ours_ms);
  h.anchor_gflops = gflops(n, h.anchor_ms);
  g_rows.push_back(h);
  for (void *q : {(void *)dev0, (void *)dev, (void *)dflags, scratch}) cudaFree(q);
  Row r{"getrf", "random, square", "host", n, backend, median(t[0]),
        "pageable upload + cuSOLVER + download", median(t[1]), acc[0], acc[1], 0};
  r.ours_gflops = gflops(n, r.ours_ms);
  r.anchor_gflops = gflops(n, r.anchor_ms);
  g_rows.push_back(r);
  for (void *q : {(void *)d, (void *)dpiv, (void *)dinfo, (void *)work}) cudaFree(q);
  if (!with_openblas) return;
  Row o{"getrf", "random, square", "host", n, backend, median(t[0]), "OpenBLAS dgetrf", median(t[3]),
        acc[0], acc[2], 0};
  o.ours_gflops = gflops(n, o.ours_ms);
  o.anchor_gflops = gflops(n, o.anchor_ms);
  g_rows.push_back(o);
}

// The host call's transfers alone at n: the whole matrix up and down through the library's
// pinned staging (what the streamed host call moves, one direction after the other), medians of 3.
// A host call cannot end before its last download, so these bound how much of the transfers the
// factorization can hide.
void transfer_probe(int n) {
  const size_t count = size_t(n) * n, bytes = count * sizeof(double);
  std::vector<double> a = zoo::uniform(count, -1, 1, 5);
  gpueig::gpu::Context *ctx = nullptr;
  if (!gpueig::gpu::Context::get(ctx)) return;
  double *d;
  CUDA_OK(cudaMalloc(&d, bytes));
  const size_t pitch = size_t(n) * sizeof(double);
  // The whole matrix up, the whole matrix down, then row strips down (what the host call
  // downloads as the steps finish rows: short pieces of every column), interleaved.
  const std::vector<int> strips{256, 1024, 2048};
  std::vector<std::function<void()>> runs{
      [&] {
        if (!gpueig::gpu::upload(*ctx, d, pitch, a.data(), pitch, pitch, n)) std::exit(2);
        CUDA_OK(cudaStreamSynchronize(ctx->stream()));
      },
      [&] {
        if (!gpueig::gpu::download(*ctx, a.data(), pitch, d, pitch, pitch, n)) std::exit(2);
      }};
  for (int rows : strips)
    runs.push_back([&, rows] {
      if (!gpueig::gpu::download(*ctx, a.data(), pitch, d, pitch, rows * sizeof(double), n))
        std::exit(2);
    });
  const auto t = interleaved_host(3, [] {}, runs);
  const double up = median(t[0]), down = median(t[1]);
  std::printf("  getrf host transfers: n=%d  staged upload %8.3f ms (%5.1f GB/s)  staged download"
              " %8.3f ms (%5.1f GB/s)\n", n, up, bytes / up / 1e6, down, bytes / down / 1e6);
  for (size_t i = 0; i < strips.size(); ++i)
    std::printf("  getrf host transfers: row strip %d x %d down %8.3f ms (%5.1f GB/s)\n",
                strips[i], n, median(t[2 + i]),
                double(strips[i]) * n * sizeof(double) / 1e6 / median(t[2 + i]));
  cudaFree(d);
}

// The host call at n under each of `configs` (environment variables set around each call),
// interleaved; printed with the configurations' labels.
struct EnvConfig {
  const char *label;
  std::vector<std::pair<const char *, const char *>> vars;
};
void host_configs(int n, int reps, const std::vector<EnvConfig> &configs) {
  const size_t count = size_t(n) * n;
  std::vector<double> a0 = zoo::uniform(count, -1, 1, 5), a(count);
  std::vector<int> ipiv(n);
  std::vector<std::function<void()>> runs;
  for (const EnvConfig &c : configs)
    runs.push_back([&, c] {
      for (const auto &[name, value] : c.vars) setenv(name, value, 1);
      gpueig_set_backend("gpu");
      gpu_getrf_crout(n, n, a.data(), n, ipiv.data());
      gpueig_set_backend("auto");
      for (const auto &v : c.vars) unsetenv(v.first);
    });
  const auto t = interleaved_host(reps, [&] { a = a0; }, runs);
  for (size_t i = 0; i < configs.size(); ++i) {
    std::printf("  getrf host call: n=%d %-36s %9.3f ms  runs:", n, configs[i].label, median(t[i]));
    for (double x : t[i]) std::printf(" %.2f", x);
    std::printf("\n");
  }
}

// The host call with look-ahead by the library's rule and off, and the factors downloaded in
// row strips of at least 256 / 1024 / 4096 rows (GPUEIG_GETRF_ROW_STRIP): the data for
// Feed::kRowStrip and the streamed path's look-ahead.
void host_lookahead(int n, int reps) {
  auto config = [](const char *label, const char *mode, const char *strip) {
    return EnvConfig{label, {{"GPUEIG_GETRF_LOOKAHEAD", mode}, {"GPUEIG_GETRF_ROW_STRIP", strip}}};
  };
  host_configs(n, reps, {config("look-ahead auto, row strip 256", "auto", "256"),
                         config("look-ahead auto, row strip 1024", "auto", "1024"),
                         config("look-ahead auto, row strip 4096", "auto", "4096"),
                         config("look-ahead off, row strip 1024", "off", "1024")});
}

// The host call with its chunks taken in as they land (the default) and only once a step needs
// them (GPUEIG_GETRF_FEED=lazy, the schedule before 2026-11-29).
void host_feed(int n, int reps) {
  host_configs(n, reps, {{"chunks in as they land", {{"GPUEIG_GETRF_FEED", "auto"}}},
                         {"chunks in when a step needs them", {{"GPUEIG_GETRF_FEED", "lazy"}}}});
}

// The streamed host call's factorization alone at n, against the same call without a feed,
// interleaved, medians of 5 (printed), with two feeds that move no data:
// - every chunk there from the start (arrive() and finished() return at once): what the chunks
//   cost besides the transfers (the throttle's waits and the gathers' passes);
// - chunk k there once the bytes of chunks 0..k would have crossed a link of `gbs` GB/s (a
//   host clock from the call's start; arrive() waits for it): what the order in
//   which columns arrive costs by itself, without host copies or DMA competing. A chunk that
//   lands after the steps began comes in with the rows of U above the current step (one DTRSM,
//   cuda/getrf.cu's Driver::admit), work that the steps' block rows do without a feed.
struct ReadyFeed final : gpueig::gpu::GetrfFeed {
  gpueig::gpu::Status arrive(int64_t) override { return gpueig::gpu::Status::success(); }
  bool ready(int64_t) override { return true; }
  gpueig::gpu::Status finished(int64_t, int64_t) override { return gpueig::gpu::Status::success(); }
};
struct LinkFeed final : gpueig::gpu::GetrfFeed {
  LinkFeed(int64_t n, double gbs) : chunks(gpueig::gpu::getrf_chunks(n, n)), m(n), gbs(gbs) {}
  void start() { t0 = std::chrono::steady_clock::now(); }
  gpueig::gpu::Status arrive(int64_t c0) override {
    // (a bounded wait: the arrival time is at most the whole matrix's transfer time away)
    while (!ready(c0)) std::this_thread::yield();
    return gpueig::gpu::Status::success();
  }
  bool ready(int64_t c0) override {
    const int64_t c1 = *std::upper_bound(chunks.begin(), chunks.end(), c0);
    const double lands_ms = double(c1) * m * sizeof(double) / gbs / 1e6;
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
               .count() >= lands_ms;
  }
  gpueig::gpu::Status finished(int64_t, int64_t) override { return gpueig::gpu::Status::success(); }
  const std::vector<int64_t> chunks;
  const int64_t m;
  const double gbs;
  std::chrono::steady_clock::time_point t0;
};
void fed_probe(const Gpu &g, int64_t n) {
  const DeviceLu d(n, g.st, 7);
  void *buffers;
  CUDA_OK(cudaMalloc(&buffers, gpueig::gpu::getrf_feed_bytes(n, n)));
  ReadyFeed ready;
  LinkFeed link50(n, 50), link100(n, 100);
  bool failed = false;  // a failed call's time is not the factorization's
  auto fed = [&](gpueig::gpu::GetrfFeed *feed) {
    return [&, feed] {
      failed |= !gpueig::gpu::getrf_device(g.blas, g.st, n, n, d.a, n, d.ipiv, d.flags,
                                           d.flags + 1, d.scratch, 0, feed, buffers);
    };
  };
  auto linked = [&](LinkFeed *feed) {
    return [&, feed] {
      CUDA_OK(cudaStreamSynchronize(g.st));  // (the clock starts with an idle GPU)
      feed->start();
      fed(feed)();
    };
  };
  auto unfed = [&] { failed |= !d.ours(g.blas); };
  const auto t = interleaved(g.st, 5, [&] { d.reset(); },
                             {unfed, fed(&ready), linked(&link50), linked(&link100)});
  std::printf("  getrf fed factorization: n=%lld  without a feed %9.3f ms  fed in chunks %9.3f ms"
              "  arriving at 50 GB/s %9.3f ms  at 100 GB/s %9.3f ms%s\n",
              (long long)n, median(t[0]), median(t[1]), median(t[2]), median(t[3]),
              failed ? "  (FAILED: times void)" : "");
  cudaFree(buffers);
}

// Host call, GPU forced vs OpenBLAS dgetrf, small sizes: where auto should switch.
void crossover_sweep() {
  for (int n : {128, 256, 512, 768, 1024, 2048}) {
    const std::vector<double> a0 = zoo::uniform(size_t(n) * n, -1, 1, 3);
    std::vector<double> a;
    std::vector<int> ipiv(n);
    int info = 0;
    gpueig_set_backend("gpu");
    const double g = host_ms(5, [&] { a = a0; }, [&] { gpu_getrf_crout(n, n, a.data(), n, ipiv.data()); });
    gpueig_set_backend("auto");
    const double c = host_ms(5, [&] { a = a0; }, [&] { dgetrf_(&n, &n, a.data(), &n, ipiv.data(), &info); });
    std::printf("  getrf crossover sweep: n=%5d  gpu host call %8.3f ms  dgetrf %8.3f ms\n", n, g, c);
  }
}

// Floating-point operations of an m x n LU (multiply and add counted apart; 2/3 n^3 when square).
double lu_flops(int64_t m, int64_t n) {
  const double k = double(std::min(m, n));
  return 2.0 * (double(m) * n * k - (double(m) + n) * k * k / 2 + k * k * k / 3);
}

// Tall and skinny shapes (issue 22): device-resident ours and cuSOLVER dgetrf on the same matrix,
// runs interleaved (each from a pristine copy), medians; then the host call (GPU forced) against
// OpenBLAS dgetrf, which decides where auto sends such shapes.
void tall_rows(const Gpu &g, int64_t m, int64_t n, int reps) {
  const size_t count = size_t(m) * n;
  double *a0, *a, *work;
  int *ipiv, *flags;
  void *scratch;
  CUDA_OK(cudaMalloc(&a0, count * sizeof(double)));
  CUDA_OK(cudaMalloc(&a, count * sizeof(double)));
  CUDA_OK(cudaMalloc(&ipiv, n * sizeof(int)));
  CUDA_OK(cudaMalloc(&flags, 4 * sizeof(int)));
  CUDA_OK(cudaMalloc(&scratch, gpueig::gpu::getrf_scratch_bytes()));
  fill_random(g.st, a0, int64_t(count), 17);
  int lwork = 0;
  SOLVER_OK(cusolverDnDgetrf_bufferSize(g.solver, int(m), int(n), a, int(m), &lwork));
  CUDA_OK(cudaMalloc(&work, std::max(1, lwork) * sizeof(double)));
  auto reset = [&] {
    CUDA_OK(cudaMemcpyAsync(a, a0, count * sizeof(double), cudaMemcpyDeviceToDevice, g.st));
  };
  std::string backend = "gpu";
  auto ours = [&] {
    const gpueig::gpu::Status s =
        gpueig::gpu::getrf_device(g.blas, g.st, m, n, a, m, ipiv, flags, flags + 1, scratch);
    if (!s) backend = "FAILED: " + s.reason;
  };
  auto theirs = [&] { SOLVER_OK(cusolverDnDgetrf(g.solver, int(m), int(n), a, int(m), work, ipiv, flags + 2)); };
  // Look-ahead forced on and off beside the library's rule (the data getrf_lookahead rests on).
  auto forced = [&](const char *mode) {
    return [&ours, mode] {
      lookahead(mode);
      ours();
      lookahead(true);
    };
  };
  lookahead(true);
  const auto t = interleaved(g.st, reps, reset, {ours, forced("on"), forced("off"), theirs});
  const std::vector<double> &t_ours = t[0], &t_theirs = t[3];
  std::vector<double> host_a(count), lu(count);
  std::vector<int> p(n);
  CUDA_OK(cudaMemcpy(host_a.data(), a0, count * sizeof(double), cudaMemcpyDeviceToHost));
  auto accuracy = [&](const std::function<void()> &run) {
    reset();
    run();
    CUDA_OK(cudaStreamSynchronize(g.st));
    CUDA_OK(cudaMemcpy(lu.data(), a, count * sizeof(double), cudaMemcpyDeviceToHost));
    CUDA_OK(cudaMemcpy(p.data(), ipiv, n * sizeof(int), cudaMemcpyDeviceToHost));
    return probe_ratio(m, n, host_a, lu, p);
  };
  const double acc_ours = accuracy(ours), acc_theirs = accuracy(theirs);
  const std::string problem = "random, " + std::to_string(m) + " x " + std::to_string(n);
  Row r{"getrf", problem, "device", n, backend, median(t_ours), "cuSOLVER dgetrf",
        median(t_theirs), acc_ours, acc_theirs, 0};
  r.ours_gflops = lu_flops(m, n) / (r.ours_ms * 1e6);
  r.anchor_gflops = lu_flops(m, n) / (r.anchor_ms * 1e6);
  g_rows.push_back(r);
  std::printf("  getrf tall: %lld x %lld  ours %9.3f ms (%7.0f GFLOP/s)  cuSOLVER %9.3f ms  ratio %.3f  runs:",
              (long long)m, (long long)n, r.ours_ms, r.ours_gflops, r.anchor_ms, r.anchor_ms / r.ours_ms);
  for (size_t i = 0; i < t_ours.size(); ++i) std::printf(" %.3f/%.3f", t_ours[i], t_theirs[i]);
  std::printf("  acc %.3g / %.3g  (look-ahead on %.3f, off %.3f)\n", acc_ours, acc_theirs,
              median(t[1]), median(t[2]));
  for (void *q : {(void *)a0, (void *)a, (void *)ipiv, (void *)flags, scratch, (void *)work}) cudaFree(q);
  // Host call (GPU forced) against OpenBLAS dgetrf, interleaved.
  std::vector<double> h(count);
  std::vector<int> hp(n);
  int mm = int(m), nn = int(n), info = 0;
  std::string hbackend;
  const auto h_t = interleaved_host(
      std::min(reps, 3), [&] { h = host_a; },
      {[&] {
         gpueig_set_backend("gpu");
         gpu_getrf_crout(mm, nn, h.data(), mm, hp.data());
         hbackend = gpueig_last_backend();
         gpueig_set_backend("auto");
       },
       [&] { dgetrf_(&mm, &nn, h.data(), &mm, hp.data(), &info); }});
  Row o{"getrf", problem, "host", n, hbackend, median(h_t[0]), "OpenBLAS dgetrf", median(h_t[1]), -1, -1, 0};
  o.ours_gflops = lu_flops(m, n) / (o.ours_ms * 1e6);
  o.anchor_gflops = lu_flops(m, n) / (o.anchor_ms * 1e6);
  g_rows.push_back(o);
  std::printf("  getrf tall host call: %lld x %lld  ours (%s) %9.3f ms  OpenBLAS %9.3f ms\n", (long long)m,
              (long long)n, hbackend.c_str(), o.ours_ms, o.anchor_ms);
}

// Host call, GPU forced vs OpenBLAS dgetrf, narrow shapes (tall and wide): where auto should
// send a matrix that min(m, n) alone calls small.
void shape_sweep() {
  for (auto [m, n] : std::initializer_list<std::pair<int, int>>{
           {16384, 4}, {16384, 16}, {16384, 64}, {65536, 4}, {65536, 8}, {65536, 16},
           {65536, 32}, {262144, 4}, {262144, 8}, {262144, 16}, {262144, 32}, {1048576, 4},
           {1048576, 8}, {1048576, 16}, {4096, 32}, {4096, 64}, {2048, 96}, {16, 65536},
           {64, 65536}}) {  // (not 32 x 131072 or wider: the GPU machine's OpenBLAS DGETRF crashes there)
    const std::vector<double> a0 = zoo::uniform(size_t(m) * n, -1, 1, 3);
    std::vector<double> a;
    std::vector<int> ipiv(std::min(m, n));
    int info = 0, mm = m, nn = n;
    std::vector<double> tg, tc;
    for (int r = 0; r < 4; ++r) {  // interleaved; the first pair is the warm-up
      gpueig_set_backend("gpu");
      const double g = host_ms(0, [&] { a = a0; }, [&] { gpu_getrf_crout(mm, nn, a.data(), mm, ipiv.data()); });
      gpueig_set_backend("auto");
      const double c = host_ms(0, [&] { a = a0; }, [&] { dgetrf_(&mm, &nn, a.data(), &mm, ipiv.data(), &info); });
      if (r > 0) {
        tg.push_back(g);
        tc.push_back(c);
      }
    }
    std::printf("  getrf shape sweep: %7d x %6d  gpu host call %9.3f ms  dgetrf %9.3f ms  (%.2f)\n", m, n,
                median(tg), median(tc), median(tg) / median(tc));
  }
}

}  // namespace

void bench_getrf(cudaStream_t st, bool quick, bool panel_only, bool tall_only, bool sweep_only,
                 bool host_only) {
  Gpu g{st, nullptr, nullptr};
  if (cublasCreate(&g.blas) != CUBLAS_STATUS_SUCCESS) std::exit(2);
  cublasSetStream(g.blas, st);
  SOLVER_OK(cusolverDnCreate(&g.solver));
  SOLVER_OK(cusolverDnSetStream(g.solver, st));
  std::printf("getrf:\n");
  if (host_only) {  // issue 22's host bar: the chunks' own cost, then the host calls
    if (quick) {  // one size
      fed_probe(g, 16384);
      host_rows(g, 16384, 5, false);
      host_feed(16384, 5);
    } else {
      for (int64_t n : {8192, 16384, 32768}) fed_probe(g, n);
      for (int n : {8192, 16384, 32768}) host_rows(g, n, 5, false);
      for (int n : {8192, 16384}) host_feed(n, 5);
    }
  } else if (sweep_only) {  // the tuning data alone: look-ahead's side blocks and the block size
    lookahead_sweep(g, 8192, 3);
    lookahead_sweep(g, 16384, 3);
    lookahead_sweep(g, 32768, 2);
    block_sweep(g, 8192);
    block_sweep(g, 16384);
  } else if (tall_only) {
    for (auto [m, n] : {std::pair<int64_t, int64_t>{1 << 20, 32}, {1 << 20, 256}, {65536, 2048},
                        {1 << 18, 64}, {1 << 16, 128}})
      tall_rows(g, m, n, 5);
    shape_sweep();
  } else {
    panel_probe(g);
    if (panel_only) {
      for (int64_t n : {8192, 16384, 32768}) fed_probe(g, n);
      transfer_probe(16384);
      for (int n : {4096, 8192, 16384, 32768}) host_lookahead(n, n < 32768 ? 5 : 3);
    }
  }
  if (!panel_only && !tall_only && !sweep_only && !host_only) {
    crossover_sweep();
    device_rows(g, 8192, 5, true);
    device_rows(g, 16384, 5, !quick);
    if (!quick) device_rows(g, 32768, 5, false);
    host_rows(g, 2048, 7, true);
    host_rows(g, 4096, 7, true);
    host_rows(g, 8192, 5, false);
    host_rows(g, 16384, 5, false);
    transfer_probe(16384);
    if (!quick) host_rows(g, 32768, 5, false);
  }
  cusolverDnDestroy(g.solver);
  cublasDestroy(g.blas);
}

}  // namespace bench
