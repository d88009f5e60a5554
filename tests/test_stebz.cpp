// gpu_stebz against LAPACK dstebz over the symmetric tridiagonal zoo, through the public API on
// the backend named by GPUEIG_TEST_BACKEND ("cpu" or "gpu"). The contract is dstebz's: the same
// INFO, M, NSPLIT, ISPLIT and IBLOCK, and every W(i) within the tolerance dstebz promises.
#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <iomanip>
#include <limits>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "gpueig.h"
#include "lapack_ref.hpp"
#include "ratios.hpp"
#include "zoo.hpp"

namespace {

const bool kOnGpu = std::string(GPUEIG_TEST_BACKEND) == "gpu";
constexpr double kSafeMin = DBL_MIN;   // DLAMCH('S')
constexpr double kPoison = 31337.0;    // no output is ever this value
constexpr int kIPoison = -777;
const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

// One call: RANGE, ORDER and the arguments that go with them.
struct Query {
  char range, order;
  double vl, vu;
  int il, iu;
  double abstol;
  std::string label;  // what the slice is, for failure messages
};

std::string describe(const Query &q) {
  std::ostringstream s;
  s << std::setprecision(17) << q.label << " RANGE=" << q.range << " ORDER=" << q.order
    << " ABSTOL=" << q.abstol;
  if (q.range == 'V') s << " (VL,VU]=(" << q.vl << "," << q.vu << "]";
  if (q.range == 'I') s << " IL..IU=" << q.il << ".." << q.iu;
  return s.str();
}

// Outputs of one call, poisoned beforehand so that whatever is not written shows.
struct Result {
  int info = kIPoison, m = kIPoison, nsplit = kIPoison;
  std::vector<double> w;
  std::vector<int> iblock, isplit;
  explicit Result(int n)
      : w(std::max(1, n), kPoison), iblock(std::max(1, n), kIPoison),
        isplit(std::max(1, n), kIPoison) {}
  bool untouched() const {
    return m == kIPoison && nsplit == kIPoison &&
           std::all_of(w.begin(), w.end(), [](double x) { return x == kPoison; }) &&
           std::all_of(iblock.begin(), iblock.end(), [](int x) { return x == kIPoison; }) &&
           std::all_of(isplit.begin(), isplit.end(), [](int x) { return x == kIPoison; });
  }
};

int order_of(const zoo::SymTridiagonal &t) { return static_cast<int>(t.d.size()); }

Result call_dstebz(const zoo::SymTridiagonal &t, const Query &q) {
  const int n = order_of(t);
  Result r(n);
  std::vector<double> work(4 * static_cast<size_t>(std::max(1, n)));
  std::vector<int> iwork(3 * static_cast<size_t>(std::max(1, n)));
  dstebz_(&q.range, &q.order, &n, &q.vl, &q.vu, &q.il, &q.iu, &q.abstol, t.d.data(), t.e.data(),
          &r.m, &r.nsplit, r.w.data(), r.iblock.data(), r.isplit.data(), work.data(),
          iwork.data(), &r.info, 1, 1);
  return r;
}

Result call_library(const zoo::SymTridiagonal &t, const Query &q) {
  Result r(order_of(t));
  r.info = gpu_stebz(q.range, q.order, order_of(t), q.vl, q.vu, q.il, q.iu, q.abstol, t.d.data(),
                     t.e.data(), &r.m, &r.nsplit, r.w.data(), r.iblock.data(), r.isplit.data());
  return r;
}

// max_i |d_i| + |e_{i-1}| + |e_i|: the Gershgorin bound dstebz calls TNORM.
double gershgorin(const zoo::SymTridiagonal &t) {
  const int n = order_of(t);
  double bound = 0;
  for (int i = 0; i < n; ++i)
    bound = std::max(bound, std::fabs(t.d[i]) + (i > 0 ? std::fabs(t.e[i - 1]) : 0.0) +
                                (i < n - 1 ? std::fabs(t.e[i]) : 0.0));
  return bound;
}

// How far apart two correct answers for one W(i) may be. dstebz bisects an eigenvalue until its
// interval is narrower than max(ATOLI, 2 ULP |lambda|, PIVMIN), ATOLI being ABSTOL or, for
// ABSTOL <= 0, ULP times the block's Gershgorin bound, and returns the interval's midpoint; the
// Sturm counts it relies on are exact for a matrix within a few EPS * TNORM of T (Kahan), i.e.
// under 2 ULP * TNORM. Each correct W(i) is therefore within max(ABSTOL, 4 ULP TNORM) of an
// exact eigenvalue, and two of them within twice that of each other, plus a few
// PIVMIN = SAFMIN max(1, e_i^2) (the pivot floor of the Sturm count), which only matters where
// ULP * TNORM is near underflow.
double stebz_tolerance(const zoo::SymTridiagonal &t, double abstol) {
  double pivmin = 1;
  for (double e : t.e) pivmin = std::max(pivmin, e * e);
  pivmin *= kSafeMin;
  return 2 * std::max(abstol, 4 * ratios::kUlp * gershgorin(t)) + 4 * pivmin;
}

// Index of the first difference of a[0..count) and b[0..count), or -1.
template <typename T>
int first_difference(const std::vector<T> &a, const std::vector<T> &b, int count) {
  for (int i = 0; i < count; ++i)
    if (a[i] != b[i]) return i;
  return -1;
}

// Runs one query on the library and on dstebz and compares everything dstebz defines.
void check_query(const zoo::SymTridiagonal &t, const Query &q) {
  const int n = order_of(t);
  SCOPED_TRACE(t.name + " n=" + std::to_string(n) + " " + describe(q));
  const Result ref = call_dstebz(t, q);
  const Result got = call_library(t, q);
  const std::string backend = gpueig_last_backend();
  EXPECT_EQ(backend, kOnGpu ? "gpu" : "cpu");

  ASSERT_EQ(got.info, ref.info);
  ASSERT_EQ(got.m, ref.m);
  ASSERT_EQ(got.nsplit, ref.nsplit);
  ASSERT_TRUE(ref.m >= 0 && ref.m <= n && ref.nsplit >= 1 && ref.nsplit <= n);
  int at = first_difference(got.isplit, ref.isplit, ref.nsplit);
  EXPECT_EQ(at, -1) << "ISPLIT(" << at + 1 << ") = " << (at >= 0 ? got.isplit[at] : 0)
                    << ", dstebz " << (at >= 0 ? ref.isplit[at] : 0);
  at = first_difference(got.iblock, ref.iblock, ref.m);
  EXPECT_EQ(at, -1) << "IBLOCK(" << at + 1 << ") = " << (at >= 0 ? got.iblock[at] : 0)
                    << ", dstebz " << (at >= 0 ? ref.iblock[at] : 0);

  const double tol = stebz_tolerance(t, q.abstol);
  int worst = -1;
  double worst_diff = 0;
  for (int i = 0; i < ref.m; ++i) {
    const double diff = std::fabs(got.w[i] - ref.w[i]);
    if (!(diff <= worst_diff)) {  // NaN counts as worst
      worst = i;
      worst_diff = diff;
    }
  }
  if (worst >= 0) {
    EXPECT_LE(worst_diff, tol) << "W(" << worst + 1 << ") = " << got.w[worst] << ", dstebz "
                               << ref.w[worst];
  }
  if (q.order == 'E') {
    for (int i = 1; i < got.m; ++i) ASSERT_LE(got.w[i - 1], got.w[i]) << "W not ascending at " << i;
  }
}

// The whole spectrum, ascending, as dstebz sees it (the reference for where gaps are).
std::vector<double> reference_spectrum(const zoo::SymTridiagonal &t) {
  const Result r = call_dstebz(t, {'A', 'E', 0, 0, 0, 0, 0, ""});
  EXPECT_EQ(r.info, 0);
  EXPECT_EQ(r.m, order_of(t));
  return std::vector<double>(r.w.begin(), r.w.begin() + std::max(0, r.m));
}

// Above this order only the slices that add coverage run: bisection costs O(n) per step and
// eigenvalue, and the whole spectrum at n = 1025 takes about a quarter of a second.
constexpr int kLargeOrder = 300;

// The queries one (matrix, RANGE, ORDER) test runs, for each ABSTOL: 0 (ULP * |T|), a coarse one
// (1e-9 |T|), and 2 * SAFMIN (LAPACK's advice for the most accurate eigenvalues: relative
// accuracy, the slowest, left out for large matrices).
std::vector<Query> queries(const zoo::SymTridiagonal &t, char range, char order) {
  const int n = order_of(t);
  const bool large = n > kLargeOrder;
  const double tnorm = gershgorin(t);
  std::vector<Query> slices;
  if (range == 'A') slices.push_back({'A', order, 0, 0, 0, 0, 0, "all"});
  if (range == 'V') {
    const std::vector<double> ref = reference_spectrum(t);
    const double tol = stebz_tolerance(t, 0);
    auto add = [&](double vl, double vu, const char *label) {
      if (vl < vu) slices.push_back({'V', order, vl, vu, 0, 0, 0, label});
    };
    add(ratios::gap_point(ref, n / 3, tol), ratios::gap_point(ref, 2 * n / 3, tol), "middle third");
    const double mid = ratios::gap_point(ref, n / 2, tol);
    add(mid - tol, mid, "empty interval in a gap");
    if (!large) {
      add(ratios::gap_point(ref, 0, tol), ratios::gap_point(ref, n, tol), "whole spectrum");
      add(mid, ratios::gap_point(ref, n, tol), "upper half");
      add(ratios::gap_point(ref, n, tol), ratios::gap_point(ref, n, tol) + std::max(tnorm, 1.0), "above all");
    }
  }
  if (range == 'I') {
    const int third = n / 3 + 1;
    slices.push_back({'I', order, 0, 0, n, n, 0, "largest"});
    slices.push_back({'I', order, 0, 0, third, std::max(third, 2 * n / 3), 0, "middle third"});
    slices.push_back({'I', order, 0, 0, 1, std::max(1, n / 100), 0, "first 1%"});
    if (!large) {
      slices.push_back({'I', order, 0, 0, 1, 1, 0, "smallest"});
      slices.push_back({'I', order, 0, 0, 1, n, 0, "all by index"});
    }
  }
  std::vector<double> abstols = {0.0, 1e-9 * tnorm};
  if (!large) abstols.push_back(2 * kSafeMin);
  std::vector<Query> all;
  for (double abstol : abstols)
    for (Query q : slices) {
      q.abstol = abstol;
      all.push_back(q);
    }
  return all;
}

class StebzTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(gpueig_set_backend(GPUEIG_TEST_BACKEND), 0); }
};

// Sizes: the zoo's sizes up to 129 (1, 2, 3, primes, powers of two and their neighbours) and
// 257; 1025 runs separately with fewer queries. Larger zoo sizes add run time (bisection is
// O(n^2)) but no new code path.
std::vector<int> stebz_sizes() {
  std::vector<int> sizes;
  for (int n : zoo::tridiagonal_sizes())
    if (n <= 129 || n == 257) sizes.push_back(n);
  return sizes;
}
constexpr int kLargestSize = 1025;

using ZooParam = std::tuple<std::string, int, char, char>;  // kind, n, RANGE, ORDER

class StebzZoo : public StebzTest, public ::testing::WithParamInterface<ZooParam> {};

TEST_P(StebzZoo, MatchesDstebz) {
  const auto &[kind, n, range, order] = GetParam();
  const zoo::SymTridiagonal t = zoo::symtridiagonal(kind, n, n);
  for (const Query &q : queries(t, range, order)) check_query(t, q);
}

std::string zoo_name(const ::testing::TestParamInfo<ZooParam> &p) {
  return std::get<0>(p.param) + "_n" + std::to_string(std::get<1>(p.param)) + "_range" +
         std::get<2>(p.param) + "_order" + std::get<3>(p.param);
}

INSTANTIATE_TEST_SUITE_P(
    Zoo, StebzZoo,
    ::testing::Combine(::testing::ValuesIn(zoo::symtridiagonal_kinds()),
                       ::testing::ValuesIn(stebz_sizes()), ::testing::Values('A', 'V', 'I'),
                       ::testing::Values('B', 'E')),
    zoo_name);

// The largest size with ORDER 'E' only: ORDER changes nothing but the final sort, which the
// smaller sizes cover.
INSTANTIATE_TEST_SUITE_P(
    Large, StebzZoo,
    ::testing::Combine(::testing::ValuesIn(zoo::symtridiagonal_kinds()),
                       ::testing::Values(kLargestSize), ::testing::Values('A', 'V', 'I'),
                       ::testing::Values('E')),
    zoo_name);

class StebzAnalytic : public StebzTest, public ::testing::WithParamInterface<int> {};

// d = 2, e = 1 has the spectrum of the 1-2-1 matrix: 2 - 2 cos(j pi / (n + 1)), j = 1..n.
TEST_P(StebzAnalytic, OneTwoOneSpectrum) {
  const int n = GetParam();
  const zoo::SymTridiagonal t = zoo::symtridiagonal("121", n);
  for (char order : {'B', 'E'}) {
    SCOPED_TRACE(std::string("ORDER=") + order);
    const Result got = call_library(t, {'A', order, 0, 0, 0, 0, 0, "all"});
    ASSERT_EQ(got.info, 0);
    ASSERT_EQ(got.m, n);
    ASSERT_EQ(got.nsplit, 1);
    const double pi = std::acos(-1.0);
    for (int j = 1; j <= n; ++j) {
      const double exact = 2 - 2 * std::cos(j * pi / (n + 1));
      EXPECT_NEAR(got.w[j - 1], exact, ratios::kThreshold * n * ratios::kEps * 4) << "j=" << j;
    }
  }
}

std::vector<int> analytic_sizes() {
  std::vector<int> sizes = stebz_sizes();
  sizes.push_back(kLargestSize);
  return sizes;
}

INSTANTIATE_TEST_SUITE_P(Zoo, StebzAnalytic, ::testing::ValuesIn(analytic_sizes()),
                         [](const ::testing::TestParamInfo<int> &p) {
                           return "n" + std::to_string(p.param);
                         });

// N = 0: quick return with M = 0 for every RANGE (IL = 1, IU = 0 is the legal empty slice).
TEST_F(StebzTest, EmptyMatrix) {
  const zoo::SymTridiagonal t{"empty", {}, {}};
  for (const Query &q : {Query{'A', 'E', 0, 0, 0, 0, 0, "all"},
                         Query{'V', 'B', -1, 1, 0, 0, 0, "interval"},
                         Query{'I', 'E', 0, 0, 1, 0, 0.5, "empty slice"}}) {
    SCOPED_TRACE(describe(q));
    const Result ref = call_dstebz(t, q), got = call_library(t, q);
    EXPECT_EQ(got.info, 0);
    EXPECT_EQ(ref.info, 0);
    EXPECT_EQ(got.m, 0);
    EXPECT_EQ(got.w[0], kPoison);
  }
}

// Orders past the seed's 65536 cap (a prime, one block and a split matrix): slices by index at both
// ends and a window by value; the whole spectrum is too slow for DSTEBZ to be the reference here.
TEST_F(StebzTest, OrdersBeyond65536) {
  const int n = 100003;
  for (const std::string kind : {"random", "zero_offdiag"}) {
    const zoo::SymTridiagonal t = zoo::symtridiagonal(kind, n, 17);
    for (const Query &q : {Query{'I', 'E', 0, 0, 1, 12, 0, "first 12"},
                           Query{'I', 'B', 0, 0, n - 7, n, 0, "last 8"},
                           Query{'V', 'E', 0.25, 0.2501, 0, 0, 0, "narrow window"}})
      check_query(t, q);
  }
}

// N = 1: the (VL, VU] interval is half-open at exactly d(1); E is not referenced.
TEST_F(StebzTest, OneByOne) {
  zoo::SymTridiagonal t{"one", {0.75}, {}};
  for (const Query &q : {Query{'V', 'E', 0.75, 2, 0, 0, 0, "VL = d(1) excludes it"},
                         Query{'V', 'E', -1, 0.75, 0, 0, 0, "VU = d(1) includes it"},
                         Query{'V', 'B', -3, -1, 0, 0, 0, "below"},
                         Query{'I', 'B', 0, 0, 1, 1, 0, "only"}})
    check_query(t, q);
  // A NaN in E(1), which is not part of a 1 x 1 matrix, is no error.
  const double e_nan = kNaN;
  Result r(1);
  EXPECT_EQ(gpu_stebz('A', 'E', 1, 0, 0, 0, 0, 0.0, t.d.data(), &e_nan, &r.m, &r.nsplit,
                      r.w.data(), r.iblock.data(), r.isplit.data()),
            0);
  EXPECT_EQ(r.m, 1);
  EXPECT_EQ(r.w[0], 0.75);
}

// Documented deviation: a NaN or infinite entry of D (E) is an illegal argument 9 (10), and so is
// a NaN VL or VU (5); nothing is written.
TEST_F(StebzTest, NonFiniteInputsAreRejected) {
  const int n = 97;
  for (double bad : {kNaN, kInf, -kInf})
    for (int where : {0, n / 2, n - 1}) {
      for (bool in_d : {true, false}) {
        zoo::SymTridiagonal t = zoo::symtridiagonal("random", n);
        if (!in_d && where == n - 1) continue;  // E has n - 1 entries
        (in_d ? t.d : t.e)[where] = bad;
        for (const Query &q : {Query{'A', 'E', 0, 0, 0, 0, 0, "all"},
                               Query{'I', 'B', 0, 0, 2, 5, 0, "slice"}}) {
          Result got = call_library(t, q);
          EXPECT_EQ(got.info, in_d ? -9 : -10)
              << bad << " at " << (in_d ? "D" : "E") << "(" << where + 1 << ") " << describe(q);
          EXPECT_TRUE(got.untouched());
        }
      }
    }
  const zoo::SymTridiagonal t = zoo::symtridiagonal("random", n);
  for (const auto &[vl, vu] :
       {std::pair{kNaN, 1.0}, std::pair{-1.0, kNaN}, std::pair{kNaN, kNaN}}) {
    Result got = call_library(t, {'V', 'E', vl, vu, 0, 0, 0, "NaN bound"});
    EXPECT_EQ(got.info, -5) << "(VL,VU] = (" << vl << "," << vu << "]";
    EXPECT_TRUE(got.untouched());
  }
  // VL and VU are not referenced unless RANGE = 'V'.
  check_query(t, {'A', 'B', kNaN, kNaN, 0, 0, 0, "NaN VL, VU ignored"});
}

}  // namespace
