// gpu_stebz's host half: DSTEBZ's phases around the device's bracketing (see stebz_phases.hpp).
// The arithmetic is DSTEBZ's, expression for expression, so that M, NSPLIT, ISPLIT and IBLOCK are
// DSTEBZ's own.
#include "stebz_phases.hpp"
#include "workspace_plan.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <utility>

namespace gpueig::stebz_phases {
namespace {

// DSTEBZ's Gershgorin interval [gl, gu] of rows begin..end-1, with off(j) = |T(j, j+1)| as the
// caller's DSTEBZ step takes it (before the fudge, which differs between the steps).
template <class Off>
std::pair<double, double> gershgorin(const double *d, int begin, int end, Off off) {
  double gu = d[begin], gl = d[begin], t1 = 0;
  for (int j = begin; j < end - 1; ++j) {
    const double t2 = off(j);
    gu = std::max(gu, d[j] + t1 + t2);
    gl = std::min(gl, d[j] - t1 - t2);
    t1 = t2;
  }
  return {std::min(gl, d[end - 1] - t1), std::max(gu, d[end - 1] + t1)};
}

}  // namespace

Request request(char range, char order, int n, double vl, double vu, int il, int iu,
                double abstol) {
  int irange = (range == 'A' || range == 'a') ? 1 : (range == 'V' || range == 'v') ? 2 : 3;
  if (irange == 3 && il == 1 && iu == n) irange = 1;
  return {irange, order == 'E' || order == 'e', vl, vu, il, iu, abstol};
}

Eigenvalues order_one(const Request &q, double d0) {
  if (q.irange == 2 && (q.vl >= d0 || q.vu < d0)) return {};
  return {{d0}, {1}};
}

// --- 1. Splitting ----------------------------------------------------------------------------

Split split(int n, const double *d, const double *e) {
  Split s{std::vector<SturmRow>(n), {}, 1.0};
  s.rows[0] = {d[0], 0.0};
  for (int j = 1; j < n; ++j) {
    const double t = e[j - 1] * e[j - 1];
    s.rows[j] = {d[j], 0.0};
    if (std::fabs(d[j] * d[j - 1]) * (kUlp * kUlp) + kSafeMin > t) {
      s.isplit.push_back(j);
    } else {
      s.rows[j].e2 = t;
      s.pivmin = std::max(s.pivmin, t);
    }
  }
  s.isplit.push_back(n);
  s.pivmin *= kSafeMin;
  return s;
}

// --- 2. The interval and ATOLI ------------------------------------------------------------------

Interval value_interval(const Request &q) {
  Interval iv;
  if (q.irange == 2) {
    iv.wl = q.vl;
    iv.wu = q.vu;
  }
  return iv;
}

bool by_index(const Request &q, const Split &s) { return q.irange == 3 && s.nsplit() == 1; }

IndexSearch index_search(const Request &q, const Split &s, const double *d) {
  const int n = static_cast<int>(s.rows.size());
  const double pivmin = s.pivmin;
  // Off-diagonals as DSTEBZ takes them here: sqrt(e^2), i.e. 0 where T splits.
  auto [gl, gu] = gershgorin(d, 0, n, [&](int j) { return std::sqrt(s.rows[j + 1].e2); });
  const double tnorm = std::max(std::fabs(gl), std::fabs(gu));
  gl = gl - kFudge * tnorm * kUlp * n - kFudge * 2.0 * pivmin;
  gu = gu + kFudge * tnorm * kUlp * n + kFudge * pivmin;
  IndexSearch is;
  is.gl = gl;
  is.gu = gu;
  is.itmax = static_cast<int>((std::log(tnorm + pivmin) - std::log(pivmin)) / std::log(2.0)) + 2;
  is.atoli = q.abstol <= 0 ? kUlp * tnorm : q.abstol;
  is.lower = {gl, gl, 0, 0, 1};
  is.upper = {gu, gu, n, n, 1};
  is.lower.nlo = is.lower.nhi = sturm_count(s.rows.data(), n, gl, pivmin);
  is.upper.nlo = is.upper.nhi = sturm_count(s.rows.data(), n, gu, pivmin);
  is.search_lower = q.il > 1 || is.lower.nlo != 0;
  is.search_upper = q.iu < n || is.upper.nlo != n;
  if (is.search_lower)
    is.targets.push_back({0, n, q.il - 1, q.il, 0, 0, gl, gu, is.atoli, is.itmax, 1});
  if (is.search_upper)
    is.targets.push_back({0, n, q.iu, q.iu + 1, 0, static_cast<int64_t>(is.targets.size()), gl,
                          gu, is.atoli, is.itmax, 1});
  return is;
}

Interval index_interval(const Request &q, const Split &s, const IndexSearch &is,
                        const StebzBracket *found) {
  const int n = static_cast<int>(s.rows.size());
  StebzBracket lower = is.lower, upper = is.upper;
  int next = 0;
  if (is.search_lower) lower = found[next++];
  if (is.search_upper) upper = found[next++];
  // Sides a search never moved keep DLAEBZ's "unknown" marks: count them here.
  for (StebzBracket *b : {&lower, &upper}) {
    if (b->nlo < 0) b->nlo = sturm_count(s.rows.data(), n, b->lo, s.pivmin);
    if (b->nhi > n) b->nhi = sturm_count(s.rows.data(), n, b->hi, s.pivmin);
  }
  Interval iv;
  iv.wl = lower.lo;
  iv.wlu = lower.hi;
  iv.nwl = lower.nlo;
  if (upper.nlo == q.iu) {  // a point with exactly IU eigenvalues below
    iv.wu = iv.wul = upper.lo;
    iv.nwu = q.iu;
  } else {
    iv.wu = upper.hi;
    iv.wul = upper.lo;
    iv.nwu = upper.nhi;
  }
  iv.valid = !(iv.nwl < 0 || iv.nwl >= n || iv.nwu < 1 || iv.nwu > n);
  return iv;
}

BlockBounds block_bounds(const double *d, const double *e, int begin, int end, double pivmin,
                         double abstol) {
  const int in = end - begin;
  auto [gl, gu] = gershgorin(d, begin, end, [&](int j) { return std::fabs(e[j]); });
  const double bnorm = std::max(std::fabs(gl), std::fabs(gu));
  gl = gl - kFudge * bnorm * kUlp * in - kFudge * pivmin;
  gu = gu + kFudge * bnorm * kUlp * in + kFudge * pivmin;
  const double atoli = abstol <= 0 ? kUlp * std::max(std::fabs(gl), std::fabs(gu)) : abstol;
  return {gl, gu, atoli};
}

// --- 3. The block plan -----------------------------------------------------------------------

Plan plan_blocks(const Request &q, const Split &s, const double *d, const double *e,
                 bool by_index, const Interval &iv) {
  const int irange = q.irange;
  const double pivmin = s.pivmin, wl = iv.wl, wu = iv.wu;
  Plan p;
  std::vector<double> &w = p.out.w;
  std::vector<int> &ib = p.out.iblock;
  int iend = 0;
  for (int jb = 1; jb <= s.nsplit(); ++jb) {
    const int ibegin = iend;
    iend = s.isplit[jb - 1];
    const int in = iend - ibegin;
    if (in == 1) {
      const double v = d[ibegin] - pivmin;
      if (irange == 1 || wl >= v) ++p.nwl;
      if (irange == 1 || wu >= v) ++p.nwu;
      if (irange == 1 || (wl < v && wu >= v)) {
        w.push_back(d[ibegin]);
        ib.push_back(jb);
      }
      continue;
    }
    auto [gl, gu, atoli] = block_bounds(d, e, ibegin, iend, pivmin, q.abstol);
    if (irange > 1 && !by_index) {
      if (gu < wl) {
        p.nwl += in;
        p.nwu += in;
        continue;
      }
      gl = std::max(gl, wl);
      gu = std::min(gu, wu);
      if (gl >= gu) continue;
    }
    const SturmRow *rows = s.rows.data() + ibegin;
    const int nab1 = by_index ? q.il - 1 : sturm_count(rows, in, gl, pivmin);
    const int nab2 = by_index ? q.iu : sturm_count(rows, in, gu, pivmin);
    p.nwl += nab1;
    p.nwu += nab2;
    const int im = nab2 - nab1;
    if (im <= 0) continue;
    const int itmax =
        static_cast<int>((std::log(gu - gl + pivmin) - std::log(pivmin)) / std::log(2.0)) + 2;
    p.blocks.push_back({ibegin, in, nab1, nab2, static_cast<int64_t>(w.size()), p.ntasks, gl, gu,
                        atoli, itmax, 0});
    p.block_of.push_back(jb);
    p.ntasks += im;
    w.insert(w.end(), im, 0.0);
    ib.insert(ib.end(), im, jb);
  }
  return p;
}

bool use_grid(const Plan &p) {
  return p.blocks.size() == 1 && p.blocks[0].len >= kGridMinOrder && p.ntasks >= kGridMinTasks;
}

WorkspaceLayout workspace_layout(int n, int nsplit) {
  const size_t nn = static_cast<size_t>(n);
  WorkspacePlan plan;
  WorkspaceLayout l{};
  l.rows = plan.add_array<SturmRow>(nn);
  l.blocks = plan.add_array<StebzBlock>(nsplit + 2);
  l.w = plan.add_array<double>(nn);
  l.conv = plan.add_array<int>(nn);
  l.brackets = plan.add_array<StebzBracket>(2);
  l.grid = plan.add_array<int>(kGridPoints + 1);
  l.bytes = plan.bytes();
  return l;
}

// --- 4. After the device's bracketing ------------------------------------------------------------

bool collect(Plan &p, const std::vector<double> &wg, const std::vector<int> &conv, double scale) {
  bool ncnvrg = false;
  for (size_t b = 0; b < p.blocks.size(); ++b)
    for (int k = 0; k < p.blocks[b].last_k - p.blocks[b].first_k; ++k) {
      const int64_t pos = p.blocks[b].out + k;
      p.out.w[pos] = wg[pos] / scale;
      if (!conv[pos]) {  // DSTEBZ marks eigenvalues that did not converge with -JB
        p.out.iblock[pos] = -p.block_of[b];
        ncnvrg = true;
      }
    }
  return ncnvrg;
}

// --- 5. Discarding -----------------------------------------------------------------------------

bool discard(const Request &q, const Interval &iv, int nwl, int nwu, Eigenvalues &ev) {
  std::vector<double> &w = ev.w;
  std::vector<int> &ib = ev.iblock;
  int idiscl = q.il - 1 - nwl, idiscu = nwu - q.iu;
  if (idiscl > 0 || idiscu > 0) {
    size_t im = 0;
    for (size_t je = 0; je < w.size(); ++je) {
      if (w[je] <= iv.wlu && idiscl > 0) {
        --idiscl;
      } else if (w[je] >= iv.wul && idiscu > 0) {
        --idiscu;
      } else {
        w[im] = w[je];
        ib[im] = ib[je];
        ++im;
      }
    }
    w.resize(im);
    ib.resize(im);
  }
  if (idiscl > 0 || idiscu > 0) {
    // Non-monotone counts left surplus eigenvalues outside the clusters: drop the smallest
    // IDISCL and the largest IDISCU, as DSTEBZ does.
    for (; idiscl > 0; --idiscl) {
      size_t iw = w.size();
      double wkill = iv.wu;
      for (size_t je = 0; je < w.size(); ++je)
        if (ib[je] != 0 && (w[je] < wkill || iw == w.size())) {
          iw = je;
          wkill = w[je];
        }
      if (iw < w.size()) ib[iw] = 0;
    }
    for (; idiscu > 0; --idiscu) {
      size_t iw = w.size();
      double wkill = iv.wl;
      for (size_t je = 0; je < w.size(); ++je)
        if (ib[je] != 0 && (w[je] > wkill || iw == w.size())) {
          iw = je;
          wkill = w[je];
        }
      if (iw < w.size()) ib[iw] = 0;
    }
    size_t im = 0;
    for (size_t je = 0; je < w.size(); ++je)
      if (ib[je] != 0) {
        w[im] = w[je];
        ib[im] = ib[je];
        ++im;
      }
    w.resize(im);
    ib.resize(im);
  }
  return idiscl < 0 || idiscu < 0;
}

// --- 6. Ordering -------------------------------------------------------------------------------

void order(const Request &q, int nsplit, Eigenvalues &ev) {
  if (q.order_e && nsplit > 1) order_e_sort(ev.w, ev.iblock);
}

// DSTEBZ's ORDER = 'E' sort, which is a selection sort: for each position, the first strictly
// smaller minimum among the later ones is swapped in. Equal eigenvalues of different blocks end
// up in an order only that algorithm defines, so it is reproduced exactly (in O(m log m), with a
// segment tree over the positions) whenever there are ties; without ties a plain sort agrees.
void order_e_sort(std::vector<double> &w, std::vector<int> &ib) {
  const size_t m = w.size();
  if (m < 2) return;
  std::vector<size_t> idx(m);
  std::iota(idx.begin(), idx.end(), 0);
  std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return w[a] < w[b]; });
  bool ties = false;
  for (size_t i = 1; i < m && !ties; ++i) ties = w[idx[i]] == w[idx[i - 1]];
  if (!ties) {
    std::vector<double> w2(m);
    std::vector<int> ib2(m);
    for (size_t i = 0; i < m; ++i) {
      w2[i] = w[idx[i]];
      ib2[i] = ib[idx[i]];
    }
    w.swap(w2);
    ib.swap(ib2);
    return;
  }
  size_t size = 1;
  while (size < m) size *= 2;
  std::vector<size_t> tree(2 * size, m);  // index of the leftmost minimum; m = empty
  auto better = [&](size_t a, size_t b) {
    if (a == m) return b;
    if (b == m) return a;
    return w[b] < w[a] ? b : a;  // ties keep the left one
  };
  auto update = [&](size_t p) {
    size_t i = p + size;
    tree[i] = p;
    for (i /= 2; i >= 1; i /= 2) tree[i] = better(tree[2 * i], tree[2 * i + 1]);
  };
  for (size_t p = 0; p < m; ++p) tree[p + size] = p;
  for (size_t i = size - 1; i >= 1; --i) tree[i] = better(tree[2 * i], tree[2 * i + 1]);
  auto query = [&](size_t l, size_t r) {  // leftmost minimum in [l, r)
    size_t left = m, right = m;
    for (l += size, r += size; l < r; l /= 2, r /= 2) {
      if (l & 1) left = better(left, tree[l++]);
      if (r & 1) right = better(tree[--r], right);
    }
    return better(left, right);
  };
  for (size_t je = 0; je + 1 < m; ++je) {
    const size_t ie = query(je + 1, m);
    if (w[ie] < w[je]) {
      std::swap(w[ie], w[je]);
      std::swap(ib[ie], ib[je]);
      update(ie);
      update(je);
    }
  }
}

}  // namespace gpueig::stebz_phases
