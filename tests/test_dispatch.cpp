// Dispatch and the host-side contract: backend policy (API and environment), per-thread last
// backend, crossover overrides, device-failure fallback, and concurrent callers.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "gpueig.h"
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
  EXPECT_NE(info_line("LAPACK (CPU backend):").find("libopenblas"), std::string::npos);
}

TEST(Dispatch, CrossoverOverrideFromEnvironment) {
  ScopedEnv env{{"GPUEIG_CROSSOVER_GTSV", "12345"}};
  EXPECT_EQ(info_line("gtsv:"), "gtsv: n >= 12345");
  gpueig_set_backend("auto");
  EXPECT_STREQ(gpueig_backend_for("gtsv", 12344), "cpu");
  EXPECT_STREQ(gpueig_backend_for("gtsv", 12345), gpueig_gpu_available() ? "gpu" : "cpu");
}

TEST(Dispatch, BackendForFollowsThePolicy) {
  gpueig_set_backend("cpu");
  EXPECT_STREQ(gpueig_backend_for("gtsv", 1 << 30), "cpu");
  gpueig_set_backend("gpu");
  EXPECT_STREQ(gpueig_backend_for("gtsv", 1), "gpu");      // forced, whatever the size
  EXPECT_STREQ(gpueig_backend_for("getrf", 1 << 20), "gpu");
  EXPECT_STREQ(gpueig_backend_for("sytrd", 1 << 20), "gpu");
  EXPECT_STREQ(gpueig_backend_for("toeplitz", 1 << 20), "cpu");  // no GPU method yet
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

}  // namespace
