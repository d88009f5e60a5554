// gpu_toeplitz_eig's structured method (see toeplitz_structured.hpp): T's Cauchy-like form, its
// inertia by pivoted elimination on the generators, and the search that brackets the wanted
// eigenvalues with it.
#include "toeplitz_structured.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <exception>
#include <initializer_list>
#include <map>
#include <thread>

#include "host_parts.hpp"

namespace gpueig::structured {
namespace {

constexpr double kEps = DBL_EPSILON;

// Caps: rounds of evaluations (each at least halves every bracket it works on, and 64 halvings
// exhaust a double's range: the rest is room for retries) and shifts moved after untrusted or
// inconsistent counts per bracket.
constexpr int kMaxRounds = 400;
constexpr int kMaxRetries = 12;

// ||T||_1: the largest column sum, |t0| + P(c) + P(n-1-c) over the columns c, P(k) the sum of
// |t(1..k)| (the arms above and below the diagonal).
double norm1(int64_t n, const double *t) {
  std::vector<double> prefix(n, 0.0);
  for (int64_t k = 1; k < n; ++k) prefix[k] = prefix[k - 1] + std::fabs(t[k]);
  double best = 0;
  for (int64_t c = 0; c < n; ++c) best = std::max(best, prefix[c] + prefix[n - 1 - c]);
  return std::fabs(t[0]) + best;
}

// A point of the search: a shift, the count there and log|det(T - x I)| (plus a constant of the
// call; NaN where not known: Gershgorin's ends).
struct Point {
  double x;
  int64_t below;
  double logdet = std::nan("");
};

// A bracket (lo.x, hi.x] holding eigenvalues lo.below + 1 .. hi.below of T.
struct Bracket {
  Point lo, hi;
  int retries = 0;  // rounds in a row that left this bracket as it was (its shifts then move)
  bool stalled = false;  // the last round did not halve it: this round bisects
  int kept = 0;          // the end the last round kept (-1 lo, +1 hi, 0 neither)
  double bias = 0;       // -log of the kept end's |det| scaling (Anderson and Bjorck's rule)
  double width() const { return hi.x - lo.x; }
};

// Sorted, distinct shifts strictly inside the bracket.
std::vector<double> inside(const Bracket &b, std::vector<double> xs) {
  std::sort(xs.begin(), xs.end());
  std::vector<double> out;
  for (double x : xs)
    if (x > b.lo.x && x < b.hi.x && (out.empty() || x > out.back())) out.push_back(x);
  return out;
}

// `count` evenly spaced shifts inside the bracket; a retry moves them by a fraction of the
// spacing that differs each time.
std::vector<double> evenly(const Bracket &b, int count) {
  std::vector<double> xs;
  const double lo = b.lo.x, w = b.width();
  const double shift = b.retries ? 0.3 * std::sin(1.0 + 2.0 * b.retries) : 0.0;
  for (int i = 1; i <= count; ++i) xs.push_back(lo + w * ((i + shift) / (count + 1)));
  return inside(b, xs);
}

// The shifts of a round for bracket b, `count` of them where that is what helps (an isolated
// eigenvalue gets one or two; a bracket whose eigenvalues are all wanted, evenly spaced ones):
//  - one eigenvalue inside, both ends' determinants known: det(T - x I) changes sign once in the
//    bracket and is smooth there, so its linear interpolation between the ends (regula falsi, in
//    logs: no overflow; the neighbours' factors divided out; a kept end's |det| scaled down by
//    Anderson and Bjorck's rule against one-sided convergence) estimates the eigenvalue; the
//    shifts go to the estimate and, once the bracket is within reach, a tolerance's fraction
//    either side of it, so that a good estimate finishes the bracket in one round;
//  - more eigenvalues inside than wanted: the wanted ones' edges estimated by interpolating the
//    counts, the shifts at the estimates and from there geometrically towards the nearer end
//    (near the spectrum's ends the counts grow like a square root, and the estimate overshoots);
//  - otherwise, or when the last round did not halve the bracket: evenly spaced.
std::vector<double> proposals(const Bracket &b, int count, int64_t il, int64_t iu, double tol, double mu_lo,
                              double mu_hi) {
  const int64_t k = b.hi.below - b.lo.below;
  const double lo = b.lo.x, w = b.width();
  if (b.retries || b.stalled) return evenly(b, count);
  // det(T - lo I) = 0 with lo's count k - 1: lo is eigenvalue k itself (the bracket's); a shift a
  // fraction of the tolerance above it finishes the bracket. (Exact zeros happen where C is
  // diagonal, T tridiagonal, once an interpolation lands on an eigenvalue.)
  if (k == 1 && b.lo.logdet == -INFINITY && w > 0.45 * tol) {
    const std::vector<double> in = inside(b, {lo + 0.45 * tol});
    if (!in.empty()) return in;
  }
  if (k == 1 && std::isfinite(b.lo.logdet) && std::isfinite(b.hi.logdet)) {
    // The neighbouring eigenvalues' factors divided out where their brackets estimate them: a
    // neighbour close to one end makes |det| small there whatever the root's place.
    auto deflate = [&](double x) {
      return (std::isfinite(mu_lo) ? std::log(std::fabs(x - mu_lo)) : 0.0) +
             (std::isfinite(mu_hi) ? std::log(std::fabs(mu_hi - x)) : 0.0);
    };
    const double l_lo = b.lo.logdet - deflate(b.lo.x) - (b.kept < 0 ? b.bias : 0),
                 l_hi = b.hi.logdet - deflate(b.hi.x) - (b.kept > 0 ? b.bias : 0);
    const double x = lo + w / (1 + std::exp(l_hi - l_lo));  // |f_lo| / (|f_lo| + |f_hi|) of the way
    const double delta = 0.45 * tol;
    std::vector<double> xs;
    if (count == 1 && w > 32 * tol) {
      xs.push_back(x);
    } else {
      for (int j = 0; int(xs.size()) < std::max(count, 2) && j < 8; ++j) {
        const double off = delta * std::pow(16.0, j);
        xs.push_back(x - off), xs.push_back(x + off);
      }
    }
    std::vector<double> in = inside(b, xs);
    return in.empty() ? evenly(b, 1) : in;
  }
  const bool cut_lo = b.lo.below < il - 1, cut_hi = b.hi.below > iu;
  if (k > 1 && (cut_lo || cut_hi)) {
    std::vector<int64_t> edges;  // j: the edge between eigenvalues j and j + 1
    if (cut_lo) edges.push_back(il - 1);
    if (cut_hi) edges.push_back(iu);
    // Half the shifts (all of a single one) at the estimates, the rest evenly spaced: where the
    // bracket's low end lies well below the spectrum (Gershgorin's), the counts' interpolation
    // misleads, and the even ones still divide the bracket.
    const int guided = std::max(1, count / 2);
    const int each = std::max(1, guided / int(edges.size())), geometric = std::min(each, 8);
    std::vector<double> xs;
    for (int64_t j : edges) {
      const double at = double(j - b.lo.below) + 0.5, xj = lo + w * (at / double(k));
      const bool low = j - b.lo.below <= b.hi.below - j;
      for (int i = 0; i < geometric; ++i) {
        const double r = std::ldexp(1.0, -2 * i);
        xs.push_back(low ? lo + (xj - lo) * r : b.hi.x - (b.hi.x - xj) * r);
      }
    }
    const int rest = count - int(xs.size());
    if (rest > 0) {
      const std::vector<double> more = evenly(b, rest);
      xs.insert(xs.end(), more.begin(), more.end());
    }
    std::vector<double> in = inside(b, xs);
    return in.empty() ? evenly(b, count) : in;
  }
  return evenly(b, count);
}

}  // namespace

AngleTables angle_tables(int64_t n) {
  const int64_t period = 2 * (n + 1);
  AngleTables a{std::vector<double>(period), std::vector<double>(period)};
  for (int64_t m = 0; m < period; ++m) {
    a.sn[m] = std::sin(M_PI * double(m) / double(n + 1));
    a.cs[m] = std::cos(M_PI * double(m) / double(n + 1));
  }
  return a;
}

CauchyForm cauchy_nodes(int64_t n, const AngleTables &tables) {
  CauchyForm f;
  f.n = n;
  for (int p = 0; p < 2; ++p) {
    CauchyHalf &b = f.half[p];
    b.size = p == 0 ? (n + 1) / 2 : n / 2;
    b.g.resize(b.size), b.h.resize(b.size), b.d.resize(b.size), b.v.resize(b.size);
  }
  const double scale = std::sqrt(2.0 / double(n + 1)), period = 2.0 * double(n + 1);
  for (int64_t j = 1; j <= n; ++j) {
    CauchyHalf &b = f.half[half_of(j)];
    const int64_t i = place_of(j);
    b.h[i] = scale * tables.sn[j];  // h = S e_1
    b.v[i] = 2 * j < n + 1 ? std::sin(M_PI * double(j) / period) : -std::cos(M_PI * double(j) / period);
  }
  return f;
}

double unit_scale(int64_t n, const double *t) {
  double big = 0;
  for (int64_t k = 0; k < n; ++k) big = std::max(big, std::fabs(t[k]));
  if (!(big > 0) || !std::isfinite(big)) return 1;
  int e = 0;
  std::frexp(big, &e);  // big = f 2^e, f in [0.5, 1)
  return std::ldexp(1.0, -e);
}

CauchyForm cauchy_form(int64_t n, const double *t_in) {
  const double scale = unit_scale(n, t_in);
  std::vector<double> scaled(t_in, t_in + n);
  for (double &x : scaled) x *= scale;
  const double *t = scaled.data();
  const AngleTables tables = angle_tables(n);
  CauchyForm f = cauchy_nodes(n, tables);
  f.scale = scale;
  const int parts = host_parts(n * n, int64_t(1) << 16);
  run_parts(parts, [&](int part) {
    for (int64_t j = 1 + part; j <= n; j += parts) {
      CauchyHalf &b = f.half[half_of(j)];
      cauchy_row(n, j, t, tables.sn.data(), tables.cs.data(), &b.g[place_of(j)], &b.d[place_of(j)]);
    }
  });
  return f;
}

int64_t half_inertia(const CauchyHalf &b, double sigma, Scratch &w, bool *trusted, double *logdet) {
  int64_t m = b.size, neg = 0;
  *logdet = 0;
  if (m == 0) return 0;
  w.g = b.g, w.h = b.h, w.v = b.v;
  w.d.resize(m), w.c.resize(m), w.cq.resize(m);
  double start = 0;
  for (int64_t i = 0; i < m; ++i) {
    w.d[i] = b.d[i] - sigma;
    start = std::max(start, std::max(std::fabs(b.g[i]), std::fabs(b.h[i])));
  }
  double *g = w.g.data(), *h = w.h.data(), *d = w.d.data(), *v = w.v.data(), *c = w.c.data(),
         *cq = w.cq.data();
  auto entry = [&](int64_t i, int64_t p) { return cauchy_entry(g[i], h[i], v[i], g[p], h[p], v[p]); };
  // Row p off the diagonal into `out` (out[p] unused): its largest magnitude, where (*at), and,
  // with `next`, the largest |d| other than p's (the candidate after p).
  auto row = [&](int64_t p, double *out, int64_t *at, int64_t *next) {
    double best = 0;
    *at = -1;
    if (next) *next = -1;
    for (int64_t i = 0; i < m; ++i) {
      if (i == p) continue;
      out[i] = entry(i, p);
      const double a = std::fabs(out[i]);
      if (a > best || *at < 0) best = a, *at = i;
      if (next && (*next < 0 || std::fabs(d[i]) > std::fabs(d[*next]))) *next = i;
    }
    return best;
  };
  // Removes element p from the active block (swapped with the last); the indices in `keep`
  // follow the element they name.
  auto remove = [&](int64_t p, std::initializer_list<int64_t *> keep) {
    --m;
    std::swap(g[p], g[m]), std::swap(h[p], h[m]), std::swap(d[p], d[m]), std::swap(v[p], v[m]);
    std::swap(c[p], c[m]), std::swap(cq[p], cq[m]);
    for (int64_t *k : keep)
      if (*k == p) *k = -1;
      else if (*k == m) *k = p;
  };
  double largest = start;
  bool finite = true;
  // The candidate r (the largest |d| to start with) and its row in c: each step's update reuses
  // the pivot's row, and the next candidate's row is formed once (a row a step, not two).
  int64_t r = 0;
  for (int64_t i = 1; i < m; ++i)
    if (std::fabs(d[i]) > std::fabs(d[r])) r = i;
  int64_t q = -1, s = -1;
  double w_r = row(r, c, &q, &s);
  while (m > 1) {
    // Bunch-Kaufman on candidate r: the 1x1 pivot r or q, or the 2x2 pivot (r, q). A zero row r
    // is its own pivot with no update (its multipliers are zero).
    int64_t p1 = r, p2 = -1;
    bool by_q = false;
    if (w_r > 0 && !(std::fabs(d[r]) >= kAlpha * w_r)) {
      int64_t unused = -1;
      const double w_q = row(q, cq, &unused, nullptr);
      if (std::fabs(d[r]) * w_q >= kAlpha * w_r * w_r) p1 = r;
      else if (std::fabs(d[q]) >= kAlpha * w_q) p1 = q, by_q = true;
      else p2 = q;
    }
    if (w_r == 0) {
      neg += d[r] < 0;
      *logdet += std::log(std::fabs(d[r]));
    } else if (p2 < 0) {  // 1x1: C22 -= c c' / d_p, generators u_i -= (c_i / d_p) u_p
      const double *cp = by_q ? cq : c;
      const double dp = d[p1], gp = g[p1], hp = h[p1];
      neg += dp < 0;
      *logdet += std::log(std::fabs(dp));
      for (int64_t i = 0; i < m; ++i) {
        if (i == p1) continue;
        const double ci = cp[i], f = ci / dp;
        g[i] -= f * gp, h[i] -= f * hp, d[i] -= f * ci;
        largest = std::max(largest, std::max(std::fabs(g[i]), std::fabs(h[i])));
        finite &= std::isfinite(g[i] + h[i] + d[i]);
      }
    } else {  // 2x2 (its determinant is negative: one negative eigenvalue)
      const double a = d[p1], e = d[p2], x = c[p2], det = a * e - x * x;
      ++neg;
      *logdet += std::log(std::fabs(det));
      const double g1 = g[p1], h1 = h[p1], g2 = g[p2], h2 = h[p2];
      for (int64_t i = 0; i < m; ++i) {
        if (i == p1 || i == p2) continue;
        const double c1 = c[i], c2 = cq[i];
        const double f1 = (c1 * e - c2 * x) / det, f2 = (c2 * a - c1 * x) / det;
        g[i] -= f1 * g1 + f2 * g2, h[i] -= f1 * h1 + f2 * h2, d[i] -= f1 * c1 + f2 * c2;
        largest = std::max(largest, std::max(std::fabs(g[i]), std::fabs(h[i])));
        finite &= std::isfinite(g[i] + h[i] + d[i]);
      }
    }
    // The next candidate: the best |d| after r found with r's row (s), or r itself when q was the
    // pivot; where the pivots took both, the largest |d| now.
    int64_t next = by_q ? r : s;
    if (p2 >= 0) {
      remove(std::max(p1, p2), {&next});  // the larger index first: the swap cannot move the other
      remove(std::min(p1, p2), {&next});
    } else {
      remove(p1, {&next});
    }
    if (m <= 1) break;
    if (next < 0) {
      next = 0;
      for (int64_t i = 1; i < m; ++i)
        if (std::fabs(d[i]) > std::fabs(d[next])) next = i;
    }
    r = next;
    w_r = row(r, c, &q, &s);
  }
  if (m == 1) neg += d[0] < 0, *logdet += std::log(std::fabs(d[0]));
  if (!finite || !(largest <= kGrowth * start)) *trusted = false;
  return neg;
}

gpu::ToeplitzInertia inertia(const CauchyForm &form, double sigma, Scratch &scratch) {
  gpu::ToeplitzInertia r;
  bool trusted = true;
  const double s = sigma * form.scale;  // exact (a power of two), unless it under- or overflows
  double l0 = 0, l1 = 0;
  r.below = half_inertia(form.half[0], s, scratch, &trusted, &l0) + half_inertia(form.half[1], s, scratch, &trusted, &l1);
  r.trusted = trusted;
  r.logdet = l0 + l1;
  return r;
}

Report search(int64_t n, const double *t, char range, double vl, double vu, int il, int iu,
              double abstol, int slots, const Evaluate &evaluate, int64_t most, int *m, double *w) {
  Report rep;
  *m = 0;
  slots = std::max(slots, 1);
  rep.slots = slots;
  const double norm = std::max(norm1(n, t), DBL_MIN);
  const double floor = 2 * kEps * norm;
  const double tol = abstol > 0 ? std::max(abstol, floor) : std::max(2.0, double(n)) * kEps * norm;
  std::vector<gpu::ToeplitzInertia> out;
  auto run = [&](const std::vector<double> &xs) {
    out.assign(xs.size(), {});
    gpu::Status s = evaluate(xs, out);
    ++rep.rounds;
    rep.evaluations += int64_t(xs.size());
    if (!s) rep.why = "evaluation failed: " + s.reason, rep.failure = s;
    return bool(s);
  };

  // ---- The starting bracket: Gershgorin's interval (RANGE 'I'), or (VL, VU] evaluated.
  const double radius = norm - std::fabs(t[0]), pad = 4 * kEps * norm;
  Bracket start{{t[0] - radius - pad, 0}, {t[0] + radius + pad, n}};
  if (range == 'V' || range == 'v') {
    std::vector<double> xs{std::max(vl, start.lo.x), std::min(vu, start.hi.x)};
    if (!(xs[0] < xs[1])) return rep.ok = true, rep;
    for (int tries = 0;; ++tries) {
      if (!run(xs)) return rep;
      if (out[0].trusted && out[1].trusted && out[0].below <= out[1].below) break;
      rep.untrusted += !out[0].trusted + !out[1].trusted;
      if (tries == kMaxRetries) return rep.why = "no trusted count at VL or VU", rep;
      // A bound whose count cannot be trusted moves outward by a growing multiple of the
      // tolerance: the eigenvalues that near it may fall either way, as documented.
      const double step = tol * double(int64_t(1) << std::min(tries, 40));
      if (!out[0].trusted) xs[0] = std::max(start.lo.x, xs[0] - step);
      if (!out[1].trusted) xs[1] = std::min(start.hi.x, xs[1] + step);
    }
    start = {{xs[0], out[0].below, out[0].logdet}, {xs[1], out[1].below, out[1].logdet}};
    il = int(start.lo.below + 1);
    iu = int(start.hi.below);
    if (iu < il) return rep.ok = true, rep;
  }
  if (most >= 0 && int64_t(iu) - il + 1 > most) {
    rep.declined = true;
    rep.why = std::to_string(int64_t(iu) - il + 1) + " eigenvalues wanted, more than " + std::to_string(most);
    return rep;
  }
  auto wanted = [&](const Bracket &b) {
    return b.hi.below > b.lo.below && b.lo.below < iu && b.hi.below >= il;
  };
  auto finished = [&](const Bracket &b) {
    const double mid = b.lo.x + b.width() / 2;
    return b.width() <= tol || !(mid > b.lo.x && mid < b.hi.x);
  };
  std::vector<Bracket> open{start}, done;
  if (finished(start)) open.clear(), done.push_back(start);

  // ---- Rounds: the slots shared out over the open brackets, every shift evaluated side by
  // side, each bracket split at its trusted shifts.
  while (!open.empty()) {
    if (rep.rounds >= kMaxRounds) return rep.why = "round cap reached", rep;
    const int per = int(std::max<int64_t>(1, slots / int64_t(open.size())));
    // Every isolated eigenvalue's current estimate (its bracket's midpoint), for the neighbours'
    // interpolations.
    std::map<int64_t, double> estimate;
    for (const std::vector<Bracket> *list : {&open, &done})
      for (const Bracket &b : *list)
        if (b.hi.below - b.lo.below == 1) estimate[b.hi.below] = b.lo.x + b.width() / 2;
    std::vector<double> xs;
    std::vector<size_t> first(open.size() + 1, 0);
    for (size_t i = 0; i < open.size(); ++i) {
      const Bracket &b = open[i];
      const auto near = [&](int64_t index) {  // eigenvalue `index`'s estimate, NaN where none
        const auto at = estimate.find(index);
        return at == estimate.end() ? std::nan("") : at->second;
      };
      const std::vector<double> p = proposals(b, per, il, iu, tol, near(b.lo.below), near(b.hi.below + 1));
      xs.insert(xs.end(), p.begin(), p.end());
      first[i + 1] = xs.size();
    }
    if (xs.empty()) return rep.why = "no shift left inside an open bracket", rep;
    if (!run(xs)) return rep;

    std::vector<Bracket> next;
    for (size_t i = 0; i < open.size(); ++i) {
      Bracket b = open[i];
      std::vector<Point> pts{b.lo};
      for (size_t k = first[i]; k < first[i + 1]; ++k) {
        if (out[k].trusted) pts.push_back({xs[k], out[k].below, out[k].logdet});
        else ++rep.untrusted;
      }
      pts.push_back(b.hi);
      // The counts must not decrease with the shift; where they do, this round's shifts of the
      // bracket are all discarded (one of them is wrong, and which cannot be told).
      for (size_t k = 1; k < pts.size(); ++k)
        if (pts[k].below < pts[k - 1].below) {
          rep.untrusted += int64_t(pts.size()) - 2;
          pts = {b.lo, b.hi};
          break;
        }
      if (pts.size() == 2) {  // nothing learned: the same bracket, its shifts moved next round
        if (++b.retries > kMaxRetries)
          return rep.why = "counts near " + std::to_string(b.lo.x) + " could not be trusted", rep;
        next.push_back(b);
        continue;
      }
      // Interpolation (regula falsi) keeps one end by nature, Anderson and Bjorck's scaling
      // corrects that; a bracket it did not halve bisects once that scaling passes 2^20, any
      // other bracket not halved at once.
      const bool falsi = b.hi.below - b.lo.below == 1 && std::isfinite(b.lo.logdet) &&
                         std::isfinite(b.hi.logdet) && !b.stalled;
      for (size_t k = 1; k < pts.size(); ++k) {
        Bracket c{pts[k - 1], pts[k]};
        c.kept = k == 1 ? -1 : k + 1 == pts.size() ? 1 : 0;
        // Anderson and Bjorck's scaling of the kept end's |det|: by 1 - f_new / f_replaced (0.5
        // where that is not in (0, 1)), the less progress the stronger.
        c.bias = 0;
        if (falsi && c.kept != 0) {
          const double l_new = c.kept < 0 ? c.hi.logdet : c.lo.logdet, l_old = c.kept < 0 ? b.hi.logdet : b.lo.logdet;
          const double m = 1 - std::exp(l_new - l_old);
          c.bias = (c.kept == b.kept ? b.bias : 0) - std::log(m > 0 && m < 1 ? m : 0.5);
        }
        c.stalled = !b.stalled && c.width() > 0.5 * b.width() && (!falsi || c.bias >= 20 * M_LN2);
        if (wanted(c)) (finished(c) ? done : next).push_back(c);
      }
    }
    open.swap(next);
  }

  // ---- Every wanted index from exactly one finished bracket, at its midpoint.
  std::sort(done.begin(), done.end(),
            [](const Bracket &a, const Bracket &b) { return a.lo.x < b.lo.x; });
  int64_t filled = 0, expect = il;
  for (const Bracket &b : done) {
    const double mid = b.lo.x + b.width() / 2;
    const int64_t last = std::min<int64_t>(b.hi.below, iu);
    for (int64_t idx = std::max<int64_t>(b.lo.below + 1, il); idx <= last; ++idx, ++expect) {
      if (idx != expect) return rep.why = "brackets do not cover the wanted indices", rep;
      w[filled++] = mid;
    }
  }
  if (expect != int64_t(iu) + 1) return rep.why = "brackets do not cover the wanted indices", rep;
  *m = int(filled);
  rep.ok = true;
  return rep;
}

int host_slots() { return static_cast<int>(std::clamp(std::thread::hardware_concurrency(), 1u, 16u)); }

Evaluate host_evaluator(const CauchyForm &form) {
  return [&form](const std::vector<double> &sigma, std::vector<gpu::ToeplitzInertia> &out) {
    const int64_t count = int64_t(sigma.size());
    const int parts = static_cast<int>(std::min<int64_t>(host_slots(), count));
    run_parts(parts, [&](int p) {
      Scratch scratch;
      try {
        for (int64_t i = p; i < count; i += parts) out[i] = inertia(form, sigma[i], scratch);
      } catch (...) {  // no memory for the scratch: these shifts stay untrusted
      }
    });
    return gpu::Status::success();
  };
}

}  // namespace gpueig::structured
