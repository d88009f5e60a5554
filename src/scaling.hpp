// Scaling by exact powers of two into the ranges where LAPACK's drivers scale their matrices
// (DSTERF, DSYEV, DSYEVR, DSYEVX): shared by the shim, gpu_toeplitz_eig and gpu_stein.
#pragma once
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "host_parts.hpp"

namespace gpueig::scaling {

constexpr double kEps = DBL_EPSILON / 2;  // DLAMCH('E')
constexpr double kPrecision = DBL_EPSILON;  // DLAMCH('P') = EPS * BASE
constexpr double kSafmin = DBL_MIN;         // DLAMCH('S')

// The power of two that brings a norm `anorm` inside [lo, hi]: 1 when it is there already, or 0,
// or not finite (nothing to scale). Multiplying by it is exact wherever it does not underflow.
inline double power_of_two_into(double anorm, double lo, double hi) {
  if (!(anorm > 0) || !std::isfinite(anorm) || (anorm >= lo && anorm <= hi)) return 1;
  const int e = anorm > hi ? static_cast<int>(std::floor(std::log2(hi / anorm)))
                           : static_cast<int>(std::ceil(std::log2(lo / anorm)));
  return std::ldexp(1.0, e);
}

// max |a(i,j)| over columns j = first, first + step, ... of the triangle `uplo`, NaN if one of
// them is NaN (as DLANSY). Four running maxima: one alone is a chain of dependent compares.
inline double column_max(char uplo, int n, const double *a, int64_t lda, int first, int step) {
  const bool upper = uplo == 'U' || uplo == 'u';
  double m[4] = {0, 0, 0, 0};
  bool nan = false;
  for (int64_t j = first; j < n; j += step) {
    const double *col = a + j * lda;
    const int64_t lo = upper ? 0 : j, hi = upper ? j + 1 : n;
    int64_t i = lo;
    for (; i + 4 <= hi; i += 4)
      for (int k = 0; k < 4; ++k) {
        const double x = std::fabs(col[i + k]);
        nan |= x != x;
        m[k] = m[k] < x ? x : m[k];
      }
    for (; i < hi; ++i) {
      const double x = std::fabs(col[i]);
      nan |= x != x;
      m[0] = m[0] < x ? x : m[0];
    }
  }
  return nan ? std::numeric_limits<double>::quiet_NaN()
             : std::max(std::max(m[0], m[1]), std::max(m[2], m[3]));
}

// DLANSY('M') of the triangle: columns shared out round-robin over up to 8 threads from 2^20
// entries on; on one thread if none can be had. On the H100 machine's CPU (2026-11-25, medians
// of 5) one running max over the lower triangle took 166 ms at n = 8192 and 41 ms at 4096, this
// 9.3 and 2.5 ms: served dsyevd_ went from 481 to 419 ms at 8192 (cuSOLVER way 660 ms).
inline double triangle_max(char uplo, int n, const double *a, int64_t lda) {
  const int parts = host_parts(int64_t(n) * (n + 1) / 2, int64_t(1) << 20);
  std::vector<double> part_max(parts, 0.0);
  run_parts(parts, [&](int p) { part_max[p] = column_max(uplo, n, a, lda, p, parts); });
  double anorm = 0;
  for (double m : part_max) {
    if (m != m) return m;
    anorm = std::max(anorm, m);
  }
  return anorm;
}

// Whether DSYEVX would scale A (anrm: the largest |entry| of its triangle, finite; outside
// [RMIN, RMAX]) and VL, VU with it so far that VL*SIGMA < VU*SIGMA no longer holds: its inner
// DSTEBZ would then reject the interval through XERBLA (which stops a program linked with
// Reference LAPACK). Replicates DSYEVX's ISCALE test (as src/toeplitz.cpp's dsyevr_collapses
// does DSYEVR's); gpu_syevx and its device twin return M = 0 there.
inline bool dsyevx_collapses(double anrm, double vl, double vu) {
  const double safmin = std::numeric_limits<double>::min(), eps = std::numeric_limits<double>::epsilon();
  const double smlnum = safmin / eps, bignum = 1 / smlnum;
  const double rmin = std::sqrt(smlnum), rmax = std::min(std::sqrt(bignum), 1 / std::sqrt(std::sqrt(safmin)));
  double sigma = 1;
  if (anrm > 0 && anrm < rmin) sigma = rmin / anrm;
  else if (anrm > rmax) sigma = rmax / anrm;
  return sigma != 1 && !(vl * sigma < vu * sigma);
}

}  // namespace gpueig::scaling
