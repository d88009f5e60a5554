// gpu_stebz's host phases (src/stebz_phases.hpp) against LAPACK's DSTEBZ on the CPU, over the
// symmetric tridiagonal zoo: each phase where DSTEBZ shows its result (NSPLIT and ISPLIT, the
// eigenvalues its interval for RANGE 'I' holds, its block loop's M and IBLOCK, its discarding and
// its ORDER 'E' sort), and all of them together with the device's bracketing (phase 4) done here
// by bisection under the same contract.
#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <iomanip>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "lapack_ref.hpp"
#include "ratios.hpp"
#include "stebz_phases.hpp"
#include "sturm.hpp"
#include "zoo.hpp"

namespace {

namespace ph = gpueig::stebz_phases;
using gpueig::StebzBlock;
using gpueig::StebzBracket;
using gpueig::SturmRow;

constexpr double kSafeMin = DBL_MIN;

struct Query {
  char range, order;
  double vl, vu;
  int il, iu;
  double abstol;
};

std::string describe(const Query &q) {
  std::ostringstream s;
  s << std::setprecision(17) << "RANGE=" << q.range << " ORDER=" << q.order
    << " ABSTOL=" << q.abstol;
  if (q.range == 'V') s << " (VL,VU]=(" << q.vl << "," << q.vu << "]";
  if (q.range == 'I') s << " IL..IU=" << q.il << ".." << q.iu;
  return s.str();
}

int order_of(const zoo::SymTridiagonal &t) { return static_cast<int>(t.d.size()); }

// What DSTEBZ returns (W and IBLOCK cut to M).
struct Outcome {
  int info = -1, m = 0, nsplit = 0;
  std::vector<double> w;
  std::vector<int> iblock, isplit;
};

Outcome dstebz(const zoo::SymTridiagonal &t, const Query &q) {
  const int n = order_of(t);
  Outcome r;
  r.w.assign(std::max(1, n), 0.0);
  r.iblock.assign(std::max(1, n), 0);
  r.isplit.assign(std::max(1, n), 0);
  std::vector<double> work(4 * static_cast<size_t>(std::max(1, n)));
  std::vector<int> iwork(3 * static_cast<size_t>(std::max(1, n)));
  dstebz_(&q.range, &q.order, &n, &q.vl, &q.vu, &q.il, &q.iu, &q.abstol, t.d.data(), t.e.data(),
          &r.m, &r.nsplit, r.w.data(), r.iblock.data(), r.isplit.data(), work.data(),
          iwork.data(), &r.info, 1, 1);
  r.w.resize(std::max(0, r.m));
  r.iblock.resize(std::max(0, r.m));
  r.isplit.resize(std::max(0, r.nsplit));
  return r;
}

ph::Request request(const zoo::SymTridiagonal &t, const Query &q) {
  return ph::request(q.range, q.order, order_of(t), q.vl, q.vu, q.il, q.iu, q.abstol);
}

// How far apart two correct answers for one W(i) may be (as tests/test_stebz.cpp argues):
// twice max(ABSTOL, 4 ULP TNORM) plus a few PIVMIN.
double gershgorin(const zoo::SymTridiagonal &t) {
  const int n = order_of(t);
  double bound = 0;
  for (int i = 0; i < n; ++i)
    bound = std::max(bound, std::fabs(t.d[i]) + (i > 0 ? std::fabs(t.e[i - 1]) : 0.0) +
                                (i < n - 1 ? std::fabs(t.e[i]) : 0.0));
  return bound;
}
double stebz_tolerance(const zoo::SymTridiagonal &t, double abstol) {
  double pivmin = 1;
  for (double e : t.e) pivmin = std::max(pivmin, e * e);
  pivmin *= kSafeMin;
  return 2 * std::max(abstol, 4 * ratios::kUlp * gershgorin(t)) + 4 * pivmin;
}

// Phase 4 on the CPU: the device's search for eigenvalue k of a block (cuda/stebz.cu's
// search_kernel with one shift per pass, i.e. bisection, and DLAEBZ's count), down to DLAEBZ's
// convergence test or the ITMAX cap; for `locate` blocks, stopping at a point w with
// N(w) = k - 1 where one is met.
StebzBracket bisect(const std::vector<SturmRow> &rows, const StebzBlock &b, int k, double pivmin) {
  const SturmRow *t = rows.data() + b.begin;
  double lo = b.lo, hi = b.hi;
  int nlo = -1, nhi = static_cast<int>(b.len) + 1;
  const int max_pass = std::max(1, b.itmax) + 1;
  for (int pass = 0;; ++pass) {
    const double tol = std::fmax(std::fmax(b.atol, pivmin),
                                 ph::kRtoli * std::fmax(std::fabs(lo), std::fabs(hi)));
    if (hi - lo < tol) return {lo, hi, nlo, nhi, 1};
    if (pass >= max_pass) return {lo, hi, nlo, nhi, 0};
    const double x = 0.5 * (lo + hi);
    const int c = gpueig::sturm_count(t, b.len, x, pivmin);
    if (b.locate && c == k - 1) return {x, x, c, c, 1};
    if (c >= k) {
      hi = x;
      nhi = c;
    } else {
      lo = x;
      nlo = c;
    }
  }
}

std::vector<StebzBracket> bracket_all(const std::vector<SturmRow> &rows,
                                      const std::vector<StebzBlock> &blocks, double pivmin) {
  std::vector<StebzBracket> out;
  for (const StebzBlock &b : blocks)
    for (int k = b.first_k + 1; k <= b.last_k; ++k) out.push_back(bisect(rows, b, k, pivmin));
  return out;
}

// The interval phase for RANGE 'I', with its searches done by bisect().
ph::Interval index_interval(const ph::Request &q, const ph::Split &s, const double *d) {
  const ph::IndexSearch is = ph::index_search(q, s, d);
  EXPECT_EQ(is.targets.size(), size_t(is.search_lower) + size_t(is.search_upper));
  const std::vector<StebzBracket> found = bracket_all(s.rows, is.targets, s.pivmin);
  return ph::index_interval(q, s, is, found.data());
}

// DSTEBZ through the host phases, as cuda/stebz.cu strings them together, with bisect() as the
// device.
Outcome through_phases(const zoo::SymTridiagonal &t, const Query &query) {
  const int n = order_of(t);
  const ph::Request q = request(t, query);
  Outcome r;
  if (n == 1) {
    const ph::Eigenvalues ev = ph::order_one(q, t.d[0]);
    return {0, static_cast<int>(ev.w.size()), 1, ev.w, ev.iblock, {1}};
  }
  const ph::Split s = ph::split(n, t.d.data(), t.e.data());
  EXPECT_TRUE(std::isfinite(s.pivmin));
  r.nsplit = s.nsplit();
  r.isplit = s.isplit;
  const bool by_index = ph::by_index(q, s);
  ph::Interval iv = ph::value_interval(q);
  if (q.irange == 3 && !by_index) {
    iv = index_interval(q, s, t.d.data());
    if (!iv.valid) {
      r.info = 4;
      return r;
    }
  }
  ph::Plan plan = ph::plan_blocks(q, s, t.d.data(), t.e.data(), by_index, iv);
  bool ncnvrg = false;
  if (plan.ntasks > 0) {
    // Midpoints handed back in a power-of-two scale, as the device's are.
    const double scale = gpueig::sturm_scale(s.rows.data(), n, s.pivmin).c;
    std::vector<double> wg(plan.out.w.size(), -1.0);
    std::vector<int> conv(plan.out.w.size(), 0);
    const std::vector<StebzBracket> br = bracket_all(s.rows, plan.blocks, s.pivmin);
    EXPECT_EQ(static_cast<int64_t>(br.size()), plan.ntasks);
    for (const StebzBlock &b : plan.blocks)
      for (int k = 0; k < b.last_k - b.first_k; ++k) {
        const StebzBracket &x = br[b.task0 + k];
        wg[b.out + k] = 0.5 * (x.lo + x.hi) * scale;
        conv[b.out + k] = x.converged;
      }
    ncnvrg = ph::collect(plan, wg, conv, scale);
  }
  const bool toofew =
      q.irange == 3 && !by_index && ph::discard(q, iv, plan.nwl, plan.nwu, plan.out);
  ph::order(q, s.nsplit(), plan.out);
  r.info = (ncnvrg ? 1 : 0) + (toofew ? 2 : 0);
  r.m = static_cast<int>(plan.out.w.size());
  r.w = plan.out.w;
  r.iblock = plan.out.iblock;
  return r;
}

// M, IBLOCK (and INFO, NSPLIT, ISPLIT where `all`) exactly, W within `tol`.
void expect_same(const Outcome &got, const Outcome &ref, double tol, bool all = true) {
  if (all) {
    EXPECT_EQ(got.info, ref.info);
    EXPECT_EQ(got.nsplit, ref.nsplit);
    EXPECT_EQ(got.isplit, ref.isplit);
  }
  ASSERT_EQ(got.m, ref.m);
  for (int i = 0; i < ref.m; ++i) {
    EXPECT_EQ(got.iblock[i], ref.iblock[i]) << "IBLOCK(" << i + 1 << ")";
    EXPECT_NEAR(got.w[i], ref.w[i], tol) << "W(" << i + 1 << ")";
  }
}

// The whole spectrum, ascending, as DSTEBZ computes it.
std::vector<double> spectrum(const zoo::SymTridiagonal &t) {
  const Outcome r = dstebz(t, {'A', 'E', 0, 0, 0, 0, 0});
  EXPECT_EQ(r.info, 0);
  EXPECT_EQ(r.m, order_of(t));
  return r.w;
}

// The queries of one matrix: RANGE 'A', windows by value in gaps of the spectrum (so that any
// correct count agrees on them) and slices by index, each with ABSTOL 0 and a coarse one.
std::vector<Query> queries(const zoo::SymTridiagonal &t, char order) {
  const int n = order_of(t);
  const std::vector<double> ref = spectrum(t);
  const double tol = stebz_tolerance(t, 0);
  std::vector<Query> base = {{'A', order, 0, 0, 0, 0, 0}};
  auto window = [&](int k1, int k2) {
    const double vl = ratios::gap_point(ref, k1, tol), vu = ratios::gap_point(ref, k2, tol);
    if (vl < vu) base.push_back({'V', order, vl, vu, 0, 0, 0});
  };
  window(n / 3, 2 * n / 3);
  window(0, n);
  window(n / 2, n);
  auto slice = [&](int il, int iu) {
    if (1 <= il && il <= iu && iu <= n) base.push_back({'I', order, 0, 0, il, iu, 0});
  };
  slice(1, 1);
  slice(n, n);
  slice(n / 3 + 1, std::max(n / 3 + 1, 2 * n / 3));
  slice(1, std::max(1, n / 10));
  slice(2, n - 1);
  slice(1, n);
  std::vector<Query> all;
  for (double abstol : {0.0, 1e-9 * gershgorin(t)})
    for (Query q : base) {
      q.abstol = abstol;
      all.push_back(q);
    }
  return all;
}

using ZooParam = std::tuple<std::string, int>;
class StebzPhasesZoo : public ::testing::TestWithParam<ZooParam> {
 protected:
  void SetUp() override {
    const auto &[kind, n] = GetParam();
    t_ = zoo::symtridiagonal(kind, n, n);
  }
  zoo::SymTridiagonal t_;
};

// 1. Splitting: DSTEBZ's NSPLIT and ISPLIT exactly; rows hold e(j-1)^2 where T does not split
// and 0 where it does; PIVMIN is finite (every zoo kind keeps e^2 finite).
TEST_P(StebzPhasesZoo, SplitIsDstebzs) {
  const int n = order_of(t_);
  const Outcome ref = dstebz(t_, {'I', 'B', 0, 0, 1, 1, 0});
  ASSERT_EQ(ref.info, 0);
  const ph::Split s = ph::split(n, t_.d.data(), t_.e.data());
  EXPECT_EQ(s.nsplit(), ref.nsplit);
  EXPECT_EQ(s.isplit, ref.isplit);
  ASSERT_EQ(static_cast<int>(s.rows.size()), n);
  EXPECT_TRUE(std::isfinite(s.pivmin) && s.pivmin >= kSafeMin);
  std::vector<bool> splits_below(n, false);
  for (int end : s.isplit) if (end < n) splits_below[end] = true;
  for (int j = 0; j < n; ++j) {
    EXPECT_EQ(s.rows[j].d, t_.d[j]);
    const double e2 = j == 0 || splits_below[j] ? 0.0 : t_.e[j - 1] * t_.e[j - 1];
    EXPECT_EQ(s.rows[j].e2, e2) << "row " << j;
  }
}

// 2. The interval for RANGE 'I': N(WL) = NWL <= IL - 1 and N(WU) = NWU >= IU, so (WL, WU] holds
// eigenvalues IL..IU; DSTEBZ itself, asked for (WL, WU], finds exactly NWU - NWL eigenvalues
// there, and every eigenvalue it returns for IL..IU lies in (WL, WU].
TEST_P(StebzPhasesZoo, IndexIntervalHoldsDstebzsSlice) {
  const int n = order_of(t_);
  const double tol = stebz_tolerance(t_, 0);
  for (const Query &query : queries(t_, 'B')) {
    if (query.range != 'I') continue;
    SCOPED_TRACE(describe(query));
    const ph::Request q = request(t_, query);
    const ph::Split s = ph::split(n, t_.d.data(), t_.e.data());
    // DSTEBZ takes this interval whether or not T splits (gpu_stebz only where it does).
    const ph::Request as_i = {3, q.order_e, 0, 0, q.il, q.iu, q.abstol};
    const ph::Interval iv = index_interval(as_i, s, t_.d.data());
    const Outcome ref = dstebz(t_, query);
    ASSERT_EQ(ref.info, 0);
    ASSERT_TRUE(iv.valid);
    EXPECT_EQ(iv.nwl, gpueig::sturm_count(s.rows.data(), n, iv.wl, s.pivmin));
    EXPECT_EQ(iv.nwu, gpueig::sturm_count(s.rows.data(), n, iv.wu, s.pivmin));
    EXPECT_LE(iv.nwl, q.il - 1);
    EXPECT_GE(iv.nwu, q.iu);
    EXPECT_TRUE(iv.wl <= iv.wlu && iv.wlu <= iv.wu && iv.wl <= iv.wul && iv.wul <= iv.wu);
    // (WL, WLU] is a point with N = IL - 1 or a bracket across which N passes IL - 1; (WUL, WU]
    // a point with N = IU or a bracket across which N passes IU.
    auto count = [&](double x) { return gpueig::sturm_count(s.rows.data(), n, x, s.pivmin); };
    if (iv.wl == iv.wlu) EXPECT_EQ(iv.nwl, q.il - 1);
    else EXPECT_GE(count(iv.wlu), q.il);
    if (iv.wul == iv.wu) EXPECT_EQ(iv.nwu, q.iu);
    else EXPECT_LE(count(iv.wul), q.iu);
    ASSERT_LT(iv.wl, iv.wu);
    const Outcome window = dstebz(t_, {'V', 'B', iv.wl, iv.wu, 0, 0, 0});
    ASSERT_EQ(window.info, 0);
    EXPECT_EQ(window.m, iv.nwu - iv.nwl);
    for (int i = 0; i < ref.m; ++i) {
      EXPECT_GT(ref.w[i], iv.wl - tol) << "W(" << i + 1 << ")";
      EXPECT_LE(ref.w[i], iv.wu + tol) << "W(" << i + 1 << ")";
    }
  }
}

// 3. The plan is DSTEBZ's block loop: its slots are DSTEBZ's M eigenvalues for ORDER 'B', with
// DSTEBZ's IBLOCK; 1 x 1 blocks hold D(j) exactly, as DSTEBZ returns them; every other slot's
// search interval (lo, hi] holds the eigenvalue DSTEBZ returns there; the device's blocks are laid
// out back to back in W and in the task numbering.
TEST_P(StebzPhasesZoo, PlanIsDstebzsBlockLoop) {
  const int n = order_of(t_);
  const double tol = stebz_tolerance(t_, 0);
  for (const Query &query : queries(t_, 'B')) {
    const ph::Request q = request(t_, query);
    const ph::Split s = ph::split(n, t_.d.data(), t_.e.data());
    const bool by_index = ph::by_index(q, s);
    if (q.irange == 3 && !by_index) continue;  // the discarding test covers these
    SCOPED_TRACE(describe(query));
    const ph::Plan p =
        ph::plan_blocks(q, s, t_.d.data(), t_.e.data(), by_index, ph::value_interval(q));
    const Outcome ref = dstebz(t_, query);
    ASSERT_EQ(ref.info, 0);
    ASSERT_EQ(p.out.w.size(), static_cast<size_t>(ref.m));
    EXPECT_EQ(p.out.iblock, ref.iblock);
    std::vector<bool> on_device(ref.m, false);
    int64_t out = 0, task = 0;
    for (size_t b = 0; b < p.blocks.size(); ++b) {
      const StebzBlock &blk = p.blocks[b];
      EXPECT_EQ(blk.locate, 0);
      EXPECT_EQ(blk.begin, s.isplit[p.block_of[b] - 1] - blk.len);
      EXPECT_EQ(blk.task0, task);
      EXPECT_GE(blk.out, out);
      EXPECT_LT(blk.first_k, blk.last_k);
      task += blk.last_k - blk.first_k;
      out = blk.out + blk.last_k - blk.first_k;
      for (int64_t pos = blk.out; pos < out; ++pos) {
        on_device[pos] = true;
        EXPECT_EQ(p.out.iblock[pos], p.block_of[b]);
        EXPECT_GT(ref.w[pos], blk.lo - tol) << "W(" << pos + 1 << ")";
        EXPECT_LE(ref.w[pos], blk.hi + tol) << "W(" << pos + 1 << ")";
      }
    }
    EXPECT_EQ(task, p.ntasks);
    for (int i = 0; i < ref.m; ++i)
      if (!on_device[i]) EXPECT_EQ(p.out.w[i], ref.w[i]) << "1 x 1 block, W(" << i + 1 << ")";
  }
}

// 5. Discarding: DSTEBZ's own eigenvalues in the interval (WL, WU] of phase 2 (DSTEBZ asked for
// that window, ORDER 'B'), with phase 3's counts NWL and NWU, discarded and ordered (ORDER 'B'
// and 'E'), are DSTEBZ's answer for IL..IU: M, IBLOCK and the order of W exactly, W within the
// tolerance (the two DSTEBZ runs bisect from different intervals).
TEST_P(StebzPhasesZoo, DiscardingKeepsDstebzsSlice) {
  const int n = order_of(t_);
  for (char order : {'B', 'E'})
    for (const Query &query : queries(t_, order)) {
      if (query.range != 'I') continue;
      SCOPED_TRACE(describe(query));
      const ph::Request q = request(t_, query);
      if (q.irange != 3) continue;  // IL = 1, IU = N is RANGE 'A'
      const ph::Split s = ph::split(n, t_.d.data(), t_.e.data());
      const ph::Interval iv = index_interval(q, s, t_.d.data());
      ASSERT_TRUE(iv.valid);
      const ph::Plan p = ph::plan_blocks(q, s, t_.d.data(), t_.e.data(), false, iv);
      const Outcome window = dstebz(t_, {'V', 'B', iv.wl, iv.wu, 0, 0, query.abstol});
      ASSERT_EQ(window.info, 0);
      ASSERT_EQ(window.m, p.nwu - p.nwl);
      ph::Eigenvalues ev{window.w, window.iblock};
      const bool toofew = ph::discard(q, iv, p.nwl, p.nwu, ev);
      ph::order(q, s.nsplit(), ev);
      const Outcome ref = dstebz(t_, query);
      Outcome got{toofew ? 2 : 0, static_cast<int>(ev.w.size()), ref.nsplit, ev.w, ev.iblock,
                  ref.isplit};
      expect_same(got, ref, stebz_tolerance(t_, query.abstol));
    }
}

// DSTEBZ's discarding (the loops after label 70 of dstebz.f), transcribed with its 1-based
// indices; returns TOOFEW.
bool dstebz_discard(int il, int iu, int nwl, int nwu, double wl, double wlu, double wul,
                    double wu, int &m, std::vector<double> &w, std::vector<int> &iblock) {
  auto W = [&](int i) -> double & { return w[i - 1]; };
  auto IBLOCK = [&](int i) -> int & { return iblock[i - 1]; };
  int im = 0, idiscl = il - 1 - nwl, idiscu = nwu - iu;
  if (idiscl > 0 || idiscu > 0) {
    for (int je = 1; je <= m; ++je) {
      if (W(je) <= wlu && idiscl > 0) {
        idiscl = idiscl - 1;
      } else if (W(je) >= wul && idiscu > 0) {
        idiscu = idiscu - 1;
      } else {
        im = im + 1;
        W(im) = W(je);
        IBLOCK(im) = IBLOCK(je);
      }
    }
    m = im;
  }
  if (idiscl > 0 || idiscu > 0) {
    if (idiscl > 0) {
      double wkill = wu;
      for (int jdisc = 1; jdisc <= idiscl; ++jdisc) {
        int iw = 0;
        for (int je = 1; je <= m; ++je)
          if (IBLOCK(je) != 0 && (W(je) < wkill || iw == 0)) {
            iw = je;
            wkill = W(je);
          }
        if (iw > 0) IBLOCK(iw) = 0;  // dstebz.f would write IBLOCK(0): counts this bad never come
      }
    }
    if (idiscu > 0) {
      double wkill = wl;
      for (int jdisc = 1; jdisc <= idiscu; ++jdisc) {
        int iw = 0;
        for (int je = 1; je <= m; ++je)
          if (IBLOCK(je) != 0 && (W(je) > wkill || iw == 0)) {
            iw = je;
            wkill = W(je);
          }
        if (iw > 0) IBLOCK(iw) = 0;
      }
    }
    im = 0;
    for (int je = 1; je <= m; ++je)
      if (IBLOCK(je) != 0) {
        im = im + 1;
        W(im) = W(je);
        IBLOCK(im) = IBLOCK(je);
      }
    m = im;
  }
  return idiscl < 0 || idiscu < 0;
}

// Discarding on lists the zoo does not produce: counts that are not monotone (more eigenvalues
// to discard than lie in the end clusters, so the smallest and largest go) and too few
// eigenvalues found (TOOFEW, INFO = 2), against DSTEBZ's loops.
TEST(StebzPhases, DiscardingIsDstebzsOnAnyList) {
  std::mt19937 gen(11);
  for (int trial = 0; trial < 2000; ++trial) {
    const int m = static_cast<int>(gen() % 12);
    ph::Eigenvalues ev;
    for (int i = 0; i < m; ++i) {
      ev.w.push_back(static_cast<double>(gen() % 8));  // ties between blocks included
      ev.iblock.push_back(1 + static_cast<int>(gen() % 3));
    }
    const double wl = -1, wlu = static_cast<double>(gen() % 4), wul = 4 + gen() % 4, wu = 9;
    // NWU - NWL eigenvalues found, as DSTEBZ's block loop finds them, or (counts that are not
    // monotone) one or two fewer or one more.
    const int nwl = static_cast<int>(gen() % 5), nwu = nwl + m + static_cast<int>(gen() % 4) - 2;
    const int il = 1 + static_cast<int>(gen() % 6), iu = il + static_cast<int>(gen() % 8);
    std::vector<double> w_ref = ev.w;
    std::vector<int> ib_ref = ev.iblock;
    int m_ref = m;
    const bool toofew_ref =
        dstebz_discard(il, iu, nwl, nwu, wl, wlu, wul, wu, m_ref, w_ref, ib_ref);
    w_ref.resize(m_ref);
    ib_ref.resize(m_ref);
    ph::Interval iv;
    iv.wl = wl;
    iv.wlu = wlu;
    iv.wul = wul;
    iv.wu = wu;
    const ph::Request q{3, false, 0, 0, il, iu, 0};
    SCOPED_TRACE("trial " + std::to_string(trial));
    EXPECT_EQ(ph::discard(q, iv, nwl, nwu, ev), toofew_ref);
    EXPECT_EQ(ev.w, w_ref);
    EXPECT_EQ(ev.iblock, ib_ref);
  }
}

// 6. Ordering: ORDER 'E' applied to DSTEBZ's ORDER 'B' answer is DSTEBZ's ORDER 'E' answer, bit
// for bit (DSTEBZ computes the same W either way, then sorts); ORDER 'B' leaves it as it is.
TEST_P(StebzPhasesZoo, OrderingIsDstebzs) {
  for (const Query &query : queries(t_, 'E')) {
    SCOPED_TRACE(describe(query));
    Query by_block = query;
    by_block.order = 'B';
    const Outcome b = dstebz(t_, by_block), e = dstebz(t_, query);
    ASSERT_EQ(b.info, 0);
    ph::Eigenvalues ev{b.w, b.iblock};
    ph::order(request(t_, by_block), b.nsplit, ev);
    EXPECT_EQ(ev.w, b.w);
    EXPECT_EQ(ev.iblock, b.iblock);
    ph::order(request(t_, query), b.nsplit, ev);
    EXPECT_EQ(ev.w, e.w);
    EXPECT_EQ(ev.iblock, e.iblock);
  }
}

// All phases, with bisection for the device: DSTEBZ's INFO, M, NSPLIT, ISPLIT and IBLOCK
// exactly, W within the tolerance.
TEST_P(StebzPhasesZoo, AllPhasesReproduceDstebz) {
  for (char order : {'B', 'E'})
    for (const Query &query : queries(t_, order)) {
      SCOPED_TRACE(describe(query));
      expect_same(through_phases(t_, query), dstebz(t_, query),
                  stebz_tolerance(t_, query.abstol));
    }
}

INSTANTIATE_TEST_SUITE_P(
    Zoo, StebzPhasesZoo,
    ::testing::Combine(::testing::ValuesIn(zoo::symtridiagonal_kinds()),
                       ::testing::Values(2, 3, 4, 7, 16, 33, 64, 129, 300)),
    [](const ::testing::TestParamInfo<ZooParam> &p) {
      return std::get<0>(p.param) + "_n" + std::to_string(std::get<1>(p.param));
    });

// After the device: midpoints land in their blocks' slots (1 x 1 blocks' D(j) untouched), and
// a search that did not converge makes IBLOCK = -JB and NCNVRG, as in DSTEBZ.
TEST(StebzPhases, CollectMarksUnconvergedSearches) {
  const zoo::SymTridiagonal t = zoo::symtridiagonal("zero_offdiag", 40, 3);
  const ph::Request q = request(t, {'A', 'B', 0, 0, 0, 0, 0});
  const ph::Split s = ph::split(40, t.d.data(), t.e.data());
  const ph::Plan planned = ph::plan_blocks(q, s, t.d.data(), t.e.data(), false, ph::Interval{});
  ASSERT_GE(planned.blocks.size(), 2u);
  const size_t m = planned.out.w.size();
  ASSERT_EQ(m, 40u);
  std::vector<double> wg(m);
  for (size_t i = 0; i < m; ++i) wg[i] = 8.0 * static_cast<double>(i);
  for (bool all_converged : {true, false}) {
    ph::Plan p = planned;
    std::vector<int> conv(m, 1);
    const StebzBlock &second = p.blocks[1];
    if (!all_converged) conv[second.out + (second.last_k - second.first_k) - 1] = 0;
    EXPECT_EQ(ph::collect(p, wg, conv, 8.0), !all_converged);
    std::vector<bool> on_device(m, false);
    for (size_t b = 0; b < p.blocks.size(); ++b)
      for (int k = 0; k < p.blocks[b].last_k - p.blocks[b].first_k; ++k) {
        const int64_t pos = p.blocks[b].out + k;
        on_device[pos] = true;
        EXPECT_EQ(p.out.w[pos], static_cast<double>(pos));
        EXPECT_EQ(p.out.iblock[pos], conv[pos] ? p.block_of[b] : -p.block_of[b]);
      }
    for (size_t i = 0; i < m; ++i)
      if (!on_device[i]) {
        EXPECT_EQ(p.out.w[i], planned.out.w[i]);
        EXPECT_EQ(p.out.iblock[i], planned.out.iblock[i]);
      }
  }
}

// N = 1: DSTEBZ's special case, (VL, VU] half-open at exactly D(1); and the splitting agrees.
TEST(StebzPhases, OrderOneIsDstebzs) {
  const zoo::SymTridiagonal t{"one", {0.75}, {0.0}};
  for (const Query &q : {Query{'A', 'B', 0, 0, 0, 0, 0}, Query{'I', 'E', 0, 0, 1, 1, 0},
                         Query{'V', 'E', 0.75, 2, 0, 0, 0}, Query{'V', 'E', -1, 0.75, 0, 0, 0},
                         Query{'V', 'B', -3, -1, 0, 0, 0}, Query{'V', 'B', 1, 2, 0, 0, 0}}) {
    SCOPED_TRACE(describe(q));
    const Outcome ref = dstebz(t, q);
    expect_same(through_phases(t, q), ref, 0.0);
    const ph::Split s = ph::split(1, t.d.data(), t.e.data());
    EXPECT_EQ(s.nsplit(), ref.nsplit);
    EXPECT_EQ(s.isplit, ref.isplit);
  }
}

// IL = 1, IU = N is RANGE 'A' (DSTEBZ's IRANGE = 1); either case of letter is read.
TEST(StebzPhases, RequestAsDstebzReadsIt) {
  EXPECT_EQ(ph::request('A', 'B', 5, 0, 0, 0, 0, 0).irange, 1);
  EXPECT_EQ(ph::request('v', 'B', 5, 0, 1, 0, 0, 0).irange, 2);
  EXPECT_EQ(ph::request('I', 'B', 5, 0, 0, 1, 5, 0).irange, 1);
  EXPECT_EQ(ph::request('i', 'B', 5, 0, 0, 1, 4, 0).irange, 3);
  EXPECT_TRUE(ph::request('A', 'e', 5, 0, 0, 0, 0, 0).order_e);
  EXPECT_FALSE(ph::request('A', 'B', 5, 0, 0, 0, 0, 0).order_e);
}

// An E(i)^2 that overflows makes PIVMIN infinite: the GPU path declines (Status::unsafe) on
// exactly this.
TEST(StebzPhases, OverflowingOffDiagonalMakesPivminInfinite) {
  const std::vector<double> d = {1.0, 2.0, 3.0}, e = {1e200, 1.0};
  EXPECT_FALSE(std::isfinite(ph::split(3, d.data(), e.data()).pivmin));
  const std::vector<double> e_ok = {1e150, 1.0};
  EXPECT_TRUE(std::isfinite(ph::split(3, d.data(), e_ok.data()).pivmin));
}

// The selection sort DSTEBZ's ORDER 'E' performs, transcribed (O(m^2)).
void selection_sort(std::vector<double> &w, std::vector<int> &ib) {
  const size_t m = w.size();
  for (size_t je = 0; je + 1 < m; ++je) {
    size_t ie = 0;
    double tmp = w[je];
    for (size_t j = je + 1; j < m; ++j)
      if (w[j] < tmp) {
        ie = j;
        tmp = w[j];
      }
    if (ie != 0) {
      std::swap(w[ie], w[je]);
      std::swap(ib[ie], ib[je]);
    }
  }
}

// ORDER 'E' with many ties between blocks: where DSTEBZ's selection sort leaves equal
// eigenvalues is reproduced exactly (a plain stable sort would not).
TEST(StebzPhases, OrderESortIsDstebzsSelectionSort) {
  std::mt19937 gen(5);
  for (int m : {0, 1, 2, 3, 8, 31, 100, 257})
    for (int distinct : {1, 2, 5, 1000}) {
      std::vector<double> w(m);
      std::vector<int> ib(m);
      for (int i = 0; i < m; ++i) {
        w[i] = static_cast<double>(gen() % distinct) * 0.25;
        ib[i] = i + 1;
      }
      std::vector<double> w_ref = w;
      std::vector<int> ib_ref = ib;
      selection_sort(w_ref, ib_ref);
      ph::order_e_sort(w, ib);
      EXPECT_EQ(w, w_ref) << "m=" << m << " distinct=" << distinct;
      EXPECT_EQ(ib, ib_ref) << "m=" << m << " distinct=" << distinct;
    }
}

// The device workspace: its byte count as gpu_stebz has always asked for it, and the parts at
// 16-byte aligned, disjoint offsets inside it.
TEST(StebzPhases, WorkspaceLayout) {
  for (int n : {2, 3, 17, 1000, 100003})
    for (int nsplit : {1, 2, n / 2 + 1, n}) {
      const ph::WorkspaceLayout l = ph::workspace_layout(n, nsplit);
      const size_t nn = static_cast<size_t>(n);
      const size_t size[6] = {nn * sizeof(SturmRow),    (nsplit + 2) * sizeof(StebzBlock),
                              nn * sizeof(double),      nn * sizeof(int),
                              2 * sizeof(StebzBracket), (ph::kGridPoints + 1) * sizeof(int)};
      const size_t at[6] = {l.rows, l.blocks, l.w, l.conv, l.brackets, l.grid};
      EXPECT_LE(l.bytes, size[0] + size[1] + size[2] + size[3] + size[4] + size[5] + 6 * 255);
      EXPECT_EQ(at[0], 0u);
      for (int i = 0; i < 6; ++i) {
        EXPECT_EQ(at[i] % 256, 0u) << "part " << i;
        if (i > 0) EXPECT_GE(at[i], at[i - 1] + size[i - 1]) << "part " << i;
      }
      EXPECT_LE(at[5] + size[5], l.bytes);
    }
  EXPECT_EQ(sizeof(StebzBlock), 72u);  // read by the device as is
  EXPECT_EQ(sizeof(StebzBracket), 32u);
}

// The grid of counts goes with one block of order >= 1024 with >= 64 eigenvalues wanted only.
TEST(StebzPhases, GridOnlyForOneLargeBlock) {
  auto grid = [](const zoo::SymTridiagonal &t, const Query &query) {
    const int n = order_of(t);
    const ph::Request q = request(t, query);
    const ph::Split s = ph::split(n, t.d.data(), t.e.data());
    return ph::use_grid(ph::plan_blocks(q, s, t.d.data(), t.e.data(), ph::by_index(q, s),
                                        ph::value_interval(q)));
  };
  const Query all{'A', 'E', 0, 0, 0, 0, 0};
  EXPECT_TRUE(grid(zoo::symtridiagonal("random", 1024), all));
  EXPECT_FALSE(grid(zoo::symtridiagonal("random", 1023), all));
  EXPECT_TRUE(grid(zoo::symtridiagonal("random", 2000), {'I', 'E', 0, 0, 101, 164, 0}));
  EXPECT_FALSE(grid(zoo::symtridiagonal("random", 2000), {'I', 'E', 0, 0, 101, 163, 0}));
  EXPECT_FALSE(grid(zoo::symtridiagonal("zero_offdiag", 2000), all));
}

}  // namespace
