// gpu_gtsv_pcr, GPU half: tiled elimination that reads each system twice and writes x once.
//
// A system that fits one tile (n <= 2048; 4096 for a lone one) is solved wholly inside one
// thread group: loaded into shared memory, solved (cuda/gtsv_tile.cuh), checked and written. A
// larger system is cut into tiles of kBig rows (the last one padded with identity rows). Pass 1
// (tile_pass) eliminates each tile's interior and keeps two rows per tile: the equations of its
// first and last unknowns in terms of each other and the neighbouring tiles' end unknowns. Those rows form a tridiagonal
// system of 2 * tiles unknowns, solved the same way (recursively). Pass 2 re-reads each tile,
// repeats the same elimination, substitutes the now known end values down the merge tree,
// checks the residual of every row and writes x. A lone system of up to 512 tiles runs all of
// that in one cooperative launch (fused_column).
// Traffic: the matrix and b read twice, x written once, the reduced systems ~1% extra: 72 bytes
// per unknown. A single pass cannot do better for a system larger than the chip's memories: no
// unknown is known before the whole system has been read once.
//
// No step pivots. Every column's result is judged by LAPACK's DGTT02 residual ratio, computed
// in pass 2 from the values it already holds (no extra memory traffic); a column that fails, or
// met a zero pivot or a non-finite value, is reported to the caller, which re-solves it with
// partial pivoting (a lone column first in parallel, gtsv_pivot_lone; gtsv_pivot, or DGTSV on the
// host). The device-pointer calls solve in place (gtsv_in_place, at the end): a column of one
// tile is judged and re-solved by its own group.
#include <algorithm>
#include <cooperative_groups.h>

#include <cfloat>
#include <climits>
#include <cmath>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "context.hpp"
#include "gtsv.hpp"
#include "gtsv_tile.cuh"
#include "tuning.hpp"
#include "workspace.hpp"

namespace gpueig::gpu {
namespace {

using tile::Chunk;
using tile::Row;
using tile::Seg;
using tile::Shared;
using tile::slot;

// Tile shape of the multi-tile path: one warp x kBigM rows per tile, kBigG tiles per block. Warp
// tiles need no block-wide barrier.
#ifndef GPUEIG_GTSV_BIG_M
#define GPUEIG_GTSV_BIG_M 8
#endif
constexpr int kBigT = 32, kBigM = GPUEIG_GTSV_BIG_M, kBigG = 4;
constexpr int kBig = kBigT * kBigM;
constexpr int kMaxSingle = 2048;  // the largest system of several solved by one group (256 x 8)
// A lone system (one column) up to this order is solved by one group of 512 threads x 8 rows (170
// KiB of shared memory): one kernel instead of two passes, a reduced system and the verdict's
// launches, which is what a solve of a few thousand rows costs (H200, 2026-11-29: the one-tile
// in-place solve of n = 1024 took 10.8 to 15.5 us from an idle stream, the tiled one of 4096
// 20.2 to 21.1). Several columns keep 2048: there the tiles' parallelism matters.
constexpr int kMaxOne = 4096;
// The residual sums of a column's tiles go to up to this many copies of its Check, tile j to
// copy j % copies: tens of thousands of atomics on one address would queue at one L2 slice.
constexpr int64_t kSlots = 32;

struct Check {  // per column, accumulated by the tiles of the column
  double rsum, xsum;               // sum |b - A x|, sum |x|
  unsigned long long anorm_bits;   // max column sum of |A|, as the bits of a non-negative double
  unsigned long long pad;
};

struct Judged {  // the verdict, read back by gtsv_failed
  int count;
  unsigned done_blocks;         // the re-solve's blocks finished (finish_resolve)
  unsigned long long inv_code;  // ~(least singular code) of resolve_on_device, 0: none
  // followed by int64_t list[ncol]
};

// The verdict's place: right behind the columns' Check copies (see checks_bytes).
__host__ __device__ inline Judged *verdict_after(Check *chk, int64_t ncol, int64_t copies) {
  return reinterpret_cast<Judged *>(chk + ncol * copies);
}

// Tiles of a column of order n, and the copies of Check each column has.
int64_t single_limit(int64_t ncol) { return ncol == 1 ? kMaxOne : kMaxSingle; }
int64_t tiles_of(int64_t n, int64_t ncol) { return n <= single_limit(ncol) ? 1 : (n + kBig - 1) / kBig; }
int64_t slots_of(int64_t n, int64_t ncol) { return std::min(tiles_of(n, ncol), kSlots); }

// Column c's pointers, tile j's first row and length.
struct Place {
  int64_t col, tile, r0, len;
};

__device__ __forceinline__ Place place(const GtsvColumns &p, int64_t tiles, int64_t rows,
                                       int64_t item) {
  Place q;
  if (p.ms == 0) {  // shared matrix: neighbouring blocks take the same tile of different columns
    q.tile = item / p.ncol;
    q.col = item % p.ncol;
  } else {
    q.col = item / tiles;
    q.tile = item % tiles;
  }
  q.r0 = q.tile * rows;
  q.len = min(rows, p.n - q.r0);
  return q;
}

// Loads rows r0 .. r0+len-1 of column `col` into the group's shared tile, with their couplings
// to the rows outside the tile; rows past len are identity rows (x = 0), which decouple.
template <int T, int M>
__device__ __forceinline__ void load_tile(Shared<T, M> &sh, const GtsvColumns &p, int t,
                                          const Place &q) {
  const double *dl = p.dl + q.col * p.ms, *d = p.d + q.col * p.ms, *du = p.du + q.col * p.ms;
  const double *b = p.b + q.col * p.bs;
  double a[M], dd[M], c[M], r[M];
  // All loads first, then all stores: M independent loads per array in flight.
#pragma unroll
  for (int k = 0; k < M; ++k) {
    const int i = t + k * T;
    const int64_t g = q.r0 + i;
    const bool in = i < q.len;
    a[k] = in && g > 0 ? dl[g - 1] : 0.0;
    dd[k] = in ? d[g] : 1.0;
    c[k] = in && g < p.n - 1 ? du[g] : 0.0;
    r[k] = in ? b[g] : 0.0;
  }
#pragma unroll
  for (int k = 0; k < M; ++k) {
    const int i = slot(t + k * T);
    sh.a[i] = a[k];
    sh.b[i] = dd[k];
    sh.c[i] = c[k];
    sh.r[i] = r[k];
  }
}

// Step 1 of the tile solve on the loaded tile: this thread's chunk eliminated.
template <int T, int M>
__device__ __forceinline__ Seg sweep_tile(const Shared<T, M> &sh, int t, Chunk<M> &ck) {
  Row rows[M];
#pragma unroll
  for (int k = 0; k < M; ++k) {
    const int i = slot(t * M + k);
    rows[k] = {sh.a[i], sh.b[i], sh.c[i], sh.r[i]};
  }
  return tile::sweep<M>(rows, ck);
}

// Above 48 KiB of shared memory a kernel must opt in; once per kernel.
template <auto Kernel>
void set_smem(size_t bytes) {
  static std::once_flag once;
  std::call_once(once, [&] {
    cudaFuncSetAttribute(Kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                         static_cast<int>(bytes));
  });
}

// DGTSV for one right-hand side, operation for operation (explicit roundings: no contraction
// into FMA, so the result matches LAPACK compiled without it). dl(i), d(i), du(i), x(i) name
// (as references) scratch copies of the matrix, which receive U and the fill-in as in DGTSV, and
// of B, which receives X; the accessors let the same steps run on global scratch (the re-solve
// kernels) and on a tile held in shared memory (solve_tiles in place). Returns DGTSV's INFO.
// The values each step hands to the next (d(i+1), x(i+1); x(i+1), x(i+2) going back) stay in
// registers: every step waits on the one before it, and a reload through memory would add its
// latency to every link of that chain.
template <class DL, class D, class DU, class X>
__device__ int dgtsv_steps(int64_t n, DL dl, D d, DU du, X x) {
  double di = d(0), xi = x(0);  // d(i), x(i) as step i finds them
  for (int64_t i = 0; i + 1 < n; ++i) {
    const bool last = i + 2 == n;
    const double li = dl(i), ui = du(i), dn = d(i + 1), xn = x(i + 1);
    if (fabs(di) >= fabs(li)) {
      if (di == 0.0) return static_cast<int>(i + 1);
      const double fact = li / di;
      di = __dsub_rn(dn, __dmul_rn(fact, ui));
      xi = __dsub_rn(xn, __dmul_rn(fact, xi));
      if (!last) dl(i) = 0.0;
    } else {
      const double fact = di / li;
      d(i) = li;
      if (!last) {
        const double un = du(i + 1);
        dl(i) = un;
        du(i + 1) = __dmul_rn(-fact, un);
      }
      du(i) = dn;
      x(i) = xn;
      di = __dsub_rn(ui, __dmul_rn(fact, dn));
      xi = __dsub_rn(xi, __dmul_rn(fact, xn));
    }
    d(i + 1) = di;
    x(i + 1) = xi;
  }
  if (di == 0.0) return static_cast<int>(n);
  double x1 = xi / di;  // x(i + 1) for the step below
  x(n - 1) = x1;
  if (n == 1) return 0;
  double x0 = __dsub_rn(x(n - 2), __dmul_rn(du(n - 2), x1)) / d(n - 2);
  x(n - 2) = x0;
  for (int64_t i = n - 3; i >= 0; --i) {
    const double xi_new = __dsub_rn(__dsub_rn(x(i), __dmul_rn(du(i), x0)), __dmul_rn(dl(i), x1)) / d(i);
    x(i) = xi_new;
    x1 = x0;
    x0 = xi_new;
  }
  return 0;
}

// dgtsv_steps on four global arrays.
__device__ int dgtsv_one(int64_t n, double *dl, double *d, double *du, double *x) {
  return dgtsv_steps(
      n, [=](int64_t i) -> double & { return dl[i]; }, [=](int64_t i) -> double & { return d[i]; },
      [=](int64_t i) -> double & { return du[i]; }, [=](int64_t i) -> double & { return x[i]; });
}

// dgtsv_steps on a tile as load_tile left it (row i: a = dl(i-1), b = d(i), c = du(i), r = b(i));
// X lands in r. Out of line: the kernels' common path keeps its registers.
template <int T, int M>
__device__ __noinline__ int dgtsv_tile(int n, Shared<T, M> &sh) {
  Shared<T, M> *s = &sh;
  return dgtsv_steps(
      n, [=](int64_t i) -> double & { return s->a[slot(static_cast<int>(i) + 1)]; },
      [=](int64_t i) -> double & { return s->b[slot(static_cast<int>(i))]; },
      [=](int64_t i) -> double & { return s->c[slot(static_cast<int>(i))]; },
      [=](int64_t i) -> double & { return s->r[slot(static_cast<int>(i))]; });
}

// The test of one column from its sums, as DGTT02: ((||r|| / ||A||) / ||x||) / eps at most the
// limit, an exact zero residual always accepted, x and A finite. Where limit * eps * ||A|| * ||x||
// is a normal number the test is r <= that product (a NaN or infinite r fails it): one thread of
// a group decides for the whole group in finish_own, and three dependent divisions there cost
// the batch solve a few percent. Otherwise (under- or overflow) DGTT02's divisions decide.
__device__ __forceinline__ bool accepted(double rsum, double xsum, double anorm) {
  if (rsum == 0.0) return isfinite(xsum) && isfinite(anorm);
  const double bound = kGtsvResidualLimit * kUnitRoundoff * anorm * xsum;
  if (bound >= DBL_MIN && bound <= DBL_MAX) return rsum <= bound;
  const double ratio = rsum / anorm / xsum / kUnitRoundoff;
  return ratio <= kGtsvResidualLimit && isfinite(xsum) && isfinite(anorm);
}

// INFO of several columns on the device: the least nonzero code wins (*info starts at 0, which
// stands for "none"). Each failed exchange saw a smaller nonzero value than the one before, so
// the loop ends after at most as many rounds as there are writers.
__device__ void least_code(int *info, int code) {
  int old = *reinterpret_cast<volatile int *>(info);
  while (old == 0 || code < old) {
    const int seen = atomicCAS(info, old, code);
    if (seen == old) break;
    old = seen;
  }
}

// Column c's (ms != 0 ? c*n : 0) + i, the code of the device-pointer calls, as an int.
__device__ __forceinline__ int column_code(const GtsvColumns &p, int64_t c, int i) {
  const unsigned long long code = (p.ms != 0 ? static_cast<unsigned long long>(c * p.n) : 0ull) + i;
  return code > static_cast<unsigned long long>(INT_MAX) ? INT_MAX : static_cast<int>(code);
}

// The tile's share of its column's check, DGTT02's sums over rows t*M .. t*M+M-1: |b - A x|,
// |x| and the largest column sum of |A| (a NaN there counts as infinite: fmax would drop it).
// x: this thread's rows; left/right: x just outside the tile; sh.ends holds the chunk ends.
template <int T, int M>
__device__ __forceinline__ void residual_sums(const Shared<T, M> &sh, const GtsvColumns &p,
                                              const Place &q, int t, const double (&x)[M],
                                              double left, double right, double &rsum,
                                              double &xsum, double &amax) {
  const int L = static_cast<int>(q.len);
  const double *dl = p.dl + q.col * p.ms, *du = p.du + q.col * p.ms;
  rsum = 0.0;
  xsum = 0.0;
  amax = 0.0;
#pragma unroll
  for (int k = 0; k < M; ++k) {
    const int i = t * M + k;
    if (i < L) {
      const int64_t g = q.r0 + i;
      const double xm = i == 0 ? left : (k == 0 ? sh.ends[2 * t - 1] : x[k - 1]);
      const double xp = i == L - 1 ? right : (k == M - 1 ? sh.ends[2 * t + 2] : x[k + 1]);
      const double ai = sh.a[slot(i)], bi = sh.b[slot(i)], ci = sh.c[slot(i)];
      rsum += fabs(sh.r[slot(i)] - (ai * xm + bi * x[k] + ci * xp));
      xsum += fabs(x[k]);
      // Column i of A: du(i-1), d(i), dl(i); the neighbours across the tile ends from memory.
      const double up = i > 0 ? sh.c[slot(i - 1)] : (g > 0 ? du[g - 1] : 0.0);
      const double down = i < L - 1 ? sh.a[slot(i + 1)] : (g < p.n - 1 ? dl[g] : 0.0);
      double col = fabs(up) + fabs(bi) + fabs(down);
      if (isnan(col)) col = INFINITY;
      amax = fmax(amax, col);
    }
  }
}

// Stores the tile's rows of sh.r into column q.col of `out` (stride `stride`), coalesced.
template <int T, int M>
__device__ __forceinline__ void store_rows(const Shared<T, M> &sh, const Place &q, int t, double *out,
                                           int64_t stride) {
  double *o = out + q.col * stride + q.r0;
#pragma unroll
  for (int k = 0; k < M; ++k) {
    const int i = t + k * T;
    if (i < q.len) o[i] = sh.r[slot(i)];
  }
}

// This thread's x once its chunk's ends are known, and the chunk's end values published in
// sh.ends for the neighbours' residuals (synchronized).
template <int T, int M>
__device__ __forceinline__ void chunk_values(Shared<T, M> &sh, int t, const Chunk<M> &ck, double (&x)[M]) {
#pragma unroll
  for (int k = 0; k < M; ++k) x[k] = tile::chunk_x<M>(ck, k);
  sh.ends[2 * t] = x[0];
  sh.ends[2 * t + 1] = x[M - 1];
  tile::group_sync<T>();
}

// With the chunk ends known (left/right: x just outside the tile): adds the rows' residual sums
// to the column's check (or, `sole`, the only group of the column, sets them) and stores x,
// coalesced through shared memory. Solving in place (p.keep set, p.x = p.b), b's rows are first
// saved in keep for a re-solve.
template <int T, int M>
__device__ __forceinline__ void finish_tile(Shared<T, M> &sh, const GtsvColumns &p,
                                            const Place &q, int t, const Chunk<M> &ck,
                                            double left, double right, Check *chk, bool sole) {
  double x[M];
  chunk_values(sh, t, ck, x);
  if (chk) {
    double rsum, xsum, amax;
    residual_sums(sh, p, q, t, x, left, right, rsum, xsum, amax);
    tile::group_reduce(sh, t, rsum, xsum, amax);
    const auto bits = static_cast<unsigned long long>(__double_as_longlong(amax));
    if (t == 0 && sole) {
      *chk = Check{rsum, xsum, bits, 0};
    } else if (t == 0) {
      atomicAdd(&chk->rsum, rsum);
      atomicAdd(&chk->xsum, xsum);
      atomicMax(&chk->anorm_bits, bits);
    }
  }
  if (p.keep) store_rows(sh, q, t, p.keep, p.n);
  tile::group_sync<T>();
#pragma unroll
  for (int k = 0; k < M; ++k) sh.r[slot(t * M + k)] = x[k];
  tile::group_sync<T>();
  store_rows(sh, q, t, p.x, p.xs);
}

__device__ __noinline__ int pivot_in_tile(const GtsvColumns &p, double *sm);  // (below)

// A whole column in one tile, solved in place by its own group (solve_tiles with `info`): the
// group judges the column as judge() would; X goes over B if it passes, and otherwise the group
// solves the column again by DGTSV's algorithm on the originals it still holds and writes
// DGTSV's B (Lone: the block, the column's only group, first by pivot_in_tile). So nothing else
// is launched, waited for or kept. INFO: DGTSV's for one column, else the least column code
// (*info zeroed before the launch).
template <int T, int M, bool Lone>
__device__ __forceinline__ void finish_own(Shared<T, M> &sh, const GtsvColumns &p, const Place &q,
                                           int t, const Chunk<M> &ck, int *info) {
  double x[M];
  chunk_values(sh, t, ck, x);
  double rsum, xsum, amax;
  residual_sums(sh, p, q, t, x, 0.0, 0.0, rsum, xsum, amax);
  bool ok;
  if constexpr (T == 32) {
    // One warp: a butterfly leaves the same sums, bit for bit (each step adds a pair of lanes'
    // equal values in either order), in every lane, which then decides without a broadcast.
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) {
      rsum += __shfl_xor_sync(0xffffffffu, rsum, off);
      xsum += __shfl_xor_sync(0xffffffffu, xsum, off);
      amax = fmax(amax, __shfl_xor_sync(0xffffffffu, amax, off));
    }
    ok = accepted(rsum, xsum, amax);
  } else {
    tile::group_reduce(sh, t, rsum, xsum, amax);
    tile::group_sync<T>();  // group_reduce's reads of sh.scratch are done
    if (t == 0) sh.scratch[0] = accepted(rsum, xsum, amax) ? 1.0 : 0.0;
    tile::group_sync<T>();
    ok = sh.scratch[0] != 0.0;
  }
  int code = 0;
  if constexpr (Lone) {
    if (!ok) {  // the whole block's, and its shared memory
      code = pivot_in_tile(p, reinterpret_cast<double *>(&sh));
      if (t == 0) *info = code;
      return;
    }
  }
  if (ok) {
#pragma unroll
    for (int k = 0; k < M; ++k) sh.r[slot(t * M + k)] = x[k];
  } else if (t == 0) {
    code = dgtsv_tile(static_cast<int>(q.len), sh);
  }
  tile::group_sync<T>();
  store_rows(sh, q, t, p.x, p.xs);
  if (t == 0 && p.ncol == 1) *info = code;
  else if (t == 0 && code > 0) least_code(info, column_code(p, q.col, code));
}

// The two passes of the multi-tile path. Tile j's rows u..w give, once its interior is
// eliminated (a Seg), two rows of the reduced system, whose unknowns are the tiles' end values:
//   row 2j:   a x_{w of j-1} + b x_u + c x_w            = r
//   row 2j+1: a x_u          + b x_w + c x_{u of j+1}  = r
// Pass 1 (Finish = false) writes them as rows 2j, 2j+1 of the column's reduced system `red`
// (gtsv layout; the matrix only once when it is shared). Pass 2 (Finish = true) reads x_u, x_w
// and their neighbours from red.x, goes down the tree, checks and stores. At the top level
// (`chk` set) pass 1 also clears the columns' Check copies and the verdict behind them, which
// pass 2 and judge fill: no memset of its own on the stream.
//
// pass_tile: pass 1 or 2 (Finish) on tile `item` (column, tile) by the group that owns `sh`.
template <int T, int M, bool Finish>
__device__ __forceinline__ void pass_tile(Shared<T, M> &sh, const GtsvColumns &p, int64_t tiles,
                                          const GtsvColumns &red, Check *chk, int64_t copies, int t,
                                          int64_t item) {
  const Place q = place(p, tiles, T * M, item);
  const int64_t j = q.tile;
  load_tile(sh, p, t, q);
  tile::group_sync<T>();
  Chunk<M> ck;
  const Seg g = tile::group_up<T, M, Finish>(sh, t, sweep_tile(sh, t, ck));
  if constexpr (Finish) {
    tile::group_sync<T>();  // the tree's nodes
    const double *v = red.x + q.col * red.xs;
    const double left = j > 0 ? v[2 * j - 1] : 0.0, right = j < tiles - 1 ? v[2 * j + 2] : 0.0;
    tile::group_down(sh, t, v[2 * j], v[2 * j + 1], ck);
    finish_tile(sh, p, q, t, ck, left, right, chk ? chk + q.col * copies + j % copies : nullptr, false);
  } else if (t == 0) {
    if (chk && j < copies) chk[q.col * copies + j] = Check{};
    if (chk && item == 0) *verdict_after(chk, p.ncol, copies) = Judged{};
    const int64_t nred = red.n, f = 2 * j;
    double *rb = const_cast<double *>(red.b) + q.col * red.bs;
    rb[f] = g.s.r;
    rb[f + 1] = g.e.r;
    if (p.ms != 0 || q.col == 0) {
      const int64_t base = q.col * red.ms;
      double *dl = const_cast<double *>(red.dl) + base, *d = const_cast<double *>(red.d) + base,
             *du = const_cast<double *>(red.du) + base;
      if (f > 0) dl[f - 1] = g.s.a;
      d[f] = g.s.b;
      du[f] = g.s.c;
      dl[f] = g.e.a;
      d[f + 1] = g.e.b;
      if (f + 1 < nred - 1) du[f + 1] = g.e.c;
    }
  }
}

template <int T, int M, int G, bool Finish>
__global__ void __launch_bounds__(T *G)
    tile_pass(GtsvColumns p, int64_t tiles, GtsvColumns red, Check *chk, int64_t copies) {
  extern __shared__ __align__(16) unsigned char smem[];
  const int t = threadIdx.x % T, grp = threadIdx.x / T;
  auto &sh = reinterpret_cast<Shared<T, M> *>(smem)[grp];
  // Pass 2 takes the tiles in reverse: the last ones pass 1 read are still in L2.
  const int64_t blk = Finish ? gridDim.x - 1 - blockIdx.x : blockIdx.x;
  const int64_t item = blk * G + grp;
  if (item >= p.ncol * tiles) return;  // only whole warps leave (G > 1 implies T = 32)
  pass_tile<T, M, Finish>(sh, p, tiles, red, chk, copies, t, item);
}

// A whole column in one tile: loaded, eliminated up the tree and its values brought down to
// every chunk's ends (then finish_tile or finish_own).
template <int T, int M>
__device__ __forceinline__ void solve_tile(Shared<T, M> &sh, const GtsvColumns &p, const Place &q, int t,
                                           Chunk<M> &ck) {
  load_tile(sh, p, t, q);
  tile::group_sync<T>();
  const Seg g = tile::group_up<T, M, true>(sh, t, sweep_tile(sh, t, ck));
  tile::group_sync<T>();
  double xu, xw;
  tile::solve_root(g, xu, xw);
  tile::group_down(sh, t, xu, xw, ck);
}

// A column that fits one tile, solved whole: G groups of T threads per block, one column each.
// With `info` (Own): in place, each group judging and re-solving its own column (finish_own);
// Lone: the only column, a block of its own (G = 1), whose re-solve is pivot_in_tile's.
template <int T, int M, int G, bool Own, bool Lone = false>
__global__ void __launch_bounds__(T *G) solve_tiles(GtsvColumns p, Check *chk, int *info) {
  static_assert(!Lone || (Own && G == 1), "a lone column is solved in place by a block of its own");
  extern __shared__ __align__(16) unsigned char smem[];
  const int t = threadIdx.x % T, grp = threadIdx.x / T;
  auto &sh = reinterpret_cast<Shared<T, M> *>(smem)[grp];
  const int64_t item = static_cast<int64_t>(blockIdx.x) * G + grp;
  if (item >= p.ncol) return;  // only whole warps leave (G > 1 implies T = 32)
  const Place q = place(p, 1, T * M, item);
  Chunk<M> ck;
  solve_tile(sh, p, q, t, ck);
  if constexpr (Own)
    finish_own<T, M, Lone>(sh, p, q, t, ck, info);
  else
    finish_tile(sh, p, q, t, ck, 0.0, 0.0, chk ? chk + q.col : nullptr, true);
  // The verdict behind the Check copies is cleared here for judge (which runs after).
  if (!Own && chk && blockIdx.x == 0 && threadIdx.x == 0) *verdict_after(chk, p.ncol, 1) = Judged{};
}

// Column c's Check copies summed into the first; whether its result is accepted.
__device__ bool column_accepted(Check *chk, int64_t copies, int64_t c) {
  Check &to = chk[c * copies];
  for (int64_t k = 1; k < copies; ++k) {
    const Check &from = chk[c * copies + k];
    to.rsum += from.rsum;
    to.xsum += from.xsum;
    to.anorm_bits = max(to.anorm_bits, from.anorm_bits);
  }
  return accepted(to.rsum, to.xsum, __longlong_as_double(static_cast<long long>(to.anorm_bits)));
}

// One thread per column: the verdict.
__global__ void judge(int64_t ncol, int64_t copies, Check *chk, Judged *verdict, int64_t *list) {
  const int64_t c = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c >= ncol) return;
  if (!column_accepted(chk, copies, c)) list[atomicAdd(&verdict->count, 1)] = c;
}

// Blocks of `threads` threads and `smem` bytes of dynamic shared memory of a cooperative kernel
// that can be resident at once on this device (0: no cooperative launch to be had).
int64_t cooperative_capacity(const void *kernel, int threads, size_t smem) {
  int dev = 0, coop = 0, sms = 0, per_sm = 0;
  if (cudaGetDevice(&dev) != cudaSuccess ||
      cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev) != cudaSuccess ||
      cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess ||
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)) !=
          cudaSuccess ||
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, smem) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return coop ? int64_t(sms) * per_sm : 0;
}

// ---- one column, one launch --------------------------------------------------------------------
// A lone column of up to kFusedTiles tiles (4096 < n <= 131072) is solved by one cooperative
// launch instead of four: pass 1 over its tiles, a grid barrier, the reduced system (2 x tiles <=
// 1024 rows) solved by block 0 as one group of 128 threads, a barrier, pass 2, a barrier, and the
// verdict by block 0's first thread. At these orders the work is a few microseconds and each
// launch costs about as much (H200, 2026-11-29: 3.7 to 4.7 us of host time a launch; the four of
// n = 65536 took 27 to 29 us from an idle stream).
constexpr int64_t kFusedTiles = 512;

// ---- a failed lone column's re-solve, in parallel ----------------------------------------------
// DGTSV's partial pivoting is one dependent chain of N steps: run by one GPU thread it took 55 ms
// at N = 65536, about 1 s at 2^20 and 1.46 ms at 4096 in shared memory (H200, 2026-11-30,
// `gpueig_bench --gtsv`, a zero diagonal, against cuSPARSE gtsv2's 0.08, 0.15 and 0.08 ms). So a
// lone column the elimination without pivoting failed is first solved again in parallel
// (pivot_block by a thread block, pivot_in_tile in a block's shared memory, pivot_grid by a
// cooperative grid, below), with partial pivoting inside chunks of rows (a Schur complement on
// separator rows, SPIKE's structure): chunk c, rows [c L, c L + L), is an
// interior [c L, c L + m) and one or two separator rows after it (none after the last chunk's,
// unless it drops a row). A thread eliminates its interior by DGTSV's steps for three right-hand
// sides: b, and the interior's couplings to the separators on either side, so that
//   x_interior = g - alpha x_before - beta x_after.
// Substituted into the separators' own rows, these leave a tridiagonal system of the separators
// (at most 2 a chunk), solved by DGTSV's steps by one thread in shared memory; each thread then
// back-substitutes its interior. An interior whose last pivot is zero ends a row earlier (its
// last row becomes a second separator): a zero diagonal makes every interior of odd order
// singular. A zero pivot left, a non-finite value or a residual ratio over the check's limit
// sends the column to DGTSV's algorithm by one thread (B and INFO DGTSV's); an accepted result
// has INFO = 0, as the elimination without pivoting's has.
constexpr int kPivotThreads = 512;  // judge_resolve_*'s blocks; fused_column's have their own

// Shared memory pivot_block needs: 8 doubles a chunk, and it has at most a chunk a thread (a
// chunk's six end values, then the reduced system's four arrays of up to two rows a chunk).
__host__ __device__ constexpr size_t pivot_block_smem(int threads) { return size_t(8) * threads * sizeof(double); }

// How pivot_block cuts n rows among B threads: chunks of L rows, P of them (the last may be
// short; P <= B), their rows in `area` = L P entries of each ChunkRows array. L is about
// sqrt(2 n), which balances a chunk's sweeps (L rows, the chunks in parallel) against thread 0's
// solve of the separators' system (up to 2 P = 2 n / L rows, one after another), and at least
// n / B, so that every chunk has its thread.
struct PivotShape {
  int64_t L, P, area;
};
__host__ __device__ inline PivotShape pivot_shape(int64_t n, int64_t B) {
  int64_t L = static_cast<int64_t>(sqrt(2.0 * static_cast<double>(n)));
  while (L * L < 2 * n) ++L;
  L = max(max(L, int64_t(4)), (n + B - 1) / B);
  const int64_t P = (n + L - 1) / L;
  return {L, P, L * P};
}

// Rows a sweep loads before it works on them: each row's step waits on the one before it, so a
// row at a time would wait out a memory latency a row.
constexpr int kPivotBatch = 4;

// A chunk's eliminated rows in scratch, interleaved across the chunks (row i of chunk t at
// i * stride + t), so that a warp's threads, at the same step of their chunks, touch consecutive
// addresses: U's rows (1 / pivot, first and second superdiagonal), the eliminated b and alpha-side.
struct ChunkRows {
  double *u0, *u1, *u2, *yb, *ya;
  int64_t stride;
  int t;
  __device__ int64_t at(int64_t i) const { return i * stride + t; }
};

// Doubles of scratch pivot_block needs for n rows (ChunkRows: 5 arrays of L P < n + L entries,
// 5 L <= n + 64 for any B >= 32), also enough for DGTSV's copy after it (3 n).
__host__ __device__ constexpr int64_t pivot_block_scratch(int64_t n) { return 6 * n + 64; }

// Rows [r0, r0 + m) eliminated with DGTSV's partial pivoting, for b's rows and for the couplings
// ca (at the first row) and cb (at the last row), into `c`; the beta-side is zero above the last
// two rows, which come back in yb. False at a zero pivot.
__device__ bool chunk_forward(const GtsvColumns &q, int64_t r0, int64_t m, double ca, double cb, const ChunkRows &c,
                              double (&yb)[2]) {
  const double *dl = q.dl, *d = q.d, *du = q.du, *b = q.b;
  double cd = d[r0], cdu = m > 1 ? du[r0] : 0.0, cy = b[r0], cya = ca, cyb = m == 1 ? cb : 0.0;
  yb[0] = 0.0;
  for (int64_t i0 = 0; i0 + 1 < m; i0 += kPivotBatch) {
    double nl[kPivotBatch], nd[kPivotBatch], ndu[kPivotBatch], nb[kPivotBatch];  // rows r + 1
#pragma unroll
    for (int k = 0; k < kPivotBatch; ++k) {
      const int64_t i = i0 + k, r = r0 + i;
      const bool in = i + 1 < m;
      nl[k] = in ? dl[r] : 0.0;
      nd[k] = in ? d[r + 1] : 0.0;
      ndu[k] = in && i + 2 < m ? du[r + 1] : 0.0;
      nb[k] = in ? b[r + 1] : 0.0;
    }
#pragma unroll
    for (int k = 0; k < kPivotBatch; ++k) {
      const int64_t i = i0 + k, at = c.at(i);
      if (i + 1 >= m) break;
      const double nyb = i + 2 == m ? cb : 0.0;
      // DGTSV's choice of pivot row, made without a branch (the warp's threads choose apart) and
      // with one division: the pivot's reciprocal, which U keeps.
      const bool swap = !(fabs(cd) >= fabs(nl[k]));  // rows i and i + 1 interchanged
      const double pivot = swap ? nl[k] : cd;
      if (pivot == 0.0) return false;
      const double inv = 1.0 / pivot, f = (swap ? cd : nl[k]) * inv;
      c.u0[at] = inv;
      c.u1[at] = swap ? nd[k] : cdu;
      c.u2[at] = swap ? ndu[k] : 0.0;
      c.yb[at] = swap ? nb[k] : cy;
      c.ya[at] = swap ? 0.0 : cya;
      if (i + 2 == m) yb[0] = swap ? nyb : cyb;
      cd = swap ? cdu - f * nd[k] : nd[k] - f * cdu;
      cdu = swap ? -f * ndu[k] : ndu[k];
      cy = swap ? cy - f * nb[k] : nb[k] - f * cy;
      cya = swap ? cya : -f * cya;
      cyb = swap ? cyb - f * nyb : nyb - f * cyb;
    }
  }
  if (cd == 0.0) return false;
  const int64_t at = c.at(m - 1);
  c.u0[at] = 1.0 / cd, c.u1[at] = 0.0, c.u2[at] = 0.0, c.yb[at] = cy, c.ya[at] = cya, yb[1] = cyb;
  return true;
}

// Back substitution up the chunk's U (m rows) for kRhs right-hand sides at once, a batch of rows
// loaded ahead: rhs(i, at, j) is side j's value at row i, out(i, z) gets the solution's values.
template <int kRhs, typename Rhs, typename Out>
__device__ void chunk_backward(const ChunkRows &c, int64_t m, Rhs rhs, Out out) {
  constexpr int kBatch = kRhs == 1 ? kPivotBatch : kPivotBatch / 2;  // (registers: no spills at 128)
  double z1[kRhs] = {}, z2[kRhs] = {};  // z(i + 1), z(i + 2)
  for (int64_t top = m - 1; top >= 0; top -= kBatch) {
    double u0[kBatch], u1[kBatch], u2[kBatch], y[kBatch][kRhs];
#pragma unroll
    for (int k = 0; k < kBatch; ++k) {
      const int64_t i = top - k, at = c.at(i);
      const bool in = i >= 0;
      u0[k] = in ? c.u0[at] : 0.0;
      u1[k] = in ? c.u1[at] : 0.0;
      u2[k] = in ? c.u2[at] : 0.0;
#pragma unroll
      for (int j = 0; j < kRhs; ++j) y[k][j] = in ? rhs(i, at, j) : 0.0;
    }
#pragma unroll
    for (int k = 0; k < kBatch; ++k) {
      const int64_t i = top - k;
      if (i < 0) break;
      double z[kRhs];
#pragma unroll
      for (int j = 0; j < kRhs; ++j) {
        z[j] = (y[k][j] - u1[k] * z1[j] - u2[k] * z2[j]) * u0[k];
        z2[j] = z1[j], z1[j] = z[j];
      }
      out(i, z);
    }
  }
}

// The larger of a and b, a NaN in either winning (fmax would drop it).
__device__ __forceinline__ double nan_max(double a, double b) { return a != a ? a : b != b ? b : fmax(a, b); }

// An exclusive prefix sum over the block (blockDim.x a multiple of 32); *total: the whole sum.
__device__ int block_exclusive_scan(int v, int *warp_sums, int *total) {
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
  int incl = v;
  for (int o = 1; o < 32; o <<= 1) {
    const int y = __shfl_up_sync(0xffffffffu, incl, o);
    if (lane >= o) incl += y;
  }
  if (lane == 31) warp_sums[warp] = incl;
  __syncthreads();
  if (warp == 0) {
    const int w = lane < warps ? warp_sums[lane] : 0;
    int wi = w;
    for (int o = 1; o < 32; o <<= 1) {
      const int y = __shfl_up_sync(0xffffffffu, wi, o);
      if (lane >= o) wi += y;
    }
    if (lane < warps) warp_sums[lane] = wi - w;
    if (lane == 31) *total = wi;
  }
  __syncthreads();
  return warp_sums[warp] + incl - v;
}

// One thread's chunk of a pivoting solve (pivot_block, pivot_grid): chunk `id` of P, rows
// [start, end), its interior [start, start + m) and ns separators after it; the beta-side's last
// two rows (yb) and the interior's ends (g, alpha, beta at its first and last rows: gF, gL, aF,
// aL, bF, bL; the next chunk's follow them).
struct PivotChunk {
  int64_t id, start, end, m;
  int ns = 0;
  double yb[2] = {0.0, 0.0};
  double *ends;
  __device__ PivotChunk(int64_t id_, int64_t L, int64_t P, int64_t n, double *ends_all)
      : id(id_), start(id_ * L), end(id_ < P ? min(n, id_ * L + L) : id_ * L),
        m(id_ == P - 1 ? end - start : end - start - 1), ends(ends_all + 6 * id_) {}
  __device__ bool mine() const { return end > start; }

  // 1. The interior eliminated (a row given up to the separators where its last pivot is zero)
  // and swept up for its ends. False at a zero pivot left. The last chunk's interior may give up
  // its only row (one row left over by n's division, zero on a zero diagonal): with no interior,
  // its ends name the separators on either side (x before its separator is x_before, the row
  // after the chunk before it is x_after), which separator_row's substitutions then leave as
  // the plain couplings.
  __device__ bool eliminate(const GtsvColumns &q, const ChunkRows &c) {
    const int64_t n = q.n;
    const double ca = id > 0 ? q.dl[start - 1] : 0.0;
    bool ok = chunk_forward(q, start, m, ca, start + m < n ? q.du[start + m - 1] : 0.0, c, yb);
    if (!ok && (m > 1 || (m == 1 && id > 0))) {
      --m;
      ok = m == 0 || chunk_forward(q, start, m, ca, q.du[start + m - 1], c, yb);
    }
    ns = static_cast<int>(end - start - m);
    if (!ok) return false;
    if (m == 0) {  // gF, gL, aF, aL, bF, bL
      ends[0] = 0.0, ends[1] = 0.0, ends[2] = 0.0, ends[3] = -1.0, ends[4] = -1.0, ends[5] = 0.0;
      return true;
    }
    // One sweep up U for the three: g (from b), alpha and beta (zero above the last two rows).
    chunk_backward<3>(
        c, m,
        [&](int64_t i, int64_t at, int j) {
          return j == 0 ? c.yb[at] : j == 1 ? c.ya[at] : i == m - 1 ? yb[1] : i == m - 2 ? yb[0] : 0.0;
        },
        [&](int64_t i, const double (&z)[3]) {
          if (i == m - 1) ends[1] = z[0], ends[3] = z[1], ends[5] = z[2];
          if (i == 0) ends[0] = z[0], ends[2] = z[1], ends[4] = z[2];
        });
    return true;
  }

  // 2. Separator j's row of the separators' system: its own row with the interiors on either
  // side substituted (the next chunk's ends must be there).
  __device__ void separator_row(const GtsvColumns &q, int j, double &sub, double &diag, double &sup,
                                double &rhs) const {
    const int64_t s = start + m + j;
    sub = 0.0, diag = q.d[s], sup = 0.0, rhs = q.b[s];
    if (j > 0) {  // the row before is a separator too
      sub = q.dl[s - 1];
    } else {  // the row before is this interior's last: g - alpha x_before - beta x_s
      const double a = q.dl[s - 1];
      rhs -= a * ends[1], sub -= a * ends[3], diag -= a * ends[5];
    }
    if (j + 1 < ns) {
      sup = q.du[s];
    } else if (s + 1 < q.n) {  // the next chunk's first interior row: its g - alpha x_s - beta x_after
      const double cs = q.du[s], *next = ends + 6;
      rhs -= cs * next[0], diag -= cs * next[2], sup -= cs * next[4];
    }
  }

  // 3. The interior from the separators' values (sep: the system's solution, k0: this chunk's
  // first separator there), and its separators' values, into q.x.
  __device__ void substitute(const GtsvColumns &q, const ChunkRows &c, const double *sep, int64_t k0) const {
    const double before = id > 0 ? sep[k0 - 1] : 0.0, after = ns > 0 ? sep[k0] : 0.0;
    double *x = q.x + start;
    const int64_t mm = m;
    const double yb0 = yb[0], yb1 = yb[1];
    chunk_backward<1>(
        c, mm,
        [&](int64_t i, int64_t at, int) {
          const double beta = i == mm - 1 ? yb1 : i == mm - 2 ? yb0 : 0.0;
          return c.yb[at] - before * c.ya[at] - after * beta;
        },
        [&](int64_t i, const double (&z)[1]) { x[i] = z[0]; });
    for (int j = 0; j < ns; ++j) x[mm + j] = sep[k0 + j];
  }
};

// 4. DGTT02's sums (|b - A x|, |x|, the largest column sum of |A|) over rows [start, end), then
// over the block: thread 0's are the block's (`sums`: 3 x 32 doubles of shared memory).
__device__ void pivot_residual_sums(const GtsvColumns &q, int64_t start, int64_t end, double (*sums)[32],
                                    double &rsum, double &xsum, double &amax) {
  const int64_t n = q.n;
  const double *x = q.x;
  rsum = 0.0, xsum = 0.0, amax = 0.0;
#pragma unroll 4
  for (int64_t r = start; r < end; ++r) {
    double ax = q.d[r] * x[r], col = fabs(q.d[r]);
    if (r > 0) ax += q.dl[r - 1] * x[r - 1], col += fabs(q.du[r - 1]);
    if (r + 1 < n) ax += q.du[r] * x[r + 1], col += fabs(q.dl[r]);
    rsum += fabs(q.b[r] - ax);
    xsum += fabs(x[r]);
    amax = nan_max(amax, col);
  }
  for (int o = 16; o > 0; o >>= 1) {
    rsum += __shfl_down_sync(0xffffffffu, rsum, o);
    xsum += __shfl_down_sync(0xffffffffu, xsum, o);
    amax = nan_max(amax, __shfl_down_sync(0xffffffffu, amax, o));
  }
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) sums[0][warp] = rsum, sums[1][warp] = xsum, sums[2][warp] = amax;
  __syncthreads();
  if (threadIdx.x == 0)
    for (int w = 1; w < static_cast<int>(blockDim.x / 32); ++w)
      rsum += sums[0][w], xsum += sums[1][w], amax = nan_max(amax, sums[2][w]);
}

// The column solved by the whole block (see above), x over q.x (which must not overlap q.b);
// scratch: pivot_block_scratch(n) doubles (or the 5 pivot_shape(n, blockDim.x).area a tile's
// solve gives it); sm: 8 P doubles of shared memory (pivot_block_smem(blockDim.x) bytes at
// most). Either may be shared memory. True if x passed the check.
__device__ __noinline__ bool pivot_block(const GtsvColumns &q, double *scratch, double *sm) {
  __shared__ int nsep, warp_sums[32];
  __shared__ double sums[3][32];
  const int64_t n = q.n;
  const int t = threadIdx.x;
  const PivotShape s = pivot_shape(n, blockDim.x);
  const int64_t L = s.L, area = s.area;
  const int P = static_cast<int>(s.P);  // threads t < P have a chunk
  const ChunkRows c{scratch, scratch + area, scratch + 2 * area, scratch + 3 * area, scratch + 4 * area, P, t};

  // 1. Each interior eliminated; its ends in shared memory.
  PivotChunk ch(t, L, P, n, sm);
  const bool ok = !ch.mine() || ch.eliminate(q, c);
  if (__syncthreads_or(!ok)) return false;

  // 2. The separators' system, solved by thread 0 in shared memory (over the ends, once read).
  const int k0 = block_exclusive_scan(ch.ns, warp_sums, &nsep);
  double rsub[2] = {0, 0}, rdiag[2] = {0, 0}, rsup[2] = {0, 0}, rrhs[2] = {0, 0};
  for (int j = 0; j < ch.ns; ++j) ch.separator_row(q, j, rsub[j], rdiag[j], rsup[j], rrhs[j]);
  __syncthreads();
  const int R = nsep;
  double *rdl = sm, *rd = sm + 2 * P, *rdu = sm + 4 * P, *rx = sm + 6 * P;
  for (int j = 0; j < ch.ns; ++j) {
    const int k = k0 + j;
    if (k > 0) rdl[k - 1] = rsub[j];
    rd[k] = rdiag[j], rdu[k] = rsup[j], rx[k] = rrhs[j];
  }
  __syncthreads();
  const bool singular =
      t == 0 && R > 0 &&
      dgtsv_steps(
          R, [=](int64_t i) -> double & { return rdl[i]; }, [=](int64_t i) -> double & { return rd[i]; },
          [=](int64_t i) -> double & { return rdu[i]; }, [=](int64_t i) -> double & { return rx[i]; }) != 0;
  if (__syncthreads_or(singular)) return false;

  // 3. Each interior from the separators around it; 4. the check.
  if (ch.mine()) ch.substitute(q, c, rx, k0);
  __syncthreads();
  double rsum, xsum, amax;
  pivot_residual_sums(q, ch.start, ch.end, sums, rsum, xsum, amax);
  return !__syncthreads_or(t == 0 && !accepted(rsum, xsum, amax));
}

// A lone column that failed its check, solved again by its block (finish_own, Lone) in the
// block's shared memory: the tile it was solved in is no longer needed, as A and B are intact in
// global memory until X is stored. pivot_block there with its chunks' rows, X and the
// separators' system in shared memory where they fit (5 L P + n + 8 P doubles), X stored if it
// passed the check; otherwise DGTSV's algorithm by thread 0 on shared copies of A and B (4 n
// doubles, which the tile held). Returns INFO (DGTSV's; 0 for an accepted pivoting solve).
__device__ __noinline__ int pivot_in_tile(const GtsvColumns &p, double *sm) {
  __shared__ int code;
  const int64_t n = p.n;
  const int t = threadIdx.x;
  unsigned room;
  asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(room));
  const PivotShape s = pivot_shape(n, blockDim.x);
  double *out = p.x;
  __syncthreads();  // every thread is done with the tile
  if (size_t(5 * s.area + n + 8 * s.P) * sizeof(double) <= room) {
    GtsvColumns c = p;
    c.x = sm + 5 * s.area;
    c.xs = n;
    if (pivot_block(c, sm, c.x + n)) {  // (it ends with a barrier)
      for (int64_t i = t; i < n; i += blockDim.x) out[i] = c.x[i];
      return 0;
    }
  }
  double *dl = sm, *d = dl + n, *du = d + n, *x = du + n;
  for (int64_t i = t; i < n; i += blockDim.x) {
    d[i] = p.d[i];
    x[i] = p.b[i];
    if (i + 1 < n) dl[i] = p.dl[i], du[i] = p.du[i];
  }
  __syncthreads();
  if (t == 0) code = dgtsv_one(n, dl, d, du, x);
  __syncthreads();
  for (int64_t i = t; i < n; i += blockDim.x) out[i] = x[i];
  return code;
}

// ---- the same across a cooperative grid ---------------------------------------------------------
// One block of a few hundred threads leaves most of the GPU idle and waits on memory at every
// row: 11.8 ms at N = 2^20 (H200). A cooperative grid takes the chunks instead (every thread a
// chunk of L rows), and block 0 solves the separators' system with pivot_block: L about
// sqrt(2 N / B) (B: block 0's threads) makes a chunk's sweeps and block 0's share of that system
// about equally long. The verdict must be the same in every block; the phases are separated by
// grid barriers, and every block passes every barrier (no block leaves before the last).

// Rows of a level-1 chunk for N rows (B threads a block, T in the grid).
__host__ __device__ inline int64_t grid_chunk_rows(int64_t n, int64_t B, int64_t T) {
  int64_t L = 16;
  while (L * L < 2 * n / B) L *= 2;
  return max(L, (n + T - 1) / T);
}

// Doubles of scratch pivot_grid needs for N rows (L >= 16: P <= N / 16 + 1 chunks): a few flags,
// the blocks' counts and sums, the chunks' ends (6 P), the separators' system (5 x 2P),
// pivot_block's scratch for it (12 P + 64) and the chunks' rows (5 L P < 5 (N + L)).
__host__ __device__ constexpr int64_t pivot_grid_scratch(int64_t n) { return 8 * n + 8192; }

// The column solved by the whole grid, x over q.x; true in block 0 if x passed the check (other
// blocks' value means nothing). sm: pivot_block_smem(blockDim.x) bytes of shared memory.
__device__ __noinline__ bool pivot_grid(const GtsvColumns &q, double *scratch, double *sm) {
  cooperative_groups::grid_group grid = cooperative_groups::this_grid();
  __shared__ int warp_sums[32], block_total;
  __shared__ int64_t block_offset;
  __shared__ double sums[3][32];
  const int64_t n = q.n, B = blockDim.x, G = gridDim.x, T = B * G;
  const int64_t g = int64_t(blockIdx.x) * B + threadIdx.x;
  const int64_t L = grid_chunk_rows(n, B, T), P = (n + L - 1) / L;
  // scratch: flags (failed, level 2's verdict), per block: separators, sums; ends; the separators'
  // system; pivot_block's scratch; the chunks' rows.
  int *failed = reinterpret_cast<int *>(scratch), *level2 = failed + 1;
  int *counts = reinterpret_cast<int *>(scratch + 1);
  double *partial = scratch + 1 + (G + 1) / 2 + 1;
  double *ends_all = partial + 3 * G;
  double *rdl = ends_all + 6 * P, *rd = rdl + 2 * P, *rdu = rd + 2 * P, *rb = rdu + 2 * P, *rx = rb + 2 * P;
  double *scratch2 = rx + 2 * P;
  double *rows = scratch2 + pivot_block_scratch(2 * P);
  const int64_t area = L * P;
  const ChunkRows c{rows, rows + area, rows + 2 * area, rows + 3 * area, rows + 4 * area, P, static_cast<int>(g)};
  if (g == 0) *failed = 0, *level2 = 0;
  grid.sync();

  // 1. Each interior eliminated; its ends in ends_all.
  PivotChunk ch(g, L, P, n, ends_all);
  if (ch.mine() && !ch.eliminate(q, c)) atomicOr(failed, 1);
  const int k_in_block = block_exclusive_scan(ch.ns, warp_sums, &block_total);
  if (threadIdx.x == 0) counts[blockIdx.x] = block_total;
  grid.sync();
  if (*reinterpret_cast<volatile int *>(failed)) return false;

  // 2. The separators' system in scratch (this block's separators after the blocks' before it).
  if (threadIdx.x == 0) {
    int64_t off = 0;
    for (int b = 0; b < static_cast<int>(blockIdx.x); ++b) off += counts[b];
    block_offset = off;
  }
  __syncthreads();
  const int64_t k0 = block_offset + k_in_block;
  for (int j = 0; j < ch.ns; ++j) {
    const int64_t k = k0 + j;
    double sub, diag, sup, rhs;
    ch.separator_row(q, j, sub, diag, sup, rhs);
    if (k > 0) rdl[k - 1] = sub;
    rd[k] = diag, rdu[k] = sup, rb[k] = rhs;
  }
  grid.sync();

  // 3. The separators' system, by block 0.
  if (blockIdx.x == 0) {
    int64_t R = 0;
    for (int b = 0; b < static_cast<int>(G); ++b) R += counts[b];
    bool ok = true;
    if (R > 0) {
      GtsvColumns r;
      r.n = R, r.ncol = 1, r.dl = rdl, r.d = rd, r.du = rdu, r.b = rb, r.bs = R, r.x = rx, r.xs = R;
      ok = pivot_block(r, scratch2, sm);
    }
    if (threadIdx.x == 0 && !ok) *level2 = 1;
  }
  grid.sync();
  if (*reinterpret_cast<volatile int *>(level2)) return false;

  // 4. Each interior from the separators around it.
  if (ch.mine()) ch.substitute(q, c, rx, k0);
  grid.sync();

  // 5. The check: DGTT02's sums per block, then over the blocks by block 0.
  double rsum, xsum, amax;
  pivot_residual_sums(q, ch.start, ch.end, sums, rsum, xsum, amax);
  if (threadIdx.x == 0)
    partial[3 * blockIdx.x] = rsum, partial[3 * blockIdx.x + 1] = xsum, partial[3 * blockIdx.x + 2] = amax;
  grid.sync();
  bool rejected = false;
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    rsum = 0.0, xsum = 0.0, amax = 0.0;
    for (int b = 0; b < static_cast<int>(G); ++b)
      rsum += partial[3 * b], xsum += partial[3 * b + 1], amax = nan_max(amax, partial[3 * b + 2]);
    rejected = !accepted(rsum, xsum, amax);
  }
  return !__syncthreads_or(rejected);
}

// The fused solve's last step: judge's verdict for the column (gtsv_enqueue), or the
// device-pointer call's verdict, re-solve (from `again`, in `scratch`) and INFO (gtsv_in_place).
struct Verdict {
  Judged *verdict = nullptr;
  int64_t *list = nullptr;
  int *info = nullptr;
  GtsvColumns again;
  double *scratch = nullptr;
};

// Where the pivoting solve failed: DGTSV's algorithm by one thread on a copy the block makes of
// the column (its matrix into scratch, B from the saved copy), INFO DGTSV's.
__device__ void dgtsv_fallback(const Verdict &out) {
  const GtsvColumns &q = out.again;
  const int64_t n = q.n;
  double *dl = out.scratch, *d = dl + n, *du = d + n;
  for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
    d[i] = q.d[i];
    q.x[i] = q.b[i];
    if (i + 1 < n) dl[i] = q.dl[i], du[i] = q.du[i];
  }
  __syncthreads();
  if (threadIdx.x == 0) *out.info = dgtsv_one(n, dl, d, du, q.x);
}

// Whether column 0's result is accepted, its Check copies summed by the whole block in a fixed
// order (each thread a stride of them, then the warps in turn), so that every block of a grid
// takes the same verdict for itself, without writing them and without a grid barrier.
__device__ bool column_ok_block(const Check *chk, int64_t copies) {
  __shared__ double part[2][32];
  __shared__ unsigned long long part_anorm[32];
  double rsum = 0.0, xsum = 0.0;
  unsigned long long anorm = 0;
  for (int64_t k = threadIdx.x; k < copies; k += blockDim.x)
    rsum += chk[k].rsum, xsum += chk[k].xsum, anorm = max(anorm, chk[k].anorm_bits);
  for (int o = 16; o > 0; o >>= 1) {
    rsum += __shfl_down_sync(0xffffffffu, rsum, o);
    xsum += __shfl_down_sync(0xffffffffu, xsum, o);
    anorm = max(anorm, __shfl_down_sync(0xffffffffu, anorm, o));
  }
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) part[0][warp] = rsum, part[1][warp] = xsum, part_anorm[warp] = anorm;
  __syncthreads();
  bool rejected = false;
  if (threadIdx.x == 0) {
    for (int w = 1; w < static_cast<int>(blockDim.x / 32); ++w)
      rsum += part[0][w], xsum += part[1][w], anorm = max(anorm, part_anorm[w]);
    rejected = !accepted(rsum, xsum, __longlong_as_double(static_cast<long long>(anorm)));
  }
  return !__syncthreads_or(rejected);
}

// The last step for one column, by a whole block once its Check copies are complete: the failed
// column listed for the host (gtsv_enqueue), or the device-pointer call's verdict, re-solve and
// INFO: the block's pivoting solve (pivot_block; sm: pivot_block_smem(blockDim.x) bytes of
// shared memory), and where that fails DGTSV's algorithm by one thread.
__device__ void give_verdict(const Verdict &out, Check *chk, int64_t copies, double *sm) {
  if (!out.info) {
    if (threadIdx.x == 0 && !column_accepted(chk, copies, 0)) out.list[out.verdict->count++] = 0;
    return;
  }
  if (column_ok_block(chk, copies) || pivot_block(out.again, out.scratch, sm)) {
    if (threadIdx.x == 0) *out.info = 0;
    return;
  }
  dgtsv_fallback(out);
}

// The same by every block of a cooperative grid, each taking the verdict for itself: the grid's
// pivoting solve (pivot_grid), then DGTSV's algorithm by block 0.
__device__ void give_verdict_grid(const Verdict &out, Check *chk, int64_t copies, double *sm) {
  const bool solved = column_ok_block(chk, copies) || pivot_grid(out.again, out.scratch, sm);
  if (blockIdx.x != 0) return;
  if (solved) {
    if (threadIdx.x == 0) *out.info = 0;
    return;
  }
  dgtsv_fallback(out);
}

// (At least 4 blocks an SM: 128 registers a thread, as before pivot_block joined it; that rarely
// taken call spills a little instead.)
__global__ void __launch_bounds__(kBigT *kBigG, 4)
    fused_column(GtsvColumns p, int64_t tiles, GtsvColumns red, Check *chk, int64_t copies, Verdict out) {
  extern __shared__ __align__(16) unsigned char smem[];
  cooperative_groups::grid_group grid = cooperative_groups::this_grid();
  const int t = threadIdx.x % kBigT, grp = threadIdx.x / kBigT;
  auto &sh = reinterpret_cast<Shared<kBigT, kBigM> *>(smem)[grp];
  const int64_t item = static_cast<int64_t>(blockIdx.x) * kBigG + grp;
  if (item < tiles) pass_tile<kBigT, kBigM, false>(sh, p, tiles, red, chk, copies, t, item);
  grid.sync();
  if (blockIdx.x == 0) {  // the block's shared memory taken again as one tile of 128 x kBigM rows
    constexpr int R = kBigT * kBigG;
    auto &whole = *reinterpret_cast<Shared<R, kBigM> *>(smem);
    const Place q = place(red, 1, R * kBigM, 0);
    Chunk<kBigM> ck;
    solve_tile(whole, red, q, static_cast<int>(threadIdx.x), ck);
    finish_tile(whole, red, q, static_cast<int>(threadIdx.x), ck, 0.0, 0.0, nullptr, false);
  }
  grid.sync();
  if (item < tiles) pass_tile<kBigT, kBigM, true>(sh, p, tiles, red, chk, copies, t, item);
  grid.sync();
  if (out.info)
    give_verdict_grid(out, chk, copies, reinterpret_cast<double *>(smem));
  else if (blockIdx.x == 0)
    give_verdict(out, chk, copies, reinterpret_cast<double *>(smem));
}
static_assert(sizeof(Shared<kBigT * kBigG, kBigM>) >= pivot_block_smem(kBigT * kBigG),
              "block 0 of fused_column holds pivot_block's shared arrays");

size_t fused_smem() {
  return std::max(sizeof(Shared<kBigT, kBigM>) * kBigG, sizeof(Shared<kBigT * kBigG, kBigM>));
}

// The blocks of fused_column that can be resident at once on the device (0: no cooperative
// launch), measured once.
int64_t fused_capacity() {
  static const int64_t capacity =
      cooperative_capacity(reinterpret_cast<const void *>(fused_column), kBigT * kBigG, fused_smem());
  return capacity;
}

// ---- launch plumbing --------------------------------------------------------------------------

template <int T, int M, int G, bool Own>
void launch_solve(cudaStream_t st, const GtsvColumns &p, Check *chk, int *info) {
  const size_t bytes = sizeof(Shared<T, M>) * G;
  set_smem<solve_tiles<T, M, G, Own>>(bytes);
  solve_tiles<T, M, G, Own>
      <<<static_cast<unsigned>((p.ncol + G - 1) / G), T * G, bytes, st>>>(p, chk, info);
}

// One tile per column: the smallest tile that holds n rows. With `info`: in place, each group
// judging and re-solving its own column (finish_own).
template <bool Own = false>
void launch_single(cudaStream_t st, const GtsvColumns &p, Check *chk, int *info = nullptr) {
  if (p.n <= 64) return launch_solve<32, 2, 4, Own>(st, p, chk, info);
  if (p.n <= 128) return launch_solve<32, 4, 4, Own>(st, p, chk, info);
  if (p.n <= 256) return launch_solve<32, 8, 4, Own>(st, p, chk, info);
  if (p.n <= 512) return launch_solve<64, 8, 1, Own>(st, p, chk, info);
  if (p.n <= 1024) return launch_solve<128, 8, 1, Own>(st, p, chk, info);
  if (p.n <= kMaxSingle) return launch_solve<256, 8, 1, Own>(st, p, chk, info);
  return launch_solve<512, 8, 1, Own>(st, p, chk, info);  // a lone system, n <= kMaxOne
}

// A lone column of up to kMaxOne rows, in place: a block of its own, with shared memory for the
// tile and for pivot_in_tile's re-solve of the largest column that tile takes (199 KiB for 4096
// rows and 512 threads).
template <int T, int M>
void launch_lone_tile(cudaStream_t st, const GtsvColumns &p, int *info) {
  static const size_t bytes = [] {
    int64_t most = 0;
    for (int64_t n = 1; n <= T * M; ++n) {
      const PivotShape s = pivot_shape(n, T);
      most = std::max(most, 5 * s.area + n + 8 * s.P);
    }
    return std::max(sizeof(Shared<T, M>), size_t(most) * sizeof(double));
  }();
  set_smem<solve_tiles<T, M, 1, true, true>>(bytes);
  solve_tiles<T, M, 1, true, true><<<1, T, bytes, st>>>(p, nullptr, info);
}

void launch_lone(cudaStream_t st, const GtsvColumns &p, int *info) {
  if (p.n <= 64) return launch_lone_tile<32, 2>(st, p, info);
  if (p.n <= 128) return launch_lone_tile<32, 4>(st, p, info);
  if (p.n <= 256) return launch_lone_tile<32, 8>(st, p, info);
  if (p.n <= 512) return launch_lone_tile<64, 8>(st, p, info);
  if (p.n <= 1024) return launch_lone_tile<128, 8>(st, p, info);
  if (p.n <= kMaxSingle) return launch_lone_tile<256, 8>(st, p, info);
  return launch_lone_tile<512, 8>(st, p, info);
}

// The sizes of the reduced systems, top level first (empty when n fits one tile).
std::vector<int64_t> reduced_sizes(int64_t n, int64_t ncol) {
  std::vector<int64_t> out;
  while (n > single_limit(ncol)) {
    n = 2 * tiles_of(n, ncol);
    out.push_back(n);
  }
  return out;
}

// Layout of the check area: Check[ncol * slots_of(n, ncol)], Judged, int64_t list[ncol].
size_t checks_bytes(int64_t n, int64_t ncol) {
  return ncol * slots_of(n, ncol) * sizeof(Check) + sizeof(Judged) + ncol * sizeof(int64_t);
}

// The workspace of a solve: the check area, then each reduced system's matrix, right-hand
// sides and solutions, level by level (the size query and the solve both use this).
struct Level {
  size_t mat, rhs, x;
};
struct Layout {
  size_t checks;
  std::vector<Level> levels;
  size_t bytes;
};

Layout layout(int64_t n, int64_t ncol, bool shared) {
  WorkspacePlan plan;
  Layout l;
  l.checks = plan.add(checks_bytes(n, ncol));
  for (int64_t m : reduced_sizes(n, ncol)) {
    Level v;
    v.mat = plan.add_array<double>(3 * m * (shared ? 1 : ncol));
    v.rhs = plan.add_array<double>(m * ncol);
    v.x = plan.add_array<double>(m * ncol);
    l.levels.push_back(v);
  }
  l.bytes = plan.bytes();
  return l;
}

void solve_level(cudaStream_t st, const GtsvColumns &p, char *work, const Layout &l, size_t level,
                 Check *chk, const Verdict *out = nullptr, bool *judged = nullptr);

// Pass 1 for every tile of every column, then the reduced system, then pass 2.
template <int T, int M, int G>
void launch_tiled(cudaStream_t st, const GtsvColumns &p, const GtsvColumns &red, int64_t tiles,
                  char *work, const Layout &l, size_t level, Check *chk) {
  const size_t bytes = sizeof(Shared<T, M>) * G;
  set_smem<tile_pass<T, M, G, false>>(bytes);
  set_smem<tile_pass<T, M, G, true>>(bytes);
  const unsigned grid = static_cast<unsigned>((p.ncol * tiles + G - 1) / G);
  tile_pass<T, M, G, false><<<grid, T * G, bytes, st>>>(p, tiles, red, chk, slots_of(p.n, p.ncol));
  solve_level(st, red, work, l, level + 1, nullptr);
  tile_pass<T, M, G, true><<<grid, T * G, bytes, st>>>(p, tiles, red, chk, slots_of(p.n, p.ncol));
}

// Solves p (all columns) with the reduced system of `level` (and those below it) in `work`;
// `chk` only at the top. There, given `out`, a lone column of up to kFusedTiles tiles is solved
// by fused_column, which also gives the verdict (*judged set).
void solve_level(cudaStream_t st, const GtsvColumns &p, char *work, const Layout &l, size_t level,
                 Check *chk, const Verdict *out, bool *judged) {
  if (p.n <= single_limit(p.ncol)) return launch_single(st, p, chk);
  int64_t tiles = tiles_of(p.n, p.ncol), m = 2 * tiles;
  const bool shared = p.ms == 0;
  const Level &v = l.levels[level];
  double *mat = part<double>(work, v.mat);
  const int64_t mcols = shared ? 1 : p.ncol;
  const GtsvColumns red = packed_columns(m, p.ncol, mat, mat + m * mcols, mat + 2 * m * mcols,
                                         shared ? 0 : m, part<double>(work, v.rhs),
                                         part<double>(work, v.x));
  const int64_t blocks = (tiles + kBigG - 1) / kBigG;
  if (out && chk && p.ncol == 1 && tiles <= kFusedTiles && blocks <= fused_capacity()) {
    GtsvColumns pp = p, rr = red;
    Check *cc = chk;
    int64_t copies = slots_of(p.n, p.ncol);
    Verdict vv = *out;
    void *args[] = {&pp, &tiles, &rr, &cc, &copies, &vv};
    const cudaError_t e = cudaLaunchCooperativeKernel(reinterpret_cast<void *>(fused_column),
                                                      dim3(static_cast<unsigned>(blocks)), dim3(kBigT * kBigG), args,
                                                      fused_smem(), st);
    // Refused for lack of room (another context's blocks, MPS): the four launches instead.
    if (e != cudaErrorCooperativeLaunchTooLarge && e != cudaErrorNotSupported) {
      *judged = true;
      return;
    }
    cudaGetLastError();
  }
  launch_tiled<kBigT, kBigM, kBigG>(st, p, red, tiles, work, l, level, chk);
}

}  // namespace

// The workspace begins with the columns' Check copies (layout's first part), then the verdict,
// then the verdict's list of failed columns.
Judged *verdict_of(const GtsvColumns &p, void *work) {
  return reinterpret_cast<Judged *>(static_cast<Check *>(work) + p.ncol * slots_of(p.n, p.ncol));
}
int64_t *failed_list(Judged *verdict) { return reinterpret_cast<int64_t *>(verdict + 1); }

size_t gtsv_workspace_bytes(int64_t n, int64_t ncol, bool shared_matrix) {
  return layout(n, ncol, shared_matrix).bytes;
}

namespace {

// gtsv_enqueue's solve and residual sums; the verdict too where fused_column takes the column
// (`out`, *judged set). The first kernel clears the check area (solve_tiles, tile_pass' pass 1).
Status enqueue_solve(cudaStream_t st, const GtsvColumns &p, void *work, const Verdict *out, bool *judged) {
  char *w = static_cast<char *>(work);
  const Layout l = layout(p.n, p.ncol, p.ms == 0);
  *judged = false;
  solve_level(st, p, w, l, 0, part<Check>(w, l.checks), out, judged);
  return check_launch("gtsv kernels");
}

}  // namespace

Status gtsv_enqueue(cudaStream_t st, const GtsvColumns &p, void *work) {
  Judged *verdict = verdict_of(p, work);
  Verdict out;
  out.verdict = verdict;
  out.list = failed_list(verdict);
  bool judged = false;
  Status s = enqueue_solve(st, p, work, &out, &judged);
  if (!s || judged) return s;
  judge<<<static_cast<unsigned>((p.ncol + 255) / 256), 256, 0, st>>>(p.ncol, slots_of(p.n, p.ncol), static_cast<Check *>(work),
                                                                     verdict, failed_list(verdict));
  return check_launch("gtsv judge");
}

Status gtsv_failed(cudaStream_t st, const GtsvColumns &p, void *work,
                   std::vector<int64_t> *failed) {
  Judged *verdict = verdict_of(p, work);
  const int64_t *list = failed_list(verdict);
  Judged v{};
  Status s = check(cudaMemcpyAsync(&v, verdict, sizeof v, cudaMemcpyDeviceToHost, st),
                   "cudaMemcpyAsync");
  if (s) s = check(cudaStreamSynchronize(st), "gtsv solve");
  if (!s) return s;
  failed->assign(v.count, 0);
  if (v.count > 0) {
    s = check(cudaMemcpyAsync(failed->data(), list, v.count * sizeof(int64_t),
                              cudaMemcpyDeviceToHost, st),
              "cudaMemcpyAsync");
    if (s) s = check(cudaStreamSynchronize(st), "gtsv verdict");
    if (!s) return s;
    std::sort(failed->begin(), failed->end());
  }
  return Status::success();
}

double gtsv_ratio(cudaStream_t st, const GtsvColumns &p, void *work, int64_t col) {
  Check c{};
  // The judge summed the column's copies into its first.
  if (cudaMemcpyAsync(&c, static_cast<const Check *>(work) + col * slots_of(p.n, p.ncol), sizeof c,
                      cudaMemcpyDeviceToHost, st) != cudaSuccess ||
      cudaStreamSynchronize(st) != cudaSuccess)
    return NAN;
  double anorm;
  std::memcpy(&anorm, &c.anorm_bits, sizeof anorm);
  return c.rsum / anorm / c.xsum / kUnitRoundoff;
}

// ---- the pivoting re-solve --------------------------------------------------------------------

namespace {

// Column c solved again by dgtsv_one: its matrix copied into `slot` (3n doubles), x_c from b_c.
__device__ int resolve_column(const GtsvColumns &p, int64_t c, double *slot) {
  const int64_t n = p.n;
  double *dl = slot, *d = dl + n, *du = d + n;
  const double *sdl = p.dl + c * p.ms, *sd = p.d + c * p.ms, *sdu = p.du + c * p.ms;
  const double *b = p.b + c * p.bs;
  double *x = p.x + c * p.xs;
  for (int64_t i = 0; i < n; ++i) {
    d[i] = sd[i];
    x[i] = b[i];
    if (i + 1 < n) {
      dl[i] = sdl[i];
      du[i] = sdu[i];
    }
  }
  return dgtsv_one(n, dl, d, du, x);
}

__global__ void pivot_columns(GtsvColumns p, const int64_t *list, int64_t count, double *scratch,
                              int *info) {
  const int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k >= count) return;
  info[k] = resolve_column(p, list[k], scratch + k * 3 * p.n);
}

// *info from the re-solve's codes (the least (ms != 0 ? c*n : 0) + INFO, inverted in
// verdict->inv_code), by the last block to finish (threadFenceReduction's pattern: every block's
// codes are visible to it). Every thread of every block calls it.
__device__ void finish_resolve(Judged *verdict, int *info) {
  __shared__ bool last;
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    last = atomicAdd(&verdict->done_blocks, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (last && threadIdx.x == 0) {
    const unsigned long long inv = atomicAdd(&verdict->inv_code, 0ull);
    const unsigned long long code = ~inv;
    *info = inv == 0 ? 0 : code > static_cast<unsigned long long>(INT_MAX) ? INT_MAX : static_cast<int>(code);
  }
}

// The device-side re-solve (gtsv_resolve_on_device): thread t of `slots` takes the columns
// t, t + slots, .. of its work list, which is the verdict's list of failed columns, or every
// column (`every`: always; with a shared matrix: once any column failed). The least
// (ms != 0 ? c*n : 0) + INFO over the columns DGTSV finds singular is kept (inverted, so that the
// zeroed verdict means none), and the last block to finish writes *info from it.
__global__ void resolve_on_device(GtsvColumns p, Judged *verdict, const int64_t *list, int every,
                                  double *scratch, int64_t slots, int *info) {
  const int64_t t = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int failed = verdict->count;
  const bool all = every || (p.ms == 0 && failed > 0);
  const int64_t count = all ? p.ncol : failed;
  for (int64_t k = t; t < slots && k < count; k += slots) {
    const int64_t c = all ? k : list[k];
    const int i = resolve_column(p, c, scratch + t * 3 * p.n);
    if (i > 0) atomicMax(&verdict->inv_code, ~static_cast<unsigned long long>((p.ms != 0 ? c * p.n : 0) + i));
  }
  finish_resolve(verdict, info);
}

// The same with a block a column (gtsv_in_place, columns longer than a tile): block k of `slots`
// (the grid) takes the columns k, k + slots, .. of the work list, each solved again first in
// parallel with pivoting inside chunks (pivot_block, scratch: pivot_block_scratch(n) doubles a
// block), by DGTSV's algorithm (its thread 0) where that fails; one GPU thread a column took
// 55 ms at 65536 rows and a second at 2^20 (H200), which every one of a few columns waits out.
__global__ void __launch_bounds__(kPivotThreads)
    resolve_by_blocks(GtsvColumns p, Judged *verdict, const int64_t *list, double *scratch, int *info) {
  __shared__ double sm[pivot_block_smem(kPivotThreads) / sizeof(double)];
  __shared__ int code;
  const int failed = verdict->count;
  const bool all = p.ms == 0 && failed > 0;
  const int64_t count = all ? p.ncol : failed, n = p.n;
  double *mine = scratch + blockIdx.x * pivot_block_scratch(n);
  for (int64_t k = blockIdx.x; k < count; k += gridDim.x) {
    const int64_t c = all ? k : list[k];
    GtsvColumns q = p;
    q.ncol = 1, q.dl += c * p.ms, q.d += c * p.ms, q.du += c * p.ms, q.b += c * p.bs, q.x += c * p.xs;
    if (pivot_block(q, mine, sm)) continue;  // (the block's verdict, after a barrier)
    double *dl = mine, *d = dl + n, *du = d + n;
    for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
      d[i] = q.d[i];
      q.x[i] = q.b[i];
      if (i + 1 < n) dl[i] = q.dl[i], du[i] = q.du[i];
    }
    __syncthreads();
    if (threadIdx.x == 0) code = dgtsv_one(n, dl, d, du, q.x);
    __syncthreads();  // (the scratch is the next column's)
    if (threadIdx.x == 0 && code > 0)
      atomicMax(&verdict->inv_code, ~static_cast<unsigned long long>((p.ms != 0 ? c * n : 0) + code));
  }
  finish_resolve(verdict, info);
}

// Columns too long for a block to re-solve quickly (past kFusedTiles tiles: a block a column took
// 12 ms at 2^20 rows, H200) solved again one after another by the whole cooperative grid: each by
// pivot_grid, then by DGTSV's algorithm (block 0's thread 0) where that fails. Every block goes
// through every column (pivot_grid's barriers); block 0 keeps the least code and writes *info.
__global__ void __launch_bounds__(kPivotThreads)
    resolve_grid_columns(GtsvColumns p, Judged *verdict, const int64_t *list, double *scratch, int *info) {
  __shared__ double sm[pivot_block_smem(kPivotThreads) / sizeof(double)];
  const int failed = verdict->count;
  const bool all = p.ms == 0 && failed > 0;
  const int64_t count = all ? p.ncol : failed;
  unsigned long long least = ~0ull;
  for (int64_t k = 0; k < count; ++k) {
    const int64_t c = all ? k : list[k];
    GtsvColumns q = p;
    q.ncol = 1, q.dl += c * p.ms, q.d += c * p.ms, q.du += c * p.ms, q.b += c * p.bs, q.x += c * p.xs;
    const bool solved = pivot_grid(q, scratch, sm);
    if (blockIdx.x != 0 || solved) continue;
    Verdict v;
    v.again = q;
    v.scratch = scratch;
    v.info = info;  // (DGTSV's INFO for this column, replaced below)
    dgtsv_fallback(v);
    __syncthreads();
    if (threadIdx.x == 0 && *info > 0)
      least = min(least, static_cast<unsigned long long>((p.ms != 0 ? c * p.n : 0) + *info));
  }
  if (blockIdx.x == 0 && threadIdx.x == 0)
    *info = least == ~0ull ? 0 : least > static_cast<unsigned long long>(INT_MAX) ? INT_MAX : static_cast<int>(least);
}

// fused_column's last step on its own (a column fused_column did not take). One block, where a
// cooperative launch is not to be had.
__global__ void __launch_bounds__(kPivotThreads) judge_resolve_one(Verdict out, int64_t copies, Check *chk) {
  __shared__ double sm[pivot_block_smem(kPivotThreads) / sizeof(double)];
  give_verdict(out, chk, copies, sm);
}

// The same by a cooperative grid.
__global__ void __launch_bounds__(kPivotThreads) judge_resolve_grid(Verdict out, int64_t copies, Check *chk) {
  __shared__ double sm[pivot_block_smem(kPivotThreads) / sizeof(double)];
  give_verdict_grid(out, chk, copies, sm);
}

// The host calls' re-solve of a lone column (gtsv_pivot_lone): the pivoting solve alone, by a
// cooperative grid or by one block. Where it fails, DGTSV on the host takes the column: there it
// is faster than DGTSV's algorithm on one GPU thread.
__global__ void __launch_bounds__(kPivotThreads) pivot_lone_grid(GtsvColumns q, double *scratch, int *accepted) {
  __shared__ double sm[pivot_block_smem(kPivotThreads) / sizeof(double)];
  const bool ok = pivot_grid(q, scratch, sm);
  if (blockIdx.x == 0 && threadIdx.x == 0) *accepted = ok;
}
__global__ void __launch_bounds__(kPivotThreads) pivot_lone_block(GtsvColumns q, double *scratch, int *accepted) {
  __shared__ double sm[pivot_block_smem(kPivotThreads) / sizeof(double)];
  const bool ok = pivot_block(q, scratch, sm);
  if (threadIdx.x == 0) *accepted = ok;
}

// Blocks of a cooperative pivot_grid kernel (kPivotThreads a block) for a column of n rows: as
// many as its chunks need, at most what can be resident at once (0: no cooperative launch).
template <auto Kernel>
int64_t pivot_grid_blocks(int64_t n) {
  static const int64_t capacity = cooperative_capacity(reinterpret_cast<const void *>(Kernel), kPivotThreads, 0);
  const int64_t L = grid_chunk_rows(n, kPivotThreads, INT64_MAX / 2), P = (n + L - 1) / L;
  return capacity == 0 ? 0 : std::min(capacity, (P + kPivotThreads - 1) / kPivotThreads);
}

}  // namespace

namespace {

struct PivotLayout {
  size_t work, list, info, bytes;
};

PivotLayout pivot_layout(int64_t n, size_t count) {
  WorkspacePlan plan;
  PivotLayout l;
  l.work = plan.add_array<double>(count * 3 * n);
  l.list = plan.add_array<int64_t>(count);
  l.info = plan.add_array<int>(count);
  l.bytes = plan.bytes();
  return l;
}

}  // namespace

size_t gtsv_pivot_scratch_bytes(int64_t n, size_t count) { return pivot_layout(n, count).bytes; }

Status gtsv_pivot(cudaStream_t st, const GtsvColumns &p, const std::vector<int64_t> &failed,
                  void *scratch, std::vector<int> *info) {
  const int64_t count = static_cast<int64_t>(failed.size());
  info->assign(count, 0);
  if (count == 0) return Status::success();
  const PivotLayout l = pivot_layout(p.n, failed.size());
  double *work = part<double>(scratch, l.work);
  int64_t *list = part<int64_t>(scratch, l.list);
  int *dinfo = part<int>(scratch, l.info);
  Status s = check(cudaMemcpyAsync(list, failed.data(), count * sizeof(int64_t),
                                   cudaMemcpyHostToDevice, st),
                   "cudaMemcpyAsync");
  if (!s) return s;
  pivot_columns<<<static_cast<unsigned>((count + 127) / 128), 128, 0, st>>>(p, list, count, work,
                                                                            dinfo);
  if (!(s = check_launch("pivot_columns"))) return s;
  s = check(cudaMemcpyAsync(info->data(), dinfo, count * sizeof(int), cudaMemcpyDeviceToHost, st),
            "cudaMemcpyAsync");
  if (s) s = check(cudaStreamSynchronize(st), "pivot_columns");
  return s;
}

size_t gtsv_pivot_lone_bytes(int64_t n) { return size_t(pivot_grid_scratch(n)) * sizeof(double) + sizeof(int); }

Status gtsv_pivot_lone(cudaStream_t st, const GtsvColumns &p, void *scratch, bool *accepted) {
  *accepted = false;
  double *work = static_cast<double *>(scratch);
  int *flag = reinterpret_cast<int *>(work + pivot_grid_scratch(p.n));
  GtsvColumns q = p;
  cudaError_t e = cudaErrorNotSupported;
  if (int64_t blocks = pivot_grid_blocks<pivot_lone_grid>(p.n); blocks > 0) {
    void *params[] = {&q, &work, &flag};
    e = cudaLaunchCooperativeKernel(reinterpret_cast<void *>(pivot_lone_grid), dim3(static_cast<unsigned>(blocks)),
                                    dim3(kPivotThreads), params, 0, st);
  }
  // No cooperative launch, or refused for lack of room (another context's blocks, MPS): one block.
  if (e == cudaErrorCooperativeLaunchTooLarge || e == cudaErrorNotSupported) {
    cudaGetLastError();
    pivot_lone_block<<<1, kPivotThreads, 0, st>>>(q, work, flag);
    e = cudaGetLastError();
  }
  if (e != cudaSuccess) cudaGetLastError();  // (reported here, not by a later launch's check)
  Status s = check_launch(e, "gtsv pivot_lone");
  int ok = 0;
  if (s) s = check(cudaMemcpyAsync(&ok, flag, sizeof ok, cudaMemcpyDeviceToHost, st), "cudaMemcpyAsync");
  if (s) s = check(cudaStreamSynchronize(st), "gtsv pivot_lone");
  *accepted = s && ok != 0;
  return s;
}

size_t gtsv_resolve_scratch_bytes(int64_t n, int64_t slots) { return size_t(slots) * 3 * n * sizeof(double); }

Status gtsv_clear_verdict(cudaStream_t st, const GtsvColumns &p, void *work) {
  return check(cudaMemsetAsync(work, 0, p.ncol * slots_of(p.n, p.ncol) * sizeof(Check) + sizeof(Judged), st),
               "cudaMemsetAsync");
}

Status gtsv_resolve_on_device(cudaStream_t st, const GtsvColumns &p, void *work, bool every, double *scratch,
                              int64_t slots, int *info) {
  Judged *verdict = verdict_of(p, work);
  resolve_on_device<<<static_cast<unsigned>((slots + 127) / 128), 128, 0, st>>>(p, verdict, failed_list(verdict), every ? 1 : 0,
                                                                               scratch, slots, info);
  return check_launch("gtsv resolve_on_device");
}

// ---- in place, for the device-pointer calls --------------------------------------------------

namespace {

// Columns longer than a tile are re-solved a block a column (resolve_by_blocks), shorter ones a
// thread a column (resolve_on_device: for thousands of short columns the threads' parallelism
// matters more than each column's).
bool resolve_by_block(int64_t n) { return n > kMaxSingle; }
// Past fused_column's reach, by the whole grid a column at a time (resolve_grid_columns).
bool resolve_by_grid(int64_t n) { return n > kFusedTiles * kBig; }

// Columns the re-solve takes at once: all of them up to tuning::kGtsvResolveBytes of scratch
// (3 n doubles a thread's column, pivot_block_scratch(n) a block's), at most 1024 blocks.
int64_t resolve_slots(int64_t n, int64_t ncol) {
  const size_t per = resolve_by_block(n) ? size_t(pivot_block_scratch(n)) : size_t(3 * n);
  const int64_t fit = static_cast<int64_t>(tuning::kGtsvResolveBytes / (sizeof(double) * per));
  return std::max<int64_t>(1, std::min({ncol, fit, resolve_by_block(n) ? int64_t(1024) : ncol}));
}

// One tile a column and a matrix of its own (or one column): the groups decide alone.
bool own_tiles(int64_t n, int64_t ncol, int64_t ms) { return n <= single_limit(ncol) && (ms != 0 || ncol == 1); }

// Otherwise: gtsv_enqueue's workspace, B's saved copy (n x ncol) and the re-solve's scratch.
struct InPlaceLayout {
  size_t work, keep, scratch, bytes;
  int64_t slots;
};

InPlaceLayout in_place_layout(int64_t n, int64_t ncol, int64_t ms) {
  WorkspacePlan plan;
  InPlaceLayout l;
  l.slots = resolve_slots(n, ncol);
  l.work = plan.add(gtsv_workspace_bytes(n, ncol, ms == 0));
  l.keep = plan.add_array<double>(n * ncol);
  // (a lone column: pivot_grid's scratch, or pivot_block's, which is less)
  const size_t slot_bytes = (resolve_by_block(n) ? size_t(pivot_block_scratch(n)) : size_t(3 * n)) * sizeof(double);
  l.scratch = plan.add(std::max(size_t(l.slots) * slot_bytes, ncol == 1 || resolve_by_grid(n)
                                                                   ? size_t(pivot_grid_scratch(n)) * sizeof(double)
                                                                   : 0));
  l.bytes = plan.bytes();
  return l;
}

}  // namespace

size_t gtsv_in_place_bytes(int64_t n, int64_t ncol, int64_t ms) {
  return own_tiles(n, ncol, ms) ? 0 : in_place_layout(n, ncol, ms).bytes;
}

Status gtsv_in_place(cudaStream_t st, const GtsvColumns &p, void *work, int *info) {
  if (own_tiles(p.n, p.ncol, p.ms)) {
    // One column writes *info itself; several take the least code over a zeroed *info.
    if (p.ncol == 1) {
      launch_lone(st, p, info);
      return check_launch("gtsv in place");
    }
    Status s = check(cudaMemsetAsync(info, 0, sizeof(int), st), "cudaMemsetAsync");
    if (!s) return s;
    launch_single<true>(st, p, nullptr, info);
    return check_launch("gtsv in place");
  }
  const InPlaceLayout l = in_place_layout(p.n, p.ncol, p.ms);
  char *w = static_cast<char *>(work);
  GtsvColumns solve = p;
  solve.keep = part<double>(w, l.keep);
  // The re-solve reads B from the saved copy and writes X over B.
  GtsvColumns again = p;
  again.b = solve.keep;
  again.bs = p.n;
  double *scratch = part<double>(w, l.scratch);
  Verdict out;  // one column: its verdict, re-solve and INFO (fused_column or judge_resolve_one)
  out.info = info;
  out.again = again;
  out.scratch = scratch;
  bool judged = false;
  Status s = enqueue_solve(st, solve, w + l.work, p.ncol == 1 ? &out : nullptr, &judged);
  if (!s || judged) return s;
  Check *chk = reinterpret_cast<Check *>(w + l.work);
  if (p.ncol == 1) {
    int64_t copies = slots_of(p.n, p.ncol);
    if (const int64_t blocks = pivot_grid_blocks<judge_resolve_grid>(p.n); blocks > 0) {
      void *params[] = {&out, &copies, &chk};
      return check_launch(cudaLaunchCooperativeKernel(reinterpret_cast<void *>(judge_resolve_grid),
                                                      dim3(static_cast<unsigned>(blocks)), dim3(kPivotThreads), params,
                                                      0, st),
                          "gtsv judge_resolve_grid");
    }
    judge_resolve_one<<<1, kPivotThreads, 0, st>>>(out, copies, chk);
    return check_launch("gtsv judge_resolve_one");
  }
  Judged *verdict = verdict_of(p, w + l.work);
  judge<<<static_cast<unsigned>((p.ncol + 255) / 256), 256, 0, st>>>(p.ncol, slots_of(p.n, p.ncol), chk, verdict,
                                                                     failed_list(verdict));
  if (!(s = check_launch("gtsv judge"))) return s;
  if (const int64_t blocks = resolve_by_grid(p.n) ? pivot_grid_blocks<resolve_grid_columns>(p.n) : 0; blocks > 0) {
    int64_t *list = failed_list(verdict);
    void *params[] = {&again, &verdict, &list, &scratch, &info};
    const cudaError_t e =
        cudaLaunchCooperativeKernel(reinterpret_cast<void *>(resolve_grid_columns), dim3(static_cast<unsigned>(blocks)),
                                    dim3(kPivotThreads), params, 0, st);
    // Refused for lack of room (another context's blocks, MPS): a block a column instead.
    if (e != cudaErrorCooperativeLaunchTooLarge && e != cudaErrorNotSupported)
      return check_launch(e, "gtsv resolve_grid_columns");
    cudaGetLastError();
  }
  if (resolve_by_block(p.n)) {
    resolve_by_blocks<<<static_cast<unsigned>(l.slots), kPivotThreads, 0, st>>>(again, verdict, failed_list(verdict),
                                                                               scratch, info);
    return check_launch("gtsv resolve_by_blocks");
  }
  return gtsv_resolve_on_device(st, again, w + l.work, false, scratch, l.slots, info);
}

}  // namespace gpueig::gpu
