// The Sturm count shared by the GPU kernels and the host (src/sturm.hpp), checked on the CPU:
// DLAEBZ's count and the division-free one both give the number of eigenvalues below shifts
// placed in the gaps of the spectrum (computed by LAPACK), for every kind of the zoo.
#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <string>
#include <vector>

#include "lapack_ref.hpp"
#include "ratios.hpp"
#include "sturm.hpp"
#include "zoo.hpp"

namespace {

using gpueig::SturmRow;

std::vector<double> spectrum(const zoo::SymTridiagonal &t) {
  std::vector<double> d = t.d, e = t.e;
  e.push_back(0.0);
  int n = static_cast<int>(d.size()), info = 0;
  dsterf_(&n, d.data(), e.data(), &info);
  EXPECT_EQ(info, 0);
  std::sort(d.begin(), d.end());
  return d;
}

class SturmZoo : public ::testing::TestWithParam<std::tuple<std::string, int>> {};

TEST_P(SturmZoo, CountsEigenvaluesBelowGapPoints) {
  const auto &[kind, n] = GetParam();
  const zoo::SymTridiagonal t = zoo::symtridiagonal(kind, n, 7);
  std::vector<SturmRow> rows(n);
  double emax = 0, tnorm = 0;
  for (int j = 0; j < n; ++j) {
    rows[j] = {t.d[j], j > 0 ? t.e[j - 1] * t.e[j - 1] : 0.0};
    emax = std::max(emax, rows[j].e2);
    tnorm = std::max(tnorm, std::fabs(t.d[j]) + (j > 0 ? std::fabs(t.e[j - 1]) : 0.0) +
                                (j + 1 < n ? std::fabs(t.e[j]) : 0.0));
  }
  const double pivmin = DBL_MIN * std::max(1.0, emax);
  const std::vector<double> ref = spectrum(t);
  const double tol = 64 * n * ratios::kUlp * std::max(tnorm, 1e-300) + 4 * pivmin;
  for (int k = 0; k <= n; k += std::max(1, n / 17)) {
    const double x = ratios::gap_point(ref, k, tol);
    int expect = static_cast<int>(std::upper_bound(ref.begin(), ref.end(), x) - ref.begin());
    const double xs[2] = {x, x + 0.0};
    int plain[2], scaled[2];
    gpueig::sturm_counts<2>(rows.data(), n, xs, pivmin, plain);
    // The division-free count runs on T scaled to entries of about 1, as on the GPU.
    const gpueig::SturmScale sc = gpueig::sturm_scale(rows.data(), n, pivmin);
    std::vector<SturmRow> srows(n);
    for (int j = 0; j < n; ++j) srows[j] = {rows[j].d * sc.c, rows[j].e2 * sc.c * sc.c};
    const double sx[2] = {x * sc.c, x * sc.c};
    gpueig::sturm_counts_scaled<2>(srows.data(), n, sx, sc.pivmin, scaled);
    int scaled_int[2];
    gpueig::sturm_counts_scaled<2, true>(srows.data(), n, sx, sc.pivmin, scaled_int);
    EXPECT_EQ(scaled_int[0], expect) << "shift " << x << " (gap " << k << "), integer tests";
    EXPECT_EQ(plain[0], expect) << "shift " << x << " (gap " << k << ")";
    EXPECT_EQ(scaled[0], expect) << "shift " << x << " (gap " << k << "), division-free count";
    EXPECT_EQ(plain[1], plain[0]);
    EXPECT_EQ(gpueig::sturm_count(rows.data(), n, x, pivmin), plain[0]);
  }
}

// Every kind but "underflow": there e^2 underflows to 0, so the count (like DSTEBZ, which splits
// such a matrix into 1 x 1 blocks) sees diag(d), while the reference DSTERF scales T first.
std::vector<std::string> counted_kinds() {
  std::vector<std::string> k = zoo::symtridiagonal_kinds();
  k.erase(std::remove(k.begin(), k.end(), "underflow"), k.end());
  return k;
}

INSTANTIATE_TEST_SUITE_P(
    Zoo, SturmZoo,
    ::testing::Combine(::testing::ValuesIn(counted_kinds()),
                       ::testing::Values(1, 2, 3, 17, 64, 257, 1000)),
    [](const auto &info) {
      return std::get<0>(info.param) + "_n" + std::to_string(std::get<1>(info.param));
    });

// Exact zero pivots (shift equal to a diagonal entry of a matrix with zero off-diagonals, or of
// the 1 x 1 leading block) are replaced by -pivmin: no Inf, no NaN, the count stays right.
TEST(Sturm, ZeroPivotsCountAsNonPositive) {
  const std::vector<SturmRow> rows = {{1.0, 0.0}, {1.0, 1.0}, {1.0, 1.0}};
  const double pivmin = DBL_MIN;
  // Eigenvalues of tridiag(1, 1, 1) (n = 3): 1 - sqrt2, 1, 1 + sqrt2.
  EXPECT_EQ(gpueig::sturm_count(rows.data(), 3, 1.0, pivmin), 2);
  const double x[1] = {1.0};
  int c[1];
  gpueig::sturm_counts_scaled<1>(rows.data(), 3, x, pivmin, c);
  EXPECT_EQ(c[0], 2);
}

}  // namespace
