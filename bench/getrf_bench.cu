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
#include <vector>

#include "bench.hpp"
#include "getrf.hpp"
#include "gpueig.h"
#include "lapack_ref.hpp"
#include "ratios.hpp"
#include "zoo.hpp"

namespace bench {
namespace {

#define SOLVER_OK(x) LIB_OK(x, CUSOLVER_STATUS_SUCCESS, "cuSOLVER")

double gflops(int64_t n, double ms) { return 2.0 / 3.0 * double(n) * n * n / (ms * 1e6); }

// The probe ratio above, from the original a and the factors lu (both n x n, leading dimension n).
double probe_ratio(int64_t n, const std::vector<double> &a, const std::vector<double> &lu,
                   const std::vector<int> &ipiv) {
  const std::vector<double> x = zoo::uniform(n, -1, 1, 99);
  std::vector<double> ax(n, 0.0), ux(n, 0.0), lux(n, 0.0);
  double anorm = 0, xnorm = 0;
  for (int64_t j = 0; j < n; ++j) {
    double col = 0;
    for (int64_t i = 0; i < n; ++i) {
      ax[i] += a[i + j * n] * x[j];
      col += std::fabs(a[i + j * n]);
    }
    anorm = std::max(anorm, col);
    xnorm += std::fabs(x[j]);
    for (int64_t i = 0; i <= j; ++i) ux[i] += lu[i + j * n] * x[j];
  }
  for (int64_t j = 0; j < n; ++j) {
    lux[j] += ux[j];
    for (int64_t i = j + 1; i < n; ++i) lux[i] += lu[i + j * n] * ux[j];
  }
  for (int64_t k = 0; k < n; ++k) {  // P A x
    if (ipiv[k] < k + 1 || ipiv[k] > n) return INFINITY;  // not a valid pivot sequence
    std::swap(ax[k], ax[ipiv[k] - 1]);
  }
  double r = 0;
  for (int64_t i = 0; i < n; ++i) r += std::fabs(ax[i] - lux[i]);
  return r / (double(n) * anorm * xnorm * ratios::kEps);
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

// Device-resident: ours and cusolverDnDgetrf on the same matrix, each reset from a pristine copy.
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
  std::string backend = "gpu";
  const double ours = device_ms(g.st, reps, reset, [&] {
    gpueig::gpu::Status s = d.ours(g.blas);
    if (!s) backend = "FAILED: " + s.reason;
  });
  // The same factorization through the public device-pointer API (gpu_getrf_dev on this stream):
  // its time against getrf_device's is the API's own cost (argument and pointer checks, the
  // stream-ordered workspace, the cuBLAS handle's stream).
  std::string api_backend = "gpu";
  const double api = device_ms(g.st, reps, reset, [&] {
    if (gpu_getrf_dev(int(n), int(n), a, int(n), ipiv, d.flags + 3, g.st) != 0) api_backend = "FAILED";
  });
  std::printf("  getrf device-pointer API: n=%lld  gpu_getrf_dev %9.3f ms  getrf_device %9.3f ms  (%.3fx)\n",
              (long long)n, api, ours, api / ours);
  std::vector<double> host_a, lu;
  std::vector<int> p;
  double ours_acc = -1, their_acc = -1;
  if (accuracy) {
    host_a.resize(count);
    CUDA_OK(cudaMemcpy(host_a.data(), d.a0, count * sizeof(double), cudaMemcpyDeviceToHost));
    factors(lu, p);
    ours_acc = probe_ratio(n, host_a, lu, p);
  }
  int lwork = 0;
  SOLVER_OK(cusolverDnDgetrf_bufferSize(g.solver, int(n), int(n), a, int(n), &lwork));
  double *work;
  CUDA_OK(cudaMalloc(&work, std::max(1, lwork) * sizeof(double)));
  const double theirs = device_ms(g.st, reps, reset, [&] {
    SOLVER_OK(cusolverDnDgetrf(g.solver, int(n), int(n), a, int(n), work, ipiv, d.flags + 2));
  });
  if (accuracy) {
    factors(lu, p);
    their_acc = probe_ratio(n, host_a, lu, p);
  }
  Row r{"getrf", "random, square", "device", n, backend, ours, "cuSOLVER dgetrf", theirs,
        ours_acc, their_acc, 0};
  r.ours_gflops = gflops(n, ours);
  r.anchor_gflops = gflops(n, theirs);
  g_rows.push_back(r);
  Row v{"getrf_dev", "random, square", "device", n, api_backend, api, "cuSOLVER dgetrf", theirs, -1, -1, 0};
  v.ours_gflops = gflops(n, api);
  v.anchor_gflops = gflops(n, theirs);
  g_rows.push_back(v);
  cudaFree(work);
}

// Device-resident time of ours at n for each block size (printed, not tabled): the tuning data.
void block_sweep(const Gpu &g, int64_t n) {
  const DeviceLu d(n, g.st, 8);
  for (int nb : {64, 128, 256}) {
    const double ms = device_ms(g.st, 3, [&] { d.reset(); }, [&] { d.ours(g.blas, nb); });
    std::printf("  getrf block sweep: n=%lld nb=%3d  %9.3f ms  %7.0f GFLOP/s\n", (long long)n, nb, ms,
                gflops(n, ms));
  }
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

// Host calls: ours (GPU forced) vs the plain cuSOLVER way and, where given, OpenBLAS dgetrf.
void host_rows(const Gpu &g, int n, int reps, bool with_openblas) {
  const size_t count = size_t(n) * n;
  std::vector<double> a0 = zoo::uniform(count, -1, 1, 5), a(count);
  std::vector<int> ipiv(n);
  std::string backend;
  gpueig_set_backend("gpu");
  const double ours = host_ms(reps, [&] { a = a0; }, [&] {
    gpu_getrf_crout(n, n, a.data(), n, ipiv.data());
    backend = gpueig_last_backend();
  });
  gpueig_set_backend("auto");
  const double ours_acc = probe_ratio(n, a0, a, ipiv);
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
  const double plain = host_ms(reps, [&] { a = a0; }, [&] {
    CUDA_OK(cudaMemcpy(d, a.data(), count * sizeof(double), cudaMemcpyHostToDevice));
    SOLVER_OK(cusolverDnDgetrf(g.solver, n, n, d, n, work, dpiv, dinfo));
    CUDA_OK(cudaMemcpy(a.data(), d, count * sizeof(double), cudaMemcpyDeviceToHost));
    CUDA_OK(cudaMemcpy(ipiv.data(), dpiv, n * sizeof(int), cudaMemcpyDeviceToHost));
  });
  const double plain_acc = probe_ratio(n, a0, a, ipiv);
  Row r{"getrf", "random, square", "host", n, backend, ours,
        "pageable upload + cuSOLVER + download", plain, ours_acc, plain_acc, 0};
  r.ours_gflops = gflops(n, ours);
  r.anchor_gflops = gflops(n, plain);
  g_rows.push_back(r);
  for (void *q : {(void *)d, (void *)dpiv, (void *)dinfo, (void *)work}) cudaFree(q);
  if (!with_openblas) return;
  int info = 0;
  const double blas = host_ms(0, [&] { a = a0; }, [&] { dgetrf_(&n, &n, a.data(), &n, ipiv.data(), &info); });
  Row o{"getrf", "random, square", "host", n, backend, ours, "OpenBLAS dgetrf", blas, ours_acc,
        probe_ratio(n, a0, a, ipiv), 0};
  o.ours_gflops = gflops(n, ours);
  o.anchor_gflops = gflops(n, blas);
  g_rows.push_back(o);
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

}  // namespace

void bench_getrf(cudaStream_t st, bool quick, bool panel_only) {
  Gpu g{st, nullptr, nullptr};
  if (cublasCreate(&g.blas) != CUBLAS_STATUS_SUCCESS) std::exit(2);
  cublasSetStream(g.blas, st);
  SOLVER_OK(cusolverDnCreate(&g.solver));
  SOLVER_OK(cusolverDnSetStream(g.solver, st));
  std::printf("getrf:\n");
  panel_probe(g);
  if (!panel_only) {
    crossover_sweep();
    block_sweep(g, 16384);
    if (!quick) block_sweep(g, 8192);
    device_rows(g, 8192, 5, true);
    device_rows(g, 16384, 3, !quick);
    if (!quick) device_rows(g, 32768, 2, false);
    host_rows(g, 8192, 3, true);
    host_rows(g, 16384, 3, false);
  }
  cusolverDnDestroy(g.solver);
  cublasDestroy(g.blas);
}

}  // namespace bench
