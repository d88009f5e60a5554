// gpu_stein against LAPACK dstein over the symmetric tridiagonal zoo (clusters, repeated and
// graded eigenvalues, split matrices, values near underflow and overflow), for all eigenvalues
// and for a subset, through the public API on the backend named by GPUEIG_TEST_BACKEND. The
// eigenvalues come from dstebz with ORDER = 'B'. Accuracy as LAPACK's tests judge eigenvectors:
// ||T Z - Z diag(W)||_1 / (n ||T||_1 ulp) <= 30 and ||Z^T Z - I||_1 / (n ulp) <= 30; INFO and
// IFAIL as dstein's; every illegal argument returns -i with nothing written.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include "gpueig.h"
#include "lapack_ref.hpp"
#include "ratios.hpp"
#include "zoo.hpp"

extern "C" void dstein_(const int *n, const double *d, const double *e, const int *m,
                        const double *w, const int *iblock, const int *isplit, double *z,
                        const int *ldz, double *work, int *iwork, int *ifail, int *info);

namespace {

using Vec = std::vector<double>;
constexpr double kUlp = 2 * ratios::kEps;  // DLAMCH('P')
constexpr double kPoison = -31337.0;

struct Spectrum {
  int m = 0, nsplit = 0;
  Vec w;
  std::vector<int> iblock, isplit;
};

// dstebz, ORDER = 'B': all eigenvalues, or the il-th through iu-th. As DSYEVX calls it: on T
// scaled by a power of two into [1e-140, 1e70] (DSTEBZ treats every off-diagonal below
// sqrt(SAFMIN) as zero and does not scale), W scaled back.
Spectrum eigenvalues(const zoo::SymTridiagonal &t0, int il, int iu, bool all) {
  const int n = static_cast<int>(t0.d.size());
  double tmax = 0;
  for (double x : t0.d) tmax = std::max(tmax, std::fabs(x));
  for (double x : t0.e) tmax = std::max(tmax, std::fabs(x));
  const double sigma = tmax > 1e70    ? std::ldexp(1.0, -static_cast<int>(std::log2(tmax / 1e70)))
                       : tmax > 0 && tmax < 1e-140 ? std::ldexp(1.0, static_cast<int>(std::log2(1e-140 / tmax)) + 1)
                                       : 1.0;
  zoo::SymTridiagonal t = t0;
  for (double &x : t.d) x *= sigma;
  for (double &x : t.e) x *= sigma;
  Spectrum s;
  s.w.assign(std::max(n, 1), 0.0);
  s.iblock.assign(std::max(n, 1), 0);
  s.isplit.assign(std::max(n, 1), 0);
  Vec work(4 * std::max(n, 1));
  std::vector<int> iwork(3 * std::max(n, 1));
  const double zero = 0;
  int info = 0;
  dstebz_(all ? "A" : "I", "B", &n, &zero, &zero, &il, &iu, &zero, t.d.data(), t.e.data(), &s.m,
          &s.nsplit, s.w.data(), s.iblock.data(), s.isplit.data(), work.data(), iwork.data(), &info,
          1, 1);
  EXPECT_EQ(info, 0);
  for (double &x : s.w) x /= sigma;
  return s;
}

// ||T Z - Z diag(W)||_1 / (n ||T||_1 ulp), column by column (dstt21's first ratio).
double residual(const zoo::SymTridiagonal &t, const Spectrum &s, const Vec &z, int ldz) {
  const int n = static_cast<int>(t.d.size());
  double tnorm = 0;
  for (int i = 0; i < n; ++i)
    tnorm = std::max(tnorm, std::fabs(t.d[i]) + (i > 0 ? std::fabs(t.e[i - 1]) : 0) +
                                (i + 1 < n ? std::fabs(t.e[i]) : 0));
  double worst = 0;
  for (int j = 0; j < s.m; ++j) {
    const double *x = z.data() + size_t(j) * ldz;
    double col = 0;
    for (int i = 0; i < n; ++i) {
      double r = t.d[i] * x[i] - s.w[j] * x[i];
      if (i > 0) r += t.e[i - 1] * x[i - 1];
      if (i + 1 < n) r += t.e[i] * x[i + 1];
      col += std::fabs(r);
    }
    worst = std::max(worst, col);
  }
  if (tnorm == 0) return worst == 0 ? 0 : 1 / kUlp;
  return worst / (n * tnorm * kUlp);
}

class SteinTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(gpueig_set_backend(GPUEIG_TEST_BACKEND), 0); }
};

class SteinZoo : public SteinTest,
                 public ::testing::WithParamInterface<std::tuple<std::string, int, bool>> {};

// il, iu (1-based) of a subset; 0: the middle third.
void check_vectors(const zoo::SymTridiagonal &t, bool all, int il = 0, int iu = 0) {
  const int n = static_cast<int>(t.d.size());
  if (il == 0) il = std::max(1, n / 3), iu = std::max(il, (2 * n) / 3);
  const Spectrum s = eigenvalues(t, il, iu, all);
  const int ldz = n + 2;

  Vec z_ref(size_t(ldz) * std::max(s.m, 1), kPoison), work(5 * n);
  std::vector<int> iwork(n), ifail_ref(std::max(s.m, 1), -7);
  int info_ref = 0;
  dstein_(&n, t.d.data(), t.e.data(), &s.m, s.w.data(), s.iblock.data(), s.isplit.data(),
          z_ref.data(), &ldz, work.data(), iwork.data(), ifail_ref.data(), &info_ref);

  Vec z(size_t(ldz) * std::max(s.m, 1), kPoison);
  std::vector<int> ifail(std::max(s.m, 1) + 1, -7);
  const int info = gpu_stein(n, t.d.data(), t.e.data(), s.m, s.w.data(), s.iblock.data(),
                             s.isplit.data(), z.data(), ldz, ifail.data());
  SCOPED_TRACE(t.name + " n=" + std::to_string(n) + " m=" + std::to_string(s.m) + " backend=" +
               gpueig_last_backend());
  EXPECT_EQ(ifail[std::max(s.m, 1)], -7) << "IFAIL written beyond M";
  for (int j = 0; j < s.m; ++j)
    for (int i = n; i < ldz; ++i) ASSERT_EQ(z[i + size_t(j) * ldz], kPoison) << "Z padding written";
  if (s.m == 0) return;
  // dstein's own answer is the reference where it is right: it does not scale T, and for the
  // "huge" and "underflow" kinds it is not (NaN vectors; residuals of 1e14 ulps): there only our
  // ratios are judged, and every vector must have converged.
  const double ref_residual = residual(t, s, z_ref, ldz);
  const double ref_orth = ratios::orthogonality(n, s.m, z_ref.data(), ldz);
  const bool ref_right = ref_residual <= ratios::kThreshold && ref_orth <= ratios::kThreshold;
  // Where DSTEIN reports vectors that did not converge, the GPU method may have recomputed their
  // block by divide and conquer (INFO 0, judged by the ratios below) or report the same.
  if (info_ref > 0) {
    ASSERT_TRUE(info == 0 || info == info_ref) << "INFO " << info << ", dstein's " << info_ref;
    for (int j = 0; j < s.m && info > 0; ++j) EXPECT_EQ(ifail[j], ifail_ref[j]) << "IFAIL(" << j + 1 << ")";
  } else {
    ASSERT_EQ(info, 0) << "dstein's INFO " << info_ref << (ref_right ? "" : " (its vectors wrong)");
  }
  for (int j = 0; j < s.m && info == 0; ++j) EXPECT_EQ(ifail[j], 0) << "IFAIL(" << j + 1 << ")";
  EXPECT_LE(residual(t, s, z, ldz), ratios::kThreshold) << "dstein's own: " << ref_residual;
  if (info == 0)
    EXPECT_LE(ratios::orthogonality(n, s.m, z.data(), ldz), ratios::kThreshold)
        << "dstein's own: " << ref_orth;
}

TEST_P(SteinZoo, MatchesDstein) {
  const auto &[kind, n, all] = GetParam();
  check_vectors(zoo::symtridiagonal(kind, n, 77 + n), all);
}

std::vector<int> orders() {
  std::vector<int> out = zoo::dense_sizes();
  out.push_back(300);
  return out;
}

INSTANTIATE_TEST_SUITE_P(
    Zoo, SteinZoo,
    ::testing::Combine(::testing::ValuesIn(zoo::symtridiagonal_kinds()), ::testing::ValuesIn(orders()),
                       ::testing::Bool()),
    [](const auto &info) {
      return std::get<0>(info.param) + "_n" + std::to_string(std::get<1>(info.param)) +
             (std::get<2>(info.param) ? "_all" : "_subset");
    });

// n = 1100, all vectors: one long cluster chain (most gaps of a random T are below DSTEIN's
// 1e-3 ||T|| cluster bound).
TEST_F(SteinTest, LargeRandomAllVectors) { check_vectors(zoo::symtridiagonal("random", 1100, 5), true); }
// Where DSTEIN's Gram-Schmidt does not converge (zoo::ulp_cluster_n18), every vector and a subset.
TEST_F(SteinTest, UlpClusterAllAndSubset) {
  check_vectors(zoo::ulp_cluster_n18(), true);
  check_vectors(zoo::ulp_cluster_n18(), false, 2, 17);
}

TEST_F(SteinTest, LargeGluedWilkinsonSubset) {
  check_vectors(zoo::symtridiagonal("glued_wilkinson", 1100, 6), false);
}

// The independent branch of the GPU method (src/stein_phases.hpp): the smallest 1% of long random
// blocks, whose clusters by DSTEIN's rule have their vectors computed side by side and kept; and
// a cluster of eigenvalues equal to working precision (the top eigenvalue of each of 40 Wilkinson
// W21+ glued by 1e-14) over a block long enough to be tried so, whose independent vectors are
// then rejected and recomputed.
TEST_F(SteinTest, IndependentVectorsKeptOrRecomputed) {
  for (int n : {2048, 4096}) check_vectors(zoo::symtridiagonal("random", n, 5), false, 1, n / 100);
  zoo::SymTridiagonal g;
  g.name = "glued W21+ (1e-14)";
  const int n = 21 * 40;
  g.d.resize(n);
  g.e.resize(n - 1);
  for (int i = 0; i < n; ++i) g.d[i] = std::fabs(i % 21 - 10.0);
  for (int i = 0; i + 1 < n; ++i) g.e[i] = i % 21 == 20 ? 1e-14 : 1.0;
  check_vectors(g, false, n - 39, n);
}

// Illegal arguments: -i and nothing written (DSTEIN zeroes IFAIL before it checks).
TEST_F(SteinTest, IllegalArgumentsWriteNothing) {
  const zoo::SymTridiagonal t = zoo::symtridiagonal("random", 6, 9);
  Spectrum s = eigenvalues(t, 1, 6, true);
  ASSERT_EQ(s.nsplit, 1);
  auto call = [&](int n, const Vec &d, const Vec &e, int m, const Vec &w, const std::vector<int> &ib,
                  const std::vector<int> &is, int ldz) {
    Vec z(64, kPoison);
    std::vector<int> ifail(8, -7);
    const int r = gpu_stein(n, d.data(), e.data(), m, w.data(), ib.data(), is.data(), z.data(),
                            ldz, ifail.data());
    EXPECT_EQ(z, Vec(64, kPoison));
    EXPECT_EQ(ifail, std::vector<int>(8, -7));
    return r;
  };
  const Vec nan_d = [&] { Vec v = t.d; v[2] = NAN; return v; }();
  const Vec inf_e = [&] { Vec v = t.e; v[0] = INFINITY; return v; }();
  const Vec bad_w = [&] { Vec v = s.w; v[3] = v[1]; v[1] = s.w[3]; return v; }();  // not ascending
  const Vec nan_w = [&] { Vec v = s.w; v[0] = NAN; return v; }();
  std::vector<int> ib_down = s.iblock, ib_zero = s.iblock, ib_big = s.iblock, is_bad = s.isplit;
  ib_down[0] = 2;
  ib_zero.assign(6, 0);
  ib_big.assign(6, 7);
  is_bad[0] = 9;
  EXPECT_EQ(call(-1, t.d, t.e, 0, s.w, s.iblock, s.isplit, 6), -1);
  EXPECT_EQ(call(6, t.d, t.e, 7, s.w, s.iblock, s.isplit, 6), -4);
  EXPECT_EQ(call(6, t.d, t.e, -1, s.w, s.iblock, s.isplit, 6), -4);
  EXPECT_EQ(call(6, t.d, t.e, 6, s.w, s.iblock, s.isplit, 5), -9);
  EXPECT_EQ(call(6, nan_d, t.e, 6, s.w, s.iblock, s.isplit, 6), -2);
  EXPECT_EQ(call(6, t.d, inf_e, 6, s.w, s.iblock, s.isplit, 6), -3);
  EXPECT_EQ(call(6, t.d, t.e, 6, bad_w, s.iblock, s.isplit, 6), -5);
  EXPECT_EQ(call(6, t.d, t.e, 6, nan_w, s.iblock, s.isplit, 6), -5);
  EXPECT_EQ(call(6, t.d, t.e, 6, s.w, ib_down, s.isplit, 6), -6);
  EXPECT_EQ(call(6, t.d, t.e, 6, s.w, ib_zero, s.isplit, 6), -6);
  EXPECT_EQ(call(6, t.d, t.e, 6, s.w, ib_big, s.isplit, 6), -6);
  EXPECT_EQ(call(6, t.d, t.e, 6, s.w, s.iblock, is_bad, 6), -7);
  // quick returns: N = 0, M = 0
  EXPECT_EQ(call(0, t.d, t.e, 0, s.w, s.iblock, s.isplit, 1), 0);
  EXPECT_EQ(call(6, t.d, t.e, 0, s.w, s.iblock, s.isplit, 6), 0);
}

}  // namespace
