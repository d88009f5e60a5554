// Scaling by exact powers of two into the ranges where LAPACK's drivers scale their matrices
// (DSTERF, DSYEV, DSYEVR, DSYEVX): shared by the shim, gpu_toeplitz_eig and gpu_stein.
#pragma once
#include <cfloat>
#include <cmath>

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

}  // namespace gpueig::scaling
