// gpu_gtsv_pcr against LAPACK dgtsv over the tridiagonal zoo, through the public API on the
// backend named by GPUEIG_TEST_BACKEND ("cpu" or "gpu").
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <tuple>
#include <vector>

#include "gpueig.h"
#include "lapack_ref.hpp"
#include "ratios.hpp"
#include "zoo.hpp"

namespace {

const bool kOnGpu = std::string(GPUEIG_TEST_BACKEND) == "gpu";
constexpr double kPad = 31337.0;  // marks the rows between n and ldb, which must stay untouched

struct Result {
  int info;
  std::vector<double> x;  // ldb x nrhs
};

Result run_dgtsv(const zoo::Tridiagonal &a, const std::vector<double> &b, int nrhs, int ldb) {
  auto dl = a.dl, d = a.d, du = a.du;
  Result r{0, b};
  int n = static_cast<int>(a.d.size());
  dgtsv_(&n, &nrhs, dl.data(), d.data(), du.data(), r.x.data(), &ldb, &r.info);
  return r;
}

std::vector<double> right_hand_sides(int n, int nrhs, int ldb, uint64_t seed) {
  std::vector<double> b(static_cast<size_t>(ldb) * nrhs, kPad);
  std::vector<double> v = zoo::uniform(static_cast<int64_t>(n) * nrhs, -1, 1, seed);
  for (int j = 0; j < nrhs; ++j)
    std::copy(v.begin() + static_cast<size_t>(j) * n, v.begin() + static_cast<size_t>(j + 1) * n,
              b.begin() + static_cast<size_t>(j) * ldb);
  return b;
}

// Checks one system on the backend under test against dgtsv.
void check_system(const zoo::Tridiagonal &a, int nrhs, int ldb, uint64_t seed) {
  const int n = static_cast<int>(a.d.size());
  const std::vector<double> b = right_hand_sides(n, nrhs, ldb, seed);
  const Result ref = run_dgtsv(a, b, nrhs, ldb);

  zoo::Tridiagonal mine = a;
  std::vector<double> x = b;
  int info = gpu_gtsv_pcr(n, nrhs, mine.dl.data(), mine.d.data(), mine.du.data(), x.data(), ldb);
  const std::string backend = gpueig_last_backend();
  SCOPED_TRACE(a.name + " n=" + std::to_string(n) + " nrhs=" + std::to_string(nrhs) +
               " ldb=" + std::to_string(ldb) + " backend=" + backend);

  ASSERT_EQ(info, ref.info);
  EXPECT_EQ(backend, kOnGpu && a.dominant ? "gpu" : backend);  // dominant systems stay on the GPU
  if (!kOnGpu) EXPECT_EQ(backend, "cpu");
  // Documented deviation from dgtsv: the matrix is left as it was.
  EXPECT_EQ(mine.dl, a.dl);
  EXPECT_EQ(mine.d, a.d);
  EXPECT_EQ(mine.du, a.du);
  for (int j = 0; j < nrhs; ++j)
    for (int i = n; i < ldb; ++i) ASSERT_EQ(x[i + static_cast<size_t>(j) * ldb], kPad);

  if (info > 0 || backend == "cpu") {
    // Singular (no solution), or solved by dgtsv itself: exactly LAPACK's B.
    EXPECT_EQ(0, std::memcmp(x.data(), ref.x.data(), x.size() * sizeof(double)));
    return;
  }
  const double ours = ratios::gtsv_residual(n, nrhs, a.dl.data(), a.d.data(), a.du.data(),
                                            b.data(), ldb, x.data(), ldb);
  const double theirs = ratios::gtsv_residual(n, nrhs, a.dl.data(), a.d.data(), a.du.data(),
                                              b.data(), ldb, ref.x.data(), ldb);
  EXPECT_LE(ours, ratios::kThreshold);
  EXPECT_LE(ours, 10 * std::max(theirs, 1.0)) << "dgtsv's own ratio " << theirs;
  if (a.dominant) {
    // Well conditioned: the two solutions agree to near working precision.
    double diff = 0, size = 0;
    for (size_t k = 0; k < x.size(); ++k) {
      diff = std::max(diff, std::fabs(x[k] - ref.x[k]));
      size = std::max(size, std::fabs(ref.x[k]));
    }
    EXPECT_LE(diff, 1e-12 * size);
  }
}

class GtsvZoo : public ::testing::TestWithParam<std::tuple<std::string, int>> {
 protected:
  void SetUp() override { ASSERT_EQ(gpueig_set_backend(GPUEIG_TEST_BACKEND), 0); }
};

TEST_P(GtsvZoo, MatchesDgtsv) {
  const auto &[kind, n] = GetParam();
  const zoo::Tridiagonal a = zoo::tridiagonal(kind, n, n);
  check_system(a, 1, n, 1);
  check_system(a, 7, n + 3, 2);  // several right-hand sides, ldb > n
}

INSTANTIATE_TEST_SUITE_P(
    Zoo, GtsvZoo,
    ::testing::Combine(::testing::ValuesIn(zoo::tridiagonal_kinds()),
                       ::testing::ValuesIn(zoo::tridiagonal_sizes())),
    [](const auto &info) {
      return std::get<0>(info.param) + "_n" + std::to_string(std::get<1>(info.param));
    });

class GtsvLarge : public GtsvZoo {};

// Large systems, not powers of two, one and several right-hand sides.
TEST_F(GtsvLarge, LargeDominantAndLaplace) {
  for (int n : {65537, (1 << 20) + 3}) {
    check_system(zoo::tridiagonal("dominant", n, 5), 1, n, 3);
    check_system(zoo::tridiagonal("spd121", n, 5), 1, n, 4);
  }
  check_system(zoo::tridiagonal("dominant", 100003, 6), 3, 100010, 5);
}

// NaN or Inf in the matrix or right-hand side: no crash, and the answer dgtsv gives (a GPU result
// with non-finite values is never accepted).
TEST_F(GtsvLarge, NonFiniteInputsBehaveAsDgtsv) {
  const int n = 1000;
  for (double bad : {NAN, INFINITY}) {
    for (int where = 0; where < 4; ++where) {
      zoo::Tridiagonal a = zoo::tridiagonal("dominant", n, 7);
      std::vector<double> b = right_hand_sides(n, 1, n, 8);
      (where == 0 ? a.dl : where == 1 ? a.d : where == 2 ? a.du : b)[n / 2] = bad;
      const Result ref = run_dgtsv(a, b, 1, n);
      std::vector<double> x = b;
      int info = gpu_gtsv_pcr(n, 1, a.dl.data(), a.d.data(), a.du.data(), x.data(), n);
      EXPECT_EQ(info, ref.info) << "bad value in array " << where;
      EXPECT_EQ(0, std::memcmp(x.data(), ref.x.data(), x.size() * sizeof(double)))
          << "bad value in array " << where;
      EXPECT_STREQ(gpueig_last_backend(), "cpu");
    }
  }
}

}  // namespace
