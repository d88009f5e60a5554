// The device-pointer API (gpu_getrf_dev, gpu_getrs_dev, gpu_gesv_dev, gpu_gtsv_dev,
// gpu_gtsv_batch_dev, gpu_sytrd_dev, gpu_syevd_dev, gpu_stebz_dev, gpu_stein_dev,
// gpu_toeplitz_eig_dev). Built twice:
// - with GPUEIG_TEST_DEVICE_MEMORY (label gpu): the arrays in cudaMalloc'd memory of a real GPU,
//   the work on a stream of the test's own;
// - without it (label cpu): host arrays, which the fake device (GPUEIG_FAKE_DEVICE=1, set by
//   CTest for test_device_api_fake_device) treats as its memory, running the same contract with
//   LAPACK; and, in test_device_api_cpu (no device), the synchronous checks and the "no GPU"
//   error.
// Checked: the scalar arguments' INFO before anything else (nothing written), the pointers'
// (NULL, and on a GPU host memory), GPUEIG_ERR_DEVICE without a device, the quick returns'
// device INFO, the factors and solves by LAPACK's ratios (threshold 30) over the general zoo with
// LDA, LDB > N and padding left untouched, DGETRF's INFO for singular matrices with B untouched
// by gesv, and an IPIV entry out of range (device INFO -6, B untouched); the tridiagonal solves
// over the tridiagonal zoo (DGTSV's INFO, DGTT02's ratio) and a mixed batch's INFO encoding; the
// reduction to tridiagonal form over the symmetric zoo (eigenvalues, dsyt21, dort01; A only read)
// and, for a NaN, DSYTRD's own D and E; the symmetric eigenproblem over that zoo (W the host
// call's to the bit, the pairs by dsyt21's and dort01's ratios); bisection and inverse iteration over the tridiagonal zoo
// against the host calls on the same device (to the bit: the same method), their data checks as
// device INFO, and the E(i)^2-overflow recompute.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#ifdef GPUEIG_TEST_DEVICE_MEMORY
#include <cuda_runtime.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <thread>
#endif

#include "gpueig.h"
#include "lapack_ref.hpp"
#include "ratios.hpp"
#include "zoo.hpp"

namespace {

using Vec = std::vector<double>;
constexpr double kPad = 31337.0;

// An array in the memory the device-pointer calls take: device memory on a GPU, else the host's.
template <class T>
class Mem {
 public:
  explicit Mem(const std::vector<T> &host) : n_(host.size()) {
#ifdef GPUEIG_TEST_DEVICE_MEMORY
    EXPECT_EQ(cudaMalloc(&p_, std::max<size_t>(1, n_) * sizeof(T)), cudaSuccess);
    EXPECT_EQ(cudaMemcpy(p_, host.data(), n_ * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
    // A pageable cudaMemcpy may return before its DMA lands, and the calls under test run on a
    // non-blocking stream that does not wait for the legacy stream: without this the upload could
    // overwrite a result (seen on a GPU shared with another process: gesv_dev's INFO read back as
    // the 99 uploaded before the call).
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
#else
    h_ = host;
    h_.resize(std::max<size_t>(1, n_));
    p_ = h_.data();
#endif
  }
  ~Mem() {
#ifdef GPUEIG_TEST_DEVICE_MEMORY
    cudaFree(p_);
#endif
  }
  Mem(const Mem &) = delete;
  Mem &operator=(const Mem &) = delete;
  T *get() { return p_; }
  std::vector<T> host() const {
    std::vector<T> out(n_);
#ifdef GPUEIG_TEST_DEVICE_MEMORY
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_EQ(cudaMemcpy(out.data(), p_, n_ * sizeof(T), cudaMemcpyDeviceToHost), cudaSuccess);
#else
    std::copy_n(h_.data(), n_, out.data());
#endif
    return out;
  }

 private:
  size_t n_;
  T *p_ = nullptr;
#ifndef GPUEIG_TEST_DEVICE_MEMORY
  std::vector<T> h_;
#endif
};

// The test's stream (a stream of its own on a GPU; the fake device ignores it).
void *test_stream() {
#ifdef GPUEIG_TEST_DEVICE_MEMORY
  static cudaStream_t st = [] {
    cudaStream_t s = nullptr;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    return s;
  }();
  return st;
#else
  return nullptr;
#endif
}

bool fake_device() {
  const char *f = std::getenv("GPUEIG_FAKE_DEVICE");
  return f && std::strcmp(f, "1") == 0;
}

// The matrix of a zoo kind, m x n in lda rows, kPad below row m.
Vec padded(const std::string &kind, int m, int n, int lda, uint64_t seed) {
  Vec a = zoo::general(kind, m, n, lda, seed);
  for (int j = 0; j < n; ++j)
    for (int i = m; i < lda; ++i) a[i + size_t(j) * lda] = kPad;
  return a;
}

void expect_padding(const Vec &x, int rows, int ld, int cols, const char *what) {
  for (int j = 0; j < cols; ++j)
    for (int i = rows; i < ld; ++i) ASSERT_EQ(x[i + size_t(j) * ld], kPad) << what << "(" << i << "," << j << ")";
}

// dget01's ratio: ||P L U - A||_1 / (n ||A||_1 eps) for the factors lu (lda) of a (m x n).
double factor_ratio(int m, int n, const Vec &a, const Vec &lu, int lda, const std::vector<int> &ipiv) {
  const int k = std::min(m, n);
  Vec plu(size_t(m) * n, 0.0);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) {
      double s = 0;
      for (int p = 0; p <= std::min({i, j, k - 1}); ++p) {
        const double l = p == i ? 1.0 : lu[i + size_t(p) * lda];
        s += l * lu[p + size_t(j) * lda];
      }
      plu[i + size_t(j) * m] = s;
    }
  for (int i = k - 1; i >= 0; --i)  // P (L U): the interchanges undone, last first
    if (ipiv[i] - 1 != i)
      for (int j = 0; j < n; ++j) std::swap(plu[i + size_t(j) * m], plu[ipiv[i] - 1 + size_t(j) * m]);
  double diff = 0, anorm = 0;
  for (int j = 0; j < n; ++j) {
    double dc = 0, ac = 0;
    for (int i = 0; i < m; ++i) {
      dc += std::fabs(plu[i + size_t(j) * m] - a[i + size_t(j) * lda]);
      ac += std::fabs(a[i + size_t(j) * lda]);
    }
    diff = std::max(diff, dc), anorm = std::max(anorm, ac);
  }
  if (anorm == 0) return diff == 0 ? 0 : INFINITY;
  return diff / (std::max(m, n) * anorm * std::numeric_limits<double>::epsilon());
}

// The worst dget02 ratio of X (ldb) for op(A) X = B.
double solve_ratio(int n, int nrhs, const Vec &a, int lda, const Vec &x, const Vec &b, int ldb, bool trans) {
  Vec op(size_t(n) * n);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) op[i + size_t(j) * n] = trans ? a[j + size_t(i) * lda] : a[i + size_t(j) * lda];
  double worst = 0;
  for (int j = 0; j < nrhs; ++j) {
    const double *xj = x.data() + size_t(j) * ldb, *bj = b.data() + size_t(j) * ldb;
    for (int i = 0; i < n; ++i)
      if (!std::isfinite(xj[i])) return INFINITY;
    worst = std::max(worst, ratios::solve_residual(n, op.data(), n, xj, bj));
  }
  return worst;
}

Vec right_hand_sides(int n, int nrhs, int ldb, uint64_t seed) {
  Vec b(size_t(ldb) * nrhs, kPad);
  const Vec r = zoo::uniform(int64_t(n) * nrhs, -1, 1, seed);
  for (int j = 0; j < nrhs; ++j)
    for (int i = 0; i < n; ++i) b[i + size_t(j) * ldb] = r[i + size_t(j) * n];
  return b;
}

bool have_device() { return gpueig_gpu_available() != 0; }

// The bound on a ratio: 30, but on Wilkinson's growth matrix, where even LAPACK's ratios grow
// with n, 10 times LAPACK's own (factor ratio and solve ratio for TRANS), as test_getrf's.
struct LapackRatios {
  double factor = 0, solve_n = 0, solve_t = 0;
};
LapackRatios lapack_ratios(int n, int nrhs, const Vec &a0, int lda, const Vec &b0, int ldb) {
  Vec lu = a0;
  std::vector<int> piv(n);
  int info = 0;
  dgetrf_(&n, &n, lu.data(), &lda, piv.data(), &info);
  LapackRatios r;
  r.factor = factor_ratio(n, n, a0, lu, lda, piv);
  for (char trans : {'N', 'T'}) {
    Vec x = b0;
    dgetrs_(&trans, &n, &nrhs, lu.data(), &lda, piv.data(), x.data(), &ldb, &info, 1);
    (trans == 'N' ? r.solve_n : r.solve_t) = solve_ratio(n, nrhs, a0, lda, x, b0, ldb, trans == 'T');
  }
  return r;
}
double bound(const std::string &kind, double lapack_ratio) {
  return kind == "wilkinson_growth" ? std::max(ratios::kThreshold, 10 * lapack_ratio) : ratios::kThreshold;
}

// ---- synchronous checks (every build, with or without a device) -------------------------------

TEST(DeviceApi, ScalarArgumentsFirst) {
  int info = 99;
  EXPECT_EQ(gpu_getrf_dev(-1, 2, nullptr, 1, nullptr, &info, nullptr), -1);
  EXPECT_EQ(gpu_getrf_dev(2, -1, nullptr, 2, nullptr, &info, nullptr), -2);
  EXPECT_EQ(gpu_getrf_dev(3, 3, nullptr, 2, nullptr, &info, nullptr), -4);
  EXPECT_STREQ(gpueig_last_backend(), "none");
  EXPECT_EQ(gpu_getrs_dev('X', 2, 1, nullptr, 2, nullptr, nullptr, 2, &info, nullptr), -1);
  EXPECT_EQ(gpu_getrs_dev('N', -1, 1, nullptr, 1, nullptr, nullptr, 1, &info, nullptr), -2);
  EXPECT_EQ(gpu_getrs_dev('t', 2, -1, nullptr, 2, nullptr, nullptr, 2, &info, nullptr), -3);
  EXPECT_EQ(gpu_getrs_dev('C', 3, 1, nullptr, 2, nullptr, nullptr, 3, &info, nullptr), -5);
  EXPECT_EQ(gpu_getrs_dev('n', 3, 1, nullptr, 3, nullptr, nullptr, 2, &info, nullptr), -8);
  EXPECT_EQ(gpu_gesv_dev(-1, 1, nullptr, 1, nullptr, nullptr, 1, &info, nullptr), -1);
  EXPECT_EQ(gpu_gesv_dev(2, -1, nullptr, 2, nullptr, nullptr, 2, &info, nullptr), -2);
  EXPECT_EQ(gpu_gesv_dev(3, 1, nullptr, 2, nullptr, nullptr, 3, &info, nullptr), -4);
  EXPECT_EQ(gpu_gesv_dev(3, 1, nullptr, 3, nullptr, nullptr, 2, &info, nullptr), -7);
  EXPECT_EQ(gpu_gtsv_dev(-1, 1, nullptr, nullptr, nullptr, nullptr, 1, &info, nullptr), -1);
  EXPECT_EQ(gpu_gtsv_dev(2, -1, nullptr, nullptr, nullptr, nullptr, 2, &info, nullptr), -2);
  EXPECT_EQ(gpu_gtsv_dev(3, 1, nullptr, nullptr, nullptr, nullptr, 2, &info, nullptr), -7);
  EXPECT_EQ(gpu_gtsv_batch_dev(-1, 1, nullptr, nullptr, nullptr, nullptr, 1, &info, nullptr), -1);
  EXPECT_EQ(gpu_gtsv_batch_dev(2, -1, nullptr, nullptr, nullptr, nullptr, 2, &info, nullptr), -2);
  EXPECT_EQ(gpu_gtsv_batch_dev(3, 2, nullptr, nullptr, nullptr, nullptr, 2, &info, nullptr), -7);
  EXPECT_EQ(gpu_sytrd_dev('X', 'L', 2, nullptr, 2, nullptr, nullptr, nullptr, 1, &info, nullptr), -1);
  EXPECT_EQ(gpu_sytrd_dev('N', 'Q', 2, nullptr, 2, nullptr, nullptr, nullptr, 1, &info, nullptr), -2);
  EXPECT_EQ(gpu_sytrd_dev('v', 'u', -1, nullptr, 1, nullptr, nullptr, nullptr, 1, &info, nullptr), -3);
  EXPECT_EQ(gpu_sytrd_dev('N', 'L', 3, nullptr, 2, nullptr, nullptr, nullptr, 1, &info, nullptr), -5);
  EXPECT_EQ(gpu_sytrd_dev('V', 'L', 3, nullptr, 3, nullptr, nullptr, nullptr, 2, &info, nullptr), -9);
  EXPECT_EQ(gpu_sytrd_dev('N', 'L', 3, nullptr, 3, nullptr, nullptr, nullptr, 0, &info, nullptr), -9);
  EXPECT_EQ(gpu_syevd_dev('X', 'L', 2, nullptr, 2, nullptr, &info, nullptr), -1);
  EXPECT_EQ(gpu_syevd_dev('N', 'Q', 2, nullptr, 2, nullptr, &info, nullptr), -2);
  EXPECT_EQ(gpu_syevd_dev('v', 'u', -1, nullptr, 1, nullptr, &info, nullptr), -3);
  EXPECT_EQ(gpu_syevd_dev('V', 'L', 3, nullptr, 2, nullptr, &info, nullptr), -5);
  EXPECT_EQ(gpu_syevd_dev('N', 'U', 0, nullptr, 0, nullptr, &info, nullptr), -5);
  int m = 99, ns = 99;
  auto syevx = [&](char jobz, char range, char uplo, int n, int lda, double vl, double vu, int il, int iu, int *mm,
                   int ldz) {
    return gpu_syevx_dev(jobz, range, uplo, n, nullptr, lda, vl, vu, il, iu, 0, mm, nullptr, nullptr, ldz, nullptr,
                         &info, nullptr);
  };
  EXPECT_EQ(syevx('X', 'A', 'L', 2, 2, 0, 0, 0, 0, &m, 2), -1);
  EXPECT_EQ(syevx('N', 'X', 'L', 2, 2, 0, 0, 0, 0, &m, 2), -2);
  EXPECT_EQ(syevx('N', 'A', 'X', 2, 2, 0, 0, 0, 0, &m, 2), -3);
  EXPECT_EQ(syevx('N', 'A', 'L', -1, 1, 0, 0, 0, 0, &m, 1), -4);
  EXPECT_EQ(syevx('N', 'A', 'L', 3, 2, 0, 0, 0, 0, &m, 1), -6);
  EXPECT_EQ(syevx('N', 'V', 'L', 3, 3, 1, 1, 0, 0, &m, 1), -8);
  EXPECT_EQ(syevx('N', 'I', 'L', 3, 3, 0, 0, 0, 1, &m, 1), -9);
  EXPECT_EQ(syevx('N', 'I', 'L', 3, 3, 0, 0, 2, 1, &m, 1), -10);
  EXPECT_EQ(syevx('V', 'A', 'L', 3, 3, 0, 0, 0, 0, &m, 2), -15);
  EXPECT_EQ(syevx('N', 'A', 'L', 3, 3, 0, 0, 0, 0, nullptr, 1), -12);
  EXPECT_EQ(gpu_stebz_dev('X', 'E', 2, 0, 0, 0, 0, 0, nullptr, nullptr, &m, &ns, nullptr, nullptr, nullptr, &info, nullptr), -1);
  EXPECT_EQ(gpu_stebz_dev('A', 'Q', 2, 0, 0, 0, 0, 0, nullptr, nullptr, &m, &ns, nullptr, nullptr, nullptr, &info, nullptr), -2);
  EXPECT_EQ(gpu_stebz_dev('a', 'b', -1, 0, 0, 0, 0, 0, nullptr, nullptr, &m, &ns, nullptr, nullptr, nullptr, &info, nullptr), -3);
  EXPECT_EQ(gpu_stebz_dev('V', 'E', 2, 1, 1, 0, 0, 0, nullptr, nullptr, &m, &ns, nullptr, nullptr, nullptr, &info, nullptr), -5);
  EXPECT_EQ(gpu_stebz_dev('I', 'E', 2, 0, 0, 0, 1, 0, nullptr, nullptr, &m, &ns, nullptr, nullptr, nullptr, &info, nullptr), -6);
  EXPECT_EQ(gpu_stebz_dev('i', 'E', 2, 0, 0, 2, 1, 0, nullptr, nullptr, &m, &ns, nullptr, nullptr, nullptr, &info, nullptr), -7);
  EXPECT_EQ(gpu_stebz_dev('A', 'E', 2, 0, 0, 0, 0, 0, nullptr, nullptr, nullptr, &ns, nullptr, nullptr, nullptr, &info, nullptr), -11);
  EXPECT_EQ(gpu_stebz_dev('A', 'E', 2, 0, 0, 0, 0, 0, nullptr, nullptr, &m, nullptr, nullptr, nullptr, nullptr, &info, nullptr), -12);
  EXPECT_EQ(gpu_stein_dev(-1, nullptr, nullptr, 0, nullptr, nullptr, nullptr, nullptr, 1, nullptr, &info, nullptr), -1);
  EXPECT_EQ(gpu_stein_dev(2, nullptr, nullptr, 3, nullptr, nullptr, nullptr, nullptr, 2, nullptr, &info, nullptr), -4);
  EXPECT_EQ(gpu_stein_dev(3, nullptr, nullptr, 1, nullptr, nullptr, nullptr, nullptr, 2, nullptr, &info, nullptr), -9);
  auto toeplitz = [&](char jobz, char range, int n, double vl, double vu, int il, int iu, int *mm, int ldz) {
    return gpu_toeplitz_eig_dev(jobz, range, n, nullptr, vl, vu, il, iu, 0, mm, nullptr, nullptr, ldz, &info, nullptr);
  };
  EXPECT_EQ(toeplitz('X', 'A', 2, 0, 0, 0, 0, &m, 2), -1);
  EXPECT_EQ(toeplitz('N', 'X', 2, 0, 0, 0, 0, &m, 2), -2);
  EXPECT_EQ(toeplitz('N', 'A', -1, 0, 0, 0, 0, &m, 2), -3);
  EXPECT_EQ(toeplitz('N', 'V', 2, 1, 0, 0, 0, &m, 2), -6);
  EXPECT_EQ(toeplitz('N', 'I', 2, 0, 0, 3, 3, &m, 2), -7);
  EXPECT_EQ(toeplitz('N', 'I', 2, 0, 0, 2, 1, &m, 2), -8);
  EXPECT_EQ(toeplitz('N', 'A', 2, 0, 0, 0, 0, nullptr, 2), -10);
  EXPECT_EQ(toeplitz('V', 'A', 3, 0, 0, 0, 0, &m, 2), -13);
  EXPECT_EQ(info, 99);
  EXPECT_EQ(m, 99);
  EXPECT_EQ(ns, 99);
}

TEST(DeviceApi, NoGpuIsAnError) {
  if (have_device()) GTEST_SKIP() << "a device is usable here";
  int info = 99;
  double a = 1, b = 1;
  int ipiv = 0;
  EXPECT_EQ(gpu_getrf_dev(1, 1, &a, 1, &ipiv, &info, nullptr), GPUEIG_ERR_DEVICE);
  EXPECT_EQ(gpu_getrs_dev('N', 1, 1, &a, 1, &ipiv, &b, 1, &info, nullptr), GPUEIG_ERR_DEVICE);
  EXPECT_EQ(gpu_gesv_dev(1, 1, &a, 1, &ipiv, &b, 1, &info, nullptr), GPUEIG_ERR_DEVICE);
  EXPECT_EQ(gpu_gesv_dev(0, 0, nullptr, 1, nullptr, nullptr, 1, &info, nullptr), GPUEIG_ERR_DEVICE);
  double dl = 0, du = 0;
  EXPECT_EQ(gpu_gtsv_dev(1, 1, &dl, &a, &du, &b, 1, &info, nullptr), GPUEIG_ERR_DEVICE);
  EXPECT_EQ(gpu_gtsv_batch_dev(1, 1, &dl, &a, &du, &b, 1, &info, nullptr), GPUEIG_ERR_DEVICE);
  EXPECT_EQ(gpu_sytrd_dev('N', 'L', 1, &a, 1, &b, &dl, &du, 1, &info, nullptr), GPUEIG_ERR_DEVICE);
  EXPECT_EQ(gpu_syevd_dev('V', 'L', 1, &a, 1, &b, &info, nullptr), GPUEIG_ERR_DEVICE);
  EXPECT_EQ(gpu_syevd_dev('N', 'L', 0, nullptr, 1, nullptr, &info, nullptr), GPUEIG_ERR_DEVICE);
  int mx = 99;
  EXPECT_EQ(gpu_syevx_dev('N', 'A', 'L', 1, &a, 1, 0, 0, 0, 0, 0, &mx, &b, nullptr, 1, nullptr, &info, nullptr),
            GPUEIG_ERR_DEVICE);
  EXPECT_EQ(mx, 99);
  int m = 99, ns = 99, ib = 0, is = 0;
  EXPECT_EQ(gpu_stebz_dev('A', 'E', 1, 0, 0, 0, 0, 0, &a, &dl, &m, &ns, &b, &ib, &is, &info, nullptr),
            GPUEIG_ERR_DEVICE);
  EXPECT_EQ(gpu_stein_dev(1, &a, &dl, 1, &a, &ib, &is, &b, 1, &ipiv, &info, nullptr), GPUEIG_ERR_DEVICE);
  EXPECT_EQ(gpu_toeplitz_eig_dev('N', 'A', 1, &a, 0, 0, 0, 0, 0, &m, &b, nullptr, 1, &info, nullptr),
            GPUEIG_ERR_DEVICE);
  EXPECT_EQ(m, 99);
  EXPECT_STREQ(gpueig_last_backend(), "none");
  EXPECT_EQ(info, 99);
  EXPECT_EQ(a, 1.0);
}

// ---- with a device (the fake one, or a GPU) ---------------------------------------------------

class WithDevice : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!have_device()) GTEST_SKIP() << "no usable device";
  }
};

TEST_F(WithDevice, PointerArguments) {
  Mem<double> a(Vec(4, 1.0)), b(Vec(2, 1.0));
  Mem<int> ipiv(std::vector<int>(2, 1)), info(std::vector<int>{99});
  void *st = test_stream();
  EXPECT_EQ(gpu_getrf_dev(2, 2, nullptr, 2, ipiv.get(), info.get(), st), -3);
  EXPECT_EQ(gpu_getrf_dev(2, 2, a.get(), 2, nullptr, info.get(), st), -5);
  EXPECT_EQ(gpu_getrf_dev(2, 2, a.get(), 2, ipiv.get(), nullptr, st), -6);
  EXPECT_EQ(gpu_getrs_dev('N', 2, 1, a.get(), 2, ipiv.get(), nullptr, 2, info.get(), st), -7);
  EXPECT_EQ(gpu_gesv_dev(2, 1, a.get(), 2, ipiv.get(), b.get(), 2, nullptr, st), -8);
  EXPECT_EQ(gpu_gtsv_dev(2, 1, nullptr, a.get(), a.get(), b.get(), 2, info.get(), st), -3);
  EXPECT_EQ(gpu_gtsv_dev(2, 1, a.get(), nullptr, a.get(), b.get(), 2, info.get(), st), -4);
  EXPECT_EQ(gpu_gtsv_dev(2, 1, a.get(), a.get(), nullptr, b.get(), 2, info.get(), st), -5);
  EXPECT_EQ(gpu_gtsv_dev(2, 1, a.get(), a.get(), a.get(), nullptr, 2, info.get(), st), -6);
  EXPECT_EQ(gpu_gtsv_batch_dev(2, 1, a.get(), a.get(), a.get(), b.get(), 2, nullptr, st), -8);
  EXPECT_EQ(gpu_sytrd_dev('N', 'L', 2, nullptr, 2, b.get(), b.get(), nullptr, 1, info.get(), st), -4);
  EXPECT_EQ(gpu_sytrd_dev('N', 'L', 2, a.get(), 2, nullptr, b.get(), nullptr, 1, info.get(), st), -6);
  EXPECT_EQ(gpu_sytrd_dev('N', 'L', 3, a.get(), 3, b.get(), nullptr, nullptr, 1, info.get(), st), -7);
  EXPECT_EQ(gpu_sytrd_dev('V', 'L', 2, a.get(), 2, b.get(), b.get(), nullptr, 2, info.get(), st), -8);
  EXPECT_EQ(gpu_sytrd_dev('N', 'L', 2, a.get(), 2, b.get(), b.get(), nullptr, 1, nullptr, st), -10);
  EXPECT_EQ(gpu_syevd_dev('V', 'L', 2, nullptr, 2, b.get(), info.get(), st), -4);
  EXPECT_EQ(gpu_syevd_dev('N', 'L', 2, a.get(), 2, nullptr, info.get(), st), -6);
  EXPECT_EQ(gpu_syevd_dev('N', 'L', 2, a.get(), 2, b.get(), nullptr, st), -7);
  {
    int mx = 0;
    Mem<int> ifail(std::vector<int>(2, 0));
    auto syevx = [&](double *aa, double *w, double *z, int *fail, int *inf) {
      return gpu_syevx_dev('V', 'I', 'L', 2, aa, 2, 0, 0, 1, 1, 0, &mx, w, z, 2, fail, inf, st);
    };
    EXPECT_EQ(syevx(nullptr, b.get(), a.get(), ifail.get(), info.get()), -5);
    EXPECT_EQ(syevx(a.get(), nullptr, a.get(), ifail.get(), info.get()), -13);
    EXPECT_EQ(syevx(a.get(), b.get(), nullptr, ifail.get(), info.get()), -14);
    EXPECT_EQ(syevx(a.get(), b.get(), a.get(), nullptr, info.get()), -16);
    EXPECT_EQ(syevx(a.get(), b.get(), a.get(), ifail.get(), nullptr), -17);
  }
  Mem<int> ints(std::vector<int>(2, 1));
  int m = 0, ns = 0;
  auto stebz = [&](const double *d, const double *e, double *w, int *ib, int *is, int *inf) {
    return gpu_stebz_dev('A', 'E', 2, 0, 0, 0, 0, 0, d, e, &m, &ns, w, ib, is, inf, st);
  };
  EXPECT_EQ(stebz(nullptr, b.get(), b.get(), ints.get(), ints.get(), info.get()), -9);
  EXPECT_EQ(stebz(b.get(), nullptr, b.get(), ints.get(), ints.get(), info.get()), -10);
  EXPECT_EQ(stebz(b.get(), b.get(), nullptr, ints.get(), ints.get(), info.get()), -13);
  EXPECT_EQ(stebz(b.get(), b.get(), b.get(), nullptr, ints.get(), info.get()), -14);
  EXPECT_EQ(stebz(b.get(), b.get(), b.get(), ints.get(), nullptr, info.get()), -15);
  EXPECT_EQ(stebz(b.get(), b.get(), b.get(), ints.get(), ints.get(), nullptr), -16);
  auto stein = [&](const double *d, const double *e, const double *w, const int *ib, const int *is, double *z,
                   int *fail, int *inf) { return gpu_stein_dev(2, d, e, 1, w, ib, is, z, 2, fail, inf, st); };
  EXPECT_EQ(stein(nullptr, b.get(), b.get(), ints.get(), ints.get(), a.get(), ints.get(), info.get()), -2);
  EXPECT_EQ(stein(b.get(), nullptr, b.get(), ints.get(), ints.get(), a.get(), ints.get(), info.get()), -3);
  EXPECT_EQ(stein(b.get(), b.get(), nullptr, ints.get(), ints.get(), a.get(), ints.get(), info.get()), -5);
  EXPECT_EQ(stein(b.get(), b.get(), b.get(), nullptr, ints.get(), a.get(), ints.get(), info.get()), -6);
  EXPECT_EQ(stein(b.get(), b.get(), b.get(), ints.get(), nullptr, a.get(), ints.get(), info.get()), -7);
  EXPECT_EQ(stein(b.get(), b.get(), b.get(), ints.get(), ints.get(), nullptr, ints.get(), info.get()), -8);
  EXPECT_EQ(stein(b.get(), b.get(), b.get(), ints.get(), ints.get(), a.get(), nullptr, info.get()), -10);
  EXPECT_EQ(stein(b.get(), b.get(), b.get(), ints.get(), ints.get(), a.get(), ints.get(), nullptr), -11);
  auto toeplitz = [&](char jobz, const double *t, double *w, double *z, int *inf) {
    return gpu_toeplitz_eig_dev(jobz, 'A', 2, t, 0, 0, 0, 0, 0, &m, w, z, 2, inf, st);
  };
  EXPECT_EQ(toeplitz('N', nullptr, b.get(), nullptr, info.get()), -4);
  EXPECT_EQ(toeplitz('N', b.get(), nullptr, nullptr, info.get()), -11);
  EXPECT_EQ(toeplitz('V', b.get(), b.get(), nullptr, info.get()), -12);
  EXPECT_EQ(toeplitz('N', b.get(), b.get(), nullptr, nullptr), -14);
  if (!fake_device()) {  // host memory, pageable and pinned, is not the device's
    Vec host(4, 1.0);
    EXPECT_EQ(gpu_getrf_dev(2, 2, host.data(), 2, ipiv.get(), info.get(), st), -3);
    int host_info = 0;
    EXPECT_EQ(gpu_gesv_dev(2, 1, a.get(), 2, ipiv.get(), b.get(), 2, &host_info, st), -8);
  }
  EXPECT_EQ(info.host()[0], 99);
  EXPECT_EQ(a.host(), Vec(4, 1.0));
}

// gpu_sytrd_dev over the symmetric zoo, both triangles, VECT 'N', 'V' and 'U': A only read, D and
// E (and Q) by LAPACK's ratios (the eigenvalues of T against DSYEVD's of A; A = Q T Q^T and Q
// orthogonal, dsyt21 / dort01), nothing written past N, N-1 or between N and LDQ. A NaN in the
// triangle: the host recompute, so D and E are DSYTRD's to the bit.
TEST_F(WithDevice, SytrdOverTheZoo) {
  void *st = test_stream();
  for (const std::string &kind : zoo::symmetric_kinds())
    for (int n : {1, 2, 33, 200, 700})
      for (char uplo : {'L', 'U'})
        for (char vect : {'N', 'V', 'U'}) {
          if (n == 700 && (kind != "random" || vect == 'U')) continue;
          SCOPED_TRACE(kind + " n=" + std::to_string(n) + " uplo=" + uplo + " vect=" + vect);
          const int lda = n + 2, ldq = vect == 'N' ? 1 : n + 1;
          const Vec full = zoo::symmetric(kind, n, n, 11 * n + 3);
          Vec a0(size_t(lda) * n, kPad);  // triangle uplo of full, the rest padding
          for (int j = 0; j < n; ++j)
            for (int i = 0; i < n; ++i)
              if (uplo == 'L' ? i >= j : i <= j) a0[i + size_t(j) * lda] = full[i + size_t(j) * n];
          const Vec q_in = vect == 'U' ? zoo::orthogonal(n, 5) : Vec();
          Vec q0(size_t(ldq) * n, kPad);
          if (vect == 'U')
            for (int j = 0; j < n; ++j)
              for (int i = 0; i < n; ++i) q0[i + size_t(j) * ldq] = q_in[i + size_t(j) * n];
          Mem<double> a(a0), d(Vec(n + 1, kPad)), e(Vec(n, kPad)), q(q0);
          Mem<int> info(std::vector<int>{99});
          ASSERT_EQ(gpu_sytrd_dev(vect, uplo, n, a.get(), lda, d.get(), e.get(), q.get(), ldq, info.get(), st), 0);
          ASSERT_EQ(info.host()[0], 0);
          EXPECT_EQ(a.host(), a0) << "A written";
          const Vec hd = d.host(), he = e.host(), hq = q.host();
          EXPECT_EQ(hd[n], kPad) << "D written beyond N";
          EXPECT_EQ(he[std::max(n - 1, 0)], kPad) << "E written beyond N-1";
          for (int i = 0; i < n; ++i) ASSERT_TRUE(std::isfinite(hd[i]));
          for (int i = 0; i + 1 < n; ++i) ASSERT_TRUE(std::isfinite(he[i]));
          const Vec dv(hd.begin(), hd.begin() + n), ev(he.begin(), he.begin() + std::max(n - 1, 0));
          Vec afull = full;
          int lwork = -1, liwork = -1, iwork_q = 0, dinfo = 0;
          double wq = 0;
          Vec w(n);
          dsyevd_("N", "L", &n, afull.data(), &n, w.data(), &wq, &lwork, &iwork_q, &liwork, &dinfo, 1, 1);
          lwork = int(wq);
          liwork = std::max(1, iwork_q);
          Vec work(std::max(1, lwork));
          std::vector<int> iwork(liwork);
          dsyevd_("N", "L", &n, afull.data(), &n, w.data(), work.data(), &lwork, iwork.data(), &liwork, &dinfo, 1, 1);
          ASSERT_EQ(dinfo, 0);
          EXPECT_LE(ratios::eigenvalue_distance(ratios::tridiagonal_eigenvalues(dv, ev), w, n,
                                                ratios::norm1(n, n, full.data(), n)),
                    ratios::kThreshold);
          if (vect != 'N') {
            expect_padding(hq, n, ldq, n, "Q");
            Vec qn(size_t(n) * n), target = full;
            for (int j = 0; j < n; ++j)
              for (int i = 0; i < n; ++i) qn[i + size_t(j) * n] = hq[i + size_t(j) * ldq];
            if (vect == 'U') {  // Q_out = Q_in Q: Q_out T Q_out^T = Q_in A Q_in^T
              Vec t1(size_t(n) * n, 0.0);
              for (int j = 0; j < n; ++j)
                for (int k = 0; k < n; ++k)
                  for (int i = 0; i < n; ++i) t1[i + size_t(j) * n] += q_in[i + size_t(k) * n] * full[k + size_t(j) * n];
              std::fill(target.begin(), target.end(), 0.0);
              for (int j = 0; j < n; ++j)
                for (int k = 0; k < n; ++k)
                  for (int i = 0; i < n; ++i) target[i + size_t(j) * n] += t1[i + size_t(k) * n] * q_in[j + size_t(k) * n];
            }
            EXPECT_LE(ratios::tridiagonal_similarity(n, target.data(), n, dv.data(), ev.data(), qn.data(), n),
                      ratios::kThreshold);
            EXPECT_LE(ratios::orthogonality(n, n, qn.data(), n), ratios::kThreshold);
          }
        }
}

TEST_F(WithDevice, SytrdWithNanIsDsytrds) {
  void *st = test_stream();
  const int n = 40, lda = 40;
  Vec a0 = zoo::symmetric("random", n, lda, 9);
  a0[7 + size_t(3) * lda] = std::nan("");  // lower triangle
  Vec ref = a0, rd(n), re(n - 1), tau(n - 1), work(64 * n);
  int lwork = int(work.size()), rinfo = 0;
  dsytrd_("L", &n, ref.data(), &lda, rd.data(), re.data(), tau.data(), work.data(), &lwork, &rinfo, 1);
  Mem<double> a(a0), d(Vec(n, 0.0)), e(Vec(n - 1, 0.0));
  Mem<int> info(std::vector<int>{99});
  ASSERT_EQ(gpu_sytrd_dev('N', 'L', n, a.get(), lda, d.get(), e.get(), nullptr, 1, info.get(), st), 0);
  EXPECT_EQ(info.host()[0], 0);
  const Vec hd = d.host(), he = e.host();
  EXPECT_EQ(std::memcmp(hd.data(), rd.data(), n * sizeof(double)), 0);
  EXPECT_EQ(std::memcmp(he.data(), re.data(), (n - 1) * sizeof(double)), 0);
}

// gpu_syevd_dev over the symmetric zoo, both triangles, JOBZ 'N' and 'V', LDA > N: INFO 0, W the
// host call's (GPU forced) to the bit, and for 'V' the pairs by LAPACK's ratios (dsyt21's
// ||A - Z W Z^T||, dort01's ||Z^T Z - I||) with padding untouched; JOBZ 'N' leaves A unchanged
// (DSYEVD may destroy it; this method does not). A NaN in the triangle: the host recompute, W and
// INFO as the host call's (both LAPACK DSYEVD).
TEST_F(WithDevice, SyevdOverTheZoo) {
  void *st = test_stream();
  ASSERT_EQ(gpueig_set_backend("gpu"), 0);
  for (const std::string &kind : zoo::symmetric_kinds())
    for (int n : {1, 2, 33, 200, 520})
      for (char uplo : {'L', 'U'})
        for (char jobz : {'N', 'V'}) {
          if (n == 520 && kind != "random" && kind != "clustered") continue;
          SCOPED_TRACE(kind + " n=" + std::to_string(n) + " uplo=" + uplo + " jobz=" + jobz);
          const int lda = n + 3;
          const Vec full = zoo::symmetric(kind, n, n, 7 * n + 5);
          Vec a0(size_t(lda) * n, kPad);  // triangle uplo of full, the rest padding
          for (int j = 0; j < n; ++j)
            for (int i = 0; i < n; ++i)
              if (uplo == 'L' ? i >= j : i <= j) a0[i + size_t(j) * lda] = full[i + size_t(j) * n];
          Vec ha = a0, hw(n);
          ASSERT_EQ(gpu_syevd(jobz, uplo, n, ha.data(), lda, hw.data()), 0);
          Mem<double> a(a0), w(Vec(n + 1, kPad));
          Mem<int> info(std::vector<int>{99});
          ASSERT_EQ(gpu_syevd_dev(jobz, uplo, n, a.get(), lda, w.get(), info.get(), st), 0);
          ASSERT_EQ(info.host()[0], 0);
          const Vec dw = w.host(), da = a.host();
          EXPECT_EQ(dw[n], kPad) << "W written beyond N";
          EXPECT_EQ(std::memcmp(dw.data(), hw.data(), n * sizeof(double)), 0) << "W is not the host call's";
          if (jobz == 'N') {
            EXPECT_EQ(da, a0) << "A written for JOBZ 'N'";
            continue;
          }
          expect_padding(da, n, lda, n, "Z");
          const Vec zero(std::max(n - 1, 1), 0.0);
          EXPECT_LE(ratios::tridiagonal_similarity(n, full.data(), n, dw.data(), zero.data(), da.data(), lda),
                    ratios::kThreshold);
          EXPECT_LE(ratios::orthogonality(n, n, da.data(), lda), ratios::kThreshold);
        }
  // NaN: LAPACK on the host for both calls.
  const int n = 30, lda = 32;
  Vec a0 = zoo::symmetric("random", n, lda, 4);
  a0[9 + size_t(2) * lda] = std::nan("");
  Vec ha = a0, hw(n);
  const int hinfo = gpu_syevd('V', 'L', n, ha.data(), lda, hw.data());
  Mem<double> a(a0), w(Vec(n, 0.0));
  Mem<int> info(std::vector<int>{99});
  ASSERT_EQ(gpu_syevd_dev('V', 'L', n, a.get(), lda, w.get(), info.get(), st), 0);
  EXPECT_EQ(info.host()[0], hinfo);
  const Vec dw = w.host();
  EXPECT_EQ(std::memcmp(dw.data(), hw.data(), n * sizeof(double)), 0);
  ASSERT_EQ(gpueig_set_backend("auto"), 0);
}

// gpu_syevx_dev over the symmetric zoo, both triangles, JOBZ 'N' and 'V', RANGE 'A', 'I' (a slice,
// and the whole spectrum) and 'V', LDA > N, LDZ > N: INFO 0, M, W, Z and IFAIL the host call's
// (GPU forced) to the bit, nothing written past M or N; Z's columns by LAPACK's ratios too. A NaN
// in the triangle (the host recompute: the documented NaN answer) and N = 1, as the host call.
TEST_F(WithDevice, SyevxOverTheZoo) {
  void *st = test_stream();
  ASSERT_EQ(gpueig_set_backend("gpu"), 0);
  for (const std::string &kind : zoo::symmetric_kinds())
    for (int n : {1, 2, 33, 200, 520})
      for (char uplo : {'L', 'U'})
        for (char jobz : {'N', 'V'})
          for (char range : {'A', 'I', 'W', 'V'}) {  // ('W': RANGE 'I' over the whole spectrum)
            if (n == 520 && kind != "random") continue;
            SCOPED_TRACE(kind + " n=" + std::to_string(n) + " uplo=" + uplo + " jobz=" + jobz + " range=" + range);
            const int lda = n + 3, ldz = n + 2;
            const Vec full = zoo::symmetric(kind, n, n, 5 * n + 1);
            Vec a0(size_t(lda) * n, kPad);
            for (int j = 0; j < n; ++j)
              for (int i = 0; i < n; ++i)
                if (uplo == 'L' ? i >= j : i <= j) a0[i + size_t(j) * lda] = full[i + size_t(j) * n];
            const char r = range == 'W' ? 'I' : range;
            const int il = range == 'W' ? 1 : 1 + n / 4, iu = range == 'W' ? n : std::max(il, n / 2);
            // (VL, VU]: the middle of the spectrum, by the diagonal's extent
            double lo = full[0], hi = full[0];
            for (int i = 0; i < n; ++i) lo = std::min(lo, full[i * size_t(n + 1)]), hi = std::max(hi, full[i * size_t(n + 1)]);
            double pad = 1e-3 * std::max({hi - lo, std::fabs(lo), std::fabs(hi)});
            if (!(pad > 0)) pad = 1;
            const double vl = lo + 0.25 * (hi - lo) - pad, vu = lo + 0.75 * (hi - lo) + pad;
            Vec ha = a0, hw(n + 1, kPad), hz(size_t(ldz) * n, kPad);
            std::vector<int> hif(n + 1, -7);
            int hm = -1;
            ASSERT_EQ(gpu_syevx(jobz, r, uplo, n, ha.data(), lda, vl, vu, il, iu, 0, &hm, hw.data(), hz.data(), ldz,
                                hif.data()),
                      0);
            Mem<double> a(a0), w(Vec(n + 1, kPad)), z(Vec(size_t(ldz) * n, kPad));
            Mem<int> ifail(std::vector<int>(n + 1, -7)), info(std::vector<int>{99});
            int m = -1;
            ASSERT_EQ(gpu_syevx_dev(jobz, r, uplo, n, a.get(), lda, vl, vu, il, iu, 0, &m, w.get(), z.get(), ldz,
                                    ifail.get(), info.get(), st),
                      0);
            ASSERT_EQ(info.host()[0], 0);
            ASSERT_EQ(m, hm);
            const Vec dw = w.host(), dz = z.host();
            const std::vector<int> dif = ifail.host();
            EXPECT_EQ(std::memcmp(dw.data(), hw.data(), (n + 1) * sizeof(double)), 0) << "W is not the host call's";
            if (jobz == 'N') {
              EXPECT_EQ(dz, Vec(size_t(ldz) * n, kPad)) << "Z written for JOBZ 'N'";
              continue;
            }
            EXPECT_EQ(std::memcmp(dz.data(), hz.data(), dz.size() * sizeof(double)), 0) << "Z is not the host call's";
            EXPECT_EQ(dif, hif) << "IFAIL is not the host call's";
            if (m == 0) continue;
            EXPECT_LE(ratios::orthogonality(n, m, dz.data(), ldz), ratios::kThreshold);
            double worst = 0;  // max_j ||A z_j - w_j z_j||_1 / (n ||A||_1 ulp)
            for (int j = 0; j < m; ++j) {
              double col = 0;
              for (int i = 0; i < n; ++i) {
                double t = -dw[j] * dz[i + size_t(j) * ldz];
                for (int k = 0; k < n; ++k) t += full[i + size_t(k) * n] * dz[k + size_t(j) * ldz];
                col += std::fabs(t);
              }
              worst = std::max(worst, col);
            }
            const double anorm = std::max(ratios::norm1(n, n, full.data(), n), 1e-300);
            EXPECT_LE(worst / (n * anorm * std::numeric_limits<double>::epsilon()), ratios::kThreshold);
          }
  // NaN: the documented NaN answer through the host recompute, as the host call gives it.
  const int n = 30, lda = 32;
  Vec a0 = zoo::symmetric("random", n, lda, 4);
  a0[9 + size_t(2) * lda] = std::nan("");
  Vec ha = a0, hw(n, 0.0), hz(size_t(n) * n, 0.0);
  std::vector<int> hif(n, -7);
  int hm = -1;
  ASSERT_EQ(gpu_syevx('V', 'I', 'L', n, ha.data(), lda, 0, 0, 3, 7, 0, &hm, hw.data(), hz.data(), n, hif.data()), 0);
  Mem<double> a(a0), w(Vec(n, 0.0)), z(Vec(size_t(n) * n, 0.0));
  Mem<int> ifail(std::vector<int>(n, -7)), info(std::vector<int>{99});
  int m = -1;
  ASSERT_EQ(gpu_syevx_dev('V', 'I', 'L', n, a.get(), lda, 0, 0, 3, 7, 0, &m, w.get(), z.get(), n, ifail.get(),
                          info.get(), st),
            0);
  EXPECT_EQ(info.host()[0], 0);
  EXPECT_EQ(m, hm);
  const Vec dw = w.host(), dz = z.host();
  EXPECT_EQ(std::memcmp(dw.data(), hw.data(), n * sizeof(double)), 0);
  EXPECT_EQ(std::memcmp(dz.data(), hz.data(), dz.size() * sizeof(double)), 0);
  EXPECT_EQ(ifail.host(), hif);
  ASSERT_EQ(gpueig_set_backend("auto"), 0);
}

// ---- the tridiagonal eigenproblem's twins --------------------------------------------------------

// gpu_stebz's outputs, W and IBLOCK after M and ISPLIT after NSPLIT poisoned.
struct Bisection {
  int info = -777, m = -777, nsplit = -777;
  Vec w;
  std::vector<int> iblock, isplit;
  explicit Bisection(int n) : w(std::max(n, 1), kPad), iblock(std::max(n, 1), -777), isplit(std::max(n, 1), -777) {}
};

// The host call's answer on the device ("gpu": the device's method at every size), and the device
// call's.
Bisection stebz_host(char range, char order, const zoo::SymTridiagonal &t, double vl, double vu, int il, int iu) {
  const int n = int(t.d.size());
  Bisection r(n);
  gpueig_set_backend("gpu");
  r.info = gpu_stebz(range, order, n, vl, vu, il, iu, 0.0, t.d.data(), t.e.data(), &r.m, &r.nsplit, r.w.data(),
                     r.iblock.data(), r.isplit.data());
  gpueig_set_backend("auto");
  return r;
}
Bisection stebz_device(char range, char order, const zoo::SymTridiagonal &t, double vl, double vu, int il, int iu) {
  const int n = int(t.d.size());
  Bisection r(n);
  Mem<double> d(t.d), e(t.e.empty() ? Vec{0.0} : t.e), w(r.w);
  Mem<int> iblock(r.iblock), isplit(r.isplit), info(std::vector<int>{99});
  EXPECT_EQ(gpu_stebz_dev(range, order, n, vl, vu, il, iu, 0.0, d.get(), e.get(), &r.m, &r.nsplit, w.get(),
                          iblock.get(), isplit.get(), info.get(), test_stream()),
            0);
  r.info = info.host()[0];
  r.w = w.host();
  r.iblock = iblock.host();
  r.isplit = isplit.host();
  EXPECT_EQ(std::memcmp(d.host().data(), t.d.data(), n * sizeof(double)), 0) << "D written";
  return r;
}

void expect_same(const Bisection &got, const Bisection &want) {
  ASSERT_EQ(got.info, want.info);
  ASSERT_EQ(got.m, want.m);
  ASSERT_EQ(got.nsplit, want.nsplit);
  EXPECT_EQ(got.isplit, want.isplit);  // the poisoned tails included: nothing written past NSPLIT
  EXPECT_EQ(got.iblock, want.iblock);
  EXPECT_EQ(std::memcmp(got.w.data(), want.w.data(), got.w.size() * sizeof(double)), 0) << "W differs";
}

// gpu_stebz_dev over the tridiagonal zoo, every RANGE and ORDER: the host call's outputs to the bit
// (the same phases and kernels), nothing written past M or NSPLIT, D and E only read.
TEST_F(WithDevice, StebzOverTheZoo) {
  for (const std::string &kind : zoo::symtridiagonal_kinds())
    for (int n : {1, 2, 57, 400, 3000}) {
      // (3000: the grid phase of a block of order >= 1024; on a GPU only, DSTEBZ takes seconds there)
      if (n == 3000 && (fake_device() || (kind != "random" && kind != "glued_wilkinson"))) continue;
      const zoo::SymTridiagonal t = zoo::symtridiagonal(kind, n, 5 * n + 1);
      const Bisection all = stebz_host('A', 'E', t, 0, 0, 0, 0);
      ASSERT_EQ(all.info, 0);
      const double lo = all.w[n / 4], hi = all.w[(3 * n) / 4];
      for (char order : {'E', 'B'}) {
        SCOPED_TRACE(kind + " n=" + std::to_string(n) + " order=" + order);
        expect_same(stebz_device('A', order, t, 0, 0, 0, 0), stebz_host('A', order, t, 0, 0, 0, 0));
        if (lo < hi)
          expect_same(stebz_device('V', order, t, lo, hi, 0, 0), stebz_host('V', order, t, lo, hi, 0, 0));
        const int il = std::max(1, n / 3), iu = std::max(il, (2 * n) / 3);
        expect_same(stebz_device('I', order, t, 0, 0, il, iu), stebz_host('I', order, t, 0, 0, il, iu));
      }
    }
}

// A NaN in D or an Inf in E: the host call's -9 / -10 as the device INFO, M = NSPLIT = 0, nothing
// else written. Off-diagonal entries whose squares overflow: DSTEBZ on the host copies, as the
// host call answers.
TEST_F(WithDevice, StebzDataChecksAndRecompute) {
  zoo::SymTridiagonal t = zoo::symtridiagonal("random", 30, 3);
  for (int which : {0, 1}) {
    zoo::SymTridiagonal bad = t;
    (which == 0 ? bad.d[7] : bad.e[4]) = which == 0 ? std::nan("") : HUGE_VAL;
    const Bisection r = stebz_device('A', 'E', bad, 0, 0, 0, 0);
    EXPECT_EQ(r.info, which == 0 ? -9 : -10);
    EXPECT_EQ(r.m, 0);
    EXPECT_EQ(r.nsplit, 0);
    EXPECT_EQ(r.w, Vec(30, kPad));
  }
  zoo::SymTridiagonal big = t;
  for (double &e : big.e) e *= 1e160;
  for (double &d : big.d) d *= 1e160;
  expect_same(stebz_device('A', 'B', big, 0, 0, 0, 0), stebz_host('A', 'B', big, 0, 0, 0, 0));
}

// gpu_stein_dev over the tridiagonal zoo, for all eigenvalues and for a slice: the host call's
// vectors (the same method on the same device), IFAIL and INFO; rows N..LDZ-1 of Z untouched.
TEST_F(WithDevice, SteinOverTheZoo) {
  void *st = test_stream();
  for (const std::string &kind : zoo::symtridiagonal_kinds())
    for (int n : {1, 2, 57, 400}) {
      const zoo::SymTridiagonal t = zoo::symtridiagonal(kind, n, 7 * n + 2);
      for (bool slice : {false, true}) {
        SCOPED_TRACE(kind + " n=" + std::to_string(n) + (slice ? " slice" : " all"));
        const int il = slice ? std::max(1, n / 3) : 1, iu = slice ? std::max(il, n / 2) : n;
        const Bisection b = stebz_host('I', 'B', t, 0, 0, il, iu);
        ASSERT_EQ(b.info, 0);
        const int m = b.m, ldz = n + 2;
        Vec zh(size_t(ldz) * m, kPad);
        std::vector<int> fh(m, -1);
        gpueig_set_backend("gpu");
        const int ih = gpu_stein(n, t.d.data(), t.e.data(), m, b.w.data(), b.iblock.data(), b.isplit.data(), zh.data(),
                                 ldz, fh.data());
        gpueig_set_backend("auto");
        Mem<double> d(t.d), e(t.e.empty() ? Vec{0.0} : t.e), w(b.w), z(Vec(size_t(ldz) * m, kPad));
        Mem<int> iblock(b.iblock), isplit(b.isplit), ifail(std::vector<int>(m, -1)), info(std::vector<int>{99});
        ASSERT_EQ(gpu_stein_dev(n, d.get(), e.get(), m, w.get(), iblock.get(), isplit.get(), z.get(), ldz,
                                ifail.get(), info.get(), st),
                  0);
        EXPECT_EQ(info.host()[0], ih);
        EXPECT_EQ(ifail.host(), fh);
        const Vec zd = z.host();
        expect_padding(zd, n, ldz, m, "Z");
        double worst = 0;
        for (size_t i = 0; i < zd.size(); ++i) worst = std::max(worst, std::fabs(zd[i] - zh[i]));
        EXPECT_LE(worst, 1e-13) << "Z differs from the host call's";
      }
    }
}

// The data gpu_stein rejects, as the device INFO (Z and IFAIL unwritten).
TEST_F(WithDevice, SteinDataChecks) {
  void *st = test_stream();
  const zoo::SymTridiagonal t = zoo::symtridiagonal("random", 6, 1);
  struct Case {
    Vec w;
    std::vector<int> iblock, isplit;
    int info;
  };
  const std::vector<Case> cases = {
      {{0.1, std::nan("")}, {1, 1}, {6, 0, 0, 0, 0, 0}, -5},
      {{0.2, 0.1}, {1, 1}, {6, 0, 0, 0, 0, 0}, -5},   // not ascending within the block
      {{0.1, 0.2}, {2, 1}, {3, 6, 0, 0, 0, 0}, -6},   // IBLOCK decreasing
      {{0.1, 0.2}, {1, 7}, {6, 0, 0, 0, 0, 0}, -6},   // IBLOCK(M) > N
      {{0.1, 0.2}, {1, 2}, {4, 3, 0, 0, 0, 0}, -7},   // ISPLIT not increasing
  };
  for (const Case &c : cases) {
    Mem<double> d(t.d), e(t.e), w(c.w), z(Vec(12, kPad));
    Mem<int> iblock(c.iblock), isplit(c.isplit), ifail(std::vector<int>(2, -1)), info(std::vector<int>{99});
    ASSERT_EQ(gpu_stein_dev(6, d.get(), e.get(), 2, w.get(), iblock.get(), isplit.get(), z.get(), 6, ifail.get(),
                            info.get(), st),
              0);
    EXPECT_EQ(info.host()[0], c.info);
    EXPECT_EQ(z.host(), Vec(12, kPad));
    EXPECT_EQ(ifail.host(), std::vector<int>(2, -1));
  }
  zoo::SymTridiagonal bad = t;
  bad.d[2] = HUGE_VAL;
  Mem<double> d(bad.d), e(bad.e), w(Vec{0.1}), z(Vec(6, kPad));
  Mem<int> iblock(std::vector<int>{1}), isplit(std::vector<int>{6, 0, 0, 0, 0, 0}), ifail(std::vector<int>{-1}),
      info(std::vector<int>{99});
  ASSERT_EQ(gpu_stein_dev(6, d.get(), e.get(), 1, w.get(), iblock.get(), isplit.get(), z.get(), 6, ifail.get(),
                          info.get(), st),
            0);
  EXPECT_EQ(info.host()[0], -2);
}

// gpu_toeplitz_eig_dev over the Toeplitz zoo, JOBZ 'N' (RANGE 'A', 'V', 'I') and 'V' ('A', 'I'):
// the host call's M, W (to the bit) and Z (the same method on the same device), T untouched,
// nothing written past M; a NaN in T: device INFO -4, M = 0, W untouched.
TEST_F(WithDevice, ToeplitzOverTheZoo) {
  void *st = test_stream();
  for (const std::string &kind : zoo::toeplitz_kinds())
    for (int n : {1, 2, 33, 300}) {
      const Vec t = zoo::toeplitz(kind, n, 3 * n + 1);
      Vec wall(n);
      int mall = 0;
      gpueig_set_backend("gpu");
      ASSERT_EQ(gpu_toeplitz_eig('N', 'A', n, t.data(), 0, 0, 0, 0, 0, &mall, wall.data(), nullptr, 1), 0);
      gpueig_set_backend("auto");
      const double lo = wall[n / 4] - 1e-3, hi = wall[(3 * n) / 4];
      const int il = std::max(1, n / 3), iu = std::max(il, (2 * n) / 3);
      struct Query {
        char jobz, range;
      };
      for (const Query q : {Query{'N', 'A'}, Query{'N', 'V'}, Query{'N', 'I'}, Query{'V', 'A'}, Query{'V', 'I'}}) {
        if (q.range == 'V' && !(lo < hi)) continue;
        SCOPED_TRACE(kind + " n=" + std::to_string(n) + " jobz=" + q.jobz + " range=" + q.range);
        const int ldz = q.jobz == 'V' ? n + 1 : 1;
        Vec wh(n, kPad), zh(size_t(ldz) * n, kPad);
        int mh = -1;
        gpueig_set_backend("gpu");
        const int ih = gpu_toeplitz_eig(q.jobz, q.range, n, t.data(), lo, hi, il, iu, 0, &mh, wh.data(), zh.data(), ldz);
        gpueig_set_backend("auto");
        Mem<double> dt(t), w(Vec(n, kPad)), z(Vec(size_t(ldz) * n, kPad));
        Mem<int> info(std::vector<int>{99});
        int md = -1;
        ASSERT_EQ(gpu_toeplitz_eig_dev(q.jobz, q.range, n, dt.get(), lo, hi, il, iu, 0, &md, w.get(), z.get(), ldz,
                                       info.get(), st),
                  0);
        EXPECT_EQ(info.host()[0], ih);
        ASSERT_EQ(md, mh);
        const Vec wd = w.host();
        EXPECT_EQ(std::memcmp(wd.data(), wh.data(), n * sizeof(double)), 0) << "W differs from the host call's";
        EXPECT_EQ(dt.host(), t);
        if (q.jobz == 'V') {
          const Vec zd = z.host();
          double worst = 0;
          for (size_t i = 0; i < zd.size(); ++i) worst = std::max(worst, std::fabs(zd[i] - zh[i]));
          EXPECT_LE(worst, 1e-13) << "Z differs from the host call's";  // padding included
        }
      }
    }
  Vec bad = zoo::toeplitz("random", 20, 5);
  bad[3] = std::nan("");
  Mem<double> dt(bad), w(Vec(20, kPad));
  Mem<int> info(std::vector<int>{99});
  int m = -1;
  ASSERT_EQ(gpu_toeplitz_eig_dev('N', 'A', 20, dt.get(), 0, 0, 0, 0, 0, &m, w.get(), nullptr, 1, info.get(), st), 0);
  EXPECT_EQ(info.host()[0], -4);
  EXPECT_EQ(m, 0);
  EXPECT_EQ(w.host(), Vec(20, kPad));
}

// The legacy default stream (NULL: CuPy's and PyTorch's default) orders a call's transfers and
// kernels as any other stream does: the twins on NULL give what they give on the test's stream.
TEST_F(WithDevice, LegacyDefaultStream) {
  const int n = fake_device() ? 600 : 2500;  // (the fake device runs LAPACK: seconds at 2500)
  const zoo::SymTridiagonal t = zoo::symtridiagonal("random", n, 77);
  Mem<double> d(t.d), e(t.e);
  std::vector<Vec> z(2);
  std::vector<Vec> w(2);
  for (int k = 0; k < 2; ++k) {
    void *st = k == 0 ? test_stream() : nullptr;
    Mem<double> dw(Vec(n, kPad)), dz(Vec(size_t(n) * n, kPad));
    Mem<int> ib(std::vector<int>(n, 0)), is(std::vector<int>(n, 0)), fail(std::vector<int>(n, -1)),
        info(std::vector<int>{99}), sinfo(std::vector<int>{99});
    int m = 0, ns = 0;
    ASSERT_EQ(gpu_stebz_dev('A', 'B', n, 0, 0, 0, 0, 0, d.get(), e.get(), &m, &ns, dw.get(), ib.get(), is.get(),
                            info.get(), st),
              0);
    ASSERT_EQ(m, n);
    ASSERT_EQ(gpu_stein_dev(n, d.get(), e.get(), m, dw.get(), ib.get(), is.get(), dz.get(), n, fail.get(), sinfo.get(),
                            st),
              0);
    EXPECT_EQ(info.host()[0], 0);
    EXPECT_EQ(sinfo.host()[0], 0);
    w[k] = dw.host();
    z[k] = dz.host();
  }
  EXPECT_EQ(w[1], w[0]);
  EXPECT_EQ(z[1], z[0]);
  EXPECT_LE(ratios::tridiagonal_residual(n, t.d.data(), t.e.data(), n, w[1].data(), z[1].data(), n),
            ratios::kThreshold);
}

TEST_F(WithDevice, QuickReturnsSetInfo) {
  Mem<int> info(std::vector<int>{99});
  void *st = test_stream();
  ASSERT_EQ(gpu_getrf_dev(0, 5, nullptr, 1, nullptr, info.get(), st), 0);
  EXPECT_EQ(info.host()[0], 0);
  Mem<int> info2(std::vector<int>{99});
  ASSERT_EQ(gpu_getrs_dev('N', 4, 0, nullptr, 4, nullptr, nullptr, 4, info2.get(), st), 0);
  EXPECT_EQ(info2.host()[0], 0);
  Mem<int> info3(std::vector<int>{99});
  ASSERT_EQ(gpu_gesv_dev(0, 3, nullptr, 1, nullptr, nullptr, 1, info3.get(), st), 0);
  EXPECT_EQ(info3.host()[0], 0);
  Mem<int> info4(std::vector<int>{99});
  int m = 99, ns = 99;
  ASSERT_EQ(gpu_stebz_dev('A', 'E', 0, 0, 0, 0, 0, 0, nullptr, nullptr, &m, &ns, nullptr, nullptr, nullptr,
                          info4.get(), st),
            0);
  EXPECT_EQ(info4.host()[0], 0);
  EXPECT_EQ(m, 0);
  EXPECT_EQ(ns, 0);
  Mem<int> info6(std::vector<int>{99});
  ASSERT_EQ(gpu_syevd_dev('V', 'U', 0, nullptr, 1, nullptr, info6.get(), st), 0);
  EXPECT_EQ(info6.host()[0], 0);
  Mem<int> info7(std::vector<int>{99});
  int mx = 99;
  ASSERT_EQ(gpu_syevx_dev('V', 'I', 'U', 0, nullptr, 1, 0, 0, 1, 0, 0, &mx, nullptr, nullptr, 1, nullptr, info7.get(),
                          st),
            0);
  EXPECT_EQ(info7.host()[0], 0);
  EXPECT_EQ(mx, 0);
  Mem<int> info5(std::vector<int>{99});
  ASSERT_EQ(gpu_stein_dev(4, nullptr, nullptr, 0, nullptr, nullptr, nullptr, nullptr, 4, nullptr, info5.get(), st), 0);
  EXPECT_EQ(info5.host()[0], 0);
}

// getrf_dev then getrs_dev (N and T), and gesv_dev, over the zoo: LAPACK's ratios.
TEST_F(WithDevice, FactorAndSolveOverTheZoo) {
  void *st = test_stream();
  for (const std::string &kind : zoo::general_kinds())
    for (int n : {1, 7, 64, 200, 513}) {
      const int lda = n + 3, ldb = n + 2, nrhs = n == 64 ? 5 : 2;
      const Vec a0 = padded(kind, n, n, lda, 7 * n + 1), b0 = right_hand_sides(n, nrhs, ldb, n);
      Mem<double> a(a0), b(b0);
      Mem<int> ipiv(std::vector<int>(n, 0)), info(std::vector<int>{99});
      ASSERT_EQ(gpu_getrf_dev(n, n, a.get(), lda, ipiv.get(), info.get(), st), 0);
      const int getrf_info = info.host()[0];
      const Vec lu = a.host();
      const std::vector<int> piv = ipiv.host();
      expect_padding(lu, n, lda, n, "LU");
      if (getrf_info != 0) {  // (a singular kind: INFO as DGETRF's, checked by the singular test)
        EXPECT_GT(getrf_info, 0) << kind << " n=" << n;
        continue;
      }
      const LapackRatios ref = lapack_ratios(n, nrhs, a0, lda, b0, ldb);
      EXPECT_LE(factor_ratio(n, n, a0, lu, lda, piv), bound(kind, ref.factor)) << kind << " n=" << n;
      for (char trans : {'N', 'T'}) {
        Mem<double> x(b0);
        Mem<int> sinfo(std::vector<int>{99});
        ASSERT_EQ(gpu_getrs_dev(trans, n, nrhs, a.get(), lda, ipiv.get(), x.get(), ldb, sinfo.get(), st), 0);
        EXPECT_EQ(sinfo.host()[0], 0);
        const Vec xs = x.host();
        expect_padding(xs, n, ldb, nrhs, "X");
        EXPECT_LE(solve_ratio(n, nrhs, a0, lda, xs, b0, ldb, trans == 'T'),
                  bound(kind, trans == 'N' ? ref.solve_n : ref.solve_t))
            << kind << " n=" << n << " TRANS=" << trans;
      }
      Mem<double> a2(a0);
      Mem<int> ipiv2(std::vector<int>(n, 0)), info2(std::vector<int>{99});
      ASSERT_EQ(gpu_gesv_dev(n, nrhs, a2.get(), lda, ipiv2.get(), b.get(), ldb, info2.get(), st), 0);
      EXPECT_EQ(info2.host()[0], 0);
      EXPECT_LE(solve_ratio(n, nrhs, a0, lda, b.host(), b0, ldb, false), bound(kind, ref.solve_n))
          << "gesv " << kind << " n=" << n;
      EXPECT_STREQ(gpueig_last_backend(), "gpu");
    }
}

TEST_F(WithDevice, RectangularFactors) {
  void *st = test_stream();
  for (auto [m, n] : {std::pair{300, 200}, std::pair{100, 257}, std::pair{1, 9}, std::pair{9, 1}}) {
    const int lda = m + 1;
    const Vec a0 = padded("random", m, n, lda, m * n);
    Mem<double> a(a0);
    Mem<int> ipiv(std::vector<int>(std::min(m, n), 0)), info(std::vector<int>{99});
    ASSERT_EQ(gpu_getrf_dev(m, n, a.get(), lda, ipiv.get(), info.get(), st), 0);
    ASSERT_EQ(info.host()[0], 0);
    const Vec lu = a.host();
    expect_padding(lu, m, lda, n, "LU");
    EXPECT_LE(factor_ratio(m, n, a0, lu, lda, ipiv.host()), ratios::kThreshold) << m << " x " << n;
  }
}

// A zero column j: DGETRF's INFO = j; gesv_dev leaves B as it was.
TEST_F(WithDevice, SingularLeavesBUntouched) {
  void *st = test_stream();
  for (int n : {5, 100})
    for (int zero_col : {0, n / 2, n - 1}) {
      const int lda = n, ldb = n + 1;
      Vec a0 = padded("random", n, n, lda, n);
      for (int i = 0; i < n; ++i) a0[i + size_t(zero_col) * lda] = 0;
      const Vec b0 = right_hand_sides(n, 3, ldb, 5);
      Mem<double> a(a0), b(b0);
      Mem<int> ipiv(std::vector<int>(n, 0)), info(std::vector<int>{99});
      ASSERT_EQ(gpu_gesv_dev(n, 3, a.get(), lda, ipiv.get(), b.get(), ldb, info.get(), st), 0);
      EXPECT_EQ(info.host()[0], zero_col + 1) << n;
      EXPECT_EQ(b.host(), b0) << "B written with INFO > 0, n=" << n;
    }
}

// An IPIV entry outside 1..N: device INFO -6, B untouched (on the host API: -6 returned).
TEST_F(WithDevice, PivotOutOfRange) {
  void *st = test_stream();
  const int n = 6;
  const Vec a0 = padded("random", n, n, n, 3), b0 = right_hand_sides(n, 2, n, 4);
  for (int bad : {0, n + 1, -3}) {
    std::vector<int> piv(n);
    for (int i = 0; i < n; ++i) piv[i] = i + 1;
    piv[n / 2] = bad;
    Mem<double> a(a0), b(b0);
    Mem<int> ipiv(piv), info(std::vector<int>{99});
    for (char trans : {'N', 'T'}) {
      ASSERT_EQ(gpu_getrs_dev(trans, n, 2, a.get(), n, ipiv.get(), b.get(), n, info.get(), st), 0);
      EXPECT_EQ(info.host()[0], -6) << bad;
      EXPECT_EQ(b.host(), b0) << bad;
    }
  }
}

// ---- the tridiagonal solves --------------------------------------------------------------------

// DGTSV on copies (it overwrites the matrix): its INFO and what it leaves in B (ldb).
int dgtsv_reference(const zoo::Tridiagonal &t, int nrhs, Vec &b, int ldb) {
  const int n = int(t.d.size());
  Vec dl = t.dl, d = t.d, du = t.du;
  Vec scratch(std::max(1, n));
  int info = 0;
  dgtsv_(&n, &nrhs, dl.data(), d.data(), du.data(), nrhs > 0 ? b.data() : scratch.data(), &ldb, &info);
  return info;
}

// The worst DGTT02 ratio of X against B for the matrix t, and DGTSV's own on the same B.
void expect_gtsv_solution(const zoo::Tridiagonal &t, int nrhs, const Vec &b0, const Vec &x, int ldb,
                          const Vec &lapack_x, const std::string &what) {
  const int n = int(t.d.size());
  for (int j = 0; j < nrhs; ++j)
    for (int i = 0; i < n; ++i) ASSERT_TRUE(std::isfinite(x[i + size_t(j) * ldb])) << what;
  const double ours = ratios::gtsv_residual(n, nrhs, t.dl.data(), t.d.data(), t.du.data(), b0.data(), ldb,
                                            x.data(), ldb);
  const double theirs = ratios::gtsv_residual(n, nrhs, t.dl.data(), t.d.data(), t.du.data(), b0.data(), ldb,
                                              lapack_x.data(), ldb);
  EXPECT_LE(ours, ratios::kThreshold) << what;
  EXPECT_LE(ours, 10 * std::max(theirs, 1.0)) << what << ": DGTSV's own ratio " << theirs;
}

// Every kind of the tridiagonal zoo, one tile and several (n > 2048), LDB > N with padding: DGTSV's
// INFO; for a regular system X by DGTT02's ratio; the matrix never written. Kinds the elimination
// without pivoting cannot solve (nondominant, helmholtz, singular) take the device's pivoting
// re-solve.
TEST_F(WithDevice, GtsvOverTheZoo) {
  void *st = test_stream();
  for (const std::string &kind : zoo::tridiagonal_kinds())
    for (int n : {1, 2, 7, 100, 2049, 5000})
      for (int nrhs : {0, 1, 3}) {
        const std::string what = kind + " n=" + std::to_string(n) + " nrhs=" + std::to_string(nrhs);
        const zoo::Tridiagonal t = zoo::tridiagonal(kind, n, n + nrhs);
        const int ldb = n + 2;
        const Vec b0 = right_hand_sides(n, std::max(nrhs, 1), ldb, n * 7 + nrhs);
        Vec ref = b0;
        const int rinfo = dgtsv_reference(t, nrhs, ref, ldb);
        Mem<double> dl(t.dl), d(t.d), du(t.du), b(b0);
        Mem<int> info(std::vector<int>{99});
        ASSERT_EQ(gpu_gtsv_dev(n, nrhs, dl.get(), d.get(), du.get(), b.get(), ldb, info.get(), st), 0) << what;
        EXPECT_EQ(info.host()[0], rinfo) << what;
        const Vec x = b.host();
        EXPECT_EQ(dl.host(), t.dl) << what;
        EXPECT_EQ(d.host(), t.d) << what;
        EXPECT_EQ(du.host(), t.du) << what;
        expect_padding(x, n, ldb, std::max(nrhs, 1), "B");
        if (nrhs == 0) EXPECT_EQ(x, b0) << what << ": B written with NRHS = 0";
        if (nrhs > 0 && rinfo == 0) expect_gtsv_solution(t, nrhs, b0, x, ldb, ref, what);
        // A singular system is solved again by DGTSV's algorithm: B is what DGTSV leaves, bit for bit.
        if (nrhs > 0 && rinfo > 0) EXPECT_EQ(x, ref) << what << ": B is not DGTSV's";
      }
}

// Lone systems past one tile that need pivoting: a zero diagonal (off-diagonals in [0.5, 1.5)),
// nonsingular at even N and singular at odd N, and a random matrix with every seventh diagonal
// entry zero. The elimination without pivoting fails them, so the block's pivoting solve takes
// them (one block of fused_column up to 131072 rows, judge_resolve_one's past it): chunks whose
// interior is singular drop a row (N = 5000 drops it in every chunk, N = 150002 in the last),
// and a singular matrix falls through to DGTSV's algorithm: INFO and B DGTSV's, bit for bit.
TEST_F(WithDevice, GtsvPivotingLone) {
  void *st = test_stream();
  // (up to 4096: a tile of its own, re-solved in its shared memory; then fused_column, then the
  // multi-pass solve with judge_resolve_grid)
  for (int n : {5, 6, 33, 64, 100, 257, 1000, 2048, 2049, 4095, 4096, 5000, 5001, 70000, 150000, 150001, 150002})
    for (bool zero_diagonal : {true, false}) {
      if (!zero_diagonal && n % 2 == 1) continue;
      const std::string what = std::string(zero_diagonal ? "zero diagonal" : "sparse zeros") + " n=" +
                               std::to_string(n);
      zoo::Tridiagonal t = zoo::tridiagonal("nondominant", n, n);
      if (zero_diagonal) {
        t.d.assign(n, 0.0);
        t.dl = zoo::uniform(n - 1, 0.5, 1.5, 3);
        t.du = zoo::uniform(n - 1, 0.5, 1.5, 4);
      } else {
        for (int i = 0; i < n; i += 7) t.d[i] = 0.0;
      }
      const Vec b0 = zoo::uniform(n, -1, 1, 5);
      Vec ref = b0;
      const int rinfo = dgtsv_reference(t, 1, ref, n);
      EXPECT_EQ(rinfo > 0, zero_diagonal && n % 2 == 1) << what;
      Mem<double> dl(t.dl), d(t.d), du(t.du), b(b0);
      Mem<int> info(std::vector<int>{99});
      ASSERT_EQ(gpu_gtsv_dev(n, 1, dl.get(), d.get(), du.get(), b.get(), n, info.get(), st), 0) << what;
      EXPECT_EQ(info.host()[0], rinfo) << what;
      const Vec x = b.host();
      EXPECT_EQ(d.host(), t.d) << what;
      if (rinfo == 0) expect_gtsv_solution(t, 1, b0, x, n, ref, what);
      if (rinfo > 0) EXPECT_EQ(x, ref) << what << ": B is not DGTSV's";
    }
}

// Columns past one tile that need pivoting, several at once (two right-hand sides of a zero
// diagonal; a batch of zero diagonals, one of them singular): each solved again by a block of
// its own (resolve_by_blocks), past 131072 rows by the whole grid one after another
// (resolve_grid_columns), a singular one by DGTSV's algorithm after it: INFO DGTSV's
// (the batch's k*N + i), B DGTSV's for a singular matrix, DGTT02's test otherwise.
TEST_F(WithDevice, GtsvPivotingSeveral) {
  void *st = test_stream();
  auto zero_diagonal = [](int n, uint64_t seed) {
    return zoo::Tridiagonal{"zero diagonal", zoo::uniform(n - 1, 0.5, 1.5, seed), Vec(n, 0.0),
                            zoo::uniform(n - 1, 0.5, 1.5, seed + 1), false};
  };
  for (int n : {3000, 70000, 70001, 150000, 150001}) {
    const std::string what = "nrhs 2, n=" + std::to_string(n);
    const zoo::Tridiagonal t = zero_diagonal(n, 3);
    const Vec b0 = zoo::uniform(2 * int64_t(n), -1, 1, 5);
    Vec ref = b0;
    const int rinfo = dgtsv_reference(t, 2, ref, n);
    EXPECT_EQ(rinfo > 0, n % 2 == 1) << what;
    Mem<double> dl(t.dl), d(t.d), du(t.du), b(b0);
    Mem<int> info(std::vector<int>{99});
    ASSERT_EQ(gpu_gtsv_dev(n, 2, dl.get(), d.get(), du.get(), b.get(), n, info.get(), st), 0) << what;
    EXPECT_EQ(info.host()[0], rinfo) << what;
    const Vec x = b.host();
    if (rinfo == 0) expect_gtsv_solution(t, 2, b0, x, n, ref, what);
    if (rinfo > 0) EXPECT_EQ(x, ref) << what << ": B is not DGTSV's";
  }
  const int n = 5000, batch = 4;
  Vec dl(size_t(n) * batch, 0.0), d(dl), du(dl);
  const Vec b0 = zoo::uniform(int64_t(n) * batch, -1, 1, 9);
  std::vector<zoo::Tridiagonal> sys;
  int expected = 0;
  Vec ref = b0;
  for (int k = 0; k < batch; ++k) {
    const int nk = k == 2 ? n - 1 : n;  // system 2: odd order inside, a zero last row and column
    zoo::Tridiagonal t = zero_diagonal(nk, 10 + k);
    if (nk < n) t.d.push_back(0.0), t.dl.push_back(0.0), t.du.push_back(0.0);
    for (int i = 0; i < n; ++i) {
      const size_t at = size_t(k) * n + i;
      d[at] = t.d[i];
      if (i + 1 < n) dl[at] = t.dl[i], du[at] = t.du[i];
    }
    Vec bk(b0.begin() + size_t(k) * n, b0.begin() + size_t(k + 1) * n);
    const int i = dgtsv_reference(t, 1, bk, n);
    std::copy(bk.begin(), bk.end(), ref.begin() + size_t(k) * n);
    if (i > 0 && expected == 0) expected = k * n + i;
    sys.push_back(t);
  }
  EXPECT_GT(expected, 0) << "system 2 is singular for DGTSV";
  Mem<double> mdl(dl), md(d), mdu(du), mb(b0);
  Mem<int> info(std::vector<int>{99});
  ASSERT_EQ(gpu_gtsv_batch_dev(n, batch, mdl.get(), md.get(), mdu.get(), mb.get(), n, info.get(), st), 0);
  EXPECT_EQ(info.host()[0], expected);
  const Vec x = mb.host();
  for (int k = 0; k < batch; ++k) {
    const Vec xk(x.begin() + size_t(k) * n, x.begin() + size_t(k + 1) * n),
        rk(ref.begin() + size_t(k) * n, ref.begin() + size_t(k + 1) * n),
        bk(b0.begin() + size_t(k) * n, b0.begin() + size_t(k + 1) * n);
    if (k == 2)
      EXPECT_EQ(xk, rk) << "batch system 2: B is not DGTSV's";
    else
      expect_gtsv_solution(sys[k], 1, bk, xk, n, rk, "batch system " + std::to_string(k));
  }
}

// A batch mixing regular, pivoting and singular systems at STRIDE > N: INFO = k*N + i for the
// first singular system k (DGTSV's i), every regular system solved.
TEST_F(WithDevice, GtsvBatchMixed) {
  void *st = test_stream();
  for (int n : {5, 300, 3000}) {
    const int batch = 9, stride = n + 3;
    std::vector<zoo::Tridiagonal> sys;
    for (int k = 0; k < batch; ++k)
      sys.push_back(zoo::tridiagonal(k == 4 || k == 7 ? "singular" : k % 3 == 1 ? "nondominant" : "dominant", n,
                                     100 + k));
    Vec dl(size_t(stride) * batch, kPad), d(dl), du(dl), b0(dl);
    const Vec r = zoo::uniform(int64_t(n) * batch, -1, 1, 77);
    for (int k = 0; k < batch; ++k)
      for (int i = 0; i < n; ++i) {
        const size_t at = size_t(k) * stride + i;
        d[at] = sys[k].d[i];
        b0[at] = r[size_t(k) * n + i];
        if (i + 1 < n) dl[at] = sys[k].dl[i], du[at] = sys[k].du[i];
      }
    int expected = 0;
    std::vector<Vec> refs;
    for (int k = 0; k < batch; ++k) {
      Vec bk(b0.begin() + size_t(k) * stride, b0.begin() + size_t(k) * stride + n);
      const int i = dgtsv_reference(sys[k], 1, bk, n);
      if (i > 0 && expected == 0) expected = k * n + i;
      refs.push_back(bk);
    }
    Mem<double> mdl(dl), md(d), mdu(du), mb(b0);
    Mem<int> info(std::vector<int>{99});
    ASSERT_EQ(gpu_gtsv_batch_dev(n, batch, mdl.get(), md.get(), mdu.get(), mb.get(), stride, info.get(), st), 0);
    EXPECT_EQ(info.host()[0], expected) << n;
    EXPECT_GT(expected, 0) << "the zoo's singular kind is singular for DGTSV";
    const Vec x = mb.host();
    EXPECT_EQ(md.host(), d);
    for (int k = 0; k < batch; ++k) {
      for (int i = n; i < stride; ++i) ASSERT_EQ(x[size_t(k) * stride + i], kPad) << "padding, system " << k;
      const Vec xk(x.begin() + size_t(k) * stride, x.begin() + size_t(k) * stride + n);
      if (k == 4 || k == 7) {  // singular: DGTSV's B, bit for bit
        EXPECT_EQ(xk, refs[k]) << "batch n=" << n << " k=" << k << ": B is not DGTSV's";
        continue;
      }
      const Vec bk(b0.begin() + size_t(k) * stride, b0.begin() + size_t(k) * stride + n);
      expect_gtsv_solution(sys[k], 1, bk, xk, n, refs[k], "batch n=" + std::to_string(n) + " k=" + std::to_string(k));
    }
  }
}

#ifdef GPUEIG_TEST_DEVICE_MEMORY
// Runs work() (device calls queued on `mine`) while another stream of the process is held by a host
// function, released by a watchdog after 20 s: whether `mine` finished its work while the other was
// still held (a call that waits for the whole device, or for that stream, cannot). *ok := work().
bool finishes_while_held(cudaStream_t mine, const std::function<bool()> &work, bool *ok) {
  cudaStream_t held = nullptr;
  EXPECT_EQ(cudaStreamCreateWithFlags(&held, cudaStreamNonBlocking), cudaSuccess);
  std::atomic<bool> release{false}, finished{false};
  auto hold = [](void *p) {
    auto *r = static_cast<std::atomic<bool> *>(p);
    while (!r->load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  };
  EXPECT_EQ(cudaLaunchHostFunc(held, hold, &release), cudaSuccess);
  std::thread watchdog([&] {
    for (int i = 0; i < 2000 && !finished.load(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    release = true;
  });
  *ok = work();
  const bool done_while_held = cudaStreamSynchronize(mine) == cudaSuccess && !release.load();
  finished = true;
  watchdog.join();
  release = true;
  EXPECT_EQ(cudaStreamSynchronize(held), cudaSuccess);
  cudaStreamDestroy(held);
  return done_while_held;
}

// Work queued on another stream is never waited for: a stream held by a host function that blocks
// until released, and gesv_dev (factor, order, solve, gated copy), stebz_dev, stein_dev,
// syevx_dev and syevd_dev 'N' on a second stream must finish while it is held. A device-wide synchronization anywhere in the call would wait for the held
// stream; a watchdog releases it after 20 s so that such a failure ends. Everything the test
// itself does that CUDA serializes across streams (cudaMalloc, a copy on the NULL stream) comes
// before the hold, and a first call on the stream (cuBLAS's and the pool's first allocations for
// it) too: what is checked is a call in steady state.
TEST_F(WithDevice, NoDeviceWideWait) {
  cudaStream_t mine = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&mine, cudaStreamNonBlocking), cudaSuccess);
  const int n = 512, nrhs = 2;
  const Vec a0 = padded("random", n, n, n, 11), b0 = right_hand_sides(n, nrhs, n, 12);
  Mem<double> a_first(a0), b_first(b0), a(a0), b(b0);
  Mem<int> ipiv(std::vector<int>(n, 0)), info(std::vector<int>{99});
  ASSERT_EQ(gpu_gesv_dev(n, nrhs, a_first.get(), n, ipiv.get(), b_first.get(), n, info.get(), mine), 0);
  // Bisection and inverse iteration (which wait for their own stream: the host does their
  // bookkeeping) on a tridiagonal matrix with a cluster solved by divide and conquer.
  const zoo::SymTridiagonal t = zoo::symtridiagonal("glued_wilkinson", 300, 4);
  Mem<double> td(t.d), te(t.e), tw(Vec(300, 0.0)), tz(Vec(300 * 300, 0.0));
  Mem<int> tb(std::vector<int>(300, 0)), ts(std::vector<int>(300, 0)), tf(std::vector<int>(300, 0)),
      tinfo(std::vector<int>{99}), sinfo(std::vector<int>{99});
  int tm = 0, tns = 0;
  auto tridiagonal = [&] {
    return gpu_stebz_dev('A', 'B', 300, 0, 0, 0, 0, 0, td.get(), te.get(), &tm, &tns, tw.get(), tb.get(), ts.get(),
                         tinfo.get(), mine) == 0 &&
           gpu_stein_dev(300, td.get(), te.get(), tm, tw.get(), tb.get(), ts.get(), tz.get(), 300, tf.get(),
                         sinfo.get(), mine) == 0;
  };
  ASSERT_TRUE(tridiagonal());
  // The dense eigensolvers (which wait for their own stream: the checks' verdicts, DSTEBZ's
  // bookkeeping): a few pairs, and all eigenvalues (with Q formed: NoDeviceWideWaitWithQ below).
  const Vec sym = zoo::symmetric("random", 300, 300, 6);
  Mem<double> da_first(sym), da(sym), dw(Vec(300, 0.0)), dz(Vec(300 * 300, 0.0));
  Mem<int> dfail(std::vector<int>(300, 0)), dinfo(std::vector<int>{99}), xinfo(std::vector<int>{99});
  int xm = 0;
  auto dense = [&](double *a_in) {
    return gpu_syevx_dev('V', 'I', 'L', 300, a_in, 300, 0, 0, 1, 7, 0, &xm, dw.get(), dz.get(), 300, dfail.get(),
                         xinfo.get(), mine) == 0 &&
           gpu_syevd_dev('N', 'L', 300, a_in, 300, dw.get(), dinfo.get(), mine) == 0;
  };
  ASSERT_TRUE(dense(da_first.get()));
  ASSERT_EQ(cudaStreamSynchronize(mine), cudaSuccess);

  int r = -1;
  bool tridiagonal_ok = false, dense_ok = false, called = false;
  const bool done_while_held = finishes_while_held(
      mine,
      [&] {
        r = gpu_gesv_dev(n, nrhs, a.get(), n, ipiv.get(), b.get(), n, info.get(), mine);
        tridiagonal_ok = tridiagonal();
        dense_ok = dense(da.get());
        return true;
      },
      &called);
  ASSERT_TRUE(called);
  ASSERT_EQ(r, 0);
  EXPECT_TRUE(tridiagonal_ok);
  EXPECT_TRUE(dense_ok);
  EXPECT_TRUE(done_while_held) << "gpu_gesv_dev, gpu_stebz_dev, gpu_stein_dev, gpu_syevx_dev or gpu_syevd_dev 'N' "
                                  "waited for another stream's work";
  EXPECT_EQ(xm, 7);
  EXPECT_EQ(xinfo.host()[0], 0);
  EXPECT_EQ(dinfo.host()[0], 0);
  EXPECT_EQ(tm, 300);
  EXPECT_EQ(sinfo.host()[0], 0);
  EXPECT_EQ(info.host()[0], 0);
  EXPECT_LE(solve_ratio(n, nrhs, a0, n, b.host(), b0, n, false), ratios::kThreshold);
  cudaStreamDestroy(mine);
}

// The two-stage reduction with Q formed (gpu_sytrd_dev 'V', and so gpu_syevd_dev 'V') forks
// work onto streams beside the call's: those are the thread's, created once. Created per call,
// the work queued on them waited for a host function held on an unrelated stream (H200,
// 2026-11-29: 1 s of a 1-s hold, phase by phase), which this test caught.
TEST_F(WithDevice, NoDeviceWideWaitWithQ) {
  cudaStream_t mine = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&mine, cudaStreamNonBlocking), cudaSuccess);
  const int n = 300;
  const Vec sym = zoo::symmetric("random", n, n, 6);
  Mem<double> a_first(sym), a(sym), w(Vec(n, 0.0)), e(Vec(n, 0.0)), q(Vec(size_t(n) * n, 0.0));
  Mem<int> info(std::vector<int>{99});
  auto with_q = [&](double *a_in) {
    return gpu_sytrd_dev('V', 'L', n, a_in, n, w.get(), e.get(), q.get(), n, info.get(), mine) == 0 &&
           gpu_syevd_dev('V', 'L', n, a_in, n, w.get(), info.get(), mine) == 0;
  };
  ASSERT_TRUE(with_q(a_first.get()));
  ASSERT_EQ(cudaStreamSynchronize(mine), cudaSuccess);
  bool ok = false;
  const bool done_while_held = finishes_while_held(mine, [&] { return with_q(a.get()); }, &ok);
  EXPECT_TRUE(ok);
  EXPECT_TRUE(done_while_held) << "gpu_sytrd_dev 'V' or gpu_syevd_dev 'V' waited for another stream's work";
  cudaStreamDestroy(mine);
}
#endif

}  // namespace
