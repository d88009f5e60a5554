// Stage 2 of the two-stage method: band (lower bandwidth KD = kSytrdBand) -> tridiagonal by
// Givens bulge chasing, and the driver of the whole method.
//
// The task structure is LAPACK's DSB2ST_KERNELS / DSYTRD_SB2ST with each Householder reflector
// replaced by a chain of rotations of adjacent rows (any orthogonal transformation that maps the
// column to a multiple of e1 keeps the algorithm's structure). Sweep s clears column s; its window
// w covers rows st = s+1+w*KD .. ed = min(st+KD-1, n-1):
//   window 0   a chain zeroes A(st+1:ed, s) into A(st, s);
//   each w     the window's chain is applied on both sides of the diagonal block A(st:ed, st:ed),
//              then from the right to the block below, A(ed+1:ed+KD, st:ed); a new chain zeroes
//              that block's first column below its top, and is applied from the left to the rest
//              of the block. That chain is window w+1's.
// Window w of sweep s touches what window w+1 of sweep s-1 touches, and nothing of sweep s-1's
// windows after it, so all sweeps run at once, each a window behind the one before: a worker
// (two warps) per sweep, a progress counter per sweep, a persistent cooperative grid.
//
// A chain is generated in parallel: lane k computes its rotation from the suffix norms of the
// column (a scaled warp scan), so generating costs a few shuffles instead of KD dependent hypots.
//
// With z, the rotations are recorded (rot[sweep][row]); afterwards each window's rotations of 32
// sweeps are multiplied into a 64 x 64 block and z := z Q2 is applied as products of those blocks
// on the FP64 tensor cores (see apply_window_blocks_kernel). When z is to become Q (SytrdZ::form),
// stage 1 keeps its blocks and Q1 is formed from its right end on the caller's stream while the
// chase runs beside it on a stream of the thread's.
#include <cooperative_groups.h>
#include <cuda/atomic>
#include <cuda_pipeline.h>
#include <mma.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "context.hpp"
#include "device_util.hpp"
#include "env.hpp"
#include "progress.cuh"
#include "rotation.cuh"
#include "sytrd.hpp"
#include "warp.cuh"

namespace gpueig::gpu {
namespace {

constexpr int KD = kSytrdBand;
constexpr unsigned kFull = 0xffffffffu;
constexpr int kApplyGroup = 32;    // sweeps applied together to z
constexpr int kLdab = 2 * KD + 1;  // band storage: diagonal, KD subdiagonals, KD rows for the bulge
// A chunk of sweeps' rotations and window blocks are kept at most this large; bigger problems
// chase in chunks (src/tuning.hpp).
constexpr size_t kRotBudget = tuning::kSytrdRotBytes;
// Each sweep's progress counter has a 128-byte line of its own: the warps that spin on one do
// not queue behind the writes to its neighbours.
constexpr int kFlagStride = 32;

int64_t sweeps_of(int64_t n) { return std::max<int64_t>(0, n - 2); }
int64_t rot_ld(int64_t n) { return n + KD + kApplyGroup; }
size_t rot_bytes(int64_t n, int64_t c);
size_t window_bytes(int64_t n, int64_t c);
int64_t chunk_sweeps(int64_t n) {
  // GPUEIG_SYTRD_CHUNK (sweeps) lets the tests cut small problems into chunks too.
  if (const int64_t c = env::integer("GPUEIG_SYTRD_CHUNK", 0, 1); c > 0)
    return std::min<int64_t>(c, std::max<int64_t>(1, sweeps_of(n)));
  // The largest multiple of kApplyGroup sweeps within the budget (the first chunk is the
  // largest: its windows reach furthest).
  int64_t c = (sweeps_of(n) + kApplyGroup - 1) / kApplyGroup * kApplyGroup;
  while (c > kApplyGroup && rot_bytes(n, c) + window_bytes(n, c) > kRotBudget) c -= kApplyGroup;
  return std::min(std::max<int64_t>(kApplyGroup, c), std::max<int64_t>(1, sweeps_of(n)));
}

__device__ inline int windows_of(int64_t n, int64_t s) { return static_cast<int>((n - 2 - s) / KD + 1); }

struct Chase {
  double *ab;  // band, lower, leading dimension kLdab: A(i, j) = ab[(i - j) + j * kLdab]
  int64_t n, s_begin, s_end;
  int *progress;   // windows finished, per sweep (all sweeps), kFlagStride apart
  double2 *rot;    // (c, s) of sweeps [s_begin, s_end): rot[(s - s_begin) * ldrot + row], or null
  int64_t ldrot;
  int *failed;
};

__device__ inline double &band(const Chase &p, int64_t i, int64_t j) { return p.ab[(i - j) + j * kLdab]; }

// Lane l holds x_l (l < len). On return lane k (1 <= k < len) holds the rotation (c, s) on
// window rows (k-1, k) that, applied for k = len-1 down to 1, maps x to r0 * e1; other lanes hold
// the identity. r0 (every lane) is the new first entry: ||x|| (x_0 itself when len = 1).
__device__ void make_chain(double x, int len, double &c, double &s, double &r0) {
  const int lane = threadIdx.x % 32;
  c = 1;
  s = 0;
  if (len <= 1) {
    r0 = __shfl_sync(kFull, x, 0);
    return;
  }
  const double scale = warp_max(lane < len ? fabs(x) : 0.0);
  if (scale == 0) {
    r0 = 0;
    return;
  }
  const double u = lane < len ? x / scale : 0.0;
  double y = u * u;
  for (int o = 1; o < 32; o <<= 1) {  // suffix sums: y_l = sum of squares of x_l .. x_{len-1}
    const double t = __shfl_down_sync(kFull, y, o);
    if (lane + o < 32) y += t;
  }
  // In units of `scale`: a subnormal scale must not enter c and s (see sytrd_band.cu's
  // make_chain).
  const double q = sqrt(y);  // ||x_l .. x_{len-1}|| / scale
  const double qp = __shfl_up_sync(kFull, q, 1), up = __shfl_up_sync(kFull, u, 1);
  // Rotation k meets x_{k-1} and the running norm of what is below it (x itself at the bottom).
  if (lane >= 1 && lane < len && qp != 0) {
    c = up / qp;
    s = (lane == len - 1 ? u : q) / qp;
  }
  r0 = scale * __shfl_sync(kFull, q, 0);
}

// The chain's rotations in shared memory, where every lane reads them (broadcast) while it
// applies them: the reads do not wait on the rotations' arithmetic, as shuffles would.
__device__ inline void publish_chain(double2 *chain, double c, double s) {
  __syncwarp();
  chain[threadIdx.x % 32] = make_double2(c, s);
  __syncwarp();
}

// v (this lane's vector over the window rows) := chain * v.
__device__ inline void apply_chain(double (&v)[KD], const double2 *chain) {
#pragma unroll
  for (int k = KD - 1; k >= 1; --k) {
    rotate_carry_y(chain[k], v[k - 1], v[k]);
  }
}

// The window block M (KD x KD in shared memory) := chain * M, lane = column (kRows false), or
// M := M * chain^T, lane = row (kRows true): each lane takes its column or row into registers.
template <bool kRows>
__device__ inline void apply_chain_to(double (&M)[KD][KD + 1], const double2 *chain) {
  const int lane = threadIdx.x % 32;
  double v[KD];
#pragma unroll
  for (int i = 0; i < KD; ++i) v[i] = kRows ? M[lane][i] : M[i][lane];
  apply_chain(v, chain);
#pragma unroll
  for (int i = 0; i < KD; ++i) (kRows ? M[lane][i] : M[i][lane]) = v[i];
}

__device__ void record(const Chase &p, int64_t s, int64_t st, int len, double c, double sn) {
  const int lane = threadIdx.x % 32;
  if (p.rot && lane >= 1 && lane < len) p.rot[(s - p.s_begin) * p.ldrot + st + lane] = make_double2(c, sn);
}

// Lane 0 of the calling warp waits for the sweep before (spin_until); the verdict on every lane.
__device__ bool wait_for(const Chase &p, int *flag, int need) {
  const bool ok = threadIdx.x % 32 == 0 ? spin_until(flag, need, p.failed) : true;
  return __shfl_sync(kFull, ok ? 1 : 0, 0) != 0;
}

// A sweep is chased by a worker of two warps. Within a window the diagonal block's two-sided
// update (warp 0) and the block below it (warp 1: the chain from the right, the next chain made
// from its first column, that chain from the left) touch disjoint entries and need only the
// window's chain, so they run side by side: a window takes about as long as the block below
// alone, where one warp did both in turn (the window's instructions form dependent chains: its
// latency, not the GPU's throughput, paces the whole pipeline).
struct ChaseWorker {
  double D[KD][KD + 1];   // warp 0: the diagonal block, held whole
  double Bk[KD][KD + 1];  // warp 1: the block below it
  double2 chain[2][KD];   // the window's chain (chain[cur]) and the next one, made by warp 1
  double2 first[KD];      // warp 0's copy of a sweep's first chain (both warps make it)
  int ok;                 // warp 0's verdict on the window's wait, for both warps
};
static_assert(sizeof(ChaseWorker) <= 48 * 1024, "a worker fits static shared memory");

// The diagonal block A(st:st+len-1, st:st+len-1) := G A G^T (warp 0), G the window's chain;
// the block held whole in D, stored back as its lower triangle.
__device__ void update_diagonal_block(const Chase &p, double (&D)[KD][KD + 1], const double2 *chain,
                                      int64_t st, int len) {
  const int lane = threadIdx.x % 32;
  double v[KD];
#pragma unroll
  for (int j = 0; j < KD; ++j)
    v[j] = j < len && lane >= j && lane < len ? __ldcg(&band(p, st + lane, st + j)) : 0.0;
#pragma unroll
  for (int j = 0; j < KD; ++j) {  // entry (a, b) has one writer: lane max(a, b)
    if (j <= lane) D[lane][j] = v[j];
    if (j < lane) D[j][lane] = v[j];
  }
  __syncwarp();
  apply_chain_to<false>(D, chain);
  __syncwarp();
  apply_chain_to<true>(D, chain);
  __syncwarp();
  for (int j = 0; j < len; ++j)
    if (lane >= j && lane < len) __stcg(&band(p, st + lane, st + j), D[lane][j]);
}

// The block below the window, A(j1:j1+len2-1, st:st+len-1) (warp 1): G^T from the right, then
// the next window's chain, made from its first column, from the left; that chain is published
// in `next`.
__device__ void update_block_below(const Chase &p, double (&Bk)[KD][KD + 1], const double2 *chain,
                                   double2 *next, int64_t s, int64_t st, int len, int64_t j1,
                                   int len2) {
  const int lane = threadIdx.x % 32;
  double below[KD];
#pragma unroll
  for (int j = 0; j < KD; ++j)
    below[j] = j < len && lane < len2 ? __ldcg(&band(p, j1 + lane, st + j)) : 0.0;
  apply_chain(below, chain);  // from the right: row by row
#pragma unroll
  for (int j = 0; j < KD; ++j) Bk[lane][j] = below[j];
  double c2, s2, r0;
  make_chain(lane < len2 ? below[0] : 0.0, len2, c2, s2, r0);  // (publish_chain syncs the warp)
  record(p, s, j1, len2, c2, s2);
  publish_chain(next, c2, s2);
  if (lane == 0) {  // column 0 is what the chain was made to produce
#pragma unroll
    for (int i = 0; i < KD; ++i) Bk[i][0] = i == 0 ? r0 : 0.0;
  } else {  // the rest from the left, column by column
    apply_chain_to<false>(Bk, next);
  }
  __syncwarp();
  for (int j = 0; j < len; ++j)
    if (lane < len2) __stcg(&band(p, j1 + lane, st + j), Bk[lane][j]);
}

// A worker (a block of two warps) per sweep: sweeps s_begin + blockIdx.x, then every gridDim.x
// after.
__global__ void __launch_bounds__(64) chase_kernel(Chase p) {
  __shared__ ChaseWorker W;
  const int lane = threadIdx.x % 32;
  const bool below_warp = threadIdx.x / 32 == 1;
  for (int64_t s = p.s_begin + blockIdx.x; s < p.s_end; s += gridDim.x) {
    const int nw = windows_of(p.n, s);
    const int prev_nw = s > 0 ? windows_of(p.n, s - 1) : 0;
    int cur = 0;
    for (int w = 0; w < nw; ++w) {
      // Warp 0 waits for the sweep before (its windows up to w + 1 touch this window's entries);
      // both warps follow its verdict, so that neither is left alone at a barrier.
      if (!below_warp) {
        const bool ok = s == 0 || wait_for(p, p.progress + (s - 1) * kFlagStride, min(w + 2, prev_nw));
        if (lane == 0) W.ok = ok;
      }
      __syncthreads();
      if (!W.ok) return;
      const int64_t st = s + 1 + int64_t(w) * KD, ed = min(st + KD - 1, p.n - 1);
      const int len = static_cast<int>(ed - st + 1);
      const int64_t j1 = ed + 1;
      const int len2 = j1 <= p.n - 1 ? static_cast<int>(min(ed + KD, p.n - 1) - j1 + 1) : 0;
      // Window 0's chain clears column s; both warps make it from the same entries (the same
      // rotations, bit for bit), warp 1 writes the column after the window's barrier, when
      // warp 0 has read it.
      double r0 = 0;
      const double2 *chain = W.chain[cur];
      if (w == 0) {
        const double x = lane < len ? __ldcg(&band(p, st + lane, s)) : 0.0;
        double c, sn;
        make_chain(x, len, c, sn, r0);
        if (below_warp) {
          record(p, s, st, len, c, sn);
          publish_chain(W.chain[cur], c, sn);
        } else {
          publish_chain(W.first, c, sn);
          chain = W.first;
        }
      }
      if (!below_warp) {
        // No fence of its own: warp 1's release after the worker's barrier publishes these stores
        // too (publish_progress). H100, n = 1024: 13.2 ms for the reduction where a fence here
        // took 14.0 (it held the barrier until warp 0's stores had reached L2).
        update_diagonal_block(p, W.D, chain, st, len);
      } else if (len2 > 0) {
        update_block_below(p, W.Bk, chain, W.chain[cur ^ 1], s, st, len, j1, len2);
      }
      __syncthreads();  // both blocks stored; warp 0 is done with the chain and column s
      if (below_warp) {
        if (w == 0 && lane < len) __stcg(&band(p, st + lane, s), lane == 0 ? r0 : 0.0);
        __syncwarp();  // the release below is a device-wide fence for the whole warp's stores
        if (lane == 0) publish_progress(&p.progress[s * kFlagStride], w + 1);
      }
      cur ^= 1;  // the new chain is the next window's (unused after the last window)
    }
  }
}

// Lower band storage of the band stage 1 left in a's upper triangle, with the bulge rows zeroed.
__global__ void to_band_kernel(const double *a, int64_t lda, int64_t n, double *ab) {
  for (int64_t idx = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; idx < n * kLdab;
       idx += int64_t(gridDim.x) * blockDim.x) {
    const int64_t j = idx / kLdab, d = idx % kLdab;
    ab[idx] = d <= KD && j + d < n ? a[j + (j + d) * lda] : 0.0;
  }
}

__global__ void identity_rotations_kernel(double2 *rot, int64_t count) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count;
       i += int64_t(gridDim.x) * blockDim.x)
    rot[i] = make_double2(1.0, 0.0);
}

// z := z G^T for every rotation of sweeps [s_begin, s_end), by blocks. Group g = sweeps
// s0 = s_begin + g*KG .. s0+KG-1; its window t covers columns base .. base+KD+KG-2 with
// base = s0 + 1 + t*KD (sweep s0+o's window t: columns base+o .. base+o+KD-1). With KG = KD the
// window sits at position pos = g + t: columns c_first + pos*KD .. (c_first = s_begin + 1), the
// column blocks pos and pos+1 of KD columns each, and every group's last window is at the same
// position P = (n - 2 - s_begin) / KD.
//
// 1. window_blocks_kernel: the KG*(KD-1) rotations of each (group, window) are multiplied into a
//    64 x 64 orthogonal block U, z's columns at that window := those columns * U.
// 2. apply_window_blocks_kernel: each thread block takes kRows rows of z and applies the blocks
//    as products on the FP64 tensor cores, in an order the rotations allow. A group walks its
//    windows from the last to the first (window t of sweep s commutes with windows t+1.. of the
//    later sweeps of its group, which touch columns past it), and group g+1 may apply the block
//    at position p once group g has applied the one at p - 1. So kBatch groups go together, each
//    two positions behind the one before it: their blocks of a step touch disjoint columns, and
//    the 2*kBatch column blocks in use sit in shared memory, one entering and one leaving per step.
static_assert(kApplyGroup == KD, "a window block's position needs KG = KD");
constexpr int kBlk = KD + kApplyGroup;  // order of a window block (KD + KG - 1 columns, one padding)
constexpr int kBatch = 2;               // groups a row strip takes through its windows at once
constexpr int kSlots = 2 * kBatch;      // column blocks of z in shared memory
constexpr int kApplyThreads = 32 * (kBlk / 8) * kBatch;  // a warp per 8 columns of each block

// Index of group g's block at position pos (g <= pos <= P): groups stored one after another.
__host__ __device__ inline int64_t window_block_index(int64_t g, int64_t pos, int64_t P) {
  return g * (P + 1) - g * (g - 1) / 2 + (pos - g);
}
int64_t top_position(int64_t n, int64_t s_begin) { return (n - 2 - s_begin) / KD; }
int64_t groups_of(int64_t sweeps) { return (sweeps + kApplyGroup - 1) / kApplyGroup; }

__global__ void __launch_bounds__(kBlk)
    window_blocks_kernel(const double2 *rot, int64_t ldrot, int64_t s_begin, int64_t s_end,
                         int64_t P, double *U) {
  __shared__ union {
    double2 rs[kApplyGroup][KD];  // the rotations
    double T[kBlk][kBlk + 1];     // then U, for coalesced stores
  } sh;
  auto &rs = sh.rs;
  auto &T = sh.T;
  const int64_t g = blockIdx.y, pos = g + blockIdx.x;
  if (pos > P) return;  // the whole block
  const int64_t s0 = s_begin + g * kApplyGroup, base = s_begin + 1 + pos * KD;
  for (int idx = threadIdx.x; idx < kApplyGroup * KD; idx += kBlk) {
    const int o = idx / KD, k = idx % KD;
    rs[o][k] = s0 + o < s_end && k > 0 ? rot[(s0 + o - s_begin) * ldrot + base + o + k]
                                       : make_double2(1.0, 0.0);
  }
  __syncthreads();
  // Row i of U is e_i^T taken through the rotations. Sweep o's rotation k (columns o+k-1, o+k)
  // needs sweep o's k+1 and sweep o-1's k .. k+2 before it, nothing else: in the order of step
  // o + (KD-1-k) the rotations of a step are independent, so up to KG chains are in flight at
  // once instead of one chain's waiting on each FMA.
  const int i = threadIdx.x;
  double W[kBlk];
#pragma unroll
  for (int j = 0; j < kBlk; ++j) W[j] = j == i ? 1.0 : 0.0;
#pragma unroll
  for (int step = 0; step < KD + kApplyGroup - 2; ++step) {
#pragma unroll
    for (int o = 0; o < kApplyGroup; ++o) {
      const int k = KD - 1 - (step - o);
      if (k >= 1 && k <= KD - 1) rotate_carry_y(rs[o][k], W[o + k - 1], W[o + k]);
    }
  }
  __syncthreads();  // everyone is done with rs
#pragma unroll
  for (int j = 0; j < kBlk; ++j) T[i][j] = W[j];
  __syncthreads();
  double *out = U + window_block_index(g, pos, P) * kBlk * kBlk;  // row-major
  for (int idx = threadIdx.x; idx < kBlk * kBlk; idx += kBlk) out[idx] = T[idx / kBlk][idx % kBlk];
}

// Shared memory of apply_window_blocks_kernel<kRows>: the column blocks of z, then two sets (this
// step's, the next step's) of kBatch window blocks, rows padded so that fragment loads do not
// conflict.
constexpr int kLdu = kBlk + 4;
constexpr size_t apply_smem_bytes(int rows) {
  return (size_t(kSlots) * KD * (rows + 4) + size_t(2) * kBatch * kBlk * kLdu) * sizeof(double);
}

template <int kRows>
__global__ void __launch_bounds__(kApplyThreads)
    apply_window_blocks_kernel(double *z, int64_t ldz, int64_t n, const double *U,
                               int64_t s_begin, int64_t groups, int64_t P) {
  constexpr int kLdz = kRows + 4;                    // padded: fragment loads without conflicts
  constexpr int kPer = kRows * KD / kApplyThreads;   // entries of a column block per thread
  constexpr int kWarpRows = kRows / 2;               // a block's 8 warps: 2 x 4 tiles of
  constexpr int kWarpCols = kBlk / 4;                // kWarpRows x kWarpCols
  static_assert(kPer * kApplyThreads == kRows * KD, "column block split");
  extern __shared__ double zs[];  // kSlots column blocks: zs[slot][column][row], kLdz per column
  double *us = zs + kSlots * KD * kLdz;  // [2][kBatch][kBlk][kLdu]: window blocks, row-major
  const int64_t r0 = int64_t(blockIdx.x) * kRows, c_first = s_begin + 1;
  const int warp = threadIdx.x / 32, jj = warp / 8, wr = warp % 8 / 4, wc = warp % 4;
  auto slot = [&](int64_t cb) { return zs + (cb % kSlots) * KD * kLdz; };
  // This thread's entries of a column block: row e % kRows, column e / kRows (coalesced).
  auto load = [&](int64_t cb, double (&v)[kPer]) {
#pragma unroll
    for (int q = 0; q < kPer; ++q) {
      const int e = threadIdx.x + q * kApplyThreads;
      const int64_t row = r0 + e % kRows, col = c_first + cb * KD + e / kRows;
      v[q] = row < n && col < n ? z[row + col * ldz] : 0.0;
    }
  };
  auto put = [&](int64_t cb, const double (&v)[kPer]) {
#pragma unroll
    for (int q = 0; q < kPer; ++q) {
      const int e = threadIdx.x + q * kApplyThreads;
      slot(cb)[(e / kRows) * kLdz + e % kRows] = v[q];
    }
  };
  auto store = [&](int64_t cb) {
#pragma unroll
    for (int q = 0; q < kPer; ++q) {
      const int e = threadIdx.x + q * kApplyThreads;
      const int64_t row = r0 + e % kRows, col = c_first + cb * KD + e / kRows;
      if (row < n && col < n) z[row + col * ldz] = slot(cb)[(e / kRows) * kLdz + e % kRows];
    }
  };
  // Step tau of the batch from group g0 (nb groups): group g0+j applies its block at position
  // P - tau + 2j, if it has one there.
  auto position = [&](int64_t g0, int nb, int64_t tau, int j, int64_t &p) {
    p = P - tau + 2 * j;
    return j < nb && p <= P && p >= g0 + j;
  };
  // The window blocks of step tau into set tau % 2, asynchronously (16 bytes a copy).
  auto fetch_blocks = [&](int64_t g0, int nb, int64_t tau) {
    double *set = us + (tau % 2) * kBatch * kBlk * kLdu;
    for (int idx = threadIdx.x; idx < kBatch * kBlk * kBlk / 2; idx += kApplyThreads) {
      const int j = idx / (kBlk * kBlk / 2), e = 2 * (idx % (kBlk * kBlk / 2));
      int64_t p;
      if (!position(g0, nb, tau, j, p)) continue;
      const double *src = U + window_block_index(g0 + j, p, P) * kBlk * kBlk + e;
      __pipeline_memcpy_async(set + (j * kBlk + e / kBlk) * kLdu + e % kBlk, src, 16);
    }
    __pipeline_commit();
  };
  double v[kPer];
  for (int64_t g0 = 0; g0 < groups; g0 += kBatch) {
    const int nb = static_cast<int>(std::min<int64_t>(kBatch, groups - g0));
    const int64_t last = P - g0 + (nb - 1);
    fetch_blocks(g0, nb, 0);
    load(P + 1, v);
    put(P + 1, v);
    load(P, v);
    put(P, v);
    __pipeline_wait_prior(0);
    __syncthreads();
    for (int64_t tau = 0; tau <= last; ++tau) {
      // Next step's blocks into the other set (its last readers finished before the previous
      // step's second barrier), and its entering column block of z into registers.
      if (tau < last) fetch_blocks(g0, nb, tau + 1);
      const int64_t enter = P - tau - 1;
      const bool fetch = tau < last && enter >= g0;
      if (fetch) load(enter, v);
      int64_t p;
      const bool act = position(g0, nb, tau, jj, p);
      const double *Ub = us + ((tau % 2) * kBatch + jj) * kBlk * kLdu;
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
      using namespace nvcuda;
      // Warp (jj, wr, wc): rows wr*kWarpRows .., columns wc*kWarpCols .. of the block's product.
      wmma::fragment<wmma::accumulator, 8, 8, 4, double> acc[kWarpRows / 8][kWarpCols / 8];
      if (act) {
#pragma unroll
        for (int r = 0; r < kWarpRows / 8; ++r)
#pragma unroll
          for (int c = 0; c < kWarpCols / 8; ++c) wmma::fill_fragment(acc[r][c], 0.0);
#pragma unroll 4
        for (int kk = 0; kk < kBlk / 4; ++kk) {
          const double *col = slot(p + 4 * kk / KD) + (4 * kk % KD) * kLdz + wr * kWarpRows;
          wmma::fragment<wmma::matrix_b, 8, 8, 4, double, wmma::row_major> fb[kWarpCols / 8];
#pragma unroll
          for (int c = 0; c < kWarpCols / 8; ++c)
            wmma::load_matrix_sync(fb[c], Ub + 4 * kk * kLdu + wc * kWarpCols + 8 * c, kLdu);
#pragma unroll
          for (int r = 0; r < kWarpRows / 8; ++r) {
            wmma::fragment<wmma::matrix_a, 8, 8, 4, double, wmma::col_major> fa;
            wmma::load_matrix_sync(fa, col + 8 * r, kLdz);
#pragma unroll
            for (int c = 0; c < kWarpCols / 8; ++c) wmma::mma_sync(acc[r][c], fa, fb[c], acc[r][c]);
          }
        }
      }
      __syncthreads();
      if (act) {
#pragma unroll
        for (int c = 0; c < kWarpCols / 8; ++c) {
          const int bc = wc * kWarpCols + 8 * c;  // column of the block
          double *col = slot(p + bc / KD) + (bc % KD) * kLdz + wr * kWarpRows;
#pragma unroll
          for (int r = 0; r < kWarpRows / 8; ++r)
            wmma::store_matrix_sync(col + 8 * r, acc[r][c], kLdz, wmma::mem_col_major);
        }
      }
#else
      // GPUs before sm_80 have no FP64 tensor cores: the same tiles with FMAs, lane l making
      // rows l, l+32, .. of the warp's tile (kWarpRows <= 32: row l when l < kWarpRows).
      double acc[kWarpCols] = {};
      const int lane = threadIdx.x % 32;
      const bool mine = act && lane < kWarpRows;
      if (mine)
        for (int k = 0; k < kBlk; ++k) {
          const double x = slot(p + k / KD)[(k % KD) * kLdz + wr * kWarpRows + lane];
          for (int c = 0; c < kWarpCols; ++c) acc[c] += x * Ub[k * kLdu + wc * kWarpCols + c];
        }
      __syncthreads();
      if (mine)
        for (int c = 0; c < kWarpCols; ++c) {
          const int bc = wc * kWarpCols + c;
          slot(p + bc / KD)[(bc % KD) * kLdz + wr * kWarpRows + lane] = acc[c];
        }
#endif
      __syncthreads();
      // The column block that leaves the window shares its slot with the one entering: each
      // thread stores its own entries before putting its new ones there.
      const int64_t leave = P - tau + kSlots - 1;
      if (leave <= P + 1) store(leave);
      if (fetch) put(enter, v);
      __pipeline_wait_prior(0);  // next step's blocks, seen by all after the barrier
      __syncthreads();
    }
    for (int64_t cb = std::max(g0, P - last); cb <= std::min(P + 1, P - last + kSlots - 2); ++cb)
      store(cb);
    __syncthreads();
  }
}

// y := Q2 y (SytrdZ::apply): z := z Q2 takes a chunk's blocks in steps tau = P - pos + 2g
// (block (g, pos) at step tau; apply_window_blocks_kernel's batches are one order of these that
// keeps every pair of overlapping blocks as they are here), the blocks of a step on disjoint
// columns. So Q2 y = (y^T Q2^T)^T takes the steps from the last to the first, each block as
// y(rows of its columns, :) := U y(those rows, :). A step's blocks tile a run of rows, 64 each:
// a work item is a block and 64 of y's columns, every thread block of a persistent cooperative
// grid takes items of the step, and the grid meets between steps. About P + 2 groups steps
// (767 at n = 8192), each a wave of small products, instead of z := z Q2's groups / kBatch
// sweeps over every block in sequence: y has few columns, so its work is in the steps' latency.
// H100, n = 8192, 81 columns: 5.7 ms (about 7.5 us a step; fetching the next step's block ahead
// changed it by under 1%: the grid's meeting and y's round trip set the pace).
constexpr int kRevCols = 64;                   // columns of y a work item takes
constexpr int kRevThreads = 256;               // 8 warps: warp w makes rows 8w .. 8w+7
constexpr int kLdy = kBlk + 4;                 // shared y tile, column-major, padded
// Two window blocks (this step's, the next step's fetched ahead) and y's tile.
constexpr size_t kRevSmem = (size_t(2) * kBlk * kLdu + size_t(kRevCols) * kLdy) * sizeof(double);
__global__ void __launch_bounds__(kRevThreads)
    reverse_blocks_kernel(double *y, int64_t ldy, int64_t n, int64_t cols, const double *U, int64_t s_begin,
                          int64_t groups, int64_t P) {
  extern __shared__ __align__(128) double rsm[];
  double *ys = rsm + 2 * kBlk * kLdu;  // y's tile: ys[c * kLdy + r]; before it two U buffers, row-major, kLdu
  const int64_t strips = (cols + kRevCols - 1) / kRevCols, r_first = s_begin + 1;
  const int warp = threadIdx.x / 32;
  // Step tau's items: (group, strip) for the groups g_lo .. g_hi with a block there
  // (g <= pos = P - tau + 2g <= P).
  auto g_lo = [&](int64_t tau) { return std::max<int64_t>(0, tau - P); };
  auto items_of = [&](int64_t tau) {
    const int64_t hi = std::min<int64_t>(groups - 1, tau / 2);
    return hi >= g_lo(tau) ? (hi - g_lo(tau) + 1) * strips : 0;
  };
  // Item `it` of step tau's window block into buffer `buf` (cp.async, committed).
  auto fetch_u = [&](int64_t tau, int64_t it, int buf) {
    const int64_t g = g_lo(tau) + it / strips, pos = P - tau + 2 * g;
    const double *Ub = U + window_block_index(g, pos, P) * kBlk * kBlk;
    double *us = rsm + buf * kBlk * kLdu;
    for (int idx = threadIdx.x; idx < kBlk * kBlk / 2; idx += kRevThreads) {
      const int e = 2 * idx;
      __pipeline_memcpy_async(us + (e / kBlk) * kLdu + e % kBlk, Ub + e, 16);
    }
    __pipeline_commit();
  };
  const int64_t last = P + 2 * (groups - 1);
  int cur = 0;
  if (blockIdx.x < items_of(last)) fetch_u(last, blockIdx.x, cur);
  for (int64_t tau = last; tau >= 0; --tau) {
    const int64_t items = items_of(tau);
    for (int64_t it = blockIdx.x; it < items; it += gridDim.x) {
      const int64_t g = g_lo(tau) + it / strips, c0 = it % strips * kRevCols, pos = P - tau + 2 * g;
      const int64_t row0 = r_first + pos * KD;
      if (it != blockIdx.x) fetch_u(tau, it, cur);  // (the first item's came ahead)
      for (int idx = threadIdx.x; idx < kBlk * kRevCols; idx += kRevThreads) {
        const int r = idx % kBlk, c = idx / kBlk;
        const int64_t row = row0 + r, col = c0 + c;
        ys[c * kLdy + r] = row < n && col < cols ? y[row + col * ldy] : 0.0;
      }
      __pipeline_wait_prior(0);
      __syncthreads();
      const double *us = rsm + cur * kBlk * kLdu;
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
      using namespace nvcuda;
      wmma::fragment<wmma::accumulator, 8, 8, 4, double> acc[kRevCols / 8];
#pragma unroll
      for (int ct = 0; ct < kRevCols / 8; ++ct) wmma::fill_fragment(acc[ct], 0.0);
#pragma unroll 4
      for (int kk = 0; kk < kBlk / 4; ++kk) {
        wmma::fragment<wmma::matrix_a, 8, 8, 4, double, wmma::row_major> fa;
        wmma::load_matrix_sync(fa, us + 8 * warp * kLdu + 4 * kk, kLdu);
#pragma unroll
        for (int ct = 0; ct < kRevCols / 8; ++ct) {
          wmma::fragment<wmma::matrix_b, 8, 8, 4, double, wmma::col_major> fb;
          wmma::load_matrix_sync(fb, ys + 8 * ct * kLdy + 4 * kk, kLdy);
          wmma::mma_sync(acc[ct], fa, fb, acc[ct]);
        }
      }
      __syncthreads();
#pragma unroll
      for (int ct = 0; ct < kRevCols / 8; ++ct)
        wmma::store_matrix_sync(ys + 8 * ct * kLdy + 8 * warp, acc[ct], kLdy, wmma::mem_col_major);
#else
      // GPUs before sm_80 have no FP64 tensor cores: 16 rows of one column per thread, FMAs.
      constexpr int kRows = kBlk * kRevCols / kRevThreads;
      const int c = threadIdx.x % kRevCols, i0 = threadIdx.x / kRevCols * kRows;
      double acc[kRows] = {};
      for (int k = 0; k < kBlk; ++k) {
        const double x = ys[c * kLdy + k];
        for (int r = 0; r < kRows; ++r) acc[r] += us[(i0 + r) * kLdu + k] * x;
      }
      __syncthreads();
      for (int r = 0; r < kRows; ++r) ys[c * kLdy + i0 + r] = acc[r];
#endif
      __syncthreads();
      for (int idx = threadIdx.x; idx < kBlk * kRevCols; idx += kRevThreads) {
        const int r = idx % kBlk, c = idx / kBlk;
        const int64_t row = row0 + r, col = c0 + c;
        if (row < n && col < cols) y[row + col * ldy] = ys[c * kLdy + r];
      }
      __syncthreads();
    }
    // The next step's first block into the other buffer while the grid meets: U does not
    // depend on y.
    cur ^= 1;
    if (tau > 0 && blockIdx.x < items_of(tau - 1)) fetch_u(tau - 1, blockIdx.x, cur);
    cooperative_groups::this_grid().sync();
  }
}

unsigned grid_for(int64_t count, int threads) {
  return static_cast<unsigned>(std::min<int64_t>(4096, (count + threads - 1) / threads));
}

// One worker (two warps) a block, spread over the SMs: the chase is a latency-bound pipeline of a
// few hundred warps and leaves most of each SM to the work queued beside it (Q1 being formed).
// Blocks of 8 workers holding most of an SM's shared memory, which kept that work off
// the chase's SMs, were slower everywhere measured (H200, 2026-11-29, gpu_syevd_dev 'V' medians
// in one process: 8.37 / 19.05 / 47.89 / 126.57 / 444.11 ms reserved against 7.69 / 16.09 /
// 39.86 / 112.45 / 442.62 ms at n = 512 / 1024 / 2048 / 4096 / 8192: the chase alone took 9.9
// ms at 1024 reserved, 7.0 ms not, against Q1's 1.2 ms beside it).
Status chase(cudaStream_t st, const Chase &args) {
  int sms = 0, per_sm = 0;
  Status s = sm_count(&sms);
  if (s) s = check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, chase_kernel, 64, 0), "occupancy");
  if (!s) return s;
  // Every worker of the grid must be resident (a worker waits on the sweep before it): a
  // cooperative launch guarantees it or fails. A sweep lasts its windows, about (n - s)/KD of
  // them, and the next starts two windows after it: about n/(2 KD) sweeps are in flight, and a
  // worker per sweep more would only spin. Twice that keeps the pipeline from waiting on a
  // worker still busy with its previous sweep.
  const int64_t useful = std::max<int64_t>(32, args.n / KD);
  const int64_t want = std::min<int64_t>(args.s_end - args.s_begin, useful);
  const int64_t grid = std::min<int64_t>(int64_t(per_sm) * sms, want);
  Chase a = args;
  void *params[] = {&a};
  return check(cudaLaunchCooperativeKernel(reinterpret_cast<void *>(chase_kernel),
                                           dim3(static_cast<unsigned>(grid)), dim3(64), params, 0, st),
               "sytrd chase_kernel");
}

// Bytes of a chunk of c sweeps starting at sweep 0 (the largest): its rotations and its blocks.
size_t rot_bytes(int64_t n, int64_t c) { return size_t(c) * rot_ld(n) * sizeof(double2); }
// Bytes of the window blocks of the chunk of sweeps [s0, s1).
size_t chunk_window_bytes(int64_t n, int64_t s0, int64_t s1) {
  const int64_t groups = groups_of(s1 - s0);
  return size_t(window_block_index(groups, groups, top_position(n, s0))) * kBlk * kBlk * sizeof(double);
}
size_t window_bytes(int64_t n, int64_t c) { return chunk_window_bytes(n, 0, c); }

// Q1's blocks are all kept (for forming Q1 from its right end, next to the chase) up to this.
constexpr size_t kKeepBudget = tuning::kSytrdKeepBytes;
// Stage 1's workspace, of the method in use.
size_t stage1_bytes(int64_t n, bool keep_all) {
  return sytrd_stage1(n) == SytrdStage1::householder ? sytrd_hh_bytes(n, keep_all)
                                                    : sytrd_band_blocks_bytes(n, keep_all);
}
bool keep_q1_blocks(int64_t n, SytrdZ zmode) {
  return zmode == SytrdZ::form && stage1_bytes(n, true) <= kKeepBudget;
}
// y := Q1 y (SytrdZ::apply) or z := Q1 (z the identity), from what stage 1 kept.
Status stage1_apply_q1(cudaStream_t st, int64_t n, double *y, int64_t ldy, int64_t cols, void *blocks,
                       bool form) {
  if (sytrd_stage1(n) == SytrdStage1::householder)
    return form ? sytrd_hh_form_q1(st, n, y, ldy, blocks) : sytrd_hh_apply_q1(st, n, y, ldy, cols, blocks);
  return form ? sytrd_band_form_q1(st, n, y, ldy, static_cast<const double *>(blocks))
              : sytrd_band_apply_q1(st, n, y, ldy, cols, static_cast<const double *>(blocks));
}

// The stream for the chase while Q1 is formed on the caller's stream (the thread's fork stream of
// the highest priority, Context::fork_streams: kept, never created per call), forked from and
// joined to it by events, which are released on every return.
struct ChaseStream {
  cudaStream_t s = nullptr;
  cudaEvent_t fork = nullptr, join = nullptr;
  Status init() {
    cudaStream_t forks[3] = {};
    Status r = thread_fork_streams(forks);
    s = forks[0];
    for (cudaEvent_t *e : {&fork, &join})
      if (r) r = check(cudaEventCreateWithFlags(e, cudaEventDisableTiming), "cudaEventCreate");
    return r;
  }
  ~ChaseStream() {
    for (cudaEvent_t e : {fork, join})
      if (e) cudaEventDestroy(e);
  }
};

template <int kRows>
Status apply_window_blocks(cudaStream_t st, double *z, int64_t ldz, int64_t n, const double *U,
                           int64_t s_begin, int64_t groups, int64_t P) {
  const size_t smem = apply_smem_bytes(kRows);
  Status s = check(cudaFuncSetAttribute(apply_window_blocks_kernel<kRows>,
                                        cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)),
                   "cudaFuncSetAttribute");
  if (!s) return s;
  apply_window_blocks_kernel<kRows><<<static_cast<unsigned>((n + kRows - 1) / kRows), kApplyThreads, smem, st>>>(
      z, ldz, n, U, s_begin, groups, P);
  return check_launch("sytrd apply_window_blocks_kernel");
}

// The window blocks U of sweeps [s0, s1)'s rotations.
Status make_window_blocks(cudaStream_t st, int64_t n, const double2 *rot, int64_t ldrot, int64_t s0, int64_t s1,
                          double *U) {
  const int64_t P = top_position(n, s0), groups = groups_of(s1 - s0);
  window_blocks_kernel<<<dim3(static_cast<unsigned>(P + 1), static_cast<unsigned>(groups)), kBlk, 0, st>>>(
      rot, ldrot, s0, s1, P, U);
  return check_launch("sytrd window_blocks_kernel");
}

// z := z * (the rotations of sweeps [s0, s1)).
Status apply_rotations(cudaStream_t st, double *z, int64_t ldz, int64_t n, const double2 *rot,
                       int64_t ldrot, int64_t s0, int64_t s1, double *U) {
  const int64_t P = top_position(n, s0), groups = groups_of(s1 - s0);
  Status s = make_window_blocks(st, n, rot, ldrot, s0, s1, U);
  int sms = 0;
  if (s) s = sm_count(&sms);
  if (!s) return s;
  // One thread block per SM runs (registers): 64 rows a block unless 32 take fewer waves.
  // GPUEIG_SYTRD_ZROWS (32 or 64) lets the tests take either on any order.
  auto span = [&](int64_t rows) { return (n + rows * sms - 1) / (rows * sms) * rows; };
  bool rows32 = span(32) < span(64);
  if (const int z = env::choice("GPUEIG_SYTRD_ZROWS", {"auto", "32", "64"}, 0)) rows32 = z == 1;
  return rows32 ? apply_window_blocks<32>(st, z, ldz, n, U, s0, groups, P)
                : apply_window_blocks<64>(st, z, ldz, n, U, s0, groups, P);
}

// y := (the rotations of sweeps [s0, s1)) y, from their window blocks U (reverse_blocks_kernel).
Status apply_rotations_reverse(cudaStream_t st, double *y, int64_t ldy, int64_t n, int64_t cols, const double *U,
                               int64_t s0, int64_t s1) {
  int64_t P = top_position(n, s0), groups = groups_of(s1 - s0);
  int sms = 0, per_sm = 0;
  Status s = sm_count(&sms);
  if (s) s = check(cudaFuncSetAttribute(reverse_blocks_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        int(kRevSmem)),
                   "cudaFuncSetAttribute");
  if (s)
    s = check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, reverse_blocks_kernel, kRevThreads, kRevSmem),
              "occupancy");
  if (!s) return s;
  if (per_sm < 1) return Status::fail(Status::unavailable, "sytrd: reverse_blocks_kernel cannot be resident");
  // No more thread blocks than the widest step has items (about (P + 1) / 2 blocks, times the
  // column strips).
  const int64_t strips = (cols + kRevCols - 1) / kRevCols;
  const int64_t widest = (std::min<int64_t>(groups, P / 2 + 1) + 1) * strips;
  const int64_t grid = std::max<int64_t>(1, std::min<int64_t>(int64_t(per_sm) * sms, widest));
  void *params[] = {&y, &ldy, &n, &cols, const_cast<double **>(&U), &s0, &groups, &P};
  return check(cudaLaunchCooperativeKernel(reinterpret_cast<void *>(reverse_blocks_kernel),
                                           dim3(static_cast<unsigned>(grid)), dim3(kRevThreads), params, kRevSmem, st),
               "sytrd reverse_blocks_kernel");
}

}  // namespace

SytrdMethod sytrd_method() {
  return env::choice("GPUEIG_SYTRD_METHOD", {"two-stage", "tree"}, 0) == 1 ? SytrdMethod::tree
                                                                           : SytrdMethod::two_stage;
}

namespace {

// The two-stage method's workspace: stage 1's blocks, the band, the chase's progress flags and
// failure flag, and (with z) a chunk's rotations and window blocks; SytrdZ::apply keeps every
// chunk's window blocks, one after another.
struct TwoStageLayout {
  size_t blocks, ab, progress, failed, rot = 0, window = 0, bytes;
};

bool keeps_all_blocks(int64_t n, SytrdZ zmode) { return zmode == SytrdZ::apply || keep_q1_blocks(n, zmode); }

TwoStageLayout two_stage_layout(int64_t n, SytrdZ zmode) {
  WorkspacePlan plan;
  TwoStageLayout l{};
  l.blocks = plan.add(stage1_bytes(n, keeps_all_blocks(n, zmode)));
  l.ab = plan.add_array<double>(size_t(kLdab) * n);
  l.progress = plan.add_array<int>((sweeps_of(n) + 1) * kFlagStride);
  l.failed = plan.add_array<int>(1);
  if (zmode != SytrdZ::none) {
    const int64_t c = chunk_sweeps(n);
    l.rot = plan.add(rot_bytes(n, c));
    size_t window = window_bytes(n, c);
    if (zmode == SytrdZ::apply) {
      window = 0;
      for (int64_t s0 = 0; s0 < sweeps_of(n); s0 += c) window += chunk_window_bytes(n, s0, std::min(sweeps_of(n), s0 + c));
    }
    l.window = plan.add(std::max<size_t>(window, 1));
  }
  l.bytes = plan.bytes();
  return l;
}

}  // namespace

size_t sytrd_two_stage_bytes(int64_t n, SytrdZ zmode) { return two_stage_layout(n, zmode).bytes; }

bool sytrd_can_apply(int64_t n) { return two_stage_layout(n, SytrdZ::apply).bytes <= tuning::kSytrdApplyBytes; }

Status sytrd_two_stage(cudaStream_t st, int64_t n, double *a, int64_t lda, double *d, double *e,
                       double *z, int64_t ldz, SytrdZ zmode, void *work) {
  if ((zmode == SytrdZ::none || zmode == SytrdZ::apply) != (z == nullptr))
    return Status::fail(Status::device_error, "sytrd_two_stage: z and zmode disagree");
  const bool apply = zmode == SytrdZ::apply;
  const bool keep = keeps_all_blocks(n, zmode), form_beside = keep && !apply;
  const TwoStageLayout l = two_stage_layout(n, zmode);
  double *blocks = part<double>(work, l.blocks), *ab = part<double>(work, l.ab);
  int *progress = part<int>(work, l.progress), *failed = part<int>(work, l.failed);
  const int64_t chunk = chunk_sweeps(n), ldrot = rot_ld(n);
  const bool rotations = zmode != SytrdZ::none;
  double2 *rot = rotations ? part<double2>(work, l.rot) : nullptr;
  double *U = rotations ? part<double>(work, l.window) : nullptr;

  // One failure flag for both stages' pipeline waits, checked at the end.
  Status s = check(cudaMemsetAsync(failed, 0, sizeof(int), st), "cudaMemsetAsync");
  if (s)
    s = sytrd_stage1(n) == SytrdStage1::householder
            ? sytrd_hh_to_band(st, n, a, lda, keep ? nullptr : z, ldz, blocks, keep)
            : sytrd_to_band(st, n, a, lda, keep ? nullptr : z, ldz, blocks, keep, failed);
  if (!s) return s;
  to_band_kernel<<<grid_for(n * kLdab, 256), 256, 0, st>>>(a, lda, n, ab);
  if (!(s = check_launch("sytrd to_band_kernel"))) return s;
  if (!(s = check(cudaMemsetAsync(progress, 0, (sweeps_of(n) + 1) * kFlagStride * sizeof(int), st),
                  "cudaMemsetAsync")))
    return s;
  // With the blocks kept to form Q, Q1 is formed on st while the first chunk is chased on a
  // stream of the highest priority: the chase is a latency-bound pipeline of a few hundred warps
  // and leaves most of the GPU to Q1's products.
  ChaseStream cs;
  if (form_beside && !((s = cs.init()) && (s = record_wait(cs.fork, st, cs.s)))) return s;
  for (int64_t s0 = 0; s0 < sweeps_of(n); s0 += chunk) {
    const int64_t s1 = std::min(sweeps_of(n), s0 + chunk);
    const cudaStream_t on = form_beside && s0 == 0 ? cs.s : st;
    if (rot) {
      identity_rotations_kernel<<<grid_for((s1 - s0) * ldrot, 256), 256, 0, on>>>(rot, (s1 - s0) * ldrot);
      if (!(s = check_launch("sytrd identity_rotations_kernel"))) return s;
    }
    if (!(s = chase(on, Chase{ab, n, s0, s1, progress, rot, ldrot, failed}))) return s;
    if (on != st) {
      if (!(s = stage1_apply_q1(st, n, z, ldz, n, blocks, true))) return s;
      if (!(s = record_wait(cs.join, on, st))) return s;
    }
    if (apply) {  // the chunk's blocks kept, after the chunks before it
      if (!(s = make_window_blocks(st, n, rot, ldrot, s0, s1, U))) return s;
      U += chunk_window_bytes(n, s0, s1) / sizeof(double);
    } else if (rot && !(s = apply_rotations(st, z, ldz, n, rot, ldrot, s0, s1, U))) {
      return s;
    }
  }
  if (form_beside && sweeps_of(n) == 0 && !(s = stage1_apply_q1(st, n, z, ldz, n, blocks, true))) return s;
  if (!(s = sytrd_take_tridiagonal(st, n, ab, kLdab, d, e))) return s;
  int bad = 0;
  if (!(s = fetch_flag(st, failed, &bad))) return s;
  if (bad) return Status::fail(Status::device_error, "sytrd: a pipeline wait timed out");
  return Status::success();
}

Status sytrd_apply_q(cudaStream_t st, int64_t n, const void *work, double *y, int64_t ldy, int64_t cols) {
  if (cols <= 0 || n <= 0) return Status::success();
  const TwoStageLayout l = two_stage_layout(n, SytrdZ::apply);
  void *w = const_cast<void *>(work);
  const double *U = part<double>(w, l.window);
  // Q2 = Q2(chunk 0) Q2(chunk 1) ..: the last chunk's first.
  const int64_t chunk = chunk_sweeps(n);
  std::vector<const double *> at;
  for (int64_t s0 = 0; s0 < sweeps_of(n); s0 += chunk) {
    at.push_back(U);
    U += chunk_window_bytes(n, s0, std::min(sweeps_of(n), s0 + chunk)) / sizeof(double);
  }
  Status s;
  for (int64_t k = int64_t(at.size()) - 1; k >= 0; --k) {
    const int64_t s0 = k * chunk, s1 = std::min(sweeps_of(n), s0 + chunk);
    if (!(s = apply_rotations_reverse(st, y, ldy, n, cols, at[k], s0, s1))) return s;
  }
  return stage1_apply_q1(st, n, y, ldy, cols, part<double>(w, l.blocks), false);
}

}  // namespace gpueig::gpu
