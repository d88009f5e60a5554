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

#include "fft.hpp"
#include "host_parts.hpp"

namespace gpueig::structured {
namespace {

constexpr double kEps = DBL_EPSILON;

// Caps: rounds of evaluations (each at least halves every bracket it works on, and 64 halvings
// exhaust a double's range: the rest is room for retries) and shifts moved after untrusted or
// inconsistent counts per bracket.
constexpr int kMaxRounds = 400;
constexpr int kMaxRetries = 12;

// A bracket's half block where it is T's own (both halves at each of its shifts).
constexpr int kBoth = 2;

// A point of the search: a shift, each half block's count there and its log|det(H - x I)| (plus a
// constant of the call; NaN where not known: Gershgorin's ends). A half's bracket keeps only its
// own half's numbers.
struct Point {
  double x = 0;
  int64_t below[2] = {0, 0};
  double logdet[2] = {std::nan(""), std::nan("")};
};

// A bracket (lo.x, hi.x] of half block `half`, or of T (kBoth), holding its eigenvalues
// count(lo) + 1 .. count(hi).
struct Bracket {
  Point lo, hi;
  int half = kBoth;
  int retries = 0;  // rounds in a row that left this bracket as it was (its shifts then move)
  bool stalled = false;  // the last round did not halve it: this round bisects
  int kept = 0;          // the end the last round kept (-1 lo, +1 hi, 0 neither)
  double bias = 0;       // -log of the kept end's |det| scaling (Anderson and Bjorck's rule)
  double width() const { return hi.x - lo.x; }
  int64_t count(const Point &p) const { return half == kBoth ? p.below[0] + p.below[1] : p.below[half]; }
  double logdet(const Point &p) const { return half == kBoth ? p.logdet[0] + p.logdet[1] : p.logdet[half]; }
  int64_t size() const { return count(hi) - count(lo); }  // eigenvalues inside
  int cost() const { return half == kBoth ? 2 : 1; }       // evaluations a shift
};

// Sorted, distinct shifts strictly inside the bracket, at most `count` of them, the first of `xs`
// (in its order of preference) kept.
std::vector<double> inside(const Bracket &b, const std::vector<double> &xs, int count) {
  std::vector<double> out;
  for (double x : xs)
    if (int(out.size()) < count && x > b.lo.x && x < b.hi.x && std::find(out.begin(), out.end(), x) == out.end())
      out.push_back(x);
  std::sort(out.begin(), out.end());
  return out;
}

// `count` evenly spaced shifts inside the bracket; a retry moves them by a fraction of the
// spacing that differs each time.
std::vector<double> evenly(const Bracket &b, int count) {
  std::vector<double> xs;
  const double lo = b.lo.x, w = b.width();
  const double shift = b.retries ? 0.3 * std::sin(1.0 + 2.0 * b.retries) : 0.0;
  for (int i = 1; i <= count; ++i) xs.push_back(lo + w * ((i + shift) / (count + 1)));
  return inside(b, xs, count);
}

// The eigenvalue of a bracket holding one, from m >= 3 points with known log|det(H - x I)| (its
// ends and the nearest outside): the lambda in (lo, hi) at which y_i - log|x_i - lambda| lie on a
// polynomial of degree m - 2 (its (m - 1)-th divided difference vanishes), i.e. the model
// |det| = |x - lambda| exp(p(x)). The factor of the root is exact and the rest's trend is fitted:
// from an end far outside the spectrum (Gershgorin's) |det| grows like exp(c x) whatever the
// root, which a linear interpolation of |det| mistakes for the root lying at the other end; with
// a point on each side (m = 4) the rest's curvature, the other eigenvalues' pull, is fitted too.
// NaN where the fitted condition does not change sign in (lo, hi). Bisection on the condition:
// 80 halvings at most.
double fit_root(const std::vector<double> &x, const std::vector<double> &y, double lo, double hi) {
  const size_t m = x.size();
  if (m < 3) return std::nan("");
  std::vector<double> z(m);
  auto condition = [&](double lambda) {
    for (size_t i = 0; i < m; ++i) z[i] = y[i] - std::log(std::fabs(x[i] - lambda));
    for (size_t k = 1; k < m; ++k)
      for (size_t i = m - 1; i >= k; --i) z[i] = (z[i] - z[i - 1]) / (x[i] - x[i - k]);
    return z[m - 1];
  };
  // The ends' own samples make the condition infinite there: start a little inside (at least an
  // ulp, where log|x - lambda| is finite).
  const double w = hi - lo;
  double a = std::max(lo + w * 0x1p-40, std::nextafter(lo, hi)), b = std::min(hi - w * 0x1p-40, std::nextafter(hi, lo));
  const double fa = condition(a), fb = condition(b);
  if (!(a < b) || !std::isfinite(fa) || !std::isfinite(fb) || (fa < 0) == (fb < 0)) return std::nan("");
  for (int i = 0; i < 80; ++i) {
    const double mid = a + (b - a) / 2;
    if (!(mid > a && mid < b)) break;
    const double fm = condition(mid);
    if (!std::isfinite(fm)) return std::nan("");
    ((fm < 0) == (fa < 0) ? a : b) = mid;
  }
  return a + (b - a) / 2;
}

// Every trusted evaluation's log|det(H - x I)| by half (T's shifts give both halves'): the points
// outside a bracket that its fit takes.
struct Samples {
  std::map<double, double> at[2];
};

// Every isolated eigenvalue's estimate by half and index: the neighbours whose factors
// root_estimate divides out, the kDeflated nearest by index on either side of the bracket (the
// nearest pull hardest, and the next ones' curvature is what a fit through few points misses; a
// window, so that a search for thousands of eigenvalues does not deflate by all of them).
constexpr int64_t kDeflated = 8;
struct Neighbours {
  std::map<int64_t, double> at[2];
  // log prod |x - mu_j| over the estimates of b's half within kDeflated indices of its own
  // eigenvalues, those excluded (T's: 0).
  double deflation(const Bracket &b, double x) const {
    if (b.half == kBoth) return 0;
    const int64_t first = b.count(b.lo) + 1, last = b.count(b.hi);  // b's own
    double sum = 0;
    const std::map<int64_t, double> &m = at[b.half];
    for (auto it = m.lower_bound(first - kDeflated); it != m.end() && it->first <= last + kDeflated; ++it)
      if (it->first < first || it->first > last) sum += std::log(std::fabs(x - it->second));
    return sum;
  }
};

// The nearest sample outside a bracket fitted: within this many widths of its end (farther, the
// rest's polynomial trend no longer holds). Replay (gpueig_bench --structured-replay, n = 2000, 8
// random decaying t, 16 smallest; with the neighbours' deflation, Gershgorin's start): 16 widths
// 186 waves, 4: 193, 1: 199, unbounded 186 but KMS's 16 smallest 17 waves against 15; the fits
// through one point outside instead (the ends' line): 220.
constexpr double kFitReach = 16;

// The eigenvalue of a bracket holding one, both ends' log|det| known: fit_root through the ends
// and the nearest sample outside on each side (within kFitReach widths; else the nearest at all),
// else the linear interpolation between the ends (regula falsi, in logs: no overflow; with
// `biased`, a kept end's |det| scaled down by Anderson and Bjorck's rule against one-sided
// convergence), the neighbours' factors divided out in all (a neighbour close to one end makes
// |det| small there whatever the root's place).
double root_estimate(const Bracket &b, const Neighbours &near, const Samples &seen, bool biased) {
  auto y = [&](double x, double logdet) { return logdet - near.deflation(b, x); };
  const double lo = b.lo.x, hi = b.hi.x, w = b.width();
  const double y_lo = y(lo, b.logdet(b.lo)), y_hi = y(hi, b.logdet(b.hi));
  const double l_lo = y_lo - (biased && b.kept < 0 ? b.bias : 0), l_hi = y_hi - (biased && b.kept > 0 ? b.bias : 0);
  const double x = lo + w / (1 + std::exp(l_hi - l_lo));  // |f_lo| / (|f_lo| + |f_hi|) of the way
  if (b.half == kBoth) return x;
  const std::map<double, double> &at = seen.at[b.half];
  const auto below = at.lower_bound(lo), above = at.upper_bound(hi);  // below: the first >= lo
  const bool has_below = below != at.begin(), has_above = above != at.end();
  std::vector<double> px{lo, hi}, py{y_lo, y_hi};
  auto take = [&](std::map<double, double>::const_iterator it) {
    px.push_back(it->first), py.push_back(y(it->first, it->second));
  };
  if (has_below && lo - std::prev(below)->first <= kFitReach * w) take(std::prev(below));
  if (has_above && above->first - hi <= kFitReach * w) take(above);
  if (px.size() == 2 && (has_below || has_above))
    take(!has_above || (has_below && lo - std::prev(below)->first < above->first - hi) ? std::prev(below) : above);
  const double fit = fit_root(px, py, lo, hi);
  return fit == fit ? fit : x;
}

// The isolated eigenvalues' estimates: their brackets' midpoints, then (where both ends' log|det|
// are known) their root_estimate with those divided out. Replay (as above): 205 -> 186 waves
// against the two adjacent brackets' midpoints alone; a second pass no better.
Neighbours neighbours(const std::vector<Bracket> &open, const std::vector<Bracket> &done, const Samples &seen) {
  Neighbours mid, near;
  for (const std::vector<Bracket> *list : {&open, &done})
    for (const Bracket &b : *list)
      if (b.half != kBoth && b.size() == 1) mid.at[b.half][b.count(b.hi)] = b.lo.x + b.width() / 2;
  near = mid;
  for (const std::vector<Bracket> *list : {&open, &done})
    for (const Bracket &b : *list)
      if (b.half != kBoth && b.size() == 1 && std::isfinite(b.logdet(b.lo)) && std::isfinite(b.logdet(b.hi))) {
        const double x = root_estimate(b, mid, seen, false);
        if (x > b.lo.x && x < b.hi.x) near.at[b.half][b.count(b.hi)] = x;
      }
  return near;
}

// The shifts of a round for bracket b, at most `count` of them (an isolated eigenvalue's
// estimate first; a bracket whose eigenvalues are all wanted, evenly spaced ones):
//  - first the guide's points not tried yet (a tried one has become a bracket's end): an
//    isolated eigenvalue's guide value, the midpoints between consecutive guide values of a half's
//    bracket, the wanted edges' midpoints of T's (with more shifts, midpoints across the wanted
//    ranks);
//  - one eigenvalue inside, both ends' determinants known: det(H - x I) changes sign once in the
//    bracket and is smooth there, so the fit of log|det| = log|x - lambda| + p(x) through the
//    ends and the nearest samples outside (fit_root), else the linear interpolation between the
//    ends (regula falsi, in logs: no overflow; a kept end's |det| scaled down by Anderson and
//    Bjorck's rule against one-sided convergence), the neighbours' factors divided out in both,
//    estimates the eigenvalue; the shifts go to the estimate and, once the bracket is within
//    reach or more shifts are given, a tolerance's fraction either side of it (then growing by
//    16), so that a good estimate finishes the bracket in one round;
//  - more eigenvalues inside than wanted (T's brackets, il .. iu: T's wanted indices): the wanted
//    ones' edges estimated by interpolating the counts, the shifts at the estimates and from there
//    geometrically towards the nearer end (near the spectrum's ends the counts grow like a square
//    root, and the estimate overshoots);
//  - otherwise, or when the last round did not halve the bracket: evenly spaced.
std::vector<double> proposals(const Bracket &b, int count, int64_t il, int64_t iu, double tol,
                              const Neighbours &near, const Samples &seen, const Guide *guide) {
  const int64_t k = b.size(), below_lo = b.count(b.lo), below_hi = b.count(b.hi);
  const double lo = b.lo.x, w = b.width(), ld_lo = b.logdet(b.lo), ld_hi = b.logdet(b.hi);
  if (b.retries || b.stalled) return evenly(b, count);
  // The guide's i-th value (1-based) of b's half, or of both merged for T's brackets; NaN where none.
  auto guess = [&](int64_t i) {
    if (!guide) return std::nan("");
    const std::vector<double> &v = b.half == kBoth ? guide->all : guide->half[b.half];
    return i >= 1 && i <= int64_t(v.size()) ? v[i - 1] : std::nan("");
  };
  std::vector<double> hints;  // untried guide points inside (a tried one is an end since)
  if (guide && k == 1) {
    hints.push_back(guess(below_hi));
  } else if (guide && b.half != kBoth) {
    for (int64_t i = below_lo + 1; i < below_hi; ++i) hints.push_back((guess(i) + guess(i + 1)) / 2);
  } else if (guide) {
    if (below_lo < il - 1) hints.push_back((guess(il - 1) + guess(il)) / 2);
    if (below_hi > iu) hints.push_back((guess(iu) + guess(iu + 1)) / 2);
  }
  hints = inside(b, hints, count);
  // A bracket of several eigenvalues takes its guide points alone (a half's filled up evenly); an
  // isolated one with a single shift its guide value; with more, the estimates below follow it.
  if (!hints.empty() && k > 1 && b.half != kBoth && int(hints.size()) < count) {
    std::vector<double> more = evenly(b, count - int(hints.size()));
    hints.insert(hints.end(), more.begin(), more.end());
    return inside(b, hints, count);
  }
  // T's bracket, more shifts than guide points: the guide's midpoints at the ranks halfway across
  // the wanted indices, then a quarter and three quarters in, ...: they tend to fall inside the
  // wanted range, cutting off pieces that hold only wanted eigenvalues (each then goes to its
  // halves). Replay (n = 2000, 8 random decaying t): 16 smallest 174 -> 161 waves, 993..1008
  // 163 -> 160; n = 6000, 6 seeds: 130 -> 124 and 119 -> 117; KMS and the 1-2-1 matrix a wave or
  // two fewer. (Before, the guide points went alone: a wave of 7 slots for 2 to 4 tasks.)
  if (!hints.empty() && k > 1 && b.half == kBoth && int(hints.size()) < count) {
    for (double f : {0.5, 0.25, 0.75, 0.125, 0.875, 0.375, 0.625}) {
      if (int(hints.size()) >= count) break;
      const int64_t j = int64_t(double(il - 1) + double(iu - il + 1) * f);
      hints.push_back((guess(j) + guess(j + 1)) / 2);
      hints = inside(b, hints, count);
    }
    return hints;
  }
  if (!hints.empty() && (k > 1 || count == 1)) return hints;
  // det(H - lo I) = 0 with lo's count k - 1: lo is eigenvalue k itself (the bracket's); a shift a
  // fraction of the tolerance above it finishes the bracket. (Exact zeros happen where C is
  // diagonal, T tridiagonal, once an interpolation lands on an eigenvalue.)
  if (k == 1 && ld_lo == -INFINITY && w > 0.45 * tol) {
    const std::vector<double> in = inside(b, {lo + 0.45 * tol}, 1);
    if (!in.empty()) return in;
  }
  if (k == 1 && std::isfinite(ld_lo) && std::isfinite(ld_hi)) {
    const double x = root_estimate(b, near, seen, true);
    const double delta = 0.45 * tol;
    // An estimate within half a tolerance of an end (the last shift landed that close to the
    // root, on one side), one shift given: it goes 0.95 tolerances inside from that end, so that
    // the bracket finishes when the root is there; at the estimate itself it would land on the
    // same side again and leave the far end where it was, a round each time (and a pair around it
    // would take a second slot). Measured by a replay of the search on the host evaluator (7
    // slots, n = 2000, the random decaying family, 24 seeds, 16 smallest): 707 -> 656 waves; KMS
    // 136 -> 120 (8 runs), the 1-2-1 matrix unchanged. Half a tolerance against 0.25, 0.9 or 2:
    // within 2 waves; 0.7 tolerances inside instead of 0.95: 687.
    if (count == 1 && (x - lo < 0.5 * tol || b.hi.x - x < 0.5 * tol)) {
      const std::vector<double> in = inside(b, {x - lo < 0.5 * tol ? lo + 0.95 * tol : b.hi.x - 0.95 * tol}, 1);
      if (!in.empty()) return in;  // (a guard: tol >= 2 eps ||T||_1, above an end's ulp)
    }
    std::vector<double> xs;
    if (count == 1 && w > 32 * tol) {
      xs.push_back(x);
    } else {
      for (int j = 0; j < 8; ++j) {
        const double off = delta * std::pow(16.0, j);
        xs.push_back(x - off), xs.push_back(x + off);
      }
    }
    xs.insert(xs.begin(), hints.begin(), hints.end());
    std::vector<double> in = inside(b, xs, std::max(count, 2));
    return in.empty() ? evenly(b, 1) : in;
  }
  const bool cut_lo = b.half == kBoth && below_lo < il - 1, cut_hi = b.half == kBoth && below_hi > iu;
  if (k > 1 && (cut_lo || cut_hi)) {
    std::vector<int64_t> edges;  // j: the edge between eigenvalues j and j + 1
    if (cut_lo) edges.push_back(il - 1);
    if (cut_hi) edges.push_back(iu);
    // Half the shifts (all of a single one) at the estimates, the rest evenly spaced: where the
    // bracket's low end lies well below the spectrum (Gershgorin's), the counts' interpolation
    // misleads, and the even ones still divide the bracket.
    const int guided = std::max(1, count / 2);
    const int each = std::max(1, guided / int(edges.size())), geometric = std::min(each, 8);
    std::vector<double> xs;  // (no guide point is inside: they would have been returned above)
    for (int64_t j : edges) {
      const double at = double(j - below_lo) + 0.5, xj = lo + w * (at / double(k));
      const bool low = j - below_lo <= below_hi - j;
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
    std::vector<double> in = inside(b, xs, count);
    return in.empty() ? evenly(b, count) : in;
  }
  return evenly(b, count);
}

// Shifts per open bracket for a round of `slots` evaluations side by side: one each, then the
// round's last wave filled (it costs no more time) with more, one at a time to the brackets
// holding the most eigenvalues, then the widest.
std::vector<int> shares(const std::vector<Bracket> &open, int slots) {
  std::vector<int> shifts(open.size(), 1);
  int64_t used = 0;
  for (const Bracket &b : open) used += b.cost();
  int64_t spare = (used + slots - 1) / slots * slots - used;
  std::vector<size_t> order(open.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const Bracket &x = open[a], &y = open[b];
    return x.size() != y.size() ? x.size() > y.size() : x.width() > y.width();
  });
  for (bool gave = true; spare > 0 && gave;) {
    gave = false;
    for (size_t i : order)
      if (open[i].cost() <= spare) ++shifts[i], spare -= open[i].cost(), gave = true;
  }
  return shifts;
}

}  // namespace

// symbol_bounds: T's spectrum inside the range of its symbol p(theta) = t_0 + 2 sum_{0<k<n} t_k cos(k theta):
// T is p's Toeplitz section, its eigenvalues inside (min p, max p), and that range is often far
// inside Gershgorin's (a decaying random t: |p| stays near sqrt(sum t_k^2 log n), the row sums
// grow like sum |t_k|), whose ends the search would otherwise walk in from a round at a time. p
// is sampled at N >= 8n points by one FFT; q = p - c (c the samples' mid-range, r their
// half-range) is a real trigonometric polynomial of degree d = n - 1, and by Van der Corput and
// Schaake's inequality q'^2 + d^2 q^2 <= d^2 max|q|^2 it stays above max|q| cos(d |theta -
// theta*|) near its extreme theta*: a sample within pi / N of it has |q| >= max|q| cos(d pi / N),
// so p lies in c -+ r / cos(d pi / N) (plus the transform's rounding). False where not finite.
// Replay (n = 2000, 8 random decaying t): 16 smallest 187 -> 174 waves, 993..1008 165 -> 163;
// KMS and the 1-2-1 matrix unchanged (their symbols reach Gershgorin's ends).
bool symbol_bounds(int64_t n, const double *t, double *lo, double *hi) {
  if (n < 2) return false;
  int64_t size = 1;
  while (size < 8 * n) size *= 2;
  std::vector<fft::Complex> a(size);
  double sum = std::fabs(t[0]);
  a[0] = t[0];
  for (int64_t k = 1; k < n; ++k) a[k] = 2 * t[k], sum += 2 * std::fabs(t[k]);
  fft::Radix2(size).run(a.data(), false);
  double least = INFINITY, most = -INFINITY;
  for (const fft::Complex &v : a) least = std::min(least, v.real()), most = std::max(most, v.real());
  if (!std::isfinite(least) || !std::isfinite(most)) return false;
  const double mid = least + (most - least) / 2, half = (most - least) / 2;
  const double grow = 1 / std::cos(M_PI * double(n - 1) / double(size));
  const double pad = 8 * std::log2(double(size)) * kEps * sum;  // the FFT's rounding, generously
  *lo = mid - grow * half - pad, *hi = mid + grow * half + pad;
  return true;
}

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

namespace {

// half_inertia's elimination; with `rec`, the pivots recorded and the elimination stopped once at
// most want + 1 elements remain (those then recorded as the tail).
int64_t eliminate(const CauchyHalf &b, double sigma, Scratch &w, bool *trusted, double *logdet, Record *rec,
                  int64_t want, double floor) {
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
  auto snapshot = [&] {
    for (int64_t i = 0; i < m; ++i) rec->tail.push_back({g[i], h[i], v[i], d[i], 0});
  };
  while (m > 1) {
    if (rec && (m <= want + 1 || (m <= kTailCap && std::fabs(d[r]) <= floor && w_r <= floor))) break;
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
    if (rec) {
      rec->pivots.push_back({g[p1], h[p1], v[p1], d[p1], p2 < 0 ? 0 : 1});
      if (p2 >= 0) rec->pivots.push_back({g[p2], h[p2], v[p2], d[p2], 2});
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
  if (rec) snapshot();
  else if (m == 1) neg += d[0] < 0, *logdet += std::log(std::fabs(d[0]));
  if (!finite || !(largest <= kGrowth * start)) *trusted = false;
  return neg;
}

}  // namespace

int64_t half_inertia(const CauchyHalf &b, double sigma, Scratch &w, bool *trusted, double *logdet) {
  return eliminate(b, sigma, w, trusted, logdet, nullptr, 0, 0);
}

bool half_record(const CauchyHalf &b, double sigma, int64_t want, double floor, Scratch &scratch, Record &out) {
  bool trusted = true;
  double logdet = 0;
  out.pivots.clear(), out.tail.clear();
  eliminate(b, sigma, scratch, &trusted, &logdet, &out, std::max<int64_t>(want, 1), floor);
  return trusted;
}

gpu::ToeplitzInertia inertia(const CauchyForm &form, const gpu::InertiaTask &task, Scratch &scratch) {
  gpu::ToeplitzInertia r;
  bool trusted = true;
  const double s = task.sigma * form.scale;  // exact (a power of two), unless it under- or overflows
  r.below = half_inertia(form.half[task.half], s, scratch, &trusted, &r.logdet);
  r.trusted = trusted;
  return r;
}

Guide guide_of(std::vector<double> d0, std::vector<double> d1) {
  Guide g;
  g.half[0] = std::move(d0), g.half[1] = std::move(d1);
  for (std::vector<double> &v : g.half) std::sort(v.begin(), v.end());
  g.all = g.half[0];
  g.all.insert(g.all.end(), g.half[1].begin(), g.half[1].end());
  std::sort(g.all.begin(), g.all.end());
  return g;
}

std::vector<double> diagonal_of(const CauchyForm &form, int half) {
  std::vector<double> d = form.half[half].d;
  for (double &x : d) x /= form.scale;
  return d;
}

Guide guide_of(const CauchyForm &form) { return guide_of(diagonal_of(form, 0), diagonal_of(form, 1)); }

gpu::Status evaluate_shifts(const Evaluate &evaluate, const std::vector<double> &sigma,
                            std::vector<gpu::ToeplitzInertia> &out) {
  std::vector<gpu::InertiaTask> tasks;
  for (double x : sigma) tasks.push_back({x, 0}), tasks.push_back({x, 1});
  std::vector<gpu::ToeplitzInertia> halves(tasks.size());
  const gpu::Status s = evaluate(tasks, halves);
  if (!s) return s;
  for (size_t i = 0; i < sigma.size(); ++i) {
    const gpu::ToeplitzInertia &a = halves[2 * i], &b = halves[2 * i + 1];
    out[i] = {a.below + b.below, a.trusted && b.trusted, a.logdet + b.logdet};
  }
  return s;
}

Report search(int64_t n, const double *t, char range, double vl, double vu, int il, int iu,
              double abstol, int slots, const Evaluate &evaluate, int64_t most, int *m, double *w,
              const Guide *guide, int *halves, double *estimates) {
  Report rep;
  *m = 0;
  slots = std::max(slots, 1);
  rep.slots = slots;
  const double norm = std::max(norm1(n, t), DBL_MIN);
  const double tol = search_tolerance(n, t, abstol);
  const int64_t half_size[2] = {(n + 1) / 2, n / 2};
  std::vector<gpu::InertiaTask> tasks;
  std::vector<gpu::ToeplitzInertia> out;
  // Task k's result, where it can be used: trusted, and a count its half can have.
  auto usable = [&](size_t k) {
    const gpu::ToeplitzInertia &r = out[k];
    return r.trusted && r.below >= 0 && r.below <= half_size[tasks[k].half];
  };
  Samples seen;  // every usable result's log|det|, for the fits
  auto run = [&] {
    out.assign(tasks.size(), {});
    gpu::Status s = evaluate(tasks, out);
    ++rep.rounds;
    rep.evaluations += int64_t(tasks.size());
    if (!s) return rep.why = "evaluation failed: " + s.reason, rep.failure = s, false;
    for (size_t k = 0; k < tasks.size(); ++k)
      if (usable(k) && std::isfinite(out[k].logdet)) seen.at[tasks[k].half][tasks[k].sigma] = out[k].logdet;
    return true;
  };
  // Tasks `first` .. of shift x for a bracket of `half` into p: false where one is not usable.
  auto point = [&](double x, int half, size_t first, Point *p) {
    *p = Point{x};
    bool ok = true;
    for (int h = 0; h < 2; ++h) {
      if (half != kBoth && h != half) continue;
      ok &= usable(first);
      p->below[h] = out[first].below, p->logdet[h] = out[first].logdet;
      ++first;
    }
    return ok;
  };
  auto add_tasks = [&](double x, int half) {
    for (int h = 0; h < 2; ++h)
      if (half == kBoth || h == half) tasks.push_back({x, h});
  };

  // ---- The starting bracket: Gershgorin's interval (RANGE 'I'), or (VL, VU] evaluated.
  const double radius = norm - std::fabs(t[0]), pad = 4 * kEps * norm;
  Bracket start;
  start.lo.x = t[0] - radius - pad;
  start.hi = {t[0] + radius + pad, {half_size[0], half_size[1]}};
  double symbol_lo = 0, symbol_hi = 0;
  if (symbol_bounds(n, t, &symbol_lo, &symbol_hi) && symbol_lo < symbol_hi)
    start.lo.x = std::max(start.lo.x, symbol_lo), start.hi.x = std::min(start.hi.x, symbol_hi);
  if (range == 'V' || range == 'v') {
    double xs[2] = {std::max(vl, start.lo.x), std::min(vu, start.hi.x)};
    if (!(xs[0] < xs[1])) return rep.ok = true, rep;
    Point ends[2];
    for (int tries = 0;; ++tries) {
      tasks.clear();
      add_tasks(xs[0], kBoth), add_tasks(xs[1], kBoth);
      if (!run()) return rep;
      const bool ok[2] = {point(xs[0], kBoth, 0, &ends[0]), point(xs[1], kBoth, 2, &ends[1])};
      if (ok[0] && ok[1] && ends[0].below[0] <= ends[1].below[0] && ends[0].below[1] <= ends[1].below[1]) break;
      rep.untrusted += !ok[0] + !ok[1];
      if (tries == kMaxRetries) return rep.why = "no trusted count at VL or VU", rep;
      // A bound whose count cannot be trusted moves outward by a growing multiple of the
      // tolerance: the eigenvalues that near it may fall either way, as documented.
      const double step = tol * double(int64_t(1) << std::min(tries, 40));
      if (!ok[0]) xs[0] = std::max(start.lo.x, xs[0] - step);
      if (!ok[1]) xs[1] = std::min(start.hi.x, xs[1] + step);
    }
    start.lo = ends[0], start.hi = ends[1];
    il = int(start.count(start.lo) + 1);
    iu = int(start.count(start.hi));
    if (iu < il) return rep.ok = true, rep;
  }
  if (most >= 0 && int64_t(iu) - il + 1 > most) {
    rep.declined = true;
    rep.why = std::to_string(int64_t(iu) - il + 1) + " eigenvalues wanted, more than " + std::to_string(most);
    return rep;
  }
  // T's brackets are wanted where they meet il .. iu and cut where they also hold others; a
  // half's bracket holds only wanted eigenvalues.
  auto wanted = [&](const Bracket &b) {
    if (b.half != kBoth) return b.size() > 0;
    return b.size() > 0 && b.count(b.lo) < iu && b.count(b.hi) >= il;
  };
  auto cut = [&](const Bracket &b) {
    return b.half == kBoth && (b.count(b.lo) < il - 1 || b.count(b.hi) > iu);
  };
  auto finished = [&](const Bracket &b) {
    const double mid = b.lo.x + b.width() / 2;
    return b.width() <= tol || !(mid > b.lo.x && mid < b.hi.x);
  };
  std::vector<Bracket> open, done;
  // A new bracket to `next` or `done`, or dropped; one of T's holding only wanted eigenvalues as
  // its halves' brackets instead.
  std::function<void(const Bracket &, std::vector<Bracket> &)> place = [&](const Bracket &c,
                                                                         std::vector<Bracket> &next) {
    if (!wanted(c)) return;
    if (c.half == kBoth && !cut(c)) {
      for (int h = 0; h < 2; ++h) {
        Bracket b;
        b.lo = c.lo, b.hi = c.hi, b.half = h;
        place(b, next);
      }
      return;
    }
    (finished(c) ? done : next).push_back(c);
  };
  place(start, open);

  // ---- Rounds: the slots shared out over the open brackets, every shift evaluated side by
  // side, each bracket split at its trusted shifts.
  while (!open.empty()) {
    if (rep.rounds >= kMaxRounds) return rep.why = "round cap reached", rep;
    const std::vector<int> per = shares(open, slots);
    const Neighbours near = neighbours(open, done, seen);
    std::vector<std::vector<double>> xs(open.size());
    std::vector<size_t> first(open.size() + 1, 0);
    tasks.clear();
    for (size_t i = 0; i < open.size(); ++i) {
      const Bracket &b = open[i];
      xs[i] = proposals(b, per[i], il, iu, tol, near, seen, guide);
      for (double x : xs[i]) add_tasks(x, b.half);
      first[i + 1] = tasks.size();
    }
    if (tasks.empty()) return rep.why = "no shift left inside an open bracket", rep;
    if (!run()) return rep;

    std::vector<Bracket> next;
    for (size_t i = 0; i < open.size(); ++i) {
      Bracket b = open[i];
      std::vector<Point> pts{b.lo};
      for (size_t j = 0; j < xs[i].size(); ++j) {
        Point p;
        if (point(xs[i][j], b.half, first[i] + j * b.cost(), &p)) pts.push_back(p);
        else ++rep.untrusted;
      }
      pts.push_back(b.hi);
      // Each half's counts must not decrease with the shift; where they do, this round's shifts
      // of the bracket are all discarded (one of them is wrong, and which cannot be told).
      auto decreases = [&](const Point &a, const Point &z) {
        for (int h = 0; h < 2; ++h)
          if ((b.half == kBoth || h == b.half) && z.below[h] < a.below[h]) return true;
        return false;
      };
      for (size_t k = 1; k < pts.size(); ++k)
        if (decreases(pts[k - 1], pts[k])) {
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
      // corrects that; a bracket it did not halve bisects once that scaling reaches 2, any other
      // bracket not halved at once.
      const bool falsi =
          b.size() == 1 && std::isfinite(b.logdet(b.lo)) && std::isfinite(b.logdet(b.hi)) && !b.stalled;
      for (size_t k = 1; k < pts.size(); ++k) {
        Bracket c;
        c.lo = pts[k - 1], c.hi = pts[k], c.half = b.half;
        c.kept = k == 1 ? -1 : k + 1 == pts.size() ? 1 : 0;
        // Anderson and Bjorck's scaling of the kept end's |det|: by 1 - f_new / f_replaced (0.5
        // where that is not in (0, 1)), the less progress the stronger.
        if (falsi && c.kept != 0) {
          const double l_new = c.logdet(c.kept < 0 ? c.hi : c.lo), l_old = b.logdet(c.kept < 0 ? b.hi : b.lo);
          const double f = 1 - std::exp(l_new - l_old);
          c.bias = (c.kept == b.kept ? b.bias : 0) - std::log(f > 0 && f < 1 ? f : 0.5);
        }
        c.stalled = !b.stalled && c.width() > 0.5 * b.width() && (!falsi || c.bias >= M_LN2);
        place(c, next);
      }
    }
    open.swap(next);
  }

  // ---- Every wanted eigenvalue from exactly one finished bracket, at its midpoint: T's
  // brackets give their indices within il .. iu (the first of them, by T's order, counted as
  // half 0's as far as the bracket holds half 0's: they lie within the tolerance of each other),
  // a half's all it holds.
  // With `estimates`, a bracket holding one eigenvalue also gives its root_estimate (the
  // eigenvectors' first shift: the midpoint may be tol / 2 off), clamped to the bracket.
  const Neighbours near = neighbours({}, done, seen);
  struct Value {
    double w;
    int half;
    double estimate;
    bool operator<(const Value &o) const { return w < o.w || (w == o.w && half < o.half); }
  };
  std::vector<Value> values;
  for (const Bracket &b : done) {
    const double mid = b.lo.x + b.width() / 2;
    double estimate = mid;
    if (estimates && b.half != kBoth && b.size() == 1 && std::isfinite(b.logdet(b.lo)) &&
        std::isfinite(b.logdet(b.hi))) {
      const double x = root_estimate(b, near, seen, false);
      if (x > b.lo.x && x < b.hi.x) estimate = x;
    }
    const int64_t first = b.count(b.lo) + 1;
    int64_t from = first, to = b.count(b.hi);
    if (b.half == kBoth) from = std::max<int64_t>(from, il), to = std::min<int64_t>(to, iu);
    const int64_t zeros = b.half == kBoth ? b.hi.below[0] - b.lo.below[0] : 0;
    for (int64_t idx = from; idx <= to; ++idx)
      values.push_back({mid, b.half != kBoth ? b.half : idx - first < zeros ? 0 : 1, estimate});
  }
  if (int64_t(values.size()) != int64_t(iu) - il + 1)
    return rep.why = "brackets do not cover the wanted indices", rep;
  std::sort(values.begin(), values.end());
  for (size_t i = 0; i < values.size(); ++i) {
    w[i] = values[i].w;
    if (halves) halves[i] = values[i].half;
    if (estimates) estimates[i] = values[i].estimate;
  }
  *m = int(values.size());
  rep.ok = true;
  return rep;
}

double norm1(int64_t n, const double *t) {
  std::vector<double> prefix(n, 0.0);
  for (int64_t k = 1; k < n; ++k) prefix[k] = prefix[k - 1] + std::fabs(t[k]);
  double best = 0;
  for (int64_t c = 0; c < n; ++c) best = std::max(best, prefix[c] + prefix[n - 1 - c]);
  return std::fabs(t[0]) + best;
}

double search_tolerance(int64_t n, const double *t, double abstol) {
  const double norm = std::max(norm1(n, t), DBL_MIN);
  const double floor = 2 * kEps * norm;
  return abstol > 0 ? std::max(abstol, floor) : std::max(2.0, double(n)) * kEps * norm;
}

int host_slots() { return static_cast<int>(std::clamp(std::thread::hardware_concurrency(), 1u, 16u)); }

Evaluate host_evaluator(const CauchyForm &form) {
  return [&form](const std::vector<gpu::InertiaTask> &tasks, std::vector<gpu::ToeplitzInertia> &out) {
    const int64_t count = int64_t(tasks.size());
    const int parts = static_cast<int>(std::min<int64_t>(host_slots(), count));
    run_parts(parts, [&](int p) {
      Scratch scratch;
      try {
        for (int64_t i = p; i < count; i += parts) out[i] = inertia(form, tasks[i], scratch);
      } catch (...) {  // no memory for the scratch: these tasks stay untrusted
      }
    });
    return gpu::Status::success();
  };
}

}  // namespace gpueig::structured
