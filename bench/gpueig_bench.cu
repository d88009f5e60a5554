// gpueig_bench: times libgpueig beside what users would pick instead, in the same process.
//   gtsv: device-resident PCR vs cuSPARSE gtsv2 / gtsv2_nopivot; host call (transfers included)
//         vs OpenBLAS dgtsv; a host-call sweep that measures the auto crossover.
//   stebz, getrf, toeplitz: the public call vs the direct OpenBLAS call a user makes today.
// Medians after a warm-up; GPU times with CUDA events. Prints a table and writes JSON.
//   getrf: device-resident vs cuSOLVER dgetrf; host call vs the plain upload + cuSOLVER + download
//         and vs OpenBLAS dgetrf (bench/getrf_bench.cu).
//   sytrd: device-resident vs cuSOLVER dsytrd (values) and dsytrd + dorgtr (with Q), vs the seed's
//         tree method; host call vs OpenBLAS dsytrd (bench/sytrd_bench.cu).
//   toeplitz: host call vs cuSOLVER dsyevd / dsyevdx on the dense T (device-resident) and OpenBLAS
//         dsyevd (bench/toeplitz_bench.cu).
//   stedc: all eigenpairs of a random tridiagonal by the device's divide and conquer beside
//         LAPACK dstedc and dstemr on the CPU (bench/stedc_bench.cu).
//   usage: gpueig_bench [--json FILE] [--quick] [--gtsv] [--getrf] [--getrf-panel] [--getrf-tall] [--getrf-sweep] [--getrf-host] [--sytrd]
//          [--sytrd-values]
//          [--toeplitz] [--stedc] [--stein] [--structured-replay [--replay-n N] [--replay-seeds S]]
//   (only those rows; --getrf-panel: the getrf panel timings, the streamed factorization
//   without its transfers and the host transfers alone; --getrf-host: the streamed factorization
//   without its transfers and the large host calls, issue 22's host bar alone; --getrf-sweep: getrf's look-ahead and block-size sweeps; --sytrd-values: sytrd's
//   device-resident values rows alone, n = 512 .. 8192; --structured-replay: the structured
//   Toeplitz search on the host evaluator, its rounds and the waves they take 7 side by side, no
//   GPU needed: bench/toeplitz_bench.cu)
#include <cuda_runtime.h>
#include <cusparse.h>

#include <algorithm>
#include <array>
#include <cfloat>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "gpueig.h"
#include "gtsv.hpp"
#include "stebz.hpp"
#include "sturm.hpp"
#include "lapack_ref.hpp"
#include "ratios.hpp"
#include "zoo.hpp"
#include "bench.hpp"

namespace {

using bench::Row;
using bench::g_rows;
using bench::device_ms;
using bench::host_ms;
using bench::median;

#define SPARSE_OK(x) LIB_OK(x, CUSPARSE_STATUS_SUCCESS, "cuSPARSE")

template <class T>
T *device_copy(const std::vector<T> &h) {
  T *d = nullptr;
  CUDA_OK(cudaMalloc(&d, std::max<size_t>(1, h.size()) * sizeof(T)));
  CUDA_OK(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}

std::vector<double> download(const double *d, size_t count) {
  std::vector<double> h(count);
  CUDA_OK(cudaMemcpy(h.data(), d, count * sizeof(double), cudaMemcpyDeviceToHost));
  return h;
}

// Device-to-device copy bandwidth, counting bytes read plus bytes written.
double copy_bandwidth_gbps(cudaStream_t s) {
  const size_t bytes = size_t(1) << 30;
  void *x, *y;
  CUDA_OK(cudaMalloc(&x, bytes));
  CUDA_OK(cudaMalloc(&y, bytes));
  CUDA_OK(cudaMemset(x, 1, bytes));
  double ms = device_ms(s, 10, [] {}, [&] { CUDA_OK(cudaMemcpyAsync(y, x, bytes, cudaMemcpyDeviceToDevice, s)); });
  cudaFree(x);
  cudaFree(y);
  return 2.0 * bytes / (ms * 1e6);
}

double gtsv_ratio(const zoo::Tridiagonal &a, const std::vector<double> &b, const std::vector<double> &x,
                  int nrhs = 1) {
  const long long n = static_cast<long long>(a.d.size());
  return ratios::gtsv_residual(n, nrhs, a.dl.data(), a.d.data(), a.du.data(), b.data(), n, x.data(), n);
}

// The same solve through the public device-pointer API (gpu_gtsv_dev for one system,
// gpu_gtsv_batch_dev for a batch) on this stream, in place in a copy of b: its time against the
// device-resident solve's (`internal` ms, measured just before) is the API's own cost (checks,
// the pool allocation, the copy of X into B, INFO on the device).
void bench_gtsv_api(cudaStream_t s, int n, int batch, const double *dl, const double *d, const double *du,
                    const double *b0, double internal, double internal_ratio, const std::string &problem,
                    const std::function<double(const std::vector<double> &)> &ratio) {
  const size_t total = size_t(n) * batch;
  double *x = nullptr;
  int *info = nullptr;
  CUDA_OK(cudaMalloc(&x, total * sizeof(double)));
  CUDA_OK(cudaMalloc(&info, sizeof(int)));
  std::string backend = "gpu";
  const double api = device_ms(
      s, 20, [&] { CUDA_OK(cudaMemcpyAsync(x, b0, total * sizeof(double), cudaMemcpyDeviceToDevice, s)); },
      [&] {
        const int r = batch == 1 ? gpu_gtsv_dev(n, 1, dl, d, du, x, n, info, s)
                                 : gpu_gtsv_batch_dev(n, batch, dl, d, du, x, n, info, s);
        if (r != 0) backend = "FAILED";
      });
  int h_info = -1;
  CUDA_OK(cudaMemcpy(&h_info, info, sizeof(int), cudaMemcpyDeviceToHost));
  if (h_info != 0) backend = "FAILED: info";
  const double api_ratio = ratio(download(x, total));
  std::printf("  gtsv device-pointer API: n=%d batch=%d  %s %9.3f ms  device-resident %9.3f ms  (%.3fx)\n", n,
              batch, batch == 1 ? "gpu_gtsv_dev" : "gpu_gtsv_batch_dev", api, internal, internal / api);
  g_rows.push_back({batch == 1 ? "gtsv_dev" : "gtsv_batch_dev", problem, "device pointers", n, backend, api,
                    "device-resident solve", internal, api_ratio, internal_ratio, 40.0 * total / (api * 1e6)});
  cudaFree(x);
  cudaFree(info);
}

void bench_gtsv_device(cudaStream_t s, cusparseHandle_t sp, int n, int reps) {
  const zoo::Tridiagonal a = zoo::tridiagonal("dominant", n, 11);
  const std::vector<double> b = zoo::uniform(n, -1, 1, 12);
  // cuSPARSE keeps dl(0) = 0 and du(n-1) = 0 inside length-n arrays.
  std::vector<double> dl_cs(n, 0.0), du_cs(n, 0.0);
  std::copy(a.dl.begin(), a.dl.end(), dl_cs.begin() + 1);
  std::copy(a.du.begin(), a.du.end(), du_cs.begin());
  double *ddl = device_copy(a.dl), *dd = device_copy(a.d), *ddu = device_copy(a.du);
  double *cdl = device_copy(dl_cs), *cdu = device_copy(du_cs);
  double *b0 = device_copy(b), *x = device_copy(b), *ours_x = device_copy(b);
  void *work = nullptr;
  CUDA_OK(cudaMalloc(&work, gpueig::gpu::gtsv_workspace_bytes(n, 1, false)));
  auto reset = [&] { CUDA_OK(cudaMemcpyAsync(x, b0, n * sizeof(double), cudaMemcpyDeviceToDevice, s)); };

  // Ours is out of place (b stays for a re-solve), so it needs no reset. The timed region is
  // the whole solve with its residual check and verdict on the device; reading the verdict back
  // (8 bytes) is not timed, as a cuSPARSE user's later synchronization is not.
  const gpueig::gpu::GtsvColumns p =
      gpueig::gpu::packed_columns(n, 1, ddl, dd, ddu, n, b0, ours_x);
  std::string backend = "gpu";
  double ours = device_ms(s, reps, [] {}, [&] {
    gpueig::gpu::Status st = gpueig::gpu::gtsv_enqueue(s, p, work);
    if (!st) backend = "FAILED: " + st.reason;
  });
  std::vector<int64_t> failed;
  gpueig::gpu::Status st = gpueig::gpu::gtsv_failed(s, p, work, &failed);
  if (!st || !failed.empty()) backend = "FAILED: check rejected the result";
  double ours_ratio = gtsv_ratio(a, b, download(ours_x, n));
  bench_gtsv_api(s, n, 1, ddl, dd, ddu, b0, ours, ours_ratio, "diag. dominant, nrhs 1",
                 [&](const std::vector<double> &xh) { return gtsv_ratio(a, b, xh); });

  struct Anchor { const char *name; bool pivot; };
  for (Anchor an : {Anchor{"cuSPARSE gtsv2_nopivot", false}, Anchor{"cuSPARSE gtsv2", true}}) {
    size_t bytes = 0;
    if (an.pivot)
      SPARSE_OK(cusparseDgtsv2_bufferSizeExt(sp, n, 1, cdl, dd, cdu, x, n, &bytes));
    else
      SPARSE_OK(cusparseDgtsv2_nopivot_bufferSizeExt(sp, n, 1, cdl, dd, cdu, x, n, &bytes));
    void *buf = nullptr;
    CUDA_OK(cudaMalloc(&buf, std::max<size_t>(bytes, 1)));
    double ms = device_ms(s, reps, reset, [&] {
      if (an.pivot)
        SPARSE_OK(cusparseDgtsv2(sp, n, 1, cdl, dd, cdu, x, n, buf));
      else
        SPARSE_OK(cusparseDgtsv2_nopivot(sp, n, 1, cdl, dd, cdu, x, n, buf));
    });
    double r = gtsv_ratio(a, b, download(x, n));
    g_rows.push_back({"gtsv", "diag. dominant, nrhs 1", "device", n, backend, ours, an.name, ms,
                      ours_ratio, r, 40.0 * n / (ours * 1e6)});
    cudaFree(buf);
  }
  for (double *q : {ddl, dd, ddu, cdl, cdu, b0, x, ours_x}) cudaFree(q);
  cudaFree(work);
}

// Batched, device-resident: `batch` dominant systems of order n, vs cuSPARSE gtsv2StridedBatch
// (no pivoting) on the same systems in its own layout (dl(0) = du(n-1) = 0 inside each system).
void bench_gtsv_batch(cudaStream_t s, cusparseHandle_t sp, int n, int batch, int reps) {
  const size_t total = static_cast<size_t>(n) * batch;
  std::vector<double> dl(total, 0.0), d(total), du(total, 0.0), cdl(total, 0.0), b(total);
  {
    const zoo::Tridiagonal a = zoo::tridiagonal("dominant", n, 41);  // one pattern, varied below
    const std::vector<double> scale = zoo::uniform(batch, 0.5, 2.0, 42);
    const std::vector<double> rhs = zoo::uniform(total, -1, 1, 43);
    for (int k = 0; k < batch; ++k) {
      const size_t o = static_cast<size_t>(k) * n;
      for (int i = 0; i < n; ++i) {
        d[o + i] = a.d[i] * scale[k];
        if (i + 1 < n) {
          dl[o + i] = a.dl[i] * scale[k];
          du[o + i] = a.du[i] * scale[k];
          cdl[o + i + 1] = dl[o + i];
        }
        b[o + i] = rhs[o + i];
      }
    }
  }
  double *ddl = device_copy(dl), *dd = device_copy(d), *ddu = device_copy(du);
  double *dcdl = device_copy(cdl), *b0 = device_copy(b), *x = device_copy(b), *ours_x = device_copy(b);
  void *work = nullptr;
  CUDA_OK(cudaMalloc(&work, gpueig::gpu::gtsv_workspace_bytes(n, batch, false)));
  const gpueig::gpu::GtsvColumns p =
      gpueig::gpu::packed_columns(n, batch, ddl, dd, ddu, n, b0, ours_x);
  std::string backend = "gpu";
  double ours = device_ms(s, reps, [] {}, [&] {
    if (!gpueig::gpu::gtsv_enqueue(s, p, work)) backend = "FAILED";
  });
  std::vector<int64_t> failed;
  if (!gpueig::gpu::gtsv_failed(s, p, work, &failed) || !failed.empty()) backend = "FAILED: check";
  // Accuracy: the worst DGTT02 ratio over a sample of systems.
  auto worst = [&](const std::vector<double> &xh) {
    double r = 0;
    for (int k = 0; k < batch; k += std::max(1, batch / 64)) {
      const size_t o = static_cast<size_t>(k) * n;
      r = std::max(r, ratios::gtsv_residual(n, 1, dl.data() + o, d.data() + o, du.data() + o,
                                            b.data() + o, n, xh.data() + o, n));
    }
    return r;
  };
  const double ours_ratio = worst(download(ours_x, total));
  bench_gtsv_api(s, n, batch, ddl, dd, ddu, b0, ours, ours_ratio,
                 "diag. dominant, " + std::to_string(batch) + " systems", worst);
  size_t bytes = 0;
  SPARSE_OK(cusparseDgtsv2StridedBatch_bufferSizeExt(sp, n, dcdl, dd, ddu, x, batch, n, &bytes));
  void *buf = nullptr;
  CUDA_OK(cudaMalloc(&buf, std::max<size_t>(bytes, 1)));
  double theirs = device_ms(
      s, reps, [&] { CUDA_OK(cudaMemcpyAsync(x, b0, total * sizeof(double), cudaMemcpyDeviceToDevice, s)); },
      [&] { SPARSE_OK(cusparseDgtsv2StridedBatch(sp, n, dcdl, dd, ddu, x, batch, n, buf)); });
  const double their_ratio = worst(download(x, total));
  g_rows.push_back({"gtsv_batch", "diag. dominant, " + std::to_string(batch) + " systems", "device", n,
                    backend, ours, "cuSPARSE gtsv2StridedBatch", theirs, ours_ratio, their_ratio,
                    40.0 * total / (ours * 1e6)});
  cudaFree(buf);
  for (double *q : {ddl, dd, ddu, dcdl, b0, x, ours_x}) cudaFree(q);
  cudaFree(work);
}

// Systems that are not diagonally dominant, through the device-pointer call against cuSPARSE
// gtsv2 (a pivoting solve) and through the host call against OpenBLAS dgtsv: the zoo's
// "nondominant" (every entry uniform in [-1, 1)), which the GPU method's check may accept, and a
// zero diagonal (off-diagonals uniform in [0.5, 1.5), n even: nonsingular), whose first pivot is
// zero, so that the check rejects the GPU method's result and the system is solved again with
// partial pivoting (the device-pointer call: in parallel on the GPU, up to 4096 rows by its tile's
// block in shared memory; the host call: in parallel on the GPU from 16384 rows, below that
// DGTSV on the host).
void bench_gtsv_pivoting(cudaStream_t s, cusparseHandle_t sp, int n, int reps, bool zero_diagonal, int nrhs = 1) {
  zoo::Tridiagonal a = zoo::tridiagonal("nondominant", n, 31);
  if (zero_diagonal) {
    a.d.assign(n, 0.0);
    a.dl = zoo::uniform(n - 1, 0.5, 1.5, 33);
    a.du = zoo::uniform(n - 1, 0.5, 1.5, 34);
  }
  const std::string problem =
      std::string(zero_diagonal ? "zero diagonal" : "non-dominant") + ", nrhs " + std::to_string(nrhs);
  const std::vector<double> b = zoo::uniform(int64_t(n) * nrhs, -1, 1, 32);
  std::vector<double> dl_cs(n, 0.0), du_cs(n, 0.0);
  std::copy(a.dl.begin(), a.dl.end(), dl_cs.begin() + 1);
  std::copy(a.du.begin(), a.du.end(), du_cs.begin());
  double *ddl = device_copy(a.dl), *dd = device_copy(a.d), *ddu = device_copy(a.du);
  double *cdl = device_copy(dl_cs), *cdu = device_copy(du_cs), *b0 = device_copy(b), *x = device_copy(b);
  int *info = nullptr;
  CUDA_OK(cudaMalloc(&info, sizeof(int)));
  auto reset = [&] { CUDA_OK(cudaMemcpyAsync(x, b0, b.size() * sizeof(double), cudaMemcpyDeviceToDevice, s)); };
  std::string backend = "gpu";
  const double ours = device_ms(s, reps, reset, [&] {
    if (gpu_gtsv_dev(n, nrhs, ddl, dd, ddu, x, n, info, s) != 0) backend = "FAILED";
  });
  int h_info = -1;
  CUDA_OK(cudaMemcpy(&h_info, info, sizeof(int), cudaMemcpyDeviceToHost));
  if (h_info != 0) backend = "FAILED: info " + std::to_string(h_info);
  const double ours_ratio = gtsv_ratio(a, b, download(x, b.size()), nrhs);
  size_t bytes = 0;
  SPARSE_OK(cusparseDgtsv2_bufferSizeExt(sp, n, nrhs, cdl, dd, cdu, x, n, &bytes));
  void *buf = nullptr;
  CUDA_OK(cudaMalloc(&buf, std::max<size_t>(bytes, 1)));
  const double ms = device_ms(s, reps, reset, [&] { SPARSE_OK(cusparseDgtsv2(sp, n, nrhs, cdl, dd, cdu, x, n, buf)); });
  const double anchor_ratio = gtsv_ratio(a, b, download(x, b.size()), nrhs);
  std::printf("  gtsv %s n=%d: gpu_gtsv_dev %9.3f ms (ratio %.2g)  cuSPARSE gtsv2 %9.3f ms (ratio %.2g)\n",
              problem.c_str(), n, ours, ours_ratio, ms, anchor_ratio);
  g_rows.push_back({"gtsv_dev", problem, "device pointers", n, backend, ours, "cuSPARSE gtsv2", ms,
                    ours_ratio, anchor_ratio, 40.0 * double(b.size()) / (ours * 1e6)});
  cudaFree(buf);
  for (double *q : {ddl, dd, ddu, cdl, cdu, b0, x}) cudaFree(q);
  cudaFree(info);

  std::vector<double> hdl, hd, hdu, hx;
  auto host_reset = [&] { hdl = a.dl; hd = a.d; hdu = a.du; hx = b; };
  gpueig_set_backend("gpu");
  std::string host_backend;
  const double host = host_ms(reps, host_reset, [&] {
    gpu_gtsv_pcr(n, nrhs, hdl.data(), hd.data(), hdu.data(), hx.data(), n);
    host_backend = gpueig_last_backend();
  });
  gpueig_set_backend("auto");
  const double host_ratio = gtsv_ratio(a, b, hx, nrhs);
  int linfo = 0;
  const double lapack = host_ms(reps, host_reset, [&] {
    dgtsv_(&n, &nrhs, hdl.data(), hd.data(), hdu.data(), hx.data(), &n, &linfo);
  });
  std::printf("  gtsv %s n=%d: host call %9.3f ms (%s)  OpenBLAS dgtsv %9.3f ms\n", problem.c_str(), n, host,
              host_backend.c_str(), lapack);
  g_rows.push_back({"gtsv", problem, "host", n, host_backend, host, "OpenBLAS dgtsv", lapack,
                    host_ratio, gtsv_ratio(a, b, hx, nrhs), 0});
}

// Host call, what a drop-in user pays: libgpueig (GPU forced) vs OpenBLAS dgtsv.
Row gtsv_host(int n, int reps) {
  const zoo::Tridiagonal a = zoo::tridiagonal("dominant", n, 21);
  const std::vector<double> b = zoo::uniform(n, -1, 1, 22);
  std::vector<double> dl, d, du, x;
  auto reset = [&] { dl = a.dl; d = a.d; du = a.du; x = b; };
  std::string backend;
  gpueig_set_backend("gpu");
  double ours = host_ms(reps, reset, [&] {
    gpu_gtsv_pcr(n, 1, dl.data(), d.data(), du.data(), x.data(), n);
    backend = gpueig_last_backend();
  });
  gpueig_set_backend("auto");
  double ours_ratio = gtsv_ratio(a, b, x);
  int one = 1, info = 0;
  double ms = host_ms(reps, reset, [&] { dgtsv_(&n, &one, dl.data(), d.data(), du.data(), x.data(), &n, &info); });
  return {"gtsv", "diag. dominant, nrhs 1", "host", n, backend, ours, "OpenBLAS dgtsv", ms,
          ours_ratio, gtsv_ratio(a, b, x), 0};
}

// Smallest n from which the GPU host call beats dgtsv (the `auto` crossover).
long long gtsv_crossover(bool quick) {
  long long found = -1;
  for (int n : {1024, 4096, 16384, 32768, 65536, 131072, 262144, 524288, 1048576}) {
    Row r = gtsv_host(n, quick ? 3 : 15);
    std::printf("  crossover sweep: n=%8d  gpu host call %8.3f ms  dgtsv %8.3f ms\n", n, r.ours_ms, r.anchor_ms);
    if (r.ours_ms < r.anchor_ms && found < 0) found = n;
    if (r.ours_ms >= r.anchor_ms) found = -1;  // must stay faster from there on
  }
  return found;
}

// The host call's re-solve of a lone system that failed its check, on the device
// (gpueig::gpu::gtsv_pivot_lone: the launch, the parallel pivoting solve and the wait for its
// verdict; scratch allocated once, outside) against DGTSV on the host, for a zero diagonal (n
// even): the smallest n from which the device is faster is tuning::kGtsvHostPivotMin.
long long gtsv_pivot_crossover(cudaStream_t s, bool quick) {
  long long found = -1;
  for (int n : {2048, 4096, 8192, 16384, 32768, 65536}) {
    const std::vector<double> dl = zoo::uniform(n - 1, 0.5, 1.5, 33), d(n, 0.0), du = zoo::uniform(n - 1, 0.5, 1.5, 34);
    const std::vector<double> b = zoo::uniform(n, -1, 1, 32);
    double *ddl = device_copy(dl), *dd = device_copy(d), *ddu = device_copy(du), *db = device_copy(b),
           *dx = device_copy(b);
    void *scratch = nullptr;
    CUDA_OK(cudaMalloc(&scratch, gpueig::gpu::gtsv_pivot_lone_bytes(n)));
    const gpueig::gpu::GtsvColumns p = gpueig::gpu::packed_columns(n, 1, ddl, dd, ddu, 0, db, dx);
    bool accepted = false;
    const double dev = host_ms(quick ? 5 : 15, [] {}, [&] {
      if (!gpueig::gpu::gtsv_pivot_lone(s, p, scratch, &accepted)) accepted = false;
    });
    std::vector<double> hdl, hd, hdu, hx;
    int one = 1, info = 0;
    const double cpu = host_ms(quick ? 5 : 15, [&] { hdl = dl; hd = d; hdu = du; hx = b; },
                               [&] { dgtsv_(&n, &one, hdl.data(), hd.data(), hdu.data(), hx.data(), &n, &info); });
    std::printf("  re-solve sweep: n=%6d  on the device %8.3f ms%s  dgtsv on the host %8.3f ms\n", n, dev,
                accepted ? "" : " (REJECTED)", cpu);
    if (dev < cpu && found < 0) found = n;
    if (dev >= cpu) found = -1;
    for (double *q : {ddl, dd, ddu, db, dx}) cudaFree(q);
    cudaFree(scratch);
  }
  return found;
}

// A CPU-backed routine: the public call beside the direct OpenBLAS call.
void cpu_row(const char *routine, const char *problem, long long n, const char *anchor, int reps,
             const std::function<void()> &reset, const std::function<void()> &ours,
             const std::function<void()> &theirs, const std::function<double()> &accuracy) {
  std::string backend;
  double o = host_ms(reps, reset, [&] { ours(); backend = gpueig_last_backend(); });
  double acc = accuracy();
  double t = host_ms(reps, reset, theirs);
  g_rows.push_back({routine, problem, "host", n, backend, o, anchor, t, acc, -1, 0});
}

void bench_cpu_routines(bool quick) {
  const int n = quick ? 512 : 1024, reps = quick ? 1 : 3;
  {  // stebz, all eigenvalues
    zoo::SymTridiagonal t = zoo::symtridiagonal("random", n, 31);
    std::vector<double> w(n), work(4 * n), wref(n);
    std::vector<int> ib(n), is(n), iwork(3 * n);
    int m = 0, ns = 0, info = 0;
    cpu_row("stebz", "random, all, ORDER E", n, "OpenBLAS dstebz", reps, [] {},
            [&] { gpu_stebz('A', 'E', n, 0, 0, 0, 0, 0.0, t.d.data(), t.e.data(), &m, &ns, w.data(), ib.data(), is.data()); },
            [&] { int nn = n, z = 0; double zero = 0; dstebz_("A", "E", &nn, &zero, &zero, &z, &z, &zero, t.d.data(), t.e.data(), &m, &ns, wref.data(), ib.data(), is.data(), work.data(), iwork.data(), &info, 1, 1); },
            [&] { return -1.0; });
    double tnorm = 0;
    for (int i = 0; i < n; ++i)
      tnorm = std::max(tnorm, std::fabs(t.d[i]) + (i > 0 ? std::fabs(t.e[i - 1]) : 0.0) + (i < n - 1 ? std::fabs(t.e[i]) : 0.0));
    g_rows.back().ours_ratio = ratios::eigenvalue_distance(w, wref, n, tnorm);
  }
  {  // getrf
    const std::vector<double> a0 = zoo::general("random", n, n, n, 32);
    std::vector<double> a;
    std::vector<int> ipiv(n);
    int info = 0;
    cpu_row("getrf", "random, square", n, "OpenBLAS dgetrf", reps, [&] { a = a0; },
            [&] { gpu_getrf_crout(n, n, a.data(), n, ipiv.data()); },
            [&] { int nn = n; dgetrf_(&nn, &nn, a.data(), &nn, ipiv.data(), &info); },
            [&] { return ratios::getrf_residual(n, n, a0.data(), n, a.data(), n, ipiv.data()); });
  }
  {  // toeplitz: what users do today is dsyevr on the dense matrix
    const std::vector<double> t = zoo::toeplitz("random", n, 34);
    const std::vector<double> dense0 = zoo::toeplitz_dense(t);
    std::vector<double> dense, w(n), wref(n), z(1), work;
    std::vector<int> iwork, isuppz(2 * n);
    int m = 0, mref = 0, info = 0;
    cpu_row("toeplitz", "random, all values", n, "OpenBLAS dsyevr on dense T", reps, [&] { dense = dense0; },
            [&] { gpu_toeplitz_eig('N', 'A', n, t.data(), 0, 0, 0, 0, 0.0, &m, w.data(), z.data(), 1); },
            [&] {
              int nn = n, one = 1, lwork = -1, liwork = -1, iq = 0, z0 = 0;
              double q = 0, zero = 0;
              dsyevr_("N", "A", "L", &nn, dense.data(), &nn, &zero, &zero, &z0, &z0, &zero, &mref, wref.data(), z.data(), &one, isuppz.data(), &q, &lwork, &iq, &liwork, &info, 1, 1, 1);
              lwork = static_cast<int>(q); liwork = iq;
              work.resize(lwork); iwork.resize(liwork);
              dsyevr_("N", "A", "L", &nn, dense.data(), &nn, &zero, &zero, &z0, &z0, &zero, &mref, wref.data(), z.data(), &one, isuppz.data(), work.data(), &lwork, iwork.data(), &liwork, &info, 1, 1, 1);
            },
            [&] { return -1.0; });
    g_rows.back().ours_ratio = ratios::eigenvalue_distance(w, wref, n, ratios::norm1(n, n, dense0.data(), n));
  }
}

// stebz host calls (transfers and host bookkeeping included) against OpenBLAS on random d, e in
// [-1, 1]: all eigenvalues against dstebz and against dsterf (QR, the fastest CPU way to all of
// them), and the first 1% by index against dstebz.
struct StebzCase {
  int n;
  int last;  // eigenvalues 1..last (n = all)
  const char *anchor;  // "dstebz" or "dsterf"
  int reps;
};

void bench_stebz(const StebzCase &c) {
  const zoo::SymTridiagonal t = zoo::symtridiagonal("random", c.n, 41);
  const int n = c.n;
  std::vector<double> w(n), wref(n), work(4 * n), dcopy, ecopy;
  std::vector<int> ib(n), is(n), ibr(n), isr(n), iwork(3 * n);
  int m = 0, ns = 0, mref = 0, nsref = 0, info = 0;
  const char range = c.last == n ? 'A' : 'I';
  std::string backend;
  gpueig_set_backend("gpu");
  double ours = host_ms(c.reps, [] {}, [&] {
    gpu_stebz(range, 'E', n, 0, 0, 1, c.last, 0.0, t.d.data(), t.e.data(), &m, &ns, w.data(), ib.data(), is.data());
    backend = gpueig_last_backend();
  });
  gpueig_set_backend("auto");
  const int reps = 0;  // the CPU anchors take seconds: one run
  double anchor;
  if (std::strcmp(c.anchor, "dsterf") == 0) {
    anchor = host_ms(reps, [&] { dcopy = t.d; ecopy = t.e; }, [&] {
      int nn = n;
      dsterf_(&nn, dcopy.data(), ecopy.data(), &info);
    });
    wref.assign(dcopy.begin(), dcopy.end());
    mref = n;
  } else {
    anchor = host_ms(reps, [] {}, [&] {
      int nn = n, il = 1, iu = c.last;
      double zero = 0;
      const char r[2] = {range, 0};
      dstebz_(r, "E", &nn, &zero, &zero, &il, &iu, &zero, t.d.data(), t.e.data(), &mref, &nsref, wref.data(), ibr.data(), isr.data(), work.data(), iwork.data(), &info, 1, 1);
    });
  }
  double tnorm = 0;
  for (int i = 0; i < n; ++i)
    tnorm = std::max(tnorm, std::fabs(t.d[i]) + (i > 0 ? std::fabs(t.e[i - 1]) : 0.0) + (i < n - 1 ? std::fabs(t.e[i]) : 0.0));
  std::vector<double> a(w.begin(), w.begin() + m), b(wref.begin(), wref.begin() + mref);
  char problem[64];
  std::snprintf(problem, sizeof problem, "random, %s", range == 'A' ? "all" : "first 1% by index");
  g_rows.push_back({"stebz", problem, "host", n, backend, ours, std::string("OpenBLAS ") + c.anchor, anchor,
                    ratios::eigenvalue_distance(a, b, n, tnorm), -1, 0});
}

// The device-pointer twins of stebz, stein and toeplitz_eig (arrays already in device memory, work on the
// bench's stream, the outputs waited for) against the host calls (GPU forced), interleaved,
// medians of 5 after a warm-up: what the device API costs or saves. Both do the same O(n) host
// bookkeeping; the host stein call also brings Z (n x m doubles) back, the device call leaves it.
// Medians (ms) of 5 interleaved timings of a host call and its device twin (the stream waited
// for), after one untimed round: {device, host}.
std::pair<double, double> interleaved(cudaStream_t s, const std::function<void()> &host,
                                      const std::function<void()> &device) {
  std::vector<double> host_t, dev_t;
  for (int r = 0; r <= 5; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    host();
    auto t1 = std::chrono::steady_clock::now();
    device();
    CUDA_OK(cudaStreamSynchronize(s));
    auto t2 = std::chrono::steady_clock::now();
    if (r == 0) continue;
    host_t.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    dev_t.push_back(std::chrono::duration<double, std::milli>(t2 - t1).count());
  }
  return {median(dev_t), median(host_t)};
}

void bench_tridiagonal_dev(cudaStream_t s, bool quick) {
  std::vector<int> sizes = {1024, 4096, 16384};
  if (quick) sizes = {1024, 4096};
  gpueig_set_backend("gpu");
  for (int n : sizes) {
    const zoo::SymTridiagonal t = zoo::symtridiagonal("random", n, 43);
    double *dd, *de, *dw, *dz;
    int *dib, *dis, *dinfo, *dfail;
    const int mz = std::min(n, 1024);  // eigenvectors: the smallest mz
    CUDA_OK(cudaMalloc(&dd, n * sizeof(double)));
    CUDA_OK(cudaMalloc(&de, n * sizeof(double)));
    CUDA_OK(cudaMalloc(&dw, n * sizeof(double)));
    CUDA_OK(cudaMalloc(&dz, size_t(n) * mz * sizeof(double)));
    CUDA_OK(cudaMalloc(&dib, n * sizeof(int)));
    CUDA_OK(cudaMalloc(&dis, n * sizeof(int)));
    CUDA_OK(cudaMalloc(&dfail, n * sizeof(int)));
    CUDA_OK(cudaMalloc(&dinfo, sizeof(int)));
    CUDA_OK(cudaMemcpy(dd, t.d.data(), n * sizeof(double), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(de, t.e.data(), (n - 1) * sizeof(double), cudaMemcpyHostToDevice));
    std::vector<double> w(n), z(size_t(n) * mz);
    std::vector<int> ib(n), is(n), fail(n);
    for (const int last : {n, std::max(1, n / 100)}) {
      const char range = last == n ? 'A' : 'I';
      int m = 0, ns = 0, m2 = 0, ns2 = 0;
      const auto [stebz_dev_ms, stebz_host_ms] = interleaved(
          s,
          [&] { gpu_stebz(range, 'B', n, 0, 0, 1, last, 0.0, t.d.data(), t.e.data(), &m, &ns, w.data(), ib.data(), is.data()); },
          [&] { gpu_stebz_dev(range, 'B', n, 0, 0, 1, last, 0.0, dd, de, &m2, &ns2, dw, dib, dis, dinfo, s); });
      std::vector<double> wd(m2);
      CUDA_OK(cudaMemcpy(wd.data(), dw, m2 * sizeof(double), cudaMemcpyDeviceToHost));
      const bool same = m == m2 && std::equal(wd.begin(), wd.end(), w.begin());
      std::printf("  stebz device-pointer API: n=%6d %s  gpu_stebz_dev %8.3f ms  gpu_stebz %8.3f ms  (%.3fx)%s\n", n,
                  range == 'A' ? "all      " : "first 1% ", stebz_dev_ms, stebz_host_ms, stebz_dev_ms / stebz_host_ms,
                  same ? "" : "  RESULTS DIFFER");
    }
    // Inverse iteration for the smallest mz eigenvalues (ORDER 'B' from the host call).
    int m = 0, ns = 0;
    gpu_stebz('I', 'B', n, 0, 0, 1, mz, 0.0, t.d.data(), t.e.data(), &m, &ns, w.data(), ib.data(), is.data());
    CUDA_OK(cudaMemcpy(dw, w.data(), m * sizeof(double), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(dib, ib.data(), m * sizeof(int), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(dis, is.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    const auto [stein_dev_ms, stein_host_ms] = interleaved(
        s, [&] { gpu_stein(n, t.d.data(), t.e.data(), m, w.data(), ib.data(), is.data(), z.data(), n, fail.data()); },
        [&] { gpu_stein_dev(n, dd, de, m, dw, dib, dis, dz, n, dfail, dinfo, s); });
    std::vector<double> zd(size_t(n) * m);
    CUDA_OK(cudaMemcpy(zd.data(), dz, zd.size() * sizeof(double), cudaMemcpyDeviceToHost));
    double diff = 0;
    for (size_t i = 0; i < zd.size(); ++i) diff = std::max(diff, std::fabs(zd[i] - z[i]));
    std::printf("  stein device-pointer API: n=%6d m=%5d  gpu_stein_dev %8.3f ms  gpu_stein %8.3f ms  (%.3fx)  "
                "max |Z_dev - Z_host| %.1e\n",
                n, m, stein_dev_ms, stein_host_ms, stein_dev_ms / stein_host_ms, diff);
    // Toeplitz eigenvalues (t in device memory, W back there) against the host call.
    const std::vector<double> tt = zoo::toeplitz("random", n, 44);
    CUDA_OK(cudaMemcpy(dd, tt.data(), n * sizeof(double), cudaMemcpyHostToDevice));
    std::vector<double> tw(n);
    int mh = 0, md = 0;
    const auto [toeplitz_dev_ms, toeplitz_host_ms] = interleaved(
        s, [&] { gpu_toeplitz_eig('N', 'A', n, tt.data(), 0, 0, 0, 0, 0, &mh, tw.data(), nullptr, 1); },
        [&] { gpu_toeplitz_eig_dev('N', 'A', n, dd, 0, 0, 0, 0, 0, &md, dw, nullptr, 1, dinfo, s); });
    std::printf("  toeplitz device-pointer API: n=%6d all values  gpu_toeplitz_eig_dev %8.3f ms  gpu_toeplitz_eig "
                "%8.3f ms  (%.3fx)\n",
                n, toeplitz_dev_ms, toeplitz_host_ms, toeplitz_dev_ms / toeplitz_host_ms);
    cudaFree(dd), cudaFree(de), cudaFree(dw), cudaFree(dz);
    cudaFree(dib), cudaFree(dis), cudaFree(dfail), cudaFree(dinfo);
  }
  gpueig_set_backend("auto");
}

// Device time of the bracketing search alone, for several search geometries (G threads per
// eigenvalue x C shifts per thread, DLAEBZ's count or the division-free one), on one random
// block: the data behind stebz_geometry().
void stebz_geometry_sweep(cudaStream_t s, int n, int last) {
  const zoo::SymTridiagonal t = zoo::symtridiagonal("random", n, 41);
  std::vector<gpueig::SturmRow> rows(n);
  double pivmin = 1, gl = t.d[0], gu = t.d[0], t1 = 0;
  for (int j = 0; j < n; ++j) rows[j] = {t.d[j], j > 0 ? t.e[j - 1] * t.e[j - 1] : 0.0};
  for (int j = 0; j + 1 < n; ++j) {
    pivmin = std::max(pivmin, rows[j + 1].e2);
    const double t2 = std::fabs(t.e[j]);
    gu = std::max(gu, t.d[j] + t1 + t2);
    gl = std::min(gl, t.d[j] - t1 - t2);
    t1 = t2;
  }
  gu = std::max(gu, t.d[n - 1] + t1) + 1e-10;
  gl = std::min(gl, t.d[n - 1] - t1) - 1e-10;
  pivmin *= DBL_MIN;
  const gpueig::SturmScale sc = gpueig::sturm_scale(rows.data(), n, pivmin);
  for (auto &row : rows) row = {row.d * sc.c, row.e2 * sc.c * sc.c};
  gl *= sc.c;
  gu *= sc.c;
  pivmin = sc.pivmin;
  const double atol = 0x1p-52 * std::max(std::fabs(gl), std::fabs(gu));
  const int itmax = static_cast<int>((std::log(gu - gl + pivmin) - std::log(pivmin)) / std::log(2.0)) + 2;
  gpueig::gpu::StebzBlock blk{0, n, 0, last, 0, 0, gl, gu, atol, itmax, 0};
  gpueig::SturmRow *drows = device_copy(rows);
  gpueig::gpu::StebzBlock *db = device_copy(std::vector<gpueig::gpu::StebzBlock>{blk});
  double *dw = nullptr;
  int *dconv = nullptr;
  CUDA_OK(cudaMalloc(&dw, n * sizeof(double)));
  CUDA_OK(cudaMalloc(&dconv, n * sizeof(int)));
  std::vector<double> reference;
  const gpueig::gpu::StebzGeometry chosen = gpueig::gpu::stebz_geometry(last, n);
  std::printf("  stebz search n=%d, eigenvalues 1..%d (chosen G=%d C=%d %s):\n", n, last, chosen.g,
              chosen.c, chosen.integer_tests ? "int" : "fp");
  std::vector<std::array<int, 2>> geos;
  if (last < 2048) geos = {{32, 1}, {64, 1}, {128, 1}, {256, 1}};
  else geos = {{1, 1}, {1, 2}, {2, 1}, {2, 2}, {4, 1}, {8, 1}};
  int *dgrid = nullptr;
  CUDA_OK(cudaMalloc(&dgrid, ((1 << 16) + 1) * sizeof(int)));
  for (int variant = 0; variant < 4; ++variant) {
    const int grid_log = variant % 2 ? 16 : 0;
    const bool int_tests = variant >= 2;
    std::printf("    %s grid 2^%-2d", int_tests ? "int" : "fp ", grid_log);
    for (const auto &g : geos) {
      double ms = device_ms(s, 2, [] {}, [&] {
        gpueig::gpu::StebzGrid grid{nullptr, 0};
        if (grid_log > 0) {
          CUDA_OK(gpueig::gpu::stebz_grid_counts(s, drows, n, gl, gu, 1 << grid_log, pivmin, dgrid));
          grid = {dgrid, 1 << grid_log};
        }
        CUDA_OK(gpueig::gpu::stebz_search(s, {g[0], g[1], int_tests}, drows, db, 1, last, pivmin,
                                          2 * 0x1p-52, grid, dw, dconv, nullptr));
      });
      // Every geometry must find the same eigenvalues (to the bisection tolerance).
      std::vector<double> got = download(dw, last);
      if (reference.empty()) reference = got;
      double diff = 0;
      for (int i = 0; i < last; ++i) diff = std::max(diff, std::fabs(got[i] - reference[i]));
      std::printf(" G%dxC%d %.2f%s", g[0], g[1], ms, diff > 8 * atol ? "(WRONG)" : "");
    }
    std::printf(" ms\n");
  }
  for (void *p : {(void *)drows, (void *)dw, (void *)dconv, (void *)db, (void *)dgrid}) cudaFree(p);
}

// Smallest n from which the GPU host call (all eigenvalues) beats dstebz: the stebz crossover.
long long stebz_crossover() {
  long long found = -1;
  for (int n : {16, 32, 64, 128, 256, 512}) {
    const zoo::SymTridiagonal t = zoo::symtridiagonal("random", n, 43);
    std::vector<double> w(n), work(4 * n);
    std::vector<int> ib(n), is(n), iwork(3 * n);
    int m = 0, ns = 0, info = 0;
    gpueig_set_backend("gpu");
    double g = host_ms(9, [] {}, [&] { gpu_stebz('A', 'E', n, 0, 0, 0, 0, 0.0, t.d.data(), t.e.data(), &m, &ns, w.data(), ib.data(), is.data()); });
    gpueig_set_backend("auto");
    double c = host_ms(9, [] {}, [&] {
      int nn = n, z = 0;
      double zero = 0;
      dstebz_("A", "E", &nn, &zero, &zero, &z, &z, &zero, t.d.data(), t.e.data(), &m, &ns, w.data(), ib.data(), is.data(), work.data(), iwork.data(), &info, 1, 1);
    });
    std::printf("  stebz crossover sweep: n=%5d  gpu host call %8.3f ms  dstebz %8.3f ms\n", n, g, c);
    if (g < c && found < 0) found = n;
    if (g >= c) found = -1;
  }
  return found;
}

void print_and_save(const char *json, const std::string &gpu, double copy_gbps, long long crossover) {
  std::printf("\n%-9s %-34s %-6s %9s %-5s %11s  %-40s %11s %9s %10s %10s %8s %15s\n", "routine", "problem", "mode",
              "n", "ran", "ours ms", "anchor", "anchor ms", "speedup", "ours acc", "anch acc", "GB/s",
              "GFLOP/s o/a");
  for (const Row &r : g_rows)
    std::printf("%-9s %-34s %-6s %9lld %-5s %11.3f  %-40s %11.3f %8.2fx %10.2g %10.2g %8.0f %7.0f/%-7.0f\n",
                r.routine.c_str(), r.problem.c_str(), r.mode.c_str(), r.n, r.backend.c_str(), r.ours_ms,
                r.anchor.c_str(), r.anchor_ms, r.anchor_ms / r.ours_ms, r.ours_ratio, r.anchor_ratio, r.gbps,
                r.ours_gflops, r.anchor_gflops);
  std::printf("device: %s; device-to-device copy %.0f GB/s (read + write); gtsv host-call crossover %lld\n",
              gpu.c_str(), copy_gbps, crossover);
  std::printf("speedup = anchor ms / ours ms; acc = LAPACK test ratio (<= 30 passes; -1 = not computed)\n");
  if (!json) return;
  FILE *f = std::fopen(json, "w");
  if (!f) return;
  std::fprintf(f, "{\n  \"device\": \"%s\",\n  \"copy_gbps\": %.1f,\n  \"gtsv_crossover\": %lld,\n  \"rows\": [\n",
               gpu.c_str(), copy_gbps, crossover);
  for (size_t i = 0; i < g_rows.size(); ++i) {
    const Row &r = g_rows[i];
    std::fprintf(f, "    {\"routine\": \"%s\", \"problem\": \"%s\", \"mode\": \"%s\", \"n\": %lld, "
                    "\"backend\": \"%s\", \"ours_ms\": %.6g, \"anchor\": \"%s\", \"anchor_ms\": %.6g, "
                    "\"speedup\": %.4g, \"ours_ratio\": %.4g, \"anchor_ratio\": %.4g, \"gbps\": %.1f, "
                    "\"ours_gflops\": %.0f, \"anchor_gflops\": %.0f}%s\n",
                 r.routine.c_str(), r.problem.c_str(), r.mode.c_str(), r.n, r.backend.c_str(), r.ours_ms,
                 r.anchor.c_str(), r.anchor_ms, r.anchor_ms / r.ours_ms, r.ours_ratio, r.anchor_ratio,
                 r.gbps, r.ours_gflops, r.anchor_gflops, i + 1 < g_rows.size() ? "," : "");
  }
  std::fprintf(f, "  ]\n}\n");
  std::fclose(f);
}

}  // namespace

int main(int argc, char **argv) {
  const char *json = nullptr;
  bool quick = false, only_gtsv = false, only_getrf = false, panel_only = false, tall_only = false, sweep_only = false, host_only = false, only_sytrd = false,
       sytrd_values = false, only_toeplitz = false, only_stedc = false, only_stein = false,
       only_dev_api = false, only_syevd_dev = false, only_structured = false, replay = false;
  long long structured_n = 200000, replay_n = 2000;
  int replay_seeds = 24;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--json") && i + 1 < argc) json = argv[++i];
    else if (!std::strcmp(argv[i], "--quick")) quick = true;
    else if (!std::strcmp(argv[i], "--gtsv")) only_gtsv = true;
    else if (!std::strcmp(argv[i], "--getrf")) only_getrf = true;
    else if (!std::strcmp(argv[i], "--getrf-panel")) only_getrf = panel_only = true;
    else if (!std::strcmp(argv[i], "--getrf-tall")) only_getrf = tall_only = true;
    else if (!std::strcmp(argv[i], "--getrf-sweep")) only_getrf = sweep_only = true;
    else if (!std::strcmp(argv[i], "--getrf-host")) only_getrf = host_only = true;
    else if (!std::strcmp(argv[i], "--sytrd")) only_sytrd = true;
    else if (!std::strcmp(argv[i], "--sytrd-values")) only_sytrd = sytrd_values = true;
    else if (!std::strcmp(argv[i], "--toeplitz")) only_toeplitz = true;
    else if (!std::strcmp(argv[i], "--stedc")) only_stedc = true;
    else if (!std::strcmp(argv[i], "--stein")) only_stein = true;
    else if (!std::strcmp(argv[i], "--dev-api")) only_dev_api = true;
    else if (!std::strcmp(argv[i], "--syevd-dev")) only_syevd_dev = true;
    else if (!std::strcmp(argv[i], "--toeplitz-structured")) only_structured = true;
    else if (!std::strcmp(argv[i], "--structured-n") && i + 1 < argc) structured_n = std::atoll(argv[++i]);
    else if (!std::strcmp(argv[i], "--structured-replay")) replay = true;
    else if (!std::strcmp(argv[i], "--replay-n") && i + 1 < argc) replay_n = std::atoll(argv[++i]);
    else if (!std::strcmp(argv[i], "--replay-seeds") && i + 1 < argc) replay_seeds = std::atoi(argv[++i]);
    else {
      std::fprintf(stderr, "usage: %s [--json FILE] [--quick] [--gtsv] [--getrf] [--getrf-panel] [--getrf-tall] [--getrf-sweep] [--getrf-host] [--sytrd] [--sytrd-values] [--toeplitz] [--stedc] [--stein] [--dev-api] [--syevd-dev] [--toeplitz-structured [--structured-n N]] [--structured-replay [--replay-n N] [--replay-seeds S]]\n", argv[0]);
      return 2;
    }
  }
  if (replay) {  // the search on the host evaluator: no GPU needed
    if (replay_n < 64 || replay_seeds < 1) {
      std::fprintf(stderr, "--structured-replay needs --replay-n >= 64 and --replay-seeds >= 1\n");
      return 2;
    }
    return bench::structured_replay(replay_n, replay_seeds, 7) ? 0 : 1;
  }
  if (!gpueig_gpu_available()) {
    std::fprintf(stderr, "gpueig_bench needs a usable GPU:\n%s", gpueig_info());
    return 1;
  }
  cudaDeviceProp prop{};
  CUDA_OK(cudaGetDeviceProperties(&prop, 0));
  cudaStream_t s;
  CUDA_OK(cudaStreamCreate(&s));
  cusparseHandle_t sp;
  SPARSE_OK(cusparseCreate(&sp));
  SPARSE_OK(cusparseSetStream(sp, s));

  double copy = copy_bandwidth_gbps(s);
  if (only_dev_api) {
    bench_tridiagonal_dev(s, quick);
    return 0;
  }
  if (only_syevd_dev) {
    bench::bench_syevd_dev(s, quick);
    print_and_save(json, prop.name, copy, -1);
    return 0;
  }
  if (only_stein) {
    bench::bench_stein(quick);
    print_and_save(json, prop.name, copy, -1);
    return 0;
  }
  if (only_stedc) {
    bench::bench_stedc(s, quick);
    print_and_save(json, prop.name, copy, -1);
    return 0;
  }
  if (only_structured) {
    bench::bench_toeplitz_structured(s, quick, structured_n);
    print_and_save(json, prop.name, copy, -1);
    return 0;
  }
  if (only_toeplitz) {
    bench::bench_toeplitz(s, quick);
    print_and_save(json, prop.name, copy, -1);
    return 0;
  }
  if (only_sytrd) {
    bench::bench_sytrd(s, quick, sytrd_values);
    print_and_save(json, prop.name, copy, -1);
    return 0;
  }
  if (only_getrf) {
    bench::bench_getrf(s, quick, panel_only, tall_only, sweep_only, host_only);
    print_and_save(json, prop.name, copy, -1);
    return 0;
  }
  std::vector<int> sizes = {4096, 65536, 1 << 20, 1 << 24};
  if (quick) sizes = {4096, 65536, 1 << 20};
  for (int n : sizes) bench_gtsv_device(s, sp, n, n >= (1 << 22) ? 10 : 30);
  bench_gtsv_batch(s, sp, 256, 65536, 20);
  if (!quick) {
    bench_gtsv_batch(s, sp, 1024, 16384, 20);
    bench_gtsv_batch(s, sp, 4096, 4096, 20);
    bench_gtsv_batch(s, sp, 32, 1 << 19, 20);
  }
  for (int n : sizes) g_rows.push_back(gtsv_host(n, n >= (1 << 22) ? 5 : 15));
  for (int n : sizes)
    if (n <= (1 << 20))
      for (bool zero_diagonal : {false, true}) bench_gtsv_pivoting(s, sp, n, n >= (1 << 20) ? 3 : 5, zero_diagonal);
  for (int n : sizes)  // several right-hand sides of a system that needs pivoting (a column a block)
    if (n >= 65536 && n <= (1 << 20)) bench_gtsv_pivoting(s, sp, n, 3, true, 2);
  std::printf("gtsv host-call crossover sweep (GPU forced vs OpenBLAS dgtsv):\n");
  long long cross = gtsv_crossover(quick);
  std::printf("gtsv host-call re-solve of a failed lone system (zero diagonal), device vs host:\n");
  std::printf("  re-solve on the device from n = %lld\n", gtsv_pivot_crossover(s, quick));
  if (only_gtsv) {
    print_and_save(json, prop.name, copy, cross);
    return 0;
  }
  std::printf("stebz:\n");
  const long long stebz_cross = stebz_crossover();
  std::printf("  stebz crossover: %lld\n", stebz_cross);
  stebz_geometry_sweep(s, 16384, 164);
  stebz_geometry_sweep(s, 16384, 16384);
  if (!quick) stebz_geometry_sweep(s, 32768, 32768);
  for (const StebzCase &c : {StebzCase{4096, 4096, "dstebz", 5}, StebzCase{16384, 164, "dstebz", 5},
                             StebzCase{16384, 16384, "dsterf", 3}})
    bench_stebz(c);
  if (!quick) {
    bench_stebz({32768, 32768, "dsterf", 3});
    std::printf("stebz n=32768 all, double: %.2f ms host call; the seed's float CUDA sample: 67.8 ms "
                "(anchors.md, H100, not run here): ratio %.2f\n", g_rows.back().ours_ms,
                g_rows.back().ours_ms / 67.8);
  }
  bench::bench_getrf(s, quick, false);
  bench::bench_sytrd(s, quick);
  bench::bench_toeplitz(s, quick);
  bench::bench_stedc(s, quick);
  bench_cpu_routines(quick);
  print_and_save(json, prop.name, copy, cross);
  cusparseDestroy(sp);
  cudaStreamDestroy(s);
  return 0;
}
