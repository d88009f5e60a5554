// gpu_toeplitz_eig against LAPACK dsyevr on the dense Toeplitz matrix, over the Toeplitz zoo,
// through the public API on the backend named by GPUEIG_TEST_BACKEND ("cpu" or "gpu"): the same
// eigenvalue counts, eigenvalues within LAPACK's test ratio, and for JOBZ = 'V' small residuals
// and orthonormal eigenvectors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
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
constexpr double kPoison = 31337.0;  // no output is ever this value
constexpr int kIPoison = -777;
const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

// RANGE and the arguments that go with it.
struct Query {
  char range;
  double vl, vu;
  int il, iu;
  std::string label;  // what the slice is, for failure messages
};

std::string describe(const Query &q) {
  std::ostringstream s;
  s << std::setprecision(17) << q.label << " RANGE=" << q.range;
  if (q.range == 'V') s << " (VL,VU]=(" << q.vl << "," << q.vu << "]";
  if (q.range == 'I') s << " IL..IU=" << q.il << ".." << q.iu;
  return s.str();
}

int order_of(const zoo::Vec &t) { return static_cast<int>(t.size()); }

// Checked before any ratio: the ratios take maxima with std::max, which may pass over a NaN.
bool all_finite(const std::vector<double> &v) {
  return std::all_of(v.begin(), v.end(), [](double x) { return std::isfinite(x); });
}

// The reference: dsyevr (JOBZ = 'N', UPLO = 'L', ABSTOL = 0) on the dense matrix.
struct Spectrum {
  int info = kIPoison, m = kIPoison;
  std::vector<double> w;  // w[0..m), ascending
};

Spectrum dense_dsyevr(const zoo::Vec &t, const Query &q) {
  const int n = order_of(t), lda = std::max(1, n), ldz = 1;
  zoo::Vec a = zoo::toeplitz_dense(t);
  a.resize(std::max<size_t>(a.size(), 1));
  Spectrum s;
  s.w.assign(std::max(1, n), kPoison);
  const double abstol = 0;
  double z = 0, lwork_query = 0;
  std::vector<int> isuppz(2 * static_cast<size_t>(std::max(1, n)));
  int lwork = -1, liwork = -1, liwork_query = 0;
  dsyevr_("N", &q.range, "L", &n, a.data(), &lda, &q.vl, &q.vu, &q.il, &q.iu, &abstol, &s.m,
          s.w.data(), &z, &ldz, isuppz.data(), &lwork_query, &lwork, &liwork_query, &liwork,
          &s.info, 1, 1, 1);
  lwork = std::max(1, static_cast<int>(lwork_query));
  liwork = std::max(1, liwork_query);
  std::vector<double> work(lwork);
  std::vector<int> iwork(liwork);
  dsyevr_("N", &q.range, "L", &n, a.data(), &lda, &q.vl, &q.vu, &q.il, &q.iu, &abstol, &s.m,
          s.w.data(), &z, &ldz, isuppz.data(), work.data(), &lwork, iwork.data(), &liwork,
          &s.info, 1, 1, 1);
  s.w.resize(s.info == 0 ? s.m : 0);
  return s;
}

// Outputs of one library call, poisoned beforehand so that whatever is not written shows.
struct Result {
  int info = kIPoison, m = kIPoison;
  int ldz;
  std::vector<double> w, z;  // z: ldz x max(1, n)
  Result(int n, int ldz_)
      : ldz(ldz_), w(std::max(1, n), kPoison), z(static_cast<size_t>(ldz_) * std::max(1, n),
                                                  kPoison) {}
  bool untouched() const {
    auto clean = [](const std::vector<double> &v) {
      return std::all_of(v.begin(), v.end(), [](double x) { return x == kPoison; });
    };
    return m == kIPoison && clean(w) && clean(z);
  }
};

Result call_library(char jobz, const zoo::Vec &t, const Query &q, int ldz) {
  Result r(order_of(t), ldz);
  r.info = gpu_toeplitz_eig(jobz, q.range, order_of(t), t.data(), q.vl, q.vu, q.il, q.iu, 0.0,
                            &r.m, r.w.data(), r.z.data(), ldz);
  return r;
}

// ||T Z - Z diag(w)||_1 / (n ||T||_1 ULP) over the m computed pairs (dsyt22's first ratio).
double eigenpair_residual(const zoo::Vec &dense, int n, const Result &r, double tnorm) {
  if (r.m == 0) return 0;
  std::vector<double> tz(static_cast<size_t>(n) * r.m);
  const double one = 1, zero = 0;
  dgemm_("N", "N", &n, &r.m, &n, &one, dense.data(), &n, r.z.data(), &r.ldz, &zero, tz.data(), &n,
         1, 1);
  for (int j = 0; j < r.m; ++j)
    for (int i = 0; i < n; ++i)
      tz[i + static_cast<size_t>(j) * n] -= r.w[j] * r.z[i + static_cast<size_t>(j) * r.ldz];
  const double rn = ratios::norm1(n, r.m, tz.data(), n);
  if (tnorm <= 0) return rn > 0 ? 1 / ratios::kEps : 0.0;
  // Divided in this order so that neither a tiny nor a huge ||T|| under- or overflows.
  return (rn / tnorm) / (static_cast<double>(n) * ratios::kUlp);
}


// Runs one query with JOBZ (and LDZ) on the library and compares it with dense dsyevr.
void check_query(const std::string &kind, const zoo::Vec &t, char jobz, int ldz, const Query &q) {
  const int n = order_of(t);
  SCOPED_TRACE(kind + " n=" + std::to_string(n) + " JOBZ=" + jobz + " LDZ=" +
               std::to_string(ldz) + " " + describe(q));
  const zoo::Vec dense = zoo::toeplitz_dense(t);
  const double tnorm = ratios::norm1(n, n, dense.data(), n);
  const Spectrum ref = dense_dsyevr(t, q);
  ASSERT_EQ(ref.info, 0) << "the reference failed";
  const Result got = call_library(jobz, t, q, ldz);
  // Both JOBZ run where the policy says (eigenvectors: each half block by gpu_syevd or gpu_syevx).
  EXPECT_STREQ(gpueig_last_backend(), kOnGpu ? "gpu" : "cpu");

  ASSERT_EQ(got.info, 0);
  ASSERT_EQ(got.m, ref.m);
  const std::vector<double> w(got.w.begin(), got.w.begin() + got.m);
  ASSERT_TRUE(all_finite(w));
  for (int i = 1; i < got.m; ++i) ASSERT_LE(w[i - 1], w[i]) << "W not ascending at " << i;
  EXPECT_LE(ratios::eigenvalue_distance(w, ref.w, n, tnorm), ratios::kThreshold);

  if (jobz == 'N') {
    EXPECT_TRUE(std::all_of(got.z.begin(), got.z.end(), [](double x) { return x == kPoison; }))
        << "Z is not referenced for JOBZ = 'N'";
    return;
  }
  for (int j = 0; j < got.m; ++j)
    for (int i = 0; i < n; ++i)
      ASSERT_TRUE(std::isfinite(got.z[i + static_cast<size_t>(j) * ldz]))
          << "Z(" << i + 1 << "," << j + 1 << ")";
  EXPECT_LE(eigenpair_residual(dense, n, got, tnorm), ratios::kThreshold);
  EXPECT_LE(ratios::orthogonality(n, got.m, got.z.data(), got.ldz), ratios::kThreshold);
  for (int j = 0; j < got.m; ++j)
    for (int i = n; i < ldz; ++i)
      ASSERT_EQ(got.z[i + static_cast<size_t>(j) * ldz], kPoison)
          << "Z(" << i + 1 << "," << j + 1 << ") is outside the matrix (row > N)";
}

// The slices one (matrix, RANGE) test asks for.
std::vector<Query> queries(const zoo::Vec &t, char range) {
  const int n = order_of(t);
  std::vector<Query> slices;
  if (range == 'A') slices.push_back({'A', 0, 0, 0, 0, "all"});
  if (range == 'V') {
    const std::vector<double> ref = dense_dsyevr(t, {'A', 0, 0, 0, 0, "all"}).w;
    const zoo::Vec dense = zoo::toeplitz_dense(t);
    // Two correct eigenvalues may differ by the test threshold: keep boundaries farther away.
    const double tol = ratios::kThreshold * n * ratios::kEps * ratios::norm1(n, n, dense.data(), n);
    auto add = [&](double vl, double vu, const char *label) {
      if (vl < vu) slices.push_back({'V', vl, vu, 0, 0, label});
    };
    const double mid = ratios::gap_point(ref, n / 2, tol);
    add(ratios::gap_point(ref, n / 3, tol), ratios::gap_point(ref, 2 * n / 3, tol), "middle third");
    add(ratios::gap_point(ref, 0, tol), ratios::gap_point(ref, n, tol), "whole spectrum");
    add(mid, ratios::gap_point(ref, n, tol), "upper half");
    add(ratios::gap_point(ref, 0, tol), mid, "lower half");
    add(mid - tol, mid, "empty interval in a gap");
  }
  if (range == 'I') {
    const int third = n / 3 + 1;
    slices.push_back({'I', 0, 0, 1, 1, "smallest"});
    slices.push_back({'I', 0, 0, n, n, "largest"});
    slices.push_back({'I', 0, 0, 1, n, "all by index"});
    slices.push_back({'I', 0, 0, third, std::max(third, 2 * n / 3), "middle third"});
    slices.push_back({'I', 0, 0, 1, std::max(1, n / 100), "first 1%"});
  }
  return slices;
}

class ToeplitzTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(gpueig_set_backend(GPUEIG_TEST_BACKEND), 0); }
};

// The dense sizes (1, 2, 3, small, primes, powers of two and neighbours, up to 128) and 127, the
// largest odd one: odd n adds the middle row to the symmetric half block.
std::vector<int> toeplitz_sizes() {
  std::vector<int> sizes = zoo::dense_sizes();
  sizes.push_back(127);
  return sizes;
}

using ZooParam = std::tuple<std::string, int, char, char>;  // kind, n, RANGE, JOBZ

class ToeplitzZoo : public ToeplitzTest, public ::testing::WithParamInterface<ZooParam> {};

// LDZ > N for even N, LDZ = N for odd N: both occur for every kind and RANGE.
int ldz_for(char jobz, int n) { return jobz == 'N' ? 1 : (n % 2 == 0 ? n + 3 : std::max(1, n)); }

TEST_P(ToeplitzZoo, MatchesDenseDsyevr) {
  const auto &[kind, n, range, jobz] = GetParam();
  const zoo::Vec t = zoo::toeplitz(kind, n, n);
  for (const Query &q : queries(t, range)) check_query(kind, t, jobz, ldz_for(jobz, n), q);
}

INSTANTIATE_TEST_SUITE_P(
    Zoo, ToeplitzZoo,
    ::testing::Combine(::testing::ValuesIn(zoo::toeplitz_kinds()),
                       ::testing::ValuesIn(toeplitz_sizes()), ::testing::Values('A', 'V', 'I'),
                       ::testing::Values('N', 'V')),
    [](const ::testing::TestParamInfo<ZooParam> &p) {
      return std::get<0>(p.param) + "_n" + std::to_string(std::get<1>(p.param)) +
             "_range" + std::get<2>(p.param) + "_jobz" + std::get<3>(p.param);
    });

// The structured method with eigenvectors (GPUEIG_TOEPLITZ_METHOD=structured, RANGE 'I' and
// 'V'): the same answers as dense DSYEVR through the public API, on either backend.
class ToeplitzStructuredZoo : public ToeplitzTest,
                              public ::testing::WithParamInterface<std::tuple<std::string, int>> {};

TEST_P(ToeplitzStructuredZoo, VectorsMatchDenseDsyevr) {
  const auto &[kind, n] = GetParam();
  const zoo::Vec t = zoo::toeplitz(kind, n, n);
  const char *before = std::getenv("GPUEIG_TOEPLITZ_METHOD");  // restored after: ctest may set it
  const std::string saved = before ? before : "";
  setenv("GPUEIG_TOEPLITZ_METHOD", "structured", 1);
  for (char range : {'I', 'V'})
    for (const Query &q : queries(t, range))
      if (q.range == 'V' || q.iu - q.il < 24) check_query(kind, t, 'V', ldz_for('V', n), q);
  if (before) setenv("GPUEIG_TOEPLITZ_METHOD", saved.c_str(), 1);
  else unsetenv("GPUEIG_TOEPLITZ_METHOD");
}

INSTANTIATE_TEST_SUITE_P(Zoo, ToeplitzStructuredZoo,
                         ::testing::Combine(::testing::ValuesIn(zoo::toeplitz_kinds()),
                                            ::testing::Values(1, 2, 5, 17, 64, 127)),
                         [](const ::testing::TestParamInfo<std::tuple<std::string, int>> &p) {
                           return std::get<0>(p.param) + "_n" + std::to_string(std::get<1>(p.param));
                         });

using AnalyticParam = std::tuple<int, char>;  // n, JOBZ

class ToeplitzAnalytic : public ToeplitzTest,
                         public ::testing::WithParamInterface<AnalyticParam> {};

// All eigenvalues of T(t) with JOBZ against a known spectrum (any order).
void check_spectrum(const zoo::Vec &t, char jobz, std::vector<double> exact) {
  const int n = order_of(t);
  const zoo::Vec dense = zoo::toeplitz_dense(t);
  const Result got = call_library(jobz, t, {'A', 0, 0, 0, 0, "all"}, std::max(1, n));
  ASSERT_EQ(got.info, 0);
  ASSERT_EQ(got.m, n);
  std::sort(exact.begin(), exact.end());
  const std::vector<double> w(got.w.begin(), got.w.begin() + n);
  ASSERT_TRUE(all_finite(w));
  EXPECT_LE(ratios::eigenvalue_distance(w, exact, n, ratios::norm1(n, n, dense.data(), n)),
            ratios::kThreshold);
}

// t0 = 2, t1 = -1 is the 1-2-1 matrix: eigenvalues 2 - 2 cos(j pi / (n + 1)), j = 1..n.
TEST_P(ToeplitzAnalytic, OneTwoOneSpectrum) {
  const auto &[n, jobz] = GetParam();
  const double pi = std::acos(-1.0);
  std::vector<double> exact(n);
  for (int j = 1; j <= n; ++j) exact[j - 1] = 2 - 2 * std::cos(j * pi / (n + 1));
  check_spectrum(zoo::toeplitz("tridiagonal", n), jobz, exact);
}

INSTANTIATE_TEST_SUITE_P(Zoo, ToeplitzAnalytic,
                         ::testing::Combine(::testing::ValuesIn(toeplitz_sizes()),
                                            ::testing::Values('N', 'V')),
                         [](const ::testing::TestParamInfo<AnalyticParam> &p) {
                           return "n" + std::to_string(std::get<0>(p.param)) + "_jobz" +
                                  std::get<1>(p.param);
                         });

// A symmetric circulant (t(k) = t(n-k)) has the eigenvalues sum_k t(k) cos(2 pi j k / n), most of
// them twice, once in each half.
TEST_P(ToeplitzAnalytic, SymmetricCirculantSpectrum) {
  const auto &[n, jobz] = GetParam();
  const zoo::Vec t = zoo::toeplitz("circulant", n);
  check_spectrum(t, jobz, zoo::circulant_spectrum(t));
}

// Larger orders, eigenvalues only, every RANGE: primes, powers of two and their neighbours up to
// 3000 against dense DSYEVR (random, KMS, circulant, prolate, identity), and the analytic spectra
// of the 1-2-1 matrix and a symmetric circulant at 8192 (the GPU suite only: its dense reference
// would cost minutes on the CPU).
using LargeParam = std::tuple<std::string, int>;
class ToeplitzLarge : public ToeplitzTest, public ::testing::WithParamInterface<LargeParam> {};

TEST_P(ToeplitzLarge, MatchesDenseDsyevr) {
  const auto &[kind, n] = GetParam();
  const zoo::Vec t = zoo::toeplitz(kind, n, n);
  for (char range : {'A', 'V', 'I'})
    for (const Query &q : queries(t, range)) check_query(kind, t, 'N', 1, q);
}

std::vector<int> large_sizes() {
  if (!kOnGpu) return {257, 1021, 1024};
  return {255, 256, 257, 1021, 1024, 1025, 2047, 2048, 2049, 3000};
}

// The CPU suite's largest orders, random t only (a dense reference at 3000 costs seconds on CI's
// two cores).
class ToeplitzLargeCpu : public ToeplitzTest, public ::testing::WithParamInterface<int> {};

TEST_P(ToeplitzLargeCpu, MatchesDenseDsyevr) {
  if (kOnGpu) GTEST_SKIP() << "the GPU suite runs every kind at these orders";
  const int n = GetParam();
  const zoo::Vec t = zoo::toeplitz("random", n, n);
  for (char range : {'A', 'V', 'I'})
    for (const Query &q : queries(t, range)) check_query("random", t, 'N', 1, q);
}

INSTANTIATE_TEST_SUITE_P(Zoo, ToeplitzLargeCpu, ::testing::Values(2049, 3000));

INSTANTIATE_TEST_SUITE_P(
    Zoo, ToeplitzLarge,
    ::testing::Combine(::testing::Values("random", "kms", "circulant", "prolate", "identity"),
                       ::testing::ValuesIn(large_sizes())),
    [](const ::testing::TestParamInfo<LargeParam> &p) {
      return std::get<0>(p.param) + "_n" + std::to_string(std::get<1>(p.param));
    });

TEST_F(ToeplitzTest, AnalyticSpectraAt8192) {
  if (!kOnGpu) GTEST_SKIP() << "GPU suite only (the CPU suite's largest analytic order is 128)";
  const int n = 8192;
  const double pi = std::acos(-1.0);
  {
    const zoo::Vec t = zoo::toeplitz("tridiagonal", n);
    const Result got = call_library('N', t, {'A', 0, 0, 0, 0, "all"}, 1);
    ASSERT_EQ(got.info, 0);
    ASSERT_EQ(got.m, n);
    EXPECT_STREQ(gpueig_last_backend(), "gpu");
    std::vector<double> exact(n);
    for (int j = 1; j <= n; ++j) exact[j - 1] = 2 - 2 * std::cos(j * pi / (n + 1));
    EXPECT_LE(ratios::eigenvalue_distance(std::vector<double>(got.w.begin(), got.w.begin() + n),
                                          exact, n, 4.0),
              ratios::kThreshold);
    // The first 1% by index, and by value.
    const Result first = call_library('N', t, {'I', 0, 0, 1, n / 100, "first 1%"}, 1);
    ASSERT_EQ(first.info, 0);
    ASSERT_EQ(first.m, n / 100);
    EXPECT_LE(ratios::eigenvalue_distance(std::vector<double>(first.w.begin(), first.w.begin() + first.m),
                                          std::vector<double>(exact.begin(), exact.begin() + n / 100), n, 4.0),
              ratios::kThreshold);
  }
}

// The structured method (GPUEIG_TOEPLITZ_METHOD=structured) at n = 16383 and 16384 on the GPU:
// the 1-2-1 matrix (n + 1 = 2^14: its eigenvalues shared with the leading blocks of order 8191,
// 4095, ...) and a symmetric circulant (double eigenvalues) against their analytic spectra, 16
// smallest and 16 in the middle; a random t against the dense half-block method.
TEST_F(ToeplitzTest, StructuredAt16384) {
  if (!kOnGpu) GTEST_SKIP() << "GPU suite only (each search costs seconds on two cores)";
  const double pi = std::acos(-1.0);
  auto run = [](const zoo::Vec &t, const char *method, int il, int iu) {
    setenv("GPUEIG_TOEPLITZ_METHOD", method, 1);
    Result r = call_library('N', t, {'I', 0, 0, il, iu, "slice"}, 1);
    unsetenv("GPUEIG_TOEPLITZ_METHOD");
    EXPECT_EQ(r.info, 0);
    EXPECT_STREQ(gpueig_last_backend(), "gpu");
    r.w.resize(std::max(r.m, 0));
    return r;
  };
  {
    const int n = 16383;
    const zoo::Vec t = zoo::toeplitz("tridiagonal", n);
    for (int il : {1, n / 2 - 7}) {
      std::vector<double> exact(16);
      for (int j = 0; j < 16; ++j) exact[j] = 2 - 2 * std::cos((il + j) * pi / (n + 1));
      const Result r = run(t, "structured", il, il + 15);
      ASSERT_EQ(r.m, 16);
      EXPECT_LE(ratios::eigenvalue_distance(r.w, exact, n, 4.0), ratios::kThreshold) << "IL=" << il;
    }
  }
  {
    const int n = 16384;
    const zoo::Vec t = zoo::toeplitz("circulant", n);
    const std::vector<double> exact = zoo::circulant_spectrum(t);
    double norm = 0;  // a circulant's columns are its t permuted
    for (int k = 0; k < n; ++k) norm += std::fabs(t[k]);
    for (int il : {1, n / 2 - 7}) {
      const Result r = run(t, "structured", il, il + 15);
      ASSERT_EQ(r.m, 16);
      EXPECT_LE(ratios::eigenvalue_distance(r.w, std::vector<double>(exact.begin() + il - 1, exact.begin() + il + 15),
                                            n, norm),
                ratios::kThreshold)
          << "IL=" << il;
    }
  }
  {
    const int n = 16384;
    const zoo::Vec t = zoo::toeplitz("random", n, 99);
    const zoo::Vec a = zoo::toeplitz_dense(t);
    const double norm = ratios::norm1(n, n, a.data(), n);
    const Result s = run(t, "structured", 1, 16), d = run(t, "dense", 1, 16);
    ASSERT_EQ(s.m, 16);
    ASSERT_EQ(d.m, 16);
    EXPECT_LE(ratios::eigenvalue_distance(s.w, d.w, n, norm), ratios::kThreshold);
  }
}

// N = 0: quick return with M = 0 for every JOBZ and RANGE; like DSYEVR, VL < VU is not checked.
TEST_F(ToeplitzTest, EmptyMatrix) {
  const zoo::Vec t;
  for (char jobz : {'N', 'V'})
    for (const Query &q : {Query{'A', 0, 0, 0, 0, "all"}, Query{'V', -1, 1, 0, 0, "interval"},
                           Query{'V', 1, 1, 0, 0, "VL = VU"}, Query{'I', 0, 0, 1, 0, "empty"}}) {
      SCOPED_TRACE(std::string("JOBZ=") + jobz + " " + describe(q));
      const Spectrum ref = dense_dsyevr(t, q);
      const Result got = call_library(jobz, t, q, 1);
      EXPECT_EQ(ref.info, 0);
      EXPECT_EQ(got.info, 0);
      EXPECT_EQ(got.m, 0);
      EXPECT_EQ(got.w[0], kPoison);
      EXPECT_EQ(got.z[0], kPoison);
    }
}

// Documented deviation: a NaN or infinite entry of T is an illegal argument 4; nothing is
// written.
TEST_F(ToeplitzTest, NonFiniteInputsAreRejected) {
  const int n = 33;
  for (double bad : {kNaN, kInf, -kInf})
    for (int where : {0, 1, n - 1})
      for (char jobz : {'N', 'V'}) {
        zoo::Vec t = zoo::toeplitz("random", n);
        t[where] = bad;
        for (const Query &q : {Query{'A', 0, 0, 0, 0, "all"}, Query{'I', 0, 0, 2, 5, "slice"}}) {
          const Result got = call_library(jobz, t, q, n + 1);
          EXPECT_EQ(got.info, -4) << bad << " at t(" << where + 1 << ") JOBZ=" << jobz << " "
                                  << describe(q);
          EXPECT_TRUE(got.untouched());
        }
      }
}

// Near underflow and overflow: T is scaled into the safe range first (as DSYEVR scales the dense
// matrix), so the half blocks neither overflow (t(i) + t(j) near DBL_MAX) nor lose their entries
// to underflow. The answer has the class DSYEVR gives on the dense T: the same M, the same
// infinite eigenvalues (an eigenvalue beyond DBL_MAX overflows in both), the finite ones within
// the test ratio (plus the subnormal grid's spacing, which no method can beat).
TEST_F(ToeplitzTest, ExtremeScalesMatchDenseDsyevrsClassOfAnswer) {
  const double dmax = std::numeric_limits<double>::max();
  const double tiny = std::numeric_limits<double>::denorm_min();
  struct Family { std::string name; zoo::Vec t; };
  std::vector<Family> families;
  for (int n : {3, 4, 5, 8, 17}) {
    zoo::Vec spike(n, 0.0);
    spike[1] = 1;  // t = {0, 1, 0, ...}: eigenvalues 2 cos(j pi / (n + 1))
    families.push_back({"spike", spike});
    zoo::Vec r = zoo::toeplitz("random", n, 7 * n);
    double m = 0;
    for (double x : r) m = std::max(m, std::fabs(x));
    for (double &x : r) x /= m;
    families.push_back({"random", r});
    families.push_back({"ones", zoo::Vec(n, 1.0)});
  }
  for (const Family &f : families)
    for (double s : {1e-320, 1e-310, 1e-300, 1e-200, 1e-160, 1e150, 1e200, 1e300, dmax / 2, dmax}) {
      zoo::Vec t = f.t;
      for (double &x : t) x *= s;
      const int n = order_of(t);
      const zoo::Vec dense = zoo::toeplitz_dense(t);
      const double tnorm = std::min(ratios::norm1(n, n, dense.data(), n), dmax);
      const double tol = ratios::kThreshold * n * ratios::kEps * tnorm + 4 * tiny;
      std::vector<Query> qs = {{'A', 0, 0, 0, 0, "all"},
                               {'I', 0, 0, 1, 1, "smallest"},
                               {'I', 0, 0, n, n, "largest"},
                               {'I', 0, 0, 2, n - 1, "inner"},
                               {'V', -dmax, dmax, 0, 0, "all finite"},
                               {'V', -dmax, 0.5 * s, 0, 0, "below s/2"}};
      for (const Query &q : qs) {
        SCOPED_TRACE(f.name + " n=" + std::to_string(n) + " scale " + std::to_string(s) + " " +
                     describe(q));
        const Spectrum ref = dense_dsyevr(t, q);
        ASSERT_EQ(ref.info, 0) << "the reference failed";
        const Result got = call_library('N', t, q, 1);
        ASSERT_EQ(got.info, 0);
        ASSERT_EQ(got.m, ref.m);
        for (int i = 0; i < got.m; ++i) {
          const double a = got.w[i], b = ref.w[i];
          ASSERT_FALSE(std::isnan(a)) << "W(" << i + 1 << ")";
          if (i > 0) ASSERT_LE(got.w[i - 1], a) << "W not ascending at " << i + 1;
          if (std::isinf(b) || std::isinf(a)) {
            // Both infinite alike, or the eigenvalue is within rounding of the overflow
            // threshold (t = {0, DBL_MAX, ...} has eigenvalues 2 cos(j pi / (n+1)) DBL_MAX,
            // exactly +-DBL_MAX for j = (n+1)/3), where either answer is right.
            const double finite = std::isinf(a) ? b : a, inf = std::isinf(a) ? a : b;
            if (!(a == b))
              EXPECT_TRUE(std::isfinite(finite) && std::signbit(finite) == std::signbit(inf) &&
                          std::fabs(finite) >= dmax - tol)
                  << "W(" << i + 1 << ") = " << a << ", DSYEVR " << b;
          } else {
            EXPECT_LE(std::fabs(a - b), tol) << "W(" << i + 1 << ") = " << a << ", DSYEVR " << b;
          }
        }
      }
    }
}

}  // namespace
