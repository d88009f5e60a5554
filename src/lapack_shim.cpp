// libgpueig_lapack.so: LAPACK's own Fortran names, so that an unmodified LAPACK program runs on
// libgpueig under LD_PRELOAD=libgpueig_lapack.so.
//
//   dgtsv_, dgetrf_, dstebz_  -> gpu_gtsv_pcr, gpu_getrf_crout, gpu_stebz
//   dsterf_                   -> gpu_stebz (all eigenvalues)
//   dsyev_, dsyevd_ JOBZ='N'  -> gpu_sytrd_givens + gpu_stebz (or LAPACK's dsterf, see below)
// Everything else (JOBZ='V', workspace queries, illegal arguments so that XERBLA reports them as
// LAPACK does, any libgpueig error) is forwarded to the caller's own LAPACK (see `forward_to`).
//
// dsterf_ and the eigenvalue stage of dsyev(d)_ are served by bisection only where gpu_stebz runs
// on the GPU (gpueig_backend_for): on the CPU, LAPACK's QR (dsterf) is about 20x faster than
// bisection for all eigenvalues, so there the call keeps LAPACK's own algorithm. GPUEIG_SHIM=serve
// serves every intercepted call through libgpueig regardless (used by the tests). DSTERF and
// DSYEV(D) scale their matrix into a safe range before they work and DSTEBZ does not (it treats
// every |e| below sqrt(SAFMIN) as zero, and e^2 overflows above sqrt(DBL_MAX)), so the served
// eigenvalue paths scale exactly where those routines do, and unscale.
//
// A LAPACK call made while the shim is serving a call (LAPACK routines call each other) goes
// straight to LAPACK: the thread-local depth counter makes recursion through the shim impossible.
// No exception leaves the shim: a served call that throws is forwarded to LAPACK instead.
#include <dlfcn.h>
#include <link.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "env.hpp"
#include "gpueig.h"

#ifndef GPUEIG_LAPACK_SONAME
#define GPUEIG_LAPACK_SONAME "liblapack.so.3"
#endif

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
  static const bool v = gpueig::env::flag("GPUEIG_VERBOSE");
  return v;
}

bool serve_everything() {
  static const bool v = gpueig::env::choice("GPUEIG_SHIM", {"auto", "serve"}, 0) == 1;
  return v;
}

// One line on stderr with GPUEIG_VERBOSE; never throws (a line that cannot be built is dropped).
template <class Where>
void log(const char *routine, Where &&where) noexcept {
  if (!verbose()) return;
  try {
    std::fprintf(stderr, "gpueig-lapack: %s %s\n", routine, where().c_str());
  } catch (...) {
  }
}

std::string served_by() { return std::string("libgpueig (") + gpueig_last_backend() + ")"; }

std::string dims(std::initializer_list<std::pair<const char *, int>> kv) {
  std::string s;
  for (auto &p : kv) s += (s.empty() ? "" : " ") + std::string(p.first) + "=" + std::to_string(p.second);
  return s;
}

// ---- Forwarding: which LAPACK a forwarded call goes to ------------------------------------------

// True when `p` lies inside this shim (a definition found there would call itself).
bool in_shim(void *p) {
  Dl_info self{}, that{};
  return dladdr(reinterpret_cast<void *>(&in_shim), &self) && dladdr(p, &that) &&
         self.dli_fbase == that.dli_fbase;
}

// `name` as the object containing `where` sees it: dlsym on that object's handle searches it and
// its own dependencies, i.e. the LAPACK it was linked with, even when it was loaded with
// RTLD_LOCAL (NumPy's and SciPy's extension modules, Octave and R packages, MEX files), where
// RTLD_NEXT cannot see it.
void *from_object_of(const void *where, const char *name) {
  Dl_info info{};
  if (!where || !dladdr(where, &info) || !info.dli_fname) return nullptr;
  void *h = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
  if (!h) return nullptr;
  void *p = dlsym(h, name);
  dlclose(h);  // the object stays loaded: NOLOAD only took another reference
  return (p && !in_shim(p)) ? p : nullptr;
}

// `name` in any object already loaded in the process, in load order.
void *from_loaded_objects(const char *name) {
  struct Search { const char *name; void *found; } search{name, nullptr};
  dl_iterate_phdr(
      [](dl_phdr_info *info, size_t, void *data) -> int {
        auto *s = static_cast<Search *>(data);
        if (!info->dlpi_name || !*info->dlpi_name) return 0;
        void *h = dlopen(info->dlpi_name, RTLD_LAZY | RTLD_NOLOAD);
        if (!h) return 0;
        void *p = dlsym(h, s->name);
        dlclose(h);
        if (p && !in_shim(p)) s->found = p;
        return s->found ? 1 : 0;
      },
      &search);
  return search.found;
}

// `name` in the library `lib` (loaded now if need be); `why` gets dlerror on failure.
void *from_library(const char *lib, const char *name, std::string &why) {
  void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char *e = dlerror();
    why = e ? e : "cannot be loaded";
    return nullptr;
  }
  void *p = dlsym(h, name);
  if (!p || in_shim(p)) {
    why = std::string("does not define ") + name;
    return nullptr;
  }
  return p;
}

// The definition of `name` a forwarded call goes to, the first of: the object that called the
// shim (its own LAPACK); the next definition after the shim (dlsym(RTLD_NEXT): the LAPACK the
// program was linked with); any loaded object; GPUEIG_LAPACK; the LAPACK libgpueig was built
// against. nullptr (and one line on stderr naming what was tried) only when none defines it.
void *forward_to(const char *name, const void *caller) noexcept {
  try {
    if (void *p = from_object_of(caller, name)) return p;
    if (void *p = dlsym(RTLD_NEXT, name); p && !in_shim(p)) return p;
    if (void *p = from_loaded_objects(name)) return p;
    std::string tried = "the calling object, RTLD_NEXT, every loaded library", why;
    if (const char *lib = gpueig::env::raw("GPUEIG_LAPACK")) {
      if (void *p = from_library(lib, name, why)) return p;
      tried += std::string(", GPUEIG_LAPACK=") + lib + " (" + why + ")";
    }
    if (void *p = from_library(GPUEIG_LAPACK_SONAME, name, why)) return p;
    tried += std::string(", ") + GPUEIG_LAPACK_SONAME + " (" + why + ")";
    std::fprintf(stderr,
                 "gpueig-lapack: no LAPACK defines %s (tried %s); calls that need it return "
                 "INFO = %d\n",
                 name, tried.c_str(), GPUEIG_ERR_LAPACK);
  } catch (...) {
    std::fprintf(stderr, "gpueig-lapack: out of memory looking up %s\n", name);
  }
  return nullptr;
}

// The forwarding target of the exported function `fn`, looked up on its first call (from the
// object that made it) and kept.
#define REAL(fn) \
  static const auto real = reinterpret_cast<decltype(&fn)>(forward_to(#fn, __builtin_return_address(0)))
#define NO_LAPACK(info) \
  do {                  \
    *(info) = GPUEIG_ERR_LAPACK; \
    return;             \
  } while (0)

bool on_gpu(const char *routine, long long size) {
  const char *b = gpueig_backend_for(routine, size);
  return b && std::strcmp(b, "gpu") == 0;
}

bool is(char c, char want) { return (c & ~0x20) == want; }  // LAPACK's case-insensitive LSAME

// ---- Scaling: where DSTERF and DSYEV scale, by a power of two (exact) -----------------------------

constexpr double kEps = DBL_EPSILON / 2;  // DLAMCH('E')
constexpr double kSafmin = DBL_MIN;       // DLAMCH('S')

// The power of two that brings a norm `anorm` inside [lo, hi] (1 when it is there already, or 0
// or not finite: nothing to scale).
double scale_into(double anorm, double lo, double hi) {
  if (!(anorm > 0) || !std::isfinite(anorm) || (anorm >= lo && anorm <= hi)) return 1;
  const int e = anorm > hi ? static_cast<int>(std::floor(std::log2(hi / anorm)))
                           : static_cast<int>(std::ceil(std::log2(lo / anorm)));
  return std::ldexp(1.0, e);
}

// DSTERF's range for a tridiagonal matrix: SSFMIN = sqrt(SAFMIN)/EPS^2, SSFMAX = sqrt(SAFMAX)/3.
double sterf_scale(int n, const double *d, const double *e) {
  double anorm = 0;  // DLANST('M')
  for (int i = 0; i < n; ++i) anorm = std::max(anorm, std::fabs(d[i]));
  for (int i = 0; i + 1 < n; ++i) anorm = std::max(anorm, std::fabs(e[i]));
  return scale_into(anorm, std::sqrt(kSafmin) / (kEps * kEps), std::sqrt(1 / kSafmin) / 3);
}

// DSYEV(D)'s range for the symmetric matrix (triangle uplo): RMIN = sqrt(SAFMIN/EPS), RMAX =
// sqrt(EPS/SAFMIN).
double syev_scale(char uplo, int n, const double *a, int64_t lda) {
  double anorm = 0;  // DLANSY('M')
  for (int64_t j = 0; j < n; ++j) {
    const int64_t lo = is(uplo, 'U') ? 0 : j, hi = is(uplo, 'U') ? j : n - 1;
    for (int64_t i = lo; i <= hi; ++i) anorm = std::max(anorm, std::fabs(a[i + j * lda]));
  }
  return scale_into(anorm, std::sqrt(kSafmin / kEps), std::sqrt(kEps / kSafmin));
}

// ---- Serving -----------------------------------------------------------------------------------

// All eigenvalues of tridiag(e, d, e) by gpu_stebz into w (ascending), T scaled as DSTERF scales
// it. True on success; d and e are only read.
bool all_eigenvalues(int n, const double *d, const double *e, double *w) {
  std::vector<int> iblock(n), isplit(n);
  const double sigma = sterf_scale(n, d, e);
  std::vector<double> ds, es;
  if (sigma != 1) {
    ds.assign(d, d + n);
    es.assign(e, e + std::max(n - 1, 0));
    for (double &x : ds) x *= sigma;
    for (double &x : es) x *= sigma;
    d = ds.data();
    e = es.data();
  }
  int m = 0, nsplit = 0;
  int r = gpu_stebz('A', 'E', n, 0, 0, 0, 0, 0.0, d, e, &m, &nsplit, w, iblock.data(),
                    isplit.data());
  if (r != 0 || m != n) return false;
  if (sigma != 1)
    for (int i = 0; i < n; ++i) w[i] /= sigma;
  return true;
}

// Eigenvalues of the symmetric matrix A (triangle uplo) into w, A scaled as DSYEV scales it,
// through gpu_sytrd_givens and then bisection (GPU, or when told to serve everything) or
// LAPACK's dsterf. A is overwritten, as dsyev(d) with JOBZ='N' overwrites it. False if anything
// failed.
bool symmetric_eigenvalues(char uplo, int n, double *a, int lda, double *w, void (*sterf)(
                           const int *, double *, double *, int *)) {
  std::vector<double> d(n), e(n > 1 ? n - 1 : 1);
  const double sigma = syev_scale(uplo, n, a, lda);
  if (sigma != 1)
    for (int64_t j = 0; j < n; ++j) {
      const int64_t lo = is(uplo, 'U') ? 0 : j, hi = is(uplo, 'U') ? j : n - 1;
      for (int64_t i = lo; i <= hi; ++i) a[i + j * static_cast<int64_t>(lda)] *= sigma;
    }
  double q = 0;
  if (gpu_sytrd_givens('N', uplo, n, a, lda, d.data(), e.data(), &q, 1) != 0) return false;
  if (serve_everything() || on_gpu("stebz", n)) {
    if (!all_eigenvalues(n, d.data(), e.data(), w)) return false;
  } else {
    int info = 0;
    if (!sterf) return false;
    sterf(&n, d.data(), e.data(), &info);  // DSTERF scales T itself
    if (info != 0) return false;
    std::copy(d.begin(), d.end(), w);
  }
  if (sigma != 1)
    for (int i = 0; i < n; ++i) w[i] /= sigma;
  return true;
}

// dsyev(d)_ with JOBZ = 'N' and valid arguments, served through libgpueig where that pays (or
// always with GPUEIG_SHIM=serve): eigenvalues into w, A overwritten as LAPACK overwrites it.
// False (A as it was) when it was not worth it or anything failed: the caller forwards.
bool serve_symmetric_values(const char *routine, char uplo, int n, double *a, int lda, double *w,
                            void (*sterf)(const int *, double *, double *, int *)) noexcept {
  if (!(serve_everything() || on_gpu("sytrd", n) || on_gpu("stebz", n))) return false;
  std::vector<double> saved;
  try {
    saved.assign(a, a + static_cast<size_t>(lda) * n);
  } catch (...) {
    return false;
  }
  bool ok = false;
  try {
    ok = symmetric_eigenvalues(uplo, n, a, lda, w, sterf);
  } catch (...) {
  }
  if (ok) {
    log(routine, [&] { return dims({{"n", n}}) + " JOBZ=N -> " + served_by(); });
    return true;
  }
  std::copy(saved.begin(), saved.end(), a);
  return false;
}

// dsterf_ served by bisection into d; false when it was not served (nothing written).
bool serve_sterf(int n, double *d, double *e) noexcept {
  if (!(n > 0 && (serve_everything() || on_gpu("stebz", n)))) return false;
  try {
    std::vector<double> w(n);
    if (!all_eigenvalues(n, d, e, w.data())) return false;
    std::copy(w.begin(), w.end(), d);
    return true;
  } catch (...) {
    return false;
  }
}

}  // namespace

extern "C" {

void dgtsv_(const int *n, const int *nrhs, double *dl, double *d, double *du, double *b,
            const int *ldb, int *info) {
  REAL(dgtsv_);
  if (t_depth > 0) {
    if (!real) NO_LAPACK(info);
    return real(n, nrhs, dl, d, du, b, ldb, info);
  }
  Serving guard;
  const int r = gpu_gtsv_pcr(*n, *nrhs, dl, d, du, b, *ldb);
  if (r >= 0) {
    *info = r;
    log("dgtsv_", [&] { return dims({{"n", *n}, {"nrhs", *nrhs}}) + " -> " + served_by(); });
    return;
  }
  log("dgtsv_", [&] { return dims({{"n", *n}, {"nrhs", *nrhs}}) + " -> LAPACK (forwarded: INFO " + std::to_string(r) + ")"; });
  if (!real) NO_LAPACK(info);
  real(n, nrhs, dl, d, du, b, ldb, info);
}

void dgetrf_(const int *m, const int *n, double *a, const int *lda, int *ipiv, int *info) {
  REAL(dgetrf_);
  if (t_depth > 0) {
    if (!real) NO_LAPACK(info);
    return real(m, n, a, lda, ipiv, info);
  }
  Serving guard;
  const int r = gpu_getrf_crout(*m, *n, a, *lda, ipiv);
  if (r >= 0) {
    *info = r;
    log("dgetrf_", [&] { return dims({{"m", *m}, {"n", *n}}) + " -> " + served_by(); });
    return;
  }
  log("dgetrf_", [&] { return dims({{"m", *m}, {"n", *n}}) + " -> LAPACK (forwarded: INFO " + std::to_string(r) + ")"; });
  if (!real) NO_LAPACK(info);
  real(m, n, a, lda, ipiv, info);
}

void dstebz_(const char *range, const char *order, const int *n, const double *vl,
             const double *vu, const int *il, const int *iu, const double *abstol,
             const double *d, const double *e, int *m, int *nsplit, double *w, int *iblock,
             int *isplit, double *work, int *iwork, int *info, size_t lrange, size_t lorder) {
  REAL(dstebz_);
  auto forward = [&] {
    if (!real) NO_LAPACK(info);
    real(range, order, n, vl, vu, il, iu, abstol, d, e, m, nsplit, w, iblock, isplit, work, iwork,
         info, lrange, lorder);
  };
  if (t_depth > 0) return forward();
  Serving guard;
  const int r = gpu_stebz(*range, *order, *n, *vl, *vu, *il, *iu, *abstol, d, e, m, nsplit, w,
                          iblock, isplit);
  if (r >= 0) {
    *info = r;
    log("dstebz_", [&] {
      return dims({{"n", *n}}) + " RANGE=" + *range + " ORDER=" + *order + " -> " + served_by();
    });
    return;
  }
  log("dstebz_", [&] { return dims({{"n", *n}}) + " -> LAPACK (forwarded: INFO " + std::to_string(r) + ")"; });
  forward();
}

void dsterf_(const int *n, double *d, double *e, int *info) {
  REAL(dsterf_);
  if (t_depth == 0) {
    Serving guard;
    if (serve_sterf(*n, d, e)) {
      *info = 0;
      log("dsterf_", [&] {
        return dims({{"n", *n}}) + " -> libgpueig gpu_stebz (" + gpueig_last_backend() + ")";
      });
      return;
    }
    log("dsterf_", [&] {
      return dims({{"n", *n}}) + " -> LAPACK dsterf (bisection would run on the CPU, where QR is faster)";
    });
  }
  if (!real) NO_LAPACK(info);
  real(n, d, e, info);
}

void dsyev_(const char *jobz, const char *uplo, const int *n, double *a, const int *lda,
            double *w, double *work, const int *lwork, int *info, size_t ljobz, size_t luplo) {
  REAL(dsyev_);
  auto forward = [&] {
    if (!real) NO_LAPACK(info);
    real(jobz, uplo, n, a, lda, w, work, lwork, info, ljobz, luplo);
  };
  if (t_depth > 0) return forward();
  Serving guard;
  static const auto sterf = reinterpret_cast<decltype(&dsterf_)>(forward_to("dsterf_", real ? reinterpret_cast<void *>(real) : nullptr));
  const int nn = *n;
  const bool valid = real && is(*jobz, 'N') && (is(*uplo, 'U') || is(*uplo, 'L')) && nn > 0 &&
                     *lda >= nn && *lwork >= (3 * nn - 1 > 1 ? 3 * nn - 1 : 1);
  if (valid && serve_symmetric_values("dsyev_", *uplo, nn, a, *lda, w, sterf)) {
    int query = -1, qinfo = 0;  // WORK(1) as LAPACK reports it: the optimal LWORK
    double opt = 0, unused = 0;
    real(jobz, uplo, n, a, lda, &unused, &opt, &query, &qinfo, ljobz, luplo);
    work[0] = opt;
    *info = 0;
    return;
  }
  log("dsyev_", [&] { return dims({{"n", nn}}) + " JOBZ=" + *jobz + " -> LAPACK (forwarded)"; });
  forward();
}

void dsyevd_(const char *jobz, const char *uplo, const int *n, double *a, const int *lda,
             double *w, double *work, const int *lwork, int *iwork, const int *liwork, int *info,
             size_t ljobz, size_t luplo) {
  REAL(dsyevd_);
  auto forward = [&] {
    if (!real) NO_LAPACK(info);
    real(jobz, uplo, n, a, lda, w, work, lwork, iwork, liwork, info, ljobz, luplo);
  };
  if (t_depth > 0) return forward();
  Serving guard;
  static const auto sterf = reinterpret_cast<decltype(&dsterf_)>(forward_to("dsterf_", real ? reinterpret_cast<void *>(real) : nullptr));
  const int nn = *n;
  const bool valid = real && is(*jobz, 'N') && (is(*uplo, 'U') || is(*uplo, 'L')) && nn > 0 &&
                     *lda >= nn && *lwork >= (nn > 1 ? 2 * nn + 1 : 1) && *liwork >= 1;
  if (valid && serve_symmetric_values("dsyevd_", *uplo, nn, a, *lda, w, sterf)) {
    int query = -1, qinfo = 0, iopt = 0;  // WORK(1), IWORK(1) as LAPACK reports them
    double opt = 0, unused = 0;
    real(jobz, uplo, n, a, lda, &unused, &opt, &query, &iopt, &query, &qinfo, ljobz, luplo);
    work[0] = opt;
    iwork[0] = iopt;
    *info = 0;
    return;
  }
  log("dsyevd_", [&] { return dims({{"n", nn}}) + " JOBZ=" + *jobz + " -> LAPACK (forwarded)"; });
  forward();
}

}  // extern "C"
