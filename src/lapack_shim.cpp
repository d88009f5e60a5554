// libgpueig_lapack.so: LAPACK's own Fortran names, so that an unmodified LAPACK program runs on
// libgpueig under LD_PRELOAD=libgpueig_lapack.so.
//
//   dgtsv_, dgetrf_, dgesv_, dstebz_  -> gpu_gtsv_pcr, gpu_getrf_crout, gpu_gesv_crout, gpu_stebz
//   dgetrs_                           -> gpu_getrs_crout
//   dsterf_                           -> gpu_stebz (all eigenvalues)
//   dsyev_, dsyevd_ JOBZ='N'          -> gpu_sytrd_givens + gpu_stebz (or LAPACK's dsterf)
//   dsyev_, dsyevd_ JOBZ='V'          -> gpu_syevd
//   dstein_                           -> gpu_stein
//   dsyevx_, dsyevr_                  -> gpu_syevx
// each under four names: the plain LP64 one, SciPy's wheels' scipy_ prefix, and the ILP64 names
// with the 64_ suffix (NumPy's wheels: scipy_dgesv_64_), see "Name families" below.
//
// A call is served only where libgpueig would run it on the GPU (auto's crossovers, measured
// against the routine it replaces): everywhere else the program's own LAPACK runs it, so the
// shim is never slower than not using it. GPUEIG_SHIM=serve serves every intercepted call
// through libgpueig regardless (used by the tests). Everything else (workspace queries, illegal arguments so that XERBLA reports them as LAPACK does, a libgpueig error that
// wrote nothing) is forwarded to the caller's own LAPACK (see `forward_to`); GPUEIG_VERBOSE says
// why for every call.
//
// dsterf_ and the eigenvalue stage of dsyev(d)_ are served by bisection only where gpu_stebz runs
// on the GPU: on the CPU, LAPACK's QR (dsterf) is about 20x faster than bisection for all
// eigenvalues. DSTERF and DSYEV(D) scale their matrix into a safe range before they work and
// DSTEBZ does not (it treats every |e| below sqrt(SAFMIN) as zero, and e^2 overflows above
// sqrt(DBL_MAX)), so the served eigenvalue paths scale exactly where those routines do, and
// unscale.
//
// A LAPACK call made while the shim is serving a call (LAPACK routines call each other) goes
// straight to LAPACK: the thread-local depth counter makes recursion through the shim impossible.
// No exception leaves the shim: a served call that throws is forwarded to LAPACK instead.
#include <dlfcn.h>
#include <link.h>

#include <algorithm>
#include <atomic>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "env.hpp"
#include "gpueig.h"
#include "scaling.hpp"
#include "tuning.hpp"

#ifndef GPUEIG_LAPACK_SONAME
#define GPUEIG_LAPACK_SONAME "liblapack.so.3"
#endif

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

// One line on stderr with GPUEIG_VERBOSE: name() and line() are called only then (a forwarded
// call costs no string); never throws (a line that cannot be built is dropped).
template <class Name, class Line>
void log(const Name &name, Line &&line) noexcept {
  if (!verbose()) return;
  try {
    std::fprintf(stderr, "gpueig-lapack: %s %s\n", name().c_str(), line().c_str());
  } catch (...) {
  }
}

std::string served_by() { return std::string("libgpueig (") + gpueig_last_backend() + ")"; }

std::string dims(std::initializer_list<std::pair<const char *, long long>> kv) {
  std::string s;
  for (auto &p : kv)
    s += (s.empty() ? "" : " ") + std::string(p.first) + "=" + std::to_string(p.second);
  return s;
}

// ---- Forwarding: which LAPACK a forwarded call goes to ------------------------------------------

// True when `p` lies inside this shim (a definition found there would call itself).
bool in_shim(void *p) {
  Dl_info self{}, that{};
  return dladdr(reinterpret_cast<void *>(&in_shim), &self) && dladdr(p, &that) &&
         self.dli_fbase == that.dli_fbase;
}

// True when the call into the shim came from inside the function at `p` itself: `p` is then a
// wrapper of the same routine placed in front of the shim (another LD_PRELOAD'ed library, a
// tracer, a user's own interposer) that called through to it with dlsym(RTLD_NEXT); forwarding
// to it would call the shim again, without end (a stack overflow: found 2026-11-28 with such a
// wrapper of dstein_ in front of the shim).
bool called_from_inside(void *p, const void *caller) {
  Dl_info at{};
  return caller && dladdr(caller, &at) && at.dli_saddr == p;
}

// A definition a forwarded call may go to: not the shim's own, not a wrapper that called the shim.
bool usable(void *p, const void *caller) { return p && !in_shim(p) && !called_from_inside(p, caller); }

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
  return usable(p, where) ? p : nullptr;
}

// `name` in any object already loaded in the process, in load order.
void *from_loaded_objects(const char *name, const void *caller) {
  struct Search {
    const char *name;
    const void *caller;
    void *found;
  } search{name, caller, nullptr};
  dl_iterate_phdr(
      [](dl_phdr_info *info, size_t, void *data) -> int {
        auto *s = static_cast<Search *>(data);
        if (!info->dlpi_name || !*info->dlpi_name) return 0;
        void *h = dlopen(info->dlpi_name, RTLD_LAZY | RTLD_NOLOAD);
        if (!h) return 0;
        void *p = dlsym(h, s->name);
        dlclose(h);
        if (usable(p, s->caller)) s->found = p;
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
    if (void *p = dlsym(RTLD_NEXT, name); usable(p, caller)) return p;
    if (void *p = from_loaded_objects(name, caller)) return p;
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

// ---- Name families: LP64 and ILP64, plain and SciPy-prefixed ------------------------------------

// Each served routine is exported under four names (dgesv shown), each forwarding to the same
// name in the caller's LAPACK:
//   dgesv_            LP64: the Fortran ABI of Reference LAPACK, OpenBLAS, Debian's packages;
//   scipy_dgesv_      LP64: SciPy's pip wheels (scipy-openblas32 prefixes every name);
//   dgesv_64_         ILP64 (64-bit INTEGER): OpenBLAS built with INTERFACE64 and the 64_
//                     suffix (NumPy 1.x wheels, Julia);
//   scipy_dgesv_64_   ILP64: NumPy 2.x pip wheels (scipy-openblas64).
// An ILP64 call is served when every integer argument fits an int (libgpueig's API is LP64);
// otherwise it is forwarded, and says so.
struct Lp64 {
  using Int = int;
  static constexpr const char *prefix = "", *suffix = "_";
};
struct ScipyLp64 {
  using Int = int;
  static constexpr const char *prefix = "scipy_", *suffix = "_";
};
struct Ilp64 {
  using Int = int64_t;
  static constexpr const char *prefix = "", *suffix = "_64_";
};
struct ScipyIlp64 {
  using Int = int64_t;
  static constexpr const char *prefix = "scipy_", *suffix = "_64_";
};

// The exported name of `routine` ("dgesv") in the family V.
template <class V>
std::string name_of(const char *routine) {
  return std::string(V::prefix) + routine + V::suffix;
}

// The forwarding target of name_of<V>(routine), as a pointer of type Fn, found on the first call
// (from the object that made it) and kept by the caller in a function-local static.
template <class Fn, class V>
Fn lookup(const char *routine, const void *caller) noexcept {
  try {
    return reinterpret_cast<Fn>(forward_to(name_of<V>(routine).c_str(), caller));
  } catch (...) {
    return nullptr;
  }
}

template <class Int>
bool fits_int(Int v) {
  return v >= std::numeric_limits<int>::min() && v <= std::numeric_limits<int>::max();
}
template <class Int, class... More>
bool fits_int(Int v, More... more) {
  return fits_int(v) && fits_int(more...);
}

// An INTEGER array argument of n entries as an int array: the caller's own array in LP64, a copy
// (narrowed on entry when `in`, widened back by `store`) in ILP64.
template <class Int>
class IntArray {
 public:
  IntArray(Int *p, int64_t n, bool in) : p_(p), copy_(static_cast<size_t>(n > 0 ? n : 0)) {
    if (in)  // (an entry beyond int becomes 0, which libgpueig's checks reject as LAPACK's would)
      for (size_t i = 0; i < copy_.size(); ++i)
        copy_[i] = fits_int(p[i]) ? static_cast<int>(p[i]) : 0;
  }
  int *data() { return copy_.data(); }
  void store(int64_t count) {
    for (int64_t i = 0; i < count; ++i) p_[i] = copy_[static_cast<size_t>(i)];
  }

 private:
  Int *p_;
  std::vector<int> copy_;
};
template <>
class IntArray<int> {
 public:
  IntArray(int *p, int64_t, bool) : p_(p) {}
  int *data() { return p_; }
  void store(int64_t) {}

 private:
  int *p_;
};

// ---- Deciding: libgpueig serves a call only where the GPU runs it -------------------------------

// Whether a call of libgpueig's `routine` at `size` is served, and if not, why (for the log).
// Served: where auto sends it to the GPU (or always with GPUEIG_SHIM=serve). Everywhere else the
// program's own LAPACK runs it, untouched: the shim is never slower than not using it there.
// The reason is words only when printed (why()): deciding costs one gpueig_backend_for call.
struct Verdict {
  bool serve = false;
  const char *fixed = nullptr;  // a reason known here, or else libgpueig's reasons for
  const char *first = nullptr, *second = nullptr;  // these routines at `size`
  long long size = 0;
  const char *note = "";  // appended to the reason

  std::string why() const {
    if (fixed) return std::string(fixed) + note;
    std::string out;
    for (const char *r : {first, second}) {
      if (!r) continue;
      const char *reason = gpueig_backend_reason(r, size);
      out += std::string(out.empty() ? "" : "; ") + "libgpueig's " + r +
             " would run on the CPU: " + (reason ? reason : "unknown routine");
    }
    return out + note;
  }
};

Verdict serve_it() { return {true}; }
Verdict forward_because(const char *why) { return {false, why}; }

// libgpueig's routines behind the served names.
enum class Lib { gtsv, getrf, gesv, getrs, stebz, sytrd, syevd, stein, syevx, count };
constexpr const char *kLibNames[] = {"gtsv",  "getrf", "gesv",  "getrs", "stebz",
                                     "sytrd", "syevd", "stein", "syevx"};

// The smallest size at which libgpueig would run `r` on the GPU (INT64_MAX: at none), asked of
// gpueig_backend_for once per routine and kept, so that deciding is one comparison: a forwarded
// call of a tiny problem must cost next to nothing (DGTSV itself takes 0.4 us at n = 32). What it
// rests on is fixed for a program under LD_PRELOAD: the policy and the crossovers come from its
// environment. (A device lost later still sends a call above the size to libgpueig, whose own
// dispatch then runs it on the CPU.)
int64_t first_served_size(Lib r) {
  static std::atomic<int64_t> cached[static_cast<int>(Lib::count)] = {-1, -1, -1, -1, -1,
                                                                        -1, -1, -1, -1};
  std::atomic<int64_t> &c = cached[static_cast<int>(r)];
  int64_t from = c.load(std::memory_order_relaxed);
  if (from >= 0) return from;
  const char *name = kLibNames[static_cast<int>(r)];
  auto on_gpu = [name](int64_t size) {
    const char *b = gpueig_backend_for(name, size);
    return b && std::strcmp(b, "gpu") == 0;
  };
  int64_t lo = 1, hi = int64_t(1) << 62;  // the answer is monotone in the size
  if (!on_gpu(hi)) {
    from = std::numeric_limits<int64_t>::max();
  } else {
    while (lo < hi) {
      const int64_t mid = lo + (hi - lo) / 2;
      if (on_gpu(mid))
        hi = mid;
      else
        lo = mid + 1;
    }
    from = lo;
  }
  c.store(from, std::memory_order_relaxed);
  return from;
}

Verdict decide(Lib r, long long size) {
  if (serve_everything()) return serve_it();
  if (size <= 0)
    return forward_because(size == 0 ? "nothing to compute" : "invalid size, LAPACK reports it");
  if (size >= first_served_size(r)) return serve_it();
  return {false, nullptr, kLibNames[static_cast<int>(r)], nullptr, size};
}

// Bisection in place of DSTERF (dsterf_, and the eigenvalues of dsyev(d)_'s T). On one processor
// QR is about 20 times faster than bisection for all eigenvalues, so libgpueig's stebz crossover
// (measured against DSTEBZ) is not the one that counts here: the GPU's bisection must beat the
// program's DSTERF, from GPUEIG_SHIM_CROSSOVER_STERF on (src/tuning.hpp). Under the forced
// policy GPUEIG_BACKEND=gpu no crossover applies, this one included: every call runs where asked.
int64_t sterf_crossover() {
  static const int64_t x = [] {
    const char *why = gpueig_backend_reason("stebz", 1);
    if (why && std::strcmp(why, "policy gpu") == 0) return int64_t(0);
    return gpueig::env::integer("GPUEIG_SHIM_CROSSOVER_STERF", gpueig::tuning::kShimCrossoverSterf);
  }();
  return x;
}
const char *below_sterf_crossover() {
  static const std::string why =
      "n below GPUEIG_SHIM_CROSSOVER_STERF = " + std::to_string(sterf_crossover()) +
      ", where the LAPACK's DSTERF beats bisection on the GPU";
  return why.c_str();
}

Verdict decide_bisection(long long n) {
  const Verdict v = decide(Lib::stebz, n);
  if (!v.serve || serve_everything() || n >= sterf_crossover()) return v;
  return forward_because(below_sterf_crossover());
}

// dsyev(d)_ with JOBZ = 'N': served where the reduction or the bisection in place of DSTERF would
// run on the GPU.
Verdict decide_symmetric_values(long long n) {
  const Verdict a = decide(Lib::sytrd, n);
  if (a.serve || a.fixed) return a;
  const Verdict b = decide_bisection(n);
  if (b.serve) return b;
  Verdict both{false, nullptr, kLibNames[static_cast<int>(Lib::sytrd)],
               b.fixed ? nullptr : kLibNames[static_cast<int>(Lib::stebz)], n};
  if (b.fixed)
    both.note =
        b.fixed == below_sterf_crossover() ? "; bisection: below GPUEIG_SHIM_CROSSOVER_STERF" : "";
  return both;
}

constexpr const char *kTooWide = "64-bit INTEGER values beyond the 32-bit range";

bool is(char c, char want) { return (c & ~0x20) == want; }  // LAPACK's case-insensitive LSAME

// ---- Scaling: where DSTERF and DSYEV scale, by a power of two (exact)
// -----------------------------

using gpueig::scaling::kEps;
using gpueig::scaling::kSafmin;
using gpueig::scaling::power_of_two_into;
using gpueig::scaling::triangle_max;

// DSTERF's range for a tridiagonal matrix: SSFMIN = sqrt(SAFMIN)/EPS^2, SSFMAX = sqrt(SAFMAX)/3.
double sterf_scale(int n, const double *d, const double *e) {
  double anorm = 0;  // DLANST('M')
  for (int i = 0; i < n; ++i) anorm = std::max(anorm, std::fabs(d[i]));
  for (int i = 0; i + 1 < n; ++i) anorm = std::max(anorm, std::fabs(e[i]));
  return power_of_two_into(anorm, std::sqrt(kSafmin) / (kEps * kEps), std::sqrt(1 / kSafmin) / 3);
}

// DSYEV(D)'s scale factor for the symmetric matrix (triangle uplo): a power of two into its range
// RMIN = sqrt(SAFMIN/EPS) .. RMAX = sqrt(EPS/SAFMIN), 1 when ||A||_max is there (or NaN or Inf).
double syev_scale(char uplo, int n, const double *a, int64_t lda) {
  return power_of_two_into(triangle_max(uplo, n, a, lda), std::sqrt(kSafmin / kEps),
                           std::sqrt(kEps / kSafmin));
}

// ---- Serving -----------------------------------------------------------------------------------

// One served call's verbose line and its outcome. A libgpueig result r >= 0 is the routine's
// INFO. GPUEIG_ERR_DEVICE (the device failed after part of the outputs was written, or the GPU
// was forced and failed) and GPUEIG_ERR_INTERNAL (outputs unspecified) are returned to the caller
// as INFO, with a line on stderr whatever GPUEIG_VERBOSE says: the outputs may no longer hold the
// inputs, so forwarding would compute a wrong answer from them silently. Every other negative
// result wrote nothing and the call is forwarded (an illegal argument is then reported by the
// LAPACK's own XERBLA, as the program expects).
enum class Outcome { done, forward };

template <class Name, class What>
Outcome outcome_of(const Name &name, int r, const What &what) noexcept {
  if (r >= 0) {
    log(name, [&] { return what() + " -> " + served_by(); });
    return Outcome::done;
  }
  if (r == GPUEIG_ERR_DEVICE || r == GPUEIG_ERR_INTERNAL) {
    try {
      std::fprintf(stderr,
                   "gpueig-lapack: %s %s: libgpueig failed (%d) after its outputs may have been "
                   "partly written; INFO = %d returned instead of a result (GPUEIG_VERBOSE=1 "
                   "says why)\n",
                   name().c_str(), what().c_str(), r, r);
    } catch (...) {
      std::fprintf(stderr,
                   "gpueig-lapack: libgpueig failed (%d) after its outputs may have been "
                   "partly written; INFO = %d returned\n",
                   r, r);
    }
    return Outcome::done;
  }
  log(name, [&] { return what() + " -> LAPACK (forwarded: INFO " + std::to_string(r) + ")"; });
  return Outcome::forward;
}

template <class Name, class What>
void log_forwarded(const Name &name, const What &what, const Verdict &v) noexcept {
  log(name, [&] { return what() + " -> LAPACK (forwarded: " + v.why() + ")"; });
}
template <class Name, class What>
void log_forwarded(const Name &name, const What &what, const char *why) noexcept {
  log_forwarded(name, what, forward_because(why));
}

// All eigenvalues of tridiag(e, d, e) by gpu_stebz into w (ascending), T scaled as DSTERF scales
// it. True on success (false also when memory runs out); d and e are only read.
bool all_eigenvalues(int n, const double *d, const double *e, double *w) noexcept try {
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
  int r =
      gpu_stebz('A', 'E', n, 0, 0, 0, 0, 0.0, d, e, &m, &nsplit, w, iblock.data(), isplit.data());
  if (r != 0 || m != n) return false;
  if (sigma != 1)
    for (int i = 0; i < n; ++i) w[i] /= sigma;
  return true;
} catch (...) {
  return false;
}

constexpr int kNotServed = std::numeric_limits<int>::min();

// dsyev(d) with JOBZ = 'N' and valid arguments (n >= 1), served: the eigenvalues of A (triangle
// uplo) into w, through gpu_sytrd_givens and then bisection (where gpu_stebz runs on the GPU, or
// when told to serve everything) or `sterf(n, d, e)` (the caller's LAPACK's DSTERF, returning its
// INFO). Returns the INFO to report (DSTERF's, as DSYEV reports it), or kNotServed with A as it
// was: the caller forwards.
// No copy of A is made: gpu_sytrd_givens with VECT = 'N' leaves A as it was whenever it fails (its
// GPU path only reads A; on the CPU every allocation precedes DSYTRD, which writes nothing when it
// rejects), so a failed reduction is forwarded; once it succeeded the call is answered whatever
// happens next (bisection failing falls back to DSTERF on the same T), and A, used up as DSYEV
// uses it, is never needed again. Only a matrix DSYEV would scale is reduced from a scaled copy:
// scaling A down in place could not be undone exactly where its entries underflow.
template <class Sterf>
int symmetric_values(char uplo, int n, double *a, int lda, double *w, const Sterf &sterf) noexcept {
  const double sigma = syev_scale(uplo, n, a, lda);
  std::vector<double> d, e, scaled;
  double *r = a;
  int ldr = lda;
  try {
    d.resize(n);
    e.resize(n > 1 ? n - 1 : 1);
    if (sigma != 1) {
      scaled.assign(static_cast<size_t>(n) * n, 0.0);
      for (int64_t j = 0; j < n; ++j) {
        const int64_t lo = is(uplo, 'U') ? 0 : j, hi = is(uplo, 'U') ? j : n - 1;
        for (int64_t i = lo; i <= hi; ++i) scaled[i + j * n] = a[i + j * int64_t(lda)] * sigma;
      }
      r = scaled.data();
      ldr = n;
    }
  } catch (...) {
    return kNotServed;
  }
  double q = 0;
  if (gpu_sytrd_givens('N', uplo, n, r, ldr, d.data(), e.data(), &q, 1) != 0) return kNotServed;
  int info = 0;
  if (!(decide_bisection(n).serve && all_eigenvalues(n, d.data(), e.data(), w))) {
    info = sterf(n, d.data(), e.data());  // DSTERF scales T itself
    if (info == 0) std::copy(d.begin(), d.end(), w);
  }
  if (sigma != 1 && info == 0)
    for (int i = 0; i < n; ++i) w[i] /= sigma;
  return info;
}

// dsterf served by bisection into d; false when it failed (nothing written).
bool serve_sterf(int n, double *d, double *e) noexcept {
  try {
    std::vector<double> w(n);
    if (!all_eigenvalues(n, d, e, w.data())) return false;
    std::copy(w.begin(), w.end(), d);
    return true;
  } catch (...) {
    return false;
  }
}

// ---- The routines, once for every name family
// ---------------------------------------------------- Each shim_<routine><V> is what the four
// exported names of the routine run (the EXPORT macros below): `caller` is the return address of
// the exported function, the object whose LAPACK a forwarded call goes to.

// Runs a shim's attempt to serve (true: the call is complete) at depth 1, so that the LAPACK
// calls made inside go straight to LAPACK. An exception (no memory for a log line or a copy,
// always thrown before any output is written) means not served.
template <class Body>
bool served(Body &&body) noexcept {
  Serving guard;
  try {
    return body();
  } catch (...) {
    return false;
  }
}

#define FORWARD_OR_FAIL(...)     \
  do {                           \
    if (!real) {                 \
      *info = GPUEIG_ERR_LAPACK; \
      return;                    \
    }                            \
    real(__VA_ARGS__);           \
  } while (0)

template <class V, class Int = typename V::Int>
void shim_dgtsv(const void *caller, const Int *n, const Int *nrhs, double *dl, double *d,
                double *du, double *b, const Int *ldb, Int *info) {
  using Fn = void (*)(const Int *, const Int *, double *, double *, double *, double *, const Int *,
                      Int *);
  static const Fn real = lookup<Fn, V>("dgtsv", caller);
  if (t_depth == 0 && served([&] {
        const auto name = [] { return name_of<V>("dgtsv"); };
        const auto what = [&] { return dims({{"n", *n}, {"nrhs", *nrhs}}); };
        const Verdict v =
            fits_int(*n, *nrhs, *ldb) ? decide(Lib::gtsv, *n) : forward_because(kTooWide);
        if (!v.serve) {
          log_forwarded(name, what, v);
        } else {
          const int r = gpu_gtsv_pcr(int(*n), int(*nrhs), dl, d, du, b, int(*ldb));
          if (outcome_of(name, r, what) == Outcome::done) {
            *info = r;
            return true;
          }
        }
        return false;
      }))
    return;
  FORWARD_OR_FAIL(n, nrhs, dl, d, du, b, ldb, info);
}

template <class V, class Int = typename V::Int>
void shim_dgetrf(const void *caller, const Int *m, const Int *n, double *a, const Int *lda,
                 Int *ipiv, Int *info) {
  using Fn = void (*)(const Int *, const Int *, double *, const Int *, Int *, Int *);
  static const Fn real = lookup<Fn, V>("dgetrf", caller);
  if (t_depth == 0 && served([&] {
        const auto name = [] { return name_of<V>("dgetrf"); };
        const auto what = [&] { return dims({{"m", *m}, {"n", *n}}); };
        const Verdict v = fits_int(*m, *n, *lda) ? decide(Lib::getrf, gpueig::tuning::getrf_work_size(*m, *n))
                                                 : forward_because(kTooWide);
        if (!v.serve) {
          log_forwarded(name, what, v);
        } else {
          IntArray<Int> piv(ipiv, std::min(*m, *n), false);
          const int r = gpu_getrf_crout(int(*m), int(*n), a, int(*lda), piv.data());
          if (outcome_of(name, r, what) == Outcome::done) {
            if (r >= 0) piv.store(std::min(*m, *n));
            *info = r;
            return true;
          }
        }
        return false;
      }))
    return;
  FORWARD_OR_FAIL(m, n, a, lda, ipiv, info);
}

template <class V, class Int = typename V::Int>
void shim_dgesv(const void *caller, const Int *n, const Int *nrhs, double *a, const Int *lda,
                Int *ipiv, double *b, const Int *ldb, Int *info) {
  using Fn = void (*)(const Int *, const Int *, double *, const Int *, Int *, double *, const Int *,
                      Int *);
  static const Fn real = lookup<Fn, V>("dgesv", caller);
  if (t_depth == 0 && served([&] {
        const auto name = [] { return name_of<V>("dgesv"); };
        const auto what = [&] { return dims({{"n", *n}, {"nrhs", *nrhs}}); };
        const Verdict v =
            fits_int(*n, *nrhs, *lda, *ldb) ? decide(Lib::gesv, *n) : forward_because(kTooWide);
        if (!v.serve) {
          log_forwarded(name, what, v);
        } else {
          IntArray<Int> piv(ipiv, *n, false);
          const int r = gpu_gesv_crout(int(*n), int(*nrhs), a, int(*lda), piv.data(), b, int(*ldb));
          if (outcome_of(name, r, what) == Outcome::done) {
            if (r >= 0) piv.store(*n);
            *info = r;
            return true;
          }
        }
        return false;
      }))
    return;
  FORWARD_OR_FAIL(n, nrhs, a, lda, ipiv, b, ldb, info);
}

template <class V, class Int = typename V::Int>
void shim_dgetrs(const void *caller, const char *trans, const Int *n, const Int *nrhs,
                 const double *a, const Int *lda, const Int *ipiv, double *b, const Int *ldb,
                 Int *info, size_t ltrans) {
  using Fn = void (*)(const char *, const Int *, const Int *, const double *, const Int *,
                      const Int *, double *, const Int *, Int *, size_t);
  static const Fn real = lookup<Fn, V>("dgetrs", caller);
  if (t_depth == 0 && served([&] {
        const auto name = [] { return name_of<V>("dgetrs"); };
        const auto what = [&] { return dims({{"n", *n}, {"nrhs", *nrhs}}) + " TRANS=" + *trans; };
        const Verdict v =
            fits_int(*n, *nrhs, *lda, *ldb) ? decide(Lib::getrs, *n) : forward_because(kTooWide);
        if (!v.serve) {
          log_forwarded(name, what, v);
        } else {
          IntArray<Int> piv(const_cast<Int *>(ipiv), *n > 0 ? *n : 0, true);
          const int r =
              gpu_getrs_crout(*trans, int(*n), int(*nrhs), a, int(*lda), piv.data(), b, int(*ldb));
          if (outcome_of(name, r, what) == Outcome::done) {
            *info = r;
            return true;
          }
        }
        return false;
      }))
    return;
  FORWARD_OR_FAIL(trans, n, nrhs, a, lda, ipiv, b, ldb, info, ltrans);
}

template <class V, class Int = typename V::Int>
void shim_dstebz(const void *caller, const char *range, const char *order, const Int *n,
                 const double *vl, const double *vu, const Int *il, const Int *iu,
                 const double *abstol, const double *d, const double *e, Int *m, Int *nsplit,
                 double *w, Int *iblock, Int *isplit, double *work, Int *iwork, Int *info,
                 size_t lrange, size_t lorder) {
  using Fn = void (*)(const char *, const char *, const Int *, const double *, const double *,
                      const Int *, const Int *, const double *, const double *, const double *,
                      Int *, Int *, double *, Int *, Int *, double *, Int *, Int *, size_t, size_t);
  static const Fn real = lookup<Fn, V>("dstebz", caller);
  if (t_depth == 0 && served([&] {
        const auto name = [] { return name_of<V>("dstebz"); };
        const auto what = [&] {
          return dims({{"n", *n}}) + " RANGE=" + *range + " ORDER=" + *order;
        };
        const Verdict v =
            fits_int(*n, *il, *iu) ? decide(Lib::stebz, *n) : forward_because(kTooWide);
        if (!v.serve) {
          log_forwarded(name, what, v);
        } else {
          const int64_t len = *n > 0 ? *n : 0;
          IntArray<Int> blocks(iblock, len, false), splits(isplit, len, false);
          // M and NSPLIT as gpu_stebz writes them (DSTEBZ leaves NSPLIT for N = 0): a sentinel
          // no result takes marks the one it did not write.
          constexpr int kNone = std::numeric_limits<int>::min();
          int mm = kNone, ns = kNone;
          const int r = gpu_stebz(*range, *order, int(*n), *vl, *vu, int(*il), int(*iu), *abstol, d,
                                  e, &mm, &ns, w, blocks.data(), splits.data());
          if (outcome_of(name, r, what) == Outcome::done) {
            if (mm != kNone) *m = mm;
            if (ns != kNone) *nsplit = ns;
            if (r >= 0) {
              blocks.store(mm != kNone ? mm : 0);
              splits.store(ns != kNone ? ns : 0);
            }
            *info = r;
            return true;
          }
        }
        return false;
      }))
    return;
  FORWARD_OR_FAIL(range, order, n, vl, vu, il, iu, abstol, d, e, m, nsplit, w, iblock, isplit, work,
                  iwork, info, lrange, lorder);
}

template <class V, class Int = typename V::Int>
void shim_dstein(const void *caller, const Int *n, const double *d, const double *e, const Int *m,
                 const double *w, const Int *iblock, const Int *isplit, double *z, const Int *ldz,
                 double *work, Int *iwork, Int *ifail, Int *info) {
  using Fn = void (*)(const Int *, const double *, const double *, const Int *, const double *,
                      const Int *, const Int *, double *, const Int *, double *, Int *, Int *, Int *);
  static const Fn real = lookup<Fn, V>("dstein", caller);
  if (t_depth == 0 && served([&] {
        const auto name = [] { return name_of<V>("dstein"); };
        const auto what = [&] { return dims({{"n", *n}, {"m", *m}}); };
        const Verdict v =
            fits_int(*n, *m, *ldz) ? decide(Lib::stein, *m) : forward_because(kTooWide);
        if (!v.serve) {
          log_forwarded(name, what, v);
          return false;
        }
        const int64_t mm = *m > 0 ? *m : 0, nn = *n > 0 ? *n : 0;
        IntArray<Int> blocks(const_cast<Int *>(iblock), mm, true);
        IntArray<Int> splits(const_cast<Int *>(isplit), nn, true), fails(ifail, mm, false);
        // (an argument gpu_stein rejects, NaN entries included, goes to DSTEIN as it was)
        const int r = gpu_stein(int(*n), d, e, int(*m), w, blocks.data(), splits.data(), z,
                                int(*ldz), fails.data());
        if (outcome_of(name, r, what) != Outcome::done) return false;
        if (r >= 0) fails.store(mm);
        *info = r;
        return true;
      }))
    return;
  FORWARD_OR_FAIL(n, d, e, m, w, iblock, isplit, z, ldz, work, iwork, ifail, info);
}

template <class V, class Int = typename V::Int>
void shim_dsterf(const void *caller, const Int *n, double *d, double *e, Int *info) {
  using Fn = void (*)(const Int *, double *, double *, Int *);
  static const Fn real = lookup<Fn, V>("dsterf", caller);
  if (t_depth == 0 && served([&] {
        const auto name = [] { return name_of<V>("dsterf"); };
        const auto what = [&] { return dims({{"n", *n}}); };
        Verdict v = !fits_int(*n) ? forward_because(kTooWide)
                    : *n <= 0     ? forward_because(*n == 0 ? "nothing to compute"
                                                            : "invalid N, LAPACK reports it")
                                  : decide_bisection(*n);
        if (!v.serve) {
          if (!v.fixed) v.note = " (there LAPACK's QR is faster than bisection)";
          log_forwarded(name, what, v);
        } else if (serve_sterf(int(*n), d, e)) {
          *info = 0;
          log(name,
              [&] { return what() + " -> libgpueig gpu_stebz (" + gpueig_last_backend() + ")"; });
          return true;
        } else {
          log_forwarded(name, what, "bisection failed");
        }
        return false;
      }))
    return;
  FORWARD_OR_FAIL(n, d, e, info);
}

// Whether dsyev(d) is served: a call with valid arguments and a workspace LAPACK accepts
// (`enough(N, wantz)`) where libgpueig runs it on the GPU: JOBZ = 'N' where its reduction or
// bisection does, JOBZ = 'V' where gpu_syevd does; anything else says why it goes to LAPACK.
template <class Int, class Enough>
Verdict eigen_verdict(const char *jobz, const char *uplo, const Int *n, const Int *lda, bool query,
                      Enough &&enough) {
  const bool wantz = is(*jobz, 'V');
  if (!wantz && !is(*jobz, 'N')) return forward_because("invalid JOBZ, LAPACK reports it");
  if (query) return forward_because("workspace query");
  if (!fits_int(*n, *lda)) return forward_because(kTooWide);
  // (enough(n, wantz): the workspace LAPACK asks for, computed only once N is known to fit an int)
  if (!(is(*uplo, 'U') || is(*uplo, 'L')) || *n < 0 || *lda < std::max<Int>(*n, 1) ||
      !enough(*n, wantz))
    return forward_because("invalid argument, LAPACK reports it");
  if (*n == 0) return forward_because("nothing to compute");
  return wantz ? decide(Lib::syevd, *n) : decide_symmetric_values(*n);
}

// DSTERF in the family V, found beside `real` (the caller's own dsyev or dsyevd), as
// symmetric_values calls it: int(n, d, e) returning its INFO. `ready` is false where that LAPACK
// has no dsterf: then nothing is served (it is needed once A is used up).
template <class V, class Int = typename V::Int>
struct SterfBeside {
  using Fn = void (*)(const Int *, double *, double *, Int *);
  Fn fn;
  explicit SterfBeside(const void *real) : fn(nullptr) {
    static const Fn found = lookup<Fn, V>("dsterf", real);
    fn = found;
  }
  bool ready() const { return fn != nullptr; }
  int operator()(int n, double *d, double *e) const {
    const Int nn = n;
    Int info = 0;
    fn(&nn, d, e, &info);
    return static_cast<int>(info);
  }
};

// The served part of dsyev(d) in the family V (`Real` its forwarding target): the verdict, the
// eigenvalues (and for JOBZ = 'V' the eigenvectors, by gpu_syevd), and `report_workspace()`
// filling WORK(1) (and IWORK(1)) as LAPACK reports them. True when the call is answered.
template <class V, class Int, class Real, class ReportWorkspace>
bool serve_values(const char *routine, Real real, const char *jobz, const char *uplo, const Int *n,
                  double *a, const Int *lda, double *w, Int *info, const Verdict &verdict,
                  ReportWorkspace &&report_workspace) {
  const auto name = [routine] { return name_of<V>(routine); };
  const auto what = [&] { return dims({{"n", *n}}) + " JOBZ=" + *jobz; };
  if (is(*jobz, 'V')) {
    if (!verdict.serve) {
      log_forwarded(name, what, verdict);
      return false;
    }
    const int r = gpu_syevd('V', *uplo, int(*n), a, int(*lda), w);
    if (outcome_of(name, r, what) != Outcome::done) return false;
    if (r >= 0) report_workspace();
    *info = r;
    return true;
  }
  const SterfBeside<V> sterf(reinterpret_cast<const void *>(real));
  if (!verdict.serve || !sterf.ready()) {
    if (verdict.serve)
      log_forwarded(name, what, "no dsterf beside it");
    else
      log_forwarded(name, what, verdict);
    return false;
  }
  const int status = symmetric_values(*uplo, int(*n), a, int(*lda), w, sterf);
  if (status == kNotServed) {
    log_forwarded(name, what, "libgpueig's reduction failed, A as it was");
    return false;
  }
  report_workspace();
  *info = status;
  log(name, [&] { return what() + " -> " + served_by(); });
  return true;
}

template <class V, class Int = typename V::Int>
void shim_dsyev(const void *caller, const char *jobz, const char *uplo, const Int *n, double *a,
                const Int *lda, double *w, double *work, const Int *lwork, Int *info, size_t ljobz,
                size_t luplo) {
  using Fn = void (*)(const char *, const char *, const Int *, double *, const Int *, double *,
                      double *, const Int *, Int *, size_t, size_t);
  static const Fn real = lookup<Fn, V>("dsyev", caller);
  if (t_depth == 0 && real && served([&] {
        const Verdict v = eigen_verdict(jobz, uplo, n, lda, *lwork == -1, [&](int64_t nn, bool) {
          return *lwork >= std::max<int64_t>(3 * nn - 1, 1);
        });
        return serve_values<V>("dsyev", real, jobz, uplo, n, a, lda, w, info, v, [&] {
          const Int query = -1;  // WORK(1): the optimal LWORK
          Int qinfo = 0;
          double opt = 0, unused = 0;
          real(jobz, uplo, n, a, lda, &unused, &opt, &query, &qinfo, ljobz, luplo);
          work[0] = opt;
        });
      }))
    return;
  FORWARD_OR_FAIL(jobz, uplo, n, a, lda, w, work, lwork, info, ljobz, luplo);
}

template <class V, class Int = typename V::Int>
void shim_dsyevd(const void *caller, const char *jobz, const char *uplo, const Int *n, double *a,
                 const Int *lda, double *w, double *work, const Int *lwork, Int *iwork,
                 const Int *liwork, Int *info, size_t ljobz, size_t luplo) {
  using Fn = void (*)(const char *, const char *, const Int *, double *, const Int *, double *,
                      double *, const Int *, Int *, const Int *, Int *, size_t, size_t);
  static const Fn real = lookup<Fn, V>("dsyevd", caller);
  if (t_depth == 0 && real && served([&] {
        const Verdict v = eigen_verdict(
            jobz, uplo, n, lda, *lwork == -1 || *liwork == -1, [&](int64_t nn, bool wantz) {
              // DSYEVD's minimum LWORK and LIWORK
              if (nn <= 1) return *lwork >= 1 && *liwork >= 1;
              return wantz ? *lwork >= 1 + 6 * nn + 2 * nn * nn && *liwork >= 3 + 5 * nn
                           : *lwork >= 2 * nn + 1 && *liwork >= 1;
            });
        return serve_values<V>("dsyevd", real, jobz, uplo, n, a, lda, w, info, v, [&] {
          const Int query = -1;  // WORK(1), IWORK(1): the optimal LWORK, LIWORK
          Int qinfo = 0, iopt = 0;
          double opt = 0, unused = 0;
          real(jobz, uplo, n, a, lda, &unused, &opt, &query, &iopt, &query, &qinfo, ljobz, luplo);
          work[0] = opt;
          iwork[0] = iopt;
        });
      }))
    return;
  FORWARD_OR_FAIL(jobz, uplo, n, a, lda, w, work, lwork, iwork, liwork, info, ljobz, luplo);
}

// Whether dsyevx / dsyevr is served: valid arguments (gpu_syevx checks them as DSYEVX does;
// what it rejects is forwarded, and LAPACK reports it), a workspace LAPACK accepts, N >= 2 (N = 1
// is LAPACK's quick return), where libgpueig runs it on the GPU: the whole spectrum where
// gpu_syevd does (JOBZ 'V'; 'N' where the reduction does), a subset where gpu_syevx does.
template <class Int>
Verdict selected_verdict(const char *jobz, const char *range, const Int *n, const Int *il,
                         const Int *iu, bool query, bool enough, std::initializer_list<Int> ints) {
  if (query) return forward_because("workspace query");
  for (Int v : ints)
    if (!fits_int(v)) return forward_because(kTooWide);
  if (!enough) return forward_because("workspace too small, LAPACK reports it");
  if (*n <= 1) return forward_because(*n < 0 ? "invalid N, LAPACK reports it" : "order 0 or 1: LAPACK's quick return");
  const bool whole = is(*range, 'A') || (is(*range, 'I') && *il == 1 && *iu == *n);
  if (!whole) return decide(Lib::syevx, *n);
  return is(*jobz, 'V') ? decide(Lib::syevd, *n) : decide(Lib::sytrd, *n);
}

// DSYEVX / DSYEVR served by gpu_syevx (IFAIL for DSYEVX; DSYEVR has none, and its INFO > 0 is an
// internal error, as such an INFO from gpu_syevx's LAPACK fallback is reported there).
template <class V, class Int>
bool serve_selected(const char *routine, const char *jobz, const char *range, const char *uplo,
                    const Int *n, double *a, const Int *lda, const double *vl, const double *vu,
                    const Int *il, const Int *iu, double abstol, Int *m, double *w, double *z,
                    const Int *ldz, Int *ifail, Int *info, const Verdict &verdict) {
  const auto name = [routine] { return name_of<V>(routine); };
  const auto what = [&] { return dims({{"n", *n}}) + " JOBZ=" + *jobz + " RANGE=" + *range; };
  if (!verdict.serve) {
    log_forwarded(name, what, verdict);
    return false;
  }
  const int64_t nn = *n;
  std::vector<int> fails(is(*jobz, 'V') ? nn : 1, 0);
  int mm = 0;
  const int r = gpu_syevx(*jobz, *range, *uplo, int(*n), a, int(*lda), *vl, *vu, int(*il), int(*iu), abstol,
                          &mm, w, z, int(*ldz), fails.data());
  if (outcome_of(name, r, what) != Outcome::done) return false;
  if (r >= 0) {
    *m = mm;
    if (ifail && is(*jobz, 'V'))
      for (int j = 0; j < (r > 0 ? r : mm); ++j) ifail[j] = fails[j];
  }
  *info = r;
  return true;
}

template <class V, class Int = typename V::Int>
void shim_dsyevx(const void *caller, const char *jobz, const char *range, const char *uplo, const Int *n,
                 double *a, const Int *lda, const double *vl, const double *vu, const Int *il, const Int *iu,
                 const double *abstol, Int *m, double *w, double *z, const Int *ldz, double *work,
                 const Int *lwork, Int *iwork, Int *ifail, Int *info, size_t ljobz, size_t lrange,
                 size_t luplo) {
  using Fn = void (*)(const char *, const char *, const char *, const Int *, double *, const Int *,
                      const double *, const double *, const Int *, const Int *, const double *, Int *,
                      double *, double *, const Int *, double *, const Int *, Int *, Int *, Int *, size_t,
                      size_t, size_t);
  static const Fn real = lookup<Fn, V>("dsyevx", caller);
  if (t_depth == 0 && real && served([&] {
        // DSYEVX's minimum LWORK: 1 for N <= 1, else 8 N
        const bool enough = *lwork >= (*n <= 1 ? 1 : 8 * static_cast<int64_t>(*n));
        const Verdict v = selected_verdict(jobz, range, n, il, iu, *lwork == -1, enough,
                                           {*n, *lda, *il, *iu, *ldz});
        if (!serve_selected<V>("dsyevx", jobz, range, uplo, n, a, lda, vl, vu, il, iu, *abstol, m, w, z, ldz,
                               ifail, info, v))
          return false;
        const Int query = -1;  // WORK(1): the optimal LWORK
        Int qm = 0, qinfo = 0;
        double opt = 0;
        real(jobz, range, uplo, n, a, lda, vl, vu, il, iu, abstol, &qm, w, z, ldz, &opt, &query, iwork,
             ifail, &qinfo, ljobz, lrange, luplo);
        if (qinfo == 0) work[0] = opt;
        return true;
      }))
    return;
  FORWARD_OR_FAIL(jobz, range, uplo, n, a, lda, vl, vu, il, iu, abstol, m, w, z, ldz, work, lwork, iwork,
                  ifail, info, ljobz, lrange, luplo);
}

template <class V, class Int = typename V::Int>
void shim_dsyevr(const void *caller, const char *jobz, const char *range, const char *uplo, const Int *n,
                 double *a, const Int *lda, const double *vl, const double *vu, const Int *il, const Int *iu,
                 const double *abstol, Int *m, double *w, double *z, const Int *ldz, Int *isuppz,
                 double *work, const Int *lwork, Int *iwork, const Int *liwork, Int *info, size_t ljobz,
                 size_t lrange, size_t luplo) {
  using Fn = void (*)(const char *, const char *, const char *, const Int *, double *, const Int *,
                      const double *, const double *, const Int *, const Int *, const double *, Int *,
                      double *, double *, const Int *, Int *, double *, const Int *, Int *, const Int *, Int *,
                      size_t, size_t, size_t);
  static const Fn real = lookup<Fn, V>("dsyevr", caller);
  if (t_depth == 0 && real && served([&] {
        // DSYEVR's minimum LWORK and LIWORK: max(1, 26 N) and max(1, 10 N)
        const int64_t nn = std::max<int64_t>(1, *n);
        const bool enough = *lwork >= 26 * nn && *liwork >= 10 * nn;
        const Verdict v = selected_verdict(jobz, range, n, il, iu, *lwork == -1 || *liwork == -1, enough,
                                           {*n, *lda, *il, *iu, *ldz});
        // DSYEVR ignores ABSTOL for the whole spectrum (MRRR, or DSTERF, to full accuracy), where
        // DSYEVX (gpu_syevx's CPU fallback) would bisect only to it: 0 there.
        const bool whole = is(*range, 'A') || (is(*range, 'I') && *il == 1 && *iu == *n);
        if (!serve_selected<V, Int>("dsyevr", jobz, range, uplo, n, a, lda, vl, vu, il, iu, whole ? 0.0 : *abstol,
                                    m, w, z, ldz, nullptr, info, v))
          return false;
        // ISUPPZ (the whole spectrum with vectors only, as DSYEVR fills it): the first and last
        // nonzero row of each vector, 1-based.
        if (*info == 0 && is(*jobz, 'V') && whole)
          for (int64_t j = 0; j < *m; ++j) {
            const double *col = z + j * static_cast<int64_t>(*ldz);
            int64_t lo = 0, hi = *n - 1;
            while (lo < hi && col[lo] == 0) ++lo;
            while (hi > lo && col[hi] == 0) --hi;
            isuppz[2 * j] = static_cast<Int>(lo + 1);
            isuppz[2 * j + 1] = static_cast<Int>(hi + 1);
          }
        const Int query = -1;  // WORK(1), IWORK(1): the optimal LWORK, LIWORK
        Int qm = 0, qinfo = 0, iopt = 0;
        double opt = 0;
        real(jobz, range, uplo, n, a, lda, vl, vu, il, iu, abstol, &qm, w, z, ldz, isuppz, &opt, &query, &iopt,
             &query, &qinfo, ljobz, lrange, luplo);
        if (qinfo == 0) work[0] = opt, iwork[0] = iopt;
        return true;
      }))
    return;
  FORWARD_OR_FAIL(jobz, range, uplo, n, a, lda, vl, vu, il, iu, abstol, m, w, z, ldz, isuppz, work, lwork,
                  iwork, liwork, info, ljobz, lrange, luplo);
}

}  // namespace

// ---- The exported names ------------------------------------------------------------------------
// EXPORT(routine, PARAMS, (ARGS)): the routine's four names (Lp64, ScipyLp64, Ilp64,
// ScipyIlp64), PARAMS(I) its parameter list with INTEGER as I, (ARGS) its arguments after
// `caller`, in parentheses.
#define WITH_CALLER(...) (__builtin_return_address(0), __VA_ARGS__)
#define EXPORT_ONE(sym, V, PARAMS, ARGS, routine) \
  void sym(PARAMS(V::Int)) { shim_##routine<V> WITH_CALLER ARGS; }
#define EXPORT(routine, PARAMS, ARGS)                              \
  EXPORT_ONE(routine##_, Lp64, PARAMS, ARGS, routine)              \
  EXPORT_ONE(scipy_##routine##_, ScipyLp64, PARAMS, ARGS, routine) \
  EXPORT_ONE(routine##_64_, Ilp64, PARAMS, ARGS, routine)          \
  EXPORT_ONE(scipy_##routine##_64_, ScipyIlp64, PARAMS, ARGS, routine)

#define DGTSV_PARAMS(I) \
  const I *n, const I *nrhs, double *dl, double *d, double *du, double *b, const I *ldb, I *info
#define DGETRF_PARAMS(I) const I *m, const I *n, double *a, const I *lda, I *ipiv, I *info
#define DGESV_PARAMS(I) \
  const I *n, const I *nrhs, double *a, const I *lda, I *ipiv, double *b, const I *ldb, I *info
#define DGETRS_PARAMS(I)                                                                      \
  const char *trans, const I *n, const I *nrhs, const double *a, const I *lda, const I *ipiv, \
      double *b, const I *ldb, I *info, size_t ltrans
#define DSTEBZ_PARAMS(I)                                                                          \
  const char *range, const char *order, const I *n, const double *vl, const double *vu,           \
      const I *il, const I *iu, const double *abstol, const double *d, const double *e, I *m,     \
      I *nsplit, double *w, I *iblock, I *isplit, double *work, I *iwork, I *info, size_t lrange, \
      size_t lorder
#define DSTERF_PARAMS(I) const I *n, double *d, double *e, I *info
#define DSTEIN_PARAMS(I)                                                                      \
  const I *n, const double *d, const double *e, const I *m, const double *w, const I *iblock, \
      const I *isplit, double *z, const I *ldz, double *work, I *iwork, I *ifail, I *info
#define DSYEV_PARAMS(I)                                                               \
  const char *jobz, const char *uplo, const I *n, double *a, const I *lda, double *w, \
      double *work, const I *lwork, I *info, size_t ljobz, size_t luplo
#define DSYEVX_PARAMS(I)                                                                           \
  const char *jobz, const char *range, const char *uplo, const I *n, double *a, const I *lda,      \
      const double *vl, const double *vu, const I *il, const I *iu, const double *abstol, I *m,    \
      double *w, double *z, const I *ldz, double *work, const I *lwork, I *iwork, I *ifail, I *info, \
      size_t ljobz, size_t lrange, size_t luplo
#define DSYEVR_PARAMS(I)                                                                           \
  const char *jobz, const char *range, const char *uplo, const I *n, double *a, const I *lda,      \
      const double *vl, const double *vu, const I *il, const I *iu, const double *abstol, I *m,    \
      double *w, double *z, const I *ldz, I *isuppz, double *work, const I *lwork, I *iwork,       \
      const I *liwork, I *info, size_t ljobz, size_t lrange, size_t luplo
#define DSYEVD_PARAMS(I)                                                              \
  const char *jobz, const char *uplo, const I *n, double *a, const I *lda, double *w, \
      double *work, const I *lwork, I *iwork, const I *liwork, I *info, size_t ljobz, size_t luplo

extern "C" {
EXPORT(dgtsv, DGTSV_PARAMS, (n, nrhs, dl, d, du, b, ldb, info))
EXPORT(dgetrf, DGETRF_PARAMS, (m, n, a, lda, ipiv, info))
EXPORT(dgesv, DGESV_PARAMS, (n, nrhs, a, lda, ipiv, b, ldb, info))
EXPORT(dgetrs, DGETRS_PARAMS, (trans, n, nrhs, a, lda, ipiv, b, ldb, info, ltrans))
EXPORT(dstebz, DSTEBZ_PARAMS,
       (range, order, n, vl, vu, il, iu, abstol, d, e, m, nsplit, w, iblock, isplit, work, iwork,
        info, lrange, lorder))
EXPORT(dsterf, DSTERF_PARAMS, (n, d, e, info))
EXPORT(dstein, DSTEIN_PARAMS, (n, d, e, m, w, iblock, isplit, z, ldz, work, iwork, ifail, info))
EXPORT(dsyev, DSYEV_PARAMS, (jobz, uplo, n, a, lda, w, work, lwork, info, ljobz, luplo))
EXPORT(dsyevx, DSYEVX_PARAMS,
       (jobz, range, uplo, n, a, lda, vl, vu, il, iu, abstol, m, w, z, ldz, work, lwork, iwork, ifail, info,
        ljobz, lrange, luplo))
EXPORT(dsyevr, DSYEVR_PARAMS,
       (jobz, range, uplo, n, a, lda, vl, vu, il, iu, abstol, m, w, z, ldz, isuppz, work, lwork, iwork, liwork,
        info, ljobz, lrange, luplo))
EXPORT(dsyevd, DSYEVD_PARAMS,
       (jobz, uplo, n, a, lda, w, work, lwork, iwork, liwork, info, ljobz, luplo))
}  // extern "C"
