// gpu_stebz's host half, as DSTEBZ's phases: everything but the bracketing of eigenvalues, which
// runs on the GPU (cuda/stebz.cu). CUDA-free, compiled into the library in every build, and
// tested against LAPACK's DSTEBZ on the CPU (tests/test_stebz_phases.cpp).
//
// cuda/stebz.cu calls them in DSTEBZ's order:
//   order_one                    N = 1: DSTEBZ's special case, nothing for a GPU to do
//   split                        1. the blocks of T (NSPLIT, ISPLIT) and PIVMIN
//   index_search, index_interval 2. RANGE 'I' as an interval (WL, WU], searched on the device
//   value_interval                  RANGE 'V''s interval; block_bounds: a block's GL, GU, ATOLI
//   plan_blocks, use_grid,       3. which blocks and eigenvalues the device brackets, and the
//   workspace_layout                device workspace they need
//   (cuda/stebz.cu)              4. bracketing on the device
//   collect                         its midpoints into W, IBLOCK = -JB where it did not converge
//   discard                      5. RANGE 'I''s surplus eigenvalues, as DSTEBZ discards them
//   order                        6. ORDER 'E' (DSTEBZ's selection sort) or 'B' (as found)
#pragma once
#include <cfloat>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "sturm.hpp"

namespace gpueig {

// One split-off block of T and the eigenvalues wanted in it: local indices first_k+1..last_k,
// searched in (lo, hi], written from position `out` on. Read by the device as is.
struct StebzBlock {
  int64_t begin, len;  // rows of the block
  int first_k, last_k;
  int64_t out;         // position in the output of eigenvalue first_k + 1
  int64_t task0;       // global task index of eigenvalue first_k + 1
  double lo, hi, atol;
  int itmax;           // cap on bisection levels, as DSTEBZ's ITMAX for the block
  int locate;          // 1: DLAEBZ's IJOB = 3, stop at a point w with N(w) = k - 1 if one is met
};

// Final bracket of one search: N(lo) = nlo < k <= nhi = N(hi) (-1 / n+1 while a side is unknown).
struct StebzBracket {
  double lo, hi;
  int nlo, nhi;
  int converged;
};

namespace stebz_phases {

constexpr double kUlp = 0x1p-52;      // DLAMCH('P')
constexpr double kSafeMin = DBL_MIN;  // DLAMCH('S')
constexpr double kFudge = 2.1, kRelFac = 2.0;
constexpr double kRtoli = kUlp * kRelFac;  // DSTEBZ's RTOLI
// The grid phase (StebzGrid): 2^16 counts, for one block of order >= 1024 with >= 64 eigenvalues
// wanted; it costs about one pass of the search and saves 16 bisection levels of every search.
constexpr int kGridPoints = 1 << 16, kGridMinOrder = 1024, kGridMinTasks = 64;

// The arguments as DSTEBZ reads them: IRANGE 1 ('A'), 2 ('V') or 3 ('I'), where 'I' with
// IL = 1, IU = N is 'A'.
struct Request {
  int irange;
  bool order_e;
  double vl, vu;
  int il, iu;
  double abstol;
};
Request request(char range, char order, int n, double vl, double vu, int il, int iu,
                double abstol);

// W and IBLOCK as returned (M = w.size()).
struct Eigenvalues {
  std::vector<double> w;
  std::vector<int> iblock;
};

// N = 1, as DSTEBZ answers it (NSPLIT = 1, ISPLIT(1) = 1, INFO = 0): D(1) unless RANGE 'V'
// excludes it.
Eigenvalues order_one(const Request &q, double d0);

// --- 1. Splitting ----------------------------------------------------------------------------
// DSTEBZ's split test: T splits below row j where |d(j) d(j-1)| ULP^2 + SAFMIN > e(j-1)^2.
struct Split {
  std::vector<SturmRow> rows;  // (d(j), e(j-1)^2), e2 = 0 where T splits
  std::vector<int> isplit;     // ISPLIT: the last row (1-based) of each block
  double pivmin;               // SAFMIN max(1, e(j)^2 over the kept e): infinite if one overflows
  int nsplit() const { return static_cast<int>(isplit.size()); }
};
Split split(int n, const double *d, const double *e);

// --- 2. The interval and ATOLI ------------------------------------------------------------------
// The interval (WL, WU] DSTEBZ's block loop selects from, with, for RANGE 'I', the small
// intervals (WL, WLU] and (WUL, WU] across which N jumps past IL - 1 and IU, and the counts
// NWL = N(WL), NWU = N(WU). All zero where unused (RANGE 'A', and 'I' searched by index).
struct Interval {
  double wl = 0, wlu = 0, wul = 0, wu = 0;
  int nwl = 0, nwu = 0;
  bool valid = true;  // false: DSTEBZ's INFO = 4 (counts out of range: no such eigenvalues)
};

// RANGE 'V': (VL, VU]; otherwise all zero.
Interval value_interval(const Request &q);

// RANGE 'I' on an unsplit matrix needs no interval (WL, WU]: eigenvalues IL..IU of the one block
// are searched by index directly, which is what DSTEBZ's interval and discarding amount to.
bool by_index(const Request &q, const Split &s);

// RANGE 'I' otherwise: DSTEBZ's DLAEBZ (IJOB = 3) on the whole matrix, within its Gershgorin
// interval [GL, GU] (fudged) and with ITMAX and ATOLI from TNORM, looks for points with
// N = IL - 1 and N = IU. GL and GU are DLAEBZ's first points: IL = 1 and IU = N are answered there
// without a search. `targets` are the searches left for the device (unscaled), lower first.
struct IndexSearch {
  double gl, gu, atoli;
  int itmax;
  StebzBracket lower, upper;  // the points GL and GU with their counts
  bool search_lower, search_upper;
  std::vector<StebzBlock> targets;
};
IndexSearch index_search(const Request &q, const Split &s, const double *d);

// The interval from the brackets the device found for `targets` (in T's own scale): sides it
// never moved (counts -1 / N+1) are counted here, then WL, WLU, NWL from the lower search and
// WUL, WU, NWU from the upper one, as DSTEBZ takes them.
Interval index_interval(const Request &q, const Split &s, const IndexSearch &is,
                        const StebzBracket *found);

// A block's Gershgorin interval [GL, GU], fudged as DSTEBZ's block loop does, and its ATOLI.
struct BlockBounds {
  double gl, gu, atoli;
};
BlockBounds block_bounds(const double *d, const double *e, int begin, int end, double pivmin,
                         double abstol);

// --- 3. The block plan -----------------------------------------------------------------------
// DSTEBZ's block loop with the bisection left to the device: 1 x 1 blocks answered here, the
// others clipped to (WL, WU], counted at their ends (NWL, NWU) and, where they hold wanted
// eigenvalues, given a StebzBlock (unscaled) and as many slots of W and IBLOCK, in block order.
struct Plan {
  std::vector<StebzBlock> blocks;
  std::vector<int> block_of;  // DSTEBZ's JB for each entry of `blocks`
  Eigenvalues out;            // W (0 in the slots the device fills) and IBLOCK
  int nwl = 0, nwu = 0;
  int64_t ntasks = 0;         // eigenvalues to bracket
};
Plan plan_blocks(const Request &q, const Split &s, const double *d, const double *e,
                 bool by_index, const Interval &iv);

// One large block with many eigenvalues wanted: a grid of counts first (StebzGrid).
bool use_grid(const Plan &p);

// The device workspace, in one allocation: rows | blocks (at most nsplit + 2) | w | conv |
// 2 brackets | grid counts, each part aligned as every workspace part (src/workspace_plan.hpp).
struct WorkspaceLayout {
  size_t rows, blocks, w, conv, brackets, grid;  // byte offsets
  size_t bytes;                                  // the allocation
};
WorkspaceLayout workspace_layout(int n, int nsplit);

// --- 4. After the device's bracketing ------------------------------------------------------------
// The midpoints `wg` (in the device's scale: divided by `scale`) into W's slots, and IBLOCK = -JB
// where `conv` says a search did not converge. Returns whether any did not (DSTEBZ's NCNVRG).
bool collect(Plan &p, const std::vector<double> &wg, const std::vector<int> &conv, double scale);

// --- 5. Discarding -----------------------------------------------------------------------------
// RANGE 'I' through an interval: DSTEBZ's discarding of the NWL - (IL - 1) eigenvalues in
// (WL, WLU] and NWU - IU in [WUL, WU] that are not wanted, verbatim. Returns DSTEBZ's TOOFEW.
bool discard(const Request &q, const Interval &iv, int nwl, int nwu, Eigenvalues &ev);

// --- 6. Ordering -------------------------------------------------------------------------------
// ORDER 'E' with more than one block: DSTEBZ's selection sort (order_e_sort); otherwise W stays
// in block order (ORDER 'B').
void order(const Request &q, int nsplit, Eigenvalues &ev);
// DSTEBZ's ORDER 'E' sort, exactly, ties included (in O(m log m)).
void order_e_sort(std::vector<double> &w, std::vector<int> &ib);

}  // namespace stebz_phases
}  // namespace gpueig
