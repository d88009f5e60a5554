// gpu_toeplitz_eig: argument checks, dispatch, and the CPU path.
//
// A real symmetric Toeplitz matrix T commutes with the exchange matrix J, so its eigenvectors can
// be chosen symmetric (Jx = x) or skew-symmetric (Jx = -x). With k = floor(n/2), the Hankel part
// H(i,j) = t(n-1-i-j) and the leading Toeplitz block A(i,j) = t(|i-j|), i, j < k:
//   skew  vectors x = [u; (0); -Ju]/sqrt2 :  (A - H) u = lambda u           (size k)
//   symm. vectors x = [u; Ju]/sqrt2       :  (A + H) u = lambda u           (n even, size k)
//                 x = [u/sqrt2; b; Ju/sqrt2] : [[A + H, sqrt2 a], [sqrt2 a', t0]] (n odd, size k+1,
//                                             a(i) = t(k-i))
// Both halves are solved with LAPACK (DSYEVD for all eigenvalues, DSYEVR for a range) and the
// spectra merged: about a quarter of the dense work.
#include <algorithm>
#include <climits>
#include <cmath>
#include <limits>
#include <new>
#include <vector>

#include "checks.hpp"
#include "dispatch.hpp"
#include "gpueig.h"
#include "lapack.hpp"
#include "lapack_workspace.hpp"

namespace gpueig {
namespace {

struct Half {
  int64_t size = 0;
  std::vector<double> h;  // size x size, column-major, full symmetric
  std::vector<double> w;  // eigenvalues found
  std::vector<double> z;  // size x m eigenvectors (JOBZ = 'V')
  int m = 0;
};

// The symmetric (sign = +1) or skew-symmetric (sign = -1) half block.
void build_half(int64_t n, const double *t, int sign, Half &hb) {
  const int64_t k = n / 2;
  const bool middle = (sign > 0) && (n % 2 == 1);
  hb.size = k + (middle ? 1 : 0);
  hb.h.assign(hb.size * hb.size, 0.0);
  for (int64_t j = 0; j < k; ++j)
    for (int64_t i = 0; i < k; ++i)
      hb.h[i + j * hb.size] = t[i > j ? i - j : j - i] + sign * t[n - 1 - i - j];
  if (middle) {
    const double r2 = std::sqrt(2.0);
    for (int64_t i = 0; i < k; ++i) {
      hb.h[i + k * hb.size] = r2 * t[k - i];
      hb.h[k + i * hb.size] = r2 * t[k - i];
    }
    hb.h[k + k * hb.size] = t[0];
  }
}

// An inner LAPACK call that rejects its arguments is a defect of this library, never the caller's
// illegal argument: it is reported as GPUEIG_ERR_INTERNAL.
int inner(int info) { return info < 0 ? GPUEIG_ERR_INTERNAL : info; }

// All eigenvalues (and vectors) of a half block by DSYEVD: divide and conquer (QR for values
// only), whose eigenvectors are orthogonal to about one ulp where MRRR's (DSYEVR) reach ratios
// near 20 against LAPACK's threshold of 30. Returns false, doing nothing, when DSYEVD's
// workspace does not fit LP64's INTEGER (vectors of a half of order 32767 or more).
bool solve_half_dsyevd(const lapack::Table &L, char jobz, Half &hb, int &info) {
  const bool wantz = lsame(jobz, 'V');
  int n = static_cast<int>(hb.size), lda = n, query_lwork = -1, query_liwork = -1, iquery = 0;
  if (lapack::dsyevd_lwork_min(wantz, n) > INT_MAX) return false;
  double query = 0;
  L.dsyevd(&jobz, "L", &n, hb.h.data(), &lda, hb.w.data(), &query, &query_lwork, &iquery,
           &query_liwork, &info, 1, 1);
  if (info != 0) return true;
  const int64_t lwork = lapack::workspace_length(query, lapack::dsyevd_lwork_min(wantz, n));
  const int64_t liwork = lapack::workspace_length(iquery, lapack::dsyevd_liwork_min(wantz, n));
  if (lwork < 0 || liwork < 0) return false;
  std::vector<double> work(lwork);
  std::vector<int> iwork(liwork);
  int lw = static_cast<int>(lwork), liw = static_cast<int>(liwork);
  L.dsyevd(&jobz, "L", &n, hb.h.data(), &lda, hb.w.data(), work.data(), &lw, iwork.data(), &liw,
           &info, 1, 1);
  hb.m = info == 0 ? n : 0;
  if (wantz) hb.z = std::move(hb.h);  // DSYEVD returns the vectors in place
  return true;
}

// The eigenvalues of a half block in `range` by DSYEVR (VL, VU already scaled; for RANGE 'I'
// its own first min(IU, size) eigenvalues: the IU smallest eigenvalues of T are among them, and
// the merge picks IL..IU).
int solve_half_dsyevr(const lapack::Table &L, char jobz, char range, double vl, double vu, int iu,
                      double abstol, Half &hb) {
  int n = static_cast<int>(hb.size), lda = n, ldz = n, il = 1, info = 0;
  int iuh = std::min(iu, n), lwork_query = -1, liwork_query = -1, iquery = 0;
  if (lsame(jobz, 'V')) hb.z.assign(hb.size * hb.size, 0.0);
  std::vector<int> isuppz(2 * hb.size);
  double query = 0;
  double *z = hb.z.empty() ? &query : hb.z.data();
  L.dsyevr(&jobz, &range, "L", &n, hb.h.data(), &lda, &vl, &vu, &il, &iuh, &abstol, &hb.m,
           hb.w.data(), z, &ldz, isuppz.data(), &query, &lwork_query, &iquery, &liwork_query,
           &info, 1, 1, 1);
  if (info != 0) return inner(info);
  const int64_t lwork = lapack::workspace_length(query, lapack::dsyevr_lwork_min(n));
  const int64_t liwork = lapack::workspace_length(iquery, lapack::dsyevr_liwork_min(n));
  if (lwork < 0 || liwork < 0) throw std::bad_alloc();  // 26 N > INT_MAX: N is an int, cannot be
  std::vector<double> work(lwork);
  std::vector<int> iwork(liwork);
  int lw = static_cast<int>(lwork), liw = static_cast<int>(liwork);
  L.dsyevr(&jobz, &range, "L", &n, hb.h.data(), &lda, &vl, &vu, &il, &iuh, &abstol, &hb.m,
           hb.w.data(), z, &ldz, isuppz.data(), work.data(), &lw, iwork.data(), &liw, &info, 1,
           1, 1);
  return inner(info);
}

int solve_half(const lapack::Table &L, char jobz, char range, double vl, double vu, int iu,
               double abstol, Half &hb) {
  hb.m = 0;
  if (hb.size == 0) return 0;
  hb.w.assign(hb.size, 0.0);
  if (lsame(range, 'A')) {
    int info = 0;
    if (solve_half_dsyevd(L, jobz, hb, info)) return inner(info);
    // DSYEVD's workspace is beyond an LP64 INTEGER: all of the spectrum by DSYEVR instead.
  }
  return solve_half_dsyevr(L, jobz, range, vl, vu, iu, abstol, hb);
}

// The scaling that keeps the half blocks finite, by a power of two (exact): when max|t| is above
// DSYEVR's RMAX = sqrt(EPS/SAFMIN), T is brought just under it (as DSYEVR scales the dense matrix),
// so that t(i) + t(j) and sqrt(2) t(k) cannot overflow. Small T is left as it is: the half blocks'
// sums of tiny entries are exact, and DSYEVD / DSYEVR scale a block below their RMIN themselves
// (scaling it here as well would only move their rounding). Returns the factor sigma (1 when no
// scaling is needed); the eigenvalues are those of sigma T.
double toeplitz_scale(int64_t n, const double *t) {
  double tmax = 0;
  for (int64_t i = 0; i < n; ++i) tmax = std::max(tmax, std::fabs(t[i]));
  const double eps = std::numeric_limits<double>::epsilon() / 2;  // DLAMCH('E')
  const double rmax = std::sqrt(eps / std::numeric_limits<double>::min());
  if (!(tmax > rmax)) return 1;
  return std::ldexp(1.0, static_cast<int>(std::floor(std::log2(rmax / tmax))));
}

// Column `col` of the half's eigenvectors, lifted to the length-n eigenvector of T.
void lift_vector(int64_t n, int sign, const Half &hb, int64_t col, double *x) {
  const int64_t k = n / 2;
  const double s = 1.0 / std::sqrt(2.0);
  const double *u = hb.z.data() + col * hb.size;
  for (int64_t i = 0; i < k; ++i) {
    x[i] = s * u[i];
    x[n - 1 - i] = sign * s * u[i];
  }
  if (n % 2 == 1) x[k] = (sign > 0) ? u[k] : 0.0;
}

int toeplitz_cpu(char jobz, char range, int n, const double *t, double vl, double vu, int il,
                 int iu, double abstol, int *m, double *w, double *z, int ldz) {
  const lapack::Table *L = lapack::table();
  if (!L) return GPUEIG_ERR_LAPACK;
  // Scale a huge T into the safe range (as DSYEVR scales the dense matrix), and with it VL, VU,
  // ABSTOL.
  const double sigma = toeplitz_scale(n, t);
  std::vector<double> scaled;
  if (sigma != 1) {
    scaled.resize(n);
    for (int i = 0; i < n; ++i) scaled[i] = t[i] * sigma;
    t = scaled.data();
    vl *= sigma;
    vu *= sigma;
    if (abstol > 0) abstol *= sigma;
  }
  if (lsame(range, 'V')) {
    // No eigenvalue of T lies outside [-B, B], B = ||T||_1 <= 2 n max|t|: bounds beyond it (an
    // infinite VL or VU, or one that overflowed in the scaling) are pulled in to 2B, which selects
    // the same eigenvalues and keeps every bound finite inside LAPACK.
    double tmax = 0;
    for (int i = 0; i < n; ++i) tmax = std::max(tmax, std::fabs(t[i]));
    const double b = 4.0 * n * std::max(tmax, std::numeric_limits<double>::min());
    vl = std::clamp(vl, -b, b);
    vu = std::clamp(vu, -b, b);
    if (!(vl < vu)) return 0;  // (VL, VU] lies beyond the spectrum: M = 0
  }
  Half halves[2];
  const int signs[2] = {+1, -1};
  for (int h = 0; h < 2; ++h) {
    build_half(n, t, signs[h], halves[h]);
    int info = solve_half(*L, jobz, range, vl, vu, iu, abstol, halves[h]);
    if (info != 0) return info;
    halves[h].h = {};  // free the block (if DSYEVD did not turn it into Z) before the next one
  }
  // Merge the two ascending lists; ties keep the symmetric half first.
  struct Pick { double value; int half; int col; };
  std::vector<Pick> all;
  for (int h = 0; h < 2; ++h)
    for (int c = 0; c < halves[h].m; ++c) all.push_back({halves[h].w[c], h, c});
  std::stable_sort(all.begin(), all.end(),
                   [](const Pick &a, const Pick &b) { return a.value < b.value; });
  size_t first = 0, last = all.size();
  if (lsame(range, 'I')) {
    first = static_cast<size_t>(il - 1);
    last = static_cast<size_t>(iu);
  }
  *m = static_cast<int>(last - first);
  for (size_t i = first; i < last; ++i) {
    w[i - first] = all[i].value / sigma;  // may overflow to +-Inf, as DSYEVR's unscaling does
    if (lsame(jobz, 'V'))
      lift_vector(n, signs[all[i].half], halves[all[i].half], all[i].col,
                  z + static_cast<int64_t>(i - first) * ldz);
  }
  return 0;
}

}  // namespace
}  // namespace gpueig

extern "C" int gpu_toeplitz_eig(char jobz, char range, int n, const double *t, double vl,
                                double vu, int il, int iu, double abstol, int *m, double *w,
                                double *z, int ldz) {
  using namespace gpueig;
  return guarded([&] {
    CallRecord call(Routine::toeplitz, sizes({{"n", n}}));
    const bool wantz = lsame(jobz, 'V');
    const bool byval = lsame(range, 'V'), byidx = lsame(range, 'I');
    if (!wantz && !lsame(jobz, 'N')) return -1;
    if (!byval && !byidx && !lsame(range, 'A')) return -2;
    if (n < 0) return -3;
    if (!all_finite(t, n)) return -4;
    if (byval && n > 0 && !(vl < vu)) return -6;
    if (byidx && (il < 1 || il > max1(n))) return -7;
    if (byidx && (iu < (n < il ? n : il) || iu > n)) return -8;
    if (ldz < 1 || (wantz && ldz < n)) return -13;
    *m = 0;
    if (n == 0) return 0;

    // No GPU method yet: choose() says so (and honours the policy) for the verbose log.
    Decision how = choose(Routine::toeplitz, n);
    int info;
    try {
      info = toeplitz_cpu(jobz, range, n, t, vl, vu, il, iu, abstol, m, w, z, ldz);
    } catch (...) {
      info = GPUEIG_ERR_MEMORY;  // a half block (or its workspace) cannot be allocated
    }
    call.done(backend_of_cpu_result(info), how.why);
    return info;
  });
}
