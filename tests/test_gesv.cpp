// gpu_gesv_crout and gpu_getrs_crout against LAPACK dgesv and dgetrs over the dense general zoo
// (square orders, NRHS 1, 3 and 100, LDA and LDB larger than N), through the public API on the
// backend named by GPUEIG_TEST_BACKEND ("cpu" or "gpu"). Accuracy: LAPACK's solve ratio (dget02:
// ||B - op(A) X||_1 / (||op(A)||_1 ||X||_1 eps) per column) within the threshold 30, INFO as
// LAPACK's, the padding rows of A and B untouched, B untouched when U is singular.
#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <string>
#include <tuple>
#include <vector>

#include "gpueig.h"
#include "lapack_ref.hpp"
#include "ratios.hpp"
#include "zoo.hpp"

namespace {

using Vec = std::vector<double>;
const bool kOnGpu = std::string(GPUEIG_TEST_BACKEND) == "gpu";
constexpr double kPad = 31337.0;  // the rows between n and lda (ldb), which must stay untouched

struct Problem {
  int n, nrhs, lda, ldb;
  Vec a, b;  // lda x n and ldb x nrhs, padded
};

Problem problem(const std::string &kind, int n, int nrhs) {
  Problem p{n, nrhs, n + 3, n + 5, {}, {}};
  p.a = zoo::general(kind, n, n, p.lda, 1000 * n + 7);
  for (int j = 0; j < n; ++j)
    for (int i = n; i < p.lda; ++i) p.a[i + size_t(j) * p.lda] = kPad;
  // B scaled by ||A||_1 so that X stays O(cond(A)) for the tiny and huge kinds.
  const double anorm = ratios::norm1(n, n, p.a.data(), p.lda);
  p.b.assign(size_t(p.ldb) * nrhs, kPad);
  const Vec r = zoo::uniform(int64_t(n) * nrhs, -1, 1, 31 * n + nrhs);
  for (int j = 0; j < nrhs; ++j)
    for (int i = 0; i < n; ++i) p.b[i + size_t(j) * p.ldb] = r[i + size_t(j) * n] * (anorm > 0 ? anorm : 1);
  return p;
}

// The largest dget02 ratio over the columns of X (op(A) = A, or A^T when trans).
double solve_ratio(const Problem &p, const Vec &x, bool trans) {
  Vec op(size_t(p.n) * p.n);
  for (int j = 0; j < p.n; ++j)
    for (int i = 0; i < p.n; ++i)
      op[i + size_t(j) * p.n] = trans ? p.a[j + size_t(i) * p.lda] : p.a[i + size_t(j) * p.lda];
  double worst = 0;
  for (int j = 0; j < p.nrhs; ++j) {
    const double *xj = x.data() + size_t(j) * p.ldb, *bj = p.b.data() + size_t(j) * p.ldb;
    for (int i = 0; i < p.n; ++i)
      if (!std::isfinite(xj[i])) return INFINITY;
    worst = std::max(worst, ratios::solve_residual(p.n, op.data(), p.n, xj, bj));
  }
  return worst;
}

void expect_padding(const Vec &m, int rows, int ld, int cols, const char *what) {
  for (int j = 0; j < cols; ++j)
    for (int i = rows; i < ld; ++i)
      ASSERT_EQ(m[i + size_t(j) * ld], kPad) << what << " padding row " << i << " column " << j;
}

// Wilkinson's growth matrix: even LAPACK's ratios relative to ||A|| grow with n; ours may be up
// to 10 times LAPACK's there (as in test_getrf).
double bound(const std::string &kind, double lapack_ratio) {
  return kind == "wilkinson_growth" ? std::max(ratios::kThreshold, 10 * lapack_ratio)
                                    : ratios::kThreshold;
}

// A rank-deficient matrix is singular only in exact arithmetic: whether elimination leaves an
// exact zero pivot or one of rounding size depends on the order of the operations (DGETRF's
// right-looking updates, our Crout sums), so either may report U(k,k) = 0 where the other does
// not. Anywhere else INFO must be LAPACK's; there, the pivot the other factorization kept at the
// first disagreeing k must be of rounding size: |U(k,k)| <= 30 n eps ||A||_1.
void expect_rounding_sized_pivot(const std::string &kind, int n, const Problem &p, const Vec &lu,
                                 int info, const Vec &lu_ref, int info_ref) {
  ASSERT_EQ(kind, "rank_deficient") << "INFO " << info << ", dgesv's " << info_ref;
  const bool ours_kept = info == 0 || (info_ref > 0 && info_ref < info);
  const int k = ours_kept ? info_ref : info;  // 1-based
  const double kept = (ours_kept ? lu : lu_ref)[(k - 1) + size_t(k - 1) * p.lda];
  EXPECT_LE(std::fabs(kept), ratios::kThreshold * n * DBL_EPSILON * ratios::norm1(n, n, p.a.data(), p.lda))
      << (ours_kept ? "ours" : "dgesv's") << " U(" << k << "," << k << ") = " << kept << "; INFO "
      << info << ", dgesv's " << info_ref;
}

class SolveTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(gpueig_set_backend(GPUEIG_TEST_BACKEND), 0); }
};

class GesvZoo : public SolveTest,
                public ::testing::WithParamInterface<std::tuple<std::string, int, int>> {};

TEST_P(GesvZoo, MatchesDgesv) {
  const auto &[kind, n, nrhs] = GetParam();
  const Problem p = problem(kind, n, nrhs);

  Vec lu_ref = p.a, x_ref = p.b;
  std::vector<int> ipiv_ref(n);
  int info_ref = 0;
  dgesv_(&p.n, &p.nrhs, lu_ref.data(), &p.lda, ipiv_ref.data(), x_ref.data(), &p.ldb, &info_ref);

  Vec lu = p.a, x = p.b;
  std::vector<int> ipiv(n + 1, -7);
  const int info = gpu_gesv_crout(n, nrhs, lu.data(), p.lda, ipiv.data(), x.data(), p.ldb);
  const std::string backend = gpueig_last_backend();
  SCOPED_TRACE(kind + " n=" + std::to_string(n) + " nrhs=" + std::to_string(nrhs) +
               " backend=" + backend);
  if (info != info_ref) expect_rounding_sized_pivot(kind, n, p, lu, info, lu_ref, info_ref);
  // auto's crossover does not apply under the forced policy: every call runs where asked.
  EXPECT_EQ(backend, kOnGpu ? "gpu" : "cpu");
  EXPECT_EQ(ipiv[n], -7) << "IPIV written beyond N";
  expect_padding(lu, n, p.lda, n, "A");
  expect_padding(x, n, p.ldb, nrhs, "B");
  for (int i = 0; i < n; ++i) ASSERT_TRUE(ipiv[i] >= i + 1 && ipiv[i] <= n) << "IPIV " << i;
  if (info > 0) {
    EXPECT_EQ(x, p.b) << "B changed although U is singular";
    return;
  }
  EXPECT_LE(ratios::getrf_residual(n, n, p.a.data(), p.lda, lu.data(), p.lda, ipiv.data()),
            bound(kind, ratios::getrf_residual(n, n, p.a.data(), p.lda, lu_ref.data(), p.lda,
                                               ipiv_ref.data())));
  EXPECT_LE(solve_ratio(p, x, false), bound(kind, solve_ratio(p, x_ref, false)));
}

// getrs on the factors of dgetrf, every TRANS: X as dgetrs gives it.
TEST_P(GesvZoo, GetrsMatchesDgetrs) {
  const auto &[kind, n, nrhs] = GetParam();
  const Problem p = problem(kind, n, nrhs);
  Vec lu = p.a;
  std::vector<int> ipiv(n);
  int info = 0;
  dgetrf_(&p.n, &p.n, lu.data(), &p.lda, ipiv.data(), &info);
  if (info != 0) GTEST_SKIP() << "singular: dgetrs would divide by zero";
  for (char trans : {'N', 't', 'C'}) {
    SCOPED_TRACE(kind + " n=" + std::to_string(n) + " nrhs=" + std::to_string(nrhs) + " TRANS=" +
                 trans);
    Vec x_ref = p.b, x = p.b;
    dgetrs_(&trans, &p.n, &p.nrhs, lu.data(), &p.lda, ipiv.data(), x_ref.data(), &p.ldb, &info, 1);
    ASSERT_EQ(info, 0);
    const Vec lu_before = lu;
    ASSERT_EQ(gpu_getrs_crout(trans, n, nrhs, lu.data(), p.lda, ipiv.data(), x.data(), p.ldb), 0);
    // auto's crossover does not apply under the forced policy: every call runs where asked.
    EXPECT_STREQ(gpueig_last_backend(), kOnGpu ? "gpu" : "cpu");
    EXPECT_EQ(lu, lu_before) << "A written";
    expect_padding(x, n, p.ldb, nrhs, "B");
    const bool t = trans != 'N';
    EXPECT_LE(solve_ratio(p, x, t), bound(kind, solve_ratio(p, x_ref, t)));
  }
}

std::vector<int> orders() {
  std::vector<int> out = zoo::dense_sizes();
  out.push_back(600);   // above auto's crossover (512), where the shim serves dgesv_
  out.push_back(1000);  // A over 4 MB: the GPU path's transfers on a thread of their own (below
                        // 1024, where wilkinson_growth's 2^(n-1) would overflow)
  return out;
}

INSTANTIATE_TEST_SUITE_P(
    Zoo, GesvZoo,
    ::testing::Combine(::testing::ValuesIn(zoo::general_kinds()), ::testing::ValuesIn(orders()),
                       ::testing::Values(1, 3, 100)),
    [](const auto &info) {
      return std::get<0>(info.param) + "_n" + std::to_string(std::get<1>(info.param)) +
             "_nrhs" + std::to_string(std::get<2>(info.param));
    });

// Quick returns: N = 0 writes nothing; NRHS = 0 leaves B and (as Reference LAPACK's DGESV,
// which calls DGETRF before it looks at NRHS; OpenBLAS's returns at once) still factors A.
TEST_F(SolveTest, QuickReturns) {
  Vec a(16, 2.0), b(4, kPad);
  std::vector<int> ipiv(4, -7);
  EXPECT_EQ(gpu_gesv_crout(0, 3, a.data(), 1, ipiv.data(), b.data(), 1), 0);
  EXPECT_EQ(ipiv[0], -7);
  EXPECT_EQ(gpu_getrs_crout('N', 0, 3, a.data(), 1, ipiv.data(), b.data(), 1), 0);
  EXPECT_EQ(gpu_getrs_crout('N', 4, 0, a.data(), 4, ipiv.data(), b.data(), 4), 0);  // IPIV unread
  EXPECT_EQ(b, Vec(4, kPad));
  Problem p = problem("random", 4, 1);
  Vec lu = p.a, lu_ref = p.a;
  std::vector<int> ipiv_ref(4);
  int info = 0;
  dgetrf_(&p.n, &p.n, lu_ref.data(), &p.lda, ipiv_ref.data(), &info);
  EXPECT_EQ(gpu_gesv_crout(4, 0, lu.data(), p.lda, ipiv.data(), b.data(), p.ldb), 0);
  EXPECT_EQ(ipiv, ipiv_ref);
  EXPECT_EQ(b, Vec(4, kPad));
}

// Pivots outside 1..N are rejected (INFO = -6) before B is touched: DGETRS would read and write
// outside B with them.
TEST_F(SolveTest, GetrsRejectsPivotsOutOfRange) {
  Problem p = problem("random", 5, 2);
  Vec lu = p.a;
  std::vector<int> ipiv(5);
  int info = 0;
  dgetrf_(&p.n, &p.n, lu.data(), &p.lda, ipiv.data(), &info);
  for (int bad : {0, -1, 6, 1 << 30}) {
    std::vector<int> wrong = ipiv;
    wrong[2] = bad;
    Vec x = p.b;
    EXPECT_EQ(gpu_getrs_crout('N', 5, 2, lu.data(), p.lda, wrong.data(), x.data(), p.ldb), -6);
    EXPECT_EQ(x, p.b);
  }
}

}  // namespace
