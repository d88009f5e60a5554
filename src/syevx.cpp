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
#include "device_call.hpp"
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

// DSYEVX's checks, in its order (the first arguments of gpu_syevx and gpu_syevx_dev): 0 or -i.
int syevx_arguments(char jobz, char range, char uplo, int n, int lda, double vl, double vu, int il, int iu,
                    int ldz) {
  const bool wantz = gpueig::lsame(jobz, 'V');
  const bool all = gpueig::lsame(range, 'A'), byval = gpueig::lsame(range, 'V'), byidx = gpueig::lsame(range, 'I');
  if (!wantz && !gpueig::lsame(jobz, 'N')) return -1;
  if (!all && !byval && !byidx) return -2;
  if (!gpueig::lsame(uplo, 'U') && !gpueig::lsame(uplo, 'L')) return -3;
  if (n < 0) return -4;
  if (lda < gpueig::max1(n)) return -6;
  if (byval && n > 0 && !(vl < vu)) return -8;  // (also NaN bounds, which LAPACK cannot handle)
  if (byidx && (il < 1 || il > gpueig::max1(n))) return -9;
  if (byidx && (iu < std::min(n, il) || iu > n)) return -10;
  if (ldz < 1 || (wantz && ldz < n)) return -15;
  return 0;
}

// The answers gpu_syevx gives without running a method (options upper case, n >= 1): N = 1, as
// DSYEVX's quick return; an A with a NaN or Inf entry in triangle uplo (nonfinite_answer); (VL, VU]
// collapsing in DSYEVX's scaling (M = 0, where DSYEVX would stop in XERBLA). True with the
// outputs and *info written; false where a method must run.
bool syevx_without_method(char jobz, char range, char uplo, int n, const double *a, int lda, double vl, double vu,
                          int il, int iu, int *m, double *w, double *z, int ldz, int *ifail, int *info) {
  const bool wantz = jobz == 'V', byval = range == 'V';
  *info = 0;
  if (n == 1) {
    *m = 0;
    if (!byval || (vl < a[0] && vu >= a[0])) *m = 1, w[0] = a[0];
    if (wantz) z[0] = 1;
    if (wantz && *m == 1) ifail[0] = 0;  // (as documented; DSYEVX's own N = 1 return skips it)
    return true;
  }
  const double amax = gpueig::scaling::triangle_max(uplo, n, a, lda);
  if (!std::isfinite(amax)) return (*info = nonfinite_answer(jobz, range, n, il, iu, m, w, z, ldz, ifail)), true;
  if (byval && gpueig::scaling::dsyevx_collapses(amax, vl, vu)) return (*m = 0), true;
  return false;
}

// gpu_syevx_dev's recompute where the device's method declines (NaN or Inf in A, a check that
// fails, no convergence) and its N = 1: A down, gpu_syevx's CPU path (the answers above, else
// LAPACK DSYEVX), W, Z, IFAIL (M entries each) and INFO up.
gpueig::gpu::Status syevx_on_host(gpueig::gpu::Device &dev, char j, char r, char u, int64_t n, const double *a,
                                  int64_t lda, double vl, double vu, int il, int iu, double abstol, int *m, double *w,
                                  double *z, int64_t ldz, int *ifail, int *info, void *stream) {
  using gpueig::gpu::Status;
  const bool wantz = j == 'V';
  std::vector<double> ha(n * n), hw(n), hz(wantz ? n * n : 1);
  std::vector<int> hif(n, 0);
  Status s = dev.download_matrix(ha.data(), n, a, lda, n, n, stream);
  if (!s) return s;
  int mm = 0, inf = 0;
  const int ni = int(n);
  if (!syevx_without_method(j, r, u, ni, ha.data(), ni, vl, vu, il, iu, &mm, hw.data(), hz.data(), ni, hif.data(),
                            &inf))
    inf = gpueig::cpu::syevx(j, r, u, ni, ha.data(), ni, vl, vu, il, iu, abstol, &mm, hw.data(), hz.data(), ni,
                             hif.data());
  if (inf < 0)
    return Status::fail(Status::device_error,
                        inf == GPUEIG_ERR_LAPACK ? "no LAPACK for the host recompute" : "the host recompute failed");
  if (mm > 0) s = dev.upload_matrix(w, n, hw.data(), n, mm, 1, stream);
  if (s && wantz && mm > 0) s = dev.upload_matrix(z, ldz, hz.data(), n, n, mm, stream);
  if (s && wantz && mm > 0) s = dev.upload_arrays({{ifail, hif.data(), mm * sizeof(int)}}, stream);
  if (s) s = dev.upload_arrays({{info, &inf, sizeof(int)}}, stream);
  if (s) *m = mm;
  return s;
}

}  // namespace

extern "C" int gpu_syevx_dev(char jobz, char range, char uplo, int n, double *a, int lda, double vl, double vu,
                             int il, int iu, double abstol, int *m, double *w, double *z, int ldz, int *ifail,
                             int *info, void *stream) {
  using namespace gpueig;
  return guarded([&] {
    CallRecord call(Routine::syevx, sizes({{"n", n}}));
    if (const int bad = syevx_arguments(jobz, range, uplo, n, lda, vl, vu, il, iu, ldz)) return bad;
    if (!m) return -12;
    const char j = lsame(jobz, 'V') ? 'V' : 'N', u = lsame(uplo, 'U') ? 'U' : 'L';
    const char r = lsame(range, 'A') ? 'A' : lsame(range, 'V') ? 'V' : 'I';
    const bool some = n > 0, vectors = some && j == 'V';
    return run_on_device(call, {{5, a, some}, {13, w, some}, {14, z, vectors}, {16, ifail, vectors}, {17, info, true}},
                         18, stream, [&](gpu::Device &dev) {
                           *m = 0;
                           if (!some) return dev.zero_info(info, stream);
                           if (n > 1) {
                             gpu::Status s = dev.syevx_dev(j, r, u, n, a, lda, vl, vu, il, iu, abstol, m, w, z,
                                                           ldz, ifail, info, stream);
                             if (s.code != gpu::Status::unsafe) return s;
                           }
                           return syevx_on_host(dev, j, r, u, n, a, lda, vl, vu, il, iu, abstol, m, w, z, ldz,
                                                ifail, info, stream);
                         });
  });
}

extern "C" int gpu_syevx(char jobz, char range, char uplo, int n, double *a, int lda, double vl,
                         double vu, int il, int iu, double abstol, int *m, double *w, double *z,
                         int ldz, int *ifail) {
  using namespace gpueig;
  return guarded([&] {
    CallRecord call(Routine::syevx, sizes({{"n", n}}));
    if (const int bad = syevx_arguments(jobz, range, uplo, n, lda, vl, vu, il, iu, ldz)) return bad;
    if (n == 0) return *m = 0;  // quick return, as DSYEVX's

    const bool wantz = lsame(jobz, 'V');
    const char j = wantz ? 'V' : 'N', u = lsame(uplo, 'U') ? 'U' : 'L';
    const char r = lsame(range, 'A') ? 'A' : lsame(range, 'V') ? 'V' : 'I';
    int special = 0;
    if (syevx_without_method(j, r, u, n, a, lda, vl, vu, il, iu, m, w, z, ldz, ifail, &special)) return special;

    const bool whole = r == 'A' || (r == 'I' && il == 1 && iu == n);
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
