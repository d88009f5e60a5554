// gpu_stebz: argument checks, dispatch, and the CPU path (LAPACK DSTEBZ). The GPU half is
// cuda/stebz.cu.
#include <algorithm>
#include <string>
#include <vector>

#include "checks.hpp"
#include "cpu_paths.hpp"
#include "device_call.hpp"
#include "dispatch.hpp"
#include "gpu_backend.hpp"
#include "gpueig.h"
#include "lapack.hpp"

namespace gpueig::cpu {

int stebz(char range, char order, int n, double vl, double vu, int il, int iu, double abstol,
              const double *d, const double *e, int *m, int *nsplit, double *w, int *iblock,
              int *isplit) {
  const lapack::Table *L = lapack::table();
  if (!L) return GPUEIG_ERR_LAPACK;
  std::vector<double> work;
  std::vector<int> iwork, block;
  try {
    work.resize(4 * static_cast<size_t>(n));
    iwork.resize(3 * static_cast<size_t>(n));
    block.resize(static_cast<size_t>(n) + 1);
  } catch (const std::bad_alloc &) {
    return GPUEIG_ERR_MEMORY;
  }
  // DSTEBZ's discarding (RANGE 'I', when the Gershgorin interval overflowed and nothing is left
  // to discard) writes IBLOCK(0), one before the array: found by fuzzing with D = -DBL_MAX. It
  // gets an array of its own with a spare leading entry; the caller's IBLOCK receives M entries.
  int info = 0;
  L->dstebz(&range, &order, &n, &vl, &vu, &il, &iu, &abstol, d, e, m, nsplit, w, block.data() + 1,
            isplit, work.data(), iwork.data(), &info, 1, 1);
  std::copy(block.begin() + 1, block.begin() + 1 + std::clamp(*m, 0, n), iblock);
  return info;
}

}  // namespace gpueig::cpu

namespace gpueig {
namespace {

// The scalar checks gpu_stebz and gpu_stebz_dev share (arguments 1 to 7): 0 or -i.
int stebz_arguments(char range, char order, int n, double vl, double vu, int il, int iu) {
  const bool all = lsame(range, 'A'), byval = lsame(range, 'V'), byidx = lsame(range, 'I');
  if (!all && !byval && !byidx) return -1;
  if (!lsame(order, 'B') && !lsame(order, 'E')) return -2;
  if (n < 0) return -3;
  if (byval && !(vl < vu)) return -5;  // also rejects NaN bounds, which LAPACK cannot handle
  if (byidx && (il < 1 || il > max1(n))) return -6;
  if (byidx && (iu < (n < il ? n : il) || iu > n)) return -7;
  return 0;
}

// gpu_stebz_dev's work once its arguments are checked (n >= 1): D and E down (the bookkeeping is
// the host's), the data checks the host call makes (device INFO -9 / -10), then the device's
// bisection; where DSTEBZ's own arithmetic must answer (`unsafe`), LAPACK on the host copies,
// its outputs copied up.
gpu::Status stebz_on_device(gpu::Device &dev, char range, char order, int n, double vl, double vu, int il,
                            int iu, double abstol, const double *d, const double *e, int *m, int *nsplit,
                            double *w, int *iblock, int *isplit, int *info, void *stream) {
  constexpr size_t kD = sizeof(double), kI = sizeof(int);
  std::vector<double> hd(n), he(std::max(n - 1, 1));
  gpu::Status s = dev.download_arrays({{hd.data(), d, n * kD}, {he.data(), e, (n - 1) * kD}}, stream);
  if (!s) return s;
  const int bad = !all_finite(hd.data(), n) ? -9 : !all_finite(he.data(), n - 1) ? -10 : 0;
  if (bad) return dev.upload_arrays({{info, &bad, kI}}, stream);
  s = dev.stebz_dev(range, order, n, vl, vu, il, iu, abstol, hd.data(), he.data(), m, nsplit, w, iblock, isplit,
                    info, stream);
  if (s.code != gpu::Status::unsafe) return s;
  std::vector<double> hw(n);
  std::vector<int> hb(n), hs(n);
  int mm = 0, ns = 0;
  const int r = cpu::stebz(range, order, n, vl, vu, il, iu, abstol, hd.data(), he.data(), &mm, &ns, hw.data(),
                           hb.data(), hs.data());
  if (r < 0)
    return gpu::Status::fail(gpu::Status::device_error,
                             r == GPUEIG_ERR_LAPACK ? "no LAPACK for the host recompute" : "the host recompute failed");
  if (!(s = dev.upload_arrays({{w, hw.data(), mm * kD}, {iblock, hb.data(), mm * kI}, {isplit, hs.data(), ns * kI},
                               {info, &r, kI}},
                              stream)))
    return s;
  *m = mm;
  *nsplit = ns;
  return s;
}

}  // namespace
}  // namespace gpueig

extern "C" int gpu_stebz_dev(char range, char order, int n, double vl, double vu, int il, int iu,
                             double abstol, const double *d, const double *e, int *m, int *nsplit,
                             double *w, int *iblock, int *isplit, int *info, void *stream) {
  using namespace gpueig;
  return guarded([&] {
    CallRecord call(Routine::stebz, sizes({{"n", n}}));
    if (const int bad = stebz_arguments(range, order, n, vl, vu, il, iu)) return bad;
    if (!m) return -11;
    if (!nsplit) return -12;
    const bool some = n > 0;
    return run_on_device(call, {{9, d, some}, {10, e, n > 1}, {13, w, some}, {14, iblock, some},
                                {15, isplit, some}, {16, info, true}},
                         17, stream, [&](gpu::Device &dev) {
                           *m = 0;
                           *nsplit = 0;
                           if (!some) return dev.zero_info(info, stream);
                           return stebz_on_device(dev, range, order, n, vl, vu, il, iu, abstol, d, e, m, nsplit,
                                                  w, iblock, isplit, info, stream);
                         });
  });
}

extern "C" int gpu_stebz(char range, char order, int n, double vl, double vu, int il, int iu,
                         double abstol, const double *d, const double *e, int *m, int *nsplit,
                         double *w, int *iblock, int *isplit) {
  using namespace gpueig;
  return guarded([&] {
    CallRecord call(Routine::stebz, sizes({{"n", n}}));
    if (const int bad = stebz_arguments(range, order, n, vl, vu, il, iu)) return bad;
    if (!all_finite(d, n)) return -9;
    if (n > 1 && !all_finite(e, n - 1)) return -10;
    *m = 0;
    if (n == 0) return 0;

    return run_dispatched(
        call, Routine::stebz, n,
        [&](int &info) {
          return gpu::device().stebz(range, order, n, vl, vu, il, iu, abstol, d, e, m, nsplit, w, iblock,
                            isplit, &info);
        },
        [&] {
          return cpu::stebz(range, order, n, vl, vu, il, iu, abstol, d, e, m, nsplit, w, iblock,
                           isplit);
        });
  });
}
