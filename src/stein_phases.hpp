// Eigenvectors of a symmetric tridiagonal matrix for given eigenvalues (gpu_stein's GPU method),
// written as the tasks a GPU runs, GPUEIG_HD, checked on the host over the zoo
// (tests/test_stein_phases.cpp). DSTEIN's output contract, not all of its algorithm:
//   clusters   the eigenvalues of each block cut where two neighbours are farther apart than
//              kOrtol ||T_block||_1 (DSTEIN's rule for the vectors it reorthogonalizes)
//   singletons and small clusters (by_divide_and_conquer): DSTEIN's inverse iteration (LU of T - x I with
//              partial pivoting, a scaled start vector, kMaxIterations, kExtra more once the
//              growth says it converged), each vector kept orthogonal to the earlier ones of its
//              cluster by modified Gram-Schmidt: a team per cluster, clusters side by side
//   larger clusters (a spectrum where most gaps are small, DSTEIN's quadratic case; or a few
//              eigenvalues over a long block, where a team's sequential sweeps cost more): all
//              eigenpairs of their block by divide and conquer (stedc_phases), and of those the
//              vectors of the cluster's eigenvalues, matched in order. They are orthogonal by
//              construction whatever the cluster's size.
#pragma once
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <vector>

#include "host_device.hpp"
#include "stedc_phases.hpp"

namespace gpueig::stein_phases {

constexpr double kPrecision = DBL_EPSILON;  // DLAMCH('P'), DSTEIN's EPS
constexpr int kMaxIterations = 5;           // DSTEIN's MAXITS
constexpr int kExtra = 2;                   // DSTEIN's EXTRA
constexpr double kOrtol = 1e-3;             // DSTEIN's ORTOL = 1e-3 ||T_block||_1
// Clusters larger than this take their vectors from the block's divide and conquer: Gram-Schmidt
// inside a cluster is sequential and quadratic in its size.
constexpr int kLargeCluster = 64;

// Eigenvalues W[first .. first+count) of the block of rows begin .. begin+len-1.
struct Cluster {
  int64_t begin, len;
  int first, count;
  double onenrm;  // ||T_block||_1
};

// Whether a cluster takes its vectors from its block's divide and conquer rather than from a
// team's inverse iteration. A team works its cluster's vectors one after another, each over the
// block's rows in sequence: on the H100 (2026-11-26, gpu_syevx's smallest 1% of a random n = 8192
// and 4096) about 1.1 us per vector and row, 272 ms for a cluster of 30 in a block of 8192 and
// 18 ms for 4 in 4096, clusters side by side. The block's divide and conquer (cuda/stedc.cu) takes
// about 2.8 us per row (23 ms at 8192, 9.7 at 4096, 2.8 at 1024) and about 1 ms of launches, once
// for every cluster of the block. So: from (count - 2.5) len > 900 on, and always above
// kLargeCluster (Gram-Schmidt is quadratic in the count).
inline bool by_divide_and_conquer(const Cluster &c) {
  return c.len > 1 && (c.count > kLargeCluster || (2 * int64_t(c.count) - 5) * c.len > 1800);
}

// (host) The clusters of W (ORDER 'B': ascending within each block; IBLOCK, ISPLIT as DSTEBZ's).
std::vector<Cluster> clusters(const double *d, const double *e, int m, const double *w,
                              const int *iblock, const int *isplit);

// P (T - x I) = L U for the block (d, e) of len rows (DLAGTF): U with two superdiagonals (u0, u1,
// u2), the multipliers l and row interchanges swapped[i] (rows i and i+1). Partial pivoting keeps
// every multiplier within 1, so the factors are those of T - x I itself, however small a pivot;
// only the back substitution guards its divisions (lu_solve). Returns DLAGTS's tolerance for it:
// eps max |U| (eps where U is zero).
struct Lu {
  double *u0, *u1, *u2, *l;
  unsigned char *swapped;
};

GPUEIG_HD inline double lu_factor(int64_t len, const double *d, const double *e, double x,
                                  const Lu &f) {
  // Row i of the active part: (a, b, c) at columns i, i+1, i+2; the next row's (sub, diag, sup).
  double a = d[0] - x, b = len > 1 ? e[0] : 0, c = 0;
  for (int64_t i = 0; i + 1 < len; ++i) {
    const double sub = e[i], dn = d[i + 1] - x, sup = i + 2 < len ? e[i + 1] : 0;
    double na, nb;  // the next row's entries at columns i+1, i+2 after elimination
    if (fabs(a) >= fabs(sub)) {  // no interchange
      const double m = a != 0 ? sub / a : 0.0;  // (a = sub = 0: nothing to eliminate)
      f.swapped[i] = 0;
      f.u0[i] = a, f.u1[i] = b, f.u2[i] = c, f.l[i] = m;
      na = dn - m * b;
      nb = sup - m * c;
    } else {  // rows i and i+1 exchanged
      const double m = a / sub;
      f.swapped[i] = 1;
      f.u0[i] = sub, f.u1[i] = dn, f.u2[i] = sup, f.l[i] = m;
      na = b - m * dn;
      nb = c - m * sup;
    }
    a = na, b = nb, c = 0;
  }
  f.u0[len - 1] = a;
  if (len > 1) f.u1[len - 1] = 0;
  double big = 0;
  for (int64_t i = 0; i < len; ++i) big = fmax(big, fmax(fabs(f.u0[i]), fmax(fabs(f.u1[i]), fabs(f.u2[i]))));
  return big > 0 ? kPrecision * big : kPrecision;
}

// y := (T - x I)^{-1} y with the factors of lu_factor. As DLAGTS with JOB = -1, a pivot is
// perturbed (by +-tol, doubled until it suffices) only where it is zero or the division would
// overflow: a tiny pivot is the growth inverse iteration lives on (clamping every pivot below tol
// blurs eigenvalues closer than eps ||T||, which DSTEIN's own tests then catch).
GPUEIG_HD inline void lu_solve(int64_t len, const Lu &f, double tol, double *y) {
  for (int64_t i = 0; i + 1 < len; ++i) {  // L^-1 P
    if (f.swapped[i]) {
      const double t = y[i];
      y[i] = y[i + 1];
      y[i + 1] = t - f.l[i] * y[i];
    } else {
      y[i + 1] -= f.l[i] * y[i];
    }
  }
  for (int64_t i = len - 1; i >= 0; --i) {  // U^-1
    double t = y[i];
    if (i + 1 < len) t -= f.u1[i] * y[i + 1];
    if (i + 2 < len) t -= f.u2[i] * y[i + 2];
    double p = f.u0[i], pert = p < 0 ? -tol : tol;
    for (int k = 0; k < 2100 && (p == 0 || fabs(t) > fabs(p) * 0x1p1000); ++k) p += pert, pert *= 2;
    y[i] = t / p;
  }
}

// A start vector's entry in (-1, 1), a hash of (eigenvalue, row): the same on host and device,
// and independent of the order the vectors are computed in.
GPUEIG_HD inline double start_entry(uint64_t j, int64_t row) {
  uint64_t h = (j + 1) * 0x9E3779B97F4A7C15ull ^ (uint64_t(row) + 0x632BE59BD9B4E019ull);
  h ^= h >> 31;
  h *= 0xBF58476D1CE4E5B9ull;
  h ^= h >> 27;
  h *= 0x94D049BB133111EBull;
  h ^= h >> 31;
  return double(h >> 11) * 0x1p-52 - 1.0;
}

// DSTEIN's inverse iteration for eigenvalue x (already perturbed away from the one before it)
// of the block (d, e, len rows, onenrm = ||T_block||_1): on return y (len) the unit vector with
// its largest entry positive, orthogonal to the `nprev` unit vectors at prev, prev + ldp, ...
// (the earlier ones of its cluster). Lu's arrays and y are the task's own. Returns whether it
// converged within kMaxIterations (y is the last iterate either way).
template <class Team>
GPUEIG_HD bool inverse_iteration(int64_t len, const double *d, const double *e, double onenrm,
                                 double x, uint64_t seed, const double *prev, int64_t ldp,
                                 int nprev, const Lu &f, double *y, const Team &team) {
  const int64_t r0 = team.lane(), step = team.width();
  // (each member factors and solves on its own copy of the factors' scalars: the same
  // arithmetic; only member 0 writes the shared arrays, the others read them after a sync)
  // (member 0 factors; the tolerance, a scalar of its own, every member computes from U after the
  // sync below)
  if (r0 == 0) lu_factor(len, d, e, x, f);
  for (int64_t i = r0; i < len; i += step) y[i] = start_entry(seed, i);
  team.sync();
  double tol = 0;
  for (int64_t i = r0; i < len; i += step)
    tol = fmax(tol, fmax(fabs(f.u0[i]), fmax(fabs(f.u1[i]), fabs(f.u2[i]))));
  tol = team.max(tol);
  tol = tol > 0 ? kPrecision * tol : kPrecision;
  const double dtpcrt = sqrt(0.1 / double(len));
  int checked = 0;
  bool converged = false;
  for (int it = 0; it < kMaxIterations && !converged; ++it) {
    // Scale the right-hand side as DSTEIN does (so that the solve cannot overflow).
    double asum = 0;
    for (int64_t i = r0; i < len; i += step) asum += fabs(y[i]);
    asum = team.sum(asum);
    const double scl = double(len) * onenrm * fmax(kPrecision, fabs(f.u0[len - 1])) / asum;
    for (int64_t i = r0; i < len; i += step) y[i] *= scl;
    team.sync();
    if (r0 == 0) lu_solve(len, f, tol, y);
    team.sync();
    for (int p = 0; p < nprev; ++p) {  // modified Gram-Schmidt against the cluster's earlier vectors
      const double *q = prev + int64_t(p) * ldp;
      double dot = 0;
      for (int64_t i = r0; i < len; i += step) dot += q[i] * y[i];
      dot = team.sum(dot);
      for (int64_t i = r0; i < len; i += step) y[i] -= dot * q[i];
    }
    double big = 0;
    for (int64_t i = r0; i < len; i += step) big = fmax(big, fabs(y[i]));
    big = team.max(big);
    if (!(big >= dtpcrt)) continue;  // (a NaN iterate never counts as converged)
    converged = ++checked >= kExtra + 1;
  }
  // Normalized, the largest entry (the first of the largest) positive.
  double nrm = 0, big = 0;
  int64_t at = len;
  for (int64_t i = r0; i < len; i += step) {
    nrm += y[i] * y[i];
    if (fabs(y[i]) > big) big = fabs(y[i]), at = i;
  }
  nrm = sqrt(team.sum(nrm));
  at = team.argmax(big, at);
  if (at >= len) at = 0;  // (a zero vector: never, the start is nonzero)
  team.sync();
  const double scl = (y[at] < 0 ? -1 : 1) / nrm;
  team.sync();
  for (int64_t i = r0; i < len; i += step) y[i] *= scl;
  team.sync();
  return converged;
}

// (host) Where a large cluster's eigenvalues wc[0 .. count) sit in its block's ascending spectrum
// vals: they are consecutive ones of it (DSTEBZ's, for any RANGE), matched as a whole (by rank,
// not one by one: inside a cluster two eigenvalues can be closer than either method's error) to
// the run nearest to them. -1 when no run is within a few ulps of ||T|| (W not from DSTEBZ).
int64_t match_run(const std::vector<double> &vals, const double *wc, const Cluster &c);

// (host) DSTEIN's contract on T scaled as gpu_stein scales it: Z (ldz, m columns, zero outside
// each vector's block), IFAIL, INFO (the number of vectors that did not converge); the block
// products of the large clusters' divide and conquer by `gemm`. -2 when memory ran out.
int solve(int n, const double *d, const double *e, int m, const double *w, const int *iblock,
          const int *isplit, double *z, int64_t ldz, int *ifail, stedc_phases::Gemm gemm);

}  // namespace gpueig::stein_phases
