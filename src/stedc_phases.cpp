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

// The leaves of a block of m rows: halved until every piece has at most kLeaf rows, all pieces
// of a level at once (DLAED0's partition), so that the tree is complete: level by level, pieces
// 2j and 2j+1 merge. Returns the pieces' first rows (and m at the end).
std::vector<int64_t> plan(int64_t m) {
  std::vector<int64_t> size{m};
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
  // Every root of the secular equation with its column of differences (a task per root).
  for (int i = 0; i < k; ++i) {
    s.lam[i] = secular_root(k, s.dlam.data(), s.w.data(), rho, i, s.delta.data() + int64_t(i) * k, 1);
    if (std::isnan(s.lam[i])) return -1;
  }
  // Loewner's z (a task per entry), then the vectors of the rank-one update (a task per root).
  for (int i = 0; i < k; ++i) s.zhat[i] = loewner_z(k, s.dlam.data(), s.delta.data(), k, i, s.w[i]);
  for (int i = 0; i < k; ++i) rank1_vector(k, s.zhat.data(), s.delta.data() + int64_t(i) * k);
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

// One unreduced block of m rows (scaled): d, e its entries, q (ldq) its m x m eigenvector block,
// zero on entry.
int solve_block(int64_t m, double *d, const double *e, double *q, int64_t ldq, Scratch &s,
                Gemm gemm, int64_t row0, int64_t n) {
  const std::vector<int64_t> first = plan(m);
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
    if (leaf_ql(static_cast<int>(len), d + b, el.data(), q + b + b * ldq, ldq) != 0)
      return static_cast<int>((row0 + b + 1) * (n + 1) + row0 + b + len);  // DSTEDC's INFO
  }
  // Merges, level by level (every merge of a level is independent of the others).
  for (int64_t width = 1; width < leaves; width *= 2) {
    for (int64_t p = 0; p + width < leaves; p += 2 * width) {
      const int64_t b = first[p], mid = first[p + width], end = first[std::min(p + 2 * width, leaves)];
      const int r = merge(mid - b, end - mid, e[mid - 1], d + b, q + b + b * ldq, ldq, s, gemm);
      if (r != 0) return r;
    }
  }
  return 0;
}

}  // namespace

int solve(int64_t n, double *d, const double *e, double *z, int64_t ldz, Gemm gemm) {
  if (n <= 0) return 0;
  try {
    for (int64_t j = 0; j < n; ++j) std::fill_n(z + j * ldz, n, 0.0);
    // Scaled to max |T| = 1, as DSTEDC does: the leaves' and the secular equations' arithmetic
    // then neither overflows nor underflows.
    double anorm = 0;
    for (int64_t i = 0; i < n; ++i) anorm = std::max(anorm, std::fabs(d[i]));
    for (int64_t i = 0; i + 1 < n; ++i) anorm = std::max(anorm, std::fabs(e[i]));
    if (anorm == 0) {  // T = 0
      for (int64_t j = 0; j < n; ++j) z[j + j * ldz] = 1;
      return 0;
    }
    std::vector<double> ds(d, d + n), es(std::max<int64_t>(1, n - 1), 0.0);
    for (int64_t i = 0; i < n; ++i) ds[i] /= anorm;
    for (int64_t i = 0; i + 1 < n; ++i) es[i] = e[i] / anorm;
    // Independent blocks where T splits (DSTEDC's test of a negligible e).
    int64_t largest = 1;
    std::vector<int64_t> begin{0};
    for (int64_t i = 0; i + 1 < n; ++i)
      if (std::fabs(es[i]) <= kEps * std::sqrt(std::fabs(ds[i])) * std::sqrt(std::fabs(ds[i + 1]))) {
        es[i] = 0;
        largest = std::max(largest, i + 1 - begin.back());
        begin.push_back(i + 1);
      }
    largest = std::max(largest, n - begin.back());
    begin.push_back(n);
    Scratch s(largest);
    for (size_t blk = 0; blk + 1 < begin.size(); ++blk) {
      const int64_t b = begin[blk], m = begin[blk + 1] - b;
      if (m == 1) {
        z[b + b * ldz] = 1;
        continue;
      }
      if (const int r = solve_block(m, ds.data() + b, es.data() + b, z + b + b * ldz, ldz, s, gemm, b, n))
        return r;
    }
    // The blocks' eigenvalues into one ascending list, their vectors along.
    if (begin.size() > 2) {
      std::vector<int64_t> idx(n);
      std::iota(idx.begin(), idx.end(), 0);
      std::stable_sort(idx.begin(), idx.end(), [&](int64_t a, int64_t b) { return ds[a] < ds[b]; });
      std::vector<double> col(n * n);
      for (int64_t j = 0; j < n; ++j) std::copy_n(z + idx[j] * ldz, n, col.data() + j * n);
      for (int64_t j = 0; j < n; ++j) std::copy_n(col.data() + j * n, n, z + j * ldz);
      std::vector<double> sorted(n);
      for (int64_t j = 0; j < n; ++j) sorted[j] = ds[idx[j]];
      ds.swap(sorted);
    }
    for (int64_t i = 0; i < n; ++i) d[i] = ds[i] * anorm;
    return 0;
  } catch (const std::bad_alloc &) {
    return -2;
  }
}

}  // namespace gpueig::stedc_phases
