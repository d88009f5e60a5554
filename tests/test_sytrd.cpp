// gpu_sytrd_givens over the dense symmetric zoo, through the public API on the backend named by
// GPUEIG_TEST_BACKEND ("cpu" or "gpu"): A = Q T Q^T checked with LAPACK's dsyt21 / dort01 ratios,
// and the eigenvalues of T (dsterf) against dsyevd on A.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
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

// Leading dimensions: some larger than n, mixed so that lda > n and ldq > n each meet both UPLO
// and every VECT.
int lda_for(int n) { return n + n % 3; }
int ldq_for(int n) { return n + (n + 1) % 3; }

// The n x n matrix src (leading dimension lds) in a buffer of leading dimension ldd whose other
// entries are `fill`; with `only` = 'U' or 'L' just that triangle of src is copied.
Vec embed(const Vec &src, int n, int lds, int ldd, double fill, char only = 'A') {
  Vec dst(static_cast<size_t>(ldd) * n, fill);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i)
      if (only == 'A' || (only == 'U' ? i <= j : i >= j))
        dst[i + static_cast<size_t>(j) * ldd] = src[i + static_cast<size_t>(j) * lds];
  return dst;
}

// op(a) * op(b) for n x n matrices of leading dimension n.
Vec multiply(const char *ta, const char *tb, int n, const Vec &a, const Vec &b) {
  Vec c(static_cast<size_t>(n) * n);
  const double one = 1, zero = 0;
  dgemm_(ta, tb, &n, &n, &n, &one, a.data(), &n, b.data(), &n, &zero, c.data(), &n, 1, 1);
  return c;
}

// Eigenvalues of the full symmetric matrix a (leading dimension n), ascending, by dsyevd.
Vec dsyevd_eigenvalues(Vec a, int n) {
  Vec w(n);
  int lwork = -1, liwork = -1, iquery = 0, info = 0;
  double query = 0;
  dsyevd_("N", "U", &n, a.data(), &n, w.data(), &query, &lwork, &iquery, &liwork, &info, 1, 1);
  EXPECT_EQ(info, 0);
  lwork = static_cast<int>(query);
  liwork = iquery;
  Vec work(lwork);
  std::vector<int> iwork(liwork);
  dsyevd_("N", "U", &n, a.data(), &n, w.data(), work.data(), &lwork, iwork.data(), &liwork,
          &info, 1, 1);
  EXPECT_EQ(info, 0);
  return w;
}

// Eigenvalues of T = tridiag(e, d, e), ascending, by dsterf on copies.
Vec dsterf_eigenvalues(Vec d, Vec e, int n) {
  int info = 0;
  dsterf_(&n, d.data(), e.data(), &info);
  EXPECT_EQ(info, 0);
  d.resize(n);
  return d;
}

// Number of entries in rows n..ld-1 of the n-column buffer v that are no longer kPad.
int padding_written(const Vec &v, int n, int ld) {
  int count = 0;
  for (int j = 0; j < n; ++j)
    for (int i = n; i < ld; ++i) count += v[i + static_cast<size_t>(j) * ld] != kPad;
  return count;
}

int non_finite(const double *v, int count) {
  int bad = 0;
  for (int i = 0; i < count; ++i) bad += !std::isfinite(v[i]);
  return bad;
}

class SytrdTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(gpueig_set_backend(GPUEIG_TEST_BACKEND), 0); }
};

using SytrdParam = std::tuple<std::string, int, char, char>;  // kind, n, uplo, vect

class SytrdZoo : public SytrdTest, public ::testing::WithParamInterface<SytrdParam> {};

// Reduces zoo matrix `kind` of order n through the public call and checks every output.
void check_reduction(const std::string &kind, int n, char uplo, char vect) {
  const int lda = lda_for(n), ldq = vect == 'N' ? 1 : ldq_for(n);
  const Vec full = zoo::symmetric(kind, n, n, 100 + n);
  // Only triangle UPLO holds the matrix; NaN everywhere else proves nothing else is read.
  Vec a = embed(full, n, n, lda, kNaN, uplo);
  // D and E poisoned with NaN, plus one guard entry each past their documented length.
  Vec d(n + 1, kNaN), e(n, kNaN);
  d[n] = e[n - 1] = kPad;
  // VECT = 'U' starts from Q_in; for 'V' Q is NaN on entry, so reading it would show.
  const Vec q_in = zoo::orthogonal(n, 200 + n);
  Vec q = vect == 'N' ? Vec{kPad} : embed(vect == 'U' ? q_in : Vec(size_t(n) * n, kNaN), n, n,
                                           ldq, kPad);

  const int info = gpu_sytrd_givens(vect, uplo, n, a.data(), lda, d.data(), e.data(), q.data(),
                                    ldq);
  const std::string backend = gpueig_last_backend();
  SCOPED_TRACE(kind + " n=" + std::to_string(n) + " uplo=" + uplo + " vect=" + vect +
               " lda=" + std::to_string(lda) + " ldq=" + std::to_string(ldq) +
               " backend=" + backend);
  ASSERT_EQ(info, 0);
  EXPECT_EQ(backend, kOnGpu ? "gpu" : "cpu");  // finite matrices: no fallback on the GPU

  // A NaN would hide from the 1-norms of the ratios, which skip NaN columns.
  ASSERT_EQ(non_finite(d.data(), n), 0) << "D not (fully) written";
  ASSERT_EQ(non_finite(e.data(), n - 1), 0) << "E not (fully) written";
  EXPECT_EQ(d[n], kPad) << "D written beyond N";
  EXPECT_EQ(e[n - 1], kPad) << "E written beyond N-1";

  if (vect == 'N') {
    EXPECT_EQ(q[0], kPad) << "Q referenced with VECT = 'N'";
  } else {
    EXPECT_EQ(padding_written(q, n, ldq), 0) << "Q written between N and LDQ";
    for (int j = 0; j < n; ++j)
      ASSERT_EQ(non_finite(q.data() + static_cast<size_t>(j) * ldq, n), 0) << "Q column " << j;
    // VECT = 'U': Q_out = Q_in Q, so Q_out T Q_out^T must equal B = Q_in A Q_in^T.
    const Vec target =
        vect == 'V' ? full : multiply("N", "T", n, multiply("N", "N", n, q_in, full), q_in);
    EXPECT_LE(ratios::tridiagonal_similarity(n, target.data(), n, d.data(), e.data(), q.data(),
                                             ldq),
              ratios::kThreshold);
    EXPECT_LE(ratios::orthogonality(n, n, q.data(), ldq), ratios::kThreshold);
  }

  const Vec ours = dsterf_eigenvalues(d, e, n), ref = dsyevd_eigenvalues(full, n);
  EXPECT_LE(ratios::eigenvalue_distance(ours, ref, n, ratios::norm1(n, n, full.data(), n)),
            ratios::kThreshold);
}

TEST_P(SytrdZoo, ReducesToTridiagonal) {
  const auto &[kind, n, uplo, vect] = GetParam();
  check_reduction(kind, n, uplo, vect);
}

INSTANTIATE_TEST_SUITE_P(
    Zoo, SytrdZoo,
    ::testing::Combine(::testing::ValuesIn(zoo::symmetric_kinds()),
                       ::testing::ValuesIn(zoo::dense_sizes()), ::testing::Values('U', 'L'),
                       ::testing::Values('N', 'V', 'U')),
    [](const ::testing::TestParamInfo<SytrdParam> &info) {
      // std::get, not a structured binding: its commas would split the macro's arguments.
      return std::get<0>(info.param) + "_n" + std::to_string(std::get<1>(info.param)) + "_uplo" +
             std::get<2>(info.param) + "_vect" + std::get<3>(info.param);
    });

// Orders where the GPU method has several panels, tile levels and bulge-chasing windows; on the
// CPU this is only LAPACK against itself, so it runs on the GPU alone.
class SytrdLarge : public SytrdTest, public ::testing::WithParamInterface<SytrdParam> {};

TEST_P(SytrdLarge, ReducesToTridiagonal) {
  if (!kOnGpu) GTEST_SKIP() << "LAPACK against itself";
  const auto &[kind, n, uplo, vect] = GetParam();
  check_reduction(kind, n, uplo, vect);
}

INSTANTIATE_TEST_SUITE_P(
    Orders, SytrdLarge,
    ::testing::Combine(::testing::Values("random", "graded", "zero_blocks", "huge"),
                       ::testing::Values(200, 517, 1100), ::testing::Values('U', 'L'),
                       ::testing::Values('N', 'V', 'U')),
    [](const ::testing::TestParamInfo<SytrdParam> &info) {
      return std::get<0>(info.param) + "_n" + std::to_string(std::get<1>(info.param)) + "_uplo" +
             std::get<2>(info.param) + "_vect" + std::get<3>(info.param);
    });

// Kac-Murdock-Szego matrices rho^|i-j|: their panels' leftover columns become subnormal (rho =
// 0.5 from n = 63 on, 0.1 at n = 1000), where rotations were once formed from norms multiplied
// back by a subnormal scale, not rotations any more, and T came out wrong by O(1). Now reduced
// on the GPU and right; were a reduction wrong again, the check of A's Frobenius norm and trace
// would send it to LAPACK, and the backend test below would say so.
class SytrdKms : public SytrdTest, public ::testing::WithParamInterface<SytrdParam> {};

TEST_P(SytrdKms, ReducedOnTheGpuAndRight) {
  const auto &[kind, n, uplo, vect] = GetParam();
  if (!kOnGpu && n >= 1000) GTEST_SKIP() << "LAPACK against itself";
  check_reduction(kind, n, uplo, vect);
}

INSTANTIATE_TEST_SUITE_P(
    Orders, SytrdKms,
    ::testing::Combine(::testing::Values("kms05", "kms01", "kms09"),
                       ::testing::Values(48, 63, 64, 128, 1000), ::testing::Values('L'),
                       ::testing::Values('N', 'V')),
    [](const ::testing::TestParamInfo<SytrdParam> &info) {
      return std::get<0>(info.param) + "_n" + std::to_string(std::get<1>(info.param)) + "_uplo" +
             std::get<2>(info.param) + "_vect" + std::get<3>(info.param);
    });

// The Givens stage 1's schedules make the same rotations and products in the same order, so T and Q agree
// bit for bit: each panel's tree in one wavefront kernel or level by level (GPUEIG_SYTRD_PANEL),
// and its blocks applied by one kernel for all levels or a kernel a level (GPUEIG_SYTRD_APPLY).
// The orders cover one tile, a short last tile, trees of 2 to 5 levels and an odd tile count.
TEST(SytrdPanels, SchedulesAgree) {
  if (!kOnGpu) GTEST_SKIP() << "the panel schedules are the GPU's";
  ASSERT_EQ(gpueig_set_backend("gpu"), 0);
  setenv("GPUEIG_SYTRD_STAGE1", "givens", 1);  // (the schedules are the Givens stage 1's)
  const char *schedules[][2] = {{"levels", "levels"}, {"auto", "auto"}, {"auto", "levels"}, {"levels", "auto"}};
  for (int n : {70, 97, 200, 517, 1100}) {
    const Vec a0 = zoo::symmetric("random", n, n, 91);
    Vec d[4], e[4], q[4];
    for (int k = 0; k < 4; ++k) {
      SCOPED_TRACE("n=" + std::to_string(n) + " panel=" + schedules[k][0] + " apply=" + schedules[k][1]);
      setenv("GPUEIG_SYTRD_PANEL", schedules[k][0], 1);
      setenv("GPUEIG_SYTRD_APPLY", schedules[k][1], 1);
      Vec a = a0;
      d[k].assign(n, kNaN);
      e[k].assign(n, kNaN);
      q[k].assign(size_t(n) * n, kNaN);
      ASSERT_EQ(gpu_sytrd_givens('V', 'L', n, a.data(), n, d[k].data(), e[k].data(), q[k].data(), n), 0);
      ASSERT_STREQ(gpueig_last_backend(), "gpu");
      if (k == 0) continue;
      EXPECT_TRUE(d[0] == d[k]) << "d differs";
      EXPECT_TRUE(std::equal(e[0].begin(), e[0].begin() + (n - 1), e[k].begin())) << "e differs";
      EXPECT_TRUE(q[0] == q[k]) << "Q differs";
    }
    unsetenv("GPUEIG_SYTRD_PANEL");
    unsetenv("GPUEIG_SYTRD_APPLY");
  }
  unsetenv("GPUEIG_SYTRD_STAGE1");
}

// A NaN or an infinity in triangle UPLO: the GPU method is not used (LAPACK propagates it as it
// does); the other triangle's NaN (see embed above) must not matter.
TEST_F(SytrdTest, NonFiniteGoesToLapack) {
  const int n = 300;
  for (double bad : {kNaN, std::numeric_limits<double>::infinity()})
    for (char uplo : {'U', 'L'}) {
      SCOPED_TRACE(std::string("uplo=") + uplo + " value=" + std::to_string(bad));
      Vec a = embed(zoo::symmetric("random", n, n, 7), n, n, n, kNaN, uplo);
      a[uplo == 'U' ? 17 + 200 * n : 200 + 17 * n] = bad;
      Vec d(n), e(n), q(size_t(n) * n);
      EXPECT_EQ(gpu_sytrd_givens('V', uplo, n, a.data(), n, d.data(), e.data(), q.data(), n), 0);
      EXPECT_STREQ(gpueig_last_backend(), "cpu");
    }
}

// N = 0: INFO 0 and nothing written, for every option.
TEST_F(SytrdTest, EmptyMatrixQuickReturn) {
  for (char uplo : {'U', 'L'})
    for (char vect : {'N', 'V', 'U'}) {
      SCOPED_TRACE(std::string("uplo=") + uplo + " vect=" + vect);
      double a = kPad, d = kPad, e = kPad, q = kPad;
      EXPECT_EQ(gpu_sytrd_givens(vect, uplo, 0, &a, 1, &d, &e, &q, 1), 0);
      EXPECT_STREQ(gpueig_last_backend(), "none");
      EXPECT_EQ(a, kPad);
      EXPECT_EQ(d, kPad);
      EXPECT_EQ(e, kPad);
      EXPECT_EQ(q, kPad);
    }
}

// N = 1: T = A exactly and Q = +-1 (+-Q_in for VECT = 'U'); E has no entry to write.
TEST_F(SytrdTest, OrderOne) {
  for (char uplo : {'U', 'L'})
    for (char vect : {'N', 'V', 'U'}) {
      SCOPED_TRACE(std::string("uplo=") + uplo + " vect=" + vect);
      double a = -2.5, d = kNaN, e = kPad, q = vect == 'U' ? -0.5 : kNaN;
      EXPECT_EQ(gpu_sytrd_givens(vect, uplo, 1, &a, 1, &d, &e, &q, 1), 0);
      EXPECT_EQ(d, -2.5);
      EXPECT_EQ(e, kPad);
      if (vect == 'N') {
        EXPECT_TRUE(std::isnan(q)) << "Q referenced with VECT = 'N'";
      } else {
        EXPECT_EQ(std::fabs(q), vect == 'U' ? 0.5 : 1.0);
      }
    }
}

}  // namespace
