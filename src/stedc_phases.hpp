// All eigenvalues and eigenvectors of a symmetric tridiagonal matrix by divide and conquer
// (Cuppen's method with Gu and Eisenstat's recomputed z, the method of LAPACK's DSTEDC), written
// as the phases a GPU runs: every phase is a function of one task (a leaf, a merge's deflation,
// one root of a secular equation, one entry of the recomputed z, one eigenvector of a rank-one
// update), GPUEIG_HD so that a CUDA kernel runs the same arithmetic a thread per task, and the
// CPU tests check it over the tridiagonal zoo (tests/test_stedc_phases.cpp). The products that
// carry the eigenvectors up the tree are matrix products (BLAS here, the tensor cores there).
//
// The phases, for one unreduced block of T (stedc_phases::solve on the host runs them in order):
//   plan          the tree: halve the block until the pieces have at most kLeaf rows; each cut
//                 between rows r-1 and r tears T into diag(T1, T2) + |e| v v^T,
//                 v = e_{r-1} + sign(e) e_r (d(r-1), d(r) lowered by |e|)
//   leaf_ql       each leaf's eigenpairs by implicit QL (a leaf per task)
//   for each level, every merge of two neighbours (Q1, D1), (Q2, D2):
//     merge_z       z = [last row of Q1, sign(e) first row of Q2] / sqrt(2), rho = 2|e|
//     deflate       DLAED2's deflation: z_j negligible, or two poles close enough to be rotated
//                   together; leaves k poles d_0 < ... < d_{k-1} with nonzero weights (one task)
//     rotate_row    the deflation's rotations applied to the eigenvector columns (a task per row)
//     secular_root  root i of 1 + rho sum z_j^2 / (d_j - lambda): lambda_i and the column of
//                   differences d_j - lambda_i, each to high relative accuracy (a task per root)
//     loewner_z     the z for which the computed roots are exact eigenvalues (a task per entry):
//                   the eigenvectors built from it are orthogonal to working precision
//     rank1_vector  eigenvector i of D + rho z z^T (a task per root)
//     (product)     the block's new eigenvectors: the non-deflated columns of Q times those
//                   vectors; the deflated columns carried over
#pragma once
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <vector>

#include "host_device.hpp"

namespace gpueig::stedc_phases {

constexpr double kEps = 0x1p-53;  // DLAMCH('E')
constexpr double kUlp = 0x1p-52;  // DLAMCH('P'): EISPACK's machep, TQL2's test of a negligible e
// Largest leaf: a leaf's QL costs O(rows^3) in one task, a merge level O(n k^2) in products;
// LAPACK's DSTEDC takes 25 (ILAENV's SMLSIZ).
constexpr int kLeaf = 32;
// Implicit QL sweeps per eigenvalue of a leaf before it is declared unconverged (EISPACK's 30).
constexpr int kQlSweeps = 30;
// Iterations of one secular root: the rational steps converge in a handful; the bracket's
// bisection, which every step falls back to, needs at most about 1100 halvings (from the widest
// bracket down to the smallest normal number) and in practice ~60.
constexpr int kSecularIterations = 1200;

// The tasks of leaf_ql (its rows), secular_root, loewner_z and rank1_vector (sums and products
// over the k poles) are shared by a team (host_device.hpp): one on the host, a warp on the GPU.
using gpueig::SerialTeam;

// ------------------------------------------------------------------------------------------
// leaf_ql: eigenvalues and eigenvectors of the m x m symmetric tridiagonal (d, e) (e[i] couples
// rows i and i+1; e needs m entries, the last is scratch) by implicit QL with Wilkinson's shift
// (EISPACK TQL2). z (ldz) must hold the identity, or the matrix whose columns the rotations act
// on. On return d is ascending and z's columns the vectors. Returns 0, or 1 + the index of an
// eigenvalue that did not converge in kQlSweeps sweeps (d, z then undefined).
// A team shares the rows of z (every member runs the scalar recurrence on its own copy of d and
// e, the same arithmetic, so the copies agree).
template <class Team>
GPUEIG_HD inline int leaf_ql(int m, double *d, double *e, double *z, int64_t ldz, const Team &team) {
  if (m <= 0) return 0;
  const int r0 = team.lane(), step = team.width();
  e[m - 1] = 0;
  double shift_sum = 0, tst1 = 0;
  for (int l = 0; l < m; ++l) {
    tst1 = fmax(tst1, fabs(d[l]) + fabs(e[l]));
    int mm = l;  // the first negligible e at or after l (e[m-1] = 0 stops the search)
    while (mm < m - 1 && fabs(e[mm]) > kUlp * tst1) ++mm;
    if (mm > l) {
      int sweeps = 0;
      do {
        if (++sweeps > kQlSweeps) return l + 1;
        // Wilkinson's shift from the leading 2 x 2 of the unreduced part.
        double g = d[l];
        double p = (d[l + 1] - g) / (2.0 * e[l]);
        double r = hypot(p, 1.0);
        if (p < 0) r = -r;
        d[l] = e[l] / (p + r);
        d[l + 1] = e[l] * (p + r);
        const double dl1 = d[l + 1];
        double h = g - d[l];
        for (int i = l + 2; i < m; ++i) d[i] -= h;
        shift_sum += h;
        // The QL sweep from the bottom of the unreduced part up.
        p = d[mm];
        double c = 1, c2 = 1, c3 = 1, s = 0, s2 = 0;
        const double el1 = e[l + 1];
        for (int i = mm - 1; i >= l; --i) {
          c3 = c2;
          c2 = c;
          s2 = s;
          g = c * e[i];
          h = c * p;
          r = hypot(p, e[i]);
          e[i + 1] = s * r;
          s = e[i] / r;
          c = p / r;
          p = c * d[i] - s * g;
          d[i + 1] = h + s * (c * g + s * d[i]);
          double *zi = z + int64_t(i) * ldz, *zi1 = z + int64_t(i + 1) * ldz;
          for (int k = r0; k < m; k += step) {
            const double hk = zi1[k];
            zi1[k] = s * zi[k] + c * hk;
            zi[k] = c * zi[k] - s * hk;
          }
        }
        p = -s * s2 * c3 * el1 * e[l] / dl1;
        e[l] = s * p;
        d[l] = c * p;
      } while (fabs(e[l]) > kUlp * tst1);
    }
    d[l] += shift_sum;
    e[l] = 0;
  }
  // Ascending order, vectors along (selection sort: m <= kLeaf).
  for (int i = 0; i < m - 1; ++i) {
    int k = i;
    for (int j = i + 1; j < m; ++j)
      if (d[j] < d[k]) k = j;
    if (k != i) {
      const double t = d[i];
      d[i] = d[k];
      d[k] = t;
      for (int r = r0; r < m; r += step) {
        const double u = z[r + int64_t(i) * ldz];
        z[r + int64_t(i) * ldz] = z[r + int64_t(k) * ldz];
        z[r + int64_t(k) * ldz] = u;
      }
    }
  }
  return 0;
}

// ------------------------------------------------------------------------------------------
// secular_root: root i (0-based) of f(lambda) = 1 + rho sum_j z_j^2 / (d_j - lambda), j < k,
// for d ascending and strictly increasing, z_j != 0, rho > 0 (what deflate leaves). The root
// lies in (d_i, d_{i+1}), the last one in (d_{k-1}, d_{k-1} + rho z^T z].
//
// As in DLAED4 the root is found as lambda = d_o + tau from the pole o nearer to it (d_i or
// d_{i+1}, told apart by the sign of f at the midpoint), and every difference d_j - lambda is
// formed as (d_j - d_o) - tau: the two nearest are then accurate to a few ulps relative to
// themselves, which the orthogonality of the eigenvectors rests on. The iteration is a Newton
// step on a model with the two nearest poles (Bunch, Nielsen and Sorensen), kept inside a
// bracket that every evaluation of f narrows and bisected where the model's step leaves it.
//
// delta[j * stride] receives d_j - lambda_i for every j; the return value is lambda_i, or NaN
// when the iteration cap was reached (a bug or a broken precondition: the caller must not use
// the result).
template <class Team>
GPUEIG_HD inline double secular_root(int k, const double *d, const double *z, double rho, int i,
                                     double *delta, int64_t stride, const Team &team) {
  const int j0 = team.lane(), step = team.width();
  if (k == 1) {  // lambda = d_0 + rho z_0^2
    const double t = rho * z[0] * z[0];
    if (j0 == 0) delta[0] = -t;
    return d[0] + t;
  }
  const bool last = i == k - 1;
  // The origin and the bracket (lo, hi) of tau.
  int o = i;
  double lo, hi;
  if (last) {
    double zz = 0;
    for (int j = j0; j < k; j += step) zz += z[j] * z[j];
    lo = 0;
    hi = rho * team.sum(zz);
  } else {
    const double half = (d[i + 1] - d[i]) / 2;
    // f at the midpoint, differences from d_i.
    double f = 0;
    for (int j = j0; j < k; j += step) f += z[j] * (z[j] / ((d[j] - d[i]) - half));
    if (1 + rho * team.sum(f) >= 0) {  // the root is in (d_i, mid]: origin d_i
      lo = 0;
      hi = half;
    } else {  // in (mid, d_{i+1}): origin d_{i+1}
      o = i + 1;
      lo = -half;
      hi = 0;
    }
  }
  const double dor = d[o];
  // The two poles the model keeps: i and i+1 (the last root: i alone).
  double tau = (lo + hi) / 2;
  for (int it = 0;; ++it) {
    if (it == kSecularIterations) return NAN;
    // f and its parts at tau: psi over j <= i, phi over j > i.
    double psi = 0, dpsi = 0, phi = 0, dphi = 0;
    for (int j = j0; j < k; j += step) {
      const double dj = (d[j] - dor) - tau;
      const double t = z[j] / dj;
      if (j <= i) {
        psi += z[j] * t;
        dpsi += t * t;
      } else {
        phi += z[j] * t;
        dphi += t * t;
      }
    }
    psi = rho * team.sum(psi);
    dpsi = rho * team.sum(dpsi);
    phi = rho * team.sum(phi);
    dphi = rho * team.sum(dphi);
    const double f = 1 + psi + phi;
    // The error of computing f (DLAED4's ERRETM): a converged root is one where f is zero within it.
    const double err = 8 * (fabs(psi) + fabs(phi) + 1) + fabs(tau) * (dpsi + dphi);
    if (fabs(f) <= kEps * err) break;
    if (f < 0)
      lo = tau;
    else
      hi = tau;
    // The model step: c + s / (di - eta) + S / (di1 - eta) = 0, with di, di1 the current
    // differences to the two poles and (s, S) the weights matching the derivatives.
    const double di = (d[i] - dor) - tau;
    double next;
    if (last) {
      const double s = dpsi * di * di, c = 1 + psi - dpsi * di;
      next = c > 0 ? tau + (di + s / c) : (lo + hi) / 2;
    } else {
      const double di1 = (d[i + 1] - dor) - tau;
      const double s = dpsi * di * di, S = dphi * di1 * di1;
      const double c = 1 + (psi - dpsi * di) + (phi - dphi * di1);
      // c eta^2 - a eta + b = 0 has one root between the poles (di < eta < di1), whatever the
      // sign of c: (a - sqrt(disc)) / (2c), written without cancellation.
      const double a = c * (di + di1) + s + S, b = c * di * di1 + s * di1 + S * di;
      const double disc = a * a - 4 * b * c;
      double eta;
      if (!(disc >= 0))
        eta = NAN;
      else if (c == 0)
        eta = b / a;
      else if (a <= 0)
        eta = (a - sqrt(disc)) / (2 * c);
      else
        eta = 2 * b / (a + sqrt(disc));
      next = tau + eta;
    }
    // Inside the bracket, or bisection.
    if (!(next > lo && next < hi)) next = (lo + hi) / 2;
    if (next == tau || next <= lo || next >= hi) {  // the bracket is as narrow as it gets
      tau = next;
      break;
    }
    tau = next;
  }
  for (int j = j0; j < k; j += step) delta[j * stride] = (d[j] - dor) - tau;
  return dor + tau;
}

// ------------------------------------------------------------------------------------------
// loewner_z: entry i of the z for which lambda_0 < ... < lambda_{k-1} are the exact eigenvalues
// of D + rho z z^T (Loewner's formula, DLAED3):
//   z_i^2 = (d_i - lambda_i) prod_{j != i} (d_i - lambda_j) / (d_i - d_j)  (times -1/rho,
// absorbed into the normalisation of the vectors), with the sign of the original z_i.
// delta(j, l) = d_j - lambda_l is the differences secular_root left, column l at delta + l*ld.
template <class Team>
GPUEIG_HD inline double loewner_z(int k, const double *d, const double *delta, int64_t ld, int i,
                                  double z_sign, const Team &team) {
  double w = 1;
  for (int j = team.lane(); j < k; j += team.width())
    w *= j == i ? delta[i + int64_t(i) * ld] : delta[i + int64_t(j) * ld] / (d[i] - d[j]);
  const double r = sqrt(fabs(team.prod(w)));  // the product is <= 0 in exact arithmetic
  return z_sign < 0 ? -r : r;
}

// ------------------------------------------------------------------------------------------
// rank1_vector: eigenvector l of D + rho zhat zhat^T: u_j = zhat_j / (d_j - lambda_l),
// normalised. Overwrites column l of delta (delta(j, l) = d_j - lambda_l) with it.
template <class Team>
GPUEIG_HD inline void rank1_vector(int k, const double *zhat, double *delta_col, const Team &team) {
  double nrm = 0;
  for (int j = team.lane(); j < k; j += team.width()) {
    const double u = zhat[j] / delta_col[j];
    delta_col[j] = u;
    nrm += u * u;
  }
  const double inv = 1 / sqrt(team.sum(nrm));
  for (int j = team.lane(); j < k; j += team.width()) delta_col[j] *= inv;
}

// ------------------------------------------------------------------------------------------
// deflate: DLAED2's deflation for one merge of order n = n1 + n2 (the decisions alone: one task,
// O(n) work). On entry d holds D1 then D2 (each ascending), z the normalised rank-one vector,
// rho > 0; column indices below are into the block's n eigenvector columns in that order.
//   tol: 8 eps max(max |d|, max |z|) (DLAED2's TOL)
//   a pole j is deflated when rho |z_j| <= tol; two poles next to each other in ascending order,
//   p before j, when the rotation that moves z_p into z_j changes D + rho z z^T by at most tol
//   (|(d_j - d_p) c s| <= tol): columns p and j are to be rotated (rotation r: columns
//   rot_cols[2r], rot_cols[2r+1], (c, s) = rot_cs[2r], rot_cs[2r+1], in this order; see
//   rotate_row), p deflated, j kept.
// On return: order[0..k) the kept columns with ascending poles dlam[0..k) and weights w[0..k)
// (strictly increasing poles, |rho w_j| > tol); order[k..n) the deflated columns, their
// eigenvalues in d[order[j]], ascending; *nrot rotations (at most n - 1). `sorted` is scratch
// of n entries. Returns k.
GPUEIG_HD inline int deflate(int n1, int n, double *d, double *z, double rho, int *order,
                             int *sorted, double *dlam, double *w, int *rot_cols, double *rot_cs,
                             int *nrot) {
  // Merge D1 and D2 into ascending order.
  {
    int a = 0, b = n1, t = 0;
    while (a < n1 && b < n) sorted[t++] = d[b] < d[a] ? b++ : a++;
    while (a < n1) sorted[t++] = a++;
    while (b < n) sorted[t++] = b++;
  }
  double dmax = 0, zmax = 0;
  for (int j = 0; j < n; ++j) {
    dmax = fmax(dmax, fabs(d[j]));
    zmax = fmax(zmax, fabs(z[j]));
  }
  const double tol = 8 * kEps * fmax(dmax, zmax);
  int k = 0, nd = 0, r = 0;  // kept, deflated (collected at the end of order, then sorted), rotations
  auto deflated = [&](int col) { order[n - 1 - nd++] = col; };
  int p = -1;  // the kept candidate before j
  for (int t = 0; t < n; ++t) {
    const int j = sorted[t];
    if (rho * fabs(z[j]) <= tol) {
      deflated(j);
      continue;
    }
    if (p >= 0) {
      const double zp = z[p], zj = z[j];
      const double tau = hypot(zj, zp);
      const double c = zj / tau, s = -zp / tau;
      if (fabs((d[j] - d[p]) * c * s) <= tol) {
        // Rotate p's weight into j: z_p = 0, z_j = tau; p deflated with the rotated pole.
        z[j] = tau;
        z[p] = 0;
        rot_cols[2 * r] = p;
        rot_cols[2 * r + 1] = j;
        rot_cs[2 * r] = c;
        rot_cs[2 * r + 1] = s;
        ++r;
        const double dp = d[p] * c * c + d[j] * s * s;
        d[j] = d[p] * s * s + d[j] * c * c;
        d[p] = dp;
        deflated(p);
        p = j;
        continue;
      }
      order[k] = p;
      dlam[k] = d[p];
      w[k] = z[p];
      ++k;
    }
    p = j;
  }
  if (p >= 0) {
    order[k] = p;
    dlam[k] = d[p];
    w[k] = z[p];
    ++k;
  }
  // The deflated columns sit in order[k..n) in the reverse of the order they were found; sort
  // them by eigenvalue (insertion sort: they are nearly in descending order, reversed first).
  for (int a = k, b = n - 1; a < b; ++a, --b) {
    const int t = order[a];
    order[a] = order[b];
    order[b] = t;
  }
  for (int a = k + 1; a < n; ++a) {
    const int col = order[a];
    int b = a;
    while (b > k && d[order[b - 1]] > d[col]) {
      order[b] = order[b - 1];
      --b;
    }
    order[b] = col;
  }
  *nrot = r;
  return k;
}

// rotate_row: deflate's rotations applied, in order, to one row of the block's eigenvector
// columns (a task per row): (x_p, x_j) := (c x_p + s x_j, c x_j - s x_p).
GPUEIG_HD inline void rotate_row(int nrot, const int *rot_cols, const double *rot_cs, double *row,
                                 int64_t ld) {
  for (int r = 0; r < nrot; ++r) {
    double &x = row[rot_cols[2 * r] * ld], &y = row[rot_cols[2 * r + 1] * ld];
    const double c = rot_cs[2 * r], s = rot_cs[2 * r + 1], x0 = x, y0 = y;
    x = c * x0 + s * y0;
    y = c * y0 - s * x0;
  }
}

}  // namespace gpueig::stedc_phases

namespace gpueig::stedc_phases {

// A coupling T may be split at becomes zero (T scaled to max |T| = 1): DSTEDC's test |e| <= eps
// sqrt|d_i| sqrt|d_i+1|, and |e| below sqrt(SAFMIN), as DSTEQR's test (|e|^2 <= eps^2 |d_i|
// |d_i+1| + SAFMIN) zeroes it in the leaves LAPACK hands DSTEQR. Without the second test a
// subnormal e beside a zero d (found by fuzz_shim, 2026-11-26: e = -5.5e-310, d = 0) passed
// leaf_ql's relative test and its shift (d_i+1 - d_i) / 2e overflowed: NaN eigenpairs. Zeroing
// it changes T by less than 1e-154 ||T||.
constexpr double kSqrtSafmin = 0x1p-511;
GPUEIG_HD inline double split_coupling(double di, double di1, double e) {
  return fabs(e) <= kEps * sqrt(fabs(di)) * sqrt(fabs(di1)) || fabs(e) < kSqrtSafmin ? 0.0 : e;
}

// The host run of the phases (src/stedc_phases.cpp): eigenvalues (d, ascending) and eigenvectors
// (z, ldz >= n) of the symmetric tridiagonal (d, e), e with n - 1 entries. Returns 0; > 0 when a
// leaf's QL did not converge (DSTEDC's INFO convention: i (n + 1) + j for the leaf of rows i..j,
// 1-based), -1 when a secular root was not found within its cap (never expected), -2 when
// memory ran out. gemm is C := A * B (column-major, m x k times k x n).
using Gemm = void (*)(int64_t m, int64_t n, int64_t k, const double *a, int64_t lda,
                      const double *b, int64_t ldb, double *c, int64_t ldc);
int solve(int64_t n, double *d, const double *e, double *z, int64_t ldz, Gemm gemm);
// The tree (host): the matrix halved until every piece has at most kLeaf rows, all pieces of a
// level at once (DLAED0's partition), so that the tree is complete: 2^L leaves, and level by
// level pieces 2j and 2j+1 merge. Returns the leaves' first rows, n at the end.
std::vector<int64_t> leaf_starts(int64_t n);
// T scaled to max |T| = 1, as DSTEDC does (the leaves' and the secular equations' arithmetic
// then neither overflows nor underflows), and split_coupling applied: returns the scale (0 for
// T = 0, left as it is).
double scale_and_split(int64_t n, double *d, double *e);

}  // namespace gpueig::stedc_phases
