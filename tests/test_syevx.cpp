// gpu_syevx over the dense symmetric zoo through the public API on the backend named by
// GPUEIG_TEST_BACKEND ("cpu" or "gpu"; "gpu" with GPUEIG_FAKE_DEVICE=1 runs the device's method
// on the host: the reduction with Q, bisection, the inverse iteration phases, Q Z). Every RANGE:
// all, the smallest tenth and a middle quarter by index, the whole spectrum by index (gpu_syevd's
// method), a middle half by value. Eigenvalues against DSYEVD's, eigenvectors by the residual
// ||A Z - Z W||_1 / (n ||A||_1 ulp) and dort01's orthogonality (threshold 30); DSYEVX's argument
// checks, its N = 1 quick return, and the NaN answer for a matrix with NaN or Inf entries.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
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
const double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kPad = 31337.0;  // marks entries that must stay untouched
constexpr double kUlp = std::numeric_limits<double>::epsilon();

// The n x n matrix in a buffer of leading dimension lda, kPad below row n; only triangle `uplo`
// copied, the other one NaN (it must never be read).
Vec embed(const Vec &full, int n, int lda, char uplo) {
  Vec a(static_cast<size_t>(lda) * n, kPad);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i)
      a[i + size_t(j) * lda] = (uplo == 'U' ? i <= j : i >= j) ? full[i + size_t(j) * n] : kNaN;
  return a;
}

Vec dsyevd_eigenvalues(Vec a, int n) {
  Vec w(n);
  int lwork = -1, liwork = -1, iquery = 0, info = 0;
  double query = 0;
  dsyevd_("N", "U", &n, a.data(), &n, w.data(), &query, &lwork, &iquery, &liwork, &info, 1, 1);
  lwork = static_cast<int>(query);
  liwork = std::max(1, iquery);
  Vec work(lwork);
  std::vector<int> iwork(liwork);
  dsyevd_("N", "U", &n, a.data(), &n, w.data(), work.data(), &lwork, iwork.data(), &liwork, &info, 1, 1);
  EXPECT_EQ(info, 0);
  return w;
}

double max_abs_entry(const Vec &a, int n) {
  double m = 0;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) m = std::max(m, std::fabs(a[i + size_t(j) * n]));
  return m;
}

// max_j ||A z_j - w_j z_j||_1 / (n ||A||_1 ulp) over the m pairs (A full, ld n; z ld ldz).
double dense_residual(int n, const Vec &a, int m, const double *w, const double *z, int ldz) {
  const double anorm = std::max(ratios::norm1(n, n, a.data(), n), std::numeric_limits<double>::min());
  double worst = 0;
  for (int j = 0; j < m; ++j) {
    double s = 0;
    for (int i = 0; i < n; ++i) {
      double r = -w[j] * z[i + size_t(j) * ldz];
      for (int k = 0; k < n; ++k) r += a[i + size_t(k) * n] * z[k + size_t(j) * ldz];
      s += std::fabs(r);
    }
    worst = std::max(worst, s);
  }
  return worst / (n * anorm * kUlp);
}

class SyevxTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(gpueig_set_backend(GPUEIG_TEST_BACKEND), 0); }
};

// kind, n, uplo, jobz, selection: "A", "Ilow" (the smallest tenth), "Imid" (a middle quarter),
// "Iall" (1..N), "Vmid" (between the quarter points of the spectrum)
using Param = std::tuple<std::string, int, char, char, std::string>;
class SyevxZoo : public SyevxTest, public ::testing::WithParamInterface<Param> {};

TEST_P(SyevxZoo, SelectedEigenpairsWithinThreshold) {
  const auto [kind, n, uplo, jobz, sel] = GetParam();
  const int lda = n + n % 3, ldz = n + 2;
  const Vec full = zoo::symmetric(kind, n, n, 500 + n);
  const Vec ref = dsyevd_eigenvalues(full, n);
  const double anorm = std::max(ratios::norm1(n, n, full.data(), n), max_abs_entry(full, n));
  char range = sel[0];
  int il = 1, iu = n, first = 0, count = n;
  double vl = 0, vu = 0;
  if (sel == "Ilow") iu = std::max(1, n / 10);
  if (sel == "Imid") il = n / 3 + 1, iu = std::min(n, il + n / 4);
  if (range == 'I') first = il - 1, count = iu - il + 1;
  if (range == 'V') {
    const double tol = 1000 * n * kUlp * anorm;
    vl = ratios::gap_point(ref, n / 4, tol);
    vu = ratios::gap_point(ref, (3 * n) / 4, tol);
    if (!(vl < vu)) vu = vl + std::max(1.0, anorm);
    first = int(std::upper_bound(ref.begin(), ref.end(), vl) - ref.begin());
    count = int(std::upper_bound(ref.begin(), ref.end(), vu) - ref.begin()) - first;
  }
  Vec a = embed(full, n, lda, uplo);
  Vec w(n + 1, kNaN), z(size_t(ldz) * std::max(1, n) + 1, kPad);
  w[n] = kPad;
  std::vector<int> ifail(n + 1, -7);
  int m = -1;
  const int info = gpu_syevx(jobz, range, uplo, n, a.data(), lda, vl, vu, il, iu, 0.0, &m, w.data(),
                             z.data(), ldz, ifail.data());
  const std::string backend = gpueig_last_backend();
  SCOPED_TRACE(kind + " n=" + std::to_string(n) + " uplo=" + uplo + " jobz=" + jobz + " " + sel +
               " backend=" + backend);
  ASSERT_EQ(info, 0);
  EXPECT_EQ(backend, n == 1 ? "none" : kOnGpu ? "gpu" : "cpu");  // (N = 1: DSYEVX's quick return)
  ASSERT_EQ(m, count);
  EXPECT_EQ(w[n], kPad) << "W written beyond N";
  const Vec got(w.begin(), w.begin() + m), want(ref.begin() + first, ref.begin() + first + count);
  EXPECT_TRUE(std::is_sorted(got.begin(), got.end()));
  EXPECT_LE(ratios::eigenvalue_distance(got, want, n, anorm), ratios::kThreshold);
  if (jobz == 'V' && m > 0) {
    for (int j = 0; j < m; ++j) {
      EXPECT_EQ(ifail[j], 0);
      for (int i = n; i < ldz; ++i) ASSERT_EQ(z[i + size_t(j) * ldz], kPad) << "Z written between N and LDZ";
    }
    EXPECT_EQ(z[size_t(ldz) * m], kPad) << "Z written beyond column M";
    EXPECT_LE(dense_residual(n, full, m, w.data(), z.data(), ldz), ratios::kThreshold);
    EXPECT_LE(ratios::orthogonality(n, m, z.data(), ldz), ratios::kThreshold);
  }
  if (jobz == 'N') EXPECT_EQ(z[0], kPad) << "Z referenced for JOBZ = 'N'";
}

std::string param_name(const ::testing::TestParamInfo<Param> &info) {
  return std::get<0>(info.param) + "_" + std::to_string(std::get<1>(info.param)) + "_" +
         std::get<2>(info.param) + std::get<3>(info.param) + "_" + std::get<4>(info.param);
}

INSTANTIATE_TEST_SUITE_P(Zoo, SyevxZoo,
                         ::testing::Combine(::testing::ValuesIn(zoo::symmetric_kinds()),
                                            ::testing::ValuesIn(zoo::dense_sizes()), ::testing::Values('L'),
                                            ::testing::Values('N', 'V'),
                                            ::testing::Values("A", "Ilow", "Imid", "Iall", "Vmid")),
                         param_name);

INSTANTIATE_TEST_SUITE_P(Upper, SyevxZoo,
                         ::testing::Combine(::testing::Values("random", "clustered"), ::testing::Values(33, 97),
                                            ::testing::Values('U'), ::testing::Values('V'),
                                            ::testing::Values("Ilow", "Vmid")),
                         param_name);

// Larger orders: many clusters, the divide-and-conquer branch of gpu_stein's method.
INSTANTIATE_TEST_SUITE_P(Large, SyevxZoo,
                         ::testing::Combine(::testing::Values("random", "clustered", "repeated"),
                                            ::testing::Values(300), ::testing::Values('L'),
                                            ::testing::Values('V'), ::testing::Values("Ilow", "Imid", "Vmid")),
                         param_name);

// Where DSTEIN's own algorithm is weak (tests/test_stein_phases.cpp, DenseTridiagonalized): graded
// matrices (a large cluster beside singletons) and, where the library's method runs, Reference
// LAPACK's DDRVST type 10 ("clustered_ulp", a cluster at the eps scale beside 1), which LAPACK's
// DSTEIN itself (the CPU path) fails at some orders. Every order 4 .. 40.
std::vector<std::string> hard_cluster_kinds() {
  if (kOnGpu) return {"clustered_ulp", "graded"};
  return {"graded"};
}
std::vector<int> small_orders() {
  std::vector<int> n;
  for (int i = 4; i <= 40; ++i) n.push_back(i);
  return n;
}
INSTANTIATE_TEST_SUITE_P(HardClusters, SyevxZoo,
                         ::testing::Combine(::testing::ValuesIn(hard_cluster_kinds()), ::testing::ValuesIn(small_orders()),
                                            ::testing::Values('L', 'U'), ::testing::Values('V'),
                                            ::testing::Values("A", "Imid", "Vmid")),
                         param_name);

// DSYEVX's checks, in its order; nothing written on an illegal argument.
TEST_F(SyevxTest, IllegalArguments) {
  Vec a(16, 1.0), w(4, kPad), z(16, kPad);
  std::vector<int> ifail(4, -7);
  int m = -5;
  auto call = [&](char jobz, char range, char uplo, int n, int lda, double vl, double vu, int il, int iu, int ldz) {
    return gpu_syevx(jobz, range, uplo, n, a.data(), lda, vl, vu, il, iu, 0.0, &m, w.data(), z.data(), ldz,
                     ifail.data());
  };
  EXPECT_EQ(call('X', 'A', 'U', 4, 4, 0, 0, 1, 1, 4), -1);
  EXPECT_EQ(call('V', 'X', 'U', 4, 4, 0, 0, 1, 1, 4), -2);
  EXPECT_EQ(call('V', 'A', 'X', 4, 4, 0, 0, 1, 1, 4), -3);
  EXPECT_EQ(call('V', 'A', 'U', -1, 4, 0, 0, 1, 1, 4), -4);
  EXPECT_EQ(call('V', 'A', 'U', 4, 3, 0, 0, 1, 1, 4), -6);
  EXPECT_EQ(call('V', 'V', 'U', 4, 4, 1, 1, 1, 1, 4), -8);
  EXPECT_EQ(call('V', 'V', 'U', 4, 4, kNaN, 1, 1, 1, 4), -8);
  EXPECT_EQ(call('V', 'I', 'U', 4, 4, 0, 0, 0, 1, 4), -9);
  EXPECT_EQ(call('V', 'I', 'U', 4, 4, 0, 0, 5, 5, 4), -9);
  EXPECT_EQ(call('V', 'I', 'U', 4, 4, 0, 0, 2, 1, 4), -10);
  EXPECT_EQ(call('V', 'I', 'U', 4, 4, 0, 0, 1, 5, 4), -10);
  EXPECT_EQ(call('V', 'A', 'U', 4, 4, 0, 0, 1, 1, 3), -15);
  EXPECT_EQ(call('N', 'A', 'U', 4, 4, 0, 0, 1, 1, 0), -15);
  for (double x : a) EXPECT_EQ(x, 1.0);
  for (double x : w) EXPECT_EQ(x, kPad);
  for (double x : z) EXPECT_EQ(x, kPad);
  for (int x : ifail) EXPECT_EQ(x, -7);
  EXPECT_EQ(m, -5);
  // N = 0 (IL = 1, IU = 0 is legal there): M = 0.
  EXPECT_EQ(call('V', 'I', 'U', 0, 1, 0, 0, 1, 0, 1), 0);
  EXPECT_EQ(m, 0);
  // N = 0 with VL >= VU is legal too (DSYEVX checks VU > VL only for N > 0).
  m = -5;
  EXPECT_EQ(call('V', 'V', 'U', 0, 1, 1, 1, 1, 1, 1), 0);
  EXPECT_EQ(m, 0);
}

// N = 1 as DSYEVX: W(1) = A(1,1) where selected, Z(1,1) = 1 whenever vectors are wanted.
TEST_F(SyevxTest, OrderOne) {
  double a = 2.5, w = kPad, z = kPad;
  int m = -1, ifail = -7;
  EXPECT_EQ(gpu_syevx('V', 'V', 'L', 1, &a, 1, 3.0, 4.0, 0, 0, 0.0, &m, &w, &z, 1, &ifail), 0);
  EXPECT_EQ(m, 0);
  EXPECT_EQ(w, kPad);
  EXPECT_EQ(z, 1.0);
  EXPECT_EQ(gpu_syevx('V', 'V', 'L', 1, &a, 1, 2.0, 2.5, 0, 0, 0.0, &m, &w, &z, 1, &ifail), 0);
  EXPECT_EQ(m, 1);
  EXPECT_EQ(w, 2.5);
}

// A NaN or Inf in triangle UPLO: its eigenvalues are NaN, computed by neither backend (DSYEVX
// would call DSTEIN with an IBLOCK it rejects through XERBLA: fuzz_symmetric's n = 8 case below).
// RANGE 'A' and 'I' return M NaN eigenvalues and vectors, RANGE 'V' none in (VL, VU].
TEST_F(SyevxTest, NonFiniteEntryGivesNaNEigenvalues) {
  const double kInf = std::numeric_limits<double>::infinity();
  for (int n : {8, 40})
    for (double bad : {kNaN, kInf, -kInf})
      for (char jobz : {'N', 'V'})
        for (char range : {'A', 'I', 'V'}) {
          Vec full = zoo::symmetric("random", n, n, 5);
          full[6 + 6 * n] = bad;  // (the fuzzer's case: a diagonal entry)
          const Vec a0 = embed(full, n, n, 'L');
          Vec a = a0, w(n, kPad), z(size_t(n) * n, kPad);
          std::vector<int> ifail(n, -7);
          int m = -1;
          const int il = 2, iu = 5;
          ASSERT_EQ(gpu_syevx(jobz, range, 'L', n, a.data(), n, -1.0, 1.0, il, iu, 0.0, &m, w.data(), z.data(),
                              n, ifail.data()),
                    0);
          const int expected_m = range == 'A' ? n : range == 'I' ? iu - il + 1 : 0;
          ASSERT_EQ(m, expected_m) << "n " << n << " JOBZ " << jobz << " RANGE " << range;
          EXPECT_STREQ(gpueig_last_backend(), "none");
          for (int i = 0; i < n; ++i) EXPECT_EQ(std::isnan(w[i]), i < m) << i;
          for (size_t k = 0; k < z.size(); ++k)
            EXPECT_EQ(std::isnan(z[k]), jobz == 'V' && k < size_t(n) * m) << k;
          for (int i = 0; i < n; ++i) EXPECT_EQ(ifail[i], jobz == 'V' && i < m ? 0 : -7) << i;
          for (size_t k = 0; k < a.size(); ++k)
            EXPECT_TRUE(std::memcmp(&a[k], &a0[k], 8) == 0) << "A changed at " << k;
        }
}

}  // namespace
