// libgpueig_lapack.so: LAPACK's own Fortran names, so that an unmodified LAPACK program runs on
// libgpueig under LD_PRELOAD=libgpueig_lapack.so.
//
//   dgtsv_, dgetrf_, dstebz_  -> gpu_gtsv_pcr, gpu_getrf_crout, gpu_stebz
//   dsterf_                   -> gpu_stebz (all eigenvalues)
//   dsyev_, dsyevd_ JOBZ='N'  -> gpu_sytrd_givens + gpu_stebz (or LAPACK's dsterf, see below)
// Everything else (JOBZ='V', workspace queries, illegal arguments so that XERBLA reports them as
// LAPACK does, any libgpueig error) goes to the next definition of the same symbol
// (dlsym(RTLD_NEXT)), i.e. to the LAPACK the program was linked with.
//
// dsterf_ and the eigenvalue stage of dsyev(d)_ are served by bisection only where gpu_stebz runs
// on the GPU (gpueig_backend_for): on the CPU, LAPACK's QR (dsterf) is about 20x faster than
// bisection for all eigenvalues, so there the call keeps LAPACK's own algorithm. GPUEIG_SHIM=serve
// serves every intercepted call through libgpueig regardless (used by the tests).
//
// A LAPACK call made while the shim is serving a call (LAPACK routines call each other) goes
// straight to LAPACK: the thread-local depth counter makes recursion through the shim impossible.
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "gpueig.h"

extern "C" {
void dgtsv_(const int *, const int *, double *, double *, double *, double *, const int *, int *);
void dgetrf_(const int *, const int *, double *, const int *, int *, int *);
void dstebz_(const char *, const char *, const int *, const double *, const double *, const int *,
             const int *, const double *, const double *, const double *, int *, int *, double *,
             int *, int *, double *, int *, int *, size_t, size_t);
void dsterf_(const int *, double *, double *, int *);
void dsyev_(const char *, const char *, const int *, double *, const int *, double *, double *,
            const int *, int *, size_t, size_t);
void dsyevd_(const char *, const char *, const int *, double *, const int *, double *, double *,
             const int *, int *, const int *, int *, size_t, size_t);
}

namespace {

thread_local int t_depth = 0;

struct Serving {
  Serving() { ++t_depth; }
  ~Serving() { --t_depth; }
};

bool verbose() {
  static const bool v = [] {
    const char *s = std::getenv("GPUEIG_VERBOSE");
    return s && *s && std::strcmp(s, "0") != 0;
  }();
  return v;
}

bool serve_everything() {
  static const bool v = [] {
    const char *s = std::getenv("GPUEIG_SHIM");
    return s && std::strcmp(s, "serve") == 0;
  }();
  return v;
}

void log(const char *routine, const std::string &args, const std::string &where) {
  if (verbose())
    std::fprintf(stderr, "gpueig-lapack: %s %s -> %s\n", routine, args.c_str(), where.c_str());
}

std::string served_by() { return std::string("libgpueig (") + gpueig_last_backend() + ")"; }

// The next definition of `name` after this library: the program's own LAPACK.
void *next_symbol(const char *name) {
  void *p = dlsym(RTLD_NEXT, name);
  if (!p) {
    std::fprintf(stderr, "gpueig-lapack: no LAPACK defines %s after the shim; aborting\n", name);
    std::abort();
  }
  return p;
}
#define REAL(fn) reinterpret_cast<decltype(&fn)>(next_symbol(#fn))

bool on_gpu(const char *routine, long long size) {
  const char *b = gpueig_backend_for(routine, size);
  return b && std::strcmp(b, "gpu") == 0;
}

bool is(char c, char want) { return (c & ~0x20) == want; }  // LAPACK's case-insensitive LSAME

std::string dims(std::initializer_list<std::pair<const char *, int>> kv) {
  std::string s;
  for (auto &p : kv) s += (s.empty() ? "" : " ") + std::string(p.first) + "=" + std::to_string(p.second);
  return s;
}

}  // namespace

extern "C" {

void dgtsv_(const int *n, const int *nrhs, double *dl, double *d, double *du, double *b,
            const int *ldb, int *info) {
  static auto real = REAL(dgtsv_);
  if (t_depth > 0) return real(n, nrhs, dl, d, du, b, ldb, info);
  Serving guard;
  int r = gpu_gtsv_pcr(*n, *nrhs, dl, d, du, b, *ldb);
  if (r < 0) {
    log("dgtsv_", dims({{"n", *n}, {"nrhs", *nrhs}}), "LAPACK (forwarded: INFO " + std::to_string(r) + ")");
    return real(n, nrhs, dl, d, du, b, ldb, info);
  }
  *info = r;
  log("dgtsv_", dims({{"n", *n}, {"nrhs", *nrhs}}), served_by());
}

void dgetrf_(const int *m, const int *n, double *a, const int *lda, int *ipiv, int *info) {
  static auto real = REAL(dgetrf_);
  if (t_depth > 0) return real(m, n, a, lda, ipiv, info);
  Serving guard;
  int r = gpu_getrf_crout(*m, *n, a, *lda, ipiv);
  if (r < 0) {
    log("dgetrf_", dims({{"m", *m}, {"n", *n}}), "LAPACK (forwarded: INFO " + std::to_string(r) + ")");
    return real(m, n, a, lda, ipiv, info);
  }
  *info = r;
  log("dgetrf_", dims({{"m", *m}, {"n", *n}}), served_by());
}

void dstebz_(const char *range, const char *order, const int *n, const double *vl,
             const double *vu, const int *il, const int *iu, const double *abstol,
             const double *d, const double *e, int *m, int *nsplit, double *w, int *iblock,
             int *isplit, double *work, int *iwork, int *info, size_t lrange, size_t lorder) {
  static auto real = REAL(dstebz_);
  if (t_depth > 0)
    return real(range, order, n, vl, vu, il, iu, abstol, d, e, m, nsplit, w, iblock, isplit,
                work, iwork, info, lrange, lorder);
  Serving guard;
  int r = gpu_stebz(*range, *order, *n, *vl, *vu, *il, *iu, *abstol, d, e, m, nsplit, w, iblock,
                    isplit);
  if (r < 0) {
    log("dstebz_", dims({{"n", *n}}), "LAPACK (forwarded: INFO " + std::to_string(r) + ")");
    return real(range, order, n, vl, vu, il, iu, abstol, d, e, m, nsplit, w, iblock, isplit,
                work, iwork, info, lrange, lorder);
  }
  *info = r;
  log("dstebz_", dims({{"n", *n}}) + " RANGE=" + *range + " ORDER=" + *order, served_by());
}

}  // extern "C"

namespace {

// All eigenvalues of tridiag(e, d, e) by gpu_stebz into w (ascending). True on success; d and e
// are only read.
bool all_eigenvalues(int n, const double *d, const double *e, double *w) {
  std::vector<int> iblock(n), isplit(n);
  int m = 0, nsplit = 0;
  int r = gpu_stebz('A', 'E', n, 0, 0, 0, 0, 0.0, d, e, &m, &nsplit, w, iblock.data(),
                    isplit.data());
  return r == 0 && m == n;
}

// Eigenvalues of the symmetric matrix A (triangle uplo) into w, through gpu_sytrd_givens and then
// bisection (GPU, or when told to serve everything) or LAPACK's dsterf. A is overwritten, as
// dsyev(d) with JOBZ='N' overwrites it. False if anything failed.
bool symmetric_eigenvalues(char uplo, int n, double *a, int lda, double *w) {
  std::vector<double> d(n), e(n > 1 ? n - 1 : 1);
  double q = 0;
  if (gpu_sytrd_givens('N', uplo, n, a, lda, d.data(), e.data(), &q, 1) != 0) return false;
  if (serve_everything() || on_gpu("stebz", n)) return all_eigenvalues(n, d.data(), e.data(), w);
  static auto real_sterf = REAL(dsterf_);
  int info = 0;
  real_sterf(&n, d.data(), e.data(), &info);
  std::copy(d.begin(), d.end(), w);
  return info == 0;
}

// dsyev(d)_ with JOBZ = 'N' and valid arguments, served through libgpueig where that pays (or
// always with GPUEIG_SHIM=serve): eigenvalues into w, A overwritten as LAPACK overwrites it.
// False (A restored) when it was not worth it or anything failed: the caller forwards.
bool serve_symmetric_values(const char *routine, char uplo, int n, double *a, int lda, double *w) {
  if (!(serve_everything() || on_gpu("sytrd", n) || on_gpu("stebz", n))) return false;
  std::vector<double> saved(a, a + static_cast<size_t>(lda) * n);
  if (symmetric_eigenvalues(uplo, n, a, lda, w)) {
    log(routine, dims({{"n", n}}) + " JOBZ=N", served_by());
    return true;
  }
  std::copy(saved.begin(), saved.end(), a);
  return false;
}

}  // namespace

extern "C" {

void dsterf_(const int *n, double *d, double *e, int *info) {
  static auto real = REAL(dsterf_);
  if (t_depth > 0) return real(n, d, e, info);
  Serving guard;
  if (*n > 0 && (serve_everything() || on_gpu("stebz", *n))) {
    std::vector<double> w(*n);
    if (all_eigenvalues(*n, d, e, w.data())) {
      std::copy(w.begin(), w.end(), d);
      *info = 0;
      log("dsterf_", dims({{"n", *n}}), "libgpueig gpu_stebz (" + std::string(gpueig_last_backend()) + ")");
      return;
    }
  }
  log("dsterf_", dims({{"n", *n}}), "LAPACK dsterf (bisection would run on the CPU, where QR is faster)");
  real(n, d, e, info);
}

void dsyev_(const char *jobz, const char *uplo, const int *n, double *a, const int *lda,
            double *w, double *work, const int *lwork, int *info, size_t ljobz, size_t luplo) {
  static auto real = REAL(dsyev_);
  if (t_depth > 0) return real(jobz, uplo, n, a, lda, w, work, lwork, info, ljobz, luplo);
  Serving guard;
  const int nn = *n;
  const bool valid = is(*jobz, 'N') && (is(*uplo, 'U') || is(*uplo, 'L')) && nn > 0 &&
                     *lda >= nn && *lwork >= (3 * nn - 1 > 1 ? 3 * nn - 1 : 1);
  if (valid && serve_symmetric_values("dsyev_", *uplo, nn, a, *lda, w)) {
    int query = -1, qinfo = 0;  // WORK(1) as LAPACK reports it: the optimal LWORK
    double opt = 0, unused = 0;
    real(jobz, uplo, n, a, lda, &unused, &opt, &query, &qinfo, ljobz, luplo);
    work[0] = opt;
    *info = 0;
    return;
  }
  log("dsyev_", dims({{"n", nn}}) + " JOBZ=" + *jobz, "LAPACK (forwarded)");
  real(jobz, uplo, n, a, lda, w, work, lwork, info, ljobz, luplo);
}

void dsyevd_(const char *jobz, const char *uplo, const int *n, double *a, const int *lda,
             double *w, double *work, const int *lwork, int *iwork, const int *liwork, int *info,
             size_t ljobz, size_t luplo) {
  static auto real = REAL(dsyevd_);
  if (t_depth > 0)
    return real(jobz, uplo, n, a, lda, w, work, lwork, iwork, liwork, info, ljobz, luplo);
  Serving guard;
  const int nn = *n;
  const bool valid = is(*jobz, 'N') && (is(*uplo, 'U') || is(*uplo, 'L')) && nn > 0 &&
                     *lda >= nn && *lwork >= (nn > 1 ? 2 * nn + 1 : 1) && *liwork >= 1;
  if (valid && serve_symmetric_values("dsyevd_", *uplo, nn, a, *lda, w)) {
    int query = -1, qinfo = 0, iopt = 0;  // WORK(1), IWORK(1) as LAPACK reports them
    double opt = 0, unused = 0;
    real(jobz, uplo, n, a, lda, &unused, &opt, &query, &iopt, &query, &qinfo, ljobz, luplo);
    work[0] = opt;
    iwork[0] = iopt;
    *info = 0;
    return;
  }
  log("dsyevd_", dims({{"n", nn}}) + " JOBZ=" + *jobz, "LAPACK (forwarded)");
  real(jobz, uplo, n, a, lda, w, work, lwork, iwork, liwork, info, ljobz, luplo);
}

}  // extern "C"
