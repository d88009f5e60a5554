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
#include <cmath>
#include <vector>

#include "checks.hpp"
#include "dispatch.hpp"
#include "gpueig.h"
#include "lapack.hpp"

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

int solve_half(const lapack::Table &L, char jobz, char range, double vl, double vu, int iu,
               double abstol, Half &hb) {
  hb.m = 0;
  if (hb.size == 0) return 0;
  int n = static_cast<int>(hb.size), lda = n, info = 0;
  hb.w.assign(hb.size, 0.0);
  int lwork = -1, liwork = -1, iquery = 0;
  double query = 0;
  if (lsame(range, 'A')) {
    // Divide and conquer (QR for values only): its eigenvectors are orthogonal to about one ulp,
    // where MRRR's (DSYEVR) reach ratios near 20 against LAPACK's threshold of 30.
    L.dsyevd(&jobz, "L", &n, hb.h.data(), &lda, hb.w.data(), &query, &lwork, &iquery, &liwork,
             &info, 1, 1);
    if (info != 0) return info;
    lwork = std::max(1, static_cast<int>(query));
    liwork = std::max(1, iquery);
    std::vector<double> work(lwork);
    std::vector<int> iwork(liwork);
    L.dsyevd(&jobz, "L", &n, hb.h.data(), &lda, hb.w.data(), work.data(), &lwork, iwork.data(),
             &liwork, &info, 1, 1);
    hb.m = info == 0 ? n : 0;
    if (lsame(jobz, 'V')) hb.z = std::move(hb.h);  // DSYEVD returns the vectors in place
    return info;
  }
  int ldz = n, il = 1;
  // For RANGE 'I' each half contributes its own first min(IU, size) eigenvalues: the IU
  // smallest eigenvalues of T are among them, and the merge picks IL..IU.
  int iuh = std::min(iu, n);
  if (lsame(jobz, 'V')) hb.z.assign(hb.size * hb.size, 0.0);
  std::vector<int> isuppz(2 * hb.size);
  double *z = hb.z.empty() ? &query : hb.z.data();
  L.dsyevr(&jobz, &range, "L", &n, hb.h.data(), &lda, &vl, &vu, &il, &iuh, &abstol, &hb.m,
           hb.w.data(), z, &ldz, isuppz.data(), &query, &lwork, &iquery, &liwork, &info, 1, 1, 1);
  if (info != 0) return info;
  lwork = std::max(1, static_cast<int>(query));
  liwork = std::max(1, iquery);
  std::vector<double> work(lwork);
  std::vector<int> iwork(liwork);
  L.dsyevr(&jobz, &range, "L", &n, hb.h.data(), &lda, &vl, &vu, &il, &iuh, &abstol, &hb.m,
           hb.w.data(), z, &ldz, isuppz.data(), work.data(), &lwork, iwork.data(), &liwork, &info,
           1, 1, 1);
  return info;
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
  try {
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
      w[i - first] = all[i].value;
      if (lsame(jobz, 'V'))
        lift_vector(n, signs[all[i].half], halves[all[i].half], all[i].col,
                    z + static_cast<int64_t>(i - first) * ldz);
    }
    return 0;
  } catch (const std::bad_alloc &) {
    return GPUEIG_ERR_MEMORY;
  }
}

}  // namespace
}  // namespace gpueig

extern "C" int gpu_toeplitz_eig(char jobz, char range, int n, const double *t, double vl,
                                double vu, int il, int iu, double abstol, int *m, double *w,
                                double *z, int ldz) {
  using namespace gpueig;
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

  Decision how = choose(Routine::toeplitz, n);
  int info = toeplitz_cpu(jobz, range, n, t, vl, vu, il, iu, abstol, m, w, z, ldz);
  call.done(Backend::cpu, how.why);
  return info;
}
