// The host run of the divide-and-conquer phases (src/stedc_phases.hpp): the phases in the order
// a GPU runs them, a loop over tasks where the GPU has a thread per task. It is the reference
// the device's kernels are checked against, and what the CPU tests run over the zoo.
#include "stedc_phases.hpp"

#include <algorithm>
#include <cmath>
#include <new>
#include <numeric>
#include <vector>

namespace gpueig::stedc_phases {
namespace {

struct Scratch {
  std::vector<double> z, dlam, w, zhat, lam, vals, rot_cs, delta, g, out;
  std::vector<int> order, sorted, perm, rot_cols;
  explicit Scratch(int64_t m)
      : z(m), dlam(m), w(m), zhat(m), lam(m), vals(m), rot_cs(2 * m), delta(m * m), g(m * m),
        out(m * m), order(m), sorted(m), perm(m), rot_cols(2 * m) {}
};

// One merge: rows/columns b .. b+n1+n2-1 of the block, whose diagonal blocks hold (Q1, D1) and
// (Q2, D2) and were torn apart at coupling `coupling`. On return d and q hold the merged
// block's eigenpairs, ascending. -1 when a secular root was not found.
int merge(int64_t n1, int64_t n2, double coupling, double *d, double *q, int64_t ldq,
          Scratch &s, Gemm gemm) {
  const int64_t n = n1 + n2;
  // merge_z: z = Q^T v with v = e_{n1-1} + sign(e) e_{n1}, normalised: rho = 2 |e|.
  const double r2 = 1 / std::sqrt(2.0);
  for (int64_t j = 0; j < n1; ++j) s.z[j] = r2 * q[(n1 - 1) + j * ldq];
  for (int64_t j = n1; j < n; ++j) s.z[j] = (coupling < 0 ? -r2 : r2) * q[n1 + j * ldq];
  const double rho = 2 * std::fabs(coupling);

  int nrot = 0;
  const int k = deflate(static_cast<int>(n1), static_cast<int>(n), d, s.z.data(), rho, s.order.data(),
                        s.sorted.data(), s.dlam.data(), s.w.data(), s.rot_cols.data(), s.rot_cs.data(), &nrot);
  for (int64_t row = 0; row < n; ++row) rotate_row(nrot, s.rot_cols.data(), s.rot_cs.data(), q + row, ldq);
  const SerialTeam team;
  // Every root of the secular equation with its column of differences (a task per root).
  for (int i = 0; i < k; ++i) {
    s.lam[i] = secular_root(k, s.dlam.data(), s.w.data(), rho, i, s.delta.data() + int64_t(i) * k, 1, team);
    if (std::isnan(s.lam[i])) return -1;
  }
  // Loewner's z (a task per entry), then the vectors of the rank-one update (a task per root).
  for (int i = 0; i < k; ++i) s.zhat[i] = loewner_z(k, s.dlam.data(), s.delta.data(), k, i, s.w[i], team);
  for (int i = 0; i < k; ++i) rank1_vector(k, s.zhat.data(), s.delta.data() + int64_t(i) * k, team);
  // The product: kept columns of Q times the vectors; deflated columns carried over.
  for (int i = 0; i < k; ++i)
    std::copy_n(q + int64_t(s.order[i]) * ldq, n, s.g.data() + int64_t(i) * n);
  if (k > 0) gemm(n, k, k, s.g.data(), n, s.delta.data(), k, s.out.data(), n);
  for (int64_t i = k; i < n; ++i)
    std::copy_n(q + int64_t(s.order[i]) * ldq, n, s.out.data() + i * n);
  for (int i = 0; i < k; ++i) s.vals[i] = s.lam[i];
  for (int64_t i = k; i < n; ++i) s.vals[i] = d[s.order[i]];
  // Both lists are ascending: merge them into d and q.
  int64_t a = 0, b = k;
  for (int64_t t = 0; t < n; ++t) s.perm[t] = static_cast<int>((b >= n || (a < k && s.vals[a] <= s.vals[b])) ? a++ : b++);
  for (int64_t t = 0; t < n; ++t) {
    d[t] = s.vals[s.perm[t]];
    std::copy_n(s.out.data() + int64_t(s.perm[t]) * n, n, q + t * ldq);
  }
  return 0;
}

// The whole matrix (scaled, negligible couplings zeroed): d, e its entries, q (ldq) its n x n
// eigenvectors, zero on entry. A coupling of zero needs no block of its own: its merge deflates
// every pole (rho = 0) and only sorts.
int solve_tree(int64_t n, double *d, const double *e, double *q, int64_t ldq, Scratch &s, Gemm gemm) {
  const SerialTeam team;
  const std::vector<int64_t> first = leaf_starts(n);
  const int64_t leaves = static_cast<int64_t>(first.size()) - 1;
  // Tear T at every cut: diag(T1, T2) + |e| v v^T.
  for (int64_t p = 1; p < leaves; ++p) {
    const int64_t r = first[p];
    d[r - 1] -= std::fabs(e[r - 1]);
    d[r] -= std::fabs(e[r - 1]);
  }
  // Leaves (a task per leaf).
  std::vector<double> el(kLeaf);
  for (int64_t p = 0; p < leaves; ++p) {
    const int64_t b = first[p], len = first[p + 1] - b;
    for (int64_t i = 0; i < len; ++i) q[(b + i) + (b + i) * ldq] = 1;
    for (int64_t i = 0; i + 1 < len; ++i) el[i] = e[b + i];
    if (leaf_ql(static_cast<int>(len), d + b, el.data(), q + b + b * ldq, ldq, team) != 0)
      return static_cast<int>((b + 1) * (n + 1) + b + len);  // DSTEDC's INFO for rows b+1..b+len
  }
  // Merges, level by level (every merge of a level is independent of the others).
  for (int64_t width = 1; width < leaves; width *= 2) {
    for (int64_t p = 0; p < leaves; p += 2 * width) {
      const int64_t b = first[p], mid = first[p + width], end = first[p + 2 * width];
      const int r = merge(mid - b, end - mid, e[mid - 1], d + b, q + b + b * ldq, ldq, s, gemm);
      if (r != 0) return r;
    }
  }
  return 0;
}

}  // namespace

std::vector<int64_t> leaf_starts(int64_t n) {
  std::vector<int64_t> size{n};
  while (size.back() > kLeaf) {
    std::vector<int64_t> next;
    next.reserve(2 * size.size());
    for (int64_t s : size) {
      next.push_back(s / 2);
      next.push_back(s - s / 2);
    }
    size.swap(next);
  }
  std::vector<int64_t> first(size.size() + 1, 0);
  std::partial_sum(size.begin(), size.end(), first.begin() + 1);
  return first;
}

double scale_and_split(int64_t n, double *d, double *e) {
  double anorm = 0;
  for (int64_t i = 0; i < n; ++i) anorm = std::max(anorm, std::fabs(d[i]));
  for (int64_t i = 0; i + 1 < n; ++i) anorm = std::max(anorm, std::fabs(e[i]));
  if (anorm == 0) return 0;
  for (int64_t i = 0; i < n; ++i) d[i] /= anorm;
  for (int64_t i = 0; i + 1 < n; ++i) e[i] /= anorm;
  for (int64_t i = 0; i + 1 < n; ++i) e[i] = split_coupling(d[i], d[i + 1], e[i]);
  return anorm;
}

int solve(int64_t n, double *d, const double *e, double *z, int64_t ldz, Gemm gemm) {
  if (n <= 0) return 0;
  try {
    for (int64_t j = 0; j < n; ++j) std::fill_n(z + j * ldz, n, 0.0);
    std::vector<double> ds(d, d + n), es(std::max<int64_t>(1, n - 1), 0.0);
    std::copy_n(e, n - 1, es.data());
    const double anorm = scale_and_split(n, ds.data(), es.data());
    if (anorm == 0 || n == 1) {  // T = 0, or 1 x 1: Z = I, d as it is
      for (int64_t j = 0; j < n; ++j) z[j + j * ldz] = 1;
      return 0;
    }
    Scratch s(n);
    if (const int r = solve_tree(n, ds.data(), es.data(), z, ldz, s, gemm)) return r;
    for (int64_t i = 0; i < n; ++i) d[i] = ds[i] * anorm;
    return 0;
  } catch (const std::bad_alloc &) {
    return -2;
  }
}

}  // namespace gpueig::stedc_phases
