// gpu_getrf_crout against LAPACK dgetrf over the dense general zoo, through the public API on the
// backend named by GPUEIG_TEST_BACKEND ("cpu" or "gpu").
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "gpueig.h"
#include "lapack_ref.hpp"
#include "ratios.hpp"
#include "zoo.hpp"

namespace {

const bool kOnGpu = std::string(GPUEIG_TEST_BACKEND) == "gpu";
constexpr double kPad = 31337.0;  // marks the rows between m and lda, which must stay untouched
constexpr int kIpivPoison = -123456;  // no valid pivot index; marks IPIV entries never written

struct Shape {
  int m, n, lda;
};

std::string shape_name(const Shape &s) {
  std::string name = "m" + std::to_string(s.m) + "_n" + std::to_string(s.n);
  return s.lda > s.m ? name + "_lda" + std::to_string(s.lda) : name;
}

// Square sizes of the zoo (every third one with lda > m), then tall and wide rectangles.
std::vector<Shape> shapes() {
  std::vector<Shape> out;
  const std::vector<int> sizes = zoo::dense_sizes();
  for (size_t i = 0; i < sizes.size(); ++i)
    out.push_back({sizes[i], sizes[i], sizes[i] + (i % 3 == 1 ? 3 : 0)});
  for (Shape s : {Shape{7, 3, 7}, Shape{3, 7, 5}, Shape{64, 31, 67}, Shape{31, 64, 31},
                  Shape{128, 97, 128}, Shape{97, 128, 100}})
    out.push_back(s);
  return out;
}

// The zoo matrix of this kind and shape, with kPad in the rows between m and lda.
std::vector<double> padded_matrix(const std::string &kind, const Shape &s) {
  std::vector<double> a = zoo::general(kind, s.m, s.n, s.lda, 1000 * s.m + s.n);
  for (int j = 0; j < s.n; ++j)
    for (int i = s.m; i < s.lda; ++i) a[i + static_cast<size_t>(j) * s.lda] = kPad;
  return a;
}

struct Factors {
  int info;
  std::vector<double> lu;  // lda x n
  std::vector<int> ipiv;   // min(m, n) entries, then one guard entry
};

Factors run_dgetrf(const std::vector<double> &a, const Shape &s) {
  Factors f{0, a, std::vector<int>(std::min(s.m, s.n) + 1, kIpivPoison)};
  dgetrf_(&s.m, &s.n, f.lu.data(), &s.lda, f.ipiv.data(), &f.info);
  return f;
}

Factors run_ours(const std::vector<double> &a, const Shape &s) {
  Factors f{0, a, std::vector<int>(std::min(s.m, s.n) + 1, kIpivPoison)};
  f.info = gpu_getrf_crout(s.m, s.n, f.lu.data(), s.lda, f.ipiv.data());
  return f;
}

// Solves A x = b with the factors of the square matrix a through dgetrs, b scaled by ||A||_1 so
// that x stays O(cond(A)) for the tiny and huge kinds; returns ratios::solve_residual.
double solve_ratio(const std::vector<double> &a, const Shape &s, const Factors &f) {
  std::vector<double> b = zoo::uniform(s.n, -1, 1, 77 + s.n);
  const double anorm = ratios::norm1(s.n, s.n, a.data(), s.lda);
  if (anorm > 0)
    for (double &v : b) v *= anorm;
  std::vector<double> x = b;
  const int nrhs = 1;
  int info = 0;
  dgetrs_("N", &s.n, &nrhs, f.lu.data(), &s.lda, f.ipiv.data(), x.data(), &s.n, &info, 1);
  EXPECT_EQ(info, 0);
  for (double v : x)
    if (!std::isfinite(v)) return std::numeric_limits<double>::infinity();
  return ratios::solve_residual(s.n, a.data(), s.lda, x.data(), b.data());
}

class GetrfTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(gpueig_set_backend(GPUEIG_TEST_BACKEND), 0); }
};

class GetrfZoo : public GetrfTest,
                 public ::testing::WithParamInterface<std::tuple<std::string, Shape>> {};

// Our factors of the zoo matrix `kind` against dgetrf's: INFO, untouched padding, valid IPIV,
// the residual ratio and, for square matrices, the dgetrs solve.
void check_factors(const std::string &kind, const Shape &s) {
  const int k = std::min(s.m, s.n);
  const std::vector<double> a = padded_matrix(kind, s);
  const Factors ref = run_dgetrf(a, s);
  const Factors ours = run_ours(a, s);
  const std::string backend = gpueig_last_backend();
  SCOPED_TRACE(kind + " " + shape_name(s) + " backend=" + backend);

  ASSERT_EQ(ours.info, ref.info);
  EXPECT_EQ(backend, kOnGpu ? "gpu" : "cpu");  // finite matrices: no fallback on the GPU
  if (kind == "zero_column" && s.n / 2 < k) {
    // Column n/2 stays exactly zero under elimination; the random columns before it do not.
    EXPECT_EQ(ours.info, s.n / 2 + 1);
  }

  for (int j = 0; j < s.n; ++j)
    for (int i = 0; i < s.lda; ++i) {
      const double v = ours.lu[i + static_cast<size_t>(j) * s.lda];
      if (i >= s.m) {
        ASSERT_EQ(v, kPad) << "padding row " << i << " column " << j << " written";
      } else {
        // A NaN would hide from the 1-norms of the ratios, which skip NaN columns.
        ASSERT_TRUE(std::isfinite(v)) << "LU(" << i << "," << j << ") = " << v;
      }
    }
  for (int i = 0; i < k; ++i) {
    ASSERT_GE(ours.ipiv[i], i + 1) << "IPIV(" << i + 1 << ")";
    ASSERT_LE(ours.ipiv[i], s.m) << "IPIV(" << i + 1 << ")";
  }
  EXPECT_EQ(ours.ipiv[k], kIpivPoison) << "IPIV written beyond min(m, n)";
  if (kind == "dominant" && s.m <= s.n + 1) {
    // |A(j,j)| >= n exceeds the other m - 1 <= n entries of its column (each below 1 in size);
    // column diagonal dominance survives elimination, so partial pivoting never interchanges.
    for (int i = 0; i < k; ++i) EXPECT_EQ(ours.ipiv[i], i + 1) << "IPIV(" << i + 1 << ")";
  }

  // Wilkinson's growth matrix grows U's last column to 2^(n-1) ||A||, so even dgetrf's own
  // ratios relative to ||A|| may exceed the threshold at large n; there (only) ours may be up to
  // 10 times dgetrf's.
  auto bound = [kind = kind](double theirs) {
    return kind == "wilkinson_growth" ? std::max(ratios::kThreshold, 10 * theirs)
                                      : ratios::kThreshold;
  };
  const double residual =
      ratios::getrf_residual(s.m, s.n, a.data(), s.lda, ours.lu.data(), s.lda, ours.ipiv.data());
  const double ref_residual =
      ratios::getrf_residual(s.m, s.n, a.data(), s.lda, ref.lu.data(), s.lda, ref.ipiv.data());
  EXPECT_LE(residual, bound(ref_residual)) << "dgetrf's own ratio " << ref_residual;

  if (s.m == s.n && ours.info == 0) {
    const double solve = solve_ratio(a, s, ours);
    const double ref_solve = solve_ratio(a, s, ref);
    EXPECT_LE(solve, bound(ref_solve)) << "dgetrs with dgetrf's factors: " << ref_solve;
  }
}

TEST_P(GetrfZoo, MatchesDgetrf) {
  const auto &[kind, s] = GetParam();
  check_factors(kind, s);
}

INSTANTIATE_TEST_SUITE_P(
    Zoo, GetrfZoo,
    ::testing::Combine(::testing::ValuesIn(zoo::general_kinds()), ::testing::ValuesIn(shapes())),
    [](const auto &info) {
      return std::get<0>(info.param) + "_" + shape_name(std::get<1>(info.param));
    });

// Shapes past the GPU's block size (64 columns per panel) and its streamed chunks (the host
// path takes columns in chunks of 256, 512, then 1024, and returns rows and columns in groups of
// 256): several panels and chunks, partial last ones, tall and wide, lda > m.
std::vector<Shape> large_shapes() {
  std::vector<Shape> out = {Shape{520, 520, 520}, Shape{777, 777, 781}, Shape{1100, 700, 1100},
                            Shape{700, 1100, 703}, Shape{1031, 1031, 1031}};
  if (kOnGpu)  // chunks of the full 1024 columns; on the CPU this is only LAPACK against itself
    for (Shape s : {Shape{2600, 2600, 2605}, Shape{2900, 1300, 2900}, Shape{1300, 2900, 1301}})
      out.push_back(s);
  return out;
}

class GetrfLarge : public GetrfTest,
                   public ::testing::WithParamInterface<std::tuple<std::string, Shape>> {};

TEST_P(GetrfLarge, MatchesDgetrf) {
  const auto &[kind, s] = GetParam();
  check_factors(kind, s);
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, GetrfLarge,
    ::testing::Combine(::testing::Values("random", "zero_column", "rank_deficient", "tiny",
                                         "huge"),
                       ::testing::ValuesIn(large_shapes())),
    [](const auto &info) {
      return std::get<0>(info.param) + "_" + shape_name(std::get<1>(info.param));
    });

// Tall and skinny shapes (GPU only; on the CPU this is LAPACK against itself): 2^20 rows are too
// many for the panel kernel's registers, so the streaming kernel factors those panels. Checked as
// above, the residual by dget01's ratio probed with one vector (the full ratio is O(m n^2)).
struct TallCase {
  const char *kind;
  Shape s;
};
class GetrfTall : public GetrfTest, public ::testing::WithParamInterface<TallCase> {};

TEST_P(GetrfTall, MatchesDgetrf) {
  const auto [kind, s] = GetParam();
  if (!kOnGpu) GTEST_SKIP() << "GPU shapes";
  const int k = std::min(s.m, s.n);
  const std::vector<double> a = padded_matrix(kind, s);
  const Factors ref = run_dgetrf(a, s);
  const Factors ours = run_ours(a, s);
  SCOPED_TRACE(std::string(kind) + " " + shape_name(s));
  ASSERT_EQ(ours.info, ref.info);
  EXPECT_STREQ(gpueig_last_backend(), "gpu");
  for (int i = 0; i < k; ++i) {
    ASSERT_GE(ours.ipiv[i], i + 1) << "IPIV(" << i + 1 << ")";
    ASSERT_LE(ours.ipiv[i], s.m) << "IPIV(" << i + 1 << ")";
  }
  EXPECT_EQ(ours.ipiv[k], kIpivPoison) << "IPIV written beyond min(m, n)";
  for (int j = 0; j < s.n; ++j)
    for (int i = 0; i < s.lda; ++i) {
      const double v = ours.lu[i + static_cast<size_t>(j) * s.lda];
      if (i >= s.m) ASSERT_EQ(v, kPad) << "padding row " << i << " column " << j << " written";
      else ASSERT_TRUE(std::isfinite(v)) << "LU(" << i << "," << j << ") = " << v;
    }
  const double residual = ratios::getrf_probe_residual(s.m, s.n, a.data(), s.lda, ours.lu.data(),
                                                       s.lda, ours.ipiv.data());
  const double ref_residual = ratios::getrf_probe_residual(s.m, s.n, a.data(), s.lda,
                                                           ref.lu.data(), s.lda, ref.ipiv.data());
  EXPECT_LE(residual, ratios::kThreshold) << "dgetrf's own ratio " << ref_residual;
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, GetrfTall,
    ::testing::Values(TallCase{"random", {1 << 20, 32, (1 << 20) + 3}},
                      TallCase{"zero_column", {1 << 20, 32, 1 << 20}},
                      TallCase{"rank_deficient", {1 << 20, 32, 1 << 20}},
                      TallCase{"tiny", {1 << 20, 32, 1 << 20}},
                      TallCase{"huge", {1 << 20, 32, 1 << 20}},
                      TallCase{"random", {(1 << 20) + 77, 256, (1 << 20) + 77}},
                      TallCase{"random", {300000, 100, 300001}},
                      TallCase{"random", {65536, 2048, 65536}}),
    [](const auto &info) {
      return std::string(info.param.kind) + "_" + shape_name(info.param.s);
    });

// m = 0 or n = 0: INFO 0, and neither A nor IPIV is written.
TEST_F(GetrfTest, EmptyMatrixQuickReturn) {
  for (Shape s : {Shape{0, 0, 1}, Shape{0, 5, 1}, Shape{5, 0, 5}, Shape{0, 3, 4}}) {
    SCOPED_TRACE(shape_name(s));
    std::vector<double> a(static_cast<size_t>(s.lda) * std::max(1, s.n), kPad);
    std::vector<int> ipiv(4, kIpivPoison);
    EXPECT_EQ(gpu_getrf_crout(s.m, s.n, a.data(), s.lda, ipiv.data()), 0);
    EXPECT_STREQ(gpueig_last_backend(), "none");
    for (double v : a) EXPECT_EQ(v, kPad);
    for (int p : ipiv) EXPECT_EQ(p, kIpivPoison);
  }
}

// NaN or Inf entries: no crash, and the INFO dgetrf gives on the same matrix. The zero_column
// kind makes INFO informative: depending on where the bad value sits, it does or does not spread
// (NaN * 0) into the zero column, so dgetrf reports the zero pivot or not.
TEST_F(GetrfTest, NonFiniteEntriesGiveDgetrfInfo) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  for (Shape s : {Shape{8, 8, 8}, Shape{33, 17, 35}, Shape{17, 33, 17}, Shape{64, 64, 64}}) {
    const std::vector<std::pair<int, int>> places = {
        {0, 0}, {s.m / 2, s.n / 2}, {s.m - 1, 0}, {0, s.n - 1}, {s.m - 1, s.n - 1}};
    for (const char *kind : {"random", "zero_column"})
      for (double bad : {nan, inf, -inf})
        for (auto [i, j] : places) {
          SCOPED_TRACE(std::string(kind) + " " + shape_name(s) + " A(" + std::to_string(i) +
                       "," + std::to_string(j) + ") = " + std::to_string(bad));
          std::vector<double> a = padded_matrix(kind, s);
          a[i + static_cast<size_t>(j) * s.lda] = bad;
          EXPECT_EQ(run_ours(a, s).info, run_dgetrf(a, s).info);
        }
  }
}

// A NaN or Inf in a chunk the GPU receives late (the host path streams A in while it factors
// the first columns and writes finished parts back): the call goes to LAPACK with the caller's
// array untouched, so the result is dgetrf's to the bit.
TEST_F(GetrfTest, NonFiniteInLateChunkGivesDgetrfBits) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (Shape s : {Shape{1031, 1031, 1033}, Shape{700, 1100, 703}, Shape{1100, 700, 1100}}) {
    for (auto [i, j] : {std::pair{s.m - 1, s.n - 1}, std::pair{0, s.n - 1},
                        std::pair{s.m / 2, std::min(s.m, s.n) - 1}}) {
      SCOPED_TRACE(shape_name(s) + " A(" + std::to_string(i) + "," + std::to_string(j) + ")");
      std::vector<double> a = padded_matrix("random", s);
      a[i + static_cast<size_t>(j) * s.lda] = nan;
      const Factors ref = run_dgetrf(a, s);
      const Factors ours = run_ours(a, s);
      EXPECT_STREQ(gpueig_last_backend(), "cpu");
      EXPECT_EQ(ours.info, ref.info);
      EXPECT_EQ(ours.ipiv, ref.ipiv);
      EXPECT_EQ(std::memcmp(ours.lu.data(), ref.lu.data(), ref.lu.size() * sizeof(double)), 0);
    }
  }
}

}  // namespace
