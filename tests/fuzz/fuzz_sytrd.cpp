// gpu_sytrd_givens(vect, uplo, n, a, lda, d, e, q, ldq): A (LDA, N), D (N), E (N-1),
// Q (LDQ, N) for VECT = 'V' or 'U', not referenced (nullptr here) for VECT = 'N'.
// Properties: the argument check (-1 VECT, -2 UPLO, -3 N, -5 LDA, -9 LDQ) with nothing written;
// INFO 0 otherwise; rows N+1..LDA of A and Q never written; for a moderately scaled finite A:
// D, E finite, trace(T) = trace(A), and Q orthogonal for VECT = 'V' (Q_in orthogonal => Q too for
// 'U' is not checked: Q_in is arbitrary).
#include "fuzz_common.hpp"

using namespace fuzz;

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  set_up_environment();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Input in(data, size);
  const char *policy = choose_policy(in);
  const char vect = in.option("NVU"), uplo = in.option("UL");
  const int n = in.size(), lda = in.ld(n), ldq = in.ld(n);
  const bool wantq = lsame(vect, 'V') || lsame(vect, 'U');

  Buf<double> a("A", elems(lda, n)), d("D", elems(n)), e("E", elems_m1(n));
  Buf<double> q("Q", wantq ? elems(ldq, n) : 0);
  fill(in, a), fill(in, d), fill(in, e), fill(in, q);
  const auto a0 = a.snapshot(), d0 = d.snapshot(), e0 = e.snapshot(), q0 = q.snapshot();

  int expected = 0;
  if (!wantq && !lsame(vect, 'N')) expected = -1;
  else if (!lsame(uplo, 'U') && !lsame(uplo, 'L')) expected = -2;
  else if (n < 0) expected = -3;
  else if (lda < max1(n)) expected = -5;
  else if (ldq < 1 || (wantq && ldq < max1(n))) expected = -9;

  reset_xerbla();
  const int info = gpu_sytrd_givens(vect, uplo, n, a.data(), lda, d.data(), e.data(),
                                    wantq ? q.data() : nullptr, ldq);
  check_no_xerbla("gpu_sytrd_givens");
  check_info("gpu_sytrd_givens", info, expected, 0, 0, policy);
  check_backend("gpu_sytrd_givens", info, n == 0, policy);
  a.check(), d.check(), e.check(), q.check();
  if (expected < 0 || n == 0) {
    FUZZ_CHECK(a.same_as(a0) && d.same_as(d0) && e.same_as(e0) && q.same_as(q0),
               "gpu_sytrd_givens wrote an array with INFO %d", info);
    return 0;
  }
  for (int j = 0; j < n; ++j)
    for (int i = n; i < lda; ++i)
      FUZZ_CHECK(std::memcmp(&a[size_t(j) * lda + i], &a0[size_t(j) * lda + i], 8) == 0,
                 "gpu_sytrd_givens wrote A(%d,%d) below row N = %d (LDA %d)", i + 1, j + 1, n, lda);
  if (wantq)
    for (int j = 0; j < n; ++j)
      for (int i = n; i < ldq; ++i)
        FUZZ_CHECK(std::memcmp(&q[size_t(j) * ldq + i], &q0[size_t(j) * ldq + i], 8) == 0,
                   "gpu_sytrd_givens wrote Q(%d,%d) below row N = %d (LDQ %d)", i + 1, j + 1, n, ldq);
  if (info != 0) return 0;

  // A moderately scaled finite triangle: T must be finite with A's trace; Q ('V') orthogonal.
  const bool upper = lsame(uplo, 'U');
  double trace = 0, norm2 = 0;
  for (int j = 0; j < n; ++j)
    for (int i = upper ? 0 : j; i <= (upper ? j : n - 1); ++i) {
      const double x = a0[size_t(j) * lda + i];
      if (!std::isfinite(x) || (x != 0 && (std::fabs(x) > 1e100 || std::fabs(x) < 1e-100))) return 0;
      norm2 += (i == j ? 1 : 2) * x * x;
      if (i == j) trace += x;
    }
  const double norm = std::sqrt(norm2), eps = DBL_EPSILON;
  FUZZ_CHECK(all_finite(d.data(), n) && all_finite(e.data(), n - 1), "gpu_sytrd_givens: T not finite for a finite A (n=%d policy %s)", n, policy);
  double tt = 0;
  for (int i = 0; i < n; ++i) tt += d[i];
  FUZZ_CHECK(std::fabs(tt - trace) <= 64.0 * n * eps * norm, "gpu_sytrd_givens: trace(T) %.17g, trace(A) %.17g (n=%d policy %s)",
             tt, trace, n, policy);
  if (lsame(vect, 'V')) {
    double worst = 0;
    for (int i = 0; i < n; ++i)
      for (int j = 0; j <= i; ++j) {
        double s = 0;
        for (int k = 0; k < n; ++k) s += q[size_t(i) * ldq + k] * q[size_t(j) * ldq + k];
        worst = std::max(worst, std::fabs(s - (i == j ? 1.0 : 0.0)));
      }
    FUZZ_CHECK(worst <= 64.0 * n * eps, "gpu_sytrd_givens: Q'Q - I = %.3g (n=%d policy %s)", worst, n, policy);
  }
  return 0;
}
