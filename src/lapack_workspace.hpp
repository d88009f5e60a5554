// LAPACK's minimum workspace sizes, computed in 64 bits. LAPACK computes them in its 32-bit
// INTEGER (DSYEVD's 1 + 6N + 2N^2 wraps from N = 32767 on) and its workspace query then reports
// the wrapped value, so a query's answer is never trusted alone: the workspace passed is the
// larger of the query and these minima, and a size that does not fit LP64's INTEGER means the
// routine cannot be called at that size.
#pragma once
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>

namespace gpueig::lapack {

inline int64_t dsyevd_lwork_min(bool wantz, int64_t n) {
  if (n <= 1) return 1;
  return wantz ? 1 + 6 * n + 2 * n * n : 2 * n + 1;
}
inline int64_t dsyevd_liwork_min(bool wantz, int64_t n) { return (n <= 1 || !wantz) ? 1 : 3 + 5 * n; }
inline int64_t dsyevr_lwork_min(int64_t n) { return std::max<int64_t>(1, 26 * n); }
inline int64_t dsyevr_liwork_min(int64_t n) { return std::max<int64_t>(1, 10 * n); }

// The workspace length to pass: LAPACK's query answer (a WORK(1) or IWORK(1) value) if it is a
// sane number at least `minimum`, else `minimum`; -1 when the result does not fit an INTEGER.
inline int64_t workspace_length(double query, int64_t minimum) {
  int64_t len = minimum;
  if (std::isfinite(query) && query > static_cast<double>(minimum) && query < 9.0e18)
    len = static_cast<int64_t>(query);
  return len <= INT_MAX ? len : -1;
}

}  // namespace gpueig::lapack
