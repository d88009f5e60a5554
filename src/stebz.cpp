// gpu_stebz: argument checks, dispatch, and the CPU path (LAPACK DSTEBZ). The GPU half is
// cuda/stebz.cu.
#include <algorithm>
#include <string>
#include <vector>

#include "checks.hpp"
#include "cpu_paths.hpp"
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

extern "C" int gpu_stebz(char range, char order, int n, double vl, double vu, int il, int iu,
                         double abstol, const double *d, const double *e, int *m, int *nsplit,
                         double *w, int *iblock, int *isplit) {
  using namespace gpueig;
  return guarded([&] {
    CallRecord call(Routine::stebz, sizes({{"n", n}}));
    const bool all = lsame(range, 'A'), byval = lsame(range, 'V'), byidx = lsame(range, 'I');
    if (!all && !byval && !byidx) return -1;
    if (!lsame(order, 'B') && !lsame(order, 'E')) return -2;
    if (n < 0) return -3;
    if (byval && !(vl < vu)) return -5;  // also rejects NaN bounds, which LAPACK cannot handle
    if (byidx && (il < 1 || il > max1(n))) return -6;
    if (byidx && (iu < (n < il ? n : il) || iu > n)) return -7;
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
