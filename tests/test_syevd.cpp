// gpu_syevd over the dense symmetric zoo through the public API on the backend named by
// GPUEIG_TEST_BACKEND ("cpu" or "gpu"; "gpu" with GPUEIG_FAKE_DEVICE=1 runs the device's method
// on the host: the reduction, the divide-and-conquer phases, Q Z). Eigenvalues against DSYEVD's,
// eigenvectors by LAPACK's dsyt21 / dort01 ratios (threshold 30), DSYEVD's argument checks, and
// the fallback of a matrix with NaN entries.
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

namespace {

using Vec = std::vector<double>;
const bool kOnGpu = std::string(GPUEIG_TEST_BACKEND) == "gpu";
const double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kPad = 31337.0;  // marks entries that must stay untouched

// The n x n matrix (leading dimension n) in a buffer of leading dimension lda, kPad below row n;
// only triangle `uplo` copied, the other one NaN (it must never be read).
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

class SyevdTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(gpueig_set_backend(GPUEIG_TEST_BACKEND), 0); }
};

using Param = std::tuple<std::string, int, char, char>;  // kind, n, uplo, jobz
class SyevdZoo : public SyevdTest, public ::testing::WithParamInterface<Param> {};

TEST_P(SyevdZoo, EigenpairsWithinThreshold) {
  const auto [kind, n, uplo, jobz] = GetParam();
  const int lda = n + n % 3;
  const Vec full = zoo::symmetric(kind, n, n, 300 + n);
  Vec a = embed(full, n, lda, uplo);
  Vec w(n + 1, kNaN);
  w[n] = kPad;
  const int info = gpu_syevd(jobz, uplo, n, a.data(), lda, w.data());
  const std::string backend = gpueig_last_backend();
  SCOPED_TRACE(kind + " n=" + std::to_string(n) + " uplo=" + uplo + " jobz=" + jobz + " backend=" + backend);
  ASSERT_EQ(info, 0);
  EXPECT_EQ(backend, kOnGpu ? "gpu" : "cpu");
  EXPECT_EQ(w[n], kPad) << "W written beyond N";
  w.resize(n);
  EXPECT_TRUE(std::is_sorted(w.begin(), w.end()));
  const double anorm = std::max(ratios::norm1(n, n, full.data(), n), max_abs_entry(full, n));
  EXPECT_LE(ratios::eigenvalue_distance(w, dsyevd_eigenvalues(full, n), n, anorm), ratios::kThreshold);
  if (jobz == 'V') {
    for (int j = 0; j < n; ++j)
      for (int i = n; i < lda; ++i) ASSERT_EQ(a[i + size_t(j) * lda], kPad) << "A written between N and LDA";
    const Vec zeros(std::max(1, n - 1), 0.0);
    EXPECT_LE(ratios::tridiagonal_similarity(n, full.data(), n, w.data(), zeros.data(), a.data(), lda),
              ratios::kThreshold);
    EXPECT_LE(ratios::orthogonality(n, n, a.data(), lda), ratios::kThreshold);
  }
}

std::string param_name(const ::testing::TestParamInfo<Param> &info) {
  return std::get<0>(info.param) + "_" + std::to_string(std::get<1>(info.param)) + "_" +
         std::get<2>(info.param) + std::get<3>(info.param);
}

INSTANTIATE_TEST_SUITE_P(Zoo, SyevdZoo,
                         ::testing::Combine(::testing::ValuesIn(zoo::symmetric_kinds()),
                                            ::testing::ValuesIn(zoo::dense_sizes()),
                                            ::testing::Values('U', 'L'), ::testing::Values('N', 'V')),
                         param_name);

// Larger orders, where the divide and conquer has several levels and deflates in earnest.
INSTANTIATE_TEST_SUITE_P(Large, SyevdZoo,
                         ::testing::Combine(::testing::Values("random", "clustered", "kms05"),
                                            ::testing::Values(300, 513), ::testing::Values('L'),
                                            ::testing::Values('V')),
                         param_name);

// DSYEVD's checks, in its order; nothing written on an illegal argument.
TEST_F(SyevdTest, IllegalArguments) {
  Vec a(16, 1.0), w(4, kPad);
  EXPECT_EQ(gpu_syevd('X', 'U', 4, a.data(), 4, w.data()), -1);
  EXPECT_EQ(gpu_syevd('V', 'X', 4, a.data(), 4, w.data()), -2);
  EXPECT_EQ(gpu_syevd('V', 'U', -1, a.data(), 4, w.data()), -3);
  EXPECT_EQ(gpu_syevd('V', 'U', 4, a.data(), 3, w.data()), -5);
  EXPECT_EQ(gpu_syevd('v', 'l', 0, a.data(), 1, w.data()), 0);
  for (double x : a) EXPECT_EQ(x, 1.0);
  for (double x : w) EXPECT_EQ(x, kPad);
}

// A NaN in triangle UPLO: the GPU half refuses it and LAPACK answers (DSYEVD propagates NaN).
TEST_F(SyevdTest, NanEntryGoesToLapack) {
  const int n = 40;
  Vec full = zoo::symmetric("random", n, n, 5);
  full[3 + 7 * n] = full[7 + 3 * n] = kNaN;
  Vec a = full, w(n);
  gpu_syevd('V', 'L', n, a.data(), n, w.data());
  EXPECT_STREQ(gpueig_last_backend(), "cpu");
}

}  // namespace
