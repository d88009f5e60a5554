// gpu_toeplitz_eig: argument checks, dispatch, and the CPU path.
//
// A real symmetric Toeplitz matrix T commutes with the exchange matrix J, so its eigenvectors can
// be chosen symmetric (Jx = x) or skew-symmetric (Jx = -x). With k = floor(n/2), the Hankel part
// H(i,j) = t(n-1-i-j) and the leading Toeplitz block A(i,j) = t(|i-j|), i, j < k:
//   skew  vectors x = [u; (0); -Ju]/sqrt2 :  (A - H) u = lambda u           (size k)
//   symm. vectors x = [u; Ju]/sqrt2       :  (A + H) u = lambda u           (n even, size k)
//                 x = [u/sqrt2; b; Ju/sqrt2] : [[A + H, sqrt2 a], [sqrt2 a', t0]] (n odd, size k+1,
//                                             a(i) = t(k-i))
// Eigenvalues only (JOBZ = 'N'): both halves are reduced to tridiagonal form (DSYTRD on the CPU;
// on the GPU, formed from t and reduced there at once, cuda/toeplitz.cu), their eigenvalues found
// (DSTERF or DSTEBZ; the GPU's bisection) and the two spectra merged; for RANGE 'I' Sturm counts
// on both tridiagonal matrices together first fix how many of the wanted eigenvalues each half
// holds, so no more are computed than returned. With eigenvectors (JOBZ = 'V', on the CPU) each
// half is solved by DSYEVD (all) or DSYEVR (a range) and the vectors lifted to length n. Either
// way about a quarter of the dense work.
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <limits>
#include <functional>
#include <mutex>
#include <new>
#include <string>
#include <thread>
#include <vector>

#include "checks.hpp"
#include "cpu_paths.hpp"
#include "device_call.hpp"
#include "dispatch.hpp"
#include "env.hpp"
#include "gpu_backend.hpp"
#include "gpueig.h"
#include "host_parts.hpp"
#include "lapack.hpp"
#include "scaling.hpp"
#include "lapack_workspace.hpp"
#include "sturm.hpp"
#include "toeplitz_structured.hpp"
#include "tuning.hpp"

namespace gpueig {
namespace {

struct Half {
  int64_t size = 0;
  HostArray h;            // size x size, column-major, full symmetric
  std::vector<double> w;  // eigenvalues found
  HostArray z;            // size x m eigenvectors (JOBZ = 'V')
  int m = 0;
};

// The symmetric (sign = +1) or skew-symmetric (sign = -1) half block, every entry written, its
// columns shared out over threads from 2^20 entries on (memory-bound; the H100 machine's CPU,
// 2026-11-27: 100 ms for each half of n = 8192 on one thread, a quarter of gpu_toeplitz_eig's
// time with vectors).
void build_half(int64_t n, const double *t, int sign, Half &hb) {
  const int64_t k = n / 2;
  const bool middle = (sign > 0) && (n % 2 == 1);
  const int64_t size = k + (middle ? 1 : 0);
  const double r2 = std::sqrt(2.0);
  hb.size = size;
  hb.h.resize(size * size);
  double *h = hb.h.data();
  auto columns = [&](int64_t j0, int64_t j1) {
    for (int64_t j = j0; j < j1; ++j) {
      double *col = h + j * size;
      if (j < k) {
        for (int64_t i = 0; i < k; ++i) col[i] = t[i > j ? i - j : j - i] + sign * t[n - 1 - i - j];
        if (middle) col[k] = r2 * t[k - j];
      } else {  // the middle column (n odd, symmetric half)
        for (int64_t i = 0; i < k; ++i) col[i] = r2 * t[k - i];
        col[k] = t[0];
      }
    }
  };
  const int parts = host_parts(size * size, int64_t(1) << 20);
  run_parts(parts, [&](int p) { columns(size * p / parts, size * (p + 1) / parts); });
}

// An inner LAPACK call that rejects its arguments is a defect of this library, never the caller's
// illegal argument: it is reported as GPUEIG_ERR_INTERNAL.
int inner(int info) { return info < 0 ? GPUEIG_ERR_INTERNAL : info; }

// The eigenpairs of the half blocks (JOBZ = 'V'; eigenvalues alone go through the halves'
// tridiagonal forms below). JOBZ for the LAPACK calls:
constexpr char kVectors = 'V';

// All eigenpairs of a half block by DSYEVD (divide and conquer), whose eigenvectors are
// orthogonal to about one ulp where MRRR's (DSYEVR) reach ratios near 20 against LAPACK's
// threshold of 30. Returns false, doing nothing, when DSYEVD's workspace does not fit LP64's
// INTEGER (a half of order 32767 or more).
// INFO is cpu::syevd's (a library error, or DSYEVD's INFO >= 0).
bool solve_half_dsyevd(Half &hb, int &info) {
  const int n = static_cast<int>(hb.size);
  if (lapack::dsyevd_lwork_min(true, n) > INT_MAX) return false;
  info = cpu::syevd(kVectors, 'L', n, hb.h.data(), n, hb.w.data());
  hb.m = info == 0 ? n : 0;
  hb.z = std::move(hb.h);  // DSYEVD returns the vectors in place
  return true;
}

// Whether DSYEVR would scale this half block (its max |entry| outside [RMIN, RMAX]) and VL, VU
// with it so far that VL*SIGMA < VU*SIGMA no longer holds: its inner DSTEBZ would then reject
// the interval through XERBLA (which stops a program linked with Reference LAPACK). Found by
// fuzzing: T(0) = -DBL_MAX, VL = 0, VU = 1.5e-154. Replicates DSYEVR's ISCALE test.
bool dsyevr_collapses(const Half &hb, double vl, double vu) {
  const double safmin = std::numeric_limits<double>::min();
  const double eps = std::numeric_limits<double>::epsilon();  // DLAMCH('P'), as DSYEVR takes it
  const double smlnum = safmin / eps, bignum = 1 / smlnum;
  const double rmin = std::sqrt(smlnum), rmax = std::min(std::sqrt(bignum), 1 / std::sqrt(std::sqrt(safmin)));
  double anrm = 0;
  for (int64_t j = 0; j < hb.size; ++j)
    for (int64_t i = j; i < hb.size; ++i) anrm = std::max(anrm, std::fabs(hb.h[i + j * hb.size]));
  double sigma = 1;
  if (anrm > 0 && anrm < rmin) sigma = rmin / anrm;
  else if (anrm > rmax) sigma = rmax / anrm;
  return sigma != 1 && !(vl * sigma < vu * sigma);
}

// The eigenpairs of a half block in `range` by DSYEVR (VL, VU already scaled; for RANGE 'I'
// its own first min(IU, size) eigenpairs: the IU smallest eigenvalues of T are among them, and
// the merge picks IL..IU).
int solve_half_dsyevr(const lapack::Table &L, char range, double vl, double vu, int iu,
                      double abstol, Half &hb) {
  int n = static_cast<int>(hb.size), lda = n, ldz = n, il = 1, info = 0;
  if (lsame(range, 'V') && dsyevr_collapses(hb, vl, vu)) {
    hb.m = 0;  // (VL, VU] is narrower than the scaled block resolves: nothing in it
    return 0;
  }
  int iuh = std::min(iu, n), lwork_query = -1, liwork_query = -1, iquery = 0;
  hb.z.assign(hb.size * hb.size, 0.0);
  std::vector<int> isuppz(2 * hb.size);
  double query = 0;
  L.dsyevr(&kVectors, &range, "L", &n, hb.h.data(), &lda, &vl, &vu, &il, &iuh, &abstol, &hb.m,
           hb.w.data(), hb.z.data(), &ldz, isuppz.data(), &query, &lwork_query, &iquery,
           &liwork_query, &info, 1, 1, 1);
  if (info != 0) return inner(info);
  const int64_t lwork = lapack::workspace_length(query, lapack::dsyevr_lwork_min(n));
  const int64_t liwork = lapack::workspace_length(iquery, lapack::dsyevr_liwork_min(n));
  if (lwork < 0 || liwork < 0) throw std::bad_alloc();  // 26 N > INT_MAX: N is an int, cannot be
  std::vector<double> work(lwork);
  std::vector<int> iwork(liwork);
  int lw = static_cast<int>(lwork), liw = static_cast<int>(liwork);
  L.dsyevr(&kVectors, &range, "L", &n, hb.h.data(), &lda, &vl, &vu, &il, &iuh, &abstol, &hb.m,
           hb.w.data(), hb.z.data(), &ldz, isuppz.data(), work.data(), &lw, iwork.data(), &liw,
           &info, 1, 1, 1);
  return inner(info);
}

// ||I - Z'Z||_1 / (size ulp) of the half's hb.m vectors: LAPACK's orthogonality ratio (DSYT22's).
double half_orthogonality(const lapack::Table &L, const Half &hb) {
  if (hb.m == 0) return 0;
  int n = static_cast<int>(hb.size), m = hb.m;
  std::vector<double> g(static_cast<size_t>(m) * m);
  const double one = 1, zero = 0;
  L.dgemm("T", "N", &m, &m, &n, &one, hb.z.data(), &n, hb.z.data(), &n, &zero, g.data(), &m, 1, 1);
  double worst = 0;
  for (int j = 0; j < m; ++j) {
    double col = 0;
    for (int i = 0; i < m; ++i) col += std::fabs((i == j ? 1.0 : 0.0) - g[i + static_cast<size_t>(j) * m]);
    if (!(col <= worst)) worst = col;  // NaN propagates
  }
  return worst / (n * std::numeric_limits<double>::epsilon());
}

// A subset's vectors from DSYEVR (MRRR) above this orthogonality ratio are recomputed by DSYEVD.
// The lifted vectors of T have about half the half block's ratio (T's order is twice the half's),
// so 15 keeps T's ratio near 7.5, a quarter of LAPACK's threshold of 30. MRRR's vectors on tight
// clusters reach it: the prolate matrix of order 127, RANGE 'I', with Reference LAPACK 3.11 and
// minimal workspace gave T a ratio of 30.3 (2026-11-25). GPUEIG_TOEPLITZ_ORTHO_LIMIT (test-only)
// lowers it (0: every subset recomputed, so that the tests reach the recomputation).
double half_orthogonality_limit() {
  static const double limit = static_cast<double>(env::integer("GPUEIG_TOEPLITZ_ORTHO_LIMIT", 15));
  return limit;
}

// A subset (RANGE 'V' or 'I') from all of DSYEVD's eigenpairs, as DSYEVR would have chosen it:
// the eigenvalues in (VL, VU], or the first min(IU, size).
void keep_subset(char range, double vl, double vu, int iu, Half &hb) {
  const int64_t n = hb.size;
  int64_t first = 0, last = std::min<int64_t>(iu, n);  // [first, last)
  if (lsame(range, 'V')) {
    first = std::upper_bound(hb.w.begin(), hb.w.begin() + n, vl) - hb.w.begin();
    last = std::upper_bound(hb.w.begin(), hb.w.begin() + n, vu) - hb.w.begin();
  }
  last = std::max(first, last);
  std::copy(hb.w.begin() + first, hb.w.begin() + last, hb.w.begin());
  std::copy(hb.z.begin() + first * n, hb.z.begin() + last * n, hb.z.begin());
  hb.m = static_cast<int>(last - first);
}

// The eigenpairs of T's half block of `sign` in `range`, the block formed here (from t).
int solve_half(const lapack::Table &L, int64_t n, const double *t, int sign, char range, double vl,
               double vu, int iu, double abstol, Half &hb) {
  build_half(n, t, sign, hb);
  hb.m = 0;
  if (hb.size == 0) return 0;
  hb.w.assign(hb.size, 0.0);
  int info = 0;
  if (lsame(range, 'A') && solve_half_dsyevd(hb, info)) return info;
  // A subset by DSYEVR (or all of it where DSYEVD's workspace is beyond an LP64 INTEGER, and
  // nothing else can). MRRR can lose orthogonality on tight clusters: checked, and recomputed by
  // DSYEVD on the block formed again (DSYEVR overwrote it) where it did.
  info = solve_half_dsyevr(L, range, vl, vu, iu, abstol, hb);
  const double limit = half_orthogonality_limit();
  if (info != 0 || lsame(range, 'A') || (limit > 0 && half_orthogonality(L, hb) <= limit))
    return info;
  build_half(n, t, sign, hb);  // leaves DSYEVR's w, z and m as they are
  // A half of order 32767 or more (T of order 65534 or more with vectors: 34 GB for Z alone):
  // DSYEVD's workspace does not fit LP64, and DSYEVR's vectors are what there is.
  if (!solve_half_dsyevd(hb, info)) return 0;
  if (info != 0) return info;
  keep_subset(range, vl, vu, iu, hb);
  return 0;
}

// DSYEVR's scaling, by a power of two (exact): max|t| above RMAX = sqrt(EPS/SAFMIN) is brought
// just under it, so that the half blocks' t(i) + t(j) and sqrt(2) t(k) cannot overflow; with
// `tiny`, max|t| below RMIN = 1/RMAX is brought just over it, as bisection (DSTEBZ, and the GPU's)
// needs: it treats every off-diagonal below sqrt(SAFMIN) as zero. The dense solvers of the vectors
// path scale a tiny block themselves (scaling it here too would only move their rounding), so
// they get tiny = false. Returns the factor sigma (1: no scaling); the eigenvalues are those of
// sigma T.
double toeplitz_scale(int64_t n, const double *t, bool tiny) {
  double tmax = 0;
  for (int64_t i = 0; i < n; ++i) tmax = std::max(tmax, std::fabs(t[i]));
  const double rmax = std::sqrt(scaling::kEps / scaling::kSafmin), rmin = 1 / rmax;
  return scaling::power_of_two_into(tmax, tiny ? rmin : 0.0, rmax);
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

// The problem as the solvers see it: T scaled as toeplitz_scale says, and VL, VU, ABSTOL with it;
// W is divided by sigma at the end.
struct Problem {
  std::vector<double> scaled;
  const double *t;
  double sigma, vl, vu, abstol;
  bool empty = false;  // RANGE 'V' whose interval lies beyond the spectrum: M = 0
};

Problem prepare(int n, const double *t, char range, double vl, double vu, double abstol,
                bool scale_tiny) {
  Problem p{{}, t, toeplitz_scale(n, t, scale_tiny), vl, vu, abstol};
  if (p.sigma != 1) {
    p.scaled.resize(n);
    for (int i = 0; i < n; ++i) p.scaled[i] = t[i] * p.sigma;
    p.t = p.scaled.data();
    p.vl *= p.sigma;
    p.vu *= p.sigma;
    if (p.abstol > 0) p.abstol *= p.sigma;
  }
  if (lsame(range, 'V')) {
    // No eigenvalue of T lies outside [-B, B], B = ||T||_1 <= 2 n max|t|: bounds beyond it (an
    // infinite VL or VU, or one that overflowed in the scaling) are pulled in to 2B, which selects
    // the same eigenvalues and keeps every bound finite inside LAPACK.
    double tmax = 0;
    for (int i = 0; i < n; ++i) tmax = std::max(tmax, std::fabs(p.t[i]));
    const double b = 4.0 * n * std::max(tmax, std::numeric_limits<double>::min());
    p.vl = std::clamp(p.vl, -b, b);
    p.vu = std::clamp(p.vu, -b, b);
    p.empty = !(p.vl < p.vu);
  }
  return p;
}

// ---- Eigenvectors (JOBZ = 'V'): the dense half blocks by DSYEVD / DSYEVR ---------------------

// Both halves' eigenpairs merged into T's (the two ascending lists, ties keeping the symmetric
// half first), the IL..IU of them for RANGE 'I', the vectors lifted into Z.
int merge_vectors(char range, int n, const Half halves[2], int il, int iu, int *m, double *w,
                  double *z, int ldz) {
  const int signs[2] = {+1, -1};
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
  for (size_t i = first; i < last; ++i) w[i - first] = all[i].value;
  // The lift writes M columns of N: memory-bound, so shared out over up to 8 threads from 2^22
  // entries on (n = 8192, all: about 100 ms on one thread of the H100 machine's CPU); on one
  // thread where none can be had.
  const size_t count = last - first;
  const int parts = host_parts(int64_t(count) * n, int64_t(1) << 22);
  run_parts(parts, [&](int p) {
    for (size_t i = first + count * p / parts; i < first + count * (p + 1) / parts; ++i)
      lift_vector(n, signs[all[i].half], halves[all[i].half], all[i].col,
                  z + static_cast<int64_t>(i - first) * ldz);
  });
  return 0;
}

int vectors_cpu(char range, int n, const Problem &p, int il, int iu, int *m, double *w, double *z,
                int ldz) {
  const lapack::Table *L = lapack::table();
  if (!L) return GPUEIG_ERR_LAPACK;
  Half halves[2];
  const int signs[2] = {+1, -1};
  for (int h = 0; h < 2; ++h) {
    int info = solve_half(*L, n, p.t, signs[h], range, p.vl, p.vu, iu, p.abstol, halves[h]);
    if (info != 0) return info;
    halves[h].h = {};  // free the block (if DSYEVD did not turn it into Z) before the next one
  }
  return merge_vectors(range, n, halves, il, iu, m, w, z, ldz);
}

// The eigenpairs of a half block on the device: all of them by gpu_syevd's method, a subset (its
// own first min(IU, size) for RANGE 'I', those in (VL, VU] for 'V') by gpu_syevx's; an order-1
// block on the host.
gpu::Status solve_half_gpu(int64_t n, const double *t, int sign, char range, double vl, double vu,
                           int iu, double abstol, Half &hb) {
  build_half(n, t, sign, hb);
  hb.m = 0;
  const int64_t size = hb.size;
  if (size == 0) return gpu::Status::success();
  hb.w.assign(size, 0.0);
  if (size == 1) {
    const double x = hb.h[0];
    if (!lsame(range, 'V') || (vl < x && vu >= x)) hb.w[0] = x, hb.z.assign(1, 1.0), hb.m = 1;
    return gpu::Status::success();
  }
  const int top = static_cast<int>(std::min<int64_t>(iu, size));
  if (lsame(range, 'A') || (lsame(range, 'I') && top == size)) {
    gpu::Status s = gpu::device().syevd('V', 'L', size, hb.h.data(), size, hb.w.data());
    if (!s) return s;
    hb.z = std::move(hb.h);
    hb.m = static_cast<int>(size);
    return s;
  }
  hb.z.assign(size * size, 0.0);
  int found = 0;
  gpu::Status s = gpu::device().syevx('V', lsame(range, 'V') ? 'V' : 'I', 'L', size, hb.h.data(), size, vl, vu, 1,
                                      top, abstol, &found, hb.w.data(), hb.z.data(), size);
  if (s) hb.m = found;
  return s;
}

// Both halves at once, the skew-symmetric one in a thread of its own (each half's reduction is
// partly latency-bound, so two of them share the GPU well); one after the other where no thread
// can be had. No exception leaves the thread: it becomes the half's device failure.
gpu::Status vectors_gpu(char range, int n, const Problem &p, int il, int iu, int *m, double *w,
                        double *z, int ldz) {
  Half halves[2];
  gpu::Status st[2];
  auto solve = [&](int h) {
    try {
      st[h] = solve_half_gpu(n, p.t, h == 0 ? +1 : -1, range, p.vl, p.vu, iu, p.abstol, halves[h]);
    } catch (const std::exception &e) {
      st[h] = gpu::Status::fail(gpu::Status::device_error, std::string("exception: ") + e.what());
    } catch (...) {
      st[h] = gpu::Status::fail(gpu::Status::device_error, "exception");
    }
    halves[h].h = {};
  };
  std::thread worker;
  try {
    worker = std::thread(solve, 1);
  } catch (...) {  // no thread: the second half after the first
  }
  solve(0);
  if (worker.joinable())
    worker.join();
  else
    solve(1);
  for (const gpu::Status &s : st)
    if (!s) return s;
  merge_vectors(range, n, halves, il, iu, m, w, z, ldz);
  return gpu::Status::success();
}

// ---- Eigenvalues (JOBZ = 'N'): the two halves' tridiagonal forms ------------------------------

using Tridiagonal = gpu::ToeplitzHalves;  // size, d, e: one half's tridiagonal form

// The halves' tridiagonal forms on the CPU: each block formed and reduced by DSYTRD in turn.
int cpu_tridiagonals(const lapack::Table &L, int n, const double *t, Tridiagonal out[2]) {
  const int signs[2] = {+1, -1};
  for (int h = 0; h < 2; ++h) {
    Half hb;
    build_half(n, t, signs[h], hb);
    Tridiagonal &tr = out[h];
    tr.size = hb.size;
    tr.d.assign(std::max<int64_t>(hb.size, 1), 0.0);
    tr.e.assign(std::max<int64_t>(hb.size - 1, 1), 0.0);
    if (hb.size == 0) continue;
    int k = static_cast<int>(hb.size), lwork = -1, info = 0;
    double query = 0;
    std::vector<double> tau(std::max(k - 1, 1));
    L.dsytrd("L", &k, hb.h.data(), &k, tr.d.data(), tr.e.data(), tau.data(), &query, &lwork,
             &info, 1);
    if (info != 0) return inner(info);
    const int64_t len = lapack::workspace_length(query, 1);
    if (len < 0) throw std::bad_alloc();
    std::vector<double> work(len);
    lwork = static_cast<int>(len);
    L.dsytrd("L", &k, hb.h.data(), &k, tr.d.data(), tr.e.data(), tau.data(), work.data(), &lwork,
             &info, 1);
    if (info != 0) return inner(info);
  }
  return 0;
}

// Number of eigenvalues of the tridiagonal matrix <= x (DLAEBZ's count), and its PIVMIN.
struct Counter {
  std::vector<SturmRow> rows;
  double pivmin = 1;
  explicit Counter(const Tridiagonal &tr) : rows(std::max<int64_t>(tr.size, 1)) {
    double e2max = 0;
    for (int64_t j = 0; j < tr.size; ++j) {
      const double e2 = j > 0 ? tr.e[j - 1] * tr.e[j - 1] : 0.0;
      rows[j] = {tr.d[j], e2};
      e2max = std::max(e2max, e2);
    }
    pivmin = std::numeric_limits<double>::min() * std::max(1.0, e2max);
  }
  int64_t operator()(double x, int64_t size) const {
    return size ? sturm_count(rows.data(), size, x, pivmin) : 0;
  }
};

// How many of the r smallest eigenvalues of T lie in the first half (the rest in the second): by
// bisection on x for a point below which exactly r eigenvalues of the two halves together lie, or,
// in a cluster narrower than rounding, a split of the cluster (its eigenvalues are equal to
// working accuracy, so either half may supply them).
int64_t first_half_share(const Tridiagonal h[2], const Counter c[2], int64_t r) {
  const int64_t total = h[0].size + h[1].size;
  if (r <= 0) return 0;
  if (r >= total) return h[0].size;
  double lo = 0, hi = 0;  // Gershgorin bounds of both halves
  for (int k = 0; k < 2; ++k)
    for (int64_t j = 0; j < h[k].size; ++j) {
      const double off = (j > 0 ? std::fabs(h[k].e[j - 1]) : 0.0) +
                         (j + 1 < h[k].size ? std::fabs(h[k].e[j]) : 0.0);
      lo = std::min(lo, h[k].d[j] - off);
      hi = std::max(hi, h[k].d[j] + off);
    }
  const double pad = 2 * std::numeric_limits<double>::epsilon() * std::max(std::fabs(lo), std::fabs(hi)) +
                     2 * std::max(c[0].pivmin, c[1].pivmin);
  lo -= pad;
  hi += pad;  // N(lo) = 0, N(hi) = total
  for (int it = 0; it < 256; ++it) {  // capped: each step halves (lo, hi] until it cannot
    const double mid = lo + (hi - lo) / 2;
    if (!(mid > lo && mid < hi)) break;
    const int64_t n0 = c[0](mid, h[0].size), n = n0 + c[1](mid, h[1].size);
    if (n == r) return n0;
    (n < r ? lo : hi) = mid;
  }
  // (lo, hi] holds a cluster across the r-th eigenvalue: the first half gives what it has there,
  // up to the number still needed.
  const int64_t lo0 = c[0](lo, h[0].size), hi0 = c[0](hi, h[0].size);
  const int64_t need = r - lo0 - c[1](lo, h[1].size);
  return lo0 + std::clamp<int64_t>(need, 0, hi0 - lo0);
}

// Eigenvalues of one tridiagonal half into w (ascending), *m of them: RANGE 'A', 'V' (VL, VU]
// or 'I' (il..iu of this half). Returns INFO (DSTEBZ's), or a library error.
using HalfSolver = std::function<int(const Tridiagonal &, char, double, double, int, int, double,
                                     int *, double *)>;

// One half's eigenvalues: all, those in (VL, VU], or its own indices first..last (RANGE 'I').
struct HalfValues {
  std::vector<double> w;
  int m = 0;
};

int half_values(const Tridiagonal &tr, char range, const Problem &p, int first, int last,
                const HalfSolver &solve, HalfValues &out) {
  out.m = 0;
  if (tr.size == 0 || first > last) return 0;
  out.w.assign(tr.size, 0.0);
  return solve(tr, range, p.vl, p.vu, first, last, p.abstol, &out.m, out.w.data());
}

// The indices each half contributes: all of its own, or for RANGE 'I' the global IL..IU split by
// Sturm counts on both halves together (half 0 supplies its a0+1..b0, half 1 its
// (IL-1-a0)+1..(IU-b0)).
struct IndexRanges {
  int first[2], last[2];
};

IndexRanges index_ranges(char range, int il, int iu, const Tridiagonal h[2]) {
  IndexRanges r{{1, 1}, {static_cast<int>(h[0].size), static_cast<int>(h[1].size)}};
  if (!lsame(range, 'I')) return r;
  const Counter c[2] = {Counter(h[0]), Counter(h[1])};
  const int64_t a0 = first_half_share(h, c, il - 1);
  // Each share is valid on its own; two separate bisections through one cluster could still
  // disagree, so b0 is kept within [a0, a0 + IU - IL + 1] (both halves' ranges stay valid).
  const int64_t b0 = std::clamp<int64_t>(first_half_share(h, c, iu), a0, a0 + iu - il + 1);
  return {{static_cast<int>(a0 + 1), static_cast<int>(il - a0)},
          {static_cast<int>(b0), static_cast<int>(iu - b0)}};
}

int merge_halves(const HalfValues v[2], int *m, double *w) {
  std::merge(v[0].w.begin(), v[0].w.begin() + v[0].m, v[1].w.begin(), v[1].w.begin() + v[1].m, w);
  *m = v[0].m + v[1].m;
  return 0;
}

int values_from_halves(char range, const Problem &p, int il, int iu, const Tridiagonal h[2],
                       const HalfSolver &solve, int *m, double *w) {
  const IndexRanges r = index_ranges(range, il, iu, h);
  HalfValues v[2];
  for (int k = 0; k < 2; ++k)
    if (int info = half_values(h[k], range, p, r.first[k], r.last[k], solve, v[k])) return info;
  return merge_halves(v, m, w);
}

// One half's eigenvalues by LAPACK: DSTERF for all of them (QR, as DSYEVD does), DSTEBZ for a
// range (as DSYEVR does without vectors).
int half_values_cpu(const lapack::Table &L, const Tridiagonal &tr, char range, double vl,
                    double vu, int il, int iu, double abstol, int *m, double *w) {
  int n = static_cast<int>(tr.size), info = 0;
  if (lsame(range, 'A')) {
    std::vector<double> e(tr.e);
    std::copy(tr.d.begin(), tr.d.begin() + n, w);
    L.dsterf(&n, w, e.data(), &info);
    *m = info == 0 ? n : 0;
    return info;
  }
  int nsplit = 0;
  // IBLOCK with a spare leading entry: DSTEBZ can write IBLOCK(0) (see cpu::stebz).
  std::vector<int> iblock(static_cast<size_t>(n) + 1), isplit(n), iwork(3 * static_cast<size_t>(n));
  std::vector<double> work(4 * static_cast<size_t>(n));
  L.dstebz(&range, "E", &n, &vl, &vu, &il, &iu, &abstol, tr.d.data(), tr.e.data(), m, &nsplit, w,
           iblock.data() + 1, isplit.data(), work.data(), iwork.data(), &info, 1, 1);
  return inner(info);
}

int values_cpu(char range, int n, const Problem &p, int il, int iu, int *m, double *w) {
  const lapack::Table *L = lapack::table();
  if (!L) return GPUEIG_ERR_LAPACK;
  Tridiagonal halves[2];
  if (int info = cpu_tridiagonals(*L, n, p.t, halves)) return info;
  return values_from_halves(
      range, p, il, iu, halves,
      [&](const Tridiagonal &tr, char r, double vl, double vu, int l, int u, double tol, int *mm,
          double *ww) { return half_values_cpu(*L, tr, r, vl, vu, l, u, tol, mm, ww); },
      m, w);
}

// The GPU method: the halves' tridiagonal forms from the device, their eigenvalues by the GPU's
// bisection, for RANGE 'A' and 'V' each in the thread that reduced its half (both at once). Any
// device failure fails the whole attempt (the CPU then recomputes it).
gpu::Status values_gpu(char range, int n, const Problem &p, int il, int iu, int *m, double *w,
                       int *info) {
  int half_info[2] = {0, 0};
  // A half's bisection that failed, kept with its code: `unsafe` (the GPU's DSTEBZ declined the
  // half) sends the whole call to the CPU method whatever the policy, a device failure only in
  // auto. The two halves may fail at once, from their two threads.
  std::mutex failure_mutex;
  gpu::Status failure;
  const HalfSolver on_gpu = [&](const Tridiagonal &tr, char r, double vl, double vu, int l, int u,
                                double tol, int *mm, double *ww) {
    const int64_t k = tr.size;
    std::vector<int> iblock(k), isplit(k);
    int nsplit = 0, stebz_info = 0;
    const gpu::Status st = gpu::device().stebz(r, 'E', static_cast<int>(k), vl, vu, l, u, tol,
                                               tr.d.data(), tr.e.data(), mm, &nsplit, ww,
                                               iblock.data(), isplit.data(), &stebz_info);
    if (st) return stebz_info;
    std::lock_guard<std::mutex> lock(failure_mutex);
    if (failure) failure = gpu::Status::fail(st.code, "bisection of a half: " + st.reason);
    return GPUEIG_ERR_DEVICE;
  };
  Tridiagonal halves[2];
  HalfValues v[2];
  const bool by_index = lsame(range, 'I');
  gpu::Status st = gpu::device().toeplitz_tridiagonals(n, p.t, halves, [&](int k) {
    if (by_index) return gpu::Status::success();  // the split needs both halves first
    half_info[k] = half_values(halves[k], range, p, 1, static_cast<int>(halves[k].size), on_gpu, v[k]);
    if (half_info[k] != GPUEIG_ERR_DEVICE) return gpu::Status::success();
    std::lock_guard<std::mutex> lock(failure_mutex);
    return failure;
  });
  if (!st) return st;
  if (by_index) {
    const IndexRanges r = index_ranges(range, il, iu, halves);
    for (int k = 0; k < 2 && half_info[0] == 0; ++k)
      half_info[k] = half_values(halves[k], range, p, r.first[k], r.last[k], on_gpu, v[k]);
  }
  for (int k = 0; k < 2; ++k) {
    if (half_info[k] == GPUEIG_ERR_DEVICE) return failure;
    if (half_info[k] != 0) {
      *info = half_info[k];
      return gpu::Status::success();
    }
  }
  *info = merge_halves(v, m, w);
  return gpu::Status::success();
}

// ---- Eigenvalues by the structured method: a few of a large T, never formed ------------------

// Whether the eigenvalues (RANGE 'I' or 'V'; with their vectors or not) go to the structured
// method first, on the GPU or the CPU: GPUEIG_TOEPLITZ_METHOD, or auto: when at most the count of the largest tier
// whose order n reaches are wanted (tuning::kToeplitzStructuredGpu / Cpu; RANGE 'V': counted by
// the search's first evaluations, which decline more), and from kToeplitzStructuredAlways on
// whatever the count (each dense half block would take 8 GB and more). *most: the count the
// search may accept (-1: any).
bool structured_first(char range, int n, int il, int iu, bool gpu, int64_t *most) {
  *most = -1;
  if (lsame(range, 'A') || n > tuning::kToeplitzStructuredMaxOrder) return false;
  const int method = env::choice("GPUEIG_TOEPLITZ_METHOD", {"auto", "dense", "structured"}, 0);
  if (method != 0) return method == 2;
  if (n >= tuning::kToeplitzStructuredAlways) return true;
  int64_t count = 0;
  auto reach = [&](const auto &tiers) {
    for (const tuning::ToeplitzStructuredTier &tier : tiers)
      if (n >= tier.order) count = std::max(count, tier.count);
  };
  if (gpu) reach(tuning::kToeplitzStructuredGpu);
  else reach(tuning::kToeplitzStructuredCpu);
  if (count == 0) return false;
  if (lsame(range, 'I')) return int64_t(iu) - il + 1 <= count;
  *most = count;
  return true;
}

std::string structured_note(const char *where, const structured::Report &r, const structured::VectorReport *v,
                            int64_t bytes = -1) {
  std::string note = std::string("structured method on the ") + where + ": " + std::to_string(r.rounds) +
                     " rounds, " + std::to_string(r.evaluations) + " half-block evaluations, " +
                     std::to_string(r.slots) + " side by side" +
                     (bytes >= 0 ? ", device memory " + std::to_string((bytes + 1048575) >> 20) + " MiB"
                                 : std::string()) +
                     (r.untrusted ? ", " + std::to_string(r.untrusted) + " moved" : std::string());
  if (!r.ok) return note + "; declined (" + r.why + "): the dense method";
  if (v) {
    char worst[32];
    std::snprintf(worst, sizeof worst, "%.2g", v->worst);
    char times[64];
    std::snprintf(times, sizeof times, " (%.0f ms, host %.0f ms)", v->basis_ms, v->host_ms);
    note += "; eigenvectors: " + std::to_string(v->bases) + " bases in " + std::to_string(v->attempts) +
            " rounds" + times + ", " +
            (v->ok ? std::string("largest residual ratio ") + worst
                   : "not certified (" + v->why + "): the dense method");
  }
  return note;
}

// Where the eigenvectors go: z(columns) gives an array of at least that many columns of
// leading dimension ldz, asked for once their number is known (the host call's Z itself; the
// device call stages them on the host, n x M for the structured method's, n x n for the dense).
using ZTarget = std::function<double *(int64_t columns)>;

// The structured eigenvalues, and with `vectors` (their report) the eigenvectors into z, by the
// evaluations and bases `source` offers: the search, then structured::eigenvectors on its halves.
gpu::Status structured_run(const gpu::InertiaSource &source, const structured::Guide &guide, char range, int n,
                           const Problem &p, int il, int iu, int64_t most, int *m, double *w,
                           structured::Report &rep, structured::VectorReport *vectors, const ZTarget &z, int ldz) {
  std::vector<int> halves(vectors ? n : 0);
  std::vector<double> estimates(vectors ? n : 0);
  rep = structured::search(n, p.t, range, p.vl, p.vu, il, iu, p.abstol, source.slots, source.batch, most, m, w,
                           &guide, vectors ? halves.data() : nullptr, vectors ? estimates.data() : nullptr);
  if (!rep.ok) {
    if (!rep.failure) return rep.failure;
    return gpu::Status::fail(gpu::Status::unsafe, rep.why);
  }
  if (!vectors) return gpu::Status::success();
  if (*m == 0) return vectors->ok = true, gpu::Status::success();  // nothing to certify
  *vectors = structured::eigenvectors(n, p.t, *m, w, halves.data(), structured::search_tolerance(n, p.t, p.abstol),
                                      source.basis, z(*m), ldz, estimates.data());
  if (vectors->ok) return gpu::Status::success();
  return gpu::Status::fail(gpu::Status::unsafe, vectors->why);
}

// The structured method with the GPU's evaluations: ok, `unsafe` where it declined or could not
// settle (the caller then runs the dense method), or the device failure of an evaluation.
gpu::Status structured_gpu(char range, int n, const Problem &p, int il, int iu, int64_t most, int *m, double *w,
                           structured::Report &rep, int64_t *bytes, structured::VectorReport *vectors,
                           const ZTarget &z, int ldz) {
  return gpu::device().toeplitz_inertia(n, p.t, [&](const gpu::InertiaSource &source) {
    const structured::Guide guide = structured::guide_of(source.diagonal[0], source.diagonal[1]);
    return structured_run(source, guide, range, n, p, il, iu, most, m, w, rep, vectors, z, ldz);
  }, bytes);
}

// The structured method with the host's evaluations: true where it settled (and certified the
// vectors asked for).
bool structured_cpu(CallRecord &call, char range, int n, const Problem &p, int il, int iu, int64_t most, int *m,
                    double *w, structured::VectorReport *vectors, const ZTarget &z, int ldz) {
  const structured::CauchyForm form = structured::cauchy_form(n, p.t);
  gpu::InertiaSource source;
  source.batch = structured::host_evaluator(form);
  source.basis = structured::host_basis(form);
  source.slots = structured::host_slots();
  structured::Report rep;
  const gpu::Status s =
      structured_run(source, structured::guide_of(form), range, n, p, il, iu, most, m, w, rep, vectors, z, ldz);
  call.add_note(structured_note("CPU", rep, vectors));
  return bool(s);
}

// The eigenvalues, and with `vectors` (the structured method's report) the eigenvectors into z, on
// the GPU: the structured method where structured_first says so (the dense method where it
// declines or cannot certify), else the dense half blocks.
gpu::Status any_gpu(CallRecord *call, char range, int n, const Problem &p, int il, int iu, int *m, double *w,
                    int *info, bool *structured_unsettled, structured::VectorReport *vectors, const ZTarget &z,
                    int ldz) {
  int64_t most = -1;
  if (structured_first(range, n, il, iu, true, &most)) {
    structured::Report rep;
    int64_t bytes = 0;
    gpu::Status s = structured_gpu(range, n, p, il, iu, most, m, w, rep, &bytes, vectors, z, ldz);
    if (call) call->add_note(structured_note("GPU", rep, vectors, bytes));
    if (s) return *info = 0, s;
    if (s.code != gpu::Status::unsafe) return s;
    *structured_unsettled = true;
  }
  if (vectors) return *info = 0, vectors_gpu(range, n, p, il, iu, m, w, z(n), ldz);
  return values_gpu(range, n, p, il, iu, m, w, info);
}

// The same on the CPU (the structured method with the host's evaluations, unless the GPU's search
// already found it unsettled).
int any_cpu(CallRecord &call, char range, int n, const Problem &p, int il, int iu, bool structured_unsettled,
            int *m, double *w, structured::VectorReport *vectors, const ZTarget &z, int ldz) {
  int64_t most = -1;
  if (!structured_unsettled && structured_first(range, n, il, iu, false, &most) &&
      structured_cpu(call, range, n, p, il, iu, most, m, w, vectors, z, ldz))
    return 0;
  if (vectors) return vectors_cpu(range, n, p, il, iu, m, w, z(n), ldz);
  return values_cpu(range, n, p, il, iu, m, w);
}

// The scalar checks gpu_toeplitz_eig and gpu_toeplitz_eig_dev share, in LAPACK's order around
// T's own check (-4: the host call reads T there, the device call later): 0 or -i.
int toeplitz_options(char jobz, char range, int n) {
  if (!lsame(jobz, 'V') && !lsame(jobz, 'N')) return -1;
  if (!lsame(range, 'V') && !lsame(range, 'I') && !lsame(range, 'A')) return -2;
  if (n < 0) return -3;
  return 0;
}
int toeplitz_bounds(char jobz, char range, int n, double vl, double vu, int il, int iu, int ldz) {
  if (lsame(range, 'V') && n > 0 && !(vl < vu)) return -6;
  if (lsame(range, 'I') && (il < 1 || il > max1(n))) return -7;
  if (lsame(range, 'I') && (iu < (n < il ? n : il) || iu > n)) return -8;
  if (ldz < 1 || (lsame(jobz, 'V') && ldz < n)) return -13;
  return 0;
}

// gpu_toeplitz_eig_dev's work once its arguments are checked (n >= 1): t down, the host call's
// check of it (device INFO -4), then the host call's GPU method on the host copy (its device work
// on the library's streams, waited for), W (and Z) up to the caller's arrays on STREAM. Where the
// GPU method declines (`unsafe`), LAPACK's method on the host, as the host call.
gpu::Status toeplitz_on_device(gpu::Device &dev, char jobz, char range, int n, const double *t, double vl,
                               double vu, int il, int iu, double abstol, int *m, double *w, double *z, int ldz,
                               int *info, void *stream) {
  constexpr size_t kD = sizeof(double), kI = sizeof(int);
  std::vector<double> ht(n);
  gpu::Status s = dev.download_arrays({{ht.data(), t, n * kD}}, stream);
  if (!s) return s;
  const int bad = all_finite(ht.data(), n) ? 0 : -4;
  if (bad) return dev.upload_arrays({{info, &bad, kI}}, stream);
  const bool wantz = lsame(jobz, 'V');
  const Problem p = prepare(n, ht.data(), range, vl, vu, abstol, !wantz);
  int mm = 0, r = 0;
  std::vector<double> hw(n), hz;
  structured::VectorReport report;
  // Z staged on the host, n x columns (leading dimension n), sized where a method asks.
  const ZTarget staged = [&](int64_t columns) {
    hz.assign(size_t(n) * size_t(columns), 0.0);
    return hz.data();
  };
  if (!p.empty) {
    bool unsettled = false;
    s = any_gpu(nullptr, range, n, p, il, iu, &mm, hw.data(), &r, &unsettled, wantz ? &report : nullptr, staged, n);
    if (s.code == gpu::Status::unsafe) {
      r = wantz ? vectors_cpu(range, n, p, il, iu, &mm, hw.data(), staged(n), n)
                : values_cpu(range, n, p, il, iu, &mm, hw.data());
      if (r < 0) return gpu::Status::fail(gpu::Status::device_error, "the host recompute failed");
      s = gpu::Status::success();
    }
    if (!s) return s;
  }
  if (r != 0) mm = 0;
  if (p.sigma != 1)
    for (int i = 0; i < mm; ++i) hw[i] /= p.sigma;  // may overflow to +-Inf, as DSYEVR's does
  if (wantz && mm > 0 && !(s = dev.upload_matrix(z, ldz, hz.data(), n, n, mm, stream))) return s;
  if (!(s = dev.upload_arrays({{w, hw.data(), mm * kD}, {info, &r, kI}}, stream))) return s;
  *m = mm;
  return s;
}

}  // namespace

int cpu::toeplitz_tridiagonals(int n, const double *t, gpu::ToeplitzHalves out[2]) {
  const lapack::Table *L = lapack::table();
  if (!L) return GPUEIG_ERR_LAPACK;
  try {
    return cpu_tridiagonals(*L, n, t, out);
  } catch (const std::bad_alloc &) {
    return GPUEIG_ERR_MEMORY;
  }
}

}  // namespace gpueig

extern "C" int gpu_toeplitz_eig_dev(char jobz, char range, int n, const double *t, double vl, double vu, int il,
                                    int iu, double abstol, int *m, double *w, double *z, int ldz, int *info,
                                    void *stream) {
  using namespace gpueig;
  return guarded([&] {
    CallRecord call(Routine::toeplitz, sizes({{"n", n}}));
    if (const int bad = toeplitz_options(jobz, range, n)) return bad;
    if (const int bad = toeplitz_bounds(jobz, range, n, vl, vu, il, iu, ldz)) return bad;
    if (!m) return -10;
    const bool some = n > 0;
    return run_on_device(call, {{4, t, some}, {11, w, some}, {12, z, some && lsame(jobz, 'V')}, {14, info, true}},
                         15, stream, [&](gpu::Device &dev) {
                           *m = 0;
                           if (!some) return dev.zero_info(info, stream);
                           return toeplitz_on_device(dev, jobz, range, n, t, vl, vu, il, iu, abstol, m, w, z, ldz,
                                                     info, stream);
                         });
  });
}

extern "C" int gpu_toeplitz_eig(char jobz, char range, int n, const double *t, double vl,
                                double vu, int il, int iu, double abstol, int *m, double *w,
                                double *z, int ldz) {
  using namespace gpueig;
  return guarded([&] {
    CallRecord call(Routine::toeplitz, sizes({{"n", n}}));
    const bool wantz = lsame(jobz, 'V');
    if (const int bad = toeplitz_options(jobz, range, n)) return bad;
    if (!all_finite(t, n)) return -4;
    if (const int bad = toeplitz_bounds(jobz, range, n, vl, vu, il, iu, ldz)) return bad;
    *m = 0;
    if (n == 0) return 0;

    const Problem p = prepare(n, t, range, vl, vu, abstol, !wantz);
    if (p.empty) {
      call.done(Backend::cpu, "(VL, VU] beyond the spectrum");
      return 0;
    }
    // The structured method first where structured_first says so, else (or where it declines or
    // cannot certify) the dense half blocks: eigenvalues by their tridiagonal forms, eigenvectors
    // by gpu_syevd's or gpu_syevx's method on each. Either writes Z itself (M columns at most, as
    // the caller provides).
    bool unsettled = false;  // the structured method could not settle it on the GPU
    structured::VectorReport report;
    structured::VectorReport *vectors = wantz ? &report : nullptr;
    const ZTarget into_z = [z](int64_t) { return z; };
    const int info = run_dispatched(
        call, Routine::toeplitz, n,
        [&](int &gpu_info) {
          return any_gpu(&call, range, n, p, il, iu, m, w, &gpu_info, &unsettled, vectors, into_z, ldz);
        },
        [&] { return any_cpu(call, range, n, p, il, iu, unsettled, m, w, vectors, into_z, ldz); });
    if (info == 0 && p.sigma != 1)
      for (int i = 0; i < *m; ++i) w[i] /= p.sigma;  // may overflow to +-Inf, as DSYEVR's does
    return info;
  });
}
