// gpu_toeplitz_eig's structured method: a few eigenvalues of a symmetric Toeplitz matrix T that is
// never formed (O(n) memory, O(n^2) work per evaluation).
//
// The structure used: with S the DST-I matrix (S = S' = inv(S), S(j,k) = sqrt(2/(n+1)) sin(jk pi/(n+1)))
// and Z the tridiagonal matrix of ones off the diagonal, S Z S = diag(lambda), lambda_j = 2 cos(phi_j),
// phi_j = j pi/(n+1), and Z T - T Z is zero but in its first and last rows and columns. So
// C = S T S, similar to T, satisfies diag(lambda) C - C diag(lambda) = rank 4; T's centrosymmetry
// splits C by the parity of j into two Cauchy-like blocks (the symmetric and the skew-symmetric
// eigenvectors), each C(i,j) = 2 (g_i h_j - h_i g_j) / (lambda_i - lambda_j) off its diagonal, held
// in O(n) numbers: the generators g = S a (a = (0, t(2), ..., t(n-1), 0)), h = S e_1 and the
// diagonal d_j = s_j' T s_j (`cauchy_form`, O(n^2) work once per call).
//
// An evaluation at a shift sigma eliminates each block of C - sigma I by symmetric Gaussian
// elimination with Bunch-Kaufman pivoting (1x1 and 2x2 pivots, rows recomputed from the
// generators, the generators and the diagonal updated as the Schur complement's: GKO's algorithm
// for a symmetric Cauchy-like matrix), and counts the negative pivots: by Sylvester's law of
// inertia, the number of eigenvalues of T below sigma. Unlike Durbin's recursion on T - sigma I,
// whose leading blocks are fixed (a leading block singular near sigma, as the tridiagonal Toeplitz
// matrix's are at a third of its eigenvalues for n = 200000, ruins every count within about 1e-10
// of it), the pivots here are chosen, so no near-singular block is ever divided by. O(n^2) work,
// O(n) memory per evaluation.
//
// The search (`search`) brackets the wanted eigenvalues by these counts, evaluating many shifts
// side by side, until each bracket is narrower than the tolerance, starting from the range of T's
// symbol (bounded through one FFT) where it is inside Gershgorin's interval. T's eigenvalues are its two
// half blocks' together: while a bracket may hold eigenvalues not wanted it is T's (both halves
// evaluated at each shift); once it holds only wanted ones it splits into one bracket per half,
// each followed with that half's evaluations alone (half the work a shift; and a half's
// eigenvalues lie about twice as far apart as T's, so they isolate sooner). Where the shifts go is
// guided first by C's sorted diagonal (Guide), then by the evaluations' log|det(H - sigma I)| (the
// pivots' sum of logs): a bracket holding one eigenvalue fits the determinant through its ends and
// the nearest evaluations outside on either side, the half's other isolated eigenvalues divided
// out (or interpolates it between its ends: regula falsi), one holding more than
// wanted interpolates the counts; the counts alone decide the brackets. An evaluation that
// overflows or whose generators grow past kGrowth is not trusted: the search moves its shift, and
// checks that the counts it keeps increase with sigma. What it cannot settle within its caps it
// reports (ok false).
#pragma once
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "gpu_backend.hpp"
#include "host_device.hpp"

namespace gpueig::structured {

// Bunch-Kaufman's alpha, (1 + sqrt(17)) / 8: bounds the element growth of a step by 2.57.
constexpr double kAlpha = 0.6403882032022076;

// An evaluation whose generators have grown by more than this factor is not trusted: the entries
// formed from them (differences of products) would have lost about log10 of it in digits. 1e8
// keeps every entry to about 1e-8 relative, far below what moves a count by a tolerance.
constexpr double kGrowth = 1e8;

// A node lambda = 2 cos(phi), 0 < phi < pi, is held as v = sin(phi/2) for phi < pi/2 and as
// v = -cos(phi/2) otherwise: the half-angle that is accurate where nodes crowd (1/n^2 apart at
// either end of (-2, 2)).
GPUEIG_HD inline double node_value(double v) { return v > 0 ? 2 - 4 * v * v : 4 * v * v - 2; }

// lambda_i - lambda_j: for nodes on the same side of pi/2 a product of a difference of half-angle
// sines (or cosines) and a sum (2 - 4 s^2 and 4 c^2 - 2), so that close nodes lose nothing to
// cancellation; for nodes on opposite sides (at least |lambda_i| + |lambda_j| apart) directly.
// Both forms are computed and one selected, without a branch: on the GPU a warp's elements lie on
// both sides, and branches there kept the elimination's pass from overlapping its elements' chains.
GPUEIG_HD inline double node_gap(double vi, double vj) {
  const bool above = vi > 0;
  // -4 (s_i - s_j)(s_i + s_j), or 4 (c_i - c_j)(c_i + c_j) with c = -v
  const double same = (above ? -4 : 4) * (vi - vj) * (vi + vj);
  const double apart = node_value(vi) - node_value(vj);
  return above == (vj > 0) ? same : apart;
}

// Entry (i, j) of a block off its diagonal from the generators: 2 (g_i h_j - h_i g_j) / gap.
GPUEIG_HD inline double cauchy_entry(double gi, double hi, double vi, double gj, double hj, double vj) {
  return 2 * (gi * hj - hi * gj) / node_gap(vi, vj);
}

// One half block of C (symmetric or skew-symmetric eigenvectors): its generators g, h, its
// diagonal d and its nodes v (node_value).
struct CauchyHalf {
  int64_t size = 0;
  std::vector<double> g, h, d, v;
};
struct CauchyForm {
  int64_t n = 0;
  double scale = 1;    // C is that of scale * t (unit_scale): a shift sigma is evaluated as scale * sigma
  CauchyHalf half[2];  // [0]: odd j (symmetric eigenvectors), [1]: even j (skew-symmetric)
};

// The power of two that brings max|t| into [0.5, 1): the elimination's products (c^2 / d, g h)
// then neither underflow nor overflow whatever t's scale (a t of 1e-300 lost counts to
// subnormal products). Exact, so the counts are those of t.
double unit_scale(int64_t n, const double *t);

// sin and cos of m pi/(n+1) for m = 0 .. 2n+1 (a period): every angle of the setup is
// j k pi/(n+1) for integers j, k, reduced exactly in integers.
struct AngleTables {
  std::vector<double> sn, cs;
};
AngleTables angle_tables(int64_t n);

// Half block, position and the generators' scale of row j (1-based) of C: rows 1, 3, 5, ... make
// the symmetric half, 2, 4, ... the skew-symmetric one.
GPUEIG_HD inline int half_of(int64_t j) { return int((j - 1) % 2); }
GPUEIG_HD inline int64_t place_of(int64_t j) { return (j - 1) / 2; }

// g_j and d_j of row j (1-based) of C, O(n) work (sn, cs: angle_tables):
//   g_j = sqrt(2/(n+1)) sum_{k=2}^{n-1} sin(jk pi/(n+1)) t(k),
//   d_j = t0 + 2/(n+1) sum_{k=1}^{n-1} t(k) [(n-k) cos(jk pi/(n+1)) + sin(j(k+1) pi/(n+1)) / sin(j pi/(n+1))]
// (s_j' T s_j with the sums of sin(jp) sin(j(p+k)) over p in closed form). The angles jk pi/(n+1)
// advance by a rotation through j pi/(n+1) (four products), restarted from the tables (the angle
// reduced exactly in integers) every kAngleRun steps: a table read an angle was the GPU setup's
// cost (0.6-0.9 s at n = 200000, a gather from L2 per term), and 32 rotations add a few ulps,
// far below the sums' own rounding.
constexpr int64_t kAngleRun = 32;
GPUEIG_HD inline void cauchy_row(int64_t n, int64_t j, const double *t, const double *sn, const double *cs,
                                 double *g_out, double *d_out) {
  const int64_t period = 2 * (n + 1);
  const int64_t step = j % period;
  const double sj = sn[step], cj = cs[step];
  const int64_t jump = (step * kAngleRun) % period;  // a run's angle, reduced
  double g = 0, d = 0, e = 0;
  int64_t m = step;  // j k0 mod period: the run's first angle, k0 from 1
  for (int64_t k0 = 1; k0 < n; k0 += kAngleRun) {
    double s = sn[m], c = cs[m];  // sin, cos of j k pi/(n+1)
    const int64_t end = k0 + kAngleRun < n ? k0 + kAngleRun : n;
    for (int64_t k = k0; k < end; ++k) {
      const double s1 = s * cj + c * sj, c1 = c * cj - s * sj;  // angle j (k + 1)
      if (k >= 2) g += s * t[k];
      d += t[k] * double(n - k) * c;
      e += t[k] * s1;
      s = s1, c = c1;
    }
    m += jump;
    if (m >= period) m -= period;
  }
  *g_out = std::sqrt(2.0 / double(n + 1)) * g;
  *d_out = t[0] + (2.0 / double(n + 1)) * (d + e / sj);
}

// C's half blocks with their sizes, h and v set (O(n)); g and d sized, to be filled by cauchy_row.
CauchyForm cauchy_nodes(int64_t n, const AngleTables &tables);

// C's two half blocks from t (n >= 1 entries): O(n^2) work on host threads, O(n) memory.
CauchyForm cauchy_form(int64_t n, const double *t);

// The number of eigenvalues of half block `b` below sigma (trusted false: an overflow or a
// generator growth past the limit). `scratch`: reused between calls.
struct Scratch {
  std::vector<double> g, h, d, v, c, cq;  // c, cq: the candidate's and its partner's rows
};
// *logdet: log|det| of the half block of C - sigma I (the pivots' sum of logs).
int64_t half_inertia(const CauchyHalf &b, double sigma, Scratch &scratch, bool *trusted, double *logdet);

// One task: the count, trust and log|det| of half block task.half of T - task.sigma I.
gpu::ToeplitzInertia inertia(const CauchyForm &form, const gpu::InertiaTask &task, Scratch &scratch);

// Evaluates (shift, half) tasks into `out` (same length), side by side where it can.
using Evaluate = gpu::InertiaBatch;

// Both halves at every shift of `sigma`: the eigenvalues of T below each (trusted where both
// halves are, log|det| the halves' sum) into `out` (same length).
gpu::Status evaluate_shifts(const Evaluate &evaluate, const std::vector<double> &sigma,
                            std::vector<gpu::ToeplitzInertia> &out);

// Where the search first looks: the diagonal of C's half blocks, each sorted, in T's units (d_j =
// s_j' T s_j, T's Rayleigh quotients at the sine vectors) and both merged. C is T in the basis
// that diagonalizes the tridiagonal Toeplitz matrices and nearly so those with smooth symbols, so
// the i-th smallest d of a half estimates the half's i-th eigenvalue (within a few percent of a
// gap for KMS 0.5, not better than a gap for a rough symbol): shifts between consecutive ones
// isolate eigenvalues in a round where the estimates hold. The counts still decide everything.
struct Guide {
  std::vector<double> half[2], all;
};
// The guide from the half blocks' diagonals in T's units, or from a form (of scale * t).
Guide guide_of(std::vector<double> d0, std::vector<double> d1);
Guide guide_of(const CauchyForm &form);
// Half block `half`'s diagonal in T's units (the form's divided by its scale).
std::vector<double> diagonal_of(const CauchyForm &form, int half);

// ---- Eigenvectors: a near-null basis of a half block H - sigma I from one elimination --------
//
// The elimination that counts the inertia also solves: carrying the identity's rows beside H (the
// bordered matrix [H - sigma I; I]), each eliminated pivot's row becomes a "frozen" row of the
// identity block, a Cauchy-like row on the remaining columns held by two generators and its node
// like any other, updated by every later pivot but never chosen as one. Once K elements remain
// (the last pivots Bunch-Kaufman leaves: the smallest, near sigma an eigenvalue's), the vectors
// x_c = [F(:, c); e_c] (F(i, c) the frozen row i's entry in remaining column c) satisfy
// (H - sigma I) x_c = [0; S e_c], S the K x K Schur complement left: they span the near-null
// space, one step of block inverse iteration from the last K coordinates (K = 1: P' L^-T e_n).
// The frozen rows need no pass of the elimination: each is replayed from the recorded pivots on
// its own (O(n) memory for the record, O(n^2) independent work), on the GPU a thread a row.

// One recorded pivot element: its generators, node and diagonal (of H - sigma I's Schur
// complement) when eliminated; `pair` 0 for a 1x1 pivot, 1 and 2 for the two elements of a 2x2
// one (in the elimination's order: x = cauchy_entry(second, first) is their coupling).
struct Pivot {
  double g = 0, h = 0, v = 0, d = 0;
  int pair = 0;
};

// Frozen row k's generators right after its pivot step: -inv(P) applied to the pivot's rows (a
// zero 1x1 pivot, a decoupled exactly singular element, freezes as zero).
GPUEIG_HD inline void frozen_start(const Pivot *p, int64_t k, double *g, double *h) {
  const Pivot &a = p[k];
  if (a.pair == 0) {
    const double s = a.d != 0 ? -1 / a.d : 0;
    *g = s * a.g, *h = s * a.h;
    return;
  }
  const Pivot &p1 = a.pair == 1 ? a : p[k - 1], &p2 = a.pair == 1 ? p[k + 1] : a;
  const double x = cauchy_entry(p2.g, p2.h, p2.v, p1.g, p1.h, p1.v), det = p1.d * p2.d - x * x;
  const double c1 = (a.pair == 1 ? p2.d : -x) / det, c2 = (a.pair == 1 ? -x : p1.d) / det;
  *g = -(c1 * p1.g + c2 * p2.g), *h = -(c1 * p1.h + c2 * p2.h);
}

// A frozen row (g, h, node v) updated by pivot step k (1x1, or the pair starting at k) as the
// elimination updates an element: returns the records the step took (1 or 2).
GPUEIG_HD inline int frozen_step(const Pivot *p, int64_t k, double v, double &g, double &h) {
  const Pivot &p1 = p[k];
  const double c1 = cauchy_entry(g, h, v, p1.g, p1.h, p1.v);
  if (p1.pair == 0) {
    const double f = p1.d != 0 ? c1 / p1.d : 0;
    g -= f * p1.g, h -= f * p1.h;
    return 1;
  }
  const Pivot &p2 = p[k + 1];
  const double c2 = cauchy_entry(g, h, v, p2.g, p2.h, p2.v);
  const double x = cauchy_entry(p2.g, p2.h, p2.v, p1.g, p1.h, p1.v), det = p1.d * p2.d - x * x;
  const double f1 = (c1 * p2.d - c2 * x) / det, f2 = (c2 * p1.d - c1 * x) / det;
  g -= f1 * p1.g + f2 * p2.g, h -= f1 * p1.h + f2 * p2.h;
  return 2;
}

// Row k of F (frozen rows 0 .. frozen-1, pivots in `p`; `tail`: the remaining elements):
// out[c] = the frozen row's entry in remaining column c.
GPUEIG_HD inline void frozen_row(const Pivot *p, int64_t frozen, int64_t k, const Pivot *tail, int64_t count,
                                 double *out, int64_t out_stride) {
  double g, h;
  frozen_start(p, k, &g, &h);
  const double v = p[k].v;
  int64_t j = k + 1;
  if (p[k].pair == 1) ++j;  // the pair's second element froze in the same step
  while (j < frozen) j += frozen_step(p, j, v, g, h);
  for (int64_t c = 0; c < count; ++c)
    out[c * out_stride] = cauchy_entry(g, h, v, tail[c].g, tail[c].h, tail[c].v);
}

// An elimination's record for the basis: the pivots until `tail` (or tail + 1, where a 2x2 pivot
// would cross it) elements remained, and those elements then.
struct Record {
  std::vector<Pivot> pivots, tail;
};

// The largest tail a basis takes where the remaining elements are all below its floor (the Schur
// complement's eigenvectors then cost O(kTailCap^3) on the host).
constexpr int64_t kTailCap = 256;

// The host's elimination of half block b at sigma recorded until at most want + 1 elements
// remain, or at most kTailCap whose candidate's |d| and row are <= floor (stopped there):
// trusted as half_inertia's.
bool half_record(const CauchyHalf &b, double sigma, int64_t want, double floor, Scratch &scratch, Record &out);

// The basis from a record and its F (frozen x tail.size(), column-major, `frozen` =
// pivots.size()): the columns [F(:, c); e_c] placed by the elements' nodes, combined by the
// eigenvectors of the tail's Schur complement S of the `want` smallest |eigenvalue| (the near-
// null directions; a column alone also carries S's large part) into out (size x want,
// column-major). False where a node is not the half's.
bool basis_from_record(const CauchyHalf &nodes, const Record &rec, const std::vector<double> &f, int64_t want,
                       std::vector<double> &out);

// F, on host threads where `threaded`.
void replay(const Record &rec, std::vector<double> &f, bool threaded = true);

// The host's basis tasks on `form`: elimination, replay and assembly.
gpu::BasisBatch host_basis(const CauchyForm &form);

// The eigenvectors of the eigenvalues w[0 .. m-1] (ascending, each of half block half[i], within
// `tol` as the search left them) of T(i,j) = t(|i-j|) into z (n x m, leading dimension ldz):
// for each half the eigenvalues closer than 2 tol share a shift and a basis of their number; the
// bases of a half's eigenvalues closer than max(1e-3, 100/n) ||T||_1 are orthonormalized together
// and rotated by Rayleigh-Ritz (T x by FFT products), each vector lifted to T's basis by the
// DST-I. A group is settled where every ||T x - w x||_1 <= 4 n eps ||T||_1 ||x|| (FFT products);
// else its bases are recomputed at its Ritz values (Rayleigh quotient iteration), with
// multiplets merged more widely (2 tol x 32^round), three rounds at most, and the group keeps its
// best round if within 30 (LAPACK's test ratio). The residual is taken against the Ritz value
// (the Rayleigh quotient) kept within tol / 2 of w, which then replaces w (W sorted again, Z's
// columns with it): the bracket's midpoint alone may be tol / 2 off. On !ok, w and z are
// unspecified.
struct VectorReport {
  bool ok = false;
  std::string why;       // when !ok
  int64_t bases = 0;     // basis tasks run
  int attempts = 0;      // rounds of them
  double worst = 0;      // the largest residual ratio ||T x - w x|| / (n eps ||T||_1) kept
  double basis_ms = 0;   // in the basis tasks (the evaluator's: the GPU's eliminations and replays)
  double host_ms = 0;    // in the lifts, FFT products and Rayleigh-Ritz on the host
};
// `shifts` (optional): the first round's shift for each eigenvalue (search's estimates), else w.
VectorReport eigenvectors(int64_t n, const double *t, int m, double *w, const int *half, double tol,
                          const gpu::BasisBatch &basis, double *z, int64_t ldz, const double *shifts = nullptr);

// ||T||_1: the largest column sum, |t0| + P(c) + P(n-1-c) over the columns c, P(k) the sum of
// |t(1..k)| (the arms above and below the diagonal).
double norm1(int64_t n, const double *t);

// An interval [*lo, *hi] holding T's spectrum, from the range of its symbol t_0 + 2 sum_k t_k
// cos(k theta) sampled by one FFT of 8n or more points and widened by what can lie between the
// samples (search's starting bracket where it is inside Gershgorin's). False where n < 2 or the
// samples are not finite. O(n) memory.
bool symbol_bounds(int64_t n, const double *t, double *lo, double *hi);

// The tolerance search() brackets to (its ABSTOL rule): the eigenvectors' multiplet rule.
double search_tolerance(int64_t n, const double *t, double abstol);

// What the search did, for GPUEIG_VERBOSE and the benchmark.
struct Report {
  bool ok = false;
  bool declined = false;  // more than `most` eigenvalues wanted
  gpu::Status failure;    // an evaluation that failed (a device failure), when !ok
  std::string why;     // when !ok: what could not be settled
  int slots = 0;       // evaluations side by side (the multisection's width)
  int rounds = 0;      // batches of evaluations
  int64_t evaluations = 0;  // of a half block at a shift each
  int64_t untrusted = 0;  // evaluations the search discarded (and moved)
};

// The eigenvalues IL..IU (RANGE 'I') or those in (VL, VU] (RANGE 'V'; an eigenvalue within the
// tolerance of VL or VU may fall either way) of T(i,j) = t(|i-j|), ascending into w, their number
// into *m. t: n >= 1 finite entries, scaled as gpu_toeplitz_eig scales them. Each eigenvalue is
// the midpoint of a bracket no wider than max(ABSTOL, n eps ||T||_1) whose ends' counts enclose it
// (ABSTOL below 2 eps ||T||_1 is raised to that). `slots`: how many (shift, half) evaluations run
// side by side (a round fills whole waves of them). `most` >= 0: declines (before any other evaluation) when more than
// `most` eigenvalues are wanted. Returns the report; on !ok, *m = 0 and w is unspecified.
// `halves` (optional, n entries): the half block of each returned eigenvalue; `estimates`
// (optional, n entries): a better estimate of each inside its bracket where the determinant's fit
// gives one (a bracket of one eigenvalue: its last fit through the ends), else its midpoint.
Report search(int64_t n, const double *t, char range, double vl, double vu, int il, int iu,
              double abstol, int slots, const Evaluate &evaluate, int64_t most, int *m, double *w,
              const Guide *guide = nullptr, int *halves = nullptr, double *estimates = nullptr);

// The host evaluator on `form` (kept alive by the caller): the tasks shared out over threads.
Evaluate host_evaluator(const CauchyForm &form);

// How many threads host_evaluator uses (the multisection's width on the CPU).
int host_slots();

}  // namespace gpueig::structured
