// gpu_stein: argument checks, dispatch and the CPU path (LAPACK DSTEIN). The GPU half is
// cuda/stein.cu (the method of src/stein_phases.hpp); the checks are both paths' contract.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <new>
#include <vector>

#include "checks.hpp"
#include "cpu_paths.hpp"
#include "device_call.hpp"
#include "dispatch.hpp"
#include "gpueig.h"
#include "lapack.hpp"
#include "scaling.hpp"

namespace gpueig::cpu {

int stein(int n, const double *d, const double *e, int m, const double *w, const int *iblock,
          const int *isplit, double *z, int ldz, int *ifail) {
  const lapack::Table *L = lapack::table();
  if (!L) return GPUEIG_ERR_LAPACK;
  try {
    std::vector<double> work(5 * static_cast<size_t>(n));  // DSTEIN: WORK(5N), IWORK(N)
    std::vector<int> iwork(static_cast<size_t>(n));
    int info = 0;
    L->dstein(&n, d, e, &m, w, iblock, isplit, z, &ldz, work.data(), iwork.data(), ifail, &info);
    return info < 0 ? GPUEIG_ERR_INTERNAL : info;  // the checks below are DSTEIN's and more
  } catch (const std::bad_alloc &) {
    return GPUEIG_ERR_MEMORY;
  }
}

}  // namespace gpueig::cpu

namespace {

// DSTEIN's own checks of W and IBLOCK (INFO -5, -6), and what it takes on trust: every IBLOCK(j)
// names a block of ISPLIT (1 <= IBLOCK(j), IBLOCK(M) <= N), and ISPLIT(1..IBLOCK(M)) ends blocks
// that exist (increasing, within 1..N). DSTEIN reads outside its arrays without them.
int check_blocks(int n, int m, const double *w, const int *iblock, const int *isplit) {
  for (int64_t j = 1; j < m; ++j) {
    if (iblock[j] < iblock[j - 1]) return -6;
    if (iblock[j] == iblock[j - 1] && w[j] < w[j - 1]) return -5;
  }
  if (m == 0) return 0;
  if (iblock[0] < 1 || iblock[m - 1] > n) return -6;
  int prev = 0;
  for (int64_t b = 0; b < iblock[m - 1]; ++b) {
    if (isplit[b] <= prev || isplit[b] > n) return -7;
    prev = isplit[b];
  }
  return 0;
}

// DSYEVX's range for the matrix it gives DSTEIN: max |T| within [sqrt(SMLNUM), min(sqrt(BIGNUM),
// SAFMIN^(-1/4))], SMLNUM = SAFMIN / EPS. DSTEIN itself does not scale: given T with entries near
// 1e300 its vectors are NaN, near 1e-290 its residuals 1e14 ulps (the zoo's "huge" and
// "underflow" kinds). Eigenvectors do not change when T and W are scaled together.
double stein_scale(int n, const double *d, const double *e) {
  using namespace gpueig::scaling;
  double tmax = 0;  // DLANST('M')
  for (int64_t i = 0; i < n; ++i) tmax = std::max(tmax, std::fabs(d[i]));
  for (int64_t i = 0; i + 1 < n; ++i) tmax = std::max(tmax, std::fabs(e[i]));
  const double smlnum = kSafmin / kPrecision;
  return power_of_two_into(tmax, std::sqrt(smlnum),
                           std::min(std::sqrt(1 / smlnum), 1 / std::sqrt(std::sqrt(kSafmin))));
}

// The scalar checks gpu_stein and gpu_stein_dev share: 0 or -i.
int stein_arguments(int n, int m, int ldz) {
  if (n < 0) return -1;
  if (m < 0 || m > n) return -4;
  if (ldz < gpueig::max1(n)) return -9;
  return 0;
}

// D, E and W multiplied by sigma (in place; exact: a power of two).
void scale_together(int n, int m, double sigma, double *d, double *e, double *w) {
  for (int64_t i = 0; i < n; ++i) d[i] *= sigma;
  for (int64_t i = 0; i + 1 < n; ++i) e[i] *= sigma;
  for (int64_t j = 0; j < m; ++j) w[j] *= sigma;
}

// gpu_stein_dev's work once its arguments are checked (n, m >= 1): the inputs down (the clusters
// are planned on the host), the data checks the host call makes (device INFO), the scaling, then
// the device's vectors.
gpueig::gpu::Status stein_on_device(gpueig::gpu::Device &dev, int n, const double *d, const double *e, int m,
                                    const double *w, const int *iblock, const int *isplit, double *z, int ldz,
                                    int *ifail, int *info, void *stream) {
  std::vector<double> hd(n), he(std::max(n - 1, 1)), hw(m);
  std::vector<int> hb(m), hs(n);
  constexpr size_t kD = sizeof(double), kI = sizeof(int);
  gpueig::gpu::Status s = dev.download_arrays({{hd.data(), d, n * kD},
                                               {he.data(), e, (n - 1) * kD},
                                               {hw.data(), w, m * kD},
                                               {hb.data(), iblock, m * kI},
                                               {hs.data(), isplit, n * kI}},
                                              stream);
  if (!s) return s;
  using gpueig::all_finite;
  int bad = !all_finite(hd.data(), n) ? -2 : !all_finite(he.data(), n - 1) ? -3 : !all_finite(hw.data(), m) ? -5 : 0;
  if (!bad) bad = check_blocks(n, m, hw.data(), hb.data(), hs.data());
  if (bad) return dev.upload_arrays({{info, &bad, kI}}, stream);
  const double sigma = stein_scale(n, hd.data(), he.data());
  if (sigma != 1) scale_together(n, m, sigma, hd.data(), he.data(), hw.data());
  return dev.stein_dev(n, hd.data(), he.data(), m, hw.data(), hb.data(), hs.data(), z, ldz, ifail, info, stream);
}

}  // namespace

extern "C" int gpu_stein_dev(int n, const double *d, const double *e, int m, const double *w,
                             const int *iblock, const int *isplit, double *z, int ldz, int *ifail,
                             int *info, void *stream) {
  using namespace gpueig;
  return guarded([&] {
    CallRecord call(Routine::stein, sizes({{"n", n}, {"m", m}}));
    if (const int bad = stein_arguments(n, m, ldz)) return bad;
    const bool some = n > 0 && m > 0;
    return run_on_device(call, {{2, d, some}, {3, e, some && n > 1}, {5, w, some}, {6, iblock, some},
                                {7, isplit, some}, {8, z, some}, {10, ifail, some}, {11, info, true}},
                         12, stream, [&](gpu::Device &dev) {
                           if (!some) return dev.zero_info(info, stream);
                           return stein_on_device(dev, n, d, e, m, w, iblock, isplit, z, ldz, ifail, info, stream);
                         });
  });
}

extern "C" int gpu_stein(int n, const double *d, const double *e, int m, const double *w,
                         const int *iblock, const int *isplit, double *z, int ldz, int *ifail) {
  using namespace gpueig;
  return guarded([&] {
    CallRecord call(Routine::stein, sizes({{"n", n}, {"m", m}}));
    if (const int bad = stein_arguments(n, m, ldz)) return bad;
    if (!all_finite(d, n)) return -2;
    if (n > 1 && !all_finite(e, n - 1)) return -3;
    if (!all_finite(w, m)) return -5;
    if (const int bad = check_blocks(n, m, w, iblock, isplit)) return bad;
    if (n == 0 || m == 0) return 0;

    // T and W scaled together where DSYEVX would scale T (a power of two: exact, and the order of
    // W kept); the vectors are those of T.
    const double sigma = stein_scale(n, d, e);
    std::vector<double> scaled;
    if (sigma != 1) {
      scaled.resize(size_t(n) + size_t(n) + size_t(m));
      double *ds = scaled.data(), *es = ds + n, *ws = es + n;
      std::copy_n(d, n, ds);
      std::copy_n(e, n - 1, es);
      std::copy_n(w, m, ws);
      scale_together(n, m, sigma, ds, es, ws);
      d = ds, e = es, w = ws;
    }
    return run_dispatched(
        call, Routine::stein, m,  // the crossover counts eigenvectors (src/tuning.hpp)
        [&](int &info) { return gpu::device().stein(n, d, e, m, w, iblock, isplit, z, ldz, ifail, &info); },
        [&] { return cpu::stein(n, d, e, m, w, iblock, isplit, z, ldz, ifail); });
  });
}
