// Dispatch and the host-side contract: backend policy (API and environment), per-thread last
// backend, crossover overrides, device-failure fallback, and concurrent callers.
#include <gtest/gtest.h>

#include <sys/mman.h>

#include <climits>
#include <cstdlib>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "gpueig.h"
#include "tuning.hpp"
#include "lapack_ref.hpp"
#include "ratios.hpp"
#include "zoo.hpp"

namespace {

std::string info_line(const std::string &key) {
  std::string all = gpueig_info();
  size_t at = all.find(key);
  if (at == std::string::npos) return "";
  size_t end = all.find('\n', at);
  return all.substr(at, end - at);
}

// Sets environment variables for one scope.
struct ScopedEnv {
  std::vector<std::string> names;
  ScopedEnv(std::initializer_list<std::pair<const char *, const char *>> kv) {
    for (auto &p : kv) {
      setenv(p.first, p.second, 1);
      names.push_back(p.first);
    }
  }
  ~ScopedEnv() {
    for (auto &n : names) unsetenv(n.c_str());
  }
};

struct System {
  zoo::Tridiagonal a;
  std::vector<double> b;
};

System dominant_system(int n, uint64_t seed) {
  return {zoo::tridiagonal("dominant", n, seed), zoo::uniform(n, -1, 1, seed + 99)};
}

// dgtsv on copies: the reference answer.
std::vector<double> reference_solve(const System &s) {
  auto dl = s.a.dl, d = s.a.d, du = s.a.du;
  auto x = s.b;
  int n = static_cast<int>(d.size()), one = 1, info = 0;
  dgtsv_(&n, &one, dl.data(), d.data(), du.data(), x.data(), &n, &info);
  return x;
}

// Must run first: nothing has set the policy yet, so it is the environment's.
TEST(Environment, InitialPolicyComesFromGPUEIG_BACKEND) {
  const char *expect = std::getenv("GPUEIG_EXPECT_POLICY");
  EXPECT_EQ(info_line("backend policy:"),
            std::string("backend policy: ") + (expect ? expect : "auto"));
}

TEST(Dispatch, SetBackendAcceptsKnownNamesOnly) {
  EXPECT_EQ(gpueig_set_backend("cpu"), 0);
  EXPECT_EQ(info_line("backend policy:"), "backend policy: cpu");
  EXPECT_EQ(gpueig_set_backend("GPU"), 0);
  EXPECT_EQ(info_line("backend policy:"), "backend policy: gpu");
  EXPECT_EQ(gpueig_set_backend("fastest"), -1);
  EXPECT_EQ(gpueig_set_backend(nullptr), -1);
  EXPECT_EQ(info_line("backend policy:"), "backend policy: gpu");  // unchanged
  EXPECT_EQ(gpueig_set_backend("Auto"), 0);
  EXPECT_EQ(info_line("backend policy:"), "backend policy: auto");
}

TEST(Dispatch, VersionAndInfo) {
  EXPECT_STREQ(gpueig_version(), "0.1.0");
  EXPECT_NE(info_line("gtsv:"), "");
  // The LAPACK the build found (OpenBLAS where installed, else e.g. Reference LAPACK).
  EXPECT_NE(info_line("LAPACK (CPU backend):").find(GPUEIG_LAPACK_SONAME), std::string::npos);
}

TEST(Dispatch, CrossoverOverrideFromEnvironment) {
  ScopedEnv env{{"GPUEIG_CROSSOVER_GTSV", "12345"}};
  EXPECT_EQ(info_line("gtsv:"), "gtsv: n >= 12345");
  gpueig_set_backend("auto");
  EXPECT_STREQ(gpueig_backend_for("gtsv", 12344), "cpu");
  EXPECT_STREQ(gpueig_backend_for("gtsv", 12345), gpueig_gpu_available() ? "gpu" : "cpu");
}

// getrf's size is its work, not min(m, n): the order of a square LU of as many flops (n itself
// for a square n >= 128), discounted for narrow shapes (src/tuning.hpp, measured): 2^20 x 32 is
// no small problem, 4096 x 32 is.
TEST(Dispatch, GetrfSizeIsItsWork) {
  using gpueig::tuning::getrf_work_size;
  // A square n is n, whatever the crossover is set to (tests set it below 128).
  for (int64_t n : {1, 2, 64, 80, 127, 128, 129, 1000, 4096, 65536, 1 << 20})
    EXPECT_EQ(getrf_work_size(n, n), n);
  EXPECT_EQ(getrf_work_size(0, 7), 0);
  EXPECT_EQ(getrf_work_size(7, 0), 0);
  for (auto [m, n] : {std::pair<int64_t, int64_t>{1 << 20, 32}, {65536, 16}, {16384, 64}, {2048, 96}}) {
    EXPECT_GE(getrf_work_size(m, n), gpueig::tuning::kCrossoverGetrf) << m << " x " << n;
    EXPECT_EQ(getrf_work_size(m, n), getrf_work_size(n, m));
  }
  for (auto [m, n] : {std::pair<int64_t, int64_t>{4096, 32}, {65536, 4}, {16384, 4}, {300, 2}})
    EXPECT_LT(getrf_work_size(m, n), gpueig::tuning::kCrossoverGetrf) << m << " x " << n;
  // Rectangular shapes of min(m, n) >= 128 stay on the GPU as before.
  EXPECT_GE(getrf_work_size(128, 100000), 128);
  EXPECT_GE(getrf_work_size(100000, 128), 128);
}

TEST(Dispatch, BackendForFollowsThePolicy) {
  gpueig_set_backend("cpu");
  EXPECT_STREQ(gpueig_backend_for("gtsv", 1 << 30), "cpu");
  gpueig_set_backend("gpu");
  EXPECT_STREQ(gpueig_backend_for("gtsv", 1), "gpu");      // forced, whatever the size
  EXPECT_STREQ(gpueig_backend_for("getrf", 1 << 20), "gpu");
  EXPECT_STREQ(gpueig_backend_for("sytrd", 1 << 20), "gpu");
  EXPECT_STREQ(gpueig_backend_for("toeplitz", 1 << 20), "gpu");
  EXPECT_EQ(gpueig_backend_for("potrf", 10), nullptr);
  EXPECT_EQ(gpueig_backend_for(nullptr, 10), nullptr);
  gpueig_set_backend("auto");
}

TEST(Dispatch, LastBackendIsPerThreadAndNoneAfterIllegalArgument) {
  gpueig_set_backend("cpu");
  System s = dominant_system(10, 1);
  ASSERT_EQ(gpu_gtsv_pcr(10, 1, s.a.dl.data(), s.a.d.data(), s.a.du.data(), s.b.data(), 10), 0);
  EXPECT_STREQ(gpueig_last_backend(), "cpu");
  std::string other;
  std::thread([&] { other = gpueig_last_backend(); }).join();
  EXPECT_EQ(other, "none");  // a new thread has made no call
  EXPECT_EQ(gpu_gtsv_pcr(10, 1, s.a.dl.data(), s.a.d.data(), s.a.du.data(), s.b.data(), 9), -7);
  EXPECT_STREQ(gpueig_last_backend(), "none");
  gpueig_set_backend("auto");
}

// A device failure (injected at the GPU workspace allocation) in `auto` falls back to the CPU and
// still returns the right answer; with the GPU forced it is GPUEIG_ERR_DEVICE and B is untouched.
// On a machine without a GPU the forced call fails the same way.
TEST(Dispatch, DeviceFailureFallsBackInAutoAndIsAnErrorWhenForced) {
  ScopedEnv env{{"GPUEIG_CROSSOVER_GTSV", "0"}, {"GPUEIG_FAULT_INJECT", "alloc"}};
  const int n = 300;
  System s = dominant_system(n, 2);
  std::vector<double> expect = reference_solve(s);

  gpueig_set_backend("auto");
  std::vector<double> x = s.b;
  ASSERT_EQ(gpu_gtsv_pcr(n, 1, s.a.dl.data(), s.a.d.data(), s.a.du.data(), x.data(), n), 0);
  EXPECT_STREQ(gpueig_last_backend(), "cpu");
  EXPECT_EQ(x, expect);

  gpueig_set_backend("gpu");
  x = s.b;
  EXPECT_EQ(gpu_gtsv_pcr(n, 1, s.a.dl.data(), s.a.d.data(), s.a.du.data(), x.data(), n),
            GPUEIG_ERR_DEVICE);
  EXPECT_EQ(x, s.b);
  EXPECT_STREQ(gpueig_last_backend(), "none");
  gpueig_set_backend("auto");
}

// Concurrent callers, each with its own system, get their own correct answers (on a GPU machine
// with the crossover at 0 this exercises the per-thread GPU contexts).
TEST(Dispatch, ConcurrentCallsAreIndependent) {
  ScopedEnv env{{"GPUEIG_CROSSOVER_GTSV", "0"}};
  gpueig_set_backend("auto");
  const int threads = 8, n = 2000;
  std::vector<double> worst(threads, -1.0);
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      for (int rep = 0; rep < 5; ++rep) {
        System s = dominant_system(n + t, 10 * t + rep);
        std::vector<double> x = s.b;
        int nn = n + t;
        if (gpu_gtsv_pcr(nn, 1, s.a.dl.data(), s.a.d.data(), s.a.du.data(), x.data(), nn) != 0) {
          worst[t] = 1e300;
          return;
        }
        worst[t] = std::max(worst[t], ratios::gtsv_residual(nn, 1, s.a.dl.data(), s.a.d.data(),
                                                            s.a.du.data(), s.b.data(), nn,
                                                            x.data(), nn));
      }
    });
  for (auto &th : pool) th.join();
  for (int t = 0; t < threads; ++t) EXPECT_LE(worst[t], ratios::kThreshold) << "thread " << t;
}

// No exception crosses the C ABI. A GPU attempt that throws is a device failure: GPUEIG_ERR_DEVICE
// when the GPU is forced (outputs untouched), the CPU's answer in auto; a CPU path that throws is
// GPUEIG_ERR_MEMORY. The throws are injected (GPUEIG_FAULT_INJECT) inside the dispatched attempts.
TEST(Barrier, ThrowingGpuAttemptIsADeviceFailure) {
  ScopedEnv env{{"GPUEIG_FAULT_INJECT", "gpu_throw"}, {"GPUEIG_CROSSOVER_GTSV", "0"}};
  const int n = 50;
  System s = dominant_system(n, 3);
  const std::vector<double> expect = reference_solve(s);
  gpueig_set_backend("gpu");
  std::vector<double> x = s.b;
  EXPECT_EQ(gpu_gtsv_pcr(n, 1, s.a.dl.data(), s.a.d.data(), s.a.du.data(), x.data(), n),
            GPUEIG_ERR_DEVICE);
  EXPECT_EQ(x, s.b);
  EXPECT_STREQ(gpueig_last_backend(), "none");
  std::vector<double> a = zoo::uniform(n * n, -1, 1, 4);
  std::vector<int> ipiv(n, -1);
  EXPECT_EQ(gpu_getrf_crout(n, n, a.data(), n, ipiv.data()), GPUEIG_ERR_DEVICE);
  gpueig_set_backend("auto");  // auto tries the GPU only where one is usable
  x = s.b;
  ASSERT_EQ(gpu_gtsv_pcr(n, 1, s.a.dl.data(), s.a.d.data(), s.a.du.data(), x.data(), n), 0);
  EXPECT_STREQ(gpueig_last_backend(), "cpu");
  EXPECT_EQ(x, expect);
}

TEST(Barrier, ThrowingCpuPathIsAMemoryError) {
  ScopedEnv env{{"GPUEIG_FAULT_INJECT", "cpu_throw"}};
  gpueig_set_backend("cpu");
  const int n = 20;
  System s = dominant_system(n, 5);
  std::vector<double> x = s.b;
  EXPECT_EQ(gpu_gtsv_pcr(n, 1, s.a.dl.data(), s.a.d.data(), s.a.du.data(), x.data(), n),
            GPUEIG_ERR_MEMORY);
  EXPECT_STREQ(gpueig_last_backend(), "none");
  std::vector<double> d(n, 2.0), e(n, 1.0), w(n);
  std::vector<int> iblock(n), isplit(n);
  int m = 0, nsplit = 0;
  EXPECT_EQ(gpu_stebz('A', 'E', n, 0, 0, 0, 0, 0.0, d.data(), e.data(), &m, &nsplit, w.data(),
                      iblock.data(), isplit.data()),
            GPUEIG_ERR_MEMORY);
  gpueig_set_backend("auto");
}

// n = INT_MAX: the half blocks cannot exist (std::length_error / std::bad_alloc inside); the
// call returns GPUEIG_ERR_MEMORY instead of ending the process. T is 16 GB of zero pages that
// are mapped but never backed.
TEST(Barrier, ToeplitzBeyondMemoryIsAMemoryError) {
  const size_t bytes = static_cast<size_t>(INT_MAX) * sizeof(double);
  void *p = mmap(nullptr, bytes, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) GTEST_SKIP() << "cannot reserve 16 GB of address space";
  const double *t = static_cast<const double *>(p);
  double w = 0;
  int m = -1;
  for (const char *backend : {"cpu", "auto"}) {
    gpueig_set_backend(backend);
    EXPECT_EQ(gpu_toeplitz_eig('N', 'I', INT_MAX, t, 0, 0, 1, 1, 0.0, &m, &w, &w, 1),
              GPUEIG_ERR_MEMORY);
    EXPECT_STREQ(gpueig_last_backend(), "none");
  }
  munmap(p, bytes);
  gpueig_set_backend("auto");
}

// Every GPUEIG_* variable is validated: a bad value is reported once on stderr, never taken
// silently as something else.
TEST(EnvironmentValues, BadValuesAreReportedOnceAndTheDefaultKept) {
  struct Case { const char *name, *value, *line_key, *expect_line; };
  const Case cases[] = {
      {"GPUEIG_CROSSOVER_GTSV", "-5", "gtsv:", "gtsv: n >= 16384"},
      {"GPUEIG_CROSSOVER_STEBZ", "abc", "stebz:", "stebz: n >= 32"},
      {"GPUEIG_CROSSOVER_GETRF", "12x", "getrf:", "getrf: work-equivalent order >= 128"},
      {"GPUEIG_CROSSOVER_SYTRD", "99999999999999999999", "sytrd:", "sytrd: n >= 512"}};
  for (const Case &c : cases) {
    ScopedEnv env{{c.name, c.value}};
    testing::internal::CaptureStderr();
    EXPECT_EQ(info_line(c.line_key), c.expect_line);
    EXPECT_EQ(info_line(c.line_key), c.expect_line);
    const std::string err = testing::internal::GetCapturedStderr();
    const std::string want = std::string("gpueig: ignoring ") + c.name + "=" + c.value;
    EXPECT_NE(err.find(want), std::string::npos) << err;
    EXPECT_EQ(err.find(want), err.rfind(want)) << "reported more than once:\n" << err;
  }
}

// Run by CTest with GPUEIG_LAPACK pointing at a library that does not exist (lapack_missing):
// every CPU path returns GPUEIG_ERR_LAPACK, the reason (path and dlerror) is said once on stderr
// and in gpueig_info(), and the thread's last backend is "none", not "cpu".
TEST(LapackMissing, ReportedOnceWithPathAndReason) {
  const char *lib = std::getenv("GPUEIG_LAPACK");
  if (!lib || std::string(lib).find("nonexistent") == std::string::npos)
    GTEST_SKIP() << "run by the lapack_missing test (GPUEIG_LAPACK=/nonexistent...)";
  gpueig_set_backend("cpu");
  System s = dominant_system(10, 1);
  testing::internal::CaptureStderr();
  for (int i = 0; i < 3; ++i) {
    std::vector<double> x = s.b;
    EXPECT_EQ(gpu_gtsv_pcr(10, 1, s.a.dl.data(), s.a.d.data(), s.a.du.data(), x.data(), 10),
              GPUEIG_ERR_LAPACK);
    EXPECT_STREQ(gpueig_last_backend(), "none");
  }
  const std::string err = testing::internal::GetCapturedStderr();
  const std::string want = std::string("cannot load ") + lib + ": ";
  EXPECT_NE(err.find(want), std::string::npos) << err;
  EXPECT_EQ(err.find(want), err.rfind(want)) << "reported more than once:\n" << err;
  EXPECT_NE(info_line("LAPACK (CPU backend):").find("NOT LOADED: cannot load"), std::string::npos);
  gpueig_set_backend("auto");
}

}  // namespace
