// The divide-and-conquer phases (src/stedc_phases.hpp, hidden in libgpueig), run on the host
// (test_stedc_phases) or on the device (test_stedc_gpu: cuda/stedc.hpp, GPUEIG_STEDC_DEVICE)
// over the symmetric tridiagonal zoo: LAPACK's test ratios for the eigenvectors
// (||T Z - Z L|| / (n ||T|| ulp) and ||Z^T Z - I|| / (n ulp), threshold 30) and the eigenvalues
// against DSTERF's; and, on the host, the phases one by one where their contract can be checked
// alone.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "lapack_ref.hpp"
#include "ratios.hpp"
#include "stedc_phases.hpp"
#include "zoo.hpp"
#ifdef GPUEIG_STEDC_DEVICE
#include <cuda_runtime.h>

#include "cublas_loader.hpp"
#include "stedc.hpp"
#endif

namespace {

namespace ph = gpueig::stedc_phases;

void gemm(int64_t m, int64_t n, int64_t k, const double *a, int64_t lda, const double *b,
          int64_t ldb, double *c, int64_t ldc) {
  const int mi = static_cast<int>(m), ni = static_cast<int>(n), ki = static_cast<int>(k);
  const int la = static_cast<int>(lda), lb = static_cast<int>(ldb), lc = static_cast<int>(ldc);
  const double one = 1, zero = 0;
  dgemm_("N", "N", &mi, &ni, &ki, &one, a, &la, b, &lb, &zero, c, &lc, 1, 1);
}

double tnorm1(const std::vector<double> &d, const std::vector<double> &e) {
  const size_t n = d.size();
  double worst = 0;
  for (size_t j = 0; j < n; ++j)
    worst = std::max(worst, std::fabs(d[j]) + (j > 0 ? std::fabs(e[j - 1]) : 0) + (j + 1 < n ? std::fabs(e[j]) : 0));
  return worst;
}

double residual(const std::vector<double> &d, const std::vector<double> &e,
                const std::vector<double> &w, const std::vector<double> &z, int64_t ldz) {
  return ratios::tridiagonal_residual(int64_t(d.size()), d.data(), e.data(), int64_t(d.size()), w.data(),
                                      z.data(), ldz);
}

double orthogonality(int64_t n, const std::vector<double> &z, int64_t ldz) {
  return ratios::orthogonality_blas(n, n, z.data(), ldz);
}

struct Result {
  int info;
  double res, orth, dist;
};

#ifdef GPUEIG_STEDC_DEVICE
// The device run: T uploaded, stedc_device, eigenpairs downloaded. info -1000 for a failed call.
int solve_on_device(int64_t n, double *w, const double *e, double *z, int64_t ldz) {
  namespace g = gpueig::gpu;
  static cublasHandle_t blas = [] {
    cublasHandle_t h = nullptr;
    const g::CublasApi *api = g::cublas_api(nullptr);
    if (api) api->create(&h);
    return h;
  }();
  if (!blas) return -1000;
  double *dd = nullptr, *de = nullptr, *dz = nullptr;
  void *work = nullptr;
  const size_t nz = size_t(ldz) * size_t(n);
  int info = -1000;
  if (cudaMalloc(&dd, n * sizeof(double)) == cudaSuccess &&
      cudaMalloc(&de, std::max<int64_t>(1, n) * sizeof(double)) == cudaSuccess &&
      cudaMalloc(&dz, nz * sizeof(double)) == cudaSuccess &&
      cudaMalloc(&work, g::stedc_device_bytes(n)) == cudaSuccess) {
    cudaMemcpy(dd, w, n * sizeof(double), cudaMemcpyHostToDevice);
    if (n > 1) cudaMemcpy(de, e, (n - 1) * sizeof(double), cudaMemcpyHostToDevice);
    cudaMemset(dz, 0xff, nz * sizeof(double));  // NaN outside z's n x n block: must stay unread
    int status = 0;
    if (g::stedc_device(blas, nullptr, n, dd, de, dz, ldz, work, &status) && status == 0) {
      cudaMemcpy(w, dd, n * sizeof(double), cudaMemcpyDeviceToHost);
      cudaMemcpy(z, dz, nz * sizeof(double), cudaMemcpyDeviceToHost);
      info = cudaDeviceSynchronize() == cudaSuccess ? 0 : -1000;
    } else {
      info = status != 0 ? status : -1000;
    }
  }
  cudaFree(dd);
  cudaFree(de);
  cudaFree(dz);
  cudaFree(work);
  return info;
}
#endif

Result run(const std::vector<double> &d, const std::vector<double> &e, int64_t ldz) {
  const int64_t n = static_cast<int64_t>(d.size());
  std::vector<double> w = d, z(std::max<int64_t>(1, ldz * n), -7.0);
  Result r{};
#ifdef GPUEIG_STEDC_DEVICE
  r.info = solve_on_device(n, w.data(), e.data(), z.data(), ldz);
#else
  r.info = ph::solve(n, w.data(), e.data(), z.data(), ldz, gemm);
#endif
  if (r.info != 0) return r;
  r.res = residual(d, e, w, z, ldz);
  r.orth = orthogonality(n, z, ldz);
  const std::vector<double> ref = ratios::tridiagonal_eigenvalues(d, e);
  r.dist = ratios::eigenvalue_distance(w, ref, n, tnorm1(d, e));
  return r;
}

class Zoo : public ::testing::TestWithParam<std::tuple<std::string, int>> {};

TEST_P(Zoo, RatiosWithinThreshold) {
  const auto [kind, n] = GetParam();
  const zoo::SymTridiagonal t = zoo::symtridiagonal(kind, n);
  const Result r = run(t.d, t.e, n + 3);
  ASSERT_EQ(r.info, 0);
  EXPECT_LE(r.res, ratios::kThreshold) << kind << " n=" << n;
  EXPECT_LE(r.orth, ratios::kThreshold) << kind << " n=" << n;
  EXPECT_LE(r.dist, ratios::kThreshold) << kind << " n=" << n;
}

std::vector<int> sizes() {
  std::vector<int> s;
  for (int n : zoo::tridiagonal_sizes())
#ifdef GPUEIG_STEDC_DEVICE
    s.push_back(n);  // up to 4097: the device's products are fast
#else
    if (n <= 1100) s.push_back(n);
#endif
  return s;
}

INSTANTIATE_TEST_SUITE_P(Stedc, Zoo,
                         ::testing::Combine(::testing::ValuesIn(zoo::symtridiagonal_kinds()),
                                            ::testing::ValuesIn(sizes())),
                         [](const auto &info) {
                           return std::get<0>(info.param) + "_" + std::to_string(std::get<1>(info.param));
                         });

// Matrices that stress the deflation and the secular equation: many equal diagonal entries with
// tiny couplings (almost everything deflates by rotation), a rank-one update of the identity
// (the identity's repeated eigenvalue), and random matrices with graded entries.
TEST(Stedc, DeflationHeavy) {
  for (int n : {33, 64, 100, 257, 600}) {
    std::vector<double> d(n, 1.0), e(n - 1);
    std::mt19937_64 g(n);
    std::uniform_real_distribution<double> u(-1, 1);
    for (auto &x : e) x = 1e-10 * u(g);
    const Result r = run(d, e, n);
    ASSERT_EQ(r.info, 0) << n;
    EXPECT_LE(r.res, ratios::kThreshold) << n;
    EXPECT_LE(r.orth, ratios::kThreshold) << n;
    EXPECT_LE(r.dist, ratios::kThreshold) << n;
  }
}

// A subnormal coupling beside a zero diagonal entry (fuzz_shim, 2026-11-26: d(1) = 0, e(1) =
// -5.5e-310 gave NaN eigenpairs): in a leaf, at a cut between leaves, and with zeros on both
// sides.
TEST(Stedc, SubnormalCouplingBesideZero) {
  for (int n : {8, 32, 33, 100, 600})
    for (int at : {0, n / 2 - 1, n - 2}) {
      std::vector<double> d(n), e(n - 1);
      std::mt19937_64 g(n + at);
      std::uniform_real_distribution<double> u(-1, 1);
      for (auto &x : d) x = u(g);
      for (auto &x : e) x = u(g);
      d[at] = 0;
      e[at] = -5.5e-310;
      if (at == n / 2 - 1) d[at + 1] = 0;
      const Result r = run(d, e, n);
      ASSERT_EQ(r.info, 0) << n << " at " << at;
      EXPECT_LE(r.res, ratios::kThreshold) << n << " at " << at;
      EXPECT_LE(r.orth, ratios::kThreshold) << n << " at " << at;
      EXPECT_LE(r.dist, ratios::kThreshold) << n << " at " << at;
    }
}

TEST(Stedc, ClementAndGraded) {
  for (int n : {40, 129, 500}) {
    std::vector<double> d(n, 0.0), e(n - 1);
    for (int i = 0; i + 1 < n; ++i) e[i] = std::sqrt(double(i + 1) * (n - 1 - i));  // Clement: integer spectrum
    Result r = run(d, e, n);
    ASSERT_EQ(r.info, 0);
    EXPECT_LE(r.res, ratios::kThreshold) << "clement " << n;
    EXPECT_LE(r.orth, ratios::kThreshold) << "clement " << n;
    EXPECT_LE(r.dist, ratios::kThreshold) << "clement " << n;
    for (int i = 0; i < n; ++i) d[i] = std::pow(10.0, -12.0 * i / n);
    for (int i = 0; i + 1 < n; ++i) e[i] = 0.5 * std::pow(10.0, -12.0 * (i + 0.5) / n);
    r = run(d, e, n);
    ASSERT_EQ(r.info, 0);
    EXPECT_LE(r.res, ratios::kThreshold) << "graded " << n;
    EXPECT_LE(r.orth, ratios::kThreshold) << "graded " << n;
    EXPECT_LE(r.dist, ratios::kThreshold) << "graded " << n;
  }
}

#ifndef GPUEIG_STEDC_DEVICE
// leaf_ql alone: eigenpairs of small tridiagonals, ascending.
TEST(StedcPhases, LeafQl) {
  for (int m : {1, 2, 3, 7, 16, 32}) {
    const zoo::SymTridiagonal t = zoo::symtridiagonal("random", m, 3);
    std::vector<double> d = t.d, e(m), z(m * m, 0.0);
    for (int i = 0; i + 1 < m; ++i) e[i] = t.e[i];
    for (int i = 0; i < m; ++i) z[i + i * m] = 1;
    ASSERT_EQ(ph::leaf_ql(m, d.data(), e.data(), z.data(), m, ph::SerialTeam{}), 0);
    EXPECT_TRUE(std::is_sorted(d.begin(), d.end()));
    EXPECT_LE(residual(t.d, t.e, d, z, m), ratios::kThreshold) << m;
    EXPECT_LE(orthogonality(m, z, m), ratios::kThreshold) << m;
  }
}

// secular_root alone: each root strictly between its poles, f there zero to working accuracy,
// the differences it returns those of the root.
TEST(StedcPhases, SecularRoots) {
  std::mt19937_64 g(7);
  std::uniform_real_distribution<double> u(0, 1);
  for (int k : {1, 2, 5, 40, 300}) {
    std::vector<double> d(k), z(k), delta(k);
    double x = -1;
    for (int j = 0; j < k; ++j) d[j] = x += 1e-3 + u(g) * (j % 7 == 0 ? 1e-9 : 0.05);
    double nz = 0;
    for (int j = 0; j < k; ++j) nz += (z[j] = (j % 5 == 0 ? 1e-6 : 1) * (u(g) + 0.1)) * z[j];
    for (auto &v : z) v /= std::sqrt(nz);
    const double rho = 0.7;
    for (int i = 0; i < k; ++i) {
      const double lam = ph::secular_root(k, d.data(), z.data(), rho, i, delta.data(), 1, ph::SerialTeam{});
      ASSERT_FALSE(std::isnan(lam)) << k << " " << i;
      // (lambda itself may round to the pole: the differences tell the sides apart)
      EXPECT_LT(delta[i], 0) << k << " " << i;
      if (i + 1 < k) EXPECT_GT(delta[i + 1], 0) << k << " " << i;
      double f = 1, scale = 1;
      for (int j = 0; j < k; ++j) {
        EXPECT_NEAR(delta[j], d[j] - lam, 4 * ratios::kUlp * std::max(std::fabs(d[j]), std::fabs(lam)));
        f += rho * z[j] * z[j] / delta[j];
        scale += std::fabs(rho * z[j] * z[j] / delta[j]);
      }
      EXPECT_LE(std::fabs(f), 64 * k * ratios::kUlp * scale) << k << " " << i;
    }
  }
}

#endif  // !GPUEIG_STEDC_DEVICE

}  // namespace
