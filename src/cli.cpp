// `gpueig`: the command-line program.
//   gpueig info   build and run-time state (version, CUDA, devices, policy, crossovers)
//   gpueig demo   runs all five routines on problems with known answers and checks them
//   gpueig bench  each routine (auto) against the CPU LAPACK, host wall time
//   gpueig --help the commands, the other ways in (API, LD_PRELOAD, Python), every variable
// Uses only the public API, as any application would.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "gpueig.h"

namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kEps = 2.220446049250313e-16;

struct Outcome {
  bool ok;
  std::string detail;
  std::string backend;  // where the routine under test ran (empty: the last call's backend)
  int info = 0;         // the routine's INFO: a library condition (<= -1000) means it did not run
};

// What a library condition means to someone running the demo (the outputs are then meaningless
// and are not printed).
std::string not_run(int info) {
  switch (info) {
    case GPUEIG_ERR_DEVICE:
      return "not run: no GPU could run it (GPUEIG_ERR_DEVICE; GPUEIG_BACKEND=gpu forbids the CPU)";
    case GPUEIG_ERR_LAPACK:
      return "not run: the CPU backend could not load its LAPACK (GPUEIG_ERR_LAPACK)";
    case GPUEIG_ERR_MEMORY:
      return "not run: out of host memory (GPUEIG_ERR_MEMORY)";
    default:
      return "not run: library error INFO = " + std::to_string(info);
  }
}

// Runs one demo problem, prints one line, and returns whether its check passed.
bool run_demo(const char *routine, const char *problem, const std::function<Outcome()> &body) {
  auto t0 = std::chrono::steady_clock::now();
  Outcome r = body();
  if (r.info <= -1000) r = {false, not_run(r.info), r.backend, r.info};
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  std::printf("%-17s %-44s backend=%-4s %9.3f ms  %s  %s\n", routine, problem,
              r.backend.empty() ? gpueig_last_backend() : r.backend.c_str(), ms,
              r.ok ? "OK  " : "FAIL", r.detail.c_str());
  return r.ok;
}

std::string fmt(const char *f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

// Eigenvalues of the n x n tridiagonal Toeplitz matrix tridiag(c, a, c): a + 2c cos(j pi/(n+1)).
std::vector<double> tridiagonal_toeplitz_eigenvalues(int n, double a, double c) {
  std::vector<double> lam(n);
  for (int j = 1; j <= n; ++j) lam[j - 1] = a - 2 * std::fabs(c) * std::cos(j * kPi / (n + 1));
  return lam;
}

double max_abs_diff(const double *x, const std::vector<double> &y) {
  double m = 0;
  for (size_t i = 0; i < y.size(); ++i) m = std::fmax(m, std::fabs(x[i] - y[i]));
  return m;
}

// The seed's problem: 1-D Laplace equation on (0,1), Dirichlet data T(0) = 373.15, T(1) = 273.15.
// Second differences are exact for the linear solution T(x) = -100 x + 373.15.
Outcome demo_gtsv() {
  const int n = 1 << 18;
  const double h = 1.0 / (n + 1);
  std::vector<double> dl(n - 1, -1.0), d(n, 2.0), du(n - 1, -1.0), b(n, 0.0);
  b[0] = 373.15;
  b[n - 1] = 273.15;
  int info = gpu_gtsv_pcr(n, 1, dl.data(), d.data(), du.data(), b.data(), n);
  double err = 0;
  for (int i = 0; i < n; ++i) {
    double exact = -100.0 * (i + 1) * h + 373.15;
    err = std::fmax(err, std::fabs(b[i] - exact) / exact);
  }
  // Forward error bound: cond(A) ~ 4 (n+1)^2 / pi^2 times a small multiple of eps.
  double bound = 30 * 4.0 * (n + 1.0) * (n + 1.0) / (kPi * kPi) * kEps;
  return {info == 0 && err <= bound,
          "info=" + std::to_string(info) + fmt(" max rel err %.1e", err) + fmt(" (bound %.1e)", bound),
          "", info};
}

Outcome demo_stebz() {
  const int n = 1000;
  std::vector<double> d(n, 2.0), e(n - 1, 1.0), w(n);
  std::vector<int> iblock(n), isplit(n);
  int m = 0, nsplit = 0;
  int info = gpu_stebz('A', 'E', n, 0, 0, 0, 0, 0.0, d.data(), e.data(), &m, &nsplit, w.data(),
                       iblock.data(), isplit.data());
  double err = max_abs_diff(w.data(), tridiagonal_toeplitz_eigenvalues(n, 2.0, 1.0));
  return {info == 0 && m == n && err <= 30 * n * kEps * 4,
          "info=" + std::to_string(info) + " m=" + std::to_string(m) + fmt(" max err %.1e", err), "",
          info};
}

// The Pascal matrix P(i,j) = C(i+j, i) has determinant 1.
Outcome demo_getrf() {
  const int n = 10;
  std::vector<double> a(n * n);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) a[i + j * n] = (i == 0 || j == 0) ? 1.0 : a[(i - 1) + j * n] + a[i + (j - 1) * n];
  std::vector<int> ipiv(n);
  int info = gpu_getrf_crout(n, n, a.data(), n, ipiv.data());
  double det = 1;
  for (int i = 0; i < n; ++i) det *= (ipiv[i] != i + 1 ? -1.0 : 1.0) * a[i + i * n];
  return {info == 0 && std::fabs(det - 1.0) <= 1e-6,
          "info=" + std::to_string(info) + fmt(" det(Pascal_10) = %.12f (exact 1)", det), "", info};
}

// A = H diag(1..n) H with the Householder reflector H = I - 2 v v'/(v'v), v = (1, 2, ..., n):
// the tridiagonal T must have the eigenvalues 1..n.
Outcome demo_sytrd() {
  const int n = 100;
  std::vector<double> v(n), a(n * n), q(n * n), d(n), e(n - 1);
  double vv = 0;
  for (int i = 0; i < n; ++i) vv += (v[i] = i + 1.0) * (i + 1.0);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      double s = 0;  // (H D H)(i,j) = sum_k H(i,k) (k+1) H(k,j)
      for (int k = 0; k < n; ++k)
        s += ((i == k) - 2 * v[i] * v[k] / vv) * (k + 1.0) * ((k == j) - 2 * v[k] * v[j] / vv);
      a[i + j * n] = s;
    }
  int info = gpu_sytrd_givens('V', 'L', n, a.data(), n, d.data(), e.data(), q.data(), n);
  const std::string backend = gpueig_last_backend();  // before the check's own call
  std::vector<double> w(n);
  std::vector<int> iblock(n), isplit(n);
  int m = 0, nsplit = 0;
  int info2 = gpu_stebz('A', 'E', n, 0, 0, 0, 0, 0.0, d.data(), e.data(), &m, &nsplit, w.data(),
                        iblock.data(), isplit.data());
  std::vector<double> exact(n);
  for (int i = 0; i < n; ++i) exact[i] = i + 1.0;
  double err = max_abs_diff(w.data(), exact);
  return {info == 0 && info2 == 0 && m == n && err <= 30 * n * n * kEps,
          "info=" + std::to_string(info) + fmt(" eig(T) vs 1..n: max err %.1e", err), backend,
          info <= -1000 ? info : info2};
}

Outcome demo_toeplitz() {
  // Tridiagonal Toeplitz (2, -1): analytic eigenvalues.
  const int n = 500;
  std::vector<double> t(n, 0.0), w(n), z(1);
  t[0] = 2.0;
  t[1] = -1.0;
  int m = 0;
  int info = gpu_toeplitz_eig('N', 'A', n, t.data(), 0, 0, 0, 0, 0.0, &m, w.data(), z.data(), 1);
  double err = max_abs_diff(w.data(), tridiagonal_toeplitz_eigenvalues(n, 2.0, -1.0));
  // KMS matrix t_k = rho^k: trace and Frobenius norm fix sum(lambda) and sum(lambda^2).
  const double rho = 0.5;
  std::vector<double> kms(n), wk(n);
  double fro2 = 0;
  for (int k = 0; k < n; ++k) {
    kms[k] = std::pow(rho, k);
    fro2 += (k == 0 ? n : 2.0 * (n - k)) * kms[k] * kms[k];
  }
  int mk = 0;
  int info2 = gpu_toeplitz_eig('N', 'A', n, kms.data(), 0, 0, 0, 0, 0.0, &mk, wk.data(), z.data(), 1);
  double tr = 0, sq = 0;
  for (int i = 0; i < mk; ++i) {
    tr += wk[i];
    sq += wk[i] * wk[i];
  }
  double kerr = std::fmax(std::fabs(tr - n) / n, std::fabs(sq - fro2) / fro2);
  return {info == 0 && info2 == 0 && m == n && mk == n && err <= 30 * n * kEps * 4 && kerr <= 1e-12,
          fmt("tridiag(-1,2,-1) max err %.1e;", err) + fmt(" KMS(0.5) trace/Frobenius rel err %.1e", kerr),
          "", info <= -1000 ? info : info2};
}

int demo() {
  std::printf("libgpueig %s demo (GPU usable: %s)\n", gpueig_version(),
              gpueig_gpu_available() ? "yes" : "no");
  bool ok = true;
  ok &= run_demo("gpu_gtsv_pcr", "Laplace T(x) = -100x + 373.15, n = 262144", demo_gtsv);
  ok &= run_demo("gpu_stebz", "1-2-1 tridiagonal, n = 1000, all", demo_stebz);
  ok &= run_demo("gpu_getrf_crout", "Pascal matrix, n = 10", demo_getrf);
  ok &= run_demo("gpu_sytrd_givens", "H diag(1..100) H, vect V", demo_sytrd);
  ok &= run_demo("gpu_toeplitz_eig", "tridiagonal Toeplitz and KMS, n = 500", demo_toeplitz);
  std::printf("%s\n", ok ? "all checks passed" : "SOME CHECKS FAILED");
  return ok ? 0 : 1;
}

// --- gpueig bench: each routine's public call in `auto` against the same call on the CPU
// backend (the machine's LAPACK behind the same checks), host wall time, transfers included.
// The vendor GPU libraries (cuSOLVER, cuSPARSE) are the anchors of bench/gpueig_bench, which a
// CUDA build also makes.

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Median ms of `reps` calls after one warm-up; setup() (untimed) restores the inputs.
double time_call(const std::function<void()> &setup, const std::function<int()> &call, int reps,
                 int *info) {
  setup();
  *info = call();
  std::vector<double> ms;
  for (int r = 0; r < reps; ++r) {
    setup();
    const auto t0 = std::chrono::steady_clock::now();
    *info = call();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  return median_of(ms);
}

struct BenchCase {
  const char *routine, *problem;
  int n;
  std::function<void()> setup;
  std::function<int()> call;
};

std::vector<BenchCase> bench_cases(bool quick) {
  std::vector<BenchCase> out;
  auto random = [](size_t count, double lo, double hi, unsigned seed) {
    std::vector<double> v(count);
    unsigned long long x = seed;
    for (double &y : v) {
      x = x * 6364136223846793005ULL + 1442695040888963407ULL;
      y = lo + (hi - lo) * static_cast<double>(x >> 11) / 9007199254740992.0;
    }
    return v;
  };
  {  // gtsv: diagonally dominant, one right-hand side
    const int n = quick ? 1 << 16 : 1 << 22;
    auto dl0 = std::make_shared<std::vector<double>>(random(n - 1, -1, 1, 1));
    auto du0 = std::make_shared<std::vector<double>>(random(n - 1, -1, 1, 2));
    auto d0 = std::make_shared<std::vector<double>>(random(n, 3, 4, 3));
    auto b0 = std::make_shared<std::vector<double>>(random(n, -1, 1, 4));
    auto w = std::make_shared<std::vector<std::vector<double>>>(4);
    out.push_back({"gpu_gtsv_pcr", "diag. dominant, nrhs 1", n,
                   [=] { *w = {*dl0, *d0, *du0, *b0}; },
                   [=] { return gpu_gtsv_pcr(n, 1, (*w)[0].data(), (*w)[1].data(), (*w)[2].data(), (*w)[3].data(), n); }});
  }
  {  // stebz: all eigenvalues of a random tridiagonal matrix
    const int n = quick ? 500 : 2048;  // DSTEBZ, O(n^2): 2 s a call at 2048 on 16 cores
    auto d = std::make_shared<std::vector<double>>(random(n, -1, 1, 5));
    auto e = std::make_shared<std::vector<double>>(random(n - 1, -1, 1, 6));
    auto w = std::make_shared<std::vector<double>>(n);
    auto ib = std::make_shared<std::vector<int>>(n), is = std::make_shared<std::vector<int>>(n);
    out.push_back({"gpu_stebz", "random tridiagonal, all", n, [] {},
                   [=] {
                     int m = 0, ns = 0;
                     return gpu_stebz('A', 'E', n, 0, 0, 0, 0, 0.0, d->data(), e->data(), &m, &ns,
                                      w->data(), ib->data(), is->data());
                   }});
  }
  for (int kind = 0; kind < 2; ++kind) {  // getrf and gesv (nrhs 1) on a random matrix
    const int n = quick ? 256 : 4096;
    auto a0 = std::make_shared<std::vector<double>>(random(size_t(n) * n, -1, 1, 7));
    auto a = std::make_shared<std::vector<double>>(), b = std::make_shared<std::vector<double>>();
    auto piv = std::make_shared<std::vector<int>>(n);
    out.push_back({kind ? "gpu_gesv_crout" : "gpu_getrf_crout", kind ? "random, nrhs 1" : "random, square", n,
                   [=] { *a = *a0; b->assign(n, 1.0); },
                   [=] {
                     return kind ? gpu_gesv_crout(n, 1, a->data(), n, piv->data(), b->data(), n)
                                 : gpu_getrf_crout(n, n, a->data(), n, piv->data());
                   }});
  }
  {  // sytrd: tridiagonal form of a random symmetric matrix, no Q
    const int n = quick ? 256 : 4096;
    auto a0 = std::make_shared<std::vector<double>>(random(size_t(n) * n, -1, 1, 8));
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < j; ++i) (*a0)[i + size_t(j) * n] = (*a0)[j + size_t(i) * n];
    auto a = std::make_shared<std::vector<double>>();
    auto d = std::make_shared<std::vector<double>>(n), e = std::make_shared<std::vector<double>>(n);
    out.push_back({"gpu_sytrd_givens", "random symmetric, vect N", n, [=] { *a = *a0; },
                   [=] { return gpu_sytrd_givens('N', 'L', n, a->data(), n, d->data(), e->data(), nullptr, 1); }});
  }
  for (int subset = 0; subset < 2; ++subset) {  // syevd (all pairs) and syevx (the smallest 1%, vectors)
    const int n = quick ? 256 : 2048;
    auto a0 = std::make_shared<std::vector<double>>(random(size_t(n) * n, -1, 1, 9));
    auto a = std::make_shared<std::vector<double>>();
    auto w = std::make_shared<std::vector<double>>(n), z = std::make_shared<std::vector<double>>(size_t(n) * n);
    auto ifail = std::make_shared<std::vector<int>>(n);
    out.push_back({subset ? "gpu_syevx" : "gpu_syevd", subset ? "random, smallest 1%, vectors" : "random symmetric, vectors",
                   n, [=] { *a = *a0; },
                   [=] {
                     int m = 0;
                     return subset ? gpu_syevx('V', 'I', 'L', n, a->data(), n, 0, 0, 1, std::max(1, n / 100), 0.0, &m,
                                               w->data(), z->data(), n, ifail->data())
                                   : gpu_syevd('V', 'L', n, a->data(), n, w->data());
                   }});
  }
  {  // toeplitz: all eigenvalues of a KMS matrix
    const int n = quick ? 256 : 4096;
    auto t = std::make_shared<std::vector<double>>(n);
    for (int k = 0; k < n; ++k) (*t)[k] = std::pow(0.5, k);
    auto w = std::make_shared<std::vector<double>>(n), z = std::make_shared<std::vector<double>>(1);
    out.push_back({"gpu_toeplitz_eig", "KMS(0.5), all values", n, [] {},
                   [=] {
                     int m = 0;
                     return gpu_toeplitz_eig('N', 'A', n, t->data(), 0, 0, 0, 0, 0.0, &m, w->data(), z->data(), 1);
                   }});
  }
  return out;
}

int bench(bool quick) {
  const int reps = quick ? 3 : 5;
  std::printf("libgpueig %s bench (GPU usable: %s; host calls, transfers included; medians of %d "
              "after a warm-up)\n", gpueig_version(), gpueig_gpu_available() ? "yes" : "no", reps);
  std::printf("%-17s %-28s %8s %-4s %12s %12s %8s\n", "routine", "problem", "n", "ran", "auto ms",
              "LAPACK ms", "speedup");
  bool ok = true;
  for (const BenchCase &c : bench_cases(quick)) {
    int info_auto = 0, info_cpu = 0;
    gpueig_set_backend("auto");
    const double t_auto = time_call(c.setup, c.call, reps, &info_auto);
    const std::string ran = gpueig_last_backend();
    gpueig_set_backend("cpu");
    const double t_cpu = time_call(c.setup, c.call, reps, &info_cpu);
    gpueig_set_backend("auto");
    // Where auto ran on the CPU both columns time the same path: no speedup to state.
    char speedup[32] = "       -";
    if (ran == "gpu") std::snprintf(speedup, sizeof speedup, "%7.2fx", t_cpu / t_auto);
    std::printf("%-17s %-28s %8d %-4s %12.3f %12.3f %s%s\n", c.routine, c.problem, c.n,
                ran.c_str(), t_auto, t_cpu, speedup, info_auto || info_cpu ? "  (INFO not 0)" : "");
    ok &= info_auto == 0 && info_cpu == 0;
  }
  std::printf("speedup = LAPACK ms / auto ms. Against cuSOLVER and cuSPARSE: bench/gpueig_bench "
              "(CUDA builds), see README \"Performance\".\n");
  return ok ? 0 : 1;
}

int usage(FILE *f) {
  std::fprintf(f,
               "usage: gpueig info | demo | bench [--quick] | --help\n"
               "  info   version, CUDA build, devices, backend policy and crossover sizes\n"
               "  demo   run all five routines on problems with known answers\n"
               "  bench  time each routine here (auto) against the CPU LAPACK (--quick: small sizes)\n"
               "Other ways in:\n"
               "  C/C++/Fortran  #include <gpueig.h> (gpueig::gpueig in CMake, pkg-config gpueig),\n"
               "                 Fortran: use gpueig (module from the build)\n"
               "  LD_PRELOAD     LD_PRELOAD=<libdir>/libgpueig_lapack.so program  (serves dgesv_,\n"
               "                 dgetrf_, dgetrs_, dgtsv_, dstebz_, dsterf_, dstein_, dsyev_, dsyevd_,\n"
               "                 dsyevx_, dsyevr_ where the GPU pays; the rest goes to the program's\n"
               "                 own LAPACK)\n"
               "  Python         pip install ./bindings/python; import gpueig\n"
               "Environment (gpueig info prints their values):\n");
  // The one list of variables, as the library states it (src/env.cpp).
  const std::string info = gpueig_info();
  const size_t at = info.find("environment:\n");
  if (at != std::string::npos) {
    size_t line = at + std::strlen("environment:\n");
    while (line < info.size() && info.compare(line, 2, "  ") == 0) {
      const size_t end = info.find('\n', line);
      std::string text = info.substr(line, end == std::string::npos ? std::string::npos : end - line);
      const size_t unset = text.find(" (unset)");
      if (unset != std::string::npos) text.erase(unset, std::strlen(" (unset)"));
      std::fprintf(f, "%s\n", text.c_str());
      if (end == std::string::npos) break;
      line = end + 1;
    }
  }
  return f == stderr ? 2 : 0;
}

}  // namespace

int main(int argc, char **argv) {
  if (argc == 3 && !std::strcmp(argv[1], "bench") && !std::strcmp(argv[2], "--quick")) return bench(true);
  if (argc != 2) return usage(stderr);
  if (!std::strcmp(argv[1], "bench")) return bench(false);
  if (!std::strcmp(argv[1], "info")) {
    std::fputs(gpueig_info(), stdout);
    return 0;
  }
  if (!std::strcmp(argv[1], "demo")) return demo();
  if (!std::strcmp(argv[1], "-h") || !std::strcmp(argv[1], "--help")) return usage(stdout);
  return usage(stderr);
}
