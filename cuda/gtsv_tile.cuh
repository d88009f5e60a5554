// One tile of a tridiagonal system solved by a group of T threads, each owning M consecutive rows.
//
// The tile is a self-contained tridiagonal system of C = T*M rows (no coupling outside it: the
// callers turn outside couplings into known values or identity rows first). It is solved in two
// levels, so every row is read from shared memory once and the work is O(C):
//   1. Each thread eliminates the interior of its M rows by a forward and a backward sweep in
//      registers (the partitioned Thomas algorithm), leaving every interior row as
//      x_k = r_k - p_k x_s - q_k x_e in terms of its chunk's first (s) and last (e) unknowns, and
//      two rows that couple only chunk ends: a tridiagonal system of 2T rows.
//   2. That system is solved by parallel cyclic reduction (log2(2T) steps) in shared memory, and
//      each thread substitutes its two end values back into its interior rows.
// Neither level pivots: the kernels that use this judge every result by its residual.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

namespace gpueig::gpu::tile {

// Shared-memory position of tile row i: one pad word per 16 rows, so the strided reads of step 1
// (thread t reads rows t*M .. t*M+M-1) fall on distinct banks for M = 2, 4, 8 and 16.
__host__ __device__ constexpr int slot(int i) { return i + (i >> 4); }
__host__ __device__ constexpr int slots(int rows) { return slot(rows - 1) + 1; }

// Synchronizes the threads of one group: a warp when T = 32 (several groups share a block and
// work independently), else the whole block (one group per block).
template <int T>
__device__ __forceinline__ void group_sync() {
  if constexpr (T == 32)
    __syncwarp();
  else
    __syncthreads();
}

// 1/x without IEEE division's slow-path branch: the hardware approximation refined by two
// Newton steps (error ~1 ulp, not correctly rounded). x = 0, Inf or NaN (and subnormal x, which
// the approximation flushes to 0) give NaN, which the residual check turns into a re-solve. The
// division it replaces was the kernels' main latency (a long dependent chain per row).
__device__ __forceinline__ double rcp(double x) {
  double y;
  asm("rcp.approx.ftz.f64 %0, %1;" : "=d"(y) : "d"(x));
  double e = fma(-x, y, 1.0);
  y = fma(y, e, y);
  e = fma(-x, y, 1.0);
  return fma(y, e, y);
}

template <int T, int M, int K>
struct Shared {
  static constexpr int kCap = T * M;
  // The tile as loaded (originals, kept for the residual): a x_{i-1} + b x_i + c x_{i+1} = r.
  double a[slots(kCap)], b[slots(kCap)], c[slots(kCap)], r[slots(kCap)];
  // The 2T-row system of chunk ends, double-buffered for PCR, with 1/b of each row (ri); then
  // its solution.
  double ra[2][2 * T], ri[2][2 * T], rc[2][2 * T], rr[2][K][2 * T];
  double scratch[3 * (T / 32)];  // group reductions
};

// A row of the tile as a thread sees it in registers: K right-hand sides.
template <int K>
struct Row {
  double a, b, c, r[K];
};

// Per-thread state between the sweeps and the back substitution.
template <int M, int K>
struct Chunk {
  double p[M], q[M], r[K][M];  // interior row k: x_k = r_k - p_k x_s - q_k x_e
  double xs[K], xe[K];         // the chunk's end values, once known
};

// Step 1 for one thread: eliminates the interior of rows[0..M-1] and returns, through s and e,
// the chunk's two end rows: s couples x_{s-1}, x_s, x_e; e couples x_s, x_e, x_{e+1}.
template <int M, int K>
__device__ __forceinline__ void sweep(const Row<K> (&rows)[M], Chunk<M, K> &ck, Row<K> &s,
                                      Row<K> &e) {
  static_assert(M >= 2, "a chunk has a first and a last row");
  // Forward: rows 1..M-1 become  p_k x_s + x_k + q_k x_{k+1} = r_k  (row 0 is x_s's own row).
  {
    const double inv = rcp(rows[1].b);
    ck.p[1] = rows[1].a * inv;
    ck.q[1] = rows[1].c * inv;
#pragma unroll
    for (int j = 0; j < K; ++j) ck.r[j][1] = rows[1].r[j] * inv;
  }
#pragma unroll
  for (int k = 2; k < M; ++k) {
    const double a = rows[k].a;
    const double inv = rcp(rows[k].b - a * ck.q[k - 1]);
    ck.p[k] = -a * ck.p[k - 1] * inv;
    ck.q[k] = rows[k].c * inv;
#pragma unroll
    for (int j = 0; j < K; ++j) ck.r[j][k] = (rows[k].r[j] - a * ck.r[j][k - 1]) * inv;
  }
  // Backward: rows M-3..1 lose x_{k+1} in favour of x_e (row M-2 already couples x_e).
#pragma unroll
  for (int k = M - 3; k >= 1; --k) {
    const double q = ck.q[k];
    ck.p[k] -= q * ck.p[k + 1];
#pragma unroll
    for (int j = 0; j < K; ++j) ck.r[j][k] -= q * ck.r[j][k + 1];
    ck.q[k] = -q * ck.q[k + 1];
  }
  // Row 0 with x_1 substituted (for M = 2, x_1 is x_e itself).
  s.a = rows[0].a;
  if constexpr (M >= 3) {
    s.b = rows[0].b - rows[0].c * ck.p[1];
    s.c = -rows[0].c * ck.q[1];
#pragma unroll
    for (int j = 0; j < K; ++j) s.r[j] = rows[0].r[j] - rows[0].c * ck.r[j][1];
  } else {
    s.b = rows[0].b;
    s.c = rows[0].c;
#pragma unroll
    for (int j = 0; j < K; ++j) s.r[j] = rows[0].r[j];
  }
  e.a = ck.p[M - 1];
  e.b = 1.0;
  e.c = ck.q[M - 1];
#pragma unroll
  for (int j = 0; j < K; ++j) e.r[j] = ck.r[j][M - 1];
}

// Step 2: PCR on the 2T chunk-end rows; thread t holds rows 2t (its s) and 2t+1 (its e). Leaves
// the solution in sh.rr[0][j][*] for every group thread to read after the final sync, and in
// ck.xs / ck.xe for this thread.
template <int T, int M, int K>
__device__ __forceinline__ void solve_ends(Shared<T, M, K> &sh, int t, const Row<K> &s,
                                           const Row<K> &e, Chunk<M, K> &ck) {
  constexpr int N = 2 * T;
  int cur = 0;
  {
    const Row<K> mine[2] = {s, e};
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int i = 2 * t + h;
      sh.ra[0][i] = mine[h].a;
      sh.ri[0][i] = rcp(mine[h].b);
      sh.rc[0][i] = mine[h].c;
#pragma unroll
      for (int j = 0; j < K; ++j) sh.rr[0][j][i] = mine[h].r[j];
    }
  }
  group_sync<T>();
  // A row is kept as a x_{i-s} + x_i / ri + c x_{i+s} = r: each step needs the neighbours' 1/b,
  // computed once by the row's owner.
  double bcur[2] = {s.b, e.b};
#pragma unroll 1
  for (int stride = 1; stride < N; stride *= 2) {
    const int nxt = 1 - cur;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int i = 2 * t + h, lo = i - stride, hi = i + stride;
      const double a = sh.ra[cur][i], c = sh.rc[cur][i];
      double b = bcur[h], na = 0.0, nc = 0.0, k1 = 0.0, k2 = 0.0;
      // A zero coupling needs no elimination, and skipping it keeps a zero pivot in an unrelated
      // row from poisoning this one.
      if (lo >= 0 && a != 0.0) {
        k1 = a * sh.ri[cur][lo];
        na = -k1 * sh.ra[cur][lo];
        b -= k1 * sh.rc[cur][lo];
      }
      if (hi < N && c != 0.0) {
        k2 = c * sh.ri[cur][hi];
        nc = -k2 * sh.rc[cur][hi];
        b -= k2 * sh.ra[cur][hi];
      }
      sh.ra[nxt][i] = na;
      sh.ri[nxt][i] = rcp(b);
      sh.rc[nxt][i] = nc;
      bcur[h] = b;
#pragma unroll
      for (int j = 0; j < K; ++j) {
        double r = sh.rr[cur][j][i];
        if (k1 != 0.0) r -= k1 * sh.rr[cur][j][lo];
        if (k2 != 0.0) r -= k2 * sh.rr[cur][j][hi];
        sh.rr[nxt][j][i] = r;
      }
    }
    group_sync<T>();
    cur = nxt;
  }
  // Every row is now decoupled; publish x in buffer 0 (free: the last step read buffer `cur`).
#pragma unroll
  for (int j = 0; j < K; ++j) {
    ck.xs[j] = sh.rr[cur][j][2 * t] * sh.ri[cur][2 * t];
    ck.xe[j] = sh.rr[cur][j][2 * t + 1] * sh.ri[cur][2 * t + 1];
  }
  // Safe without a sync: if the last step wrote buffer 0, each thread reads only its own rows of
  // it; if it wrote buffer 1, everyone finished reading buffer 0 before that step's sync.
#pragma unroll
  for (int j = 0; j < K; ++j) {
    sh.rr[0][j][2 * t] = ck.xs[j];
    sh.rr[0][j][2 * t + 1] = ck.xe[j];
  }
  group_sync<T>();
}

// x of chunk row k (0 <= k < M) for right-hand side j, once ck.xs / ck.xe are known.
template <int M, int K>
__device__ __forceinline__ double chunk_x(const Chunk<M, K> &ck, int j, int k) {
  if (k == 0) return ck.xs[j];
  if (k == M - 1) return ck.xe[j];
  return ck.r[j][k] - ck.p[k] * ck.xs[j] - ck.q[k] * ck.xe[j];
}

// Over the group: the sums of u and v and the max of w (w >= 0); valid in group thread 0.
template <int T, int M, int K>
__device__ __forceinline__ void group_reduce(Shared<T, M, K> &sh, int t, double &u, double &v,
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
