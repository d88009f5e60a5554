// Stage 1 of the two-stage method: dense symmetric -> band of lower bandwidth B = kSytrdBand, by
// Givens rotations only.
//
// Panel p holds columns c0 = p*B .. c0+B-1; the m = n - r0 rows below its band block (r0 = c0+B)
// must become an upper triangle (rows r0..r0+B-1) over zeros. They are cut into tiles of H = 2B
// rows, and the panel is reduced as a binary tree (tile QR, cf. Lang 1998, and the tile-QR
// pattern):
//   level 0  every tile is triangularized by rotations of adjacent rows (Sameh-Kuck order: the
//            rotations of different columns run in the same step on disjoint row pairs);
//   level l  tops of tiles t and t + 2^(l-1) (two B x B triangles) are merged by rotations
//            between their rows, for t a multiple of 2^l.
// Each tile's and each merge's rotations are accumulated into an H x H orthogonal block (at most
// 64 x 64, identity where a short tile has no rows). The trailing matrix then gets
// A := M A M^T, M the product of all blocks in level order: each block is applied to its rows
// (a column strip at a time) and then to its columns (a row strip at a time) as a 64 x 64 by
// 64 x 64 product on the FP64 tensor cores. z := z M^T is the same column pass over z's rows.
//
// Wavefront: row j of a tile's or a merge's triangle is final after the node's own step j, and a
// merge's step j needs rows 0..j of its children only; so all nodes of a panel's tree run in one
// cooperative kernel, each publishing its final rows as it goes (see Wave below). Where the tree
// does not fit the GPU at once, each level is a kernel of its own.
//
// A panel of up to kFusedTiles tiles (n up to about 2080) has all its levels applied by one
// kernel (a strip of 8 columns or rows a thread block, held in shared memory), not a kernel a
// level.
//
// Look-ahead: panel p+1 needs only rows r0 .. r0+B-1 of the updated matrix, so the update of
// panel p does those rows first (all of the left side, then the right side on those rows) on
// the panels' own high-priority stream, and the rest on a third stream while panel p+1 is
// factored. For that the panel kernels read and write the panel transposed, in the upper
// triangle (rows c0 .. c0+B-1, columns r0 ..), where the rest of panel p's update never writes;
// the lower triangle left of the trailing matrix is stale from then on, and the band is the upper
// one. z's update runs on a fourth stream; the blocks of kBlockSets consecutive panels are kept,
// so that the updates can run behind. When Q is to be formed, all panels' blocks are kept instead
// (keep_all) and sytrd_band_form_q1 forms Q1 later from its right end, where each panel's pass
// shrinks to the trailing rows and columns.
//
// Cost: the blocks are dense, so the two passes take about 16/3 n^3 flops in all, four times a
// Householder band reduction; in exchange every flop is a tensor-core product and there are no
// matrix-vector products (one-stage DSYTRD spends half its 4/3 n^3 in DSYMV at memory speed).
#include <cuda_pipeline.h>
#include <mma.h>

#include <algorithm>
#include <type_traits>
#include <vector>

#include "context.hpp"
#include "device_util.hpp"
#include "env.hpp"
#include "progress.cuh"
#include "rotation.cuh"
#include "sytrd.hpp"
#include "warp.cuh"

namespace gpueig::gpu {
namespace {

constexpr int B = kSytrdBand;  // band width = columns of a panel
constexpr int H = 2 * B;       // rows of a tile = order of every accumulated block
constexpr int kThreads = 256;
constexpr int kStrip = 64;   // columns (left pass) or rows (right pass) of one apply block
constexpr int kLdx = H + 4;  // padded leading dimension of the shared strip

constexpr int kColThreads = B + H;  // panel kernels: a thread per column of [X | G]
constexpr int kMaxLevels = 64;      // levels of a panel's tree: 1 + log2(tiles)

// Entry (row, c0 + col) of the panel, which is kept transposed in the upper triangle.
__device__ inline double &panel_at(double *a, int64_t lda, int64_t c0, int64_t row, int col) {
  return a[(c0 + col) + row * lda];
}

// Warp 0: the chain of rotations on rows (k-1, k), k = hi-1 down to lo+1, that zeroes col[lo+1 ..
// hi-1] into col[lo] (rot[k] = (c, s); the identity for every other k), and *top = the new
// col[lo] = ||col[lo .. hi-1]||. Lane l holds rows 2l and 2l+1; each rotation comes from the
// suffix norms (a scaled warp scan) instead of a serial run of hypot.
__device__ void make_chain(const double *col, int lo, int hi, double2 *rot, double *top) {
  const int lane = threadIdx.x, i0 = 2 * lane, i1 = i0 + 1;
  const bool in0 = i0 >= lo && i0 < hi, in1 = i1 >= lo && i1 < hi;
  const double x0 = col[i0], x1 = col[i1];
  double2 g0 = make_double2(1.0, 0.0), g1 = g0;
  const double scale = warp_max(fmax(in0 ? fabs(x0) : 0.0, in1 ? fabs(x1) : 0.0));
  if (scale > 0) {
    const double u0 = in0 ? x0 / scale : 0.0, u1 = in1 ? x1 / scale : 0.0;
    const double y0 = u0 * u0, y1 = u1 * u1;
    double t = y0 + y1;  // becomes the sum over lanes l.. (rows 2l ..)
    for (int o = 1; o < 32; o <<= 1) {
      const double u = __shfl_down_sync(0xffffffffu, t, o);
      if (lane + o < 32) t += u;
    }
    double next = __shfl_down_sync(0xffffffffu, t, 1);
    if (lane == 31) next = 0.0;
    // Suffix norms in units of `scale`; c and s are formed from these, never from the norms
    // multiplied back: when `scale` is subnormal, scale * q keeps only a few bits and (c, s)
    // would stop being a rotation (c = s = 1 was seen), which wrecked whole reductions
    // (Kac-Murdock-Szego 0.5^|i-j|, whose leftover columns become subnormal).
    const double q1 = sqrt(y1 + next), q0 = sqrt(y0 + y1 + next);
    const double pu1 = __shfl_up_sync(0xffffffffu, u1, 1), pq1 = __shfl_up_sync(0xffffffffu, q1, 1);
    // Rotation k meets row k-1 and the running norm below it (the row itself at the bottom).
    if (i1 > lo && i1 < hi && q0 != 0) g1 = make_double2(u0 / q0, (i1 == hi - 1 ? u1 : q1) / q0);
    if (i0 > lo && i0 < hi && lane > 0 && pq1 != 0)
      g0 = make_double2(pu1 / pq1, (i0 == hi - 1 ? u0 : q0) / pq1);
    const double q_lo = __shfl_sync(0xffffffffu, (lo & 1) ? q1 : q0, lo / 2);
    if (lane == 0) *top = scale * q_lo;
  } else if (lane == 0) {
    *top = 0.0;
  }
  rot[i0] = g0;
  rot[i1] = g1;
}

// Warp 0: the fan of rotations (row j, row B + r), r = 0 .. m-1 in turn, that zeroes col[B + r]
// into col[j] (rot[r] = (c, s)), and *top = the new col[j]. From prefix norms of
// (col[j], col[B], .., col[B+m-1]).
__device__ void make_fan(const double *col, int j, int m, double2 *rot, double *top) {
  const int lane = threadIdx.x;
  const double x = col[j], y = lane < m ? col[B + lane] : 0.0;
  double2 g = make_double2(1.0, 0.0);
  const double scale = warp_max(fmax(fabs(x), fabs(y)));
  if (scale > 0) {
    const double v = y / scale;
    double p = v * v;
    for (int o = 1; o < 32; o <<= 1) {
      const double u = __shfl_up_sync(0xffffffffu, p, o);
      if (lane >= o) p += u;
    }
    const double xs = (x / scale) * (x / scale);
    // In units of `scale`, as in make_chain (a subnormal scale must not enter c and s).
    const double q = sqrt(xs + p);  // ||(x, y_0 .. y_lane)|| / scale
    const double qp = __shfl_up_sync(0xffffffffu, q, 1);
    const double a = lane == 0 ? x / scale : qp;  // what row j holds when rotation `lane` meets it
    if (lane < m && q != 0) g = make_double2(a / q, v / q);
    const double last = __shfl_sync(0xffffffffu, q, m - 1);
    if (lane == 0) *top = scale * last;
  } else if (lane == 0) {
    *top = 0.0;
  }
  rot[lane] = g;
}

// How a panel's tree nodes share rows. In the level-by-level order (kWave false) each tree level
// is a kernel of its own: a node reads its rows when it starts and writes them when it ends. In
// the wavefront (kWave true) every node of the panel runs in one kernel: row j of a node's
// triangle is final once the node's step j is done (later steps touch later rows only), so the
// node stores it and publishes its progress, and the parent's step j, which needs rows 0..j of
// both its children, waits for exactly that. The tree's depth then costs a few steps instead of
// B steps a level; every rotation is the same, bit for bit.
struct Wave {
  int *flags;   // every node's progress: epoch * kRowsPerEpoch + rows published
  int epoch;    // the panel's (the counters are never reset between panels)
  int *failed;  // set by a wait that timed out
  int self, top, bottom;  // this node; a merge's children (the nodes holding its two triangles)
};
// A node publishes its rows two at a time, and a merge waits for and loads two rows of each
// child at once: each publication is a barrier and a device-scope release, each wait an L2 round
// trip, on the wavefront's critical path. Stage 1 at n = 512 / 1024 / 2048 (H100): 2.55 / 6.26 /
// 15.73 ms a row at a time, 2.33 / 5.77 / 14.76 two at a time, 2.37 / 5.89 / 15.13 four, 2.53 /
// 6.43 / 16.69 eight (the lag a level adds grows with the group).
constexpr int kWaveGroup = 2;
constexpr int kRowsPerEpoch = 64;     // more than B
constexpr int kPanelFlagStride = 32;  // ints between two nodes' counters (a 128-byte line each)

// Block-wide: thread 0 waits until node `first` and (unless it is negative) node `second` have
// published `rows` rows of this panel; the verdict on every thread, after a barrier that orders
// their loads after thread 0's acquires. (One barrier for both: the shared verdict is rewritten
// only by the next call, which a later barrier of the caller separates from this one's reads.)
__device__ bool wave_wait(const Wave &w, int first, int second, int rows) {
  __shared__ int ok;
  if (threadIdx.x == 0) {
    const int need = w.epoch * kRowsPerEpoch + rows;
    ok = spin_until(&w.flags[first * kPanelFlagStride], need, w.failed) &&
         (second < 0 || spin_until(&w.flags[second * kPanelFlagStride], need, w.failed));
  }
  __syncthreads();
  return ok != 0;
}

// Block-wide: the rows this node's threads stored are published as `rows` rows done (the
// release after the barrier is a device-wide fence for every thread's stores before it).
__device__ void wave_publish(const Wave &w, int rows) {
  __syncthreads();
  if (threadIdx.x == 0) publish_progress(&w.flags[w.self * kPanelFlagStride], w.epoch * kRowsPerEpoch + rows);
}

// Entry `row` of panel column t once the node's step `row` is done, from a thread's running
// value `v`: a finished column (t < row) is zero below its diagonal and its diagonal is tops[t],
// what the step's rotations were made to produce. The rotations leave rounding residue where
// they zero; it stays in the finished column's registers (rotations never mix columns, so it
// reaches no other entry) and is replaced here, where it is stored, not forced to zero in
// registers every step (64 predicated moves a step on the panel's critical path).
__device__ inline double final_entry(int t, int row, double v, const double *tops) {
  return t < row ? 0.0 : t == row ? tops[t] : v;
}

// Level 0: tile `tile` (rows st .. st+rt-1 of panel columns c0 .. c0+B-1) becomes upper
// trapezoidal; its rotations, accumulated, go to `block` (H x H, column-major).
// Thread t < B holds column t of the tile, thread B + g column g of the block, in registers; a
// column's chain is made by warp 0 and applied by every thread to its own column.
template <bool kWave>
__device__ void tile_qr(double *a, int64_t lda, int64_t n, int64_t c0, int64_t tile,
                        double *block, const Wave &wave) {
  __shared__ double col[H];
  __shared__ double2 rot[H];
  __shared__ double tops[B];  // step j's new pivot
  const int t = threadIdx.x;
  const int64_t st = c0 + B + tile * H;
  const int rt = static_cast<int>(std::min<int64_t>(H, n - st));
  double v[H];
  {
    const double *p = &panel_at(a, lda, c0, st, t < B ? t : 0);
#pragma unroll
    for (int i = 0; i < H; ++i, p += lda) v[i] = t < B ? (i < rt ? *p : 0.0) : (i == t - B ? 1.0 : 0.0);
  }
  const int nj = rt - 1 < B ? rt - 1 : B;
  for (int j = 0; j < nj; ++j) {
    if (t == j) {
#pragma unroll
      for (int i = 0; i < H; ++i) col[i] = v[i];
    }
    __syncthreads();
    if (t < 32) make_chain(col, j, rt, rot, &tops[j]);
    __syncthreads();
    // In groups of 8 from the bottom, the group's rotations loaded before its FMAs so that the
    // loads do not sit in the chain; a group is skipped once the chain (which starts at row j)
    // is past it. rot[k] is the identity for k <= j, an exact no-op, so partial groups need no
    // test per rotation and every register index stays static.
#pragma unroll
    for (int kb = H / 8 - 1; kb >= 0; --kb) {
      if (8 * kb + 7 <= j) break;  // the same for every thread
      double2 g[8];
#pragma unroll
      for (int q = 0; q < 8; ++q) g[q] = rot[8 * kb + q];
#pragma unroll
      for (int q = 7; q >= 0; --q)
        if (8 * kb + q >= 1) rotate_carry_y(g[q], v[8 * kb + q - 1], v[8 * kb + q]);
    }
    if (kWave) {  // row j is final: the parent may take it
      if (t < B) {
        double row = 0.0;
#pragma unroll
        for (int i = 0; i < B; ++i)
          if (i == j) row = v[i];
        __stcg(&panel_at(a, lda, c0, st + j, t), final_entry(t, j, row, tops));
      }
      if ((j + 1) % kWaveGroup == 0 || j + 1 == nj) wave_publish(wave, j + 1);
    }
  }
  if (t < B) {
    double *p = &panel_at(a, lda, c0, st, t);  // walked down the panel: no address per entry
    // (The wavefront stored rows < nj already. Columns t >= nj were never a step's pivot: their
    // entries are all as they are.)
#pragma unroll
    for (int i = 0; i < H; ++i, p += lda)
      if (i < rt && (!kWave || i >= nj)) *p = t < nj ? final_entry(t, i, v[i], tops) : v[i];
  } else {
    double *out = block + (t - B) * H;
#pragma unroll
    for (int i = 0; i < H; ++i) out[i] = v[i];
  }
  if (kWave) wave_publish(wave, B);
}

__global__ void __launch_bounds__(kColThreads)
    tile_qr_kernel(double *a, int64_t lda, int64_t n, int64_t c0, double *blocks) {
  tile_qr<false>(a, lda, n, c0, blockIdx.x, blocks + int64_t(blockIdx.x) * H * H, Wave{});
}

// Level l (step = 2^(l-1) tiles): the top B rows of tile u = 2*step*pair (a triangle) absorb the
// top k <= B rows of tile u + step (a triangle, or the trapezoid of a short last tile). Rows
// 0..B-1 of the block are the first's, rows B..B+k-1 the other's. Column j is cleared by a fan:
// row j against rows B, B+1, .., B+min(j, k-1) in turn. Step j changes row j of the first
// triangle and rows 0..j of the second, and needs nothing of either below row j: the wavefront
// loads both children's row j just before step j (the other entries of vt and vb are still
// zeros then, and meet only identity rotations).
template <bool kWave>
__device__ void pair_qr(double *a, int64_t lda, int64_t n, int64_t c0, int64_t step, int64_t pair,
                        double *block, const Wave &wave) {
  __shared__ double col[H];
  __shared__ double2 rot[B];
  __shared__ double tops[B];  // step j's new pivot
  const int t = threadIdx.x;
  const int64_t first = c0 + B + 2 * step * H * pair;
  const int64_t second = first + step * H;
  const int k = static_cast<int>(std::min<int64_t>(B, n - second));
  // vt: rows 0..B-1 (the first triangle), vb: rows B..B+k-1 (the second). Step j works on row j
  // of vt, which is kept in vt[0]: vt is rotated left by one after each step (and is back in
  // order after the last), so that the loop over j need not be unrolled to index registers.
  double vt[B], vb[B];
#pragma unroll
  for (int i = 0; i < B; ++i) {
    const bool load = t < B && !kWave;
    vt[i] = load ? panel_at(a, lda, c0, first + i, t) : t >= B && i == t - B ? 1.0 : 0.0;
    vb[i] = load ? (i < k ? panel_at(a, lda, c0, second + i, t) : 0.0) : t >= B && B + i == t - B ? 1.0 : 0.0;
  }
  for (int j = 0; j < B; ++j) {
    const int m = j + 1 < k ? j + 1 : k;
    if (kWave && j % kWaveGroup == 0) {
      const int upto = min(B, j + kWaveGroup);  // rows j .. upto-1 of both children
      if (!wave_wait(wave, wave.top, j < k ? wave.bottom : -1, upto)) return;
      if (t < B) {
#pragma unroll
        for (int i = 0; i < kWaveGroup; ++i)
          if (j + i < upto) vt[i] = __ldcg(&panel_at(a, lda, c0, first + j + i, t));
#pragma unroll
        for (int r = 0; r < B; ++r)
          if (r >= j && r < upto && r < k) vb[r] = __ldcg(&panel_at(a, lda, c0, second + r, t));
      }
    }
    if (t == j) {
      col[j] = vt[0];
#pragma unroll
      for (int r = 0; r < B; ++r) col[B + r] = vb[r];
    }
    __syncthreads();
    if (t < 32) make_fan(col, j, m, rot, &tops[j]);
    __syncthreads();
    // In groups of 8 (rot[r] is the identity for r >= m), so that a group's loads go together.
#pragma unroll
    for (int rb = 0; rb < B / 8; ++rb) {
      if (8 * rb >= m) break;
#pragma unroll
      for (int r = 8 * rb; r < 8 * rb + 8; ++r) rotate_carry_x(rot[r], vt[0], vb[r]);
    }
    if (kWave) {  // row j of the merged triangle is final: the parent may take it
      if (t < B) __stcg(&panel_at(a, lda, c0, first + j, t), final_entry(t, j, vt[0], tops));
      if ((j + 1) % kWaveGroup == 0 || j + 1 == B) wave_publish(wave, j + 1);
    }
    const double done = vt[0];
#pragma unroll
    for (int i = 0; i < B - 1; ++i) vt[i] = vt[i + 1];
    vt[B - 1] = done;
  }
  if (t < B) {
    // (The wavefront stored the merged triangle already.) The second triangle is absorbed whole:
    // every fan zeroes its column's entries.
#pragma unroll
    for (int i = 0; i < B; ++i) {
      if (!kWave) panel_at(a, lda, c0, first + i, t) = final_entry(t, i, vt[i], tops);
      if (i < k) panel_at(a, lda, c0, second + i, t) = 0.0;
    }
  } else {
#pragma unroll
    for (int i = 0; i < B; ++i) {
      block[(t - B) * H + i] = vt[i];
      block[(t - B) * H + B + i] = vb[i];
    }
  }
}

__global__ void __launch_bounds__(kColThreads)
    pair_qr_kernel(double *a, int64_t lda, int64_t n, int64_t c0, int64_t step, double *blocks) {
  pair_qr<false>(a, lda, n, c0, step, blockIdx.x, blocks + int64_t(blockIdx.x) * H * H, Wave{});
}

// The nodes of one panel's tree for the wavefront kernel: node b < P is tile b; the merges follow
// level by level (first[l] the first node of level l, count[l] its nodes): the order in which
// panel_levels stores their blocks.
struct PanelTree {
  double *a;
  int64_t lda, n, c0;
  double *blocks;  // node b's block at blocks + b * H * H
  int nl;
  int first[kMaxLevels], count[kMaxLevels];
  int *flags, epoch, *failed;
};

// The node that holds tile `tile`'s triangle after level `level`: the merge of the highest level
// <= `level` whose first tile it is (merge i of level l starts at tile 2^l i), else the tile.
__device__ int holder_of(const PanelTree &T, int64_t tile, int level) {
  for (int l = level; l >= 1; --l) {
    const int64_t span = int64_t(1) << l;
    if (tile % span == 0 && tile / span < T.count[l]) return T.first[l] + static_cast<int>(tile / span);
  }
  return static_cast<int>(tile);
}

// Every node of a panel's tree at once, a block each (a cooperative launch: a node waits only on
// its children, which precede it in block order, and all are resident).
__global__ void __launch_bounds__(kColThreads) panel_wave_kernel(PanelTree T) {
  const int node = blockIdx.x;
  Wave w{T.flags, T.epoch, T.failed, node, -1, -1};
  double *block = T.blocks + int64_t(node) * H * H;
  if (node < T.count[0]) {
    tile_qr<true>(T.a, T.lda, T.n, T.c0, node, block, w);
    return;
  }
  int l = 1;
  while (l + 1 < T.nl && node >= T.first[l + 1]) ++l;
  const int64_t pair = node - T.first[l], step = int64_t(1) << (l - 1), u = 2 * step * pair;
  w.top = holder_of(T, u, l - 1);
  w.bottom = holder_of(T, u + step, l - 1);
  pair_qr<true>(T.a, T.lda, T.n, T.c0, step, pair, block, w);
}

// The index sets of one level's blocks: block b's local index i < len0 is global index
// first + b*stride + i; for merges (off1 > 0) local index B + i (i < len1) is that + off1 + i.
struct Level {
  int64_t first, stride, off1;
  int len0max, len1max;
  int64_t count;
  const double *blocks;
};

// (of the level's block b)
__device__ inline int64_t global_index(const Level &L, int64_t n, int64_t b, int local) {
  const int64_t s0 = L.first + b * L.stride;
  if (L.off1 == 0) {
    const int64_t g = s0 + local;
    return local < L.len0max && g < n ? g : -1;
  }
  if (local < B) return s0 + local;  // a merge's first tile is never the short last one
  const int64_t g = s0 + L.off1 + (local - B);
  return local - B < L.len1max && g < n ? g : -1;
}

// Applies every block of a level to strip blockIdx.y: left (kRight = false) X := G X on rows of
// columns lo + 64*blockIdx.y ..; right (kRight = true) X := X G^T on columns of those rows.
// Entry idx of a block's strip in the order that runs along memory (down a column of A): index i
// of the block's set and position c in the strip.
template <bool kRight>
__device__ inline void strip_entry(int idx, int &i, int &c) {
  if (kRight) {
    c = idx % kStrip;
    i = idx / kStrip;
  } else {
    i = idx % H;
    c = idx / H;
  }
}

// kTrans: G^T instead of G (the left pass of Q1's backward accumulation, Z := M^T Z).
// Block (b, y) takes block b of the level and strips y, y + gridDim.y, .. (left, kRight false:
// X := G X on rows of columns lo + 64 * strip ..; right: X := X G^T on columns of those rows).
// G is loaded into registers once for all of the block's strips, and the next strip is copied
// into the other half of the shared memory (cp.async) while this one is multiplied. (A block a
// strip, as before, read G once a strip, twice the memory traffic of the strips alone, and ran
// each block's load, product and store in sequence.)
constexpr int kLevelBlocksPerSm = 3;  // resident blocks an SM (two strip buffers, 68 KB, each)
// Blocks a level's kernel launches: this many waves of resident blocks (fewer where the level
// has fewer strips). Stage 1 at n = 8192 / 4096 (H100, 2026-11-28): 245.2 / 48.9 ms with one
// wave, 238.3 / 47.6 with two, 260.0 / 49.5 with one wave of 2 blocks an SM; the rest of the
// update (beside the next panel) with 8 or 64 waves instead of 2: within 1%.
constexpr int kLevelWaves = 2;
constexpr size_t kLevelSmem = size_t(2) * kStrip * kLdx * sizeof(double);
// Block b of the level on strips strip, strip + step, .. (a thread block's share; Xs: two strips of
// shared memory).
template <bool kRight, bool kTrans>
__device__ void apply_level_strips(double *a, int64_t lda, int64_t n, const Level &L, int64_t b, int64_t lo,
                                   int64_t hi, int64_t strip, int64_t step, double *Xs) {
  const int64_t strips = (hi - lo + kStrip - 1) / kStrip;
  if (strip >= strips) return;
  // The strip's entries into buf, in memory order (down a column of A); entries that are not
  // there (rows past n, a short block, columns past hi) are zero.
  auto fetch = [&](int64_t t, double *buf) {
    const int64_t s0 = lo + t * kStrip;
    const int width = static_cast<int>(std::min<int64_t>(kStrip, hi - s0));
    for (int idx = threadIdx.x; idx < H * kStrip; idx += blockDim.x) {
      int i, c;
      strip_entry<kRight>(idx, i, c);
      const int64_t g = global_index(L, n, b, i);
      double *dst = buf + c * kLdx + i;
      if (g >= 0 && c < width)
        __pipeline_memcpy_async(dst, kRight ? &a[(s0 + c) + g * lda] : &a[g + (s0 + c) * lda], sizeof(double));
      else
        *dst = 0.0;
    }
    __pipeline_commit();
  };
  // kTrans (Q1 applied from its blocks, stage 1 long done): G is read before the wait for the
  // kernel before this one (launched programmatically, see apply_level), the strip after it.
  // Otherwise G may be the previous kernel's output: the strip is fetched first, G while it
  // comes.
  if (!kTrans) fetch(strip, Xs);
  const double *G = L.blocks + b * H * H;  // 64 x 64, column-major
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
  using namespace nvcuda;
  // This warp's fragments of G (rows 8w .. 8w+7).
  const int w = threadIdx.x / 32;
  using Layout = std::conditional_t<kTrans, wmma::row_major, wmma::col_major>;  // G^T: row-major
  wmma::fragment<wmma::matrix_a, 8, 8, 4, double, Layout> fa[H / 4];
#pragma unroll
  for (int kk = 0; kk < H / 4; ++kk)
    wmma::load_matrix_sync(fa[kk], kTrans ? G + 8 * w * H + 4 * kk : G + 8 * w + 4 * kk * H, H);
#endif
  if (kTrans) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
    cudaGridDependencySynchronize();
#endif
    fetch(strip, Xs);
  }
  for (int k = 0; strip < strips; strip += step, ++k) {
    double *X = Xs + (k & 1) * kStrip * kLdx;
    const int64_t next = strip + step;
    // (The other buffer's last readers, the previous strip's stores, finished before the
    // barrier that ended the previous turn.)
    if (next < strips) fetch(next, Xs + ((k + 1) & 1) * kStrip * kLdx);
    if (next < strips) __pipeline_wait_prior(1);
    else __pipeline_wait_prior(0);
    __syncthreads();
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
    // Y = G X on the FP64 tensor cores: warp w makes rows 8w..8w+7 of Y.
    wmma::fragment<wmma::accumulator, 8, 8, 4, double> acc[kStrip / 8];
#pragma unroll
    for (int ct = 0; ct < kStrip / 8; ++ct) wmma::fill_fragment(acc[ct], 0.0);
#pragma unroll
    for (int kk = 0; kk < H / 4; ++kk) {
#pragma unroll
      for (int ct = 0; ct < kStrip / 8; ++ct) {
        wmma::fragment<wmma::matrix_b, 8, 8, 4, double, wmma::col_major> fb;
        wmma::load_matrix_sync(fb, X + 4 * kk + 8 * ct * kLdx, kLdx);
        wmma::mma_sync(acc[ct], fa[kk], fb, acc[ct]);
      }
    }
    __syncthreads();
#pragma unroll
    for (int ct = 0; ct < kStrip / 8; ++ct)
      wmma::store_matrix_sync(X + 8 * w + 8 * ct * kLdx, acc[ct], kLdx, wmma::mem_col_major);
#else
    // GPUs before sm_80 have no FP64 tensor cores: 16 entries of Y per thread with FMAs.
    constexpr int kRows = H * kStrip / kThreads;
    const int c = threadIdx.x % kStrip, i0 = threadIdx.x / kStrip * kRows;
    double acc[kRows] = {};
    for (int k2 = 0; k2 < H; ++k2) {
      const double x = X[c * kLdx + k2];
#pragma unroll
      for (int r = 0; r < kRows; ++r) acc[r] += (kTrans ? G[k2 + (i0 + r) * H] : G[(i0 + r) + k2 * H]) * x;
    }
    __syncthreads();
#pragma unroll
    for (int r = 0; r < kRows; ++r) X[c * kLdx + i0 + r] = acc[r];
#endif
    __syncthreads();
    const int64_t s0 = lo + strip * kStrip;
    const int width = static_cast<int>(std::min<int64_t>(kStrip, hi - s0));
    for (int idx = threadIdx.x; idx < H * kStrip; idx += blockDim.x) {
      int i, c;
      strip_entry<kRight>(idx, i, c);
      const int64_t g = global_index(L, n, b, i);
      if (g < 0 || c >= width) continue;
      if (kRight) a[(s0 + c) + g * lda] = X[c * kLdx + i];
      else a[g + (s0 + c) * lda] = X[c * kLdx + i];
    }
    __syncthreads();
  }
}

template <bool kRight, bool kTrans>
__global__ void __launch_bounds__(kThreads, kLevelBlocksPerSm)
    apply_level_kernel(double *a, int64_t lda, int64_t n, Level L, int64_t lo, int64_t hi) {
  extern __shared__ __align__(128) double Xs[];  // two strips: X[c * kLdx + i], entry c, index i
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
  if (kTrans) cudaTriggerProgrammaticLaunchCompletion();  // the next level may start its G loads
#endif
  apply_level_strips<kRight, kTrans>(a, lda, n, L, blockIdx.x, lo, hi, blockIdx.y, gridDim.y, Xs);
}

// Every level of a panel at once, for a strip of W vectors: columns (kRight false: X := M X on
// rows r0 ..) or rows (kRight true: X := X M^T on columns r0 ..) lo + W*blockIdx.x .. of the
// trailing matrix, held whole in shared memory (the panel's tiles' rows, padded to whole tiles
// with zeros, which every block keeps zero: a block is the identity where its rows are absent).
// One kernel instead of one a level: the update on the look-ahead's critical path is a chain of
// a few latency-bound kernels a panel otherwise. A level's blocks touch disjoint rows; with 8 or
// more of them a warp takes whole blocks, else the warps share a block's 8-row slabs and meet at
// a barrier before any of them stores.
constexpr int kFusedLevels = 16;  // a panel of up to 2^15 tiles
struct PanelLevels {
  Level level[kFusedLevels];
  int nl;
  int64_t r0, tiles;
};
constexpr int kFusedWarps = kThreads / 32;

// The row (from r0 on) of block b's local index `local` (see global_index).
__device__ inline int64_t fused_row(const Level &L, int64_t r0, int64_t b, int local) {
  const int64_t s0 = L.first - r0 + b * L.stride;
  return L.off1 == 0 || local < B ? s0 + local : s0 + L.off1 + (local - B);
}

// Slabs first .. first+count-1 (8 rows each) of Y = G X for block b of level L, G from global
// memory, X's 64 rows of the block from shared memory (a warp's share of apply_panel_kernel).
template <int W>
__device__ inline void fused_product(const Level &L, int64_t r0, int64_t b, const double *X, int first,
                                     int count,
                                     nvcuda::wmma::fragment<nvcuda::wmma::accumulator, 8, 8, 4, double> (&acc)[8][W / 8]) {
  using namespace nvcuda;
  const double *G = L.blocks + b * H * H;
  wmma::fragment<wmma::matrix_b, 8, 8, 4, double, wmma::row_major> fb[H / 4][W / 8];
#pragma unroll
  for (int kk = 0; kk < H / 4; ++kk)
#pragma unroll
    for (int ct = 0; ct < W / 8; ++ct)
      wmma::load_matrix_sync(fb[kk][ct], X + fused_row(L, r0, b, 4 * kk) * W + 8 * ct, W);
#pragma unroll
  for (int r = 0; r < 8; ++r) {
    if (r < first || r >= first + count) continue;
#pragma unroll
    for (int ct = 0; ct < W / 8; ++ct) wmma::fill_fragment(acc[r][ct], 0.0);
#pragma unroll
    for (int kk = 0; kk < H / 4; ++kk) {
      wmma::fragment<wmma::matrix_a, 8, 8, 4, double, wmma::col_major> fa;
      wmma::load_matrix_sync(fa, G + 8 * r + 4 * kk * H, H);
#pragma unroll
      for (int ct = 0; ct < W / 8; ++ct) wmma::mma_sync(acc[r][ct], fa, fb[kk][ct], acc[r][ct]);
    }
  }
}

template <int W>
__device__ inline void fused_store(const Level &L, int64_t r0, int64_t b, double *X, int first, int count,
                                   nvcuda::wmma::fragment<nvcuda::wmma::accumulator, 8, 8, 4, double> (&acc)[8][W / 8]) {
  using namespace nvcuda;
#pragma unroll
  for (int r = 0; r < 8; ++r) {
    if (r < first || r >= first + count) continue;
#pragma unroll
    for (int ct = 0; ct < W / 8; ++ct)
      wmma::store_matrix_sync(X + fused_row(L, r0, b, 8 * r) * W + 8 * ct, acc[r][ct], W,
                              wmma::mem_row_major);
  }
}

template <bool kRight, int W>
__global__ void __launch_bounds__(kThreads)
    apply_panel_kernel(double *a, int64_t lda, int64_t n, PanelLevels P, int64_t lo, int64_t hi) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
  using namespace nvcuda;
  extern __shared__ __align__(128) double X[];  // X[i * W + c]: index i (row r0 + i), vector c
  const int64_t s0 = lo + int64_t(blockIdx.x) * W;
  const int width = static_cast<int>(std::min<int64_t>(W, hi - s0));
  const int64_t m = n - P.r0, rows = P.tiles * H;
  for (int64_t idx = threadIdx.x; idx < rows * W; idx += blockDim.x) {
    int64_t i;
    int c;
    if (kRight) { c = static_cast<int>(idx % W); i = idx / W; }
    else { i = idx % rows; c = static_cast<int>(idx / rows); }
    double v = 0.0;
    if (i < m && c < width) v = kRight ? a[(s0 + c) + (P.r0 + i) * lda] : a[(P.r0 + i) + (s0 + c) * lda];
    X[i * W + c] = v;
  }
  __syncthreads();
  const int w = threadIdx.x / 32;
  for (int l = 0; l < P.nl; ++l) {
    const Level &L = P.level[l];
    const int64_t count = L.count;
    // Warps a block: 1 when there are at least as many blocks as warps, else a power of two.
    int per = 1;
    while (per * 2 * count <= kFusedWarps) per *= 2;
    wmma::fragment<wmma::accumulator, 8, 8, 4, double> acc[8][W / 8];
    if (per == 1) {  // whole blocks a warp: only the warp reads and writes the block's rows
      for (int64_t b = w; b < count; b += kFusedWarps) {
        fused_product<W>(L, P.r0, b, X, 0, 8, acc);
        __syncwarp();
        fused_store<W>(L, P.r0, b, X, 0, 8, acc);
        __syncwarp();
      }
    } else {  // `per` warps a block, 8 / per slabs each: all read before any stores
      const int64_t b = w / per;
      const int slabs = 8 / per, first = (w % per) * slabs;
      if (b < count) fused_product<W>(L, P.r0, b, X, first, slabs, acc);
      __syncthreads();
      if (b < count) fused_store<W>(L, P.r0, b, X, first, slabs, acc);
    }
    __syncthreads();
  }
  for (int64_t idx = threadIdx.x; idx < m * W; idx += blockDim.x) {
    int64_t i;
    int c;
    if (kRight) { c = static_cast<int>(idx % W); i = idx / W; }
    else { i = idx % m; c = static_cast<int>(idx / m); }
    if (c >= width) continue;
    if (kRight) a[(s0 + c) + (P.r0 + i) * lda] = X[i * W + c];
    else a[(P.r0 + i) + (s0 + c) * lda] = X[i * W + c];
  }
#endif
}

__global__ void take_tridiagonal_kernel(int64_t n, const double *base, int64_t stride, double *d,
                                        double *e) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x) {
    d[i] = base[i * stride];
    if (i + 1 < n) e[i] = base[1 + i * stride];
  }
}

int64_t tiles_of(int64_t n) { return n > B ? (n - B + H - 1) / H : 0; }

// What every launch of apply_level_kernel takes from the device and the environment, found once
// a call (sytrd_to_band, sytrd_band_form_q1, sytrd_band_apply_q1) instead of once a launch: at
// n = 8192 stage 1 launches about 6000 level kernels, and applying Q1 to a few vectors about 2000
// small ones one after another, where the host's time per launch is the GPU's too.
struct LevelLaunch {
  int64_t slots = 0;  // blocks a level's kernel launches at most: kLevelWaves waves of resident ones
  int64_t cap = 0;    // GPUEIG_SYTRD_LEVEL_Y (0: none)
};
Status level_launch(LevelLaunch *ll) {
  int sms = 0;
  Status s = sm_count(&sms);
  // (the kernels' limit is process-wide and the same constant for every launch)
  for (const void *k : {reinterpret_cast<const void *>(apply_level_kernel<false, false>),
                        reinterpret_cast<const void *>(apply_level_kernel<true, false>),
                        reinterpret_cast<const void *>(apply_level_kernel<false, true>)})
    if (s) s = check(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, int(kLevelSmem)),
                     "cudaFuncSetAttribute");
  if (!s) return s;
  ll->slots = int64_t(kLevelWaves) * kLevelBlocksPerSm * sms;
  // GPUEIG_SYTRD_LEVEL_Y caps the blocks a level block gets (1: one block loops over every
  // strip), so that small test problems take the strip loop too.
  ll->cap = env::integer("GPUEIG_SYTRD_LEVEL_Y", 0, 1);
  return Status::success();
}

template <bool kRight, bool kTrans = false>
Status apply_level(const LevelLaunch &ll, cudaStream_t st, double *a, int64_t lda, int64_t n, const Level &L,
                   int64_t lo, int64_t hi) {
  if (hi <= lo || L.count == 0) return Status::success();
  // kLevelWaves waves of resident blocks, each looping over its strips (a level with few blocks
  // keeps a strip a block).
  const int64_t strips = (hi - lo + kStrip - 1) / kStrip;
  int64_t per_block = std::max<int64_t>(1, ll.slots / L.count);
  if (ll.cap > 0) per_block = std::min(per_block, ll.cap);
  const dim3 grid(static_cast<unsigned>(L.count), static_cast<unsigned>(std::min(strips, per_block)));
  if (!kTrans) {
    apply_level_kernel<kRight, kTrans><<<grid, kThreads, kLevelSmem, st>>>(a, lda, n, L, lo, hi);
    return check_launch("sytrd apply_level_kernel");
  }
  // Q1's levels (a chain of about 2000 small kernels at n = 8192 for a few vectors) launch
  // programmatically (Hopper on; earlier GPUs ignore it): a level's blocks start, and load their
  // G, while the level before finishes, and wait for it (cudaGridDependencySynchronize) before
  // touching the strips.
  cudaLaunchConfig_t config{};
  config.gridDim = grid;
  config.blockDim = dim3(kThreads);
  config.dynamicSmemBytes = kLevelSmem;
  config.stream = st;
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute.val.programmaticStreamSerializationAllowed = 1;
  config.attrs = &attribute;
  config.numAttrs = 1;
  return check_launch(cudaLaunchKernelEx(&config, apply_level_kernel<kRight, kTrans>, a, lda, n, L, lo, hi),
                      "sytrd apply_level_kernel");
}

// Vectors a fused block holds (0: the panel's levels go one kernel each, as for large n, where
// the rows do not fit the shared memory, or with GPUEIG_SYTRD_APPLY=levels). 8, not 16: at
// n = 1024 / 2048 stage 1 took 4.53 / 13.65 ms with 8 and 5.23 / 15.05 ms with 16 (H100; 16
// needs 255 registers a thread, and half the blocks share out the same G reads).
// Every block of the fused kernel reads all of the panel's blocks (2 tiles x 32 KB), so the L2
// traffic grows as the square of the tiles: at n = 4096 (63 tiles) it made stage 1 73.6 ms
// against 52 a kernel a level, while up to 32 tiles (n = 2048: 13.5 against 14.2 ms) it gains.
constexpr int kFusedWidth = 8;
constexpr int64_t kFusedTiles = 32;
// The fused kernel's shared memory is sized for kFusedTiles whatever the panel: the limit a
// kernel may use is a process-wide attribute, and two calls on two host threads (gpu_toeplitz_eig
// reduces its halves so) setting it to their own sizes made each other's launches fail.
constexpr size_t kFusedSmem = size_t(kFusedTiles) * H * kFusedWidth * sizeof(double);  // 128 KB
int fused_width(int64_t tiles) {
  static_assert((int64_t(1) << (kFusedLevels - 1)) >= kFusedTiles, "PanelLevels holds every level");
  if (tiles > kFusedTiles || env::choice("GPUEIG_SYTRD_APPLY", {"auto", "levels"}, 0) == 1) return 0;
  // (The fused kernel is built for the FP64 tensor cores only, from sm_80 on; before them each
  // level's kernel has its FMA path.)
  int dev = 0, optin = 0, major = 0;
  if (cudaGetDevice(&dev) != cudaSuccess ||
      cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev) != cudaSuccess ||
      cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess)
    return 0;
  return major >= 8 && kFusedSmem <= size_t(optin) ? kFusedWidth : 0;
}

template <bool kRight, int W>
Status apply_panel_w(cudaStream_t st, double *a, int64_t lda, int64_t n, const PanelLevels &P,
                     int64_t lo, int64_t hi) {
  static_assert(W == kFusedWidth, "kFusedSmem is sized for kFusedWidth");
  const size_t smem = size_t(P.tiles) * H * W * sizeof(double);  // <= kFusedSmem
  Status s = check(cudaFuncSetAttribute(apply_panel_kernel<kRight, W>,
                                        cudaFuncAttributeMaxDynamicSharedMemorySize, int(kFusedSmem)),
                   "cudaFuncSetAttribute");
  if (!s) return s;
  apply_panel_kernel<kRight, W><<<static_cast<unsigned>((hi - lo + W - 1) / W), kThreads, smem, st>>>(
      a, lda, n, P, lo, hi);
  return check_launch("sytrd apply_panel_kernel");
}

// A := M A (kRight false) on columns lo .. hi-1, or A := A M^T on rows lo .. hi-1, M the panel's
// levels: fused (width w) or a kernel a level.
template <bool kRight>
Status apply_panel(const LevelLaunch &ll, cudaStream_t st, double *a, int64_t lda, int64_t n, const Level *levels,
                   int nl, int64_t r0, int w, int64_t lo, int64_t hi) {
  if (hi <= lo) return Status::success();
  if (w == 0) {
    for (int l = 0; l < nl; ++l)
      if (const Status s = apply_level<kRight>(ll, st, a, lda, n, levels[l], lo, hi); !s) return s;
    return Status::success();
  }
  PanelLevels P{};
  for (int l = 0; l < nl; ++l) P.level[l] = levels[l];
  P.nl = nl;
  P.r0 = r0;
  P.tiles = levels[0].count;
  return apply_panel_w<kRight, kFusedWidth>(st, a, lda, n, P, lo, hi);
}

// One panel's blocks: level 0 has P, the merge levels P - 1 together.
int64_t panel_blocks(int64_t n) { return std::max<int64_t>(1, 2 * tiles_of(n)); }

// The panels are c0 = 0, B, .. while n - (c0 + B) >= 2.
int64_t panel_count(int64_t n) { return n - B < 2 ? 0 : (n - B - 2) / B + 1; }

// The levels of the panel at c0, its blocks stored from `blocks` on in level order; returns the
// number of levels. Level 0 holds the tiles; level l >= 1 the merges of step 2^(l-1).
int panel_levels(int64_t n, int64_t c0, const double *blocks, Level *levels) {
  const int64_t r0 = c0 + B, P = (n - r0 + H - 1) / H;
  int nl = 0;
  levels[nl++] = {r0, H, 0, H, 0, P, blocks};
  blocks += P * H * H;
  for (int64_t step = 1; step < P; step *= 2) {
    const int64_t pairs = (P - step - 1) / (2 * step) + 1;
    levels[nl++] = {r0, 2 * step * H, step * H, B, B, pairs, blocks};
    blocks += pairs * H * H;
  }
  return nl;
}

// Blocks of one panel: the sum over its levels.
int64_t blocks_of(const Level *levels, int nl) {
  int64_t c = 0;
  for (int l = 0; l < nl; ++l) c += levels[l].count;
  return c;
}

// Blocks of all panels together (kept for Q1's backward accumulation).
int64_t all_panel_blocks(int64_t n) {
  Level levels[kMaxLevels];
  int64_t c = 0;
  for (int64_t p = 0; p < panel_count(n); ++p) c += blocks_of(levels, panel_levels(n, p * B, nullptr, levels));
  return c;
}

// Panels whose blocks are live at once: the panel being factored, the one whose trailing update
// is running, and those whose z update still runs behind them.
constexpr int kBlockSets = 4;

// The streams and events of the look-ahead, released on every return.
struct LookAhead {
  cudaStream_t fs = nullptr, rs = nullptr, zs = nullptr;  // factor and critical update; the rest; z
  cudaEvent_t start = nullptr, fdone = nullptr, rdone = nullptr, zdone = nullptr;
  cudaEvent_t factored = nullptr, mid = nullptr, rest = nullptr;
  cudaEvent_t zset[kBlockSets] = {};
  Status init(bool wantz) {
    // The panel kernels and the update of the next panel's rows are a chain of small
    // latency-bound launches: at the highest priority their blocks take the first SM slots the
    // rest of the update frees. The rest and z's update are filler.
    // (the thread's fork streams, Context::fork_streams: kept, never created per call)
    cudaStream_t forks[3] = {};
    Status s = thread_fork_streams(forks);
    fs = forks[0], rs = forks[1], zs = wantz ? forks[2] : nullptr;
    for (cudaEvent_t *e : {&start, &fdone, &rdone, &zdone, &factored, &mid, &rest})
      if (s) s = check(cudaEventCreateWithFlags(e, cudaEventDisableTiming), "cudaEventCreate");
    for (cudaEvent_t &e : zset)
      if (s) s = check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreate");
    return s;
  }
  ~LookAhead() {
    for (cudaEvent_t e : zset)
      if (e) cudaEventDestroy(e);
    for (cudaEvent_t e : {start, fdone, rdone, zdone, factored, mid, rest})
      if (e) cudaEventDestroy(e);
  }
};

}  // namespace

namespace {

// Blocks (H x H) the workspace holds: every panel's (keep_all) or kBlockSets panels' at a time.
int64_t block_count(int64_t n, bool keep_all) {
  return std::max<int64_t>(1, keep_all ? all_panel_blocks(n) : kBlockSets * panel_blocks(n));
}

// After the blocks: the wavefront's progress counters (a line for each node of a panel) and its
// own failure flag (used when the caller gives none).
size_t panel_flag_ints(int64_t n) { return size_t(panel_blocks(n)) * kPanelFlagStride + 1; }
int *panel_flags(double *blocks, int64_t n, bool keep_all) {
  return reinterpret_cast<int *>(blocks + block_count(n, keep_all) * H * H);
}

// Nodes of a panel's tree that can be resident at once: the wavefront's limit (0 with
// GPUEIG_SYTRD_PANEL=levels, which factors every panel level by level).
Status wave_capacity(int64_t *capacity) {
  *capacity = 0;
  if (env::choice("GPUEIG_SYTRD_PANEL", {"auto", "levels"}, 0) == 1) return Status::success();
  int sms = 0, per_sm = 0, dev = 0, coop = 0;
  Status s = sm_count(&sms);
  if (s) s = check(cudaGetDevice(&dev), "cudaGetDevice");
  if (s) s = check(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev), "attribute");
  if (s)
    s = check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, panel_wave_kernel, kColThreads, 0),
              "occupancy");
  if (s && coop) *capacity = int64_t(sms) * per_sm;
  return s;
}

// The panel at c0 (its levels in `levels`) factored by the wavefront kernel on `fs`.
Status factor_wave(cudaStream_t fs, double *a, int64_t lda, int64_t n, int64_t c0, double *mine,
                   const Level *levels, int nl, int *flags, int epoch, int *failed) {
  PanelTree T{a, lda, n, c0, mine, nl, {}, {}, flags, epoch, failed};
  int first = 0;
  for (int l = 0; l < nl; ++l) {
    T.first[l] = first;
    T.count[l] = static_cast<int>(levels[l].count);
    first += T.count[l];
  }
  void *params[] = {&T};
  return check_launch(cudaLaunchCooperativeKernel(reinterpret_cast<void *>(panel_wave_kernel),
                                                  dim3(static_cast<unsigned>(first)),
                                                  dim3(kColThreads), params, 0, fs),
                      "sytrd panel_wave_kernel");  // (a launch, for the fault injection too)
}

}  // namespace

size_t sytrd_band_blocks_bytes(int64_t n, bool keep_all) {
  return static_cast<size_t>(block_count(n, keep_all)) * H * H * sizeof(double) +
         panel_flag_ints(n) * sizeof(int);
}

Status sytrd_to_band(cudaStream_t st, int64_t n, double *a, int64_t lda, double *z, int64_t ldz,
                     double *blocks, bool keep_all, int *failed) {
  if (n - B < 2) return Status::success();
  if (keep_all && z) return Status::fail(Status::device_error, "sytrd_to_band: keep_all with z");
  // The wavefront's counters start at zero (each panel counts from its own epoch on).
  int *flags = panel_flags(blocks, n, keep_all);
  if (!failed) failed = flags + panel_flag_ints(n) - 1;
  int64_t capacity = 0;
  LookAhead la;
  LevelLaunch ll;
  Status s = wave_capacity(&capacity);
  if (s) s = level_launch(&ll);
  if (s) s = check(cudaMemsetAsync(flags, 0, panel_flag_ints(n) * sizeof(int), st), "cudaMemsetAsync");
  if (s) s = la.init(z != nullptr);
  if (s) s = record_wait(la.start, st, la.fs);
  if (s && z) s = check(cudaStreamWaitEvent(la.zs, la.start), "cudaStreamWaitEvent");
  if (!s) return s;
  Level levels[kMaxLevels];
  double *kept = blocks;  // keep_all: where the next panel's blocks go
  for (int64_t p = 0; p < panel_count(n); ++p) {
    const int64_t c0 = p * B, r0 = c0 + B;
    const int set = static_cast<int>(p % kBlockSets);
    double *mine = keep_all ? kept : blocks + set * panel_blocks(n) * H * H;
    const int nl = panel_levels(n, c0, mine, levels);
    kept += blocks_of(levels, nl) * H * H;
    // Factor (stream fs): every node of the tree in one wavefront kernel where they can all be
    // resident, else the tile level, then the merge levels. Without keep_all the blocks go where
    // panel p - kBlockSets's were: its z update must be done with them (its A update is: fs
    // waited for panel p-1's rest, which rs ran after p - kBlockSets's).
    if (z && p >= kBlockSets &&
        !(s = check(cudaStreamWaitEvent(la.fs, la.zset[set]), "cudaStreamWaitEvent")))
      return s;
    const int64_t nodes = blocks_of(levels, nl);
    if (nl > 1 && nodes <= capacity) {
      if (!(s = factor_wave(la.fs, a, lda, n, c0, mine, levels, nl, flags, static_cast<int>(p + 1), failed)))
        return s;
    } else {
      for (int l = 0; l < nl; ++l) {
        double *out = const_cast<double *>(levels[l].blocks);
        const unsigned grid = static_cast<unsigned>(levels[l].count);
        if (l == 0) tile_qr_kernel<<<grid, kColThreads, 0, la.fs>>>(a, lda, n, c0, out);
        else pair_qr_kernel<<<grid, kColThreads, 0, la.fs>>>(a, lda, n, c0, int64_t(1) << (l - 1), out);
        if (!(s = check_launch(l == 0 ? "sytrd tile_qr_kernel" : "sytrd pair_qr_kernel"))) return s;
      }
    }
    if (z && !(s = check(cudaEventRecord(la.factored, la.fs), "cudaEventRecord"))) return s;
    // Update: A := M A M^T on the trailing rows and columns. What panel p+1 needs (all of the
    // left side, the right side on its rows) follows the panel on fs, with no stream hop on the
    // chain from panel to panel; the right side on the other rows runs on rs beside the next
    // panel. (fs waited for the previous panel's rest before its own left side.)
    const int64_t mid = std::min(n, r0 + B);
    const int w = fused_width(levels[0].count);
    if (p > 0 && !(s = check(cudaStreamWaitEvent(la.fs, la.rest), "cudaStreamWaitEvent"))) return s;
    if (!(s = apply_panel<false>(ll, la.fs, a, lda, n, levels, nl, r0, w, r0, n))) return s;
    if (!(s = apply_panel<true>(ll, la.fs, a, lda, n, levels, nl, r0, w, r0, mid))) return s;
    if (!(s = record_wait(la.mid, la.fs, la.rs))) return s;
    if (!(s = apply_panel<true>(ll, la.rs, a, lda, n, levels, nl, r0, w, mid, n))) return s;
    if (!(s = check(cudaEventRecord(la.rest, la.rs), "cudaEventRecord"))) return s;
    // z := z M^T (stream zs), independent of A: it fills what the other two leave idle.
    if (z) {
      if (!(s = check(cudaStreamWaitEvent(la.zs, la.factored), "cudaStreamWaitEvent"))) return s;
      for (int l = 0; l < nl; ++l)
        if (!(s = apply_level<true>(ll, la.zs, z, ldz, n, levels[l], 0, n))) return s;
      if (!(s = check(cudaEventRecord(la.zset[set], la.zs), "cudaEventRecord"))) return s;
    }
  }
  // st joins the three streams.
  if (!(s = record_wait(la.fdone, la.fs, st)) || !(s = record_wait(la.rdone, la.rs, st))) return s;
  return z ? record_wait(la.zdone, la.zs, st) : s;
}

namespace {

// Z := M_p^T Z for p = last .. 0, on columns lo(p) .. hi: lo(p) = r0(p) when Z is the identity on
// entry (from_identity), else 0.
Status q1_from_left(cudaStream_t st, int64_t n, double *z, int64_t ldz, int64_t hi, bool from_identity,
                    const double *blocks) {
  const int64_t np = panel_count(n);
  std::vector<const double *> first(np + 1, blocks);
  Level levels[kMaxLevels];
  LevelLaunch ll;
  if (const Status s = level_launch(&ll); !s) return s;
  for (int64_t p = 0; p < np; ++p)
    first[p + 1] = first[p] + blocks_of(levels, panel_levels(n, p * B, first[p], levels)) * H * H;
  for (int64_t p = np - 1; p >= 0; --p) {
    const int nl = panel_levels(n, p * B, first[p], levels);
    for (int l = nl - 1; l >= 0; --l) {
      const Status s = apply_level<false, true>(ll, st, z, ldz, n, levels[l], from_identity ? p * B + B : 0, hi);
      if (!s) return s;
    }
  }
  return Status::success();
}

}  // namespace

Status sytrd_band_form_q1(cudaStream_t st, int64_t n, double *z, int64_t ldz, const double *blocks) {
  // Q1 = M_0^T M_1^T .. M_last^T, formed from the right end: Z := M_p^T Z for p = last .. 0.
  // Before panel p's turn Z is the identity outside rows and columns r0(p+1) .. n-1, so M_p^T
  // (rows r0(p) ..) meets only columns r0(p) ..: the passes shrink with p, 2/3 of the flops of
  // z := z M^T panel by panel (which touches all n rows every time).
  return q1_from_left(st, n, z, ldz, n, true, blocks);
}

Status sytrd_band_apply_q1(cudaStream_t st, int64_t n, double *y, int64_t ldy, int64_t cols,
                           const double *blocks) {
  return q1_from_left(st, n, y, ldy, cols, false, blocks);
}

Status sytrd_take_tridiagonal(cudaStream_t st, int64_t n, const double *base, int64_t stride,
                              double *d, double *e) {
  const unsigned grid = static_cast<unsigned>(std::min<int64_t>(1024, (n + 255) / 256));
  take_tridiagonal_kernel<<<grid, 256, 0, st>>>(n, base, stride, d, e);
  return check_launch("sytrd take_tridiagonal_kernel");
}

}  // namespace gpueig::gpu
