// One tile of a tridiagonal system solved by a group of T threads, each owning M consecutive rows.
//
// The method is Gaussian elimination without pivoting in a nested-dissection order, so the work
// is O(rows), every row is read from shared memory once, and the answer is as accurate as the
// Thomas algorithm's wherever elimination without pivoting is safe (diagonally dominant and
// symmetric positive definite matrices: for these, elimination in any symmetric order is
// backward stable). In three steps:
//   1. Each thread eliminates the interior of its M rows by a forward and a backward sweep in
//      registers (the partitioned Thomas algorithm): every interior row becomes
//      x_k = r_k - p_k x_s - q_k x_e in terms of the chunk's first (s) and last (e) unknowns,
//      and two rows remain that couple only chunk ends (a Seg, below).
//   2. Up the tree: neighbouring segments are merged pairwise (log2 T levels, by warp shuffles
//      and, across warps, shared memory) by eliminating the two unknowns at their junction;
//      each merge keeps those unknowns as affine functions of the merged segment's two ends (a
//      Coef). The root couples the group's first and last unknowns with the outside.
//   3. Down the tree: once the group's two end values are known, each level gives every thread
//      the end values of its half, down to its own chunk, whose interior follows.
// An earlier version solved the chunk-end system of step 2 by parallel cyclic reduction. PCR is
// not elimination in any order and its residuals on Laplacians grew with n (DGTT02 ratios of
// 20-400 at n = 1000-2048), so those systems failed the check and fell back to the CPU.
// Nothing here pivots: the kernels judge every result by its residual.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "fast_math.cuh"

namespace gpueig::gpu::tile {

// Shared-memory position of tile row i: one pad word per 16 rows, so the strided reads of step 1
// (thread t reads rows t*M .. t*M+M-1) fall on distinct banks for M = 2, 4, 8 and 16.
__host__ __device__ constexpr int slot(int i) { return i + (i >> 4); }
__host__ __device__ constexpr int slots(int rows) { return slot(rows - 1) + 1; }

__host__ __device__ constexpr int log2i(int v) { return v <= 1 ? 0 : 1 + log2i(v / 2); }

// Synchronizes the threads of one group: a warp when T = 32 (several groups share a block and
// work independently), else the whole block (one group per block).
template <int T>
__device__ __forceinline__ void group_sync() {
  if constexpr (T == 32)
    __syncwarp();
  else
    __syncthreads();
}

using gpu::rcp;

// A row a x_{i-1} + b x_i + c x_{i+1} = r.
struct Row {
  double a, b, c, r;
};

// A segment u..v (v > u) with its interior eliminated: two rows,
//   s: s.a x_{u-1} + s.b x_u + s.c x_v     = s.r
//   e: e.a x_u     + e.b x_v + e.c x_{v+1} = e.r
struct Seg {
  Row s, e;
};

// A merge's record for the way down: the junction unknowns x_v (end of the left half) and
// x_{v+1} (start of the right half) as affine functions of the merged segment's ends x_u, x_w.
struct Coef {
  double a0, au, aw;  // x_v     = a0 + au x_u + aw x_w
  double b0, bu, bw;  // x_{v+1} = b0 + bu x_u + bw x_w
};

template <int T, int M>
struct Shared {
  static constexpr int kCap = T * M;
  // The tile as loaded (originals, kept for the residual): a x_{i-1} + b x_i + c x_{i+1} = r.
  double a[slots(kCap)], b[slots(kCap)], c[slots(kCap)], r[slots(kCap)];
  Coef nodes[T - 1];         // the merge tree, level by level (level l has T >> (l+1) nodes)
  Seg xchg[T / 32];          // one aggregate per warp, for the levels across warps
  double ends[2 * T];        // every chunk's end values, for the neighbours' residuals
  double scratch[3 * (T / 32)];  // group reductions
};

// Per-thread state between the sweeps and the back substitution.
template <int M>
struct Chunk {
  double p[M], q[M], r[M];  // interior row k: x_k = r_k - p_k x_s - q_k x_e
  double xs, xe;            // the chunk's end values, once known
};

// Step 1 for one thread: eliminates the interior of rows[0..M-1], leaving p, q, r in ck and
// the chunk's two end rows in the returned segment.
template <int M>
__device__ __forceinline__ Seg sweep(const Row (&rows)[M], Chunk<M> &ck) {
  static_assert(M >= 2, "a chunk has a first and a last row");
  // Forward: rows 1..M-1 become  p_k x_s + x_k + q_k x_{k+1} = r_k  (row 0 is x_s's own row).
  {
    const double inv = rcp(rows[1].b);
    ck.p[1] = rows[1].a * inv;
    ck.q[1] = rows[1].c * inv;
    ck.r[1] = rows[1].r * inv;
  }
#pragma unroll
  for (int k = 2; k < M; ++k) {
    const double a = rows[k].a;
    const double inv = rcp(rows[k].b - a * ck.q[k - 1]);
    ck.p[k] = -a * ck.p[k - 1] * inv;
    ck.q[k] = rows[k].c * inv;
    ck.r[k] = (rows[k].r - a * ck.r[k - 1]) * inv;
  }
  // Backward: rows M-3..1 lose x_{k+1} in favour of x_e (row M-2 already couples x_e).
#pragma unroll
  for (int k = M - 3; k >= 1; --k) {
    const double q = ck.q[k];
    ck.p[k] -= q * ck.p[k + 1];
    ck.r[k] -= q * ck.r[k + 1];
    ck.q[k] = -q * ck.q[k + 1];
  }
  Seg g;
  // Row 0 with x_1 substituted (for M = 2, x_1 is x_e itself).
  g.s.a = rows[0].a;
  if constexpr (M >= 3) {
    g.s.b = rows[0].b - rows[0].c * ck.p[1];
    g.s.c = -rows[0].c * ck.q[1];
    g.s.r = rows[0].r - rows[0].c * ck.r[1];
  } else {
    g.s = rows[0];
  }
  g.e = {ck.p[M - 1], 1.0, ck.q[M - 1], ck.r[M - 1]};
  return g;
}

// Merges segment A = u..v and B = v+1..w into u..w: eliminates x_v by A's e row (pivot e.b),
// then x_{v+1} by B's s row (pivot g), and substitutes both into A's s row and B's e row.
__device__ __forceinline__ Seg merge(const Seg &A, const Seg &B, Coef &k) {
  const double ie = rcp(A.e.b);
  const double m = B.s.a * ie;
  const double ig = rcp(B.s.b - m * A.e.c);
  k.b0 = (B.s.r - m * A.e.r) * ig;
  k.bu = m * A.e.a * ig;
  k.bw = -B.s.c * ig;
  k.a0 = (A.e.r - A.e.c * k.b0) * ie;
  k.au = -(A.e.a + A.e.c * k.bu) * ie;
  k.aw = -A.e.c * k.bw * ie;
  Seg g;
  g.s = {A.s.a, A.s.b + A.s.c * k.au, A.s.c * k.aw, A.s.r - A.s.c * k.a0};
  g.e = {B.e.a * k.bu, B.e.b + B.e.a * k.bw, B.e.c, B.e.r - B.e.a * k.b0};
  return g;
}

__device__ __forceinline__ Row shfl_xor(const Row &v, int mask) {
  return {__shfl_xor_sync(0xffffffffu, v.a, mask), __shfl_xor_sync(0xffffffffu, v.b, mask),
          __shfl_xor_sync(0xffffffffu, v.c, mask), __shfl_xor_sync(0xffffffffu, v.r, mask)};
}

// First node of level l in Shared::nodes.
template <int T>
__device__ __forceinline__ int level_base(int l) {
  return T - (T >> l);
}

// Step 2: every thread passes its chunk's segment and gets the whole group's back. Both halves
// of a merge compute it from the same operands, so they agree to the bit. With Keep, each
// node's Coef is stored (by the node's first thread) for group_down.
template <int T, int M, bool Keep>
__device__ __forceinline__ Seg group_up(Shared<T, M> &sh, int t, Seg g) {
  constexpr int L = log2i(T);
#pragma unroll
  for (int l = 0; l < L; ++l) {
    Seg o;
    if (l < 5) {
      o.s = shfl_xor(g.s, 1 << l);
      o.e = shfl_xor(g.e, 1 << l);
    } else {  // across warps: every lane holds its warp's aggregate
      if (t % 32 == 0) sh.xchg[t / 32] = g;
      group_sync<T>();
      o = sh.xchg[(t / 32) ^ (1 << (l - 5))];
      group_sync<T>();
    }
    const bool upper = t & (1 << l);
    const Seg A = upper ? o : g, B = upper ? g : o;  // select, then one merge: no divergence
    Coef k;
    g = merge(A, B, k);
    if (Keep && (t & ((2 << l) - 1)) == 0) sh.nodes[level_base<T>(l) + (t >> (l + 1))] = k;
  }
  return g;
}

// Step 3: from the group's end values xu (first row) and xw (last row) to this thread's chunk
// ends ck.xs, ck.xe. Needs group_up<.., true> and a group_sync after it.
template <int T, int M>
__device__ __forceinline__ void group_down(const Shared<T, M> &sh, int t, double xu, double xw,
                                           Chunk<M> &ck) {
  constexpr int L = log2i(T);
#pragma unroll
  for (int l = L - 1; l >= 0; --l) {
    const Coef k = sh.nodes[level_base<T>(l) + (t >> (l + 1))];
    if (t & (1 << l))
      xu = k.b0 + k.bu * xu + k.bw * xw;
    else
      xw = k.a0 + k.au * xu + k.aw * xw;
  }
  ck.xs = xu;
  ck.xe = xw;
}

// The end values of a whole system (no outside couplings), from the root segment.
__device__ __forceinline__ void solve_root(const Seg &g, double &xu, double &xw) {
  const double is = rcp(g.s.b);
  const double m = g.e.a * is;
  xw = (g.e.r - m * g.s.r) * rcp(g.e.b - m * g.s.c);
  xu = (g.s.r - g.s.c * xw) * is;
}

// x of chunk row k (0 <= k < M), once ck.xs / ck.xe are known.
template <int M>
__device__ __forceinline__ double chunk_x(const Chunk<M> &ck, int k) {
  if (k == 0) return ck.xs;
  if (k == M - 1) return ck.xe;
  return ck.r[k] - ck.p[k] * ck.xs - ck.q[k] * ck.xe;
}

// Over the group: the sums of u and v and the max of w (w >= 0); valid in group thread 0.
template <int T, int M>
__device__ __forceinline__ void group_reduce(Shared<T, M> &sh, int t, double &u, double &v,
                                             double &w) {
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) {
    u += __shfl_down_sync(0xffffffffu, u, off);
    v += __shfl_down_sync(0xffffffffu, v, off);
    w = fmax(w, __shfl_down_sync(0xffffffffu, w, off));
  }
  if constexpr (T > 32) {
    constexpr int W = T / 32;
    if (t % 32 == 0) {
      sh.scratch[t / 32] = u;
      sh.scratch[W + t / 32] = v;
      sh.scratch[2 * W + t / 32] = w;
    }
    group_sync<T>();
    if (t == 0) {
      for (int k = 1; k < W; ++k) {
        u += sh.scratch[k];
        v += sh.scratch[W + k];
        w = fmax(w, sh.scratch[2 * W + k]);
      }
    }
  }
}

}  // namespace gpueig::gpu::tile
