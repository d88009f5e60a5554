// gpu_toeplitz_eig's structured method (src/toeplitz_structured.hpp, hidden in libgpueig): its
// inertia counts against the dense spectrum over the Toeplitz zoo (at shifts one tolerance from
// every eigenvalue), its search against dense DSYEVR and analytic spectra (RANGE 'I' and 'V'), and
// its conduct with evaluators that fail, lie or never settle (no wrong answer, no hang). The counts
// are the host's (test_toeplitz_structured) or the device's (test_toeplitz_structured_gpu, built
// with GPUEIG_TEST_ON_DEVICE: the GPU's kernels, or the fake device's host evaluations).
#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <tuple>
#include <vector>

#include "lapack_ref.hpp"
#include "ratios.hpp"
#include "toeplitz_structured.hpp"
#include "zoo.hpp"

namespace {

using namespace gpueig;

// All eigenvalues of the dense T(t), ascending, by DSYEVR.
std::vector<double> dense_spectrum(const zoo::Vec &t) {
  const int n = static_cast<int>(t.size()), ldz = 1;
  zoo::Vec a = zoo::toeplitz_dense(t);
  std::vector<double> w(n);
  const double zero = 0;
  double z = 0, lq = 0;
  int m = 0, info = 0, lwork = -1, liwork = -1, liq = 0, one = 1;
  std::vector<int> isuppz(2 * static_cast<size_t>(n));
  dsyevr_("N", "A", "L", &n, a.data(), &n, &zero, &zero, &one, &n, &zero, &m, w.data(), &z, &ldz,
          isuppz.data(), &lq, &lwork, &liq, &liwork, &info, 1, 1, 1);
  lwork = std::max(1, int(lq)), liwork = std::max(1, liq);
  std::vector<double> work(lwork);
  std::vector<int> iwork(liwork);
  dsyevr_("N", "A", "L", &n, a.data(), &n, &zero, &zero, &one, &n, &zero, &m, w.data(), &z, &ldz,
          isuppz.data(), work.data(), &lwork, iwork.data(), &liwork, &info, 1, 1, 1);
  EXPECT_EQ(info, 0);
  return w;
}

double tnorm(const zoo::Vec &t) {
  const int n = static_cast<int>(t.size());
  const zoo::Vec a = zoo::toeplitz_dense(t);
  return ratios::norm1(n, n, a.data(), n);
}

std::vector<int> sizes() { return {1, 2, 3, 4, 5, 16, 17, 64, 127, 200}; }

// Runs body(evaluate, slots, guide) with the evaluations of T(t) this program tests and the
// search's guide as the library makes it.
using Body = std::function<void(const structured::Evaluate &, int, const structured::Guide *)>;
using BasisBody = std::function<void(const structured::Evaluate &, int, const structured::Guide *,
                                     const gpu::BasisBatch &)>;
void with_source(const zoo::Vec &t, const BasisBody &body) {
  const int64_t n = int64_t(t.size());
#ifdef GPUEIG_TEST_ON_DEVICE
  int64_t bytes = 0;
  const gpu::Status s = gpu::device().toeplitz_inertia(n, t.data(), [&](const gpu::InertiaSource &source) {
    const structured::Guide guide = structured::guide_of(source.diagonal[0], source.diagonal[1]);
    body(source.batch, source.slots, &guide, source.basis);
    return gpu::Status::success();
  }, &bytes);
  ASSERT_TRUE(s) << s.reason;
#else
  const structured::CauchyForm form = structured::cauchy_form(n, t.data());
  const structured::Guide guide = structured::guide_of(form);
  body(structured::host_evaluator(form), 4, &guide, structured::host_basis(form));
#endif
}
void with_evaluations(const zoo::Vec &t, const Body &body) {
  with_source(t, [&](const structured::Evaluate &e, int slots, const structured::Guide *g, const gpu::BasisBatch &) {
    body(e, slots, g);
  });
}

using ZooParam = std::tuple<std::string, int>;
class StructuredZoo : public ::testing::TestWithParam<ZooParam> {};

// One tolerance (n eps ||T||_1) below and above every eigenvalue the count brackets it exactly:
// below lambda_i at most i - 1, above at least i (a multiple eigenvalue counted whole).
TEST_P(StructuredZoo, CountsBracketEveryEigenvalue) {
  const auto &[kind, n] = GetParam();
  const zoo::Vec t = zoo::toeplitz(kind, n, n);
  const std::vector<double> lam = dense_spectrum(t);
  const double delta = std::max(2, n) * DBL_EPSILON * tnorm(t);
  std::vector<double> shifts;
  for (int i = 0; i < n; ++i) shifts.push_back(lam[i] - delta), shifts.push_back(lam[i] + delta);
  std::vector<gpu::ToeplitzInertia> out(shifts.size());
  with_evaluations(t, [&](const structured::Evaluate &evaluate, int, const structured::Guide *) {
    ASSERT_TRUE(structured::evaluate_shifts(evaluate, shifts, out));
  });
  for (int i = 0; i < n; ++i) {
    const gpu::ToeplitzInertia &lo = out[2 * i], &hi = out[2 * i + 1];
    ASSERT_TRUE(lo.trusted && hi.trusted) << kind << " n=" << n << " i=" << i;
    ASSERT_LE(lo.below, i) << kind << " n=" << n << " below eigenvalue " << i + 1;
    ASSERT_GE(hi.below, i + 1) << kind << " n=" << n << " above eigenvalue " << i + 1;
  }
}

// The evaluations' log|det(T - sigma I)| (the search's interpolation), up to a constant of the
// call: the difference between two shifts against the dense spectrum's sum of log|lambda_i - sigma|.
// Shifts a third of the way between neighbouring eigenvalues (far from both, so that the dense
// sums are accurate), a quarter and three quarters into the spectrum.
TEST_P(StructuredZoo, LogDeterminantsMatchTheDenseSpectrum) {
  const auto &[kind, n] = GetParam();
  if (n < 4) GTEST_SKIP() << "fewer than two gaps";
  const zoo::Vec t = zoo::toeplitz(kind, n, n);
  const std::vector<double> lam = dense_spectrum(t);
  std::vector<double> shifts;
  for (int at : {n / 4, (3 * n) / 4}) {
    int i = at;  // the first gap from `at` on wide enough to sit in
    while (i + 1 < n && !(lam[i + 1] - lam[i] > 1e-6 * tnorm(t))) ++i;
    if (i + 1 >= n) GTEST_SKIP() << "no wide gap";
    shifts.push_back(lam[i] + (lam[i + 1] - lam[i]) / 3);
  }
  std::vector<gpu::ToeplitzInertia> out(shifts.size());
  with_evaluations(t, [&](const structured::Evaluate &evaluate, int, const structured::Guide *) {
    ASSERT_TRUE(structured::evaluate_shifts(evaluate, shifts, out));
  });
  double dense[2] = {0, 0};
  for (int k = 0; k < 2; ++k)
    for (double l : lam) dense[k] += std::log(std::fabs(l - shifts[k]));
  ASSERT_TRUE(std::isfinite(out[0].logdet) && std::isfinite(out[1].logdet)) << kind << " n=" << n;
  EXPECT_NEAR(out[1].logdet - out[0].logdet, dense[1] - dense[0], 1e-7 * (n + std::fabs(dense[1] - dense[0])))
      << kind << " n=" << n;
}

// The symbol's bounds (where inside Gershgorin's, the search's starting bracket) hold the dense
// spectrum and lie within the samples' widening (1 / cos(pi / 8) at most) of the symbol's trivial
// range t_0 -+ 2 sum |t_k|.
TEST_P(StructuredZoo, SymbolBoundsHoldTheSpectrum) {
  const auto &[kind, n] = GetParam();
  const zoo::Vec t = zoo::toeplitz(kind, n, n);
  double lo = 0, hi = 0;
  if (n < 2) {
    EXPECT_FALSE(structured::symbol_bounds(n, t.data(), &lo, &hi));
    return;
  }
  ASSERT_TRUE(structured::symbol_bounds(n, t.data(), &lo, &hi)) << kind << " n=" << n;
  const std::vector<double> lam = dense_spectrum(t);
  EXPECT_LT(lo, lam.front()) << kind << " n=" << n;
  EXPECT_GT(hi, lam.back()) << kind << " n=" << n;
  double arms = 0;
  for (int k = 1; k < n; ++k) arms += 2 * std::fabs(t[k]);
  const double reach = arms / std::cos(M_PI / 8) + 1e-12 * (arms + std::fabs(t[0]));
  EXPECT_GE(lo, t[0] - reach) << kind << " n=" << n;
  EXPECT_LE(hi, t[0] + reach) << kind << " n=" << n;
}

// The 1-2-1 matrix's symbol 2 - 2 cos(theta) spans [0, 4]: the bounds hold its analytic spectrum
// and are within the samples' widening of [0, 4]; a decaying random t's range is far inside
// Gershgorin's (what shortens the search).
TEST(StructuredSymbol, BoundsAreTight) {
  const int n = 3000;
  std::vector<double> t(n, 0.0);
  t[0] = 2, t[1] = -1;
  double lo = 0, hi = 0;
  ASSERT_TRUE(structured::symbol_bounds(n, t.data(), &lo, &hi));
  EXPECT_LT(lo, 2 - 2 * std::cos(M_PI / (n + 1)));
  EXPECT_GT(hi, 2 - 2 * std::cos(n * M_PI / (n + 1)));
  EXPECT_GT(lo, -2 * (1 / std::cos(M_PI / 8) - 1) - 1e-9);
  EXPECT_LT(hi, 4 + 2 * (1 / std::cos(M_PI / 8) - 1) + 1e-9);
  uint64_t state = 7;
  for (int k = 0; k < n; ++k) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    t[k] = (double(state >> 11) * 0x1p-53 * 2 - 1) / (1 + 0.01 * k);
  }
  t[0] = 4;
  ASSERT_TRUE(structured::symbol_bounds(n, t.data(), &lo, &hi));
  const double radius = structured::norm1(n, t.data()) - 4;
  EXPECT_LT(hi - lo, 0.5 * 2 * radius) << "symbol range " << hi - lo << " Gershgorin's " << 2 * radius;
}

// The search's eigenvalues against DSYEVR's: by index (the smallest, the 16 smallest, a middle
// slice, the largest) and by value ((VL, VU] around a middle third, bounds in gaps), guided as the
// library guides it and unguided.
TEST_P(StructuredZoo, SearchMatchesDenseDsyevr) {
  const auto &[kind, n] = GetParam();
  const zoo::Vec t = zoo::toeplitz(kind, n, n);
  const std::vector<double> lam = dense_spectrum(t);
  const double norm = tnorm(t);
  with_evaluations(t, [&](const structured::Evaluate &host, int slots, const structured::Guide *library_guide) {
  // With the library's guide and without one: the counts decide either way.
  for (const structured::Guide *guide : {library_guide, static_cast<const structured::Guide *>(nullptr)}) {
  struct Slice { int il, iu; };
  for (const Slice &s : {Slice{1, 1}, Slice{1, std::min(n, 16)}, Slice{n / 3 + 1, std::max(n / 3 + 1, 2 * n / 3)},
                         Slice{n, n}}) {
    std::vector<double> w(n, -1.0);
    int m = -1;
    const structured::Report r =
        structured::search(n, t.data(), 'I', 0, 0, s.il, s.iu, 0, slots, host, -1, &m, w.data(), guide);
    ASSERT_TRUE(r.ok) << kind << " n=" << n << ": " << r.why;
    ASSERT_EQ(m, s.iu - s.il + 1);
    const std::vector<double> ref(lam.begin() + s.il - 1, lam.begin() + s.iu);
    EXPECT_LE(ratios::eigenvalue_distance(std::vector<double>(w.begin(), w.begin() + m), ref, n, norm),
              ratios::kThreshold)
        << kind << " n=" << n << " IL=" << s.il << " IU=" << s.iu;
  }
  // (VL, VU] with both bounds in gaps wider than the test's tolerance (or beyond the spectrum).
  const double tol = ratios::kThreshold * n * DBL_EPSILON * norm;
  const double vl = ratios::gap_point(lam, n / 3, tol), vu = ratios::gap_point(lam, 2 * n / 3, tol);
  if (vl < vu) {
    std::vector<double> ref;
    for (double x : lam)
      if (x > vl && x <= vu) ref.push_back(x);
    std::vector<double> w(n, -1.0);
    int m = -1;
    const structured::Report r =
        structured::search(n, t.data(), 'V', vl, vu, 0, 0, 0, slots, host, -1, &m, w.data(), guide);
    ASSERT_TRUE(r.ok) << r.why;
    ASSERT_EQ(m, int(ref.size())) << kind << " n=" << n << " (VL, VU] = (" << vl << ", " << vu << "]";
    EXPECT_LE(ratios::eigenvalue_distance(std::vector<double>(w.begin(), w.begin() + m), ref, n, norm),
              ratios::kThreshold);
  }
  }
  });
}

// ||T x - w x||_1 / (n ||T||_1 eps) over the columns (dsyt22's first ratio) with the dense T.
double pair_residual(const zoo::Vec &t, int m, const double *w, const double *z) {
  const int n = int(t.size());
  const zoo::Vec a = zoo::toeplitz_dense(t);
  const double norm = ratios::norm1(n, n, a.data(), n);
  double worst = 0;
  for (int j = 0; j < m; ++j) {
    double col = 0;
    for (int r = 0; r < n; ++r) {
      long double s = 0;
      for (int c = 0; c < n; ++c) s += (long double)a[r + size_t(c) * n] * z[c + size_t(j) * n];
      col += std::fabs(double(s) - w[j] * z[r + size_t(j) * n]);
    }
    worst = std::max(worst, col);
  }
  return norm > 0 ? worst / norm / (n * DBL_EPSILON) : worst;
}

// The eigenvectors from the structured bases (RANGE 'I' slices, and the half's multiplets: the
// identity's all at one shift, the circulant's pairs one in each half): certified by the method,
// and by the dense T: residual and orthogonality at LAPACK's test ratio, the values still the
// dense spectrum's.
TEST_P(StructuredZoo, EigenvectorsFromBases) {
  const auto &[kind, n] = GetParam();
  const zoo::Vec t = zoo::toeplitz(kind, n, n);
  const std::vector<double> lam = dense_spectrum(t);
  const double norm = tnorm(t);
  with_source(t, [&](const structured::Evaluate &evaluate, int slots, const structured::Guide *guide,
                     const gpu::BasisBatch &basis) {
    struct Slice { int il, iu; };
    for (const Slice &s : {Slice{1, std::min(n, 8)}, Slice{n / 3 + 1, std::min(n, n / 3 + 6)}, Slice{n, n}}) {
      SCOPED_TRACE(kind + " n=" + std::to_string(n) + " IL=" + std::to_string(s.il) + " IU=" + std::to_string(s.iu));
      std::vector<double> w(n, -1.0), estimates(n, std::nan(""));
      std::vector<int> halves(n, -1);
      int m = -1;
      const structured::Report r = structured::search(n, t.data(), 'I', 0, 0, s.il, s.iu, 0, slots, evaluate, -1,
                                                      &m, w.data(), guide, halves.data(), estimates.data());
      ASSERT_TRUE(r.ok) << r.why;
      ASSERT_EQ(m, s.iu - s.il + 1);
      const double tol = structured::search_tolerance(n, t.data(), 0);
      for (int i = 0; i < m; ++i) EXPECT_LE(std::fabs(estimates[i] - w[i]), tol / 2) << "estimate " << i;
      std::vector<double> z(size_t(n) * m, std::nan(""));
      // The first slice from the midpoints, the others from the search's estimates (the library's way).
      const structured::VectorReport v =
          structured::eigenvectors(n, t.data(), m, w.data(), halves.data(), tol, basis, z.data(), n,
                                   s.il == 1 ? nullptr : estimates.data());
      ASSERT_TRUE(v.ok) << v.why;
      EXPECT_LE(v.worst, ratios::kThreshold);
      for (int i = 1; i < m; ++i) EXPECT_LE(w[i - 1], w[i]);
      const std::vector<double> ref(lam.begin() + s.il - 1, lam.begin() + s.iu);
      EXPECT_LE(ratios::eigenvalue_distance(std::vector<double>(w.begin(), w.begin() + m), ref, n, norm),
                ratios::kThreshold);
      EXPECT_LE(pair_residual(t, m, w.data(), z.data()), ratios::kThreshold);
      EXPECT_LE(ratios::orthogonality(n, m, z.data(), n), ratios::kThreshold);
    }
  });
}

INSTANTIATE_TEST_SUITE_P(Zoo, StructuredZoo,
                         ::testing::Combine(::testing::ValuesIn(zoo::toeplitz_kinds()),
                                            ::testing::ValuesIn(sizes())),
                         [](const ::testing::TestParamInfo<ZooParam> &p) {
                           return std::get<0>(p.param) + "_n" + std::to_string(std::get<1>(p.param));
                         });

// Analytic spectra past the dense tests' orders. The 1-2-1 matrix of order 2999: n + 1 = 3000 has
// many divisors, so many eigenvalues are shared with leading blocks (order 1499, 999, 749, ...),
// where Durbin's recursion loses its counts; and a symmetric circulant, whose eigenvalues are
// double (one in each half block).
TEST(StructuredAnalytic, OneTwoOneOfOrder2999) {
  const int n = 2999;
  const zoo::Vec t = zoo::toeplitz("tridiagonal", n);
  const double pi = std::acos(-1.0);
  std::vector<double> exact(n);
  for (int j = 1; j <= n; ++j) exact[j - 1] = 2 - 2 * std::cos(j * pi / (n + 1));
  std::sort(exact.begin(), exact.end());
  for (int il : {1, 1497}) with_evaluations(t, [&](const structured::Evaluate &evaluate, int slots, const structured::Guide *guide) {
    const int iu = il + 15;
    std::vector<double> w(n);
    int m = 0;
    const structured::Report r =
        structured::search(n, t.data(), 'I', 0, 0, il, iu, 0, slots, evaluate, -1, &m, w.data(), guide);
    ASSERT_TRUE(r.ok) << r.why;
    ASSERT_EQ(m, 16);
    EXPECT_LE(ratios::eigenvalue_distance(std::vector<double>(w.begin(), w.begin() + m),
                                          std::vector<double>(exact.begin() + il - 1, exact.begin() + iu), n, 4.0),
              ratios::kThreshold)
        << "IL=" << il;
  });
}

TEST(StructuredAnalytic, SymmetricCirculantOfOrder2000) {
  const int n = 2000;
  const zoo::Vec t = zoo::toeplitz("circulant", n);
  const std::vector<double> exact = zoo::circulant_spectrum(t);
  double norm = 0;
  for (int k = 0; k < n; ++k) norm += std::fabs(t[k]);  // a circulant's columns are its t permuted
  with_evaluations(t, [&](const structured::Evaluate &evaluate, int slots, const structured::Guide *guide) {
    std::vector<double> w(n);
    int m = 0;
    const structured::Report r =
        structured::search(n, t.data(), 'I', 0, 0, 1, 16, 0, slots, evaluate, -1, &m, w.data(), guide);
    ASSERT_TRUE(r.ok) << r.why;
    ASSERT_EQ(m, 16);
    EXPECT_LE(ratios::eigenvalue_distance(std::vector<double>(w.begin(), w.begin() + m),
                                          std::vector<double>(exact.begin(), exact.begin() + 16), n, norm),
              ratios::kThreshold);
  });
}

// ---- The search's conduct with evaluators that fail, lie or never settle ----------------------

struct Fixture {
  int n = 64;
  zoo::Vec t = zoo::toeplitz("random", 64, 64);
  structured::CauchyForm form = structured::cauchy_form(64, t.data());
  structured::Evaluate host = structured::host_evaluator(form);
};

// About a third of the shifts untrusted (by a hash of their bits): the search moves them and
// still finds the eigenvalues.
TEST(StructuredConduct, UntrustedShiftsAreMoved) {
  Fixture f;
  const structured::Evaluate flaky = [&](const std::vector<gpu::InertiaTask> &s,
                                         std::vector<gpu::ToeplitzInertia> &out) {
    gpu::Status st = f.host(s, out);
    for (size_t i = 0; i < s.size(); ++i) {
      uint64_t bits;
      std::memcpy(&bits, &s[i].sigma, sizeof bits);
      if ((bits * 0x9E3779B97F4A7C15ull) >> 62 == 0) out[i].trusted = 0;  // 1 in 4
    }
    return st;
  };
  std::vector<double> w(f.n);
  int m = 0;
  const structured::Report r = structured::search(f.n, f.t.data(), 'I', 0, 0, 1, 16, 0, 4, flaky, -1, &m, w.data());
  ASSERT_TRUE(r.ok) << r.why;
  EXPECT_GT(r.untrusted, 0);
  const std::vector<double> lam = dense_spectrum(f.t);
  EXPECT_LE(ratios::eigenvalue_distance(std::vector<double>(w.begin(), w.begin() + m),
                                        std::vector<double>(lam.begin(), lam.begin() + 16), f.n, tnorm(f.t)),
            ratios::kThreshold);
}

// A guide that misleads (every value moved by a third of the spectrum's width, the halves
// swapped): the counts still decide, and the eigenvalues are found.
TEST(StructuredConduct, MisleadingGuideOnlyCostsRounds) {
  Fixture f;
  structured::Guide bad = structured::guide_of(f.form);
  std::swap(bad.half[0], bad.half[1]);
  const double move = (bad.all.back() - bad.all.front()) / 3;
  for (std::vector<double> *v : {&bad.half[0], &bad.half[1], &bad.all})
    for (double &x : *v) x += move;
  const std::vector<double> lam = dense_spectrum(f.t);
  for (const auto &[il, iu] : {std::pair<int, int>{1, 16}, {30, 34}, {64, 64}}) {
    std::vector<double> w(f.n);
    int m = 0;
    const structured::Report r =
        structured::search(f.n, f.t.data(), 'I', 0, 0, il, iu, 0, 4, f.host, -1, &m, w.data(), &bad);
    ASSERT_TRUE(r.ok) << r.why;
    ASSERT_EQ(m, iu - il + 1);
    EXPECT_LE(ratios::eigenvalue_distance(std::vector<double>(w.begin(), w.begin() + m),
                                          std::vector<double>(lam.begin() + il - 1, lam.begin() + iu), f.n, tnorm(f.t)),
              ratios::kThreshold)
        << "IL=" << il;
  }
}

// Nothing ever trusted: a report, within the caps, with no eigenvalue.
TEST(StructuredConduct, NeverTrustedEndsWithAReport) {
  Fixture f;
  const structured::Evaluate never = [&](const std::vector<gpu::InertiaTask> &s,
                                         std::vector<gpu::ToeplitzInertia> &out) {
    for (size_t i = 0; i < s.size(); ++i) out[i] = {0, 0};
    return gpu::Status::success();
  };
  std::vector<double> w(f.n);
  int m = 7;
  for (char range : {'I', 'V'}) {
    const structured::Report r = structured::search(f.n, f.t.data(), range, -1, 1, 1, 16, 0, 4, never, -1, &m, w.data());
    EXPECT_FALSE(r.ok);
    EXPECT_FALSE(r.why.empty());
    EXPECT_EQ(m, 0);
  }
}

// Counts that decrease with the shift (a wrong count) are never used: a report, not an answer.
TEST(StructuredConduct, InconsistentCountsAreNeverUsed) {
  Fixture f;
  const structured::Evaluate liar = [&](const std::vector<gpu::InertiaTask> &s,
                                        std::vector<gpu::ToeplitzInertia> &out) {
    for (size_t i = 0; i < s.size(); ++i) out[i] = {int64_t(s.size() - i) % (f.n / 2 + 1), 1};
    return gpu::Status::success();
  };
  std::vector<double> w(f.n);
  int m = 0;
  const structured::Report r = structured::search(f.n, f.t.data(), 'I', 0, 0, 1, 16, 0, 8, liar, -1, &m, w.data());
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(m, 0);
}

// An evaluation that fails is the search's failure, passed on.
TEST(StructuredConduct, EvaluationFailureIsPassedOn) {
  Fixture f;
  const structured::Evaluate broken = [&](const std::vector<gpu::InertiaTask> &, std::vector<gpu::ToeplitzInertia> &) {
    return gpu::Status::fail(gpu::Status::device_error, "lost");
  };
  std::vector<double> w(f.n);
  int m = 0;
  const structured::Report r = structured::search(f.n, f.t.data(), 'I', 0, 0, 1, 4, 0, 4, broken, -1, &m, w.data());
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.failure.code, gpu::Status::device_error);
}

// More eigenvalues wanted than `most`: declined before any evaluation (RANGE 'I'), or after
// counting at VL and VU (RANGE 'V').
TEST(StructuredConduct, DeclinesTooManyEigenvalues) {
  Fixture f;
  std::vector<double> w(f.n);
  int m = 0;
  structured::Report r = structured::search(f.n, f.t.data(), 'I', 0, 0, 1, 20, 0, 4, f.host, 10, &m, w.data());
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(r.declined);
  EXPECT_EQ(r.evaluations, 0);
  r = structured::search(f.n, f.t.data(), 'V', -1e300, 1e300, 0, 0, 0, 4, f.host, 10, &m, w.data());
  EXPECT_TRUE(r.declined);
  EXPECT_EQ(r.evaluations, 4);  // both halves at VL and VU
}

}  // namespace

// The eigenvectors' conduct: bases that are wrong (trusted, but not near-null: the residual check
// by FFT products refuses them after its retries), untrusted, or lost (the failure passed on).
TEST(StructuredConduct, EigenvectorsRefuseWrongBases) {
  Fixture f;
  std::vector<double> w(f.n);
  std::vector<int> halves(f.n);
  int m = 0;
  const structured::Guide guide = structured::guide_of(f.form);
  ASSERT_TRUE(structured::search(f.n, f.t.data(), 'I', 0, 0, 1, 4, 0, 4, f.host, -1, &m, w.data(), &guide,
                                 halves.data()).ok);
  const double tol = structured::search_tolerance(f.n, f.t.data(), 0);
  std::vector<double> z(size_t(f.n) * m);
  int calls = 0;
  const gpu::BasisBatch wrong = [&](const std::vector<gpu::BasisTask> &tasks, std::vector<gpu::HalfBasis> &out) {
    ++calls;
    out.assign(tasks.size(), {});
    for (size_t i = 0; i < tasks.size(); ++i) {
      const int64_t size = f.form.half[tasks[i].half].size;
      out[i].trusted = 1, out[i].count = tasks[i].want;
      out[i].x.assign(size * tasks[i].want, 0.0);
      for (int64_t c = 0; c < tasks[i].want; ++c) out[i].x[c * size + (c * 7 + 3) % size] = 1;  // sine vectors
    }
    return gpu::Status::success();
  };
  std::vector<double> w1 = w;
  structured::VectorReport v = structured::eigenvectors(f.n, f.t.data(), m, w1.data(), halves.data(), tol, wrong,
                                                        z.data(), f.n);
  EXPECT_FALSE(v.ok);
  EXPECT_EQ(calls, 3) << "three rounds, then refused";
  const gpu::BasisBatch untrusted = [&](const std::vector<gpu::BasisTask> &tasks, std::vector<gpu::HalfBasis> &out) {
    gpu::Status s = structured::host_basis(f.form)(tasks, out);
    for (gpu::HalfBasis &b : out) b.trusted = 0;
    return s;
  };
  w1 = w;
  v = structured::eigenvectors(f.n, f.t.data(), m, w1.data(), halves.data(), tol, untrusted, z.data(), f.n);
  EXPECT_FALSE(v.ok);
  const gpu::BasisBatch lost = [&](const std::vector<gpu::BasisTask> &, std::vector<gpu::HalfBasis> &) {
    return gpu::Status::fail(gpu::Status::device_error, "lost");
  };
  w1 = w;
  v = structured::eigenvectors(f.n, f.t.data(), m, w1.data(), halves.data(), tol, lost, z.data(), f.n);
  EXPECT_FALSE(v.ok);
  EXPECT_NE(v.why.find("lost"), std::string::npos) << v.why;
  // The host's own bases, for contrast: certified.
  w1 = w;
  v = structured::eigenvectors(f.n, f.t.data(), m, w1.data(), halves.data(), tol, structured::host_basis(f.form),
                               z.data(), f.n);
  EXPECT_TRUE(v.ok) << v.why;
}
