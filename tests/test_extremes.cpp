// Values near underflow and overflow, through the public API on the backend named by
// GPUEIG_TEST_BACKEND ("cpu" or "gpu"): what include/gpueig.h promises for each routine there.
//   gtsv, getrf, sytrd: no scaling, as LAPACK; the answer has the class of LAPACK's (finite where
//     LAPACK's is finite) and LAPACK's accuracy; a GPU result that overflowed is recomputed.
//   stebz: DSTEBZ's contract at every scale: the same INFO, M, NSPLIT, and the same eigenvalues
//     (DSTEBZ treats |e| below sqrt(SAFMIN) as zero and fails (INFO = 1) where e^2 overflows).
// (gpu_toeplitz_eig scales like DSYEVR: test_toeplitz's ExtremeScales test.)
#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "gpueig.h"
#include "lapack_ref.hpp"
#include "ratios.hpp"
#include "zoo.hpp"

namespace {

bool finite(const std::vector<double> &v) {
  return std::all_of(v.begin(), v.end(), [](double x) { return std::isfinite(x); });
}

class Extremes : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(gpueig_set_backend(GPUEIG_TEST_BACKEND), 0); }
  void TearDown() override { gpueig_set_backend("auto"); }
};

TEST_F(Extremes, GtsvScaledSystems) {
  const int n = 1000;
  const zoo::Tridiagonal t = zoo::tridiagonal("dominant", n, 3);
  const zoo::Vec b0 = zoo::uniform(n, -1, 1, 4);
  for (double s : {1e-300, 1e-200, 1e200, 1e300, DBL_MAX / 16}) {
    SCOPED_TRACE("scale " + std::to_string(s));
    zoo::Vec dl = t.dl, d = t.d, du = t.du, b = b0;
    for (auto *v : {&dl, &d, &du, &b})
      for (double &x : *v) x *= s;  // (sA) x = (sb): x is the same at every scale
    zoo::Vec x = b, rdl = dl, rd = d, rdu = du, rx = b;
    int one = 1, info = 0;
    dgtsv_(&n, &one, rdl.data(), rd.data(), rdu.data(), rx.data(), &n, &info);
    ASSERT_EQ(info, 0);
    ASSERT_EQ(gpu_gtsv_pcr(n, 1, dl.data(), d.data(), du.data(), x.data(), n), 0);
    ASSERT_TRUE(finite(x));
    double worst = 0;
    for (int i = 0; i < n; ++i) worst = std::max(worst, std::fabs(x[i] - rx[i]));
    EXPECT_LE(worst, 1e-12) << "x differs from DGTSV's";
    if (s <= 1e300) {
      EXPECT_LE(ratios::gtsv_residual(n, 1, dl.data(), d.data(), du.data(), b.data(), n, x.data(), n),
                ratios::kThreshold);
    }
  }
}

TEST_F(Extremes, GetrfScaledMatrices) {
  const int n = 200;
  const zoo::Vec a0 = zoo::uniform(static_cast<int64_t>(n) * n, -1, 1, 5);
  for (double s : {1e-300, 1e-200, 1e200, 1e300, 1e306}) {
    SCOPED_TRACE("scale " + std::to_string(s));
    zoo::Vec a = a0;
    for (double &x : a) x *= s;
    zoo::Vec lu = a, ref = a;
    std::vector<int> ipiv(n), ripiv(n);
    int info = 0;
    dgetrf_(&n, &n, ref.data(), &n, ripiv.data(), &info);
    ASSERT_EQ(info, 0);
    ASSERT_EQ(gpu_getrf_crout(n, n, lu.data(), n, ipiv.data()), 0);
    EXPECT_EQ(finite(lu), finite(ref));
    EXPECT_EQ(ipiv, ripiv);
    // The ratio of the matrix divided by s (exactly: s is a power of ten, so compare relative).
    zoo::Vec lu1 = lu;
    for (double &x : lu1) x /= s;
    for (int j = 0; j < n; ++j)
      for (int i = j + 1; i < n; ++i) lu1[i + j * static_cast<size_t>(n)] *= s;  // L is unscaled
    EXPECT_LE(ratios::getrf_residual(n, n, a0.data(), n, lu1.data(), n, ipiv.data()), ratios::kThreshold);
  }
}

TEST_F(Extremes, SytrdScaledMatrices) {
  const int n = 200;
  const zoo::Vec a0 = zoo::symmetric("random", n, n, 6);
  for (double s : {1e-300, 1e-200, 1e200, 1e300, 1e306}) {
    SCOPED_TRACE("scale " + std::to_string(s));
    zoo::Vec a = a0;
    for (double &x : a) x *= s;
    zoo::Vec work = a, d(n), e(n - 1), q(1);
    ASSERT_EQ(gpu_sytrd_givens('N', 'L', n, work.data(), n, d.data(), e.data(), q.data(), 1), 0);
    ASSERT_TRUE(finite(d) && finite(e));
    // The eigenvalues of T, divided by s, against DSYEVD's of A / s.
    for (double &x : d) x /= s;
    for (double &x : e) x /= s;
    int info = 0;
    dsterf_(&n, d.data(), e.data(), &info);
    ASSERT_EQ(info, 0);
    zoo::Vec ref = a0, w(n), work2(1 + 6 * n + 2 * n * n);
    std::vector<int> iwork(3 + 5 * n);
    int lwork = static_cast<int>(work2.size()), liwork = static_cast<int>(iwork.size());
    dsyevd_("N", "L", &n, ref.data(), &n, w.data(), work2.data(), &lwork, iwork.data(), &liwork,
            &info, 1, 1);
    ASSERT_EQ(info, 0);
    EXPECT_LE(ratios::eigenvalue_distance(d, w, n, ratios::norm1(n, n, a0.data(), n)),
              ratios::kThreshold);
  }
}

TEST_F(Extremes, StebzKeepsDstebzsContractAtEveryScale) {
  const int n = 100;
  for (double s : {1e-300, 1e-200, 1e-160, 1e-150, 1e150, 1e154, 1e160, 1e200, 1e300}) {
    SCOPED_TRACE("scale " + std::to_string(s));
    zoo::Vec d(n, 0.5 * s), e(n - 1, -0.25 * s);
    zoo::Vec w(n), rw(n), work(4 * n);
    std::vector<int> iblock(n), isplit(n), riblock(n), risplit(n), iwork(3 * n);
    int m = -1, nsplit = -1, rm = -1, rnsplit = -1, rinfo = -1;
    const double zero = 0;
    const int izero = 0;
    dstebz_("A", "E", &n, &zero, &zero, &izero, &izero, &zero, d.data(), e.data(), &rm, &rnsplit,
            rw.data(), riblock.data(), risplit.data(), work.data(), iwork.data(), &rinfo, 1, 1);
    const int info = gpu_stebz('A', 'E', n, 0, 0, 0, 0, 0.0, d.data(), e.data(), &m, &nsplit,
                               w.data(), iblock.data(), isplit.data());
    EXPECT_EQ(info, rinfo);
    EXPECT_EQ(m, rm);
    EXPECT_EQ(nsplit, rnsplit);
    if (info == 0 && rinfo == 0 && m == rm) {
      rw.resize(rm);
      w.resize(m);
      for (double &x : w) x /= s;
      for (double &x : rw) x /= s;
      EXPECT_LE(ratios::eigenvalue_distance(w, rw, n, 1.0), ratios::kThreshold);
    }
  }
}

}  // namespace

// ---- Defects found by fuzzing (tests/fuzz), kept fixed -----------------------------------------

namespace {
int g_xerbla_calls = 0;
std::string g_xerbla_name;
}  // namespace

// LAPACK's illegal-argument handler, replaced for this program (exported: ENABLE_EXPORTS), so a
// LAPACK call libgpueig makes with an argument LAPACK rejects is seen here (Reference LAPACK's
// own XERBLA would stop the caller's program).
extern "C" void xerbla_(const char *name, const int *, size_t len) {
  ++g_xerbla_calls;
  g_xerbla_name.assign(name, strnlen(name, len));
}

namespace {

// DSTEBZ (RANGE 'I', a Gershgorin interval that overflows, nothing left to discard) writes
// IBLOCK(0), one entry before the array: gpu_stebz must not let it reach the caller's memory.
TEST_F(Extremes, StebzNeverWritesBeforeIblock) {
  const int n = 18;
  const double M = DBL_MAX;
  const std::vector<double> d = {-M,    -M,     -M,    -M,     -7,   -M,    -M,   -1.875, -1.25,
                                 -2.25, -1.125, 0.5,   -0.25,  0.75, 0.125, -0.5, 0.3,    -0.7};
  std::vector<double> e(n - 1);
  for (int i = 0; i < n - 1; ++i) e[i] = ((i * 37) % 19) / 19.0 - 0.5;
  std::vector<int> iblock(n + 1, 12345), isplit(n);
  std::vector<double> w(n);
  int m = -1, nsplit = -1;
  const int info = gpu_stebz('I', 'E', n, 0.125, -1, 6, 9, -2.375, d.data(), e.data(), &m,
                             &nsplit, w.data(), iblock.data() + 1, isplit.data());
  EXPECT_EQ(iblock[0], 12345) << "IBLOCK(0) written";
  EXPECT_GE(info, 0);
}

// JOBZ 'V', RANGE 'V', a huge T and a tiny interval: DSYEVR's own scaling of a half block used to
// collapse VL, VU to one value, and its inner DSTEBZ called XERBLA (argument 5).
TEST_F(Extremes, ToeplitzTinyIntervalOfAHugeMatrixCallsNoXerbla) {
  const int n = 48;
  std::vector<double> t = zoo::uniform(n, -1, 1, 77);
  t[0] = -DBL_MAX;
  t[1] = 0;
  std::vector<double> w(n), z(size_t(n) * n);
  for (char jobz : {'V', 'N'}) {
    int m = -1;
    g_xerbla_calls = 0;
    const int info = gpu_toeplitz_eig(jobz, 'V', n, t.data(), 0, 1.5e-154, 1, 1, -2.875, &m,
                                      w.data(), z.data(), n);
    EXPECT_EQ(info, 0) << "JOBZ " << jobz;
    EXPECT_EQ(g_xerbla_calls, 0) << "JOBZ " << jobz << ": XERBLA called by " << g_xerbla_name;
    EXPECT_GE(m, 0);
  }
}

}  // namespace
