// gpu_syevx: argument checks, dispatch, and the CPU path (LAPACK DSYEVX). The GPU half: the whole
// spectrum by gpu_syevd's method, a subset by cuda/syevx_host.cu (the reduction with Q, bisection,
// inverse iteration on T in device memory, Q Z).
#include <algorithm>
#include <climits>
#include <cmath>
#include <limits>
#include <new>
#include <vector>

#include "checks.hpp"
#include "cpu_paths.hpp"
#include "dispatch.hpp"
#include "gpu_backend.hpp"
#include "gpueig.h"
#include "lapack.hpp"
#include "lapack_workspace.hpp"
#include "scaling.hpp"

namespace gpueig::cpu {

int syevx(char jobz, char range, char uplo, int n, double *a, int lda, double vl, double vu, int il,
          int iu, double abstol, int *m, double *w, double *z, int ldz, int *ifail) {
  const lapack::Table *L = lapack::table();
  if (!L) return GPUEIG_ERR_LAPACK;
  try {
    int query_lwork = -1, info = 0;
    double query = 0;
    // IWORK with a spare leading entry: DSYEVX's IBLOCK starts IWORK, and DSTEBZ writes
    // IBLOCK(0) for RANGE 'I' when its Gershgorin interval overflows (a LAPACK defect).
    std::vector<int> iwork_spare(5 * static_cast<size_t>(n) + 1);
    int *iwork = iwork_spare.data() + 1;
    L->dsyevx(&jobz, &range, &uplo, &n, a, &lda, &vl, &vu, &il, &iu, &abstol, m, w, z, &ldz, &query,
              &query_lwork, iwork, ifail, &info, 1, 1, 1);
    if (info != 0) return GPUEIG_ERR_INTERNAL;
    // DSYEVX's minimum LWORK: max(1, 8 N)
    const int64_t lwork = lapack::workspace_length(query, std::max<int64_t>(1, 8 * int64_t(n)));
    if (lwork < 0) return GPUEIG_ERR_MEMORY;
    std::vector<double> work(lwork);
    int lw = static_cast<int>(lwork);
    L->dsyevx(&jobz, &range, &uplo, &n, a, &lda, &vl, &vu, &il, &iu, &abstol, m, w, z, &ldz,
              work.data(), &lw, iwork, ifail, &info, 1, 1, 1);
    return info < 0 ? GPUEIG_ERR_INTERNAL : info;
  } catch (const std::bad_alloc &) {
    return GPUEIG_ERR_MEMORY;
  }
}

}  // namespace gpueig::cpu

namespace {

// Whether DSYEVX would scale A (anrm: the largest |entry| of its triangle, finite; outside
// [RMIN, RMAX]) and VL, VU with it so far that VL*SIGMA < VU*SIGMA no longer holds: its inner DSTEBZ would then
// reject the interval through XERBLA (which stops a program linked with Reference LAPACK).
// Replicates DSYEVX's ISCALE test (as src/toeplitz.cpp's dsyevr_collapses does DSYEVR's).
bool dsyevx_collapses(double anrm, double vl, double vu) {
  const double safmin = std::numeric_limits<double>::min(), eps = std::numeric_limits<double>::epsilon();
  const double smlnum = safmin / eps, bignum = 1 / smlnum;
  const double rmin = std::sqrt(smlnum), rmax = std::min(std::sqrt(bignum), 1 / std::sqrt(std::sqrt(safmin)));
  double sigma = 1;
  if (anrm > 0 && anrm < rmin) sigma = rmin / anrm;
  else if (anrm > rmax) sigma = rmax / anrm;
  return sigma != 1 && !(vl * sigma < vu * sigma);
}

// The answer for an A with a NaN or Inf entry in triangle uplo, whose eigenvalues are taken to be
// NaN: RANGE 'A' and 'I' return them (W(1..M) and Z's M columns NaN), RANGE 'V' finds none in
// (VL, VU]. DSYEVX cannot be given such an A: DSTEQR fails on it, and the bisection DSYEVX then
// falls back to leaves DSTEIN an IBLOCK it rejects through XERBLA (found by fuzz_symmetric).
int nonfinite_answer(char jobz, char range, int n, int il, int iu, int *m, double *w, double *z, int ldz,
                     int *ifail) {
  *m = gpueig::lsame(range, 'A') ? n : gpueig::lsame(range, 'I') ? iu - il + 1 : 0;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::fill_n(w, *m, nan);
  if (gpueig::lsame(jobz, 'V')) {
    for (int64_t j = 0; j < *m; ++j) std::fill_n(z + j * int64_t(ldz), n, nan);
    std::fill_n(ifail, *m, 0);
  }
  return 0;
}

// All of the spectrum on the GPU by gpu_syevd's method: the eigenvectors land in A (lda) and are
// copied into Z (DSYEVX leaves A destroyed; here it holds the vectors too).
gpueig::gpu::Status all_by_divide_and_conquer(char jobz, char uplo, int n, double *a, int lda,
                                              int *m, double *w, double *z, int ldz) {
  gpueig::gpu::Status s = gpueig::gpu::device().syevd(jobz, uplo, n, a, lda, w);
  if (!s) return s;
  if (jobz == 'V')
    for (int64_t j = 0; j < n; ++j) std::copy_n(a + j * int64_t(lda), n, z + j * int64_t(ldz));
  *m = n;
  return s;
}

}  // namespace

extern "C" int gpu_syevx(char jobz, char range, char uplo, int n, double *a, int lda, double vl,
                         double vu, int il, int iu, double abstol, int *m, double *w, double *z,
                         int ldz, int *ifail) {
  using namespace gpueig;
  return guarded([&] {
    CallRecord call(Routine::syevx, sizes({{"n", n}}));
    // DSYEVX's checks, in its order.
    const bool wantz = lsame(jobz, 'V');
    const bool all = lsame(range, 'A'), byval = lsame(range, 'V'), byidx = lsame(range, 'I');
    if (!wantz && !lsame(jobz, 'N')) return -1;
    if (!all && !byval && !byidx) return -2;
    if (!lsame(uplo, 'U') && !lsame(uplo, 'L')) return -3;
    if (n < 0) return -4;
    if (lda < max1(n)) return -6;
    if (byval && n > 0 && !(vl < vu)) return -8;  // (also NaN bounds, which LAPACK cannot handle)
    if (byidx && (il < 1 || il > max1(n))) return -9;
    if (byidx && (iu < std::min(n, il) || iu > n)) return -10;
    if (ldz < 1 || (wantz && ldz < n)) return -15;

    // Quick returns, as DSYEVX's.
    if (n == 0) return *m = 0;
    if (n == 1) {
      *m = 0;
      if (!byval || (vl < a[0] && vu >= a[0])) *m = 1, w[0] = a[0];
      if (wantz) z[0] = 1;
      if (wantz && *m == 1) ifail[0] = 0;  // (as documented; DSYEVX's own N = 1 return skips it)
      return 0;
    }

    // A with a NaN or Inf entry: NaN eigenvalues, computed by neither backend. (VL, VU] narrower
    // than the scaled matrix resolves: nothing in it, where DSYEVX would stop in XERBLA.
    const double amax = scaling::triangle_max(uplo, n, a, lda);
    if (!std::isfinite(amax)) return nonfinite_answer(jobz, range, n, il, iu, m, w, z, ldz, ifail);
    if (byval && dsyevx_collapses(amax, vl, vu)) return *m = 0;

    const char j = wantz ? 'V' : 'N', u = lsame(uplo, 'U') ? 'U' : 'L';
    const char r = all ? 'A' : byval ? 'V' : 'I';
    const bool whole = all || (byidx && il == 1 && iu == n);
    int found = 0;
    const int info = run_dispatched(
        // (the whole spectrum is gpu_syevd's work, and goes by its crossovers)
        call, !whole ? Routine::syevx : wantz ? Routine::syevd : Routine::sytrd, n,
        [&](int &inf) {
          inf = 0;
          return whole ? all_by_divide_and_conquer(j, u, n, a, lda, &found, w, z, ldz)
                       : gpu::device().syevx(j, r, u, n, a, lda, vl, vu, il, iu, abstol, &found, w,
                                             z, ldz);
        },
        [&] {
          return cpu::syevx(j, r, u, n, a, lda, vl, vu, il, iu, abstol, &found, w, z, ldz, ifail);
        });
    if (info >= 0) *m = found;
    // (the GPU half reports no INFO > 0: a vector that does not converge there goes to LAPACK)
    if (info == 0 && wantz && last_backend() == Backend::gpu) std::fill_n(ifail, found, 0);
    return info;
  });
}
