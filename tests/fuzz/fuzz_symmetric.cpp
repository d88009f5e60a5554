// gpu_syevd(jobz, uplo, n, a, lda, w) and gpu_syevx(jobz, range, uplo, n, a, lda, vl, vu, il, iu,
// abstol, m, w, z, ldz, ifail): A (LDA, N), W (N); for gpu_syevx Z (LDZ, max(1, N)) and IFAIL (N)
// for JOBZ = 'V', not referenced (empty, poisoned arrays here) for JOBZ = 'N'.
// Properties: the argument checks of gpu.h in their order with nothing written (M included);
// INFO 0..N otherwise; rows N+1..LDA of A never written, nor (INFO 0, A moderate) Z's rows
// N+1..LDZ or its columns past M;
// M within 0..N (RANGE 'I' with INFO 0: IU-IL+1); for a moderately scaled finite A with INFO 0:
// W ascending and finite, its sum A's trace where all of it is computed, the vectors orthonormal
// (for an ABSTOL within EPS ||A||: DSYEVX's vectors are no better than the eigenvalues it is given).
// And their device twins gpu_syevd_dev and gpu_syevx_dev on the fake device (fuzz_device).
#include <climits>

#include "fuzz_common.hpp"

using namespace fuzz;

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  set_up_environment();
  return 0;
}

namespace {

// Whether triangle uplo of A (lda) is finite and moderately scaled; its trace.
bool moderate(char uplo, int n, const std::vector<double> &a, int lda, double *trace, double *norm) {
  const bool upper = lsame(uplo, 'U');
  double t = 0, n2 = 0;
  for (int j = 0; j < n; ++j)
    for (int i = upper ? 0 : j; i <= (upper ? j : n - 1); ++i) {
      const double x = a[size_t(j) * lda + i];
      if (!std::isfinite(x) || (x != 0 && (std::fabs(x) > 1e100 || std::fabs(x) < 1e-100))) return false;
      n2 += (i == j ? 1 : 2) * x * x;
      if (i == j) t += x;
    }
  *trace = t, *norm = std::sqrt(n2);
  return true;
}

// Whether triangle uplo of A (lda) is free of NaN and Inf.
bool triangle_finite(char uplo, int n, const std::vector<double> &a, int lda) {
  const bool upper = lsame(uplo, 'U');
  for (int j = 0; j < n; ++j)
    for (int i = upper ? 0 : j; i <= (upper ? j : n - 1); ++i)
      if (!std::isfinite(a[size_t(j) * lda + i])) return false;
  return true;
}

// max |Q^T Q - I| over the k columns of q (ldq).
double orthogonality(int n, int k, const double *q, int ldq) {
  double worst = 0;
  for (int i = 0; i < k; ++i)
    for (int j = 0; j <= i; ++j) {
      double s = 0;
      for (int r = 0; r < n; ++r) s += q[size_t(i) * ldq + r] * q[size_t(j) * ldq + r];
      worst = std::max(worst, std::fabs(s - (i == j ? 1.0 : 0.0)));
    }
  return worst;
}

// The orthogonality of LAPACK DSYEVX's own vectors for the same call (the real LAPACK).
double reference_orthogonality(char jobz, char range, char uplo, int n, const std::vector<double> &a0, int lda,
                               double vl, double vu, int il, int iu, double abstol) {
  using dsyevx_t = void (*)(const char *, const char *, const char *, const int *, double *, const int *,
                            const double *, const double *, const int *, const int *, const double *, int *,
                            double *, double *, const int *, double *, const int *, int *, int *, int *, size_t,
                            size_t, size_t);
  static const auto dsyevx = reinterpret_cast<dsyevx_t>(real_lapack("dsyevx_"));
  std::vector<double> a(a0), w(n), z(size_t(n) * n);
  std::vector<int> iwork(5 * size_t(n) + 1), ifail(n);
  int m = 0, info = 0, lwork = -1;
  // The workspace the library's call takes (the queried optimum): DSYTRD's blocking, and so the
  // rounding DSTEIN's vectors inherit, depends on it (found 2026-11-27: n = 46, 24 vectors, the
  // library's call 1.4e-12 from orthogonal, this one with 8 N + 64 of workspace under 3.3e-13).
  double query = 0;
  dsyevx(&jobz, &range, &uplo, &n, a.data(), &lda, &vl, &vu, &il, &iu, &abstol, &m, w.data(), z.data(), &n,
         &query, &lwork, iwork.data() + 1, ifail.data(), &info, 1, 1, 1);
  std::vector<double> work(std::max<size_t>(size_t(query), std::max<size_t>(1, 8 * size_t(n))));
  lwork = static_cast<int>(work.size());
  info = 0;
  dsyevx(&jobz, &range, &uplo, &n, a.data(), &lda, &vl, &vu, &il, &iu, &abstol, &m, w.data(), z.data(), &n,
         work.data(), &lwork, iwork.data() + 1, ifail.data(), &info, 1, 1, 1);
  return info == 0 ? orthogonality(n, m, z.data(), n) : 0.0;
}

void untouched_below(const char *routine, const char *what, const Buf<double> &x, const std::vector<double> &x0,
                     int rows, int ld, int cols) {
  for (int j = 0; j < cols; ++j)
    for (int i = rows; i < ld; ++i)
      FUZZ_CHECK(std::memcmp(&x[size_t(j) * ld + i], &x0[size_t(j) * ld + i], 8) == 0,
                 "%s wrote %s(%d,%d) below row N = %d (LD %d)", routine, what, i + 1, j + 1, rows, ld);
}

void fuzz_syevd(Input &in, const char *policy) {
  const char jobz = in.option("NV"), uplo = in.option("UL");
  const int n = in.size(), lda = in.ld(n);
  Buf<double> a("A", elems(lda, n)), w("W", elems(n));
  fill(in, a), fill(in, w);
  const auto a0 = a.snapshot(), w0 = w.snapshot();
  int expected = 0;
  if (!lsame(jobz, 'N') && !lsame(jobz, 'V')) expected = -1;
  else if (!lsame(uplo, 'U') && !lsame(uplo, 'L')) expected = -2;
  else if (n < 0) expected = -3;
  else if (lda < max1(n)) expected = -5;
  reset_xerbla();
  const int info = gpu_syevd(jobz, uplo, n, a.data(), lda, w.data());
  check_no_xerbla("gpu_syevd");
  // (DSYEVD's INFO for JOBZ 'V' names the failed submatrix: up to N (N + 1) + N)
  check_info("gpu_syevd", info, expected, 0, lsame(jobz, 'V') ? 1LL * n * (n + 1) + n : n, policy);
  check_backend("gpu_syevd", info, n == 0, policy);
  a.check(), w.check();
  if (expected < 0 || n == 0) {
    FUZZ_CHECK(a.same_as(a0) && w.same_as(w0), "gpu_syevd wrote an array with INFO %d", info);
    return;
  }
  untouched_below("gpu_syevd", "A", a, a0, n, lda, n);
  double trace = 0, norm = 0;
  if (info != 0 || !moderate(uplo, n, a0, lda, &trace, &norm)) return;
  const double eps = DBL_EPSILON;
  double sum = 0;
  for (int i = 0; i < n; ++i) {
    FUZZ_CHECK(std::isfinite(w[i]) && (i == 0 || w[i - 1] <= w[i]), "gpu_syevd: W not ascending and finite (n=%d policy %s)", n, policy);
    sum += w[i];
  }
  FUZZ_CHECK(std::fabs(sum - trace) <= 64.0 * n * eps * norm, "gpu_syevd: sum(W) %.17g, trace(A) %.17g (n=%d policy %s)",
             sum, trace, n, policy);
  if (lsame(jobz, 'V'))
    FUZZ_CHECK(orthogonality(n, n, a.data(), lda) <= 64.0 * n * eps, "gpu_syevd: Z not orthogonal (n=%d policy %s)", n, policy);
}

void fuzz_syevx(Input &in, const char *policy) {
  const char jobz = in.option("NV"), range = in.option("AVI"), uplo = in.option("UL");
  const int n = in.size(), lda = in.ld(n), ldz = in.ld(n);
  const double vl = in.dbl(), vu = in.flag() ? vl + in.in(0, 40) / 4.0 : in.dbl(), abstol = in.flag() ? 0 : in.dbl();
  const int il = in.index(n);
  const int iu = in.flag() ? static_cast<int>(std::min<long long>(INT_MAX, std::max<long long>(INT_MIN, 1LL * il + in.in(-1, 8))))
                           : in.index(n);
  const bool wantz = lsame(jobz, 'V');
  Buf<double> a("A", elems(lda, n)), w("W", elems(n)), z("Z", wantz ? elems(ldz, n > 0 ? n : 1) : 0);
  Buf<int> ifail("IFAIL", wantz ? elems(n) : 0);
  fill(in, a), fill(in, w), fill(in, z), fill(in, ifail);
  const auto a0 = a.snapshot(), w0 = w.snapshot(), z0 = z.snapshot();
  const auto f0 = ifail.snapshot();
  const bool byval = lsame(range, 'V'), byidx = lsame(range, 'I');
  int expected = 0;
  if (!wantz && !lsame(jobz, 'N')) expected = -1;
  else if (!lsame(range, 'A') && !byval && !byidx) expected = -2;
  else if (!lsame(uplo, 'U') && !lsame(uplo, 'L')) expected = -3;
  else if (n < 0) expected = -4;
  else if (lda < max1(n)) expected = -6;
  else if (byval && n > 0 && !(vl < vu)) expected = -8;
  else if (byidx && (il < 1 || il > max1(n))) expected = -9;
  else if (byidx && (iu < std::min(n, il) || iu > n)) expected = -10;
  else if (ldz < 1 || (wantz && ldz < n)) expected = -15;
  if (verbose())
    std::fprintf(stderr, "gpu_syevx jobz %c range %c uplo %c n %d lda %d vl %g vu %g il %d iu %d abstol %g ldz %d\n",
                 jobz, range, uplo, n, lda, vl, vu, il, iu, abstol, ldz);
  int m = kUnwritten;
  reset_xerbla();
  const int info = gpu_syevx(jobz, range, uplo, n, a.data(), lda, vl, vu, il, iu, abstol, &m, w.data(),
                             z.data(), ldz, ifail.data());
  check_no_xerbla("gpu_syevx");
  check_info("gpu_syevx", info, expected, 0, n, policy);
  // (RANGE 'V' with M = 0 may be the quick return of a collapsed interval: either backend name;
  // a non-finite triangle is answered, NaN, without either backend)
  const bool finite = expected != 0 || triangle_finite(uplo, n, a0, lda);  // (valid N, LDA only)
  if (!(byval && m == 0)) check_backend("gpu_syevx", info, n <= 1 || !finite, policy);
  a.check(), w.check(), z.check(), ifail.check();
  if (expected < 0 || is_lib_error(info)) {
    FUZZ_CHECK(m == kUnwritten, "gpu_syevx wrote M with INFO %d", info);
    if (expected < 0)
      FUZZ_CHECK(a.same_as(a0) && w.same_as(w0) && z.same_as(z0) && ifail.same_as(f0),
                 "gpu_syevx wrote an array with INFO %d", info);
    return;
  }
  FUZZ_CHECK(m >= 0 && m <= n, "gpu_syevx: M = %d outside 0..N = %d", m, n);
  if (!finite && expected == 0 && n > 1) {
    FUZZ_CHECK(info == 0 && m == (lsame(range, 'A') ? n : byidx ? iu - il + 1 : 0),
               "gpu_syevx on a non-finite A: INFO %d, M %d", info, m);
    for (int i = 0; i < m; ++i) FUZZ_CHECK(std::isnan(w[i]), "gpu_syevx on a non-finite A: W(%d) = %g", i + 1, w[i]);
  }
  untouched_below("gpu_syevx", "A", a, a0, n, lda, n);
  double trace = 0, norm = 0;
  if (info != 0 || !moderate(uplo, n, a0, lda, &trace, &norm)) return;
  // (with INFO > 0, or for a non-finite A, DSYEVX may have used all of Z as workspace)
  if (wantz) {
    untouched_below("gpu_syevx", "Z", z, z0, n, ldz, std::max(m, 1));
    for (size_t k = size_t(ldz) * std::max(m, 1); k < z.size(); ++k)
      FUZZ_CHECK(std::memcmp(&z[k], &z0[k], 8) == 0, "gpu_syevx wrote Z past column M = %d", m);
  }
  if (byidx) FUZZ_CHECK(m == iu - il + 1, "gpu_syevx: M = %d for IL = %d, IU = %d", m, il, iu);
  const double eps = DBL_EPSILON;
  if (abstol > eps * norm) return;  // (eigenvalues only to ABSTOL, and DSYEVX's vectors no better)
  double sum = 0;
  for (int i = 0; i < m; ++i) {
    FUZZ_CHECK(std::isfinite(w[i]) && (i == 0 || w[i - 1] <= w[i]), "gpu_syevx: W not ascending and finite (n=%d policy %s)", n, policy);
    sum += w[i];
  }
  if (m == n)
    FUZZ_CHECK(std::fabs(sum - trace) <= 64.0 * n * eps * norm, "gpu_syevx: sum(W) %.17g, trace(A) %.17g (n=%d policy %s)",
               sum, trace, n, policy);
  // (with a large ABSTOL the eigenvalues, and so DSYEVX's own vectors, are only that accurate)
  if (wantz && m > 0) {
    const double orth = orthogonality(n, m, z.data(), ldz);
    // An answer from the CPU path is LAPACK DSYEVX's own: its DSTEIN's vectors for eigenvalues
    // bisected only to ABSTOL are not always that orthogonal (found 2026-11-26: n = 37, ABSTOL 4
    // beside ||A|| ~ 2e16: 0.70); then held to twice what the real DSYEVX gives on the same input
    // (its workspace, and so DSYTRD's blocking and rounding, may differ from the library's call).
    double bound = 64.0 * n * eps;
    if (orth > bound && std::strcmp(gpueig_last_backend(), "cpu") == 0)
      bound = std::max(bound, 2 * reference_orthogonality(jobz, range, uplo, n, a0, lda, vl, vu, il, iu, abstol));
    FUZZ_CHECK(orth <= bound, "gpu_syevx: Z not orthogonal (%g, bound %g; n=%d m=%d policy %s backend %s)",
               orth, bound, n, m, policy, gpueig_last_backend());
    for (int j = 0; j < m; ++j) FUZZ_CHECK(ifail[j] == 0, "gpu_syevx: IFAIL(%d) = %d with INFO 0", j + 1, ifail[j]);
  }
}

// The device twins gpu_syevd_dev and gpu_syevx_dev on the fake device (whose memory is the
// host's): the host calls' argument checks in order (then a NULL M: -12; a NULL INFO: its
// position) with nothing written, M included; otherwise 0, and against the host call with the GPU
// forced on copies of the same arrays: its INFO in the device INFO, the same M, W(1..M), vectors
// (Z's M columns and IFAIL(1..M); syevd's A for JOBZ 'V') bit for bit (both run the device's
// method, or the same CPU path where it declines); A untouched by syevd_dev for JOBZ 'N'.
void fuzz_device(Input &in) {
  const bool x = in.flag();  // gpu_syevx_dev, else gpu_syevd_dev
  const char jobz = in.option("NV"), range = x ? in.option("AVI") : 'A', uplo = in.option("UL");
  const int n = in.size(), lda = in.ld(n), ldz = in.ld(n);
  const double vl = in.dbl(), vu = in.flag() ? vl + in.in(0, 40) / 4.0 : in.dbl(), abstol = in.flag() ? 0 : in.dbl();
  const int il = in.index(n);
  const int iu = in.flag() ? static_cast<int>(std::min<long long>(INT_MAX, std::max<long long>(INT_MIN, 1LL * il + in.in(-1, 8))))
                           : in.index(n);
  const bool null_m = x && in.u8() % 16 == 0, null_info = in.u8() % 16 == 0;
  const bool wantz = lsame(jobz, 'V'), byval = lsame(range, 'V'), byidx = lsame(range, 'I');
  Buf<double> a("A", elems(lda, n)), w("W", elems(n)), z("Z", x && wantz ? elems(ldz, n > 0 ? n : 1) : 0);
  Buf<int> ifail("IFAIL", x && wantz ? elems(n) : 0), dinfo("INFO", 1);
  fill(in, a), fill(in, w), fill(in, z), fill(in, ifail);
  dinfo[0] = kUnwritten;
  const auto a0 = a.snapshot(), w0 = w.snapshot(), z0 = z.snapshot();
  const auto f0 = ifail.snapshot();
  int expected = 0;
  if (!wantz && !lsame(jobz, 'N')) expected = -1;
  else if (x && !lsame(range, 'A') && !byval && !byidx) expected = -2;
  else if (!lsame(uplo, 'U') && !lsame(uplo, 'L')) expected = x ? -3 : -2;
  else if (n < 0) expected = x ? -4 : -3;
  else if (lda < max1(n)) expected = x ? -6 : -5;
  else if (x && byval && n > 0 && !(vl < vu)) expected = -8;
  else if (x && byidx && (il < 1 || il > max1(n))) expected = -9;
  else if (x && byidx && (iu < std::min(n, il) || iu > n)) expected = -10;
  else if (x && (ldz < 1 || (wantz && ldz < n))) expected = -15;
  else if (null_m) expected = -12;
  else if (null_info) expected = x ? -17 : -7;
  const char *name = x ? "gpu_syevx_dev" : "gpu_syevd_dev";
  if (verbose())
    std::fprintf(stderr, "%s jobz %c range %c uplo %c n %d lda %d vl %g vu %g il %d iu %d abstol %g ldz %d\n", name,
                 jobz, range, uplo, n, lda, vl, vu, il, iu, abstol, ldz);

  // The host call on copies, the GPU forced.
  std::vector<double> ha(a0), hw(w0), hz(z0);
  std::vector<int> hf(f0);
  int hm = kUnwritten, hr = 0;
  if (expected == 0) {
    gpueig_set_backend("gpu");
    hr = x ? gpu_syevx(jobz, range, uplo, n, ha.data(), lda, vl, vu, il, iu, abstol, &hm, hw.data(), hz.data(), ldz,
                       hf.data())
           : gpu_syevd(jobz, uplo, n, ha.data(), lda, hw.data());
    gpueig_set_backend("auto");
  }

  int m = kUnwritten;
  reset_xerbla();
  int *info_p = null_info ? nullptr : dinfo.data();
  const int r = x ? gpu_syevx_dev(jobz, range, uplo, n, a.data(), lda, vl, vu, il, iu, abstol, null_m ? nullptr : &m,
                                  w.data(), z.data(), ldz, ifail.data(), info_p, nullptr)
                  : gpu_syevd_dev(jobz, uplo, n, a.data(), lda, w.data(), info_p, nullptr);
  check_no_xerbla(name);
  a.check(), w.check(), z.check(), ifail.check(), dinfo.check();
  FUZZ_CHECK(r == expected, "%s returned %d, the checks documented in gpueig.h give %d", name, r, expected);
  if (expected < 0) {
    FUZZ_CHECK(m == kUnwritten && dinfo[0] == kUnwritten && a.same_as(a0) && w.same_as(w0) && z.same_as(z0) &&
                   ifail.same_as(f0),
               "%s wrote with INFO %d", name, r);
    return;
  }
  if (is_lib_error(hr)) return;
  FUZZ_CHECK(dinfo[0] == hr, "%s: device INFO %d, the host call's %d", name, dinfo[0], hr);
  const int mm = x ? m : n;
  if (x) FUZZ_CHECK(m == hm, "gpu_syevx_dev: M = %d, the host call's %d", m, hm);
  if (mm <= 0 || mm == kUnwritten) return;
  FUZZ_CHECK(std::memcmp(w.data(), hw.data(), size_t(mm) * 8) == 0, "%s: W is not the host call's", name);
  if (!wantz) {
    if (!x) FUZZ_CHECK(a.same_as(a0), "gpu_syevd_dev wrote A for JOBZ 'N'");
    return;
  }
  const double *vec = x ? z.data() : a.data(), *href = x ? hz.data() : ha.data();
  const int ld = x ? ldz : lda;
  for (int j = 0; j < mm; ++j)
    FUZZ_CHECK(std::memcmp(vec + size_t(j) * ld, href + size_t(j) * ld, size_t(n) * 8) == 0,
               "%s: vector %d is not the host call's", name, j + 1);
  if (x) FUZZ_CHECK(std::memcmp(ifail.data(), hf.data(), size_t(mm) * sizeof(int)) == 0,
                    "gpu_syevx_dev: IFAIL is not the host call's");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Input in(data, size);
  const uint8_t which = in.u8();
  const char *policy = choose_policy(in);
  if (which % 4 == 3)
    fuzz_device(in);
  else if (which % 2)
    fuzz_syevx(in, policy);
  else
    fuzz_syevd(in, policy);
  return 0;
}
