// Every illegal argument of every routine returns its INFO = -i (position in the C signature),
// before any work and with nothing written; quick returns are LAPACK's.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "gpueig.h"
#include "lapack_ref.hpp"

namespace {

constexpr double kPoison = -7.25e300;  // a value no routine would write
constexpr int kIPoison = -123456;
const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

// Buffers large enough for every call below, poisoned, plus a check that nothing changed.
struct Buffers {
  std::vector<double> a, d, e, q, w, z, t, dl, du, b;
  std::vector<int> ipiv, iblock, isplit;
  int m = kIPoison, nsplit = kIPoison;
  explicit Buffers(int n = 8)
      : a(n * n * 2, kPoison), d(n, kPoison), e(n, kPoison), q(n * n * 2, kPoison),
        w(n, kPoison), z(n * n * 2, kPoison), t(n, 1.0), dl(n, kPoison), du(n, kPoison),
        b(n * n * 2, kPoison), ipiv(n, kIPoison), iblock(n, kIPoison), isplit(n, kIPoison) {}
  bool untouched() const {
    auto clean = [](const std::vector<double> &v) {
      for (double x : v)
        if (x != kPoison) return false;
      return true;
    };
    auto iclean = [](const std::vector<int> &v) {
      for (int x : v)
        if (x != kIPoison) return false;
      return true;
    };
    return clean(a) && clean(d) && clean(e) && clean(q) && clean(w) && clean(z) && clean(dl) &&
           clean(du) && clean(b) && iclean(ipiv) && iclean(iblock) && iclean(isplit) &&
           m == kIPoison && nsplit == kIPoison;
  }
};

class Arguments : public ::testing::Test {
 protected:
  void SetUp() override { gpueig_set_backend("auto"); }
};

TEST_F(Arguments, SytrdGivens) {
  struct Case { char vect, uplo; int n, lda, ldq, info; };
  const Case cases[] = {
      {'X', 'U', 4, 4, 4, -1}, {'V', 'X', 4, 4, 4, -2}, {'V', 'U', -1, 4, 4, -3},
      {'V', 'U', 4, 3, 4, -5}, {'V', 'U', 0, 0, 1, -5}, {'V', 'L', 4, 4, 3, -9},
      {'U', 'L', 4, 4, 3, -9}, {'N', 'L', 4, 4, 0, -9}, {'X', 'X', -1, 0, 0, -1},
      {'n', 'u', -1, 4, 4, -3}};
  for (const Case &c : cases) {
    Buffers B;
    EXPECT_EQ(gpu_sytrd_givens(c.vect, c.uplo, c.n, B.a.data(), c.lda, B.d.data(), B.e.data(),
                               B.q.data(), c.ldq),
              c.info)
        << c.vect << c.uplo << " n=" << c.n << " lda=" << c.lda << " ldq=" << c.ldq;
    EXPECT_TRUE(B.untouched());
    EXPECT_STREQ(gpueig_last_backend(), "none");
  }
  Buffers B;  // quick return, lowercase options accepted, LDQ = 1 fine without Q
  EXPECT_EQ(gpu_sytrd_givens('n', 'l', 0, B.a.data(), 1, B.d.data(), B.e.data(), B.q.data(), 1), 0);
  EXPECT_TRUE(B.untouched());
}

TEST_F(Arguments, Stebz) {
  struct Case { char range, order; int n; double vl, vu; int il, iu, info; };
  const Case cases[] = {
      {'X', 'E', 4, 0, 1, 1, 1, -1},   {'A', 'X', 4, 0, 1, 1, 1, -2},
      {'A', 'E', -1, 0, 1, 1, 1, -3},  {'V', 'E', 4, 1, 1, 1, 1, -5},
      {'V', 'E', 4, 2, 1, 1, 1, -5},   {'V', 'E', 0, 2, 1, 1, 1, -5},
      {'V', 'E', 4, kNaN, 1, 1, 1, -5}, {'I', 'E', 4, 0, 0, 0, 1, -6},
      {'I', 'E', 4, 0, 0, 5, 5, -6},   {'I', 'E', 4, 0, 0, 3, 2, -7},
      {'I', 'E', 4, 0, 0, 1, 5, -7},   {'I', 'B', 0, 0, 0, 1, 1, -7},
      {'i', 'b', 0, 0, 0, 2, 0, -6}};
  for (const Case &c : cases) {
    Buffers B;
    std::vector<double> d(8, 1.0), e(8, 0.5);
    EXPECT_EQ(gpu_stebz(c.range, c.order, c.n, c.vl, c.vu, c.il, c.iu, 0.0, d.data(), e.data(),
                        &B.m, &B.nsplit, B.w.data(), B.iblock.data(), B.isplit.data()),
              c.info)
        << c.range << c.order << " n=" << c.n << " il=" << c.il << " iu=" << c.iu;
    EXPECT_TRUE(B.untouched());
  }
  // Non-finite matrix entries (documented deviation): D is argument 9, E argument 10.
  for (double bad : {kNaN, kInf, -kInf}) {
    Buffers B;
    std::vector<double> d(8, 1.0), e(8, 0.5);
    d[3] = bad;
    EXPECT_EQ(gpu_stebz('A', 'E', 8, 0, 0, 0, 0, 0.0, d.data(), e.data(), &B.m, &B.nsplit,
                        B.w.data(), B.iblock.data(), B.isplit.data()),
              -9);
    EXPECT_TRUE(B.untouched());
    d[3] = 1.0;
    e[6] = bad;
    EXPECT_EQ(gpu_stebz('A', 'E', 8, 0, 0, 0, 0, 0.0, d.data(), e.data(), &B.m, &B.nsplit,
                        B.w.data(), B.iblock.data(), B.isplit.data()),
              -10);
    EXPECT_TRUE(B.untouched());
  }
  // E(n) is not part of the matrix: a NaN there is fine. IL = 1, IU = 0 with N = 0 is legal.
  Buffers B;
  std::vector<double> d(3, 1.0), e(3, 0.5);
  e[2] = kNaN;
  EXPECT_EQ(gpu_stebz('A', 'E', 3, 0, 0, 0, 0, 0.0, d.data(), e.data(), &B.m, &B.nsplit,
                      B.w.data(), B.iblock.data(), B.isplit.data()),
            0);
  EXPECT_EQ(B.m, 3);
  EXPECT_EQ(gpu_stebz('I', 'E', 0, 0, 0, 1, 0, 0.0, d.data(), e.data(), &B.m, &B.nsplit,
                      B.w.data(), B.iblock.data(), B.isplit.data()),
            0);
  EXPECT_EQ(B.m, 0);
}

TEST_F(Arguments, GtsvPcr) {
  struct Case { int n, nrhs, ldb, info; };
  const Case cases[] = {{-1, 1, 1, -1}, {4, -1, 4, -2}, {4, 1, 3, -7}, {0, 1, 0, -7},
                        {-1, -1, 0, -1}, {4, -1, 0, -2}};
  for (const Case &c : cases) {
    Buffers B;
    EXPECT_EQ(gpu_gtsv_pcr(c.n, c.nrhs, B.dl.data(), B.d.data(), B.du.data(), B.b.data(), c.ldb),
              c.info)
        << "n=" << c.n << " nrhs=" << c.nrhs << " ldb=" << c.ldb;
    EXPECT_TRUE(B.untouched());
  }
  Buffers B;  // quick returns
  EXPECT_EQ(gpu_gtsv_pcr(0, 3, B.dl.data(), B.d.data(), B.du.data(), B.b.data(), 1), 0);
  EXPECT_EQ(gpu_gtsv_pcr(4, 0, B.dl.data(), B.d.data(), B.du.data(), B.b.data(), 4), 0);
  EXPECT_TRUE(B.untouched());
}

// NRHS = 0 is no quick return for DGTSV: it still factors the matrix and reports an exactly
// singular one. The same INFO here, on either backend, and B (which may have no column) untouched.
TEST_F(Arguments, GtsvPcrNoRightHandSideStillReportsSingularity) {
  for (const char *backend : {"cpu", "gpu", "auto"}) {
    gpueig_set_backend(backend);
    for (int n : {1, 3, 7}) {
      std::vector<double> dl(n, 0.0), d(n, 1.0), du(n, 0.0);
      d[n / 2] = 0;  // U(n/2+1, n/2+1) = 0 in DGTSV's elimination
      auto dl2 = dl, d2 = d, du2 = du;
      std::vector<double> scratch(n, 0.0);
      int zero = 0, info = kIPoison;
      dgtsv_(&n, &zero, dl2.data(), d2.data(), du2.data(), scratch.data(), &n, &info);
      ASSERT_EQ(info, n / 2 + 1);
      double b = kPoison;
      EXPECT_EQ(gpu_gtsv_pcr(n, 0, dl.data(), d.data(), du.data(), &b, n), info)
          << "n=" << n << " backend " << backend;
      EXPECT_EQ(b, kPoison);
      d[n / 2] = 2;  // nonsingular: INFO 0
      EXPECT_EQ(gpu_gtsv_pcr(n, 0, dl.data(), d.data(), du.data(), &b, n), 0);
      EXPECT_EQ(b, kPoison);
    }
  }
  gpueig_set_backend("auto");
}

TEST_F(Arguments, GtsvPcrBatch) {
  struct Case { int n, batch, stride, info; };
  const Case cases[] = {{-1, 1, 1, -1}, {4, -1, 4, -2}, {4, 1, 3, -7}, {0, 1, 0, -7},
                        {-1, -1, 0, -1}, {4, -1, 0, -2}, {2, 2, 1, -7}};
  for (const Case &c : cases) {
    Buffers B;
    EXPECT_EQ(gpu_gtsv_pcr_batch(c.n, c.batch, B.dl.data(), B.d.data(), B.du.data(), B.b.data(),
                                 c.stride),
              c.info)
        << "n=" << c.n << " batch=" << c.batch << " stride=" << c.stride;
    EXPECT_TRUE(B.untouched());
  }
  Buffers B;  // quick returns
  EXPECT_EQ(gpu_gtsv_pcr_batch(0, 3, B.dl.data(), B.d.data(), B.du.data(), B.b.data(), 1), 0);
  EXPECT_EQ(gpu_gtsv_pcr_batch(4, 0, B.dl.data(), B.d.data(), B.du.data(), B.b.data(), 4), 0);
  EXPECT_TRUE(B.untouched());
}

TEST_F(Arguments, GetrfCrout) {
  struct Case { int m, n, lda, info; };
  const Case cases[] = {{-1, 4, 4, -1}, {4, -1, 4, -2}, {4, 4, 3, -4}, {0, 4, 0, -4},
                        {-1, -1, 0, -1}, {5, 2, 4, -4}};
  for (const Case &c : cases) {
    Buffers B;
    EXPECT_EQ(gpu_getrf_crout(c.m, c.n, B.a.data(), c.lda, B.ipiv.data()), c.info)
        << "m=" << c.m << " n=" << c.n << " lda=" << c.lda;
    EXPECT_TRUE(B.untouched());
  }
  Buffers B;
  EXPECT_EQ(gpu_getrf_crout(0, 4, B.a.data(), 1, B.ipiv.data()), 0);
  EXPECT_EQ(gpu_getrf_crout(4, 0, B.a.data(), 4, B.ipiv.data()), 0);
  EXPECT_TRUE(B.untouched());
}

TEST_F(Arguments, GesvCrout) {
  struct Case { int n, nrhs, lda, ldb, info; };
  const Case cases[] = {{-1, 1, 4, 4, -1}, {4, -1, 4, 4, -2}, {4, 1, 3, 4, -4},
                        {4, 1, 4, 3, -7}, {0, 1, 0, 1, -4},  {0, 1, 1, 0, -7},
                        {-1, -1, 0, 0, -1}, {4, -2, 2, 2, -2}};
  for (const Case &c : cases) {
    Buffers B;
    EXPECT_EQ(gpu_gesv_crout(c.n, c.nrhs, B.a.data(), c.lda, B.ipiv.data(), B.b.data(), c.ldb),
              c.info)
        << "n=" << c.n << " nrhs=" << c.nrhs << " lda=" << c.lda << " ldb=" << c.ldb;
    EXPECT_TRUE(B.untouched());
  }
  Buffers B;
  EXPECT_EQ(gpu_gesv_crout(0, 3, B.a.data(), 1, B.ipiv.data(), B.b.data(), 1), 0);
  EXPECT_TRUE(B.untouched());
}

TEST_F(Arguments, GetrsCrout) {
  struct Case { char trans; int n, nrhs, lda, ldb, info; };
  const Case cases[] = {{'X', 4, 1, 4, 4, -1}, {'N', -1, 1, 4, 4, -2}, {'T', 4, -1, 4, 4, -3},
                        {'C', 4, 1, 3, 4, -5}, {'n', 4, 1, 4, 3, -8},  {'N', 0, 1, 0, 1, -5},
                        {'X', -1, -1, 0, 0, -1}, {'N', 4, 1, 4, 4, -6}};  // IPIV poisoned
  for (const Case &c : cases) {
    Buffers B;
    const std::vector<double> a = B.a;
    EXPECT_EQ(gpu_getrs_crout(c.trans, c.n, c.nrhs, a.data(), c.lda, B.ipiv.data(), B.b.data(),
                              c.ldb),
              c.info)
        << "trans=" << c.trans << " n=" << c.n << " nrhs=" << c.nrhs << " lda=" << c.lda
        << " ldb=" << c.ldb;
    EXPECT_TRUE(B.untouched());
  }
  Buffers B;
  EXPECT_EQ(gpu_getrs_crout('N', 0, 3, B.a.data(), 1, B.ipiv.data(), B.b.data(), 1), 0);
  EXPECT_EQ(gpu_getrs_crout('T', 4, 0, B.a.data(), 4, B.ipiv.data(), B.b.data(), 4), 0);
  EXPECT_TRUE(B.untouched());
}

TEST_F(Arguments, ToeplitzEig) {
  struct Case { char jobz, range; int n; double vl, vu; int il, iu, ldz, info; };
  const Case cases[] = {
      {'X', 'A', 4, 0, 1, 1, 1, 4, -1},  {'N', 'X', 4, 0, 1, 1, 1, 4, -2},
      {'N', 'A', -1, 0, 1, 1, 1, 4, -3}, {'N', 'V', 4, 1, 1, 1, 1, 4, -6},
      {'N', 'V', 4, 1, 0, 1, 1, 4, -6},  {'N', 'I', 4, 0, 0, 0, 1, 4, -7},
      {'N', 'I', 4, 0, 0, 5, 5, 4, -7},  {'N', 'I', 4, 0, 0, 2, 1, 4, -8},
      {'N', 'I', 4, 0, 0, 1, 5, 4, -8},  {'N', 'A', 4, 0, 0, 1, 1, 0, -13},
      {'V', 'A', 4, 0, 0, 1, 1, 3, -13}, {'v', 'i', 4, 0, 0, 1, 9, 4, -8},
      // A NaN bound is rejected (documented: DSYEVR would bisect with it).
      {'N', 'V', 4, kNaN, 1, 1, 1, 4, -6}, {'N', 'V', 4, 0, kNaN, 1, 1, 4, -6}};
  for (const Case &c : cases) {
    Buffers B;
    EXPECT_EQ(gpu_toeplitz_eig(c.jobz, c.range, c.n, B.t.data(), c.vl, c.vu, c.il, c.iu, 0.0,
                               &B.m, B.w.data(), B.z.data(), c.ldz),
              c.info)
        << c.jobz << c.range << " n=" << c.n << " il=" << c.il << " iu=" << c.iu;
    EXPECT_TRUE(B.untouched());
  }
  for (double bad : {kNaN, kInf}) {
    Buffers B;
    B.t[2] = bad;
    EXPECT_EQ(gpu_toeplitz_eig('N', 'A', 4, B.t.data(), 0, 0, 0, 0, 0.0, &B.m, B.w.data(),
                               B.z.data(), 1),
              -4);
    EXPECT_TRUE(B.untouched());
  }
  // DSYEVR does not check VL < VU when N = 0.
  Buffers B;
  EXPECT_EQ(gpu_toeplitz_eig('N', 'V', 0, B.t.data(), 1, 0, 0, 0, 0.0, &B.m, B.w.data(),
                             B.z.data(), 1),
            0);
  EXPECT_EQ(B.m, 0);
}

}  // namespace
