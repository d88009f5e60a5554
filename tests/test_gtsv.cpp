// gpu_gtsv_pcr against LAPACK dgtsv over the tridiagonal zoo, through the public API on the
// backend named by GPUEIG_TEST_BACKEND ("cpu" or "gpu").
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
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
  // Diagonally dominant systems and the SPD Laplacian stay on the GPU (elimination without
  // pivoting is backward stable on both, so the residual check must accept the result).
  const bool stays = a.dominant || a.name == "spd121";
  EXPECT_EQ(backend, kOnGpu && stays ? "gpu" : backend);
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

// A lone system that needs pivoting (a zero diagonal: the elimination without it meets a zero
// pivot at once), one right-hand side from N = 16384, several from 65536: solved again on the
// device with partial pivoting inside chunks of rows, so it stays on the GPU and passes DGTT02's
// test (below, DGTSV on the host is faster); at odd n it is singular, and DGTSV on the host gives
// INFO and B.
TEST_F(GtsvLarge, ZeroDiagonalStaysOnTheGpu) {
  for (int n : {4096, 4097, 20000, 70000, 70001, (1 << 20) + 2}) {
    zoo::Tridiagonal a{"zero diagonal", zoo::uniform(n - 1, 0.5, 1.5, 3), std::vector<double>(n, 0.0),
                       zoo::uniform(n - 1, 0.5, 1.5, 4), false};
    check_system(a, 1, n, 9);
    if (kOnGpu) EXPECT_STREQ(gpueig_last_backend(), n % 2 == 0 && n >= 16384 ? "gpu" : "cpu") << "n=" << n;
    // Several right-hand sides, column by column on the device from N = 65536 (ldb > n).
    check_system(a, 3, n + 5, 10);
    if (kOnGpu) EXPECT_STREQ(gpueig_last_backend(), n % 2 == 0 && n >= 65536 ? "gpu" : "cpu") << "n=" << n;
  }
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

// ---- gpu_gtsv_pcr_batch ------------------------------------------------------------------------

// A batch of systems in one set of arrays (system k at k*stride), the padding marked.
struct Batch {
  int n, count, stride;
  std::vector<zoo::Tridiagonal> systems;
  std::vector<double> dl, d, du, b;
};

Batch make_batch(int n, int stride, const std::vector<zoo::Tridiagonal> &systems, uint64_t seed) {
  Batch t{n, static_cast<int>(systems.size()), stride, systems, {}, {}, {}, {}};
  const size_t total = static_cast<size_t>(stride) * t.count;
  t.dl.assign(total, kPad);
  t.d.assign(total, kPad);
  t.du.assign(total, kPad);
  t.b.assign(total, kPad);
  const std::vector<double> rhs = zoo::uniform(static_cast<int64_t>(n) * t.count, -1, 1, seed);
  for (int k = 0; k < t.count; ++k) {
    const size_t o = static_cast<size_t>(k) * stride;
    std::copy(systems[k].dl.begin(), systems[k].dl.end(), t.dl.begin() + o);
    std::copy(systems[k].d.begin(), systems[k].d.end(), t.d.begin() + o);
    std::copy(systems[k].du.begin(), systems[k].du.end(), t.du.begin() + o);
    std::copy(rhs.begin() + static_cast<size_t>(k) * n, rhs.begin() + static_cast<size_t>(k + 1) * n,
              t.b.begin() + o);
  }
  return t;
}

// Runs the batch through the API and checks every system against its own dgtsv call, and the
// returned INFO against the documented encoding of the first singular system.
void check_batch(const Batch &t) {
  Batch mine = t;
  const int info = gpu_gtsv_pcr_batch(t.n, t.count, mine.dl.data(), mine.d.data(), mine.du.data(),
                                      mine.b.data(), t.stride);
  const std::string backend = gpueig_last_backend();
  SCOPED_TRACE("batch n=" + std::to_string(t.n) + " count=" + std::to_string(t.count) +
               " stride=" + std::to_string(t.stride) + " backend=" + backend);
  if (!kOnGpu) EXPECT_EQ(backend, "cpu");
  EXPECT_EQ(mine.dl, t.dl);  // the matrices (and the padding) are left as they were
  EXPECT_EQ(mine.d, t.d);
  EXPECT_EQ(mine.du, t.du);
  int64_t expect_info = 0;
  int worse = 0;
  for (int k = 0; k < t.count; ++k) {
    const size_t o = static_cast<size_t>(k) * t.stride;
    const std::vector<double> bk(t.b.begin() + o, t.b.begin() + o + t.n);
    const Result ref = run_dgtsv(t.systems[k], bk, 1, t.n);
    for (int i = t.n; i < t.stride && k + 1 < t.count; ++i) ASSERT_EQ(mine.b[o + i], kPad);
    if (ref.info > 0) {
      if (expect_info == 0) expect_info = static_cast<int64_t>(k) * t.n + ref.info;
      // B as DGTSV leaves it (the device re-solve repeats DGTSV's operations exactly).
      EXPECT_EQ(0, std::memcmp(mine.b.data() + o, ref.x.data(), t.n * sizeof(double)))
          << "singular system " << k;
      continue;
    }
    const zoo::Tridiagonal &a = t.systems[k];
    const double ours = ratios::gtsv_residual(t.n, 1, a.dl.data(), a.d.data(), a.du.data(),
                                              bk.data(), t.n, mine.b.data() + o, t.n);
    const double theirs = ratios::gtsv_residual(t.n, 1, a.dl.data(), a.d.data(), a.du.data(),
                                                bk.data(), t.n, ref.x.data(), t.n);
    if (!(ours <= ratios::kThreshold) || !(ours <= 10 * std::max(theirs, 1.0))) {
      if (++worse <= 5)
        ADD_FAILURE() << a.name << " system " << k << ": ratio " << ours << ", dgtsv's " << theirs;
    }
  }
  EXPECT_EQ(worse, 0);
  EXPECT_EQ(info, expect_info <= INT_MAX ? expect_info : INT_MAX);
}

// Every zoo kind and size as a batch of one: the same answer as gpu_gtsv_pcr's contract.
TEST_P(GtsvZoo, BatchOfOne) {
  const auto &[kind, n] = GetParam();
  check_batch(make_batch(n, n, {zoo::tridiagonal(kind, n, n)}, 9));
}

class GtsvBatch : public GtsvZoo {};

// 100000 systems, the zoo's kinds mixed: thousands fail the check without pivoting (non-dominant,
// Helmholtz, singular), which sends them to the device's pivoting re-solve.
TEST_F(GtsvBatch, HundredThousandMixed) {
  const std::vector<std::string> kinds = zoo::tridiagonal_kinds();
  for (int n : {5, 33}) {
    std::vector<zoo::Tridiagonal> sys;
    for (int k = 0; k < 100000; ++k)
      sys.push_back(zoo::tridiagonal(kinds[(k * 7 + k / 8) % kinds.size()], n, 100 + k));
    check_batch(make_batch(n, n + 2, sys, 10));
  }
}

// The same mix at a size the sanitizers can run: still hundreds of device re-solves.
TEST_F(GtsvBatch, MixedDevicePivot) {
  const std::vector<std::string> kinds = zoo::tridiagonal_kinds();
  std::vector<zoo::Tridiagonal> sys;
  for (int k = 0; k < 2000; ++k) sys.push_back(zoo::tridiagonal(kinds[k % kinds.size()], 33, k));
  check_batch(make_batch(33, 35, sys, 14));
}

// A few failing systems among many good ones: those few are re-solved on the host.
TEST_F(GtsvBatch, FewFailuresAndSingular) {
  std::vector<zoo::Tridiagonal> sys;
  for (int k = 0; k < 300; ++k)
    sys.push_back(zoo::tridiagonal(k == 17 ? "singular" : k % 50 == 3 ? "nondominant" : "dominant",
                                   200, 300 + k));
  check_batch(make_batch(200, 211, sys, 11));
}

// A few long systems that need pivoting (zero diagonals; one of odd order, singular): from
// N = 16384 each is solved again on the device with pivoting inside chunks, the singular one
// then by DGTSV on the host (INFO k*N + i, B DGTSV's).
TEST_F(GtsvBatch, FewLongPivoting) {
  const int n = 20000;
  std::vector<zoo::Tridiagonal> sys;
  for (int k = 0; k < 4; ++k) {
    const int nk = k == 2 ? n - 1 : n;  // system 2: a zero diagonal of odd order and a zero last row
    zoo::Tridiagonal t{"zero diagonal", zoo::uniform(nk - 1, 0.5, 1.5, 20 + k), std::vector<double>(nk, 0.0),
                       zoo::uniform(nk - 1, 0.5, 1.5, 30 + k), false};
    if (nk < n) t.d.push_back(0.0), t.dl.push_back(0.0), t.du.push_back(0.0);
    sys.push_back(t);
  }
  check_batch(make_batch(n, n + 3, sys, 15));
  if (kOnGpu) EXPECT_STREQ(gpueig_last_backend(), "gpu");
}

// Systems larger than one tile (the tiled path, per system), with padding between them.
TEST_F(GtsvBatch, LargeSystems) {
  std::vector<zoo::Tridiagonal> sys;
  for (int k = 0; k < 6; ++k)
    sys.push_back(zoo::tridiagonal(k % 3 == 2 ? "helmholtz" : k % 3 ? "spd121" : "dominant",
                                   5003, 400 + k));
  check_batch(make_batch(5003, 5010, sys, 12));
  check_batch(make_batch((1 << 20) + 3, (1 << 20) + 3,
                         {zoo::tridiagonal("dominant", (1 << 20) + 3, 13),
                          zoo::tridiagonal("spd121", (1 << 20) + 3, 14)},
                         13));
}

}  // namespace
