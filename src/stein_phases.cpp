// The host run of gpu_stein's GPU method (src/stein_phases.hpp): the clusters, then every
// cluster's vectors (a team per cluster on the GPU, one after another here).
#include "stein_phases.hpp"

#include <algorithm>
#include <cmath>
#include <new>
#include <vector>

namespace gpueig::stein_phases {

std::vector<Cluster> clusters(const double *d, const double *e, int m, const double *w,
                              const int *iblock, const int *isplit) {
  std::vector<Cluster> out;
  int block = 0;
  int64_t begin = 0, len = 0;
  double onenrm = 0;
  for (int j = 0; j < m; ++j) {
    if (iblock[j] != block) {  // a new block: its rows and DSTEIN's ONENRM
      block = iblock[j];
      begin = block == 1 ? 0 : isplit[block - 2];
      len = isplit[block - 1] - begin;
      onenrm = 0;
      for (int64_t i = begin; i < begin + len; ++i) {
        double r = std::fabs(d[i]);
        if (i > begin) r += std::fabs(e[i - 1]);
        if (i + 1 < begin + len) r += std::fabs(e[i]);
        onenrm = std::max(onenrm, r);
      }
      out.push_back({begin, len, j, 1, onenrm});
      continue;
    }
    if (std::fabs(w[j] - w[j - 1]) > kOrtol * onenrm)
      out.push_back({begin, len, j, 1, onenrm});
    else
      ++out.back().count;
  }
  return out;
}

int64_t match_run(const std::vector<double> &vals, const double *wc, const Cluster &c) {
  if (c.count > c.len) return -1;
  // The run starting near the eigenvalue nearest to the cluster's first.
  const int64_t nearest = std::lower_bound(vals.begin(), vals.end(), wc[0]) - vals.begin();
  int64_t best = -1;
  double best_sum = INFINITY;
  for (int64_t i0 = std::max<int64_t>(0, nearest - kLargeCluster);
       i0 <= std::min<int64_t>(c.len - c.count, nearest + kLargeCluster); ++i0) {
    double s = 0;
    for (int k = 0; k < c.count && s < best_sum; ++k) s += std::fabs(vals[i0 + k] - wc[k]);
    if (s < best_sum) best_sum = s, best = i0;
  }
  if (best < 0) return -1;
  // Both methods find every eigenvalue to a few ulps of ||T||: a run farther off is not W's.
  const double tol = 1e3 * kPrecision * c.onenrm * double(c.len);
  for (int k = 0; k < c.count; ++k)
    if (!(std::fabs(vals[best + k] - wc[k]) <= tol)) return -1;
  return best;
}

namespace {

// A large cluster's vectors from its block's divide and conquer. The cluster's eigenvalues are
// consecutive ones of the block's spectrum (DSTEBZ's, for any RANGE): they are matched to the
// run of the block's eigenvalues nearest to them as a whole (by rank, not one by one: inside a
// cluster two eigenvalues can be closer than either method's error). False when the divide and
// conquer failed or no run is within a tolerance of W (W not from DSTEBZ): the caller iterates
// instead.
bool from_divide_and_conquer(const Cluster &c, const double *d, const double *e, const double *w,
                             double *z, int64_t ldz, stedc_phases::Gemm gemm, int64_t &cached,
                             std::vector<double> &vals, std::vector<double> &vecs) {
  if (cached != c.begin) {
    vals.assign(d + c.begin, d + c.begin + c.len);
    vecs.assign(size_t(c.len) * c.len, 0.0);
    cached = -1;
    if (stedc_phases::solve(c.len, vals.data(), e + c.begin, vecs.data(), c.len, gemm) != 0) return false;
    cached = c.begin;
  }
  const int64_t best = match_run(vals, w + c.first, c);
  if (best < 0) return false;
  for (int k = 0; k < c.count; ++k)
    std::copy_n(vecs.data() + (best + k) * c.len, c.len, z + c.begin + int64_t(c.first + k) * ldz);
  return true;
}

// A cluster's vectors each by inverse iteration on its own (the GPU runs them side by side), kept
// when all converged and the largest column sum of |Z_c^T Z_c - I| is within independent_limit.
bool independent_vectors(const Cluster &c, const double *d, const double *e, const double *w, double *z,
                         int64_t ldz, const Lu &f, std::vector<double> &y) {
  bool ok = true;
  double *zc = z + c.begin + int64_t(c.first) * ldz;
  for (int k = 0; k < c.count; ++k) {
    const int j = c.first + k;
    ok = inverse_iteration(c.len, d + c.begin, e + c.begin, c.onenrm, w[j], uint64_t(j), zc, ldz, 0, f,
                           y.data(), SerialTeam{}) && ok;
    std::copy_n(y.data(), c.len, zc + int64_t(k) * ldz);
  }
  for (int k = 0; k < c.count && ok; ++k) {
    double sum = 0;
    for (int i = 0; i < c.count; ++i) {
      double dot = 0;
      for (int64_t r = 0; r < c.len; ++r) dot += zc[r + int64_t(i) * ldz] * zc[r + int64_t(k) * ldz];
      sum += std::fabs(dot - (i == k ? 1.0 : 0.0));
    }
    ok = sum <= independent_limit(c.len);  // (a NaN sum fails)
  }
  return ok;
}

}  // namespace

Cluster whole_block(const Cluster *first, const Cluster *last) {
  Cluster b = *first;
  b.count = last[-1].first + last[-1].count - first->first;
  return b;
}

int solve(int n, const double *d, const double *e, int m, const double *w, const int *iblock,
          const int *isplit, double *z, int64_t ldz, int *ifail, stedc_phases::Gemm gemm,
          Branches *branches) {
  Branches local;
  Branches &b = branches ? *branches : local;
  try {
    for (int j = 0; j < m; ++j) std::fill_n(z + int64_t(j) * ldz, n, 0.0);
    std::fill_n(ifail, m, 0);
    const std::vector<Cluster> cl = clusters(d, e, m, w, iblock, isplit);
    std::vector<double> u0(n), u1(n), u2(n), l(n), y(n), vals, vecs;
    std::vector<unsigned char> swapped(n);
    const Lu f{u0.data(), u1.data(), u2.data(), l.data(), swapped.data()};
    int64_t cached = -1;
    int info = 0;
    // DSTEIN's inverse iteration with Gram-Schmidt inside the cluster; unconverged ones into failed.
    auto gram_schmidt = [&](const Cluster &c, std::vector<int> &failed) {
      ++b.gram_schmidt;
      double xjm = 0;
      for (int k = 0; k < c.count; ++k) {
        const int j = c.first + k;
        double x = w[j];
        // DSTEIN's perturbation of equal (or nearly equal) eigenvalues apart
        if (k > 0 && x - xjm < 10 * std::fabs(kPrecision * x)) x = xjm + 10 * std::fabs(kPrecision * x);
        const bool ok = inverse_iteration(c.len, d + c.begin, e + c.begin, c.onenrm, x, uint64_t(j),
                                          z + c.begin + int64_t(c.first) * ldz, ldz, k, f, y.data(),
                                          SerialTeam{});
        std::copy_n(y.data(), c.len, z + c.begin + int64_t(j) * ldz);
        if (!ok) failed.push_back(j + 1);
        xjm = x;
      }
    };
    auto from_dc = [&](const Cluster &c) {
      return from_divide_and_conquer(c, d, e, w, z, ldz, gemm, cached, vals, vecs);
    };
    for (size_t b0 = 0, b1; b0 < cl.size(); b0 = b1) {  // block by block
      for (b1 = b0 + 1; b1 < cl.size() && cl[b1].begin == cl[b0].begin;) ++b1;
      const Cluster block = whole_block(&cl[b0], &cl[0] + b1);
      // 1. A block with a large cluster (not first tried as independent vectors): all its
      // vectors from its divide and conquer (see whole_block).
      const bool large = std::any_of(&cl[b0], &cl[0] + b1, [](const Cluster &c) {
        return by_divide_and_conquer(c) && !independent_first(c);
      });
      if (large && from_dc(block)) {
        ++b.divide_and_conquer;
        continue;
      }
      // 2. Otherwise cluster by cluster: independent vectors where they pass, Gram-Schmidt for the
      // small clusters (and, W not matched as a whole, a large cluster's own run of the divide
      // and conquer). A rejected independent cluster that is large waits for step 3.
      std::vector<int> failed;
      std::vector<const Cluster *> deferred;
      for (size_t i = b0; i < b1; ++i) {
        const Cluster &c = cl[i];
        if (c.len == 1) {
          for (int k = 0; k < c.count; ++k) z[c.begin + int64_t(c.first + k) * ldz] = 1;
          continue;
        }
        if (independent_first(c)) {
          if (independent_vectors(c, d, e, w, z, ldz, f, y)) {
            ++b.independent;
            continue;
          }
          ++b.independent_rejected;
          if (by_divide_and_conquer(c) && !large) {
            deferred.push_back(&c);
            continue;
          }
        }
        if (by_divide_and_conquer(c) && from_dc(c)) {
          ++b.divide_and_conquer;
          continue;
        }
        gram_schmidt(c, failed);
      }
      // 3. A large rejected cluster, or a vector that did not converge (where DSTEIN stops with
      // IFAIL): the whole block from its divide and conquer; failing that (W not matched), those
      // clusters on their own, and IFAIL for what still did not converge.
      if ((!failed.empty() || !deferred.empty()) && !large && from_dc(block)) {
        ++(failed.empty() ? b.divide_and_conquer : b.retried);
        continue;
      }
      for (const Cluster *c : deferred) {
        if (from_dc(*c)) ++b.divide_and_conquer;
        else gram_schmidt(*c, failed);
      }
      std::sort(failed.begin(), failed.end());
      for (int j : failed) ifail[info++] = j;
    }
    return info;
  } catch (const std::bad_alloc &) {
    return -2;
  }
}

}  // namespace gpueig::stein_phases
