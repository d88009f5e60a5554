// gpu_gtsv_pcr: argument checks, dispatch, and the CPU path (DGTSV on copies of DL, D, DU).
// The GPU half is cuda/gtsv.cu.
#include <climits>
#include <vector>

#include "checks.hpp"
#include "cpu_paths.hpp"
#include "device_call.hpp"
#include "dispatch.hpp"
#include "gpu_backend.hpp"
#include "gpueig.h"
#include "lapack.hpp"

namespace gpueig::cpu {

int gtsv(int n, int nrhs, const double *dl, const double *d, const double *du, double *b,
             int ldb) {
  const lapack::Table *L = lapack::table();
  if (!L) return GPUEIG_ERR_LAPACK;
  // DGTSV overwrites the matrix with its factors; the documented contract here keeps it.
  std::vector<double> dl2, d2, du2;
  try {
    dl2.assign(dl, dl + (n - 1));
    d2.assign(d, d + n);
    du2.assign(du, du + (n - 1));
  } catch (const std::bad_alloc &) {
    return GPUEIG_ERR_MEMORY;
  }
  int info = 0;
  L->dgtsv(&n, &nrhs, dl2.data(), d2.data(), du2.data(), b, &ldb, &info);
  return info;
}

}  // namespace gpueig::cpu

namespace {

// DGTSV's argument checks, and the batch's (the host and the device-pointer calls share them).
int gtsv_arguments(int n, int nrhs, int ldb) {
  if (n < 0) return -1;
  if (nrhs < 0) return -2;
  if (ldb < gpueig::max1(n)) return -7;
  return 0;
}
int gtsv_batch_arguments(int n, int batch, int stride) {
  if (n < 0) return -1;
  if (batch < 0) return -2;
  if (stride < gpueig::max1(n)) return -7;
  return 0;
}

}  // namespace

extern "C" int gpu_gtsv_pcr(int n, int nrhs, double *dl, double *d, double *du, double *b,
                            int ldb) {
  using namespace gpueig;
  return guarded([&] {
    CallRecord call(Routine::gtsv, sizes({{"n", n}, {"nrhs", nrhs}}));
    if (const int bad = gtsv_arguments(n, nrhs, ldb)) return bad;
    if (n == 0) return 0;
    if (nrhs == 0) {
      // DGTSV still factors the matrix and reports a zero pivot: only DGTSV's INFO is wanted, and
      // that is O(n) work on the host (on copies: the matrix is left unchanged). DGTSV's back
      // solve writes B's first column even for NRHS = 0, so it gets a scratch column, never the
      // caller's B (which may have no column at all).
      std::vector<double> scratch(n);
      const int info = cpu::gtsv(n, 0, dl, d, du, scratch.data(), n);
      call.done(backend_of_cpu_result(info), "NRHS = 0: DGTSV's INFO only");
      return info;
    }

    return run_dispatched(
        call, Routine::gtsv, n,
        [&](int &) { return gpu::device().gtsv(n, nrhs, dl, d, du, b, ldb); },
        [&] { return cpu::gtsv(n, nrhs, dl, d, du, b, ldb); });
  });
}

extern "C" int gpu_gtsv_pcr_batch(int n, int batch, double *dl, double *d, double *du, double *b,
                                  int stride) {
  using namespace gpueig;
  return guarded([&] {
    CallRecord call(Routine::gtsv, sizes({{"n", n}, {"batch", batch}, {"stride", stride}}));
    if (const int bad = gtsv_batch_arguments(n, batch, stride)) return bad;
    if (n == 0 || batch == 0) return 0;

    // System k's INFO i > 0 is reported for the first singular system as k*n + i (see gpueig.h).
    int first = 0;
    auto note = [&](int64_t k, int info) {
      if (info > 0 && first == 0) {
        const int64_t code = k * n + info;
        first = code <= INT_MAX ? static_cast<int>(code) : INT_MAX;
      }
    };
    auto cpu_system = [&](int64_t k) {
      const size_t off = static_cast<size_t>(k) * stride;
      return cpu::gtsv(n, 1, dl + off, d + off, du + off, b + off, n);
    };
    const int64_t total = static_cast<int64_t>(n) * batch;
    return run_dispatched(
        call, Routine::gtsv, total,
        [&](int &info) {
          std::vector<gpu::BatchOutcome> redo;
          int64_t done = 0;
          gpu::Status st = gpu::device().gtsv_batch(n, batch, dl, d, du, b, stride, &redo, &done);
          if (!st && (done == 0 || st.code == gpu::Status::output_lost)) return st;
          for (const gpu::BatchOutcome &r : redo) {
            // Systems the device left alone (a handful) are solved here, in system order.
            const int i = r.info >= 0 ? r.info : cpu_system(r.system);
            if (i < 0) return gpu::Status::fail(gpu::Status::output_lost, "LAPACK unavailable");
            note(r.system, i);
          }
          // A device failure after some groups were finished: the rest on the CPU.
          for (int64_t k = done; k < batch; ++k) {
            const int i = cpu_system(k);
            if (i < 0) return gpu::Status::fail(gpu::Status::output_lost, "LAPACK unavailable");
            note(k, i);
          }
          info = first;
          return gpu::Status::success();
        },
        [&] {
          for (int64_t k = 0; k < batch; ++k) {
            const int i = cpu_system(k);
            if (i < 0) return i;
            note(k, i);
          }
          return first;
        });
  });
}

extern "C" int gpu_gtsv_dev(int n, int nrhs, const double *dl, const double *d, const double *du,
                            double *b, int ldb, int *info, void *stream) {
  using namespace gpueig;
  return guarded([&] {
    CallRecord call(Routine::gtsv, sizes({{"n", n}, {"nrhs", nrhs}}));
    if (const int bad = gtsv_arguments(n, nrhs, ldb)) return bad;
    return run_on_device(call, {{3, dl, n > 1}, {4, d, n > 0}, {5, du, n > 1}, {6, b, n > 0 && nrhs > 0},
                                {8, info, true}},
                         9, stream, [&](gpu::Device &dev) {
                           return n == 0 ? dev.zero_info(info, stream)
                                         : dev.gtsv_dev(n, nrhs, dl, d, du, 0, b, ldb, info, stream);
                         });
  });
}

extern "C" int gpu_gtsv_batch_dev(int n, int batch, const double *dl, const double *d, const double *du,
                                  double *b, int stride, int *info, void *stream) {
  using namespace gpueig;
  return guarded([&] {
    CallRecord call(Routine::gtsv, sizes({{"n", n}, {"batch", batch}, {"stride", stride}}));
    if (const int bad = gtsv_batch_arguments(n, batch, stride)) return bad;
    const bool work = n > 0 && batch > 0;
    return run_on_device(call, {{3, dl, work && n > 1}, {4, d, work}, {5, du, work && n > 1}, {6, b, work},
                                {8, info, true}},
                         9, stream, [&](gpu::Device &dev) {
                           return !work ? dev.zero_info(info, stream)
                                        : dev.gtsv_dev(n, batch, dl, d, du, stride, b, stride, info, stream);
                         });
  });
}
