// gpu_toeplitz_eig(jobz, range, n, t, vl, vu, il, iu, abstol, m, w, z, ldz): T (N), W (N),
// Z (LDZ, max(1, M)) for JOBZ = 'V' with M's bound known before the call (RANGE 'A': N; 'I':
// IU-IL+1; 'V': N, the upper bound DSYEVR asks callers to supply), not referenced (nullptr here)
// for JOBZ = 'N'.
// Properties: the argument check (-1 JOBZ, -2 RANGE, -3 N, -4 non-finite T, -6 VL < VU when N > 0
// (NaN rejected), -7 IL, -8 IU, -13 LDZ) with nothing written (M included); T never written;
// INFO >= 0 otherwise; M = N for 'A' and IU-IL+1 for 'I' when INFO = 0; W(1..M) ascending and
// never NaN; for a moderately scaled T and ABSTOL <= 0: W agrees with DSYEV on the dense matrix,
// and with JOBZ = 'V' the columns of Z are orthonormal eigenvectors; rows N+1..LDZ never written.
#include "fuzz_common.hpp"

using namespace fuzz;

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  set_up_environment();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Input in(data, size);
  const char *policy = choose_policy(in);
  const char jobz = in.option("NV"), range = in.option("AVI");
  const int n = in.size();
  const double vl = in.dbl(), vu = in.dbl(), abstol = in.dbl();
  const int il = in.index(n), iu = in.index(n);
  const bool wantz = lsame(jobz, 'V'), byval = lsame(range, 'V'), byidx = lsame(range, 'I');
  const int ldz = wantz ? in.ld(n) : (in.flag() ? 1 : in.in(-1, 3));

  // The columns of Z a caller must supply, max(1, M): never more than N (illegal IL, IU: <= N).
  long long cols_ll = n;
  if (byidx) cols_ll = std::min<long long>(static_cast<long long>(iu) - il + 1, n);
  const int cols = static_cast<int>(std::max(cols_ll, 1LL));
  Buf<double> t("T", elems(n)), w("W", elems(n)), z("Z", wantz ? elems(ldz, cols) : 0);
  fill(in, t), fill(in, w), fill(in, z);
  const auto t0 = t.snapshot(), w0 = w.snapshot(), z0 = z.snapshot();

  int expected = 0;
  if (!wantz && !lsame(jobz, 'N')) expected = -1;
  else if (!byval && !byidx && !lsame(range, 'A')) expected = -2;
  else if (n < 0) expected = -3;
  else if (!all_finite(t.data(), n)) expected = -4;
  else if (byval && n > 0 && !(vl < vu)) expected = -6;
  else if (byidx && (il < 1 || il > max1(n))) expected = -7;
  else if (byidx && (iu < std::min(n, il) || iu > n)) expected = -8;
  else if (ldz < 1 || (wantz && ldz < n)) expected = -13;

  if (verbose()) {
    std::fprintf(stderr, "gpu_toeplitz_eig('%c', '%c', n=%d, vl=%.17g, vu=%.17g, il=%d, iu=%d, abstol=%.17g, ldz=%d) policy %s\n",
                 jobz, range, n, vl, vu, il, iu, abstol, ldz, policy);
    dump("T", t.data(), t.size());
  }
  int m = kUnwritten;
  reset_xerbla();
  const int info = gpu_toeplitz_eig(jobz, range, n, t.data(), vl, vu, il, iu, abstol, &m, w.data(),
                                    wantz ? z.data() : nullptr, ldz);
  check_no_xerbla("gpu_toeplitz_eig");
  check_info("gpu_toeplitz_eig", info, expected, 0, (long long)(n + 1) * (n + 1), policy);
  check_backend("gpu_toeplitz_eig", info, n == 0, policy);
  t.check(), w.check(), z.check();
  FUZZ_CHECK(t.same_as(t0), "gpu_toeplitz_eig changed T");
  if (expected < 0) {
    FUZZ_CHECK(m == kUnwritten && w.same_as(w0) && z.same_as(z0), "gpu_toeplitz_eig wrote an output with INFO %d", info);
    return 0;
  }
  if (info != 0) return 0;
  FUZZ_CHECK(m >= 0 && m <= n, "gpu_toeplitz_eig M = %d outside [0, %d]", m, n);
  if (!byval && !byidx) FUZZ_CHECK(m == n, "gpu_toeplitz_eig RANGE 'A': M = %d, N = %d", m, n);
  if (byidx && n > 0) FUZZ_CHECK(m == iu - il + 1, "gpu_toeplitz_eig RANGE 'I' %d..%d: M = %d", il, iu, m);
  for (int i = 0; i < m; ++i) FUZZ_CHECK(!std::isnan(w[i]), "gpu_toeplitz_eig W(%d) is NaN (n=%d)", i + 1, n);
  for (int i = 0; i + 1 < m; ++i)
    FUZZ_CHECK(w[i] <= w[i + 1], "gpu_toeplitz_eig W not ascending: W(%d) = %.17g > W(%d) = %.17g (n=%d policy %s)",
               i + 1, w[i], i + 2, w[i + 1], n, policy);
  if (wantz)
    for (int j = 0; j < cols; ++j)
      for (int i = n; i < ldz; ++i)
        FUZZ_CHECK(std::memcmp(&z[size_t(j) * ldz + i], &z0[size_t(j) * ldz + i], 8) == 0,
                   "gpu_toeplitz_eig wrote Z(%d,%d) below row N = %d (LDZ %d)", i + 1, j + 1, n, ldz);

  // Accuracy against DSYEV on the dense matrix, where the scale is moderate and ABSTOL default.
  if (n == 0 || !(abstol <= 0)) return 0;
  double tmax = 0;
  for (int i = 0; i < n; ++i) {
    const double x = std::fabs(t0[i]);
    if (x != 0 && (x > 1e100 || x < 1e-100)) return 0;
    tmax = std::max(tmax, x);
  }
  using dsyev_t = void (*)(const char *, const char *, const int *, double *, const int *, double *,
                           double *, const int *, int *, size_t, size_t);
  static const auto dsyev = reinterpret_cast<dsyev_t>(real_lapack("dsyev_"));
  std::vector<double> dense(size_t(n) * n), ref(n), work(size_t(3) * n + 64);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) dense[size_t(j) * n + i] = t0[i > j ? i - j : j - i];
  int lwork = static_cast<int>(work.size()), rinfo = 0;
  const std::vector<double> dense0 = dense;
  dsyev("N", "L", &n, dense.data(), &n, ref.data(), work.data(), &lwork, &rinfo, 1, 1);
  if (rinfo != 0) return 0;
  const double norm = std::max(std::fabs(ref[0]), std::fabs(ref[n - 1]));
  const double tol = 64.0 * n * DBL_EPSILON * norm + 4 * DBL_MIN;
  int first = 0;
  if (byidx) first = il - 1;
  if (byval) {  // the DSYEV eigenvalues clearly inside (VL, VU] must all be found
    int inside = 0, surely = 0;
    for (int i = 0; i < n; ++i) {
      if (ref[i] > vl && ref[i] <= vu) ++inside;
      if (ref[i] > vl + tol && ref[i] <= vu - tol) ++surely;
    }
    FUZZ_CHECK(m >= surely && m <= n, "gpu_toeplitz_eig RANGE 'V' (%.17g, %.17g]: M = %d, DSYEV has %d inside (n=%d policy %s)",
               vl, vu, m, inside, n, policy);
    return 0;
  }
  for (int i = 0; i < m; ++i)
    FUZZ_CHECK(std::fabs(w[i] - ref[first + i]) <= tol,
               "gpu_toeplitz_eig W(%d) = %.17g, DSYEV's %.17g (n=%d JOBZ=%c RANGE=%c policy %s, tol %.3g)",
               i + 1, w[i], ref[first + i], n, jobz, range, policy, tol);
  if (!wantz) return 0;
  // Orthonormal eigenvectors: |Z'Z - I| and |T z - w z| small.
  double orth = 0, res = 0;
  for (int a = 0; a < m; ++a) {
    const double *za = &z[size_t(a) * ldz];
    for (int b = 0; b <= a; ++b) {
      const double *zb = &z[size_t(b) * ldz];
      double s = 0;
      for (int k = 0; k < n; ++k) s += za[k] * zb[k];
      orth = std::max(orth, std::fabs(s - (a == b ? 1.0 : 0.0)));
    }
    for (int i = 0; i < n; ++i) {
      double s = -w[a] * za[i];
      for (int k = 0; k < n; ++k) s += dense0[size_t(k) * n + i] * za[k];
      res = std::max(res, std::fabs(s));
    }
  }
  FUZZ_CHECK(orth <= 64.0 * n * DBL_EPSILON, "gpu_toeplitz_eig Z'Z - I = %.3g (n=%d)", orth, n);
  FUZZ_CHECK(res <= 64.0 * n * DBL_EPSILON * std::max(norm, tmax) + 4 * DBL_MIN,
             "gpu_toeplitz_eig |T z - w z| = %.3g, |T| ~ %.3g (n=%d)", res, norm, n);
  return 0;
}
