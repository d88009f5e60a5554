// Sturm counts of a symmetric tridiagonal matrix, shared by the GPU kernels, the host side of the
// GPU path and the CPU tests, so that all of them count with the same arithmetic.
#pragma once
#include <cmath>
#include <cstdint>

#ifdef __CUDACC__
#define GPUEIG_HD __host__ __device__
#else
#define GPUEIG_HD
#endif

namespace gpueig {

// For each shift x[k]: the number of eigenvalues of T = tridiag(e, d, e) of order n that are <= x[k],
// i.e. the number of non-positive pivots of T - x[k] I = L D L^T. e2[j] = e[j]^2 (zero where T
// splits). Exactly LAPACK DLAEBZ's count, operation for operation: a pivot smaller than pivmin in
// magnitude is replaced by -pivmin, so a zero pivot never produces Inf or NaN. The K shifts run
// interleaved: K independent division chains per thread hide the latency of each.
template <int K>
GPUEIG_HD inline void sturm_counts(const double *d, const double *e2, int64_t n, const double (&x)[K],
                                   double pivmin, int (&count)[K]) {
  double q[K];
  for (int k = 0; k < K; ++k) {
    q[k] = d[0] - x[k];
    if (std::fabs(q[k]) < pivmin) q[k] = -pivmin;
    count[k] = q[k] <= 0.0;
  }
  for (int64_t j = 1; j < n; ++j) {
    const double dj = d[j], ej = e2[j - 1];
    for (int k = 0; k < K; ++k) {
      q[k] = dj - ej / q[k] - x[k];
      if (std::fabs(q[k]) < pivmin) q[k] = -pivmin;
      count[k] += q[k] <= 0.0;
    }
  }
}

GPUEIG_HD inline int sturm_count(const double *d, const double *e2, int64_t n, double x,
                                 double pivmin) {
  const double xs[1] = {x};
  int c[1];
  sturm_counts<1>(d, e2, n, xs, pivmin, c);
  return c[0];
}

}  // namespace gpueig
