// gpu_stein's GPU method (src/stein_phases.hpp, hidden in libgpueig) run on the host over the
// symmetric tridiagonal zoo, for all eigenvalues and for subsets as DSTEBZ returns them (ORDER
// 'B'): DSTEIN's contract (INFO 0, vectors zero outside their block) and LAPACK's ratios for the
// vectors (residual and orthogonality within 30) -- clusters of every size included: the
// divide-and-conquer branch (a whole spectrum in one cluster) and Gram-Schmidt inside small ones.
#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <string>
#include <tuple>
#include <vector>

#include "lapack_ref.hpp"
#include "ratios.hpp"
#include "stein_phases.hpp"
#include "zoo.hpp"

namespace {

namespace ph = gpueig::stein_phases;

void gemm(int64_t m, int64_t n, int64_t k, const double *a, int64_t lda, const double *b,
          int64_t ldb, double *c, int64_t ldc) {
  const int mi = int(m), ni = int(n), ki = int(k), la = int(lda), lb = int(ldb), lc = int(ldc);
  const double one = 1, zero = 0;
  dgemm_("N", "N", &mi, &ni, &ki, &one, a, &la, b, &lb, &zero, c, &lc, 1, 1);
}

// T scaled as gpu_stein scales it before its GPU method (a power of two into DSYEVX's range).
void scale(std::vector<double> &d, std::vector<double> &e) {
  double tmax = 0;
  for (double x : d) tmax = std::max(tmax, std::fabs(x));
  for (double x : e) tmax = std::max(tmax, std::fabs(x));
  const double smlnum = DBL_MIN / DBL_EPSILON;
  const double lo = std::sqrt(smlnum), hi = std::min(std::sqrt(1 / smlnum), 1 / std::sqrt(std::sqrt(DBL_MIN)));
  if (!(tmax > 0) || (tmax >= lo && tmax <= hi)) return;
  const double s = std::ldexp(1.0, tmax > hi ? int(std::floor(std::log2(hi / tmax))) : int(std::ceil(std::log2(lo / tmax))));
  for (double &x : d) x *= s;
  for (double &x : e) x *= s;
}

struct Subset {
  char range;
  int il, iu;  // 1-based, RANGE 'I'
};

void check(std::vector<double> d, std::vector<double> e, Subset q, const std::string &what,
           ph::Branches *branches = nullptr) {
  scale(d, e);
  int n = int(d.size()), m = 0, nsplit = 0, info = 0;
  const double zero = 0, abstol = 0;
  std::vector<double> w(n), work(4 * n);
  std::vector<int> iblock(n), isplit(n), iwork(3 * n);
  const int il = q.range == 'I' ? q.il : 0, iu = q.range == 'I' ? q.iu : 0;
  dstebz_(&q.range, "B", &n, &zero, &zero, &il, &iu, &abstol, d.data(), e.data(), &m, &nsplit, w.data(),
          iblock.data(), isplit.data(), work.data(), iwork.data(), &info, 1, 1);
  ASSERT_EQ(info, 0) << what;
  const int ldz = n + 2;
  std::vector<double> z(size_t(ldz) * std::max(m, 1), -7.0);
  std::vector<int> ifail(std::max(m, 1), -7);
  const int r = ph::solve(n, d.data(), e.data(), m, w.data(), iblock.data(), isplit.data(), z.data(), ldz,
                          ifail.data(), gemm, branches);
  ASSERT_EQ(r, 0) << what;
  for (int j = 0; j < m; ++j) {
    ASSERT_EQ(ifail[j], 0) << what;
    const int b = iblock[j], begin = b == 1 ? 0 : isplit[b - 2], end = isplit[b - 1];
    for (int i = 0; i < n; ++i)
      if (i < begin || i >= end) ASSERT_EQ(z[i + size_t(j) * ldz], 0.0) << what << " vector " << j << " row " << i;
    for (int i = n; i < ldz; ++i) ASSERT_EQ(z[i + size_t(j) * ldz], -7.0) << what << " padding";
  }
  EXPECT_LE(ratios::tridiagonal_residual(n, d.data(), e.data(), m, w.data(), z.data(), ldz), ratios::kThreshold)
      << what;
  EXPECT_LE(ratios::orthogonality_blas(n, m, z.data(), ldz), ratios::kThreshold) << what;
}

class Zoo : public ::testing::TestWithParam<std::tuple<std::string, int>> {};

TEST_P(Zoo, AllAndSubsets) {
  const auto [kind, n] = GetParam();
  const zoo::SymTridiagonal t = zoo::symtridiagonal(kind, n);
  const std::string what = kind + " n=" + std::to_string(n);
  check(t.d, t.e, {'A', 0, 0}, what + " all");
  if (n >= 10) {
    check(t.d, t.e, {'I', 1, n / 10}, what + " smallest 10%");
    check(t.d, t.e, {'I', n / 3, n / 3 + n / 5}, what + " middle 20%");
  }
}

std::vector<int> sizes() {
  std::vector<int> s;
  for (int n : zoo::tridiagonal_sizes())
    if (n <= 1100) s.push_back(n);
  return s;
}

INSTANTIATE_TEST_SUITE_P(Stein, Zoo,
                         ::testing::Combine(::testing::ValuesIn(zoo::symtridiagonal_kinds()),
                                            ::testing::ValuesIn(sizes())),
                         [](const auto &info) {
                           return std::get<0>(info.param) + "_" + std::to_string(std::get<1>(info.param));
                         });

// Clusters of every size through both branches: a random spectrum (DSTEIN's one big chain at
// this size), pairs closer than any tolerance (glued Wilkinson with a 1e-14 glue), and a
// cluster just at and above kLargeCluster.
TEST(SteinPhases, ClusterSizes) {
  for (int n : {200, 700}) {
    const zoo::SymTridiagonal t = zoo::symtridiagonal("random", n, 9);
    check(t.d, t.e, {'A', 0, 0}, "random all " + std::to_string(n));
  }
  std::vector<double> d(210), e(209);
  for (int i = 0; i < 210; ++i) d[i] = std::fabs(i % 21 - 10.0);
  for (int i = 0; i < 209; ++i) e[i] = (i % 21 == 20) ? 1e-14 : 1.0;
  check(d, e, {'A', 0, 0}, "glued 1e-14");
  for (int k : {ph::kLargeCluster, ph::kLargeCluster + 1}) {
    std::vector<double> dc(k, 1.0), ec(k - 1);
    for (int i = 0; i + 1 < k; ++i) ec[i] = 1e-9 * (1 + (i % 3));
    check(dc, ec, {'A', 0, 0}, "cluster of " + std::to_string(k));
  }
}

// The independent branch: kept where it is safe (the extreme eigenvalues of a long random block,
// chained into one cluster by DSTEIN's rule), rejected where it is not (glued Wilkinson matrices:
// clusters of eigenvalues equal to working precision, whose independently found vectors are not
// orthogonal) and then recomputed by Gram-Schmidt or divide and conquer: LAPACK's ratios either way.
TEST(SteinPhases, IndependentBranch) {
  for (int n : {2048, 4096}) {
    const zoo::SymTridiagonal t = zoo::symtridiagonal("random", n, 5);
    ph::Branches b;
    check(t.d, t.e, {'I', 1, n / 100}, "random smallest 1% n=" + std::to_string(n), &b);
    EXPECT_GE(b.independent, 1) << n;
    EXPECT_EQ(b.independent_rejected, 0) << n;
    EXPECT_EQ(b.divide_and_conquer, 0) << n;
  }
  for (int copies : {25, 40}) {
    const int n = 21 * copies;
    std::vector<double> d(n), e(n - 1);
    for (int i = 0; i < n; ++i) d[i] = std::fabs(i % 21 - 10.0);
    for (int i = 0; i + 1 < n; ++i) e[i] = (i % 21 == 20) ? 1e-14 : 1.0;
    ph::Branches b;
    check(d, e, {'I', n - copies + 1, n}, "glued Wilkinson, top cluster, copies=" + std::to_string(copies), &b);
    EXPECT_GE(b.independent_rejected, 1) << copies;
    EXPECT_EQ(b.independent, 0) << copies;
  }
}

// Dense matrices tridiagonalized by DSYTRD as DSYEVX does, where DSTEIN's own algorithm is weak:
// "clustered_ulp" (Reference LAPACK's DDRVST type 10: a cluster at the eps scale beside one
// eigenvalue of order 1; LU pivoting as DLAGTF's, Gram-Schmidt repeated while it cancels, and
// the whole block from its divide and conquer where a vector does not converge) and "graded"
// (a large cluster from the divide and conquer beside singletons: the whole block from it). Before
// those rules 15 and 19 of these matrices came out 30 to 580 n ulp from orthogonal; LAPACK's
// DSTEIN fails 9 of the first kind (INFO = 0). Every order 4 .. 40, 20 seeds.
TEST(SteinPhases, DenseTridiagonalized) {
  for (const char *kind : {"clustered_ulp", "graded"})
    for (int n = 4; n <= 40; ++n)
      for (uint64_t seed = 1; seed <= 20; ++seed) {
        zoo::Vec a = zoo::symmetric(kind, n, n, seed);
        std::vector<double> d(n), e(n), tau(n), work(64 * n);
        const int lwork = int(work.size());
        int info = 0;
        dsytrd_("U", &n, a.data(), &n, d.data(), e.data(), tau.data(), work.data(), &lwork, &info, 1);
        ASSERT_EQ(info, 0);
        e.resize(n - 1);
        const std::string what = std::string(kind) + " n=" + std::to_string(n) + " seed " + std::to_string(seed);
        check(d, e, {'A', 0, 0}, what + " all");
        if (n >= 10) check(d, e, {'I', n / 3, n - 2}, what + " subset");
      }
}

// A block whose Gram-Schmidt vector does not converge (a cluster at the eps scale filling it beside
// one eigenvalue near 1): the whole block from its divide and conquer, INFO 0, LAPACK's ratios.
TEST(SteinPhases, UnconvergedRetriedByDivideAndConquer) {
  const zoo::SymTridiagonal t = zoo::ulp_cluster_n18();
  ph::Branches b;
  check(t.d, t.e, {'A', 0, 0}, "ulp cluster n=18", &b);
  EXPECT_EQ(b.retried, 1);
}

// The factorization alone: (T - x I) y = b solved to working accuracy away from the spectrum.
TEST(SteinPhases, LuSolve) {
  for (int n : {1, 2, 5, 50}) {
    const zoo::SymTridiagonal t = zoo::symtridiagonal("random", n, 4);
    std::vector<double> u0(n), u1(n), u2(n), l(n), y(n), b(n);
    std::vector<unsigned char> sw(n);
    const ph::Lu f{u0.data(), u1.data(), u2.data(), l.data(), sw.data()};
    const double x = 0.123;
    const double tol = ph::lu_factor(n, t.d.data(), t.e.data(), x, f);
    for (int i = 0; i < n; ++i) b[i] = y[i] = ph::start_entry(3, i);
    ph::lu_solve(n, f, tol, y.data());
    double worst = 0;
    for (int i = 0; i < n; ++i) {
      double r = (t.d[i] - x) * y[i] - b[i];
      if (i > 0) r += t.e[i - 1] * y[i - 1];
      if (i + 1 < n) r += t.e[i] * y[i + 1];
      worst = std::max(worst, std::fabs(r));
    }
    EXPECT_LE(worst, 1e-10) << n;
  }
}

}  // namespace
