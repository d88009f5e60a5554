// The LD_PRELOAD shim as a user meets it: an ordinary LAPACK client (linked against the system
// LAPACK only, like tests/preload) whose calls libgpueig_lapack.so intercepts, timed against
//   - the program's own LAPACK in the same process (the same routine through dlsym on the LAPACK
//     library's own handle, which the shim cannot intercept): "never slower" is served / own;
//   - for dsyevd and dgesv (where a CUDA device is present), what a GPU user writes by hand with
//     cuSOLVER: upload, cusolverDnDsyevd
//     (JOBZ = 'N') or cusolverDnDgetrf + cusolverDnDgetrs, download; the handle, the device
//     buffers and the workspace are made once per size, outside the timing (the anchor's best
//     case).
// Every time is host wall time of one whole call (inputs copied in untimed before each call); the
// paths are interleaved repetition by repetition after one untimed warm-up call each, the first
// (cold) call of each path is reported apart, and medians are taken. Each served result is
// checked against the own LAPACK's (eigenvalues: max |w - w_own| / (n eps ||A||); solves: the
// dget02 ratio); a ratio above 30 fails the run.
//
//   LD_PRELOAD=build/libgpueig_lapack.so build/bench/shim_bench ROUTINE N[,N...] [REPS]
//   ROUTINE: dsyevd dsyev dsterf dstebz dgetrf dgesv dgetrs dgtsv, and dsyevd_v dsyev_v (JOBZ =
//   'V'; served where gpu_syevd runs on the GPU), dsyevx_1pct dsyevr_1pct (the smallest 1% of
//   the eigenpairs, RANGE 'I'; served where gpu_syevx runs on the GPU: GPUEIG_CROSSOVER_SYEVX
//   until its crossover is measured) (REPS default 5; dgetrs: NRHS
//   from SHIM_BENCH_NRHS, default 1)
// Without the shim loaded it says so and exits 2.
#include <cuda_runtime.h>
#include <cusolverDn.h>
#include <dlfcn.h>

#include <algorithm>
#include <cfloat>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#ifndef GPUEIG_LAPACK_SONAME
#define GPUEIG_LAPACK_SONAME "liblapack.so.3"
#endif

extern "C" {
void dsyevd_(const char *, const char *, const int *, double *, const int *, double *, double *,
             const int *, int *, const int *, int *, size_t, size_t);
void dsyev_(const char *, const char *, const int *, double *, const int *, double *, double *,
            const int *, int *, size_t, size_t);
void dsterf_(const int *, double *, double *, int *);
void dsyevx_(const char *, const char *, const char *, const int *, double *, const int *, const double *,
             const double *, const int *, const int *, const double *, int *, double *, double *, const int *,
             double *, const int *, int *, int *, int *, size_t, size_t, size_t);
void dsyevr_(const char *, const char *, const char *, const int *, double *, const int *, const double *,
             const double *, const int *, const int *, const double *, int *, double *, double *, const int *,
             int *, double *, const int *, int *, const int *, int *, size_t, size_t, size_t);
void dstebz_(const char *, const char *, const int *, const double *, const double *, const int *,
             const int *, const double *, const double *, const double *, int *, int *, double *,
             int *, int *, double *, int *, int *, size_t, size_t);
void dgetrf_(const int *, const int *, double *, const int *, int *, int *);
void dgesv_(const int *, const int *, double *, const int *, int *, double *, const int *, int *);
void dgetrs_(const char *, const int *, const int *, const double *, const int *, const int *,
             double *, const int *, int *, size_t);
void dgtsv_(const int *, const int *, double *, double *, double *, double *, const int *, int *);
}

namespace {

using Vec = std::vector<double>;

#define CHECK(cond, ...)                  \
  do {                                    \
    if (!(cond)) {                        \
      std::fprintf(stderr, __VA_ARGS__);  \
      std::fprintf(stderr, "\n");         \
      std::exit(2);                       \
    }                                     \
  } while (0)

// The same routine in the program's own LAPACK, past the shim.
template <class F>
F own(const char *name) {
  static void *h = dlopen(GPUEIG_LAPACK_SONAME, RTLD_NOW | RTLD_LOCAL);
  CHECK(h, "cannot load %s", GPUEIG_LAPACK_SONAME);
  void *p = dlsym(h, name);
  CHECK(p, "%s has no %s", GPUEIG_LAPACK_SONAME, name);
  Dl_info info{};
  CHECK(dladdr(p, &info) && !std::strstr(info.dli_fname, "gpueig"), "own %s resolves to the shim", name);
  return reinterpret_cast<F>(p);
}

bool shim_loaded() {
  Dl_info info{};
  return dladdr(reinterpret_cast<void *>(&dsyevd_), &info) && info.dli_fname &&
         std::strstr(info.dli_fname, "libgpueig_lapack");
}

double ms_of(const std::function<void()> &f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

double median(Vec v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// One timed path: prepare() copies its inputs in (untimed), run() is the call.
struct Path {
  std::string name;
  std::function<void()> prepare, run;
  double first = 0;
  Vec times;
};

// First calls, one warm-up each, then `reps` interleaved repetitions.
void time_paths(std::vector<Path> &paths, int reps) {
  for (Path &p : paths) {
    p.prepare();
    p.first = ms_of(p.run);
  }
  for (Path &p : paths) {
    p.prepare();
    p.run();
  }
  for (int r = 0; r < reps; ++r)
    for (Path &p : paths) {
      p.prepare();
      p.times.push_back(ms_of(p.run));
    }
}

Vec uniform(size_t count, uint64_t seed, double lo = -1, double hi = 1) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(lo, hi);
  Vec v(count);
  for (double &x : v) x = u(g);
  return v;
}

Vec symmetric(int n, uint64_t seed) {
  Vec a = uniform(size_t(n) * n, seed);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < j; ++i) a[i + size_t(j) * n] = a[j + size_t(i) * n];
  return a;
}

double max_abs(const Vec &v) {
  double m = 0;
  for (double x : v) m = std::max(m, std::fabs(x));
  return m;
}

// max |x - y| / (n eps scale): the eigenvalue ratio against the own LAPACK's.
double value_ratio(const Vec &x, const Vec &y, int n, double scale) {
  double d = 0;
  for (size_t i = 0; i < x.size(); ++i) d = std::max(d, std::fabs(x[i] - y[i]));
  return d / (n * DBL_EPSILON * std::max(scale, DBL_MIN));
}

// dget02 for the first column: ||b - A x||_1 / (||A||_1 ||x||_1 eps).
double solve_ratio(int n, const Vec &a, const Vec &x, const Vec &b) {
  double rn = 0, xn = 0, an = 0;
  for (int i = 0; i < n; ++i) {
    double s = b[i];
    for (int j = 0; j < n; ++j) s -= a[i + size_t(j) * n] * x[j];
    rn += std::fabs(s);
    xn += std::fabs(x[i]);
  }
  for (int j = 0; j < n; ++j) {
    double c = 0;
    for (int i = 0; i < n; ++i) c += std::fabs(a[i + size_t(j) * n]);
    an = std::max(an, c);
  }
  return rn / (an * xn * DBL_EPSILON);
}

struct Result {
  std::vector<Path> paths;
  double ratio;  // accuracy of the served result
};

using syevd_t = decltype(&dsyevd_);
using syev_t = decltype(&dsyev_);
using sterf_t = decltype(&dsterf_);
using stebz_t = decltype(&dstebz_);
using getrf_t = decltype(&dgetrf_);
using gesv_t = decltype(&dgesv_);
using getrs_t = decltype(&dgetrs_);
using gtsv_t = decltype(&dgtsv_);
using syevx_t = decltype(&dsyevx_);
using syevr_t = decltype(&dsyevr_);

// Eigenvalues (JOBZ = 'N') or eigenpairs (`vectors`, JOBZ = 'V') of a random symmetric matrix:
// dsyevd or dsyev; anchor cuSOLVER (upload, dsyevd, download W and, with vectors, Z).
Result symmetric_values(bool divide_and_conquer, bool vectors, bool with_anchor, int n, int reps) {
  const Vec a0 = symmetric(n, 1000 + n);
  Vec a, w_served(n), w_own(n), w_anchor(n), z_anchor(vectors ? size_t(n) * n : 1);
  const char *jobz = vectors ? "V" : "N";
  const cusolverEigMode_t mode = vectors ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR;
  const int lwork = divide_and_conquer ? (vectors ? 1 + 6 * n + 2 * n * n : 2 * n + 1) : std::max(1, 3 * n - 1);
  const int liwork = divide_and_conquer && vectors ? 3 + 5 * n : 1;
  Vec work(lwork);
  std::vector<int> iwork(liwork);
  int info = 0;
  // (the own LAPACK's functions looked up here, outside the timing)
  const syevd_t own_syevd = divide_and_conquer ? own<syevd_t>("dsyevd_") : nullptr;
  const syev_t own_syev = divide_and_conquer ? nullptr : own<syev_t>("dsyev_");
  auto call = [&](bool served, Vec &w) {
    if (divide_and_conquer) {
      auto f = served ? &dsyevd_ : own_syevd;
      f(jobz, "L", &n, a.data(), &n, w.data(), work.data(), &lwork, iwork.data(), &liwork, &info, 1, 1);
    } else {
      auto f = served ? &dsyev_ : own_syev;
      f(jobz, "L", &n, a.data(), &n, w.data(), work.data(), &lwork, &info, 1, 1);
    }
    CHECK(info == 0, "%s INFO %d", divide_and_conquer ? "dsyevd" : "dsyev", info);
  };
  std::vector<Path> paths = {
      {"served", [&] { a = a0; }, [&] { call(true, w_served); }},
      {"own LAPACK", [&] { a = a0; }, [&] { call(false, w_own); }},
  };
  // cuSOLVER by hand: upload, dsyevd, download W.
  cusolverDnHandle_t h = nullptr;
  double *d_a = nullptr, *d_w = nullptr, *d_work = nullptr;
  int *d_info = nullptr, dlwork = 0;
  if (divide_and_conquer && with_anchor) {
    CHECK(cusolverDnCreate(&h) == CUSOLVER_STATUS_SUCCESS, "cusolverDnCreate");
    CHECK(cudaMalloc(&d_a, sizeof(double) * n * n) == cudaSuccess, "cudaMalloc");
    CHECK(cudaMalloc(&d_w, sizeof(double) * n) == cudaSuccess, "cudaMalloc");
    CHECK(cudaMalloc(&d_info, sizeof(int)) == cudaSuccess, "cudaMalloc");
    CHECK(cusolverDnDsyevd_bufferSize(h, mode, CUBLAS_FILL_MODE_LOWER, n, d_a,
                                      n, d_w, &dlwork) == CUSOLVER_STATUS_SUCCESS, "bufferSize");
    CHECK(cudaMalloc(&d_work, sizeof(double) * std::max(dlwork, 1)) == cudaSuccess, "cudaMalloc");
    paths.push_back({"cuSOLVER dsyevd", [] {}, [&] {
                       CHECK(cudaMemcpy(d_a, a0.data(), sizeof(double) * n * n, cudaMemcpyHostToDevice) == cudaSuccess, "upload");
                       CHECK(cusolverDnDsyevd(h, mode, CUBLAS_FILL_MODE_LOWER, n, d_a, n,
                                              d_w, d_work, dlwork, d_info) == CUSOLVER_STATUS_SUCCESS, "dsyevd");
                       CHECK(cudaMemcpy(w_anchor.data(), d_w, sizeof(double) * n, cudaMemcpyDeviceToHost) == cudaSuccess, "download");
                       if (vectors)
                         CHECK(cudaMemcpy(z_anchor.data(), d_a, sizeof(double) * n * n, cudaMemcpyDeviceToHost) == cudaSuccess, "download");
                     }});
  }
  time_paths(paths, reps);
  if (h) {
    cudaFree(d_a), cudaFree(d_w), cudaFree(d_work), cudaFree(d_info);
    cusolverDnDestroy(h);
  }
  double anorm = 0;
  for (int j = 0; j < n; ++j) {
    double c = 0;
    for (int i = 0; i < n; ++i) c += std::fabs(a0[i + size_t(j) * n]);
    anorm = std::max(anorm, c);
  }
  return {paths, value_ratio(w_served, w_own, n, anorm)};
}

// The smallest 1% of the eigenpairs (RANGE 'I', IL = 1, IU = max(1, n / 100), JOBZ 'V') of a
// random symmetric matrix: dsyevx or dsyevr (`mrrr`); anchor cuSOLVER (upload, dsyevdx with
// RANGE 'I', download W and the M vectors).
Result selected_pairs(bool mrrr, bool with_anchor, int n, int reps) {
  const Vec a0 = symmetric(n, 1000 + n);
  const int il = 1, iu = std::max(1, n / 100), count = iu - il + 1;
  const double vl = 0, vu = 0, abstol = 0;
  Vec a, w_served(n), w_own(n), w_anchor(n), z(size_t(n) * count), z_anchor(size_t(n) * count);
  const int lwork = mrrr ? 26 * n : 8 * n, liwork = mrrr ? 10 * n : 5 * n;
  Vec work(lwork);
  std::vector<int> iwork(liwork), ifail(n), isuppz(2 * n);
  int info = 0, m = 0;
  const syevx_t own_syevx = mrrr ? nullptr : own<syevx_t>("dsyevx_");
  const syevr_t own_syevr = mrrr ? own<syevr_t>("dsyevr_") : nullptr;
  auto call = [&](bool served, Vec &w) {
    if (mrrr) {
      auto f = served ? &dsyevr_ : own_syevr;
      f("V", "I", "L", &n, a.data(), &n, &vl, &vu, &il, &iu, &abstol, &m, w.data(), z.data(), &n, isuppz.data(),
        work.data(), &lwork, iwork.data(), &liwork, &info, 1, 1, 1);
    } else {
      auto f = served ? &dsyevx_ : own_syevx;
      f("V", "I", "L", &n, a.data(), &n, &vl, &vu, &il, &iu, &abstol, &m, w.data(), z.data(), &n, work.data(),
        &lwork, iwork.data(), ifail.data(), &info, 1, 1, 1);
    }
    CHECK(info == 0 && m == count, "%s INFO %d M %d", mrrr ? "dsyevr" : "dsyevx", info, m);
  };
  std::vector<Path> paths = {
      {"served", [&] { a = a0; }, [&] { call(true, w_served); }},
      {"own LAPACK", [&] { a = a0; }, [&] { call(false, w_own); }},
  };
  cusolverDnHandle_t h = nullptr;
  double *d_a = nullptr, *d_w = nullptr, *d_work = nullptr;
  int *d_info = nullptr, dlwork = 0, meig = 0;
  if (with_anchor) {
    CHECK(cusolverDnCreate(&h) == CUSOLVER_STATUS_SUCCESS, "cusolverDnCreate");
    CHECK(cudaMalloc(&d_a, sizeof(double) * n * n) == cudaSuccess, "cudaMalloc");
    CHECK(cudaMalloc(&d_w, sizeof(double) * n) == cudaSuccess, "cudaMalloc");
    CHECK(cudaMalloc(&d_info, sizeof(int)) == cudaSuccess, "cudaMalloc");
    CHECK(cusolverDnDsyevdx_bufferSize(h, CUSOLVER_EIG_MODE_VECTOR, CUSOLVER_EIG_RANGE_I, CUBLAS_FILL_MODE_LOWER,
                                       n, d_a, n, vl, vu, il, iu, &meig, d_w, &dlwork) == CUSOLVER_STATUS_SUCCESS,
          "bufferSize");
    CHECK(cudaMalloc(&d_work, sizeof(double) * std::max(dlwork, 1)) == cudaSuccess, "cudaMalloc");
    paths.push_back({"cuSOLVER dsyevdx", [] {}, [&] {
                       CHECK(cudaMemcpy(d_a, a0.data(), sizeof(double) * n * n, cudaMemcpyHostToDevice) == cudaSuccess, "upload");
                       CHECK(cusolverDnDsyevdx(h, CUSOLVER_EIG_MODE_VECTOR, CUSOLVER_EIG_RANGE_I, CUBLAS_FILL_MODE_LOWER, n,
                                               d_a, n, vl, vu, il, iu, &meig, d_w, d_work, dlwork,
                                               d_info) == CUSOLVER_STATUS_SUCCESS, "dsyevdx");
                       CHECK(cudaMemcpy(w_anchor.data(), d_w, sizeof(double) * meig, cudaMemcpyDeviceToHost) == cudaSuccess, "download");
                       CHECK(cudaMemcpy(z_anchor.data(), d_a, sizeof(double) * n * meig, cudaMemcpyDeviceToHost) == cudaSuccess, "download");
                     }});
  }
  time_paths(paths, reps);
  if (h) {
    cudaFree(d_a), cudaFree(d_w), cudaFree(d_work), cudaFree(d_info);
    cusolverDnDestroy(h);
  }
  double anorm = 0;
  for (int j = 0; j < n; ++j) {
    double c = 0;
    for (int i = 0; i < n; ++i) c += std::fabs(a0[i + size_t(j) * n]);
    anorm = std::max(anorm, c);
  }
  w_served.resize(count), w_own.resize(count);
  return {paths, value_ratio(w_served, w_own, n, anorm)};
}

// All eigenvalues of a random tridiagonal: dsterf, or dstebz RANGE 'A'.
Result tridiagonal_values(bool bisection, int n, int reps) {
  const Vec d0 = uniform(n, 2000 + n), e0 = uniform(n, 3000 + n);
  Vec d, e, w_served(n), w_own(n), work(4 * n);
  std::vector<int> iblock(n), isplit(n), iwork(3 * n);
  int info = 0, m = 0, nsplit = 0;
  const double zero = 0;
  const int izero = 0;
  const stebz_t own_stebz = own<stebz_t>("dstebz_");
  const sterf_t own_sterf = own<sterf_t>("dsterf_");
  auto call = [&](bool served, Vec &w) {
    if (bisection) {
      auto f = served ? &dstebz_ : own_stebz;
      f("A", "E", &n, &zero, &zero, &izero, &izero, &zero, d.data(), e.data(), &m, &nsplit, w.data(),
        iblock.data(), isplit.data(), work.data(), iwork.data(), &info, 1, 1);
    } else {
      auto f = served ? &dsterf_ : own_sterf;
      f(&n, d.data(), e.data(), &info);
      w = d;
      std::sort(w.begin(), w.end());
    }
    CHECK(info == 0, "%s INFO %d", bisection ? "dstebz" : "dsterf", info);
  };
  std::vector<Path> paths = {
      {"served", [&] { d = d0, e = e0; }, [&] { call(true, w_served); }},
      {"own LAPACK", [&] { d = d0, e = e0; }, [&] { call(false, w_own); }},
  };
  time_paths(paths, reps);
  return {paths, value_ratio(w_served, w_own, n, 3)};
}

// dgetrs, TRANS = 'N', NRHS from SHIM_BENCH_NRHS (default 1), on the own DGETRF's factors of a
// random matrix (made outside the timing): the served call uploads the whole LU, so this row is
// what measures gpu_getrs_crout's crossover on n and NRHS.
Result lu_solve_only(int n, int reps) {
  const char *env_nrhs = std::getenv("SHIM_BENCH_NRHS");
  const int nrhs = env_nrhs ? std::max(1, std::atoi(env_nrhs)) : 1;
  const Vec a0 = uniform(size_t(n) * n, 6000 + n), b0 = uniform(size_t(n) * nrhs, 7000 + n);
  Vec lu = a0, b, x_served;
  std::vector<int> ipiv(n);
  int info = 0;
  own<getrf_t>("dgetrf_")(&n, &n, lu.data(), &n, ipiv.data(), &info);
  CHECK(info == 0, "dgetrf INFO %d", info);
  const getrs_t own_getrs = own<getrs_t>("dgetrs_");
  auto call = [&](bool served) {
    auto f = served ? &dgetrs_ : own_getrs;
    f("N", &n, &nrhs, lu.data(), &n, ipiv.data(), b.data(), &n, &info, 1);
    CHECK(info == 0, "dgetrs INFO %d", info);
    if (served) x_served = b;
  };
  std::vector<Path> paths = {
      {"served", [&] { b = b0; }, [&] { call(true); }},
      {"own LAPACK", [&] { b = b0; }, [&] { call(false); }},
  };
  time_paths(paths, reps);
  return {paths, solve_ratio(n, a0, x_served, b0)};
}

// dgetrf, or dgesv with one right-hand side (anchor: cuSOLVER getrf + getrs by hand).
Result lu(bool solve, bool with_anchor, int n, int reps) {
  const Vec a0 = uniform(size_t(n) * n, 4000 + n), b0 = uniform(n, 5000 + n);
  Vec a, b, x_served, lu_served, x_anchor(n);
  std::vector<int> ipiv_served;
  std::vector<int> ipiv(n);
  int info = 0;
  const int one = 1;
  const gesv_t own_gesv = own<gesv_t>("dgesv_");
  const getrf_t own_getrf = own<getrf_t>("dgetrf_");
  auto call = [&](bool served) {
    if (solve) {
      auto f = served ? &dgesv_ : own_gesv;
      f(&n, &one, a.data(), &n, ipiv.data(), b.data(), &n, &info);
      if (served) x_served = b;
    } else {
      auto f = served ? &dgetrf_ : own_getrf;
      f(&n, &n, a.data(), &n, ipiv.data(), &info);
      if (served) lu_served = a, ipiv_served = ipiv;
    }
    CHECK(info == 0, "%s INFO %d", solve ? "dgesv" : "dgetrf", info);
  };
  std::vector<Path> paths = {
      {"served", [&] { a = a0, b = b0; }, [&] { call(true); }},
      {"own LAPACK", [&] { a = a0, b = b0; }, [&] { call(false); }},
  };
  cusolverDnHandle_t h = nullptr;
  double *d_a = nullptr, *d_b = nullptr, *d_work = nullptr;
  int *d_ipiv = nullptr, *d_info = nullptr, dlwork = 0;
  if (solve && with_anchor) {
    CHECK(cusolverDnCreate(&h) == CUSOLVER_STATUS_SUCCESS, "cusolverDnCreate");
    CHECK(cudaMalloc(&d_a, sizeof(double) * size_t(n) * n) == cudaSuccess, "cudaMalloc");
    CHECK(cudaMalloc(&d_b, sizeof(double) * n) == cudaSuccess, "cudaMalloc");
    CHECK(cudaMalloc(&d_ipiv, sizeof(int) * n) == cudaSuccess, "cudaMalloc");
    CHECK(cudaMalloc(&d_info, sizeof(int)) == cudaSuccess, "cudaMalloc");
    CHECK(cusolverDnDgetrf_bufferSize(h, n, n, d_a, n, &dlwork) == CUSOLVER_STATUS_SUCCESS, "bufferSize");
    CHECK(cudaMalloc(&d_work, sizeof(double) * std::max(dlwork, 1)) == cudaSuccess, "cudaMalloc");
    paths.push_back({"cuSOLVER getrf+getrs", [] {}, [&] {
                       CHECK(cudaMemcpy(d_a, a0.data(), sizeof(double) * size_t(n) * n, cudaMemcpyHostToDevice) == cudaSuccess, "upload");
                       CHECK(cudaMemcpy(d_b, b0.data(), sizeof(double) * n, cudaMemcpyHostToDevice) == cudaSuccess, "upload");
                       CHECK(cusolverDnDgetrf(h, n, n, d_a, n, d_work, d_ipiv, d_info) == CUSOLVER_STATUS_SUCCESS, "getrf");
                       CHECK(cusolverDnDgetrs(h, CUBLAS_OP_N, n, 1, d_a, n, d_ipiv, d_b, n, d_info) == CUSOLVER_STATUS_SUCCESS, "getrs");
                       CHECK(cudaMemcpy(x_anchor.data(), d_b, sizeof(double) * n, cudaMemcpyDeviceToHost) == cudaSuccess, "download");
                     }});
  }
  time_paths(paths, reps);
  if (h) {
    cudaFree(d_a), cudaFree(d_b), cudaFree(d_work), cudaFree(d_ipiv), cudaFree(d_info);
    cusolverDnDestroy(h);
  }
  if (!solve) {  // the served factors, judged by the solve they give (the own DGETRS)
    x_served = b0;
    own<decltype(&dgetrs_)>("dgetrs_")("N", &n, &one, lu_served.data(), &n, ipiv_served.data(),
                                      x_served.data(), &n, &info, 1);
  }
  return {paths, solve_ratio(n, a0, x_served, b0)};
}

// dgtsv, one right-hand side, a diagonally dominant system.
Result tridiagonal_solve(int n, int reps) {
  const Vec dl0 = uniform(n, 6000 + n), du0 = uniform(n, 7000 + n), d0 = uniform(n, 8000 + n, 3, 4),
            b0 = uniform(n, 9000 + n);
  Vec dl, d, du, b, x_served, x_own;
  int info = 0;
  const int one = 1;
  const gtsv_t own_gtsv = own<gtsv_t>("dgtsv_");
  auto call = [&](bool served, Vec &x) {
    auto f = served ? &dgtsv_ : own_gtsv;
    f(&n, &one, dl.data(), d.data(), du.data(), b.data(), &n, &info);
    CHECK(info == 0, "dgtsv INFO %d", info);
    x = b;
  };
  auto reset = [&] { dl = dl0, d = d0, du = du0, b = b0; };
  std::vector<Path> paths = {{"served", reset, [&] { call(true, x_served); }},
                             {"own LAPACK", reset, [&] { call(false, x_own); }}};
  time_paths(paths, reps);
  return {paths, value_ratio(x_served, x_own, n, max_abs(x_own))};
}

}  // namespace

int main(int argc, char **argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: LD_PRELOAD=libgpueig_lapack.so %s ROUTINE N[,N...] [REPS]\n", argv[0]);
    return 2;
  }
  if (!shim_loaded()) {
    std::fprintf(stderr, "%s: libgpueig_lapack.so is not loaded (run it under LD_PRELOAD)\n", argv[0]);
    return 2;
  }
  const std::string routine = argv[1];
  std::vector<int> sizes;
  for (char *p = argv[2]; *p;) {
    sizes.push_back(std::atoi(p));
    p = std::strchr(p, ',') ? std::strchr(p, ',') + 1 : p + std::strlen(p);
  }
  const int reps = argc > 3 ? std::max(1, std::atoi(argv[3])) : 5;
  cudaDeviceProp prop{};
  const bool gpu = cudaGetDeviceProperties(&prop, 0) == cudaSuccess;
  std::printf("# shim_bench %s, %d interleaved repetitions after a warm-up, host wall ms, device: %s, "
              "own LAPACK: %s\n", routine.c_str(), reps, gpu ? prop.name : "none", GPUEIG_LAPACK_SONAME);
  std::printf("%-7s %6s %12s %12s %8s %14s %8s %10s %10s %8s\n", "routine", "n", "served", "own",
              "s/own", "cuSOLVER", "s/cuSOL", "1st srv", "1st own", "ratio");
  bool ok = true;
  for (int n : sizes) {
    Result r;
    if (routine == "dsyevd" || routine == "dsyev" || routine == "dsyevd_v" || routine == "dsyev_v") {
      r = symmetric_values(routine.rfind("dsyevd", 0) == 0, routine.back() == 'v', gpu, n, reps);
    } else if (routine == "dsyevx_1pct" || routine == "dsyevr_1pct") {
      r = selected_pairs(routine == "dsyevr_1pct", gpu, n, reps);
    } else if (routine == "dsterf" || routine == "dstebz") {
      r = tridiagonal_values(routine == "dstebz", n, reps);
    } else if (routine == "dgetrf" || routine == "dgesv") {
      r = lu(routine == "dgesv", gpu, n, reps);
    } else if (routine == "dgetrs") {
      r = lu_solve_only(n, reps);
    } else if (routine == "dgtsv") {
      r = tridiagonal_solve(n, reps);
    } else {
      std::fprintf(stderr, "unknown routine %s\n", routine.c_str());
      return 2;
    }
    const double served = median(r.paths[0].times), mine = median(r.paths[1].times);
    const double anchor = r.paths.size() > 2 ? median(r.paths[2].times) : 0;
    char anchor_s[32] = "-", ratio_s[32] = "-";
    if (anchor > 0) {
      std::snprintf(anchor_s, sizeof anchor_s, "%.4f", anchor);
      std::snprintf(ratio_s, sizeof ratio_s, "%.2f", served / anchor);
    }
    std::printf("%-7s %6d %12.4f %12.4f %8.2f %14s %8s %10.3f %10.3f %8.2f\n", routine.c_str(), n,
                served, mine, served / mine, anchor_s, ratio_s, r.paths[0].first, r.paths[1].first,
                r.ratio);
    if (!(r.ratio <= 30)) {
      std::printf("  ACCURACY: ratio %.3g above the threshold 30\n", r.ratio);
      ok = false;
    }
  }
  return ok ? 0 : 1;
}
