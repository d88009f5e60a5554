// gpu_toeplitz_eig's structured method on the GPU (src/toeplitz_structured.hpp): T's Cauchy-like
// half blocks set up on the device from t (O(n^2) work, O(n) memory), then every shift's inertia
// (and log|det|) by pivoted elimination on the generators, all shifts of a round side by side: on
// Hopper one thread-block cluster per (shift, half block) holding it in shared memory
// (cluster_inertia_kernel, up to n of about 226000), else one thread block per (shift, half block)
// in shared or global memory (inertia_kernel).
#include <cooperative_groups.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <type_traits>
#include <vector>

#include "context.hpp"
#include "device_util.hpp"
#include "env.hpp"
#include "fast_math.cuh"
#include "hardware.hpp"
#include "progress.cuh"
#include "toeplitz_structured.hpp"
#include "workspace.hpp"

namespace gpueig::gpu {
namespace {

using structured::kAlpha;
using structured::kGrowth;

// Threads of an elimination block. 512 over 1024: a step is two block-wide reductions, whose
// cost grows with the warps, while a half block of 8192 (n = 16384) leaves 16 elements a thread.
constexpr int kThreads = 512;
constexpr int kWarps = kThreads / 32;

// The O(n^2) part of structured::cauchy_form: one thread per row j (1-based) of C.
__global__ void cauchy_setup_kernel(int64_t n, const double *t, const double *sn, const double *cs,
                                    double *g0, double *d0, double *g1, double *d1) {
  const int64_t j = 1 + blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (j > n) return;
  const int64_t i = structured::place_of(j);
  const bool odd = structured::half_of(j) == 1;
  structured::cauchy_row(n, j, t, sn, cs, (odd ? g1 : g0) + i, (odd ? d1 : d0) + i);
}

// structured::cauchy_entry with rcp (fast_math.cuh) for the quotient: the nodes are distinct, so
// the gap is never zero (nor subnormal).
__device__ inline double cauchy_entry(double gi, double hi, double vi, double gj, double hj, double vj) {
  return 2 * (gi * hj - hi * gj) * rcp(structured::node_gap(vi, vj));
}

// One half block as the elimination kernel reads it.
struct HalfBlock {
  int64_t size;
  const double *g, *h, *d, *v;
};

// Where a basis task's elimination (the structured eigenvectors) writes its record
// (structured::Record): the pivots in order, and the tail once the elimination stops; counts[2k]
// and counts[2k + 1] their numbers for task k (the tail's counted up by the cluster kernel's
// blocks: zeroed before the launch).
struct RecordSink {
  structured::Pivot *pivots = nullptr;  // stride a task
  structured::Pivot *tail = nullptr;    // tail_stride a task
  unsigned long long *counts = nullptr;
  const BasisTask *tasks = nullptr;
  int64_t stride = 0, tail_stride = 0;
  __device__ structured::Pivot *pivots_of(int64_t k) const { return pivots + k * stride; }
  __device__ structured::Pivot *tail_of(int64_t k) const { return tail + k * tail_stride; }
  // Whether task k's elimination stops with `left` elements, the candidate's diagonal d and its
  // row's largest entry w (structured::half_record's rule).
  __device__ bool stops(int64_t k, int64_t left, double d, double w) const {
    const double floor = tasks[k].floor;
    return left <= tasks[k].want + 1 || (left <= structured::kTailCap && fabs(d) <= floor && w <= floor);
  }
};

// A candidate of a block-wide argmax: |value| and the element's data (its generators, diagonal
// and node), so that every thread has the winner's data after one barrier.
struct Candidate {
  double key, g, h, d, v;
  int64_t at;
};

__device__ inline bool better(const Candidate &a, const Candidate &b) {
  return a.key > b.key || (a.key == b.key && a.at < b.at);
}

__device__ inline Candidate shuffle(const Candidate &c, int o) {
  Candidate r;
  r.key = __shfl_xor_sync(0xffffffffu, c.key, o);
  r.g = __shfl_xor_sync(0xffffffffu, c.g, o);
  r.h = __shfl_xor_sync(0xffffffffu, c.h, o);
  r.d = __shfl_xor_sync(0xffffffffu, c.d, o);
  r.v = __shfl_xor_sync(0xffffffffu, c.v, o);
  r.at = __shfl_xor_sync(0xffffffffu, c.at, o);
  return r;
}

// The block's best candidate, on every thread. `slots` alternates between two sets of kWarps
// entries, so that one barrier per reduction suffices (a set is rewritten two reductions later,
// after a barrier every thread passed once done reading it).
__device__ Candidate block_best(Candidate c, Candidate (*slots)[kWarps], int &turn) {
  for (int o = 16; o > 0; o >>= 1) {
    const Candidate other = shuffle(c, o);
    if (better(other, c)) c = other;
  }
  Candidate *set = slots[turn];
  turn ^= 1;
  if (threadIdx.x % 32 == 0) set[threadIdx.x / 32] = c;
  __syncthreads();
  Candidate best = set[0];
  for (int w = 1; w < kWarps; ++w)
    if (better(set[w], best)) best = set[w];
  return best;
}

// The inertia of one half block of C - sigma I (task blockIdx.x: its shift and half), as
// structured::half_inertia computes it: Bunch-
// Kaufman pivoting, the pivot's row formed from the generators, the Schur complement's generators
// and diagonal updated. The active elements stay packed in positions 0 .. m-1: an eliminated
// pivot's position is refilled by the last element(s) in the same pass that updates them, and the
// pivot's data travels with the reductions, so that a step costs two barriers (three when Bunch-
// Kaufman looks at a second row). Arrays in shared memory (`shared`) or in `work` (4 x stride
// doubles per task: g, h, d and the places ix).
template <bool kRecord>
__global__ void __launch_bounds__(kThreads)
    inertia_kernel(HalfBlock b0, HalfBlock b1, const InertiaTask *tasks, int64_t *below, int *trusted,
                   double *logdet, bool shared, double *work, int64_t stride, RecordSink sink) {
  extern __shared__ double smem[];
  __shared__ Candidate slots[2][kWarps];
  int turn = 0;
  const HalfBlock b = tasks[blockIdx.x].half ? b1 : b0;
  const double sg = tasks[blockIdx.x].sigma;
  const int64_t task = blockIdx.x;
  int64_t np = 0;  // pivots recorded (kRecord)
  bool snapped = false;
  int64_t m = b.size;
  const int64_t cap = shared ? m : stride;
  double *base = shared ? smem : work + int64_t(blockIdx.x) * 4 * stride;
  // The nodes stay in the half block's table: an element carries its place there (ix), so that a
  // half of 8192 (n = 16384) fits shared memory at 28 bytes an element.
  double *g = base, *h = base + cap, *d = base + 2 * cap;
  int *ix = reinterpret_cast<int *>(base + 3 * cap);
  const double *v = b.v;
  if (m == 0) {
    if (threadIdx.x == 0) below[blockIdx.x] = 0, trusted[blockIdx.x] = 1, logdet[blockIdx.x] = 0;
    return;
  }

  // Load, and the first pivot candidate: the largest |d|.
  double start = 0, largest = 0;
  bool finite = true;
  Candidate c{-1, 0, 0, 0, 0, 0};
  for (int64_t i = threadIdx.x; i < m; i += kThreads) {
    g[i] = b.g[i], h[i] = b.h[i], ix[i] = int(i), d[i] = b.d[i] - sg;
    start = fmax(start, fmax(fabs(g[i]), fabs(h[i])));
    const Candidate e{fabs(d[i]), g[i], h[i], d[i], v[i], i};
    if (better(e, c)) c = e;
  }
  Candidate r = block_best(c, slots, turn);
  int64_t neg = 0;
  double ld = 0;  // log|det|, the pivots' (thread 0's)

  while (m > 1) {
    // Row r off the diagonal: its largest magnitude w_r at q.
    c = {-1, 0, 0, 0, 0, 0};
    for (int64_t i = threadIdx.x; i < m; i += kThreads) {
      if (i == r.at) continue;
      const double vi = v[ix[i]];
      const Candidate e{fabs(cauchy_entry(g[i], h[i], vi, r.g, r.h, r.v)), g[i], h[i], d[i], vi, i};
      if (better(e, c)) c = e;
    }
    const Candidate q = block_best(c, slots, turn);
    const double wr = q.key;
    if (kRecord && sink.stops(task, m, r.d, wr)) {  // the rest is the basis' tail
      for (int64_t i = threadIdx.x; i < m; i += kThreads) sink.tail_of(task)[i] = {g[i], h[i], v[ix[i]], d[i], 0};
      if (threadIdx.x == 0) sink.counts[2 * task + 1] = m;
      snapped = true;
      break;
    }

    // Bunch-Kaufman: pivot r, or q, or the 2x2 (r, q). A zero row r is its own 1x1 pivot (no
    // update: its multipliers are zero).
    Candidate p1 = r;
    bool two = false;
    if (wr > 0 && !(fabs(r.d) >= kAlpha * wr)) {
      double wq = 0;
      for (int64_t i = threadIdx.x; i < m; i += kThreads)
        if (i != q.at) wq = fmax(wq, fabs(cauchy_entry(g[i], h[i], v[ix[i]], q.g, q.h, q.v)));
      const Candidate mq = block_best({wq, 0, 0, 0, 0, 0}, slots, turn);
      wq = mq.key;
      if (fabs(r.d) * wq >= kAlpha * wr * wr) p1 = r;
      else if (fabs(q.d) >= kAlpha * wq) p1 = q;
      else two = true;
    }
    const Candidate p2 = q;
    const int64_t k = two ? 2 : 1, last = m - k;
    // Holes (pivot positions below `last`) and the survivors among the last k positions that
    // move into them, in order.
    int64_t hole[2] = {-1, -1}, mover[2] = {-1, -1};
    {
      int nh = 0, nm = 0;
      const int64_t piv[2] = {two ? min(p1.at, p2.at) : p1.at, two ? max(p1.at, p2.at) : -1};
      for (int j = 0; j < k; ++j)
        if (piv[j] < last) hole[nh++] = piv[j];
      for (int64_t i = last; i < m; ++i)
        if (i != p1.at && !(two && i == p2.at)) mover[nm++] = i;
    }
    if (two) ++neg;
    else neg += p1.d < 0;
    if (kRecord) {
      if (threadIdx.x == 0) {
        sink.pivots_of(task)[np] = {p1.g, p1.h, p1.v, p1.d, two ? 1 : 0};
        if (two) sink.pivots_of(task)[np + 1] = {p2.g, p2.h, p2.v, p2.d, 2};
      }
      np += k;
    }
    const double x = two ? cauchy_entry(p2.g, p2.h, p2.v, p1.g, p1.h, p1.v) : 0;
    const double det = p1.d * p2.d - x * x;
    if (threadIdx.x == 0) ld += log(fabs(two ? det : p1.d));
    // The multipliers: c / d_p (1x1), or [c1 c2] D^-1 with D^-1 = [d_q -x; -x d_r] / det (2x2).
    const double inv = two ? 1 / det : wr == 0 ? 0 : 1 / p1.d;
    const bool zero_row = wr == 0;

    // The update, the moves, and the next pivot candidate.
    c = {-1, 0, 0, 0, 0, 0};
    for (int64_t i = threadIdx.x; i < m; i += kThreads) {
      if (i == p1.at || (two && i == p2.at)) continue;
      double gi = g[i], hi = h[i], di = d[i];
      const int xi = ix[i];
      const double vi = v[xi];
      if (two) {
        const double c1 = cauchy_entry(gi, hi, vi, p1.g, p1.h, p1.v);
        const double c2 = cauchy_entry(gi, hi, vi, p2.g, p2.h, p2.v);
        const double f1 = (c1 * p2.d - c2 * x) * inv, f2 = (c2 * p1.d - c1 * x) * inv;
        gi -= f1 * p1.g + f2 * p2.g, hi -= f1 * p1.h + f2 * p2.h, di -= f1 * c1 + f2 * c2;
      } else if (!zero_row) {
        const double c1 = cauchy_entry(gi, hi, vi, p1.g, p1.h, p1.v), f = c1 * inv;
        gi -= f * p1.g, hi -= f * p1.h, di -= f * c1;
      }
      largest = fmax(largest, fmax(fabs(gi), fabs(hi)));
      finite &= isfinite(gi + hi + di);
      int64_t to = i;
      if (i == mover[0]) to = hole[0];
      else if (i == mover[1]) to = hole[1];
      g[to] = gi, h[to] = hi, d[to] = di, ix[to] = xi;
      const Candidate e{fabs(di), gi, hi, di, vi, to};
      if (better(e, c)) c = e;
    }
    m = last;
    if (m == 0) break;
    r = block_best(c, slots, turn);
  }
  if (m == 1) neg += r.d < 0, ld += log(fabs(r.d));
  if (kRecord && threadIdx.x == 0) {
    if (!snapped) {  // the elimination ran out: its last element (if any) is the tail
      if (m == 1) sink.tail_of(task)[0] = {r.g, r.h, r.v, r.d, 0};
      sink.counts[2 * task + 1] = m == 1 ? 1 : 0;
    }
    sink.counts[2 * task] = np;
  }

  // Growth and finiteness over the block: every thread's verdict into one.
  const Candidate worst =
      block_best({finite ? largest / fmax(start, 1e-300) : INFINITY, 0, 0, 0, 0, 0}, slots, turn);
  if (threadIdx.x == 0) {
    below[blockIdx.x] = neg;
    trusted[blockIdx.x] = worst.key <= kGrowth;
    logdet[blockIdx.x] = ld;
  }
}

// ---- The cluster kernel: one evaluation's half block held in the shared memory of a thread-block
// cluster (Hopper's distributed shared memory; up to 16 SMs, so that a half of 100000 elements,
// n = 200000, stays on chip at 32 bytes an element), one cluster per (shift, half block), and a
// step of the elimination costing one pass over the elements and one cluster-wide exchange in the
// common case. The elements are dealt out to the cluster's blocks (element e to rank e % size)
// and each block keeps its own packed; every decision (the pivots) is taken identically by every
// block from records all of them read, so no block waits on another but at the exchanges.
//
// The step, speculative: with r the candidate (largest |d|), one pass forms row r (its largest
// magnitude w_r, at q) and, alongside, the Schur complement a 1x1 pivot r would leave (its
// largest |d|: the next candidate), storing nothing. Bunch-Kaufman then accepts r (|d_r| >=
// alpha w_r) in most steps, and the update it chose is applied by the next step's pass, fused with
// that step's row (one pass a step). Otherwise its second test needs row q (a pass and an
// exchange), and a pivot q or (r, q) is applied by a pass that finds the next candidate itself (a
// further exchange). Measured on the H100 (2026-11-27): about 4.5 us a step with clusters of 16
// (n = 200000) when the exchange was two block barriers, a cluster barrier and a read of the other
// SMs' records, most of it the exchange; pushing the records instead (cluster_best) took 9-10%
// off a call; nodes looked up in L2 instead of held beside the generators (28 bytes an element,
// clusters of 13) made it 40% slower.
namespace cl = cooperative_groups;

constexpr int kClusterThreads = 512;  // as kThreads: the passes' work against the warps' reductions
constexpr int kClusterWarps = kClusterThreads / 32;
constexpr int kMaxClusterBlocks = 16;  // Hopper's largest (non-portable) cluster

// An element as the exchanges carry it: the key compared (a magnitude, or -1 for none), its data
// and where it lives (rank, slot).
struct Rec {
  double key, g, h, d, v;
  int slot, rank;
};

// The exchange's buffers: every block's records land in every block's inbox ([turn][kind][rank])
// by asynchronous stores that complete a transaction count on the receiver's barrier of that
// turn; the warps' records ([turn][kind][warp]) for warp 0 to pick the block's.
struct ClusterShared {
  Rec inbox[2][2][kMaxClusterBlocks];
  Rec warp_rec[2][2][kClusterWarps];
  unsigned long long bar[2];
};

// The helpers exist for Hopper's device code only (clusters need sm_90); the host pass sees
// them too.
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
__device__ inline Rec no_rec() { return {-1, 0, 0, 0, 0, -1, -1}; }

// A magnitude as a key: NaN as +Inf, so that a NaN entry forces the slow, checked path (the NaN
// itself then fails the finiteness test).
__device__ inline double key_of(double x) { return x == x ? fabs(x) : INFINITY; }

// The lane holding the warp's largest key (the lowest such lane), on every lane: a key >= 0 (Inf
// included) orders as its bits, so two 32-bit hardware reductions and a vote find it; -1 (none)
// is below every key, 0 included.
__device__ inline int warp_winner(double key) {
  const unsigned long long k = key < 0 ? 0ull : static_cast<unsigned long long>(__double_as_longlong(key)) + 1;
  const unsigned hi = unsigned(k >> 32), lo = unsigned(k);
  const unsigned top = __reduce_max_sync(0xffffffffu, hi);
  const unsigned low = __reduce_max_sync(0xffffffffu, hi == top ? lo : 0u);
  return __ffs(__ballot_sync(0xffffffffu, hi == top && lo == low)) - 1;
}

// The exchange's primitives (PTX: mbarrier, mapa, st.async).
__device__ inline unsigned smem_addr(const void *p) { return unsigned(__cvta_generic_to_shared(p)); }
__device__ inline unsigned remote_addr(unsigned local, int rank) {
  unsigned r;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(local), "r"(rank));
  return r;
}
__device__ inline void push_b64(unsigned remote, unsigned long long v, unsigned remote_bar) {
  asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.b64 [%0], %1, [%2];"
               :: "r"(remote), "l"(v), "r"(remote_bar) : "memory");
}
__device__ inline void expect_bytes(unsigned bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(bar), "r"(bytes) : "memory");
}
// Waits until the barrier has completed phase `parity`. A wait past kProgressWaitLimitNs means a
// lost record (a bug, never seen): *failed is set for the host, and this wait and every later one
// of the thread (`broken`) return at once, so that the kernel runs out (its loops are bounded by
// the elements) instead of hanging the caller; the host then reports a device error.
__device__ inline void wait_parity(unsigned bar, unsigned parity, bool &broken, int *failed) {
  if (broken) return;
  unsigned long long t0 = 0;
  for (unsigned spins = 0;; ++spins) {
    unsigned done = 0;
    asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                 : "=r"(done) : "r"(bar), "r"(parity) : "memory");
    if (done) return;
    const unsigned long long t = global_ns();
    if (spins == 0) {
      t0 = t;
    } else if (t - t0 > kProgressWaitLimitNs) {
      broken = true;
      atomicExch(failed, 1);
      return;
    }
  }
}

// The block's best of the warps' records in `rec`, on every lane of warp 0.
__device__ inline Rec block_best(const Rec *rec) {
  const int lane = threadIdx.x % 32;
  const double key = lane < kClusterWarps ? rec[lane].key : -1.0;
  return rec[warp_winner(key)];
}

// The cluster's best record of each of two kinds, on every thread of every block (ties to the
// lowest warp and rank: every block takes the same), in one trip across the cluster: the warps'
// winners, then warp 0 picks the block's and pushes both to every block (a lane a destination and
// kind: st.async into the receiver's inbox, completing bytes on its barrier), and every thread
// waits on its own block's barrier, then reads the inbox. No cluster barrier: `step` counts the
// exchanges (turn = step % 2; a turn's barrier completes a phase every second exchange). A turn's
// inbox is rewritten two exchanges later: a block sends exchange k + 2 only after it received
// every block's exchange k + 1, which each sent after all its threads were done reading exchange k
// (the block barrier at the start of k + 1). Records arriving before the receiver armed its
// barrier for the phase only drive its transaction count below zero meanwhile (PTX allows it).
// Measured on the H100 (2026-11-27, n = 200000): 9-10% faster a call than a cluster barrier and
// a read of every block's published records.
template <class Cluster>
__device__ void cluster_best(const Cluster &cluster, ClusterShared &sh, int &step, const Rec &mine0,
                             const Rec &mine1, Rec &out0, Rec &out1, bool &broken, int *failed) {
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, blocks = int(cluster.num_blocks());
  const int t = step & 1;
  const unsigned parity = unsigned(step >> 1) & 1u;
  if (lane == warp_winner(mine0.key)) sh.warp_rec[t][0][warp] = mine0;
  if (lane == warp_winner(mine1.key)) sh.warp_rec[t][1][warp] = mine1;
  __syncthreads();
  if (blocks == 1) {
    // A cluster of one block (small halves): the records stay in its own shared memory, plain
    // stores behind a block barrier (compute-sanitizer's memcheck flagged the asynchronous
    // stores to the block's own shared memory through the cluster window there).
    if (warp == 0) {  // (block_best takes the whole warp)
      const Rec b0 = block_best(sh.warp_rec[t][0]), b1 = block_best(sh.warp_rec[t][1]);
      if (lane == 0) sh.inbox[t][0][0] = b0, sh.inbox[t][1][0] = b1;
    }
    __syncthreads();
    out0 = sh.inbox[t][0][0];
    out1 = sh.inbox[t][1][0];
    ++step;
    return;
  }
  const unsigned bar = smem_addr(&sh.bar[t]);
  if (warp == 0) {
    const Rec b0 = block_best(sh.warp_rec[t][0]), b1 = block_best(sh.warp_rec[t][1]);
    if (lane == 0) expect_bytes(bar, unsigned(2 * blocks * sizeof(Rec)));
    const int kind = lane / kMaxClusterBlocks, dest = lane % kMaxClusterBlocks;
    if (dest < blocks) {
      const Rec r = kind == 0 ? b0 : b1;
      const int me = int(cluster.block_rank());
      const unsigned to = remote_addr(smem_addr(&sh.inbox[t][kind][me]), dest), to_bar = remote_addr(bar, dest);
      push_b64(to, __double_as_longlong(r.key), to_bar);
      push_b64(to + 8, __double_as_longlong(r.g), to_bar);
      push_b64(to + 16, __double_as_longlong(r.h), to_bar);
      push_b64(to + 24, __double_as_longlong(r.d), to_bar);
      push_b64(to + 32, __double_as_longlong(r.v), to_bar);
      push_b64(to + 40, (static_cast<unsigned long long>(unsigned(r.rank)) << 32) | unsigned(r.slot), to_bar);
    }
  }
  wait_parity(bar, parity, broken, failed);
  const double k0 = lane < blocks ? sh.inbox[t][0][lane].key : -1.0;
  const double k1 = lane < blocks ? sh.inbox[t][1][lane].key : -1.0;
  out0 = sh.inbox[t][0][warp_winner(k0)];
  out1 = sh.inbox[t][1][warp_winner(k1)];
  ++step;
}

// Where the pivots this block owns leave holes below its new count, and which of its last
// elements move into them (in order), as in inertia_kernel.
struct Moves {
  int hole0 = -1, hole1 = -1, mover0 = -1, mover1 = -1, removed = 0;
  __device__ Moves(int m, int a, int b) {  // a, b: owned pivot slots or -1
    if (a > b) { const int x = a; a = b; b = x; }
    removed = (a >= 0) + (b >= 0);
    const int last = m - removed;
    if (a >= 0 && a < last) hole0 = a;
    if (b >= 0 && b < last) (hole0 < 0 ? hole0 : hole1) = b;
    for (int i = last; i < m; ++i)
      if (i != a && i != b) (mover0 < 0 ? mover0 : mover1) = i;
  }
  __device__ int to(int i) const { return i == mover0 ? hole0 : i == mover1 ? hole1 : i; }
  // The element a slot below the new count takes: a hole its mover's, any other its own. A pass
  // that writes slot s from slot from(s) writes only its own thread's slots and reads no slot
  // another thread writes, so the next pass needs no barrier.
  __device__ int from(int i) const { return i == hole0 ? mover0 : i == hole1 ? mover1 : i; }
};
#endif

// The inertia of one half block of C - sigma I by a cluster (task = cluster index: its shift and
// half), as inertia_kernel computes it.
template <bool kRecord>
__global__ void __launch_bounds__(kClusterThreads)
    cluster_inertia_kernel(HalfBlock b0, HalfBlock b1, const InertiaTask *tasks, int64_t *below, int *trusted,
                           double *logdet, RecordSink sink, int *failed) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  extern __shared__ double smem[];
  __shared__ ClusterShared sh;
  const cl::cluster_group cluster = cl::this_cluster();
  const int blocks = int(cluster.num_blocks()), rank = int(cluster.block_rank());
  const int64_t task = blockIdx.x / blocks;
  const HalfBlock b = tasks[task].half ? b1 : b0;
  const double sg = tasks[task].sigma;
  int64_t total = b.size;
  if (total == 0) {
    if (rank == 0 && threadIdx.x == 0) below[task] = 0, trusted[task] = 1, logdet[task] = 0;
    return;
  }
  int m = int((b.size - rank + blocks - 1) / blocks);  // this block's elements: e = rank + s * blocks
  const int cap = int((b.size + blocks - 1) / blocks);
  double *g = smem, *h = smem + cap, *d = smem + 2 * cap;
  double *v = smem + 3 * cap;  // the nodes beside the generators: no lookup on a pass's chain
  int turn = 0;
  bool broken = false;  // an exchange's wait timed out (see wait_parity)
  if (threadIdx.x == 0) {  // the exchange's barriers (one arrival a phase: thread 0's)
    for (int t = 0; t < 2; ++t)
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(smem_addr(&sh.bar[t])) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  cluster.sync();  // every block's barriers ready before any record is pushed
  auto exchange = [&](const Rec &a, const Rec &b, Rec &x, Rec &y) {
    cluster_best(cluster, sh, turn, a, b, x, y, broken, failed);
  };

  // Load; the generators' starting size and the first candidate (the largest |d|).
  double start = 0, largest = 0;
  bool finite = true;
  Rec nx = no_rec();
  for (int s = threadIdx.x; s < m; s += kClusterThreads) {
    const int e = rank + s * blocks;
    g[s] = b.g[e], h[s] = b.h[e], d[s] = b.d[e] - sg, v[s] = b.v[e];
    start = fmax(start, fmax(fabs(g[s]), fabs(h[s])));
    const Rec c{key_of(d[s]), g[s], h[s], d[s], v[s], s, rank};
    if (c.key > nx.key) nx = c;
  }
  Rec R, S;
  {
    Rec st = no_rec();
    st.key = start;
    exchange(st, nx, S, R);
    start = S.key;
  }
  int64_t neg = 0;
  double ld = 0;  // log|det|, the pivots' (thread 0's)
  // A 1x1 pivot whose update is pending: the next step's pass applies it (fused with that step's
  // row), so that a step is one pass over the elements.
  Rec P = no_rec();
  bool pending = false;
  double p_inv = 0;
  int64_t np = 0;  // pivots recorded (kRecord; rank 0's thread 0 writes them)
  bool snapped = false;
  const bool writer = rank == 0 && threadIdx.x == 0;

  while (total > 1) {
    // Pass A: the pending update applied and stored (its pivot removed), fused with row r and the
    // Schur complement a 1x1 pivot r would leave (not stored): where its largest entry is (q) and
    // its largest |d| (the next candidate). Only (key, slot) are tracked on the way.
    const Moves mv(m, pending && P.rank == rank ? P.slot : -1, -1);
    m -= mv.removed;
    if (R.rank == rank) R.slot = mv.to(R.slot);
    const int r_slot = R.rank == rank ? R.slot : -1;
    double inv = R.d != 0 ? 1 / R.d : 0;
    double kq = -1, kn = -1;
    int sq = -1, sn = -1;
    // The body has no branch (the pending update is the pass's variant, pivot r's own slot is
    // masked, node_gap selects), so that the unrolled iterations' dependent chains (two quotients
    // an element) overlap: with a branch an element, the pass ran one element's chain at a time.
    // H200, 2026-11-29, n = 200000, random decaying t: 14.65 to 12.39 s for the 16 smallest,
    // 10.81 to 9.22 s for 16 inside (same counts, eigenvalues to the bit). Batching the loads of
    // four elements ahead of their stores by hand (128 registers) was slower: 15.07 s.
    auto pass_a = [&](auto with_update) {
      #pragma unroll 4  // four elements' chains in flight
      for (int s = threadIdx.x; s < m; s += kClusterThreads) {
        const int from = mv.from(s);
        double gi = g[from], hi = h[from], di = d[from];
        const double vi = v[from];
        if constexpr (decltype(with_update)::value) {
          // A zero row r (p_inv = 0, every entry exactly 0) leaves the elements as they are.
          const double c = cauchy_entry(gi, hi, vi, P.g, P.h, P.v), f = c * p_inv;
          gi -= f * P.g, hi -= f * P.h, di -= f * c;
          largest = fmax(largest, fmax(fabs(gi), fabs(hi)));
          finite &= isfinite(gi + hi + di);
          g[s] = gi, h[s] = hi, d[s] = di, v[s] = vi;
        }
        const double c = cauchy_entry(gi, hi, vi, R.g, R.h, R.v);
        const bool other = s != r_slot;
        const double kc = other ? key_of(c) : -1.0, kd = other ? key_of(di - c * inv * c) : -1.0;
        sq = kc > kq ? s : sq, kq = fmax(kq, kc);
        sn = kd > kn ? s : sn, kn = fmax(kn, kd);
      }
    };
    if (pending) pass_a(std::true_type{});
    else pass_a(std::false_type{});
    pending = false;
    // This thread's candidates from its own slots (written by it above): q as it stands, the next
    // as the 1x1 pivot r would leave it.
    Rec q = no_rec(), nx = no_rec();
    if (sq >= 0) q = {kq, g[sq], h[sq], d[sq], v[sq], sq, rank};
    if (sn >= 0) {
      const double gi = g[sn], hi = h[sn], di = d[sn], vi = v[sn];
      const double c = cauchy_entry(gi, hi, vi, R.g, R.h, R.v), f = c * inv;
      nx = {kn, gi - f * R.g, hi - f * R.h, di - f * c, vi, sn, rank};
    }
    Rec Q, N;
    exchange(q, nx, Q, N);
    const double wr = Q.key;
    if (kRecord && sink.stops(task, total, R.d, wr)) {
      // The rest is the basis' tail: every block's elements as pass A stored them.
      for (int s = threadIdx.x; s < m; s += kClusterThreads)
        sink.tail_of(task)[atomicAdd(&sink.counts[2 * task + 1], 1ull)] = {g[s], h[s], v[s], d[s], 0};
      snapped = true;
      break;
    }

    // Bunch-Kaufman: pivot r (the speculation kept), or q, or the 2x2 (r, q).
    bool keep = wr == 0 || fabs(R.d) >= kAlpha * wr, two = false;
    if (!keep) {
      // Row q's largest magnitude w_q (a pass and an exchange).
      const bool own_q = Q.rank == rank;
      double wq = 0;
      const int q_slot = own_q ? Q.slot : -1;
      #pragma unroll 4
      for (int s = threadIdx.x; s < m; s += kClusterThreads) {
        const double k = key_of(cauchy_entry(g[s], h[s], v[s], Q.g, Q.h, Q.v));
        wq = fmax(wq, s != q_slot ? k : 0.0);
      }
      Rec mq = no_rec(), unused, W;
      mq.key = wq;
      exchange(mq, no_rec(), W, unused);
      wq = W.key;
      if (fabs(R.d) * wq >= kAlpha * wr * wr) keep = true;
      else if (!(fabs(Q.d) >= kAlpha * wq)) two = true;
    }

    if (keep) {
      // The 1x1 pivot r, as pass A formed it: its update pending for the next pass, whose
      // candidate is N.
      neg += R.d < 0;
      if (threadIdx.x == 0) ld += log(fabs(R.d));
      if (kRecord) {
        if (writer) sink.pivots_of(task)[np] = {R.g, R.h, R.v, R.d, 0};
        ++np;
      }
      P = R, p_inv = wr == 0 ? 0 : inv, pending = true;
      --total;
      R = N;  // its slot is remapped when the next pass removes P
      continue;
    }

    // Pass D: the pivot q (1x1) or (r, q) (2x2) applied from the stored elements; the next
    // candidate found on the way (a further exchange).
    const Rec P1 = two ? R : Q, P2 = Q;
    const int a = P1.rank == rank ? P1.slot : -1, bb = two && P2.rank == rank ? P2.slot : -1;
    const Moves mvd(m, a, bb);
    double x = 0, det = 0;
    if (two) {
      x = cauchy_entry(P2.g, P2.h, P2.v, P1.g, P1.h, P1.v);
      det = P1.d * P2.d - x * x;
      inv = 1 / det;
      ++neg;
    } else {
      inv = 1 / P1.d;  // |d_q| >= alpha w_q > 0
      neg += P1.d < 0;
    }
    if (threadIdx.x == 0) ld += log(fabs(two ? det : P1.d));
    if (kRecord) {
      if (writer) {
        sink.pivots_of(task)[np] = {P1.g, P1.h, P1.v, P1.d, two ? 1 : 0};
        if (two) sink.pivots_of(task)[np + 1] = {P2.g, P2.h, P2.v, P2.d, 2};
      }
      np += two ? 2 : 1;
    }
    nx = no_rec();
    m -= mvd.removed;
    // As pass A, without a branch in the body (the 2x2 is the pass's variant).
    double kdd = -1;
    int sd = -1;
    auto pass_d = [&](auto with_two) {
      #pragma unroll 4
      for (int s = threadIdx.x; s < m; s += kClusterThreads) {
        const int from = mvd.from(s);
        double gi = g[from], hi = h[from], di = d[from];
        const double vi = v[from];
        const double c1 = cauchy_entry(gi, hi, vi, P1.g, P1.h, P1.v);
        if constexpr (decltype(with_two)::value) {
          const double c2 = cauchy_entry(gi, hi, vi, P2.g, P2.h, P2.v);
          const double f1 = (c1 * P2.d - c2 * x) * inv, f2 = (c2 * P1.d - c1 * x) * inv;
          gi -= f1 * P1.g + f2 * P2.g, hi -= f1 * P1.h + f2 * P2.h, di -= f1 * c1 + f2 * c2;
        } else {
          const double f = c1 * inv;
          gi -= f * P1.g, hi -= f * P1.h, di -= f * c1;
        }
        largest = fmax(largest, fmax(fabs(gi), fabs(hi)));
        finite &= isfinite(gi + hi + di);
        g[s] = gi, h[s] = hi, d[s] = di, v[s] = vi;
        const double kd = key_of(di);
        sd = kd > kdd ? s : sd, kdd = fmax(kdd, kd);
      }
    };
    if (two) pass_d(std::true_type{});
    else pass_d(std::false_type{});
    if (sd >= 0) nx = {kdd, g[sd], h[sd], d[sd], v[sd], sd, rank};
    total -= two ? 2 : 1;
    if (total == 0) break;
    Rec unused;
    exchange(no_rec(), nx, unused, R);
  }
  if (total == 1) neg += R.d < 0, ld += log(fabs(R.d));
  if (kRecord && writer) {
    if (!snapped) {  // the elimination ran out: its last element (if any) is the tail
      if (total == 1) sink.tail_of(task)[0] = {R.g, R.h, R.v, R.d, 0};
      sink.counts[2 * task + 1] = total == 1 ? 1 : 0;
    }
    sink.counts[2 * task] = np;
  }

  // Growth and finiteness over the cluster.
  Rec worst = no_rec(), unused;
  worst.key = finite ? largest / fmax(start, 1e-300) : INFINITY;
  exchange(worst, no_rec(), worst, unused);
  if (rank == 0 && threadIdx.x == 0) {
    below[task] = neg;
    trusted[task] = worst.key <= kGrowth && !broken;
    logdet[task] = ld;
  }
  cluster.sync();  // no block leaves while another may still read its shared memory
#endif
}

// F of a basis task (structured::frozen_row): a thread a frozen row, replaying the pivots after
// its own on its own (O(frozen^2) work, no exchange); rows in order, so the longest start first.
__global__ void replay_kernel(const structured::Pivot *pivots, int64_t frozen, const structured::Pivot *tail,
                              int64_t count, double *f) {
  const int64_t k = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (k < frozen) structured::frozen_row(pivots, frozen, k, tail, count, f + k, frozen);
}

// The device side of one structured call: C's half blocks, and the buffers of a batch.
class Session {
 public:
  Session(cudaStream_t st) : st_(st), form_(st), batch_(st), record_(st), replay_(st) {}

  Status setup(int64_t n, const double *t_in) {
    n_ = n;
    // t scaled as the host's form (structured::unit_scale, exact): a tiny t's products would
    // underflow. Shifts and floors are scaled with it, the diagonals unscaled.
    scale_ = structured::unit_scale(n, t_in);
    std::vector<double> scaled(t_in, t_in + n);
    for (double &x : scaled) x *= scale_;
    const double *t = scaled.data();
    size_[0] = (n + 1) / 2, size_[1] = n / 2;
    const int64_t period = 2 * (n + 1);
    // Tables, h and the nodes on the host (O(n), the host path's own numbers); g and d, the
    // O(n^2) part, on the device.
    const structured::AngleTables tables = structured::angle_tables(n);
    nodes_ = structured::cauchy_nodes(n, tables);
    const structured::CauchyForm &nodes = nodes_;
    const std::vector<double> &sn = tables.sn, &cs = tables.cs;
    const std::vector<double> h[2] = {nodes.half[0].h, nodes.half[1].h}, v[2] = {nodes.half[0].v, nodes.half[1].v};
    WorkspacePlan plan;
    const size_t o_t = plan.add_array<double>(n), o_sn = plan.add_array<double>(period),
                 o_cs = plan.add_array<double>(period);
    size_t o[2][4];
    for (int p = 0; p < 2; ++p)
      for (int a = 0; a < 4; ++a) o[p][a] = plan.add_array<double>(std::max<int64_t>(size_[p], 1));
    Status s = form_.allocate(plan);
    if (!s) return s;
    form_bytes_ = int64_t(plan.bytes());
    for (int p = 0; p < 2; ++p)
      half_[p] = {size_[p], form_.at<double>(o[p][0]), form_.at<double>(o[p][1]),
                  form_.at<double>(o[p][2]), form_.at<double>(o[p][3])};
    double *dt = form_.at<double>(o_t), *dsn = form_.at<double>(o_sn), *dcs = form_.at<double>(o_cs);
    const size_t kD = sizeof(double);
    if (!(s = check(cudaMemcpyAsync(dt, t, n * kD, cudaMemcpyHostToDevice, st_), "cudaMemcpyAsync")) ||
        !(s = check(cudaMemcpyAsync(dsn, sn.data(), period * kD, cudaMemcpyHostToDevice, st_), "cudaMemcpyAsync")) ||
        !(s = check(cudaMemcpyAsync(dcs, cs.data(), period * kD, cudaMemcpyHostToDevice, st_), "cudaMemcpyAsync")))
      return s;
    for (int p = 0; p < 2; ++p)
      if (size_[p] > 0 &&
          (!(s = check(cudaMemcpyAsync(const_cast<double *>(half_[p].h), h[p].data(), size_[p] * kD,
                                       cudaMemcpyHostToDevice, st_), "cudaMemcpyAsync")) ||
           !(s = check(cudaMemcpyAsync(const_cast<double *>(half_[p].v), v[p].data(), size_[p] * kD,
                                       cudaMemcpyHostToDevice, st_), "cudaMemcpyAsync"))))
        return s;
    const unsigned blocks = unsigned((n + 127) / 128);
    cauchy_setup_kernel<<<blocks, 128, 0, st_>>>(n, dt, dsn, dcs, const_cast<double *>(half_[0].g),
                                                 const_cast<double *>(half_[0].d),
                                                 const_cast<double *>(half_[1].g),
                                                 const_cast<double *>(half_[1].d));
    if (!(s = check_launch("cauchy_setup_kernel"))) return s;
    if (!(s = choose_home(size_[0]))) return s;
    return check(cudaStreamSynchronize(st_), "toeplitz structured setup");
  }

  // The elimination's home: on Hopper, the shared memory of a thread-block cluster that holds the
  // larger half (GPUEIG_TOEPLITZ_CLUSTER, test-only, sets its blocks, or "off"); else one block's
  // shared memory where it fits, or global memory.
  Status choose_home(int64_t size) {
    int dev = 0, optin = 0, sms = 0, major = 0;
    Status s;
    if (!(s = check(cudaGetDevice(&dev), "cudaGetDevice")) ||
        !(s = check(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev),
                    "cudaDeviceGetAttribute")) ||
        !(s = check(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev),
                    "cudaDeviceGetAttribute")) ||
        !(s = sm_count(&sms)))
      return s;
    // GPUEIG_TOEPLITZ_CLUSTER (test-only): auto (0), a size 1 .. 16, or off (17).
    const int forced = env::choice("GPUEIG_TOEPLITZ_CLUSTER", {"auto", "1", "2", "3", "4", "5", "6", "7", "8", "9",
                                                               "10", "11", "12", "13", "14", "15", "16", "off"}, 0);
    const size_t per_elt = 3 * sizeof(double) + sizeof(int), fixed = sizeof(ClusterShared);
    const size_t per_elt_cluster = 4 * sizeof(double);  // g, h, d and the node
    // The cluster size: of those whose shared memory holds the half, the one that runs the most
    // clusters side by side (the search's width), the larger on a tie (less work a block a step).
    // Clusters of 13 to 16 blocks each take a GPC: the H100 runs 7 of them (n = 200000: 3 shifts
    // side by side).
    cluster_ = 0;
    int best = 0;
    if (major >= 9 && forced != 17) {
      for (int c = 1; c <= kMaxClusterBlocks; ++c) {
        const size_t need = per_elt_cluster * size_t((size + c - 1) / c);
        if (forced > 0 ? c != forced : need + fixed > size_t(optin)) continue;
        int clusters = 0;
        cudaLaunchAttribute attr;
        const cudaLaunchConfig_t cfg = launch_config(1, c, need, &attr);
        if (!(s = cluster_attributes(c, optin)) ||
            !(s = check(cudaOccupancyMaxActiveClusters(&clusters, cluster_inertia_kernel<false>, &cfg),
                        "cudaOccupancyMaxActiveClusters")))
          return s;
        if (clusters >= best && clusters > 0) best = clusters, cluster_ = c, smem_ = need;
      }
    }
    if (cluster_ > 0) {
      if (!(s = cluster_attributes(cluster_, optin))) return s;
      slots_ = best;  // a (shift, half) task a cluster
      return Status::success();
    }
    const size_t need = per_elt * size_t(size);
    shared_ = need + sizeof(Candidate) * 2 * kWarps <= size_t(optin);
    int per_sm = 1;
    if (shared_) {
      // (Limits are process-wide: the device's, which every call's launches fit, not this call's
      // `need`, which a call of another size on another host thread would undercut.)
      if (!(s = dynamic_limit(inertia_kernel<false>, optin)) || !(s = dynamic_limit(inertia_kernel<true>, optin)) ||
          !(s = check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, inertia_kernel<false>, kThreads, need),
                      "cudaOccupancyMaxActiveBlocksPerMultiprocessor")))
        return s;
    } else if (!(s = check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, inertia_kernel<false>, kThreads, 0),
                           "cudaOccupancyMaxActiveBlocksPerMultiprocessor"))) {
      return s;
    }
    smem_ = shared_ ? need : 0;
    slots_ = std::max(1, sms * std::max(per_sm, 1));  // a (shift, half) task a block
    return Status::success();
  }

  // A kernel's dynamic shared memory may reach what the device allows beside its static part.
  template <typename Kernel>
  static Status dynamic_limit(Kernel kernel, int optin) {
    cudaFuncAttributes attr{};
    Status s = check(cudaFuncGetAttributes(&attr, kernel), "cudaFuncGetAttributes");
    if (s)
      s = check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     optin - static_cast<int>(attr.sharedSizeBytes)),
                "cudaFuncSetAttribute");
    return s;
  }

  // The cluster kernel's attributes for clusters of c blocks: shared memory up to the device's
  // limit (process-wide, so the same for every call: see above).
  static Status cluster_attributes(int c, int optin) {
    Status s;
    for (auto kernel : {cluster_inertia_kernel<false>, cluster_inertia_kernel<true>})  // inertia, bases
      if (!(s = dynamic_limit(kernel, optin)) ||
          (c > 8 && !(s = check(cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1),
                                "cudaFuncSetAttribute"))))
        return s;
    return Status::success();
  }

  // The cluster kernel's launch for `tasks` (shift, half) pairs in clusters of c blocks with
  // `smem` bytes of shared memory each (*attr: its cluster-size attribute).
  cudaLaunchConfig_t launch_config(int64_t tasks, int c, size_t smem, cudaLaunchAttribute *attr) const {
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(unsigned(tasks * c));
    cfg.blockDim = dim3(kClusterThreads);
    cfg.dynamicSmemBytes = smem;
    cfg.stream = st_;
    attr->id = cudaLaunchAttributeClusterDimension;
    attr->val.clusterDim.x = unsigned(c);
    attr->val.clusterDim.y = 1;
    attr->val.clusterDim.z = 1;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    return cfg;
  }
  int slots() const { return slots_; }

  // The half blocks' diagonals d (the search's guide), downloaded.
  Status diagonals(std::vector<double> (&out)[2]) {
    Status s;
    for (int p = 0; p < 2; ++p) {
      out[p].resize(size_[p]);
      if (size_[p] > 0 &&
          !(s = check(cudaMemcpyAsync(out[p].data(), half_[p].d, size_[p] * sizeof(double), cudaMemcpyDeviceToHost,
                                      st_), "cudaMemcpyAsync")))
        return s;
    }
    s = check(cudaStreamSynchronize(st_), "toeplitz structured diagonals");
    for (std::vector<double> &d : out)
      for (double &x : d) x /= scale_;
    return s;
  }
  int64_t bytes() const { return form_bytes_ + batch_bytes_; }

  Status evaluate(const std::vector<InertiaTask> &list, std::vector<ToeplitzInertia> &out) {
    const int64_t tasks = int64_t(list.size());
    if (tasks == 0) return Status::success();
    WorkspacePlan plan;
    const size_t o_s = plan.add_array<InertiaTask>(tasks), o_b = plan.add_array<int64_t>(tasks),
                 o_t = plan.add_array<int>(tasks), o_l = plan.add_array<double>(tasks),
                 o_f = plan.add_array<int>(1);
    const int64_t stride = std::max<int64_t>(size_[0], 1);
    const size_t o_w = shared_ || cluster_ ? plan.add_array<double>(1) : plan.add_array<double>(4 * stride * tasks);
    Status s = batch_.allocate(plan);
    if (!s) return s;
    batch_bytes_ = std::max(batch_bytes_, int64_t(plan.bytes()));
    InertiaTask *ds = batch_.at<InertiaTask>(o_s);
    int64_t *db = batch_.at<int64_t>(o_b);
    int *dtr = batch_.at<int>(o_t);
    double *dl = batch_.at<double>(o_l);
    std::vector<int64_t> hb(tasks);
    std::vector<int> ht(tasks);
    std::vector<double> hl(tasks);
    std::vector<InertiaTask> scaled(list);
    for (InertiaTask &task : scaled) task.sigma *= scale_;  // exact, unless it under- or overflows
    if (!(s = check(cudaMemcpyAsync(ds, scaled.data(), tasks * sizeof(InertiaTask), cudaMemcpyHostToDevice, st_),
                    "cudaMemcpyAsync")))
      return s;
    int *dfail = batch_.at<int>(o_f), failed = 0;
    if (cluster_ > 0) {
      cudaLaunchAttribute attr;
      const cudaLaunchConfig_t cfg = launch_config(tasks, cluster_, smem_, &attr);
      s = check(cudaMemsetAsync(dfail, 0, sizeof(int), st_), "cudaMemsetAsync");
      if (s)
        s = check_launch(cudaLaunchKernelEx(&cfg, cluster_inertia_kernel<false>, half_[0], half_[1],
                                            static_cast<const InertiaTask *>(ds), db, dtr, dl, RecordSink{}, dfail),
                         "cluster_inertia_kernel");
      if (s) s = check(cudaMemcpyAsync(&failed, dfail, sizeof(int), cudaMemcpyDeviceToHost, st_), "cudaMemcpyAsync");
    } else {
      inertia_kernel<false><<<unsigned(tasks), kThreads, smem_, st_>>>(half_[0], half_[1], ds, db, dtr, dl, shared_,
                                                                        batch_.at<double>(o_w), stride, RecordSink{});
      s = check_launch("inertia_kernel");
    }
    if (!s || !(s = check_download("toeplitz inertia")) ||
        !(s = check(cudaMemcpyAsync(hb.data(), db, tasks * sizeof(int64_t), cudaMemcpyDeviceToHost, st_),
                    "cudaMemcpyAsync")) ||
        !(s = check(cudaMemcpyAsync(ht.data(), dtr, tasks * sizeof(int), cudaMemcpyDeviceToHost, st_),
                    "cudaMemcpyAsync")) ||
        !(s = check(cudaMemcpyAsync(hl.data(), dl, tasks * sizeof(double), cudaMemcpyDeviceToHost, st_),
                    "cudaMemcpyAsync")) ||
        !(s = check(cudaStreamSynchronize(st_), "toeplitz inertia")))
      return s;
    if (failed) return Status::fail(Status::device_error, "toeplitz inertia: a cluster exchange timed out");
    for (int64_t i = 0; i < tasks; ++i) out[i] = {hb[i], ht[i], hl[i]};
    return Status::success();
  }

  // Basis tasks (structured::eigenvectors): every task's elimination recorded side by side (the
  // evaluations' kernel with its record), then each task's frozen rows replayed, and its record and
  // F downloaded to be assembled on the host (structured::basis_from_record).
  Status basis(const std::vector<BasisTask> &list, std::vector<HalfBasis> &out) {
    const int64_t tasks = int64_t(list.size());
    out.assign(list.size(), {});
    if (tasks == 0) return Status::success();
    int64_t most_want = 1;
    for (const BasisTask &t : list) most_want = std::max(most_want, t.want);
    const int64_t stride = std::max<int64_t>(size_[0], 1);
    const int64_t tail_stride = std::max<int64_t>(structured::kTailCap, most_want + 1) + 1;
    WorkspacePlan plan;
    const size_t o_s = plan.add_array<InertiaTask>(tasks), o_k = plan.add_array<BasisTask>(tasks),
                 o_b = plan.add_array<int64_t>(tasks), o_t = plan.add_array<int>(tasks),
                 o_l = plan.add_array<double>(tasks), o_c = plan.add_array<unsigned long long>(2 * tasks),
                 o_p = plan.add_array<structured::Pivot>(stride * tasks),
                 o_q = plan.add_array<structured::Pivot>(tail_stride * tasks), o_f = plan.add_array<int>(1);
    const size_t o_w = shared_ || cluster_ ? plan.add_array<double>(1) : plan.add_array<double>(4 * stride * tasks);
    Status s = record_.allocate(plan);
    if (!s) return s;
    std::vector<InertiaTask> shifts(tasks);
    std::vector<BasisTask> scaled(list);
    for (int64_t i = 0; i < tasks; ++i) {
      scaled[i].sigma *= scale_, scaled[i].floor *= scale_;
      shifts[i] = {scaled[i].sigma, list[i].half};
    }
    InertiaTask *ds = record_.at<InertiaTask>(o_s);
    RecordSink sink;
    sink.pivots = record_.at<structured::Pivot>(o_p), sink.tail = record_.at<structured::Pivot>(o_q);
    sink.counts = record_.at<unsigned long long>(o_c), sink.tasks = record_.at<BasisTask>(o_k);
    sink.stride = stride, sink.tail_stride = tail_stride;
    int64_t *db = record_.at<int64_t>(o_b);
    int *dtr = record_.at<int>(o_t);
    double *dl = record_.at<double>(o_l);
    if (!(s = check(cudaMemcpyAsync(ds, shifts.data(), tasks * sizeof(InertiaTask), cudaMemcpyHostToDevice, st_),
                    "cudaMemcpyAsync")) ||
        !(s = check(cudaMemcpyAsync(const_cast<BasisTask *>(sink.tasks), scaled.data(), tasks * sizeof(BasisTask),
                                    cudaMemcpyHostToDevice, st_), "cudaMemcpyAsync")) ||
        !(s = check(cudaMemsetAsync(sink.counts, 0, 2 * tasks * sizeof(unsigned long long), st_), "cudaMemsetAsync")))
      return s;
    int *dfail = record_.at<int>(o_f), failed = 0;
    if (cluster_ > 0) {
      cudaLaunchAttribute attr;
      const cudaLaunchConfig_t cfg = launch_config(tasks, cluster_, smem_, &attr);
      s = check(cudaMemsetAsync(dfail, 0, sizeof(int), st_), "cudaMemsetAsync");
      if (s)
        s = check_launch(cudaLaunchKernelEx(&cfg, cluster_inertia_kernel<true>, half_[0], half_[1],
                                            static_cast<const InertiaTask *>(ds), db, dtr, dl, sink, dfail),
                         "cluster_inertia_kernel");
      if (s) s = check(cudaMemcpyAsync(&failed, dfail, sizeof(int), cudaMemcpyDeviceToHost, st_), "cudaMemcpyAsync");
    } else {
      inertia_kernel<true><<<unsigned(tasks), kThreads, smem_, st_>>>(half_[0], half_[1], ds, db, dtr, dl, shared_,
                                                                       record_.at<double>(o_w), stride, sink);
      s = check_launch("inertia_kernel");
    }
    std::vector<unsigned long long> counts(2 * tasks);
    std::vector<int> trusted(tasks);
    if (!s || !(s = check_download("toeplitz basis")) ||
        !(s = check(cudaMemcpyAsync(counts.data(), sink.counts, counts.size() * sizeof(unsigned long long),
                                    cudaMemcpyDeviceToHost, st_), "cudaMemcpyAsync")) ||
        !(s = check(cudaMemcpyAsync(trusted.data(), dtr, tasks * sizeof(int), cudaMemcpyDeviceToHost, st_),
                    "cudaMemcpyAsync")) ||
        !(s = check(cudaStreamSynchronize(st_), "toeplitz basis")))
      return s;
    if (failed) return Status::fail(Status::device_error, "toeplitz basis: a cluster exchange timed out");
    for (int64_t i = 0; i < tasks; ++i) {
      const int64_t frozen = int64_t(counts[2 * i]), count = int64_t(counts[2 * i + 1]);
      const int h = list[i].half;
      if (frozen > stride || count > tail_stride || frozen + count != size_[h])
        return Status::fail(Status::device_error, "toeplitz basis: inconsistent record");
      structured::Record rec;
      rec.pivots.resize(frozen), rec.tail.resize(count);
      std::vector<double> f(frozen * count);
      WorkspacePlan fp;
      const size_t o_f = fp.add_array<double>(std::max<int64_t>(frozen * count, 1));
      if (!(s = replay_.allocate(fp))) return s;
      double *df = replay_.at<double>(o_f);
      const structured::Pivot *pivots = sink.pivots + i * stride, *tail = sink.tail + i * tail_stride;
      if (frozen > 0 && count > 0) {
        replay_kernel<<<unsigned((frozen + 255) / 256), 256, 0, st_>>>(pivots, frozen, tail, count, df);
        if (!(s = check_launch("replay_kernel"))) return s;
      }
      if ((frozen * count > 0 &&
           !(s = check(cudaMemcpyAsync(f.data(), df, frozen * count * sizeof(double), cudaMemcpyDeviceToHost, st_),
                       "cudaMemcpyAsync"))) ||
          (frozen > 0 && !(s = check(cudaMemcpyAsync(rec.pivots.data(), pivots, frozen * sizeof(structured::Pivot),
                                                     cudaMemcpyDeviceToHost, st_), "cudaMemcpyAsync"))) ||
          (count > 0 && !(s = check(cudaMemcpyAsync(rec.tail.data(), tail, count * sizeof(structured::Pivot),
                                                    cudaMemcpyDeviceToHost, st_), "cudaMemcpyAsync"))) ||
          !(s = check(cudaStreamSynchronize(st_), "toeplitz basis replay")))
        return s;
      out[i].trusted = structured::basis_from_record(nodes_.half[h], rec, f, list[i].want, out[i].x) && trusted[i];
      out[i].count = size_[h] > 0 ? int64_t(out[i].x.size()) / size_[h] : 0;
    }
    batch_bytes_ = std::max(batch_bytes_, int64_t(plan.bytes()));
    return Status::success();
  }

 private:
  cudaStream_t st_;
  Workspace form_, batch_, record_, replay_;
  structured::CauchyForm nodes_;  // the halves' nodes (h, v) on the host: the bases' places
  double scale_ = 1;              // t's (structured::unit_scale)
  int64_t n_ = 0, size_[2] = {0, 0};
  HalfBlock half_[2] = {};
  bool shared_ = false;
  int cluster_ = 0;
  size_t smem_ = 0;
  int slots_ = 1;
  int64_t form_bytes_ = 0, batch_bytes_ = 0;
};

}  // namespace

Status toeplitz_inertia(int64_t n, const double *t, const InertiaUse &use, int64_t *bytes) {
  DeviceScope scope;
  Context *ctx = nullptr;
  Status s = enter(scope, ctx);
  if (!s) return s;
  Session session(ctx->stream());
  InertiaSource source;
  if (!(s = session.setup(n, t)) || !(s = session.diagonals(source.diagonal))) return s;
  source.batch = [&](const std::vector<InertiaTask> &tasks, std::vector<ToeplitzInertia> &out) {
    return session.evaluate(tasks, out);
  };
  source.basis = [&](const std::vector<BasisTask> &tasks, std::vector<HalfBasis> &out) {
    return session.basis(tasks, out);
  };
  source.slots = session.slots();
  s = use(source);
  *bytes = session.bytes();
  return s;
}

}  // namespace gpueig::gpu
