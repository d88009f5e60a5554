// The structured method's eigenvectors (see toeplitz_structured.hpp): near-null bases of the half
// blocks from recorded eliminations, lifted to T's basis by the DST-I, rotated by Rayleigh-Ritz
// where eigenvalues lie close, and kept only where T x - w x, by FFT products, is at LAPACK's
// test-ratio level.
#include <algorithm>
#include <atomic>
#include <cfloat>
#include <chrono>
#include <cmath>
#include <cstring>
#include <unordered_map>

#include "cpu_paths.hpp"
#include "fft.hpp"
#include "host_parts.hpp"
#include "toeplitz_structured.hpp"

namespace gpueig::structured {
namespace {

constexpr double kEps = DBL_EPSILON;
// LAPACK's test-ratio threshold: a vector is kept where ||T x - w x||_1 <= 30 n eps ||T||_1 ||x||,
// on the last round; earlier rounds ask for kTarget, and a group above it takes another round at
// its Ritz values (measured on the CPU, 2026-11-27, 8 smallest of n = 1000 .. 4000: the first
// round's ratios 0.03 - 8.8, growing about as sqrt(n) for a random t).
constexpr double kThreshold = 30;
constexpr double kTarget = 4;
// Rounds of basis tasks (see the retries' rule in eigenvectors).
constexpr int kTries = 3;

uint64_t bits_of(double x) {
  uint64_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

double dot(int64_t n, const double *x, const double *y) {
  double s = 0;
  for (int64_t i = 0; i < n; ++i) s += x[i] * y[i];
  return s;
}

// The eigenvalues of one half rotated together (closer than the orthogonality gap), and whether
// their vectors are settled.
struct Group {
  int half = 0;
  std::vector<int> index;  // into w, ascending
  bool done = false;
  double best = INFINITY;  // the best round's largest residual ratio (within 30), its vectors
  std::vector<double> z, w;  // (n x index.size(), unit length) and refined values
};

// Columns of x (n x count, column-major) orthonormalized in place by classical Gram-Schmidt
// twice, a column that loses all but 1e-10 of its norm to the earlier ones dropped: the number
// kept (packed first).
int64_t orthonormalize(int64_t n, int64_t count, std::vector<double> &x) {
  int64_t kept = 0;
  std::vector<double> r(count);
  for (int64_t c = 0; c < count; ++c) {
    double *v = x.data() + c * n;
    const double before = std::sqrt(dot(n, v, v));
    for (int pass = 0; pass < 2; ++pass) {
      for (int64_t q = 0; q < kept; ++q) r[q] = dot(n, x.data() + q * n, v);
      for (int64_t q = 0; q < kept; ++q) {
        const double *u = x.data() + q * n;
        for (int64_t i = 0; i < n; ++i) v[i] -= r[q] * u[i];
      }
    }
    const double after = std::sqrt(dot(n, v, v));
    if (!(after > 1e-10 * before) || !std::isfinite(after)) continue;
    double *to = x.data() + kept * n;
    for (int64_t i = 0; i < n; ++i) to[i] = v[i] / after;
    ++kept;
  }
  x.resize(kept * n);
  return kept;
}

// The eigenpairs of the symmetric k x k matrix a (column-major, replaced by the eigenvectors),
// eigenvalues ascending into `values` (cpu::syevd: LAPACK's DSYEVD): false where it failed.
bool small_eigen(int64_t k, std::vector<double> &a, std::vector<double> &values) {
  values.assign(k, 0.0);
  return k == 0 || cpu::syevd('V', 'L', int(k), a.data(), int(k), values.data()) == 0;
}

}  // namespace

void replay(const Record &rec, std::vector<double> &f, bool threaded) {
  const int64_t frozen = int64_t(rec.pivots.size()), count = int64_t(rec.tail.size());
  f.assign(frozen * count, 0.0);
  const int parts = threaded ? host_parts(frozen * frozen / 2, int64_t(1) << 16) : 1;
  run_parts(parts, [&](int part) {  // rows interleaved: a row's work falls with its step
    for (int64_t k = part; k < frozen; k += parts)
      frozen_row(rec.pivots.data(), frozen, k, rec.tail.data(), count, f.data() + k, frozen);
  });
}

bool basis_from_record(const CauchyHalf &nodes, const Record &rec, const std::vector<double> &f, int64_t want,
                       std::vector<double> &out) {
  const int64_t size = nodes.size, frozen = int64_t(rec.pivots.size()), count = int64_t(rec.tail.size());
  std::vector<double> x;
  // Every element is known by its node (distinct, carried unchanged through the elimination).
  std::unordered_map<uint64_t, int64_t> place;
  place.reserve(size_t(size) * 2);
  for (int64_t i = 0; i < size; ++i) place[bits_of(nodes.v[i])] = i;
  auto at = [&](double v) {
    const auto it = place.find(bits_of(v));
    return it == place.end() ? int64_t(-1) : it->second;
  };
  x.assign(size * count, 0.0);
  if (frozen + count != size) return false;
  for (int64_t k = 0; k < frozen; ++k) {
    const int64_t p = at(rec.pivots[k].v);
    if (p < 0) return false;
    for (int64_t c = 0; c < count; ++c) x[c * size + p] = f[c * frozen + k];
  }
  for (int64_t c = 0; c < count; ++c) {
    const int64_t p = at(rec.tail[c].v);
    if (p < 0) return false;
    x[c * size + p] = 1;
  }
  // (H - sigma I) [F; I] w = [0; S w]: the combinations w of the tail's Schur complement S with
  // the smallest |eigenvalue| are the near-null vectors (a column alone carries S's larger part).
  std::vector<double> schur(count * count), mu;
  for (int64_t a = 0; a < count; ++a)
    for (int64_t b = 0; b < count; ++b) {
      const Pivot &p = rec.tail[a], &q = rec.tail[b];
      schur[a + b * count] = a == b ? p.d : cauchy_entry(p.g, p.h, p.v, q.g, q.h, q.v);
    }
  if (!small_eigen(count, schur, mu)) return false;
  std::vector<int64_t> order(count);
  for (int64_t i = 0; i < count; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t a, int64_t b) { return std::fabs(mu[a]) < std::fabs(mu[b]); });
  const int64_t keep = std::min(want, count);
  out.assign(size * keep, 0.0);
  for (int64_t c = 0; c < keep; ++c)
    for (int64_t b = 0; b < count; ++b) {
      const double coef = schur[b + order[c] * count];
      const double *from = x.data() + b * size;
      double *to = out.data() + c * size;
      for (int64_t r = 0; r < size; ++r) to[r] += coef * from[r];
    }
  return true;
}

gpu::BasisBatch host_basis(const CauchyForm &form) {
  // The tasks shared out over threads as the evaluations are (each elimination is serial); a
  // single task replays its frozen rows on threads instead.
  return [&form](const std::vector<gpu::BasisTask> &tasks, std::vector<gpu::HalfBasis> &out) {
    out.assign(tasks.size(), {});
    const int64_t count = int64_t(tasks.size());
    const int parts = static_cast<int>(std::min<int64_t>(host_slots(), count));
    run_parts(parts, [&](int part) {
      Scratch scratch;
      for (int64_t i = part; i < count; i += parts) {
        try {
          Record rec;
          std::vector<double> f;
          const CauchyHalf &b = form.half[tasks[i].half];
          const bool trusted =
              half_record(b, tasks[i].sigma * form.scale, tasks[i].want, tasks[i].floor * form.scale, scratch, rec);
          replay(rec, f, parts == 1);
          out[i].trusted = basis_from_record(b, rec, f, tasks[i].want, out[i].x) && trusted;
          out[i].count = b.size > 0 ? int64_t(out[i].x.size()) / b.size : 0;
        } catch (...) {  // no memory for this task: it stays untrusted (its group then retries or fails)
          out[i] = {};
        }
      }
    });
    return gpu::Status::success();
  };
}

VectorReport eigenvectors(int64_t n, const double *t_in, int m, double *w, const int *half, double tol,
                          const gpu::BasisBatch &basis, double *z, int64_t ldz, const double *shifts) {
  VectorReport rep;
  // The FFT products on t scaled into [0.5, 1) (a power of two, exact): a tiny t's products
  // would lose digits to subnormals. The eigenvalues and tol follow inside.
  const double scale = unit_scale(n, t_in);
  std::vector<double> scaled(t_in, t_in + n);
  for (double &x : scaled) x *= scale;
  const double *t = scaled.data();
  for (int i = 0; i < m; ++i) w[i] *= scale;
  tol *= scale;
  struct Unscale {  // w back to T's units on every return
    double *w;
    int m;
    double scale;
    ~Unscale() {
      for (int i = 0; i < m; ++i) w[i] /= scale;
    }
  } unscale{w, m, scale};
  const double norm = std::max(norm1(n, t), DBL_MIN);
  // Two eigenvalues a gap g apart whose vectors are each accurate to eps ||T|| / g (a backward
  // stable basis) are orthogonal to about 2 eps ||T|| / g: within n eps (the test ratio's unit)
  // from g ~ ||T|| / n on. Closer ones are rotated together (DSTEIN groups below 1e-3 ||T||).
  const double group_gap = norm * std::max(1e-3, 100.0 / double(n));
  std::vector<Group> groups;
  for (int h = 0; h < 2; ++h) {
    int prev = -1;
    for (int i = 0; i < m; ++i) {
      if (half[i] != h) continue;
      if (prev < 0 || w[i] - w[prev] > group_gap) groups.push_back({h, {}, false, INFINITY, {}, {}});
      groups.back().index.push_back(i);
      prev = i;
    }
  }
  // An eigenvalue's next shift: the search's estimate first (within tol / 2 of w), then the last
  // round's refined value; NaN: w itself.
  std::vector<double> shift_of(m, NAN);
  if (shifts)
    for (int i = 0; i < m; ++i)
      if (std::fabs(shifts[i] * scale - w[i]) <= tol / 2) shift_of[i] = shifts[i] * scale;
  // Elements left with |d| and rows below sqrt(eps) ||T||_1 (or tol) join a basis' tail rather
  // than be pivots: near a cluster their values are the elimination's rounding (prolate t: rows
  // of 1e-13 against a tol of 3e-14 at n = 64), and dividing by them ruins the frozen rows. A
  // tail wider than needed costs only its Schur complement's eigenvectors (the smallest kept).
  const double floor = std::max(tol, std::sqrt(kEps) * norm);
  const int64_t size[2] = {(n + 1) / 2, n / 2};
  const fft::Dst1 dst(n);
  const fft::ToeplitzProduct product(n, t);

  for (int attempt = 0; attempt < kTries; ++attempt) {
    // A group's eigenvalues closer than `merge` share a shift and a basis of their number (a
    // multiplet: 2 tol, the search cannot tell them apart; a retry merges more widely, as counts
    // in a cluster's rounding may leave its values further apart). The shift: the mean of the
    // values, or of the last round's Ritz values (Rayleigh quotient iteration: a basis from
    // inverse iteration at the bracket's midpoint, up to tol / 2 off, keeps an error of that over
    // the gap times its start's imbalance, which a shift at the Ritz value, accurate to its
    // square, removes).
    const double merge = 2 * tol * std::pow(32.0, attempt);
    std::vector<gpu::BasisTask> tasks;
    std::vector<std::vector<std::pair<int, int>>> parts_of(groups.size());  // (task, eigenvalues)
    for (size_t gi = 0; gi < groups.size(); ++gi) {
      const Group &g = groups[gi];
      if (g.done) continue;
      for (size_t a = 0; a < g.index.size();) {
        size_t b = a + 1;
        while (b < g.index.size() && w[g.index[b]] - w[g.index[b - 1]] <= merge) ++b;
        double sigma = 0;
        for (size_t j = a; j < b; ++j) {
          const double next = shift_of[g.index[j]];
          sigma += next == next ? next : w[g.index[j]];
        }
        sigma /= double(b - a);
        parts_of[gi].push_back({int(tasks.size()), int(b - a)});
        tasks.push_back({sigma / scale, g.half, int64_t(b - a), floor / scale});  // in t_in's units
        a = b;
      }
    }
    if (tasks.empty()) break;
    std::vector<gpu::HalfBasis> bases;
    const auto start = std::chrono::steady_clock::now();
    const gpu::Status s = basis(tasks, bases);
    const auto based = std::chrono::steady_clock::now();
    rep.basis_ms += std::chrono::duration<double, std::milli>(based - start).count();
    struct HostTime {  // the rest of the round, on every way out of it
      VectorReport &rep;
      std::chrono::steady_clock::time_point from;
      ~HostTime() {
        rep.host_ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - from).count();
      }
    } host_time{rep, based};
    ++rep.attempts;
    rep.bases += int64_t(tasks.size());
    if (!s) return rep.why = "basis failed: " + s.reason, rep;

    const double bar = attempt + 1 == kTries ? kThreshold : kTarget;
    for (size_t gi = 0; gi < groups.size(); ++gi) {
      Group &g = groups[gi];
      if (g.done) continue;
      // The group's basis columns lifted to T's basis: a half's place p is row j = 2p + half + 1
      // (1-based) of the sine basis.
      std::vector<const double *> columns;
      const std::vector<int> &wanted = g.index;
      bool usable = true;
      const int h = g.half;
      for (const auto &[task, count] : parts_of[gi]) {
        const gpu::HalfBasis &b = bases[task];
        usable &= b.trusted && int64_t(b.x.size()) == b.count * size[h] && b.count >= count;
        for (int64_t c = 0; c < b.count && usable; ++c) columns.push_back(b.x.data() + c * size[h]);
      }
      if (!usable || columns.size() < wanted.size()) continue;
      const int64_t count = int64_t(columns.size());
      std::vector<double> x(n * count), tx;
      // (a thread's workspace that cannot be had leaves the group to the next round: nothing may
      // throw out of a run_parts thread)
      std::atomic<bool> short_of_memory{false};
      const int parts = static_cast<int>(std::min<int64_t>(host_parts(n * count, int64_t(1) << 14), count));
      run_parts(parts, [&](int part) {
        try {
          std::vector<fft::Complex> work;
          std::vector<double> u(n);
          for (int64_t c = part; c < count; c += parts) {
            std::fill(u.begin(), u.end(), 0.0);
            for (int64_t p = 0; p < size[h]; ++p) u[2 * p + h] = columns[c][p];
            dst.run(u.data(), x.data() + c * n, work);
          }
        } catch (...) {
          short_of_memory = true;
        }
      });
      if (short_of_memory) continue;
      const int64_t kept = orthonormalize(n, count, x);
      if (kept < int64_t(wanted.size())) continue;
      tx.resize(n * kept);
      const int product_parts = std::min<int>(parts, int(kept));
      run_parts(product_parts, [&](int part) {
        try {
          std::vector<fft::Complex> work;
          for (int64_t c = part; c < kept; c += product_parts) product.run(x.data() + c * n, tx.data() + c * n, work);
        } catch (...) {
          short_of_memory = true;
        }
      });
      if (short_of_memory) continue;
      // Rayleigh-Ritz: G = X' T X, its eigenvectors V; the wanted eigenvalues (ascending) take the
      // window of Ritz values (ascending) nearest them.
      std::vector<double> v(kept * kept, 0.0), theta;
      for (int64_t a = 0; a < kept; ++a)
        for (int64_t b = 0; b <= a; ++b) {
          const double e =
              0.5 * (dot(n, x.data() + a * n, tx.data() + b * n) + dot(n, x.data() + b * n, tx.data() + a * n));
          v[a + b * kept] = v[b + a * kept] = e;
        }
      if (!small_eigen(kept, v, theta)) continue;
      int64_t first = 0;
      double best = INFINITY;
      for (int64_t s0 = 0; s0 + int64_t(wanted.size()) <= kept; ++s0) {
        double miss = 0;
        for (size_t i = 0; i < wanted.size(); ++i) miss += std::fabs(theta[s0 + i] - w[wanted[i]]);
        if (miss < best) best = miss, first = s0;
      }
      // The Ritz vectors, their residuals against the returned eigenvalues, and the verdict.
      std::vector<double> y(n * wanted.size()), ty(n * wanted.size()), refined(wanted.size());
      double worst = 0;
      for (size_t i = 0; i < wanted.size(); ++i) {
        double *yi = y.data() + i * n, *tyi = ty.data() + i * n;
        for (int64_t c = 0; c < kept; ++c) {
          const double coef = v[c + (first + int64_t(i)) * kept];
          const double *xc = x.data() + c * n, *tc = tx.data() + c * n;
          for (int64_t r = 0; r < n; ++r) yi[r] += coef * xc[r], tyi[r] += coef * tc[r];
        }
        // The Ritz value kept within the bracket's reach (tol / 2 of its midpoint, where the
        // counts put the eigenvalue): about the eigenvalue's square of the residual over the gap
        // off, where the midpoint may be tol / 2 off, whose share of T x - w x alone would give a
        // test ratio of sqrt(n) / 2 (the 1-norm of a unit vector reaches sqrt(n)).
        const double mid = w[wanted[i]];
        refined[i] = std::clamp(theta[first + int64_t(i)], mid - tol / 2, mid + tol / 2);
        const double len = std::sqrt(dot(n, yi, yi));
        double res = 0;  // ||T y - w y||_1 for y of unit length: dsyt22's ratio for one column
        for (int64_t r = 0; r < n; ++r) res += std::fabs(tyi[r] - refined[i] * yi[r]);
        for (int64_t r = 0; r < n; ++r) yi[r] /= len;
        worst = std::max(worst, res / len / (double(n) * kEps * norm));
      }
      // The group's best round so far is kept (a later one may do worse: a cluster at the
      // elimination's rounding moves with the shift); it is final once within the target.
      if (worst <= kThreshold && worst < g.best) g.best = worst, g.z.swap(y), g.w = refined;
      if (worst <= bar) {
        g.done = true;
      } else {
        // The next round's shifts: the refined values.
        for (size_t i = 0; i < wanted.size(); ++i) shift_of[wanted[i]] = refined[i];
      }
    }
  }
  // The refined values and their vectors, W ascending again (refined values of different halves
  // within tol of each other may have crossed), each column of Z at its value's place.
  std::vector<std::pair<double, std::pair<const Group *, size_t>>> order;  // (value, (group, member))
  for (const Group &g : groups) {
    if (!(g.best <= kThreshold)) return rep.why = "a vector's residual stayed above 30 n eps ||T||_1", rep;
    for (size_t i = 0; i < g.index.size(); ++i) order.push_back({g.w[i], {&g, i}});
    rep.worst = std::max(rep.worst, g.best);
  }
  std::stable_sort(order.begin(), order.end(), [](const auto &a, const auto &b) { return a.first < b.first; });
  for (size_t k = 0; k < order.size(); ++k) {
    const auto &[g, i] = order[k].second;
    std::copy_n(g->z.data() + i * n, n, z + int64_t(k) * ldz);
    w[k] = order[k].first;
  }
  rep.ok = true;
  return rep;
}

}  // namespace gpueig::structured
