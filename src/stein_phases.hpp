// Eigenvectors of a symmetric tridiagonal matrix for given eigenvalues (gpu_stein's GPU method),
// written as the tasks a GPU runs, GPUEIG_HD, checked on the host over the zoo
// (tests/test_stein_phases.cpp). DSTEIN's output contract, not all of its algorithm:
//   clusters   the eigenvalues of each block cut where two neighbours are farther apart than
//              kOrtol ||T_block||_1 (DSTEIN's rule for the vectors it reorthogonalizes)
//   independent first (independent_first): a cluster of a few eigenvalues over a long block
//              has each vector by inverse iteration on its own, all at once; where their
//              Gram matrix shows them orthogonal to working accuracy (independent_limit) they
//              are kept, else the cluster goes to one of the two branches below. DSTEIN's 1e-3
//              ||T|| chains the extreme eigenvalues of a long random block together (gpu_syevx's
//              smallest 1%), whose vectors inverse iteration nevertheless finds orthogonal to
//              about eps ||T|| / gap: reorthogonalizing them in sequence, or a divide and
//              conquer of the whole block, was most of the call's vector time.
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
constexpr int kGramSchmidtPasses = 3;       // at most, each iteration (inverse_iteration)
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

// Where a block's divide and conquer serves a cluster, it serves the whole block: all the block's
// wanted eigenvalues (consecutive ones of its spectrum, as DSTEBZ returns them) matched as one run
// (whole_block). Vectors of neighbouring clusters found by different methods are orthogonal only
// to about eps ||T|| / gap, and DSTEIN's cut puts gaps just above 1e-3 ||T||: on graded matrices
// (the dense zoo's, n = 37 .. 40, tridiagonalized by DSYTRD) a large cluster from the divide and
// conquer beside singletons from inverse iteration came out up to 127 n ulp from orthogonal, where
// DSTEIN's inverse iteration throughout stays near 0.1. One method a block keeps the ratio of the
// method (the divide and conquer's vectors are orthogonal by construction).
//
// The same whole-block divide and conquer is the retry for a Gram-Schmidt vector that did not
// converge within kMaxIterations, before it is reported in IFAIL. That happens where a cluster
// fills (nearly) all of a block beside one or two eigenvalues far from it, at the eps scale
// (Reference LAPACK's DDRVST type 10, n = 30): each solve is then almost wholly the earlier
// vectors' directions, Gram-Schmidt leaves a remainder too small to pass DSTEIN's growth test,
// and what is left carries eps / remainder of the far eigenvector (DSTEIN itself, on that family
// at n = 4 .. 40 over 60 seeds, returned INFO = 0 with vectors up to 1580 n ulp from orthogonal
// in 17 of 2220 matrices).
// (host) The cluster of all the wanted eigenvalues of one block, from its clusters [first, last).
Cluster whole_block(const Cluster *first, const Cluster *last);

// Whether a cluster's vectors are first computed independently of each other (each by inverse
// iteration at its own eigenvalue, no Gram-Schmidt; every vector a task of its own) and kept if
// orthogonal enough. Worth trying where the eigenvalues are few for their block: two vectors
// found independently are orthogonal to about eps ||T|| / gap, within LAPACK's 30 n ulp when the
// gaps are near DSTEIN's 1e-3 ||T|| and the block is long (here len >= kIndependentMinLen and at
// least 16 rows an eigenvalue). kIndependentMax bounds the Gram matrix's work (count^2 len).
constexpr int64_t kIndependentMinLen = 512;
constexpr int kIndependentMax = 512;
inline bool independent_first(const Cluster &c) {
  return c.count >= 2 && c.count <= kIndependentMax && c.len >= kIndependentMinLen && 16 * int64_t(c.count) <= c.len;
}
// Independent vectors of a cluster are kept when every column of |Z_c^T Z_c - I| sums to at most
// this: a fifteenth of LAPACK's threshold (30 len ulp, ulp = eps / 2), the rest left to the
// pairs across clusters and to the vectors' residuals.
GPUEIG_HD inline double independent_limit(int64_t len) { return double(len) * kPrecision; }

// (host) The clusters of W (ORDER 'B': ascending within each block; IBLOCK, ISPLIT as DSTEBZ's).
std::vector<Cluster> clusters(const double *d, const double *e, int m, const double *w,
                              const int *iblock, const int *isplit);

// P (T - x I) = L U for the block (d, e) of len rows (DLAGTF): U with two superdiagonals (u0, u1,
// u2), the multipliers l and row interchanges swapped[i] (rows i and i+1). DLAGTF's pivoting is
// partial pivoting scaled by the rows' 1-norms (the candidate pivots compared as |a| / ||row||),
// not the plain |a| >= |sub|: where a cluster's eigenvalues are tiny against the rest of T (rows
// of entries near eps beside rows near 1, Reference LAPACK's DDRVST type 10), the plain rule
// chose other pivots than DSTEIN does and the cluster's vectors came out up to 70 n ulp from
// orthogonal, against DSTEIN's 4. A multiplier can then exceed 1, as in DLAGTF; the factors are
// still those of T - x I however small a pivot, and only the back substitution guards its
// divisions (lu_solve). Returns DLAGTS's tolerance for it: eps max |U| (eps where U is zero), on
// every member.
//
// The elimination is a recurrence from row to row; the team shares it out as chunks of `width`
// rows: each member fetches its row's inputs (one coalesced load a chunk), every member runs the
// whole chunk's recurrence on the inputs broadcast from their owners (the same arithmetic, so the
// same bits on every member) and keeps its own row's results, stored together at the chunk's end.
// On a GPU warp the recurrence then waits on its arithmetic only, never on a load of what the
// step before it stored (lane 0 alone, through memory, took about 1.1 us a row). A team of one
// is the plain serial loop.
struct Lu {
  double *u0, *u1, *u2, *l;
  unsigned char *swapped;
};

// One step of the elimination: the active row (a, b, c at columns i, i+1, i+2; scale its 1-norm
// as DLAGTF keeps it) and the next row (sub, dn, sup) give row i of U (u0, u1, u2), its multiplier
// and interchange, and the new active row.
struct FactorRow {
  double u0, u1, u2, l;
  int swapped;
};
GPUEIG_HD inline FactorRow factor_step(double &a, double &b, double &c, double &scale, double sub, double dn,
                                       double sup) {
  const double next_scale = fabs(sub) + fabs(dn) + fabs(sup);
  const double piv1 = a != 0 ? fabs(a) / scale : 0.0;
  FactorRow r;
  double na, nb;  // the next row's entries at columns i+1, i+2 after elimination
  if (sub == 0 || fabs(sub) / next_scale <= piv1) {  // no interchange (sub = 0: nothing to eliminate)
    const double m = sub != 0 ? sub / a : 0.0;
    r = {a, b, c, m, 0};
    na = dn - m * b;
    nb = sup - m * c;
    scale = next_scale;
  } else {  // rows i and i+1 exchanged; the active row is still the old one's, and so its scale
    const double m = a / sub;
    r = {sub, dn, sup, m, 1};
    na = b - m * dn;
    nb = c - m * sup;
  }
  a = na, b = nb, c = 0;
  return r;
}

template <class Team = SerialTeam>
GPUEIG_HD inline double lu_factor(int64_t len, const double *d, const double *e, double x, const Lu &f,
                                  const Team &team = Team{}) {
  const int width = team.width(), q = team.lane();
  double a = d[0] - x, b = len > 1 ? e[0] : 0, c = 0, scale = fabs(a) + fabs(b);
  double big = 0;
  for (int64_t i0 = 0; i0 + 1 < len; i0 += width) {
    const int64_t i = i0 + q;  // this member's row of the chunk
    const bool mine = i + 1 < len;
    const double sub_q = mine ? e[i] : 0, dn_q = mine ? d[i + 1] - x : 0, sup_q = mine && i + 2 < len ? e[i + 1] : 0;
    FactorRow out{0, 0, 0, 0, 0};
    const int rows = static_cast<int>(len - 1 - i0 < width ? len - 1 - i0 : width);
    for (int k = 0; k < rows; ++k) {
      const FactorRow r = factor_step(a, b, c, scale, team.bcast(sub_q, k), team.bcast(dn_q, k), team.bcast(sup_q, k));
      if (k == q) out = r;
    }
    if (mine) {
      f.u0[i] = out.u0, f.u1[i] = out.u1, f.u2[i] = out.u2, f.l[i] = out.l;
      f.swapped[i] = static_cast<unsigned char>(out.swapped);
      big = fmax(big, fmax(fabs(out.u0), fmax(fabs(out.u1), fabs(out.u2))));
    }
  }
  if (q == 0) {  // the last row: U's corner, nothing right of it
    f.u0[len - 1] = a;
    f.u1[len - 1] = 0;
    f.u2[len - 1] = 0;
  }
  big = fmax(team.max(big), fabs(a));
  team.sync();
  return big > 0 ? kPrecision * big : kPrecision;
}

// y := (T - x I)^{-1} y with the factors of lu_factor. As DLAGTS with JOB = -1, a pivot is
// perturbed (by +-tol, doubled until it suffices) only where it is zero or the division would
// overflow: a tiny pivot is the growth inverse iteration lives on (clamping every pivot below tol
// blurs eigenvalues closer than eps ||T||, which DSTEIN's own tests then catch). Both sweeps are
// recurrences, shared out in chunks as lu_factor's; every member returns once y is stored.
template <class Team = SerialTeam>
GPUEIG_HD inline void lu_solve(int64_t len, const Lu &f, double tol, double *y, const Team &team = Team{}) {
  const int width = team.width(), q = team.lane();
  // L^-1 P, forward; `cur` is y[i] as the steps before i left it.
  double cur = y[0];
  for (int64_t i0 = 0; i0 + 1 < len; i0 += width) {
    const int64_t i = i0 + q;
    const bool mine = i + 1 < len;
    const double next_q = mine ? y[i + 1] : 0, l_q = mine ? f.l[i] : 0;
    const int swapped_q = mine ? f.swapped[i] : 0;
    double out = 0;
    const int rows = static_cast<int>(len - 1 - i0 < width ? len - 1 - i0 : width);
    for (int k = 0; k < rows; ++k) {
      const double next = team.bcast(next_q, k), l = team.bcast(l_q, k);
      double done;  // y[i0 + k], final
      if (team.bcast(swapped_q, k)) {
        done = next;
        cur = cur - l * next;
      } else {
        done = cur;
        cur = next - l * cur;
      }
      if (k == q) out = done;
    }
    if (mine) y[i] = out;
  }
  team.sync();
  if (q == 0) y[len - 1] = cur;
  team.sync();
  // U^-1, backward; y1, y2 are y[i+1], y[i+2] solved.
  double y1 = 0, y2 = 0;
  for (int64_t i1 = len - 1; i1 >= 0; i1 -= width) {  // the chunk: rows i1, i1 - 1, ..
    const int64_t i = i1 - q;
    const bool mine = i >= 0;
    const double t_q = mine ? y[i] : 0, u0_q = mine ? f.u0[i] : 0, u1_q = mine ? f.u1[i] : 0,
                 u2_q = mine ? f.u2[i] : 0;
    double out = 0;
    const int rows = static_cast<int>(i1 + 1 < width ? i1 + 1 : width);
    for (int k = 0; k < rows; ++k) {
      const int64_t ii = i1 - k;
      double t = team.bcast(t_q, k);
      const double u1 = team.bcast(u1_q, k), u2 = team.bcast(u2_q, k);
      if (ii + 1 < len) t -= u1 * y1;
      if (ii + 2 < len) t -= u2 * y2;
      double p = team.bcast(u0_q, k), pert = p < 0 ? -tol : tol;
      for (int g = 0; g < 2100 && (p == 0 || fabs(t) > fabs(p) * 0x1p1000); ++g) p += pert, pert *= 2;
      const double yi = t / p;
      y2 = y1;
      y1 = yi;
      if (k == q) out = yi;
    }
    if (mine) y[i] = out;
  }
  team.sync();
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
  const double tol = lu_factor(len, d, e, x, f, team);
  for (int64_t i = r0; i < len; i += step) y[i] = start_entry(seed, i);
  team.sync();
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
    lu_solve(len, f, tol, y, team);
    // Modified Gram-Schmidt against the cluster's earlier vectors, repeated while a pass cancels
    // more than half of y's square norm (DGKS: "twice is enough"). DSTEIN makes one pass; where
    // a cluster sits at the eps scale beside eigenvalues of order 1, every solve is mostly the
    // earlier vectors' directions, one pass leaves eps ||y|| / ||y - proj|| of them, and DSTEIN's
    // own vectors (and ours with one pass) came out up to 2000 n ulp from orthogonal.
    if (nprev > 0) {
      double before = 0;
      for (int64_t i = r0; i < len; i += step) before += y[i] * y[i];
      before = team.sum(before);
      for (int pass = 0; pass < kGramSchmidtPasses; ++pass) {
        for (int p = 0; p < nprev; ++p) {
          const double *q = prev + int64_t(p) * ldp;
          double dot = 0;
          for (int64_t i = r0; i < len; i += step) dot += q[i] * y[i];
          dot = team.sum(dot);
          for (int64_t i = r0; i < len; i += step) y[i] -= dot * q[i];
        }
        double after = 0;
        for (int64_t i = r0; i < len; i += step) after += y[i] * y[i];
        after = team.sum(after);
        if (!(after < 0.5 * before)) break;  // (NaN: nothing more to gain)
        before = after;
      }
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

// Which branch each cluster of more than one row took (solve's optional report; the tests check
// that each branch is reached and that a rejected independent attempt still ends right).
struct Branches {
  int independent = 0;          // independent vectors kept
  int independent_rejected = 0; // tried, then recomputed by a branch below
  int divide_and_conquer = 0, gram_schmidt = 0;
  int retried = 0;  // blocks with a Gram-Schmidt vector that did not converge, then from divide and conquer
};

// (host) DSTEIN's contract on T scaled as gpu_stein scales it: Z (ldz, m columns, zero outside
// each vector's block), IFAIL, INFO (the number of vectors that did not converge); the block
// products of the large clusters' divide and conquer by `gemm`. -2 when memory ran out.
int solve(int n, const double *d, const double *e, int m, const double *w, const int *iblock,
          const int *isplit, double *z, int64_t ldz, int *ifail, stedc_phases::Gemm gemm,
          Branches *branches = nullptr);

}  // namespace gpueig::stein_phases
