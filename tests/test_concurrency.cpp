// Concurrency: 8 host threads x GPUEIG_TEST_CALLS (default 1000) calls each, every routine mixed,
// at sizes on both sides of each routine's crossover in force, every result checked against
// LAPACK's answer computed beforehand, and every call's backend against the dispatch rule (below
// the crossover: the CPU; from it on: the GPU). Run on the fake device in CPU-only CI, and on the
// hardware (also as two processes on one device at once).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <limits>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "gpueig.h"
#include "lapack_ref.hpp"
#include "ratios.hpp"
#include "zoo.hpp"

namespace {

using Vec = std::vector<double>;

// The crossover in force for a routine, as gpueig_info() states it ("  sytrd: n >= 512"); a
// routine without a GPU method ("  stein: CPU only ...") never reaches the GPU.
long crossover(const std::string &routine) {
  const std::string info = gpueig_info();
  const size_t at = info.find("  " + routine + ": ");
  if (at == std::string::npos) return -1;
  const std::string line = info.substr(at, info.find('\n', at) - at);
  const size_t ge = line.find(">= ");
  return ge == std::string::npos ? std::numeric_limits<long>::max() : std::atol(line.c_str() + ge + 3);
}

// |x - y| <= tol * scale entrywise.
bool close(const Vec &x, const Vec &y, double tol, double scale) {
  if (x.size() != y.size()) return false;
  for (size_t i = 0; i < x.size(); ++i)
    if (!(std::fabs(x[i] - y[i]) <= tol * scale)) return false;
  return true;
}

// One problem: call() runs it on fresh copies and returns the quantity checked (the solution,
// the factors, the eigenvalues), with the call's INFO.
struct Problem {
  std::string name;
  long size;  // the dispatch size
  long crossover;
  std::function<int(Vec *)> call;
  Vec expect;
  int expect_info = 0;
  double tol;
};

std::vector<Problem> problems() {
  std::vector<Problem> out;
  long x = 0;  // the crossover of the routine being added
  auto sizes = [&x](const std::string &routine) {
    x = crossover(routine);
    return std::vector<long>{std::max(1L, x - std::max(1L, x / 4)), std::max(2L, x + x / 4)};
  };
  for (long n : sizes("gtsv")) {
    const zoo::Tridiagonal a = zoo::tridiagonal("dominant", int(n), uint64_t(n));
    const Vec b = zoo::uniform(n * 2, -1, 1, uint64_t(n) + 1);
    out.push_back({"gtsv", n, x, [=](Vec *x) {
                     Vec dl = a.dl, d = a.d, du = a.du;
                     *x = b;
                     return gpu_gtsv_pcr(int(n), 2, dl.data(), d.data(), du.data(), x->data(),
                                         int(n));
                   },
                   {}, 0, 1e-10});
  }
  for (long n : sizes("stebz")) {
    const zoo::SymTridiagonal t = zoo::symtridiagonal("random", int(n), uint64_t(n));
    out.push_back({"stebz", n, x, [=](Vec *w) {
                     int m = 0, nsplit = 0;
                     std::vector<int> iblock(n), isplit(n);
                     w->assign(n, 0.0);
                     const int rc = gpu_stebz('A', 'E', int(n), 0, 0, 0, 0, 0.0, t.d.data(),
                                              t.e.data(), &m, &nsplit, w->data(), iblock.data(),
                                              isplit.data());
                     w->resize(m);
                     return rc;
                   },
                   {}, 0, 1e-12});
  }
  for (long n : sizes("getrf")) {
    const Vec a = zoo::general("random", int(n), int(n), int(n), uint64_t(n));
    out.push_back({"getrf", n, x, [=](Vec *lu) {
                     *lu = a;
                     std::vector<int> ipiv(n);
                     const int rc = gpu_getrf_crout(int(n), int(n), lu->data(), int(n), ipiv.data());
                     lu->insert(lu->end(), ipiv.begin(), ipiv.end());  // the pivots, checked too
                     return rc;
                   },
                   {}, 0, 1e-9});
  }
  for (long n : sizes("gesv")) {
    const Vec a = zoo::general("random", int(n), int(n), int(n), uint64_t(n) + 5);
    const Vec b = zoo::uniform(n * 2, -1, 1, uint64_t(n) + 6);
    out.push_back({"gesv", n, x, [=](Vec *sol) {
                     Vec lu = a;
                     *sol = b;
                     std::vector<int> ipiv(n);
                     return gpu_gesv_crout(int(n), 2, lu.data(), int(n), ipiv.data(), sol->data(),
                                           int(n));
                   },
                   {}, 0, 1e-9});
  }
  for (long n : {40L, 300L}) {  // getrs: the CTest runs set its crossover between the sizes
    x = crossover("getrs");
    Vec lu = zoo::general("random", int(n), int(n), int(n), uint64_t(n) + 7);
    std::vector<int> ipiv(n);
    int info = 0;
    const int nn = int(n);
    dgetrf_(&nn, &nn, lu.data(), &nn, ipiv.data(), &info);
    const Vec b = zoo::uniform(n * 3, -1, 1, uint64_t(n) + 8);
    out.push_back({"getrs", n, x, [=](Vec *sol) {
                     *sol = b;
                     return gpu_getrs_crout('T', int(n), 3, lu.data(), int(n), ipiv.data(),
                                            sol->data(), int(n));
                   },
                   {}, 0, 1e-9});
  }
  for (long vectors : sizes("stein")) {  // stein: dispatched by M, the eigenvectors wanted
    const long n = 2 * vectors;
    const zoo::SymTridiagonal t = zoo::symtridiagonal("random", int(n), uint64_t(n) + 9);
    std::vector<double> w(n), work(4 * n);
    std::vector<int> iblock(n), isplit(n), iwork(3 * n);
    int m = 0, nsplit = 0, info = 0;
    const int nn = int(n), il = 1, iu = int(vectors);
    const double zero = 0;
    dstebz_("I", "B", &nn, &zero, &zero, &il, &iu, &zero, t.d.data(), t.e.data(), &m, &nsplit,
            w.data(), iblock.data(), isplit.data(), work.data(), iwork.data(), &info, 1, 1);
    out.push_back({"stein", long(m), x, [=](Vec *z) {
                     z->assign(size_t(n) * m, 0.0);
                     std::vector<int> ifail(m);
                     const int rc = gpu_stein(int(n), t.d.data(), t.e.data(), m, w.data(),
                                              iblock.data(), isplit.data(), z->data(), int(n),
                                              ifail.data());
                     for (double &v : *z) v = std::fabs(v);  // (a vector's sign is not part of it)
                     return rc;
                   },
                   {}, 0, 1e-12});
  }
  for (long n : sizes("sytrd")) {
    const Vec a = zoo::symmetric("random", int(n), int(n), uint64_t(n));
    out.push_back({"sytrd", n, x, [=](Vec *w) {
                     Vec a2 = a, d(n), e(n), q(1);
                     const int rc = gpu_sytrd_givens('N', 'U', int(n), a2.data(), int(n), d.data(),
                                                     e.data(), q.data(), 1);
                     e.resize(n - 1);
                     *w = ratios::tridiagonal_eigenvalues(d, e);  // T differs between methods
                     return rc;
                   },
                   {}, 0, 1e-11});
  }
  for (long n : sizes("toeplitz")) {
    const Vec t = zoo::toeplitz("random", int(n), uint64_t(n));
    out.push_back({"toeplitz", n, x, [=](Vec *w) {
                     int m = 0;
                     Vec z(1);
                     w->assign(n, 0.0);
                     const int rc = gpu_toeplitz_eig('N', 'A', int(n), t.data(), 0, 0, 0, 0, 0.0,
                                                     &m, w->data(), z.data(), 1);
                     w->resize(m);
                     return rc;
                   },
                   {}, 0, 1e-11});
  }
  return out;
}

TEST(Concurrency, EightThreadsOfMixedCallsGetTheirOwnRightAnswers) {
  const char *calls_env = std::getenv("GPUEIG_TEST_CALLS");
  const int calls = calls_env ? std::atoi(calls_env) : 1000, threads = 8;
  std::vector<Problem> ps = problems();
  gpueig_set_backend("cpu");
  for (Problem &p : ps) p.expect_info = p.call(&p.expect);
  gpueig_set_backend("auto");
  const bool gpu = gpueig_gpu_available();

  std::atomic<long> failures{0}, on_gpu{0}, on_cpu{0};
  std::mutex report;
  std::string first_failure;
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      std::mt19937 rng(1234 + t);
      for (int c = 0; c < calls && failures.load() < 10; ++c) {
        const Problem &p = ps[rng() % ps.size()];
        Vec got;
        const int rc = p.call(&got);
        const std::string backend = gpueig_last_backend();
        const std::string want = gpu && p.size >= p.crossover ? "gpu" : "cpu";
        (backend == "gpu" ? on_gpu : on_cpu)++;
        const double scale = std::max(1.0, ratios::max_abs(p.expect));
        if (rc != p.expect_info || backend != want || !close(got, p.expect, p.tol, scale)) {
          failures++;
          std::lock_guard<std::mutex> lock(report);
          if (first_failure.empty())
            first_failure = p.name + " size " + std::to_string(p.size) + " in thread " +
                            std::to_string(t) + ": rc " + std::to_string(rc) + " on " + backend +
                            " (want " + want + ")";
        }
      }
    });
  for (auto &th : pool) th.join();
  std::printf("%d threads x %d calls: %ld on the GPU backend, %ld on the CPU, %ld failures\n",
              threads, calls, on_gpu.load(), on_cpu.load(), failures.load());
  EXPECT_EQ(failures.load(), 0) << first_failure;
  if (gpu) EXPECT_GT(on_gpu.load(), 0);
  EXPECT_GT(on_cpu.load(), 0);
}

}  // namespace
