// gpu_getrf_crout, GPU half: blocked Crout LU with partial pivoting on a device-resident matrix.
//
// The outer loop is LAPACK's Crout variant (SRC/VARIANTS/lu/CR/dgetrf.f). For each panel of nb
// columns starting at column j:
//   1. panel update   A(j:m, j:j+nb) -= A(j:m, 0:j) A(0:j, j:j+nb)          (DGEMM, K = j)
//   2. panel factor   A(j:m, j:j+nb) = P L U, pivots into ipiv(j:j+nb)       (below)
//   3. interchanges   on columns 0:j and j+nb:n              (plan_swaps, apply_swaps)
//   4. block row      A(j:j+nb, j+nb:n) -= A(j:j+nb, 0:j) A(0:j, j+nb:n)      (DGEMM, K = j)
//                     A(j:j+nb, j+nb:n) = L(j:j+nb, j:j+nb)^-1 A(j:j+nb, j+nb:n)  (DTRSM)
// Both DGEMMs have the long inner dimension j, the shape FP64 tensor cores run fastest.
//
// The panel is factored recursively as DGETRF2 does (left half, interchanges, DTRSM, DGEMM, right
// half), down to sub-panels of at most kBaseW columns. A sub-panel is factored by one cooperative
// kernel (panel_kernel) that keeps it in registers (a row shared by a few threads of a warp),
// spread over up to one block per SM. Per column, each block publishes its best candidate row
// and a 16-byte offer; every block waits for all offers (no grid barrier), picks the same
// pivot, reads the winning row once from L2, and each thread swaps, scales and updates its own
// part of its rows. No host round trip and no kernel launch per column. On the H100 a column
// costs about 3.5 us at 8192 rows (2026-11-21, `gpueig_bench --getrf-panel`): the cost is the
// latency of one warp's instructions and two L2 trips, so the reductions on that path use the
// hardware warp reductions and the update is split over several threads per row.
//
// A sub-panel too tall for registers (more than 262144 rows: 2^20 rows of 4 columns fill an
// H100's register file) is factored by stream_panel_kernel instead: kStreamW columns, the rows
// left in memory (L2 holds them), one pass over the rows per column, the same exchange and
// rounding.
//
// Pivot choice is DGETF2's: the first entry of largest magnitude; a zero pivot is recorded in
// INFO (the first one) and its column left unscaled, and the factorization goes on. A NaN never
// wins the pivot search, so the host wrapper sends matrices with non-finite entries to LAPACK
// (the `nonfinite` flag), whose INFO then depends on its own BLAS's NaN rules.
#include <algorithm>
#include <climits>
#include <cstddef>
#include <string>
#include <vector>

#include "context.hpp"
#include "device_util.hpp"
#include "env.hpp"
#include "getrf.hpp"
#include "cublas_loader.hpp"
#include "gpueig.h"
#include "progress.cuh"

namespace gpueig::gpu {
namespace {

constexpr int kMaxThreads = 512;  // threads per block of the panel kernel, at most
constexpr int kBaseW = 64;        // widest sub-panel the panel kernel takes
constexpr int kMinW = 4;          // narrowest kernel width (narrower sub-panels are padded)
constexpr int kMaxRows = 4;       // rows a thread of the panel kernel holds, at most
// Width of the streaming kernel's sub-panels, for panels too tall for registers: 2^20 rows x 4
// columns (32 MB) stay in the H100's 50 MB L2 while they are factored.
constexpr int kStreamW = 4;
// A thread of the panel kernel holds up to kColsPerThread columns of a row: several threads
// share a row, so that a column costs each thread a few instructions and an SM has enough
// warps to hide their latency.
constexpr int kColsPerThread = 8;
constexpr int kMaxBlocks = 128;   // blocks of a panel launch, at most (4 offers per lane)
constexpr int kMaxSwaps = 1024;   // rows one interchange plan moves: 2 x the widest panel (512)
constexpr int kSwapCols = 4;      // columns an apply_swaps block moves per step
constexpr int kSwapThreads = 256;  // threads of an apply_swaps block
constexpr int64_t kGatherCols = 256;  // columns of the streamed path's gather buffer
// Widest chunk of the streamed path. Chosen when each chunk's steps stopped at its edge (H100,
// 2026-11-21: the chunked factorization without transfers took 53.7 / 47.7 / 45.2 / 45.3 ms at
// n = 8192 with 512 / 1024 / 2048 / 4096, and 169.0 / 157.7 / 156.8 ms at 16384 with 1024 /
// 2048 / 4096; 43.3 and 157.9 with one chunk). Since chunks come in as they land it matters
// little: at n = 16384 with chunks landing at 50 GB/s (the fed probe's link feed, H200,
// 2026-11-29, the width overridden by an uncommitted patch) 145.1 / 143.0 / 143.5 / 143.4 ms
// with at most 1024 / 2048 / 4096 / 8192 columns.
constexpr int64_t kMaxChunk = 4096;
// Steps a fed factorization queues ahead of the GPU, at most (Throttle).
constexpr int kFeedAhead = 8;
constexpr double kSfmin = 2.2250738585072014e-308;  // DLAMCH('S'): DGETF2 divides below it

// Row interchanges ipiv[k0..k1) of a panel, as one permutation of the rows they touch: row
// dst[i] receives the old row src[i]. Rows are relative to the column start.
struct SwapPlan {
  int count;
  int64_t dst[kMaxSwaps], src[kMaxSwaps];
};

// A value published by one block for the others: the value and a tag that says which column of
// which launch it belongs to, written and read as one 16-byte access (as CUB's decoupled
// look-back does), so a reader that sees the tag sees the value. Every published value carries
// its own tag: the writer needs no fence between a row and the offer that announces it.
struct alignas(16) Tagged {
  double value;
  unsigned long long tag;
};

// Everything is double-buffered by column parity: a block can publish column k + 1 while a
// slower one still reads column k, but not column k + 2 (that needs the slow block's k + 1).
struct Scratch {
  Tagged offer[2][kMaxBlocks];              // every block's best |value| of the column
  Tagged cand[2][kMaxBlocks][kBaseW + 1];   // its row's kBaseW values, then the row's index
  Tagged rowk[2][kBaseW];                   // the diagonal row before the interchange
  // The interchange plans, by step parity: with look-ahead, the side stream plans step k + 1's
  // panel while the call's stream still applies step k's plan.
  SwapPlan plan[2];
};

struct PanelArgs {
  double *a;
  int64_t lda, h;           // the sub-panel: h rows x w columns at a (w <= the kernel's W)
  int w;
  int *ipiv;                // w entries
  int64_t row_base;         // global row of the sub-panel's row 0 (ipiv values are global, 1-based)
  int64_t col_base;         // global column of its column 0 (for INFO)
  int *info;
  Scratch *s;
  unsigned long long tag0;  // column k's offers carry tag0 + k; unique within a getrf_device call
};

// Keeps (v, i) in (bv, bi) if it is the better candidate: larger magnitude, then the smaller
// index (DGETF2 takes the first maximum; blocks own ascending row ranges).
__device__ __forceinline__ void offer(double v, long long i, double &bv, long long &bi) {
  if (v > bv || (v == bv && i < bi)) {
    bv = v;
    bi = i;
  }
}

// The best candidate of the warp (as `offer` orders them), in every lane. v < 0 means none;
// indices are below 2^32 - 1 (rows of a panel, blocks). Three warp reductions in hardware
// (REDUX) instead of five rounds of shuffles: this runs three times per column on the path
// every block waits for. A non-negative double orders as its bit pattern; +1 keeps 0.0 above
// "none".
__device__ __forceinline__ void warp_best(double &bv, long long &bi) {
  const unsigned long long key =
      bv >= 0.0 ? static_cast<unsigned long long>(__double_as_longlong(bv)) + 1 : 0;
  const unsigned hi = static_cast<unsigned>(key >> 32), lo = static_cast<unsigned>(key);
  const unsigned top_hi = __reduce_max_sync(0xffffffffu, hi);
  const unsigned top_lo = __reduce_max_sync(0xffffffffu, hi == top_hi ? lo : 0u);
  const bool top = hi == top_hi && lo == top_lo;
  const unsigned idx = bi == LLONG_MAX ? 0xffffffffu : static_cast<unsigned>(bi);
  const unsigned first = __reduce_min_sync(0xffffffffu, top ? idx : 0xffffffffu);
  const unsigned long long best = (static_cast<unsigned long long>(top_hi) << 32) | top_lo;
  bv = best == 0 ? -1.0 : __longlong_as_double(static_cast<long long>(best - 1));
  bi = first == 0xffffffffu ? LLONG_MAX : static_cast<long long>(first);
}

// One 16-byte store / load of a Tagged, cached in L2 only (as CUB's tile-status polling: .cg
// reaches the L2, which every SM shares; asm volatile keeps the compiler from reusing a load).
__device__ __forceinline__ void publish(Tagged *o, double value, unsigned long long tag) {
  asm volatile("st.global.cg.v2.u64 [%0], {%1, %2};" ::"l"(o),
               "l"(__double_as_longlong(value)), "l"(tag)
               : "memory");
}
__device__ __forceinline__ unsigned long long peek(const Tagged *o, double *value) {
  unsigned long long v, tag;
  asm volatile("ld.global.cg.v2.u64 {%0, %1}, [%2];" : "=l"(v), "=l"(tag) : "l"(o) : "memory");
  *value = __longlong_as_double(static_cast<long long>(v));
  return tag;
}
// The values of up to N Tagged (those whose bit is set in `want`) once each carries `tag`. All
// are requested before any is waited for: one trip to L2 for the lot, not one each.
// A wait past kProgressWaitLimitNs means a block that never published (a bug, never seen): INFO
// becomes GPUEIG_ERR_DEVICE for the host to report (the call fails, never returns these
// factors as a result), and the wait returns with what it has; every later wait of the call
// sees that INFO within a few hundred polls and returns too, so the factorization runs out
// instead of hanging the caller. The clock is read only after 256 polls.
template <int N>
__device__ __forceinline__ void await_all(const Tagged *const (&src)[N], unsigned want,
                                          unsigned long long tag, double (&out)[N], int *info) {
  unsigned long long t0 = 0;
  for (unsigned polls = 1; want; ++polls) {
    unsigned long long t[N];
#pragma unroll
    for (int j = 0; j < N; ++j)
      if (want >> j & 1u) t[j] = peek(src[j], &out[j]);
#pragma unroll
    for (int j = 0; j < N; ++j)
      if ((want >> j & 1u) && t[j] == tag) want &= ~(1u << j);
    if (want && polls % 256 == 0) {
      if (cuda::atomic_ref<int, cuda::thread_scope_device>(*info).load(cuda::memory_order_relaxed) ==
          GPUEIG_ERR_DEVICE)
        return;
      const unsigned long long now = global_ns();
      if (t0 == 0) {
        t0 = now;
      } else if (now - t0 > kProgressWaitLimitNs) {
        atomicExch(info, GPUEIG_ERR_DEVICE);
        return;
      }
    }
  }
}

// r[k] for a register array and a run-time k (a select chain: registers cannot be indexed).
template <int N>
__device__ __forceinline__ double pick(const double (&r)[N], int k) {
  double x = r[0];
#pragma unroll
  for (int c = 1; c < N; ++c) x = c == k ? r[c] : x;
  return x;
}

// The block's best candidate (as `offer` orders them), in every thread: a warp reduction, then
// one over the warps' results by shuffles. Ends with every thread past a barrier.
__device__ __forceinline__ void block_best(double &best, long long &bi, double *s_val,
                                           long long *s_idx) {
  const int lane = threadIdx.x % 32, wid = threadIdx.x / 32, warps = blockDim.x / 32;
  warp_best(best, bi);
  if (lane == 0) {
    s_val[wid] = best;
    s_idx[wid] = bi;
  }
  __syncthreads();
  best = lane < warps ? s_val[lane] : -1.0;
  bi = lane < warps ? s_idx[lane] : LLONG_MAX;
  warp_best(best, bi);
}

// Warp 0 of every block, column k: waits for all blocks' offers, picks the winner (the same data
// and order in every block, so every block picks the same row), then reads its row (urow) and
// row k (krow) of W entries into shared memory; *s_p = the pivot row. Two trips to L2.
template <int W>
__device__ __forceinline__ void take_pivot(const PanelArgs &P, int k, int par,
                                           unsigned long long tag, double *urow, double *krow,
                                           long long *s_p) {
  const int lane = threadIdx.x % 32, nblk = gridDim.x;
  const long long kNone = LLONG_MAX;
  double bv = -1.0;  // the winning block's |value| and number
  long long bp = kNone;
  constexpr int kPer = kMaxBlocks / 32;  // offers a lane waits for
  const Tagged *from[kPer];
  double v[kPer];
  unsigned want = 0;
#pragma unroll
  for (int j = 0; j < kPer; ++j) {
    from[j] = &P.s->offer[par][lane + 32 * j];
    if (lane + 32 * j < nblk) want |= 1u << j;
  }
  await_all(from, want, tag, v, P.info);
#pragma unroll
  for (int j = 0; j < kPer; ++j)
    if (lane + 32 * j < nblk && v[j] >= 0.0) offer(v[j], lane + 32 * j, bv, bp);
  warp_best(bv, bp);  // bp: the winning block
  // Its row and index, and row k, in one trip. No candidate anywhere (only NaN on and below the
  // diagonal): row k stays, as IDAMAX's would not; the caller sends such matrices to LAPACK anyway.
  const Tagged *win = P.s->cand[par][bp == kNone ? 0 : bp];
  const int e0 = lane, e1 = lane + 32;
  const Tagged *row_from[5] = {&P.s->rowk[par][e0], &P.s->rowk[par][e1 % kBaseW], win + e0,
                               win + e1 % kBaseW, win + W};
  unsigned need = (e0 < W ? 1u : 0u) | (e1 < W ? 2u : 0u);
  if (bp != kNone) need |= need << 2 | (lane == 0 ? 16u : 0u);
  double x[5];
  await_all(row_from, need, tag, x, P.info);
  if (e0 < W) {
    krow[e0] = x[0];
    urow[e0] = bp == kNone ? x[0] : x[2];
  }
  if (e1 < W) {
    krow[e1] = x[1];
    urow[e1] = bp == kNone ? x[1] : x[3];
  }
  if (lane == 0) *s_p = bp == kNone ? k : static_cast<long long>(x[4]);
}

// IPIV(k) and the first zero pivot's INFO, once per column (block 0's thread 0).
__device__ __forceinline__ void record_pivot(const PanelArgs &P, int k, long long p, double piv) {
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    P.ipiv[k] = static_cast<int>(P.row_base + p + 1);
    if (piv == 0.0) atomicCAS(P.info, 0, static_cast<int>(P.col_base + k + 1));
  }
}

// Factors an h x w sub-panel (w <= W) with partial pivoting. A row is shared by G = W / C
// threads of one warp (C = min(W, kColsPerThread) columns each); a warp holds RW = 32 / G row
// slots, a block of T threads T / G slots, and every thread R rows (the slot's row, then the
// rows T / G, 2 T / G, ... further down): block b owns rows [b RB, (b + 1) RB), RB = R T / G.
// Lane l of a warp serves row slot l % RW and column group l / RW, so that consecutive lanes
// load consecutive rows. Per column k:
//   - the threads of row k publish it (rowk); every block finds its best candidate row, whose
//     threads publish it, and thread 0 publishes the block's offer {|value|};
//   - warp 0 of every block waits for all offers, picks the winner (same data and order in
//     every block, so every block picks the same row), then reads its row and row k: two trips
//     to L2, no grid barrier;
//   - every thread swaps, scales and updates its own part of its rows, with no barrier.
// The grid is launched cooperatively so that all blocks are resident and the waits end.
// (A variant exchanging through one thread-block cluster's shared memory was measured on the
// H100 and was no faster: a cluster of 16 SMs holds too few rows per thread to keep the
// update short, and the per-column cost is instruction latency, not the L2 trips.)
template <int W, int R>
__global__ void __launch_bounds__(kMaxThreads) panel_kernel(PanelArgs P) {
  constexpr int C = W < kColsPerThread ? W : kColsPerThread, G = W / C, RW = 32 / G;
  __shared__ double s_val[kMaxThreads / 32], urow[W], krow[W];
  __shared__ long long s_idx[kMaxThreads / 32], s_p;
  const int T = blockDim.x, tid = threadIdx.x, lane = tid % 32, wid = tid / 32;
  const int slots = T / G;
  const int grp = lane / RW, c0 = grp * C;  // this thread's columns: c0 .. c0 + C - 1
  const long long kNone = LLONG_MAX;
  const int64_t rb = static_cast<int64_t>(R) * slots;                  // rows per block
  const int64_t r0 = blockIdx.x * rb + wid * RW + lane % RW;             // this thread's first row
  double a[R][C];
#pragma unroll
  for (int i = 0; i < R; ++i) {
    const int64_t g = r0 + static_cast<int64_t>(i) * slots;
#pragma unroll
    for (int c = 0; c < C; ++c)
      a[i][c] = g < P.h && c0 + c < P.w ? P.a[g + (c0 + c) * P.lda] : 0.0;
  }
  for (int k = 0; k < P.w; ++k) {
    const int par = k & 1, kg = k / C, kc = k % C;  // column k: group kg, entry kc
    const unsigned long long tag = P.tag0 + k;
    // This thread's candidate among its rows g >= k; `v > best` is false for NaN: never chosen.
    double best = -1.0;
    long long bi = kNone;
#pragma unroll
    for (int i = 0; i < R; ++i) {
      const int64_t g = r0 + static_cast<int64_t>(i) * slots;
      if (g == k) {  // the diagonal row, for the block that receives the pivot row
#pragma unroll
        for (int c = 0; c < C; ++c) publish(&P.s->rowk[par][c0 + c], a[i][c], tag);
      }
      const double v = fabs(pick(a[i], kc));
      if (grp == kg && g >= k && g < P.h && v > best) {
        best = v;
        bi = g;
      }
    }
    block_best(best, bi, s_val, s_idx);
    // The block's offer; the candidate row from the threads that hold it. Every value
    // carries its tag: no order between them is needed.
    if (tid == 0) publish(&P.s->offer[par][blockIdx.x], best, tag);
    if (bi != kNone) {
      Tagged *slot = P.s->cand[par][blockIdx.x];
#pragma unroll
      for (int i = 0; i < R; ++i)
        if (r0 + static_cast<int64_t>(i) * slots == bi) {
#pragma unroll
          for (int c = 0; c < C; ++c) publish(slot + c0 + c, a[i][c], tag);
          if (grp == 0) publish(slot + W, static_cast<double>(bi), tag);
        }
    }
    if (wid == 0) take_pivot<W>(P, k, par, tag, urow, krow, &s_p);
    __syncthreads();
    const long long p = s_p;
    const double piv = urow[k];
    record_pivot(P, k, p, piv);
    if (piv == 0.0) continue;  // a zero pivot: no interchange (p == k), no scaling, as DGETF2
    const bool recip = fabs(piv) >= kSfmin;
    const double inv = 1.0 / piv;
#pragma unroll
    for (int i = 0; i < R; ++i) {
      const int64_t g = r0 + static_cast<int64_t>(i) * slots;
      if (p != k && (g == p || g == k)) {
        const double *src = (g == p ? krow : urow) + c0;
#pragma unroll
        for (int c = 0; c < C; ++c) a[i][c] = src[c];
      }
      // The multiplier, computed by the thread that holds column k and shared with the row's
      // other threads (every lane takes part in the shuffle).
      double l = pick(a[i], kc);
      if (recip)  // the same in every thread: the division is skipped, not computed and dropped
        l *= inv;
      else
        l /= piv;
      l = __shfl_sync(0xffffffffu, l, kg * RW + lane % RW);
      if (g > k && g < P.h) {
        // The rank-1 update with separate rounding of product and difference, as DGER compiled
        // without contraction: a rank-deficient matrix then meets the exact zero pivots LAPACK
        // meets (INFO).
#pragma unroll
        for (int c = 0; c < C; ++c) {
          if (c0 + c == k) a[i][c] = l;
          if (c0 + c > k) a[i][c] = __dsub_rn(a[i][c], __dmul_rn(l, urow[c0 + c]));
        }
      }
    }
  }
#pragma unroll
  for (int i = 0; i < R; ++i) {
    const int64_t g = r0 + static_cast<int64_t>(i) * slots;
    if (g < P.h) {
#pragma unroll
      for (int c = 0; c < C; ++c)
        if (c0 + c < P.w) P.a[g + (c0 + c) * P.lda] = a[i][c];
    }
  }
}

// The same factorization for a sub-panel too tall for registers (2^20 rows of 4 columns is all
// of an H100's register file): the rows stay in memory, block b owning rows [b RB, (b + 1) RB),
// and each column costs one pass over the rows below it. A narrow sub-panel stays in L2 (2^20 x
// 4 doubles = 32 MB), so a pass runs at L2 bandwidth. The pass of column k swaps, scales and
// updates each row and finds the block's candidate for column k + 1 on the way; the exchange of
// candidates, the pivot choice and the rounding are the register kernel's (take_pivot).
template <int W>
__global__ void __launch_bounds__(kMaxThreads) stream_panel_kernel(PanelArgs P) {
  constexpr int kBatch = 4;  // rows a thread loads before it updates any: loads in flight
  __shared__ double s_val[kMaxThreads / 32], urow[W], krow[W];
  __shared__ long long s_idx[kMaxThreads / 32], s_p;
  const int T = blockDim.x, tid = threadIdx.x, wid = tid / 32;
  const long long kNone = LLONG_MAX;
  const int64_t rb = (P.h + gridDim.x - 1) / gridDim.x;
  const int64_t lo = blockIdx.x * rb, hi = lo + rb < P.h ? lo + rb : P.h;
  auto at = [&](int64_t g, int c) -> double & { return P.a[g + c * P.lda]; };
  // Column 0's candidate: the first largest |value| of this thread's rows (NaN never wins).
  double best = -1.0;
  long long bi = kNone;
  for (int64_t g = lo + tid; g < hi; g += T) {
    const double v = fabs(at(g, 0));
    if (v > best) {
      best = v;
      bi = g;
    }
  }
  for (int k = 0; k < P.w; ++k) {
    const int par = k & 1;
    const unsigned long long tag = P.tag0 + k;
    block_best(best, bi, s_val, s_idx);  // (a barrier: the block's last pass is in memory)
    if (tid == 0) publish(&P.s->offer[par][blockIdx.x], best, tag);
    if (tid < W) {
      if (bi != kNone) {
        Tagged *slot = P.s->cand[par][blockIdx.x];
        publish(slot + tid, tid < P.w ? at(bi, tid) : 0.0, tag);
        if (tid == 0) publish(slot + W, static_cast<double>(bi), tag);
      }
      if (k >= lo && k < hi) publish(&P.s->rowk[par][tid], tid < P.w ? at(k, tid) : 0.0, tag);
    }
    if (wid == 0) take_pivot<W>(P, k, par, tag, urow, krow, &s_p);
    __syncthreads();
    const long long p = s_p;
    const double piv = urow[k];
    record_pivot(P, k, p, piv);
    const bool recip = fabs(piv) >= kSfmin;
    const double inv = 1.0 / piv;
    best = -1.0;
    bi = kNone;
    // Rows below k (and rows k and p, which trade places): kBatch rows a step.
    const int64_t from = lo > k ? lo : k;
    for (int64_t g0 = from + tid; g0 < hi; g0 += int64_t(kBatch) * T) {
      double r[kBatch][W];
#pragma unroll
      for (int b = 0; b < kBatch; ++b) {
        const int64_t g = g0 + int64_t(b) * T;
        const bool swapped = p != k && (g == p || g == k);
#pragma unroll
        for (int c = 0; c < W; ++c) {
          if (g < hi && c < P.w && (swapped || c >= k)) r[b][c] = swapped ? (g == p ? krow[c] : urow[c]) : at(g, c);
          else r[b][c] = 0.0;
        }
      }
#pragma unroll
      for (int b = 0; b < kBatch; ++b) {
        const int64_t g = g0 + int64_t(b) * T;
        if (g >= hi) continue;
        const bool swapped = p != k && (g == p || g == k);
        if (g > k && piv != 0.0) {  // a zero pivot: no scaling and no update, as DGETF2
          // As the register kernel: the multiplier, then the rank-1 update with separate
          // rounding of product and difference (DGER without contraction).
          double l = pick(r[b], k);
          if (recip)
            l *= inv;
          else
            l /= piv;
#pragma unroll
          for (int c = 0; c < W; ++c) {
            if (c == k) r[b][c] = l;
            if (c > k) r[b][c] = __dsub_rn(r[b][c], __dmul_rn(l, urow[c]));
          }
        }
#pragma unroll
        for (int c = 0; c < W; ++c)
          if (c < P.w && (swapped || (g > k && piv != 0.0 && c >= k))) at(g, c) = r[b][c];
        if (g > k && k + 1 < P.w) {  // column k + 1's candidate
          const double v = fabs(pick(r[b], k + 1));
          if (v > best) {
            best = v;
            bi = g;
          }
        }
      }
    }
  }
}

// Builds the SwapPlan of ipiv[k0..k1) (global 1-based rows; row 0 of the target columns is
// global row row_base): where every row the interchanges touch ends up, rows k0..k1-1 first, then
// the rows below k1 that receive a row. One thread per interchange, no sequential simulation:
// interchange k (0-based step, k0 + k <-> p_k, p_k >= k0 + k as DGETF2's) leaves row k0 + k alone
// from then on, so row y >= k0 + t is changed before step t only by steps j < t with p_j = y, and
// what it holds just before step t is found by walking back through them (origin()). Row k0 + k
// ends with what p_k held before step k; a row y below k1 ends with what row k0 + j held before
// step j, for the last j with p_j = y. This replaced one warp simulating the interchanges in
// order (O(len x rows met / 32)); in an undisturbed profile of n = 8192 (H100, 2026-11-27) the
// plans take 1.3 ms of 41.9 ms, about 10 us each, and the whole factorization gained about
// 0.5 ms (ncu with its default cache flushing had put the old plan at 28 us).
constexpr int kPlanThreads = kMaxSwaps / 2;  // one per interchange of the widest panel

// The row (relative, as p) whose original content row y holds just before step t, given
// y >= k0 + t: each step back strictly lowers t, so at most t steps.
__device__ int64_t origin(const int64_t *p, int64_t k0, int64_t y, int t) {
  while (t > 0) {
    int j = t - 1;
    while (j >= 0 && p[j] != y) --j;  // the last step before t that moved a row into y
    if (j < 0) break;                 // none: y still holds its own row
    y = k0 + j;                       // step j brought in what row k0 + j held just before it
    t = j;
  }
  return y;
}

__global__ void __launch_bounds__(kPlanThreads)
    plan_swaps(const int *ipiv, int64_t k0, int64_t k1, int64_t row_base, SwapPlan *plan) {
  __shared__ int64_t p[kMaxSwaps / 2];  // the pivots as row numbers relative to row_base
  __shared__ int below;                 // rows below k1 placed so far
  const int k = threadIdx.x, len = static_cast<int>(k1 - k0);
  if (k < len) p[k] = ipiv[k0 + k] - 1 - row_base;
  if (k == 0) below = 0;
  __syncthreads();
  if (k < len) {
    plan->dst[k] = k0 + k;
    plan->src[k] = origin(p, k0, p[k], k);
    if (p[k] >= k1) {
      bool last = true;  // no later step moves a row into p[k]
      for (int j = k + 1; j < len && last; ++j) last = p[j] != p[k];
      if (last) {
        const int at = len + atomicAdd(&below, 1);
        plan->dst[at] = p[k];
        plan->src[at] = origin(p, k0, k0 + k, k);
      }
    }
  }
  __syncthreads();  // (every thread: the count after the last placement)
  if (k == 0) plan->count = len + below;
}

// Applies the plan to ncols columns of `a`: every block moves kSwapCols columns at a time, all
// loads of a column before any store, so the loads of a step are independent and in flight
// together (a sequence of swaps would wait for memory once per interchange). Block 0 also
// applies it to `perm` (the row order of the streamed path), if given.
__global__ void __launch_bounds__(kSwapThreads)
    apply_swaps(double *a, int64_t lda, int64_t ncols, const SwapPlan *plan, int *perm) {
  __shared__ double vals[kSwapCols][kMaxSwaps];
  const int count = plan->count;
  if (perm && blockIdx.x == 0) {
    constexpr int kPer = kMaxSwaps / kSwapThreads;
    int moved[kPer];
    for (int q = 0; q < kPer; ++q) {
      const int i = threadIdx.x + q * kSwapThreads;
      if (i < count) moved[q] = perm[plan->src[i]];
    }
    __syncthreads();
    for (int q = 0; q < kPer; ++q) {
      const int i = threadIdx.x + q * kSwapThreads;
      if (i < count) perm[plan->dst[i]] = moved[q];
    }
  }
  for (int64_t c0 = static_cast<int64_t>(blockIdx.x) * kSwapCols; c0 < ncols;
       c0 += static_cast<int64_t>(gridDim.x) * kSwapCols) {
    const int cols = ncols - c0 < kSwapCols ? static_cast<int>(ncols - c0) : kSwapCols;
    for (int x = threadIdx.x; x < cols * count; x += blockDim.x) {
      const int c = x / count, i = x % count;
      vals[c][i] = a[plan->src[i] + (c0 + c) * lda];
    }
    __syncthreads();
    for (int x = threadIdx.x; x < cols * count; x += blockDim.x) {
      const int c = x / count, i = x % count;
      a[plan->dst[i] + (c0 + c) * lda] = vals[c][i];
    }
    __syncthreads();
  }
}

// temp(i, c) = a(perm[i], c) for the m x ncols block: a chunk's rows in the order the
// interchanges so far left them (copied back to `a` afterwards).
__global__ void gather_rows(const double *a, int64_t lda, int64_t m, int64_t ncols,
                            const int *perm, double *temp) {
  for (int64_t c = blockIdx.y; c < ncols; c += gridDim.y)
    for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < m;
         i += int64_t(gridDim.x) * blockDim.x)
      temp[i + c * m] = a[perm[i] + c * lda];
}

// x(perm[i], c) = w(i, c) for the m x ncols block w (leading dimension ldw; x's is m):
// gather_rows undone.
__global__ void scatter_rows(const double *w, int64_t ldw, int64_t m, int64_t ncols,
                             const int *perm, double *x) {
  for (int64_t c = blockIdx.y; c < ncols; c += gridDim.y)
    for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < m;
         i += int64_t(gridDim.x) * blockDim.x)
      x[perm[i] + c * m] = w[i + c * ldw];
}

__global__ void iota(int *perm, int64_t m) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < m;
       i += int64_t(gridDim.x) * blockDim.x)
    perm[i] = static_cast<int>(i);
}

// The panel kernel of width w (a power of two in [kMinW, kBaseW]) and r rows per thread (1, 2, 4).
template <int W>
void *panel_kernel_rows(int r) {
  return r == 1   ? reinterpret_cast<void *>(panel_kernel<W, 1>)
         : r == 2 ? reinterpret_cast<void *>(panel_kernel<W, 2>)
                  : reinterpret_cast<void *>(panel_kernel<W, 4>);
}
void *panel_kernel_of(int w, int r) {
  switch (w) {
    case 64: return panel_kernel_rows<64>(r);
    case 32: return panel_kernel_rows<32>(r);
    case 16: return panel_kernel_rows<16>(r);
    case 8: return panel_kernel_rows<8>(r);
    default: return panel_kernel_rows<kMinW>(r);
  }
}

// A launch of the panel kernel: its width, rows per thread, threads per block and blocks; or of
// the streaming kernel (stream, rows 0).
struct PanelShape {
  int w, rows, threads;
  int64_t blocks;
  bool stream = false;
};

// GPUEIG_GETRF_PANEL=stream: every sub-panel by the streaming kernel (tests use it on matrices
// small enough for registers, where it would never run otherwise).
bool stream_forced() {
  return env::choice("GPUEIG_GETRF_PANEL", {"auto", "stream"}, 0) == 1;
}

// B := op(T)^-1 B for the m x m triangle T (fill, diag) of `t`: one cuBLAS DTRSM.
Status trsm_left(cublasHandle_t blas, cublasOperation_t op, cublasFillMode_t fill,
                 cublasDiagType_t diag, int64_t m, int64_t n, const double *t, int64_t ldt,
                 double *B, int64_t ldb) {
  if (m == 0 || n == 0) return Status::success();
  const double one = 1.0;
  // (a handle exists, so its cuBLAS is loaded: dlopen by that SONAME finds the same library)
  return check(cublas_api(nullptr)->dtrsm(blas, CUBLAS_SIDE_LEFT, fill, op, diag, int(m), int(n), &one, t,
                                          int(ldt), B, int(ldb)),
               "cublasDtrsm");
}

struct Driver {
  cublasHandle_t blas;
  cudaStream_t st;
  int *info;
  Scratch *s;
  int sms;
  unsigned long long *tag;  // the next launch's first offer tag
  SwapPlan *pl;             // the plan slot of the step being queued (its parity's)
  int spread;               // blocks a panel launch spreads its rows over, at most

  Status gemm_minus(int64_t m, int64_t n, int64_t k, const double *A, int64_t lda,
                    const double *B, int64_t ldb, double *C, int64_t ldc) const {
    if (m == 0 || n == 0 || k == 0) return Status::success();
    const double minus = -1.0, one = 1.0;
    // (a handle exists, so its cuBLAS is loaded: dlopen by that SONAME finds the same library)
    return check(cublas_api(nullptr)->dgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, int(m), int(n), int(k), &minus, A,
                                            int(lda), B, int(ldb), &one, C, int(ldc)),
                 "cublasDgemm");
  }

  // B := L^-1 B, L unit lower triangular m x m.
  Status trsm_lower_unit(int64_t m, int64_t n, const double *L, int64_t ldl, double *B,
                         int64_t ldb) const {
    return trsm_left(blas, CUBLAS_OP_N, CUBLAS_FILL_MODE_LOWER, CUBLAS_DIAG_UNIT, m, n, L, ldl, B,
                     ldb);
  }

  // The interchanges ipiv[k0..k1) as a plan (kept in scratch for the apply calls after it).
  Status plan(int64_t k0, int64_t k1, const int *ipiv, int64_t row_base) const {
    plan_swaps<<<1, kPlanThreads, 0, st>>>(ipiv, k0, k1, row_base, pl);
    return check_launch("plan_swaps");
  }

  Status apply(double *a, int64_t lda, int64_t ncols, int *perm = nullptr) const {
    if (ncols == 0 && !perm) return Status::success();
    const int64_t blocks =
        std::clamp<int64_t>((ncols + kSwapCols - 1) / kSwapCols, 1, int64_t(8) * sms);
    apply_swaps<<<unsigned(blocks), kSwapThreads, 0, st>>>(a, lda, ncols, pl, perm);
    return check_launch("apply_swaps");
  }

  // Columns c0:c1 of a fed factorization, arrived and not yet touched, once the steps before
  // row `done` are queued: those steps' interchanges (a gather through the permutation), then
  // rows 0:done of U in one DTRSM (what those steps' block rows would have given them).
  Status admit(double *a, int64_t lda, int64_t m, int64_t done, int64_t c0, int64_t c1,
               const int *perm, double *temp) const {
    Status r = Status::success();
    if (done == 0) return r;  // no interchanges yet, no U rows above
    for (int64_t c = c0; c < c1 && r; c += kGatherCols) {
      const int64_t w = std::min(kGatherCols, c1 - c);
      const dim3 grid(unsigned(std::min<int64_t>((m + 255) / 256, 64)), unsigned(w));
      gather_rows<<<grid, 256, 0, st>>>(a + c * lda, lda, m, w, perm, temp);
      r = check_launch("gather_rows");
      if (r)
        r = check(cudaMemcpy2DAsync(a + c * lda, lda * sizeof(double), temp, m * sizeof(double),
                                    m * sizeof(double), w, cudaMemcpyDeviceToDevice, st),
                  "cudaMemcpy2DAsync");
    }
    return r ? trsm_lower_unit(done, c1 - c0, a, lda, a + c0 * lda, lda) : r;
  }

  // The launch for h rows of a kernel of width w (a power of two): the rows spread over all SMs
  // (a block per SM), a row per thread where a block of kMaxThreads threads can hold them.
  // rows > kMaxRows: too tall for this width.
  PanelShape shape(int64_t h, int w) const {
    const int64_t spread = std::min<int64_t>(this->spread, kMaxBlocks);
    const int g = w / std::min(w, kColsPerThread);  // threads per row
    PanelShape p{w, 1, 0, 0};
    for (;; p.rows *= 2) {
      const int64_t slots = (h + p.rows - 1) / p.rows;
      const int64_t per_block = ((slots * g + spread - 1) / spread + 31) / 32 * 32;
      if (per_block <= kMaxThreads || p.rows > kMaxRows) {
        p.threads = static_cast<int>(std::max<int64_t>(32, std::min<int64_t>(per_block, kMaxThreads)));
        p.blocks = (slots + p.threads / g - 1) / (p.threads / g);
        return p;
      }
    }
  }

  // The sub-panel kernel for a panel of h rows: the widest whose blocks are all resident at
  // once (as the occupancy calculator sees it). w = 0: none.
  PanelShape choose(int64_t h) const {
    if (stream_forced()) return streamed();
    for (int w = kBaseW; w >= kMinW; w /= 2) {
      const PanelShape p = shape(h, w);
      if (p.rows > kMaxRows || p.blocks > kMaxBlocks) continue;
      int per_sm = 0;
      if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, panel_kernel_of(w, p.rows),
                                                        p.threads, 0) != cudaSuccess)
        break;
      if (static_cast<int64_t>(per_sm) * sms >= p.blocks) return p;
    }
    return streamed();
  }

  // The streaming kernel: kStreamW columns, a block of kMaxThreads threads per SM.
  PanelShape streamed() const { return PanelShape{kStreamW, 0, kMaxThreads, sms, true}; }

  // The sub-panel of h rows and w <= kBaseW columns at a.
  Status base(double *a, int64_t lda, int64_t h, int w, int *ipiv, int64_t row_base,
              int64_t col_base) const {
    int cap = kMinW;  // the kernel's width: w rounded up to a power of two
    while (cap < w) cap *= 2;
    PanelShape p = shape(h, cap);
    if (stream_forced() || p.rows > kMaxRows || p.blocks > kMaxBlocks) {
      // (choose gave kStreamW for every panel too tall for registers; its sub-panels are no taller)
      if (w > kStreamW) return Status::fail(Status::device_error, "panel_kernel: sub-panel too tall");
      p = streamed();
    }
    PanelArgs args{a, lda, h, w, ipiv, row_base, col_base, info, s, *tag};
    *tag += kBaseW;
    void *params[] = {&args};
    void *fn = p.stream ? reinterpret_cast<void *>(stream_panel_kernel<kStreamW>)
                        : panel_kernel_of(cap, p.rows);
    const cudaError_t e = cudaLaunchCooperativeKernel(fn, dim3(unsigned(p.blocks)),
                                                      dim3(p.threads), params, 0, st);
    if (e == cudaErrorCooperativeLaunchTooLarge) {  // not sticky: the CPU can take over
      cudaGetLastError();
      return Status::fail(Status::unavailable,
                          "panel_kernel: " + std::to_string(p.blocks) + " blocks of " +
                              std::to_string(p.threads) + " threads not co-resident");
    }
    return check(e, "panel_kernel");
  }

  // DGETRF2's recursion on the h x w panel at a (h >= w), down to sub-panels of <= wb columns.
  Status panel(double *a, int64_t lda, int64_t h, int64_t w, int *ipiv, int64_t row_base,
               int64_t col_base, int wb) const {
    if (w <= wb) return base(a, lda, h, static_cast<int>(w), ipiv, row_base, col_base);
    const int64_t n1 = std::max<int64_t>(wb, (w / 2) / wb * wb), n2 = w - n1;
    Status s = panel(a, lda, h, n1, ipiv, row_base, col_base, wb);
    if (s) s = plan(0, n1, ipiv, row_base);
    if (s) s = apply(a + n1 * lda, lda, n2);
    if (s) s = trsm_lower_unit(n1, n2, a, lda, a + n1 * lda, lda);
    if (s) s = gemm_minus(h - n1, n2, n1, a + n1, lda, a + n1 * lda, lda, a + n1 + n1 * lda, lda);
    if (s)
      s = panel(a + n1 + n1 * lda, lda, h - n1, n2, ipiv + n1, row_base + n1, col_base + n1, wb);
    // The right half's interchanges, on the left half's rows below n1 (indices relative to a).
    if (s) s = plan(n1, w, ipiv, row_base);
    if (s) s = apply(a, lda, n1);
    return s;
  }

  // A(r:m, c0:c1) -= A(r:m, k0:r) A(k0:r, c0:c1): the contributions of columns k0:r of L to the
  // rows r:m of columns c0:c1 (Crout's step 1 for a panel at r when c0 = r and k0 = 0).
  Status update(double *a, int64_t lda, int64_t m, int64_t r, int64_t k0, int64_t c0,
                int64_t c1) const {
    return gemm_minus(m - r, c1 - c0, r - k0, a + r + k0 * lda, lda, a + k0 + c0 * lda, lda,
                      a + r + c0 * lda, lda);
  }

  // Crout's step 1 for the panel of columns j:j+jb, but for the columns 0:k0 of L already
  // applied (the look-ahead's early update).
  Status panel_update(double *a, int64_t lda, int64_t m, int64_t j, int64_t jb,
                      int64_t k0 = 0) const {
    return update(a, lda, m, j, k0, j, j + jb);
  }

  // Crout's step 2 for the panel of columns j:j+jb, and its interchanges as a plan.
  Status panel_factor(double *a, int64_t lda, int64_t m, int64_t j, int64_t jb, int *ipiv) const {
    Status r = panel(a + j + j * lda, lda, m - j, jb, ipiv + j, j, j, choose(m - j).w);
    return r ? plan(j, j + jb, ipiv, 0) : r;
  }

  // Crout's steps 3 and 4 on the columns c0:c1 right of the panel j:j+jb: the panel's
  // interchanges, then its block row of U (`updated`: its DGEMM already done by an early update).
  Status block_row(double *a, int64_t lda, int64_t j, int64_t jb, int64_t c0, int64_t c1,
                   bool updated = false) const {
    if (c1 <= c0) return Status::success();
    double *right = a + c0 * lda;
    Status r = apply(right, lda, c1 - c0);
    if (r && !updated) r = gemm_minus(jb, c1 - c0, j, a + j, lda, right, lda, right + j, lda);
    return r ? trsm_lower_unit(jb, c1 - c0, a + j + j * lda, lda, right + j, lda) : r;
  }
};

// Look-ahead (GPUEIG_GETRF_LOOKAHEAD, on by default where getrf_lookahead says it pays): once
// step k's block row has reached the next panel's columns, what the next panel still lacks of
// its update is queued, then the panel is factored on a high-priority side stream, over
// getrf_side_blocks's share of the SMs, while the call's stream runs the rest of step k's block
// row and the early update of the panel after next (the long DGEMM of its rows below the next
// panel, K = everything factored so far); the call's stream then waits for the panel (an event,
// never the device). Between two panels only short work remains (the panel's interchanges and
// DTRSM on the next panel's columns, one DGEMM of K = nb): the panel kernel's per-column latency
// and the DGEMMs' flops overlap instead of adding up (H200, 2026-11-28, n = 8192: 32.9 ms against
// 41.6 in order and 39.6 with look-ahead but no early update). The panel needs whole SMs for
// all of its columns, and fewer blocks make each column slower (getrf_side_blocks). Capping the
// DGEMM's SMs (cublasSetSmCountTarget) or launching the panel non-cooperatively changed nothing
// measurable. The side stream and its own cuBLAS handle are the calling thread's
// (Context::side); without them the steps run in order on the call's stream.
struct Lookahead {
  cudaStream_t side = nullptr;
  cublasHandle_t blas = nullptr;
  cudaEvent_t fork = nullptr, join = nullptr;
  bool on = false;

  Lookahead(int64_t m, int64_t n) {
    const int mode = env::choice("GPUEIG_GETRF_LOOKAHEAD", {"auto", "on", "off"}, 0);
    if (mode == 2 || (mode == 0 && !getrf_lookahead(m, n))) return;
    Context *ctx = nullptr;
    if (!Context::get(ctx) || !ctx->side(&side, &blas)) return;
    if (cudaEventCreateWithFlags(&fork, cudaEventDisableTiming) != cudaSuccess ||
        cudaEventCreateWithFlags(&join, cudaEventDisableTiming) != cudaSuccess) {
      cudaGetLastError();  // (not sticky: the call goes on without look-ahead)
      return;
    }
    on = true;
  }
  // (An event destroyed while work waits on it is released once that work is done.)
  ~Lookahead() {
    if (fork) cudaEventDestroy(fork);
    if (join) cudaEventDestroy(join);
  }
  Lookahead(const Lookahead &) = delete;
  Lookahead &operator=(const Lookahead &) = delete;
};

// A fed call's thread queues its steps at most kFeedAhead steps ahead of the GPU (it waits for
// the step kFeedAhead back), so that a chunk's arrival is looked at (GetrfFeed::ready) about
// when the GPU gets there: a chunk that has landed comes in with the few rows of U the steps so
// far give it. Unthrottled, the thread queues most of the factorization at once and a chunk came
// in at the step that needed it, with a DTRSM over all the rows above (sequential down them, on
// 4096 columns, beside nothing): 4.6 / 14.1 / 8.5 ms per call at n = 8192 / 16384 / 32768 with
// every chunk there (the fed probe, H200, 2026-11-29); admitting a few columns each step instead
// was slower still (a DTRSM of nb columns a step: 273 ms against 133 at 16384).
// kFeedAhead = 8 steps (2 ms of the GPU's work at 8192, 8 at 16384) leaves the thread room for
// the copy threads' competition for the CPU.
class Throttle {
 public:
  explicit Throttle(bool want) {
    if (!want) return;
    for (cudaEvent_t &e : ev_)
      if (cudaEventCreateWithFlags(&e, cudaEventDisableTiming) != cudaSuccess) {
        cudaGetLastError();  // (not sticky: the call goes on unthrottled)
        return;
      }
    on_ = true;
  }
  ~Throttle() {
    for (cudaEvent_t e : ev_)
      if (e) cudaEventDestroy(e);
  }
  Throttle(const Throttle &) = delete;
  Throttle &operator=(const Throttle &) = delete;

  // Before step `step` is queued: the step kFeedAhead back is done.
  Status wait(int64_t step) const {
    if (!on_ || step < kFeedAhead) return Status::success();
    return check(cudaEventSynchronize(ev_[step % kFeedAhead]), "cudaEventSynchronize");
  }
  // After step `step` is queued on `st`.
  Status mark(int64_t step, cudaStream_t st) const {
    return on_ ? check(cudaEventRecord(ev_[step % kFeedAhead], st), "cudaEventRecord")
               : Status::success();
  }

 private:
  cudaEvent_t ev_[kFeedAhead] = {};
  bool on_ = false;
};

int sm_count() {
  static int count = [] {
    int dev = 0, c = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&c, cudaDevAttrMultiProcessorCount, dev);
    return std::max(1, std::min(c, kMaxBlocks));
  }();
  return count;
}

// The feed buffers: the row permutation (m ints, padded to 256 bytes), then the gather buffer.
size_t perm_bytes(int64_t m) { return (static_cast<size_t>(m) * sizeof(int) + 255) / 256 * 256; }

}  // namespace

size_t getrf_scratch_bytes() { return sizeof(Scratch); }

std::vector<int64_t> getrf_chunks(int64_t m, int64_t n, int nb) {
  if (nb <= 0) nb = getrf_block(std::min(m, n));
  const int64_t mn = std::min(m, n);
  std::vector<int64_t> out{0};
  for (int64_t w = int64_t(4) * nb; out.back() < mn; w = std::min<int64_t>(2 * w, kMaxChunk))
    out.push_back(out.back() + w >= mn ? n : out.back() + w);
  return out;
}
size_t getrf_feed_bytes(int64_t m, int64_t n) {
  // A chunk is never wider than n: a narrow matrix needs a narrow gather buffer.
  return perm_bytes(m) + static_cast<size_t>(m) * std::min(kGatherCols, n) * sizeof(double);
}

Status getrf_device(cublasHandle_t blas, cudaStream_t st, int64_t m, int64_t n, double *a,
                    int64_t lda, int *ipiv, int *info, int *nonfinite, void *scratch, int nb,
                    GetrfFeed *feed, void *feed_buffers) {
  if (nb <= 0) nb = getrf_block(std::min(m, n));
  nb = std::min(nb, kMaxSwaps / 2);
  unsigned long long tag = 1;  // the offers are zeroed below: tag 0 is never waited for
  Scratch *sc = static_cast<Scratch *>(scratch);
  Driver d{blas, st, info, sc, sm_count(), &tag, sc->plan, sm_count()};
  const int64_t mn = std::min(m, n);
  const Lookahead la(m, n);
  Driver side = d;  // the look-ahead's panels: on the side stream, over the share of the SMs
  side.st = la.side;
  side.blas = la.blas;
  side.spread = getrf_side_blocks(d.sms);
  if (const int64_t b = env::integer("GPUEIG_GETRF_SIDE_BLOCKS", 0, 0, kMaxBlocks); b > 0)
    side.spread = static_cast<int>(b);
  Status s = check(cudaMemsetAsync(info, 0, sizeof(int), st), "cudaMemsetAsync");
  // Tags start at 1 and grow: zeroed slots are never mistaken for published ones.
  if (s) s = check(cudaMemsetAsync(d.s, 0, offsetof(Scratch, plan), st), "cudaMemsetAsync");
  if (!s) return s;
  int *perm = nullptr;
  double *temp = nullptr;
  if (feed) {
    perm = static_cast<int *>(feed_buffers);
    temp = reinterpret_cast<double *>(static_cast<char *>(feed_buffers) + perm_bytes(m));
    if (m > 0) {
      iota<<<unsigned(std::min<int64_t>((m + 255) / 256, 1024)), 256, 0, st>>>(perm, m);
      if (!(s = check_launch("iota"))) return s;
    }
  } else if (nonfinite) {
    if (!(s = check(cudaMemsetAsync(nonfinite, 0, sizeof(int), st), "cudaMemsetAsync")) ||
        !(s = check_finite(st, a, lda, m, n, nonfinite)))
      return s;
  }
  // With a feed the columns arrive in chunks, each admitted (Driver::admit) once it has landed
  // (Throttle) or once a step needs it, whichever comes first. Without a feed all columns are
  // there from the start: no chunks, no throttle; nor for a call of kFeedAhead steps or fewer,
  // which never waits (host calls up to min(m, n) = 512 need no events).
  const std::vector<int64_t> chunks = feed ? getrf_chunks(m, n, nb) : std::vector<int64_t>{};
  const Throttle throttle(feed != nullptr && (mn + nb - 1) / nb > kFeedAhead);
  size_t admitted = 0;  // chunks 0:admitted are in: columns 0:front
  int64_t front = feed ? 0 : n;
  // The chunks that have landed, then those holding the columns up to `need` (the stream waits
  // for their uploads), given the steps before row `done`.
  auto admit = [&](int64_t need, int64_t done) {
    Status r = Status::success();
    for (; r && admitted + 1 < chunks.size() &&
           (chunks[admitted] < need || feed->ready(chunks[admitted]));
         ++admitted) {
      const int64_t c0 = chunks[admitted], c1 = chunks[admitted + 1];
      if ((r = feed->arrive(c0))) r = d.admit(a, lda, m, done, c0, c1, perm, temp);
      if (r) front = c1;
    }
    return r;
  };
  // (each step needs the columns of its panel and the next two: the look-ahead panel and the
  // early update's)
  s = admit(std::min<int64_t>(n, 3 * int64_t(nb)), 0);
  bool ahead = false;  // the step's panel was factored by the side stream already
  // The next panel's columns, rows `early`:m, have the contributions of L's columns 0:early
  // already (the previous step's early update); 0: none.
  int64_t early = 0;
  int64_t step = 0;
  for (int64_t j = 0, jb = 0; j < mn && s; j += jb, ++step) {
    if (!(s = throttle.wait(step))) break;
    jb = std::min<int64_t>(nb, mn - j);
    const int64_t j2 = j + jb;
    d.pl = &sc->plan[step & 1];
    if (!ahead) {
      s = d.panel_update(a, lda, m, j, jb);
      if (s) s = d.panel_factor(a, lda, m, j, jb, ipiv);
    }
    ahead = false;
    // The panel's interchanges on the columns left of it, then the block row, on the columns
    // admitted. With look-ahead: the next panel's columns first, then what that panel still
    // lacks of its update (all of it, or, after an early update, the contributions of this
    // step's panel alone: a DGEMM of K = jb, which needs no interchange on the left columns
    // yet), then its factorization on the side stream (a share of the SMs, launched first: high
    // priority). Beside it on the call's stream: the left columns' interchanges if still due,
    // the rest of the block row, the next columns' admission, then the early update of the
    // panel after next (its rows j2:m, K = j2: the long DGEMM that would otherwise sit between
    // the next panel and the one after). Rows are interchanged after that update, in the
    // update's target and in L's columns alike, so its rows stay consistent.
    if (s && la.on && j2 < mn) {
      const int64_t jb2 = std::min<int64_t>(nb, mn - j2), j3 = j2 + jb2;
      const bool updated = early == j && j > 0;
      if (!updated) s = d.apply(a, lda, j, perm);
      if (s) s = d.block_row(a, lda, j, jb, j2, j3, updated);
      if (s) s = d.panel_update(a, lda, m, j2, jb2, updated ? j : 0);
      if (s) s = record_wait(la.fork, st, la.side);
      side.pl = &sc->plan[(step + 1) & 1];
      if (s) s = side.panel_factor(a, lda, m, j2, jb2, ipiv);
      if (s) s = check(cudaEventRecord(la.join, la.side), "cudaEventRecord");
      if (s && updated) s = d.apply(a, lda, j, perm);
      if (s) s = d.block_row(a, lda, j, jb, j3, front);
      if (s) s = admit(std::min<int64_t>(n, j2 + 3 * int64_t(nb)), j2);
      early = 0;
      if (s && j3 < mn) {
        s = d.update(a, lda, m, j2, 0, j3, j3 + std::min<int64_t>(nb, mn - j3));
        early = j2;
      }
      if (s && feed) s = feed->finished(j2, front);
      if (s) s = check(cudaStreamWaitEvent(st, la.join, 0), "cudaStreamWaitEvent");
      ahead = true;
    } else {
      early = 0;
      if (s) s = d.apply(a, lda, j, perm);
      if (s) s = d.block_row(a, lda, j, jb, j2, front);
      if (s) s = admit(std::min<int64_t>(n, j2 + 3 * int64_t(nb)), j2);
      if (s && feed) s = feed->finished(j2, front);
    }
    if (s) s = throttle.mark(step, st);
  }
  // Columns right of min(m, n) not in yet: rows 0:min(m, n) of U, all at once.
  if (s) s = admit(n, mn);
  // The side stream joined once more (a failure may have left its last panel unjoined), so that
  // the call's stream, which the caller waits on, covers everything queued.
  if (la.on && cudaEventRecord(la.join, la.side) == cudaSuccess) cudaStreamWaitEvent(st, la.join, 0);
  return s;
}

const int *getrf_feed_order(const void *feed_buffers) {
  return static_cast<const int *>(feed_buffers);
}

Status getrs_device(cublasHandle_t blas, cudaStream_t st, char trans, int64_t n, int64_t nrhs,
                    const double *lu, int64_t ldlu, const int *order, double *b, int64_t ldb,
                    double *x) {
  if (n == 0 || nrhs == 0) return Status::success();
  const dim3 grid(unsigned(std::min<int64_t>((n + 255) / 256, 64)),
                  unsigned(std::min<int64_t>(nrhs, 65535)));
  Status s = Status::success();
  if (trans == 'N') {
    // A = P L U: x := P^T B (row i of x is row order[i] of B), then L^-1, U^-1.
    gather_rows<<<grid, 256, 0, st>>>(b, ldb, n, nrhs, order, x);
    s = check_launch("gather_rows");
    if (s) s = trsm_left(blas, CUBLAS_OP_N, CUBLAS_FILL_MODE_LOWER, CUBLAS_DIAG_UNIT, n, nrhs, lu,
                         ldlu, x, n);
    if (s) s = trsm_left(blas, CUBLAS_OP_N, CUBLAS_FILL_MODE_UPPER, CUBLAS_DIAG_NON_UNIT, n, nrhs,
                         lu, ldlu, x, n);
    return s;
  }
  // A^T = U^T L^T P^T: b := U^-T B, then L^-T, in place; then x := P b (row order[i] of x is
  // row i of b).
  s = trsm_left(blas, CUBLAS_OP_T, CUBLAS_FILL_MODE_UPPER, CUBLAS_DIAG_NON_UNIT, n, nrhs, lu, ldlu,
                b, ldb);
  if (s) s = trsm_left(blas, CUBLAS_OP_T, CUBLAS_FILL_MODE_LOWER, CUBLAS_DIAG_UNIT, n, nrhs, lu,
                       ldlu, b, ldb);
  if (s) {
    scatter_rows<<<grid, 256, 0, st>>>(b, ldb, n, nrhs, order, x);
    s = check_launch("scatter_rows");
  }
  return s;
}

}  // namespace gpueig::gpu
