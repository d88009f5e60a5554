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
// Cost: the blocks are dense, so the two passes take about 16/3 n^3 flops in all, four times a
// Householder band reduction; in exchange every flop is a tensor-core product and there are no
// matrix-vector products (one-stage DSYTRD spends half its 4/3 n^3 in DSYMV at memory speed).
#include <mma.h>

#include <algorithm>

#include "context.hpp"
#include "sytrd.hpp"

namespace gpueig::gpu {
namespace {

constexpr int B = kSytrdBand;  // band width = columns of a panel
constexpr int H = 2 * B;       // rows of a tile = order of every accumulated block
constexpr int kThreads = 256;
constexpr int kStrip = 64;   // columns (left pass) or rows (right pass) of one apply block
constexpr int kLdx = H + 4;  // padded leading dimension of the shared strip
// Dynamic shared memory of the panel kernels: the panel piece X (H x B) and the block G (H x H),
// both padded; over the 48 KB a kernel gets without asking.
constexpr size_t kPanelSmem = (H * (B + 1) + H * (H + 1)) * sizeof(double);

// c and s with c*a + s*b = hypot(a, b) and -s*a + c*b = 0 (hypot: no overflow or underflow).
__device__ inline void givens(double a, double b, double &c, double &s) {
  if (b == 0) {
    c = 1;
    s = 0;
    return;
  }
  const double r = hypot(a, b);
  c = a / r;
  s = b / r;
}

// One step of a rotation schedule: rotation j (if rows[j] >= 0) acts on rows (p[j], q[j]) of the
// panel piece X (cols j..B-1; column j of row q becomes exactly zero) and of the block G.
__device__ void apply_step(double (*X)[B + 1], double (*G)[H + 1], const int *p, const int *q,
                           const double (*cs)[2], int count) {
  for (int idx = threadIdx.x; idx < count * (B + H); idx += blockDim.x) {
    const int j = idx / (B + H), col = idx % (B + H);
    if (p[j] < 0) continue;
    const double c = cs[j][0], s = cs[j][1];
    if (col < B) {
      if (col < j) continue;  // both rows are already zero left of column j
      const double x = X[p[j]][col], y = X[q[j]][col];
      X[p[j]][col] = c * x + s * y;
      X[q[j]][col] = col == j ? 0.0 : c * y - s * x;
    } else {
      const int g = col - B;
      const double x = G[p[j]][g], y = G[q[j]][g];
      G[p[j]][g] = c * x + s * y;
      G[q[j]][g] = c * y - s * x;
    }
  }
}

__device__ void identity_block(double (*G)[H + 1]) {
  for (int idx = threadIdx.x; idx < H * H; idx += blockDim.x) G[idx % H][idx / H] = idx % H == idx / H;
}

__device__ void store_block(const double (*G)[H + 1], double *out) {
  for (int idx = threadIdx.x; idx < H * H; idx += blockDim.x) out[idx] = G[idx % H][idx / H];
}

// Level 0: tile blockIdx.x (rows st .. st+rt-1 of panel columns c0 .. c0+B-1) becomes upper
// trapezoidal; its rotations, accumulated, go to blocks[blockIdx.x] (H x H, column-major).
__global__ void __launch_bounds__(kThreads)
    tile_qr_kernel(double *a, int64_t lda, int64_t n, int64_t c0, double *blocks) {
  extern __shared__ double smem[];
  auto X = reinterpret_cast<double(*)[B + 1]>(smem);
  auto G = reinterpret_cast<double(*)[H + 1]>(smem + H * (B + 1));
  __shared__ double cs[B][2];
  __shared__ int p[B], q[B];
  const int64_t st = c0 + B + int64_t(blockIdx.x) * H;
  const int rt = static_cast<int>(std::min<int64_t>(H, n - st));
  for (int idx = threadIdx.x; idx < H * B; idx += blockDim.x) {
    const int i = idx % H, j = idx / H;
    X[i][j] = i < rt ? a[(st + i) + (c0 + j) * lda] : 0.0;
  }
  identity_block(G);
  __syncthreads();
  // Column j's rotation on rows (i-1, i) runs at step (rt-1-i) + 2j: it needs column j-1 zeroed
  // in rows i (step t-2) and i-1 (step t-1), and its own chain's previous rotation (step t-1).
  const int nj = rt - 1 < B ? rt - 1 : B;
  const int steps = nj > 0 ? rt - 2 + nj : 0;  // the last: column nj-1 on rows (nj-1, nj)
  for (int t = 0; t < steps; ++t) {
    if (threadIdx.x < nj) {
      const int j = threadIdx.x, i = rt - 1 - t + 2 * j;
      if (i > j && i < rt) {
        givens(X[i - 1][j], X[i][j], cs[j][0], cs[j][1]);
        p[j] = i - 1;
        q[j] = i;
      } else {
        p[j] = -1;
      }
    }
    __syncthreads();
    apply_step(X, G, p, q, cs, nj);
    __syncthreads();
  }
  for (int idx = threadIdx.x; idx < H * B; idx += blockDim.x) {
    const int i = idx % H, j = idx / H;
    if (i < rt) a[(st + i) + (c0 + j) * lda] = X[i][j];
  }
  store_block(G, blocks + int64_t(blockIdx.x) * H * H);
}

// Level l (step = 2^(l-1) tiles): the top B rows of tile t = 2*step*blockIdx.x (a triangle) absorb
// the top k <= B rows of tile t + step (a triangle, or a trapezoid of a short last tile). Rows
// 0..B-1 of the block are t's, rows B..B+k-1 are the other's.
__global__ void __launch_bounds__(kThreads)
    pair_qr_kernel(double *a, int64_t lda, int64_t n, int64_t c0, int64_t step, double *blocks) {
  extern __shared__ double smem[];
  auto X = reinterpret_cast<double(*)[B + 1]>(smem);
  auto G = reinterpret_cast<double(*)[H + 1]>(smem + H * (B + 1));
  __shared__ double cs[B][2];
  __shared__ int p[B], q[B];
  const int64_t top = c0 + B + 2 * step * H * int64_t(blockIdx.x);
  const int64_t bot = top + step * H;
  const int k = static_cast<int>(std::min<int64_t>(B, n - bot));
  for (int idx = threadIdx.x; idx < H * B; idx += blockDim.x) {
    const int i = idx % H, j = idx / H;
    X[i][j] = i < B ? a[(top + i) + (c0 + j) * lda]
                    : (i - B < k ? a[(bot + i - B) + (c0 + j) * lda] : 0.0);
  }
  identity_block(G);
  __syncthreads();
  // Rotation (j, r) zeroes row r of the lower triangle in column j against row j of the upper:
  // it needs (j-1, r) and (j, r-1) first, so all (j, r) with j + r = t run in step t.
  const int steps = B + k - 1;
  for (int t = 0; t < steps; ++t) {
    if (threadIdx.x < B) {
      const int j = threadIdx.x, r = t - j;
      if (r >= 0 && r <= j && r < k) {
        givens(X[j][j], X[B + r][j], cs[j][0], cs[j][1]);
        p[j] = j;
        q[j] = B + r;
      } else {
        p[j] = -1;
      }
    }
    __syncthreads();
    apply_step(X, G, p, q, cs, B);
    __syncthreads();
  }
  for (int idx = threadIdx.x; idx < H * B; idx += blockDim.x) {
    const int i = idx % H, j = idx / H;
    if (i < B) a[(top + i) + (c0 + j) * lda] = X[i][j];
    else if (i - B < k) a[(bot + i - B) + (c0 + j) * lda] = X[i][j];
  }
  store_block(G, blocks + int64_t(blockIdx.x) * H * H);
}

// The index sets of one level's blocks: block b's local index i < len0 is global index
// first + b*stride + i; for merges (off1 > 0) local index B + i (i < len1) is that + off1 + i.
struct Level {
  int64_t first, stride, off1;
  int len0max, len1max;
  int64_t count;
  const double *blocks;
};

__device__ inline int64_t global_index(const Level &L, int64_t n, int local) {
  const int64_t s0 = L.first + int64_t(blockIdx.x) * L.stride;
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
template <bool kRight>
__global__ void __launch_bounds__(kThreads)
    apply_level_kernel(double *a, int64_t lda, int64_t n, Level L, int64_t lo, int64_t hi) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
  using namespace nvcuda;
#endif
  __shared__ __align__(128) double X[kStrip * kLdx];  // X[c * kLdx + i]: strip entry c, index i
  const int64_t s0 = lo + int64_t(blockIdx.y) * kStrip;
  const int width = static_cast<int>(std::min<int64_t>(kStrip, hi - s0));
  // Loads: the fastest thread index runs along memory (down a column of A).
  for (int idx = threadIdx.x; idx < H * kStrip; idx += blockDim.x) {
    int i, c;
    if (kRight) {
      c = idx % kStrip;
      i = idx / kStrip;
    } else {
      i = idx % H;
      c = idx / H;
    }
    const int64_t g = global_index(L, n, i);
    double v = 0.0;
    if (g >= 0 && c < width) v = kRight ? a[(s0 + c) + g * lda] : a[g + (s0 + c) * lda];
    X[c * kLdx + i] = v;
  }
  __syncthreads();
  const double *G = L.blocks + int64_t(blockIdx.x) * H * H;  // 64 x 64, column-major
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
  // Y = G X on the FP64 tensor cores: warp w makes rows 8w..8w+7 of Y.
  const int w = threadIdx.x / 32;
  wmma::fragment<wmma::accumulator, 8, 8, 4, double> acc[kStrip / 8];
#pragma unroll
  for (int ct = 0; ct < kStrip / 8; ++ct) wmma::fill_fragment(acc[ct], 0.0);
#pragma unroll 4
  for (int kk = 0; kk < H / 4; ++kk) {
    wmma::fragment<wmma::matrix_a, 8, 8, 4, double, wmma::col_major> fa;
    wmma::load_matrix_sync(fa, G + 8 * w + 4 * kk * H, H);
#pragma unroll
    for (int ct = 0; ct < kStrip / 8; ++ct) {
      wmma::fragment<wmma::matrix_b, 8, 8, 4, double, wmma::col_major> fb;
      wmma::load_matrix_sync(fb, X + 4 * kk + 8 * ct * kLdx, kLdx);
      wmma::mma_sync(acc[ct], fa, fb, acc[ct]);
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
  for (int k = 0; k < H; ++k) {
    const double x = X[c * kLdx + k];
#pragma unroll
    for (int r = 0; r < kRows; ++r) acc[r] += G[(i0 + r) + k * H] * x;
  }
  __syncthreads();
#pragma unroll
  for (int r = 0; r < kRows; ++r) X[c * kLdx + i0 + r] = acc[r];
#endif
  __syncthreads();
  for (int idx = threadIdx.x; idx < H * kStrip; idx += blockDim.x) {
    int i, c;
    if (kRight) {
      c = idx % kStrip;
      i = idx / kStrip;
    } else {
      i = idx % H;
      c = idx / H;
    }
    const int64_t g = global_index(L, n, i);
    if (g < 0 || c >= width) continue;
    if (kRight) a[(s0 + c) + g * lda] = X[c * kLdx + i];
    else a[g + (s0 + c) * lda] = X[c * kLdx + i];
  }
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

template <bool kRight>
Status apply_level(cudaStream_t st, double *a, int64_t lda, int64_t n, const Level &L, int64_t lo,
                   int64_t hi) {
  if (hi <= lo || L.count == 0) return Status::success();
  const dim3 grid(static_cast<unsigned>(L.count), static_cast<unsigned>((hi - lo + kStrip - 1) / kStrip));
  apply_level_kernel<kRight><<<grid, kThreads, 0, st>>>(a, lda, n, L, lo, hi);
  return check_launch("sytrd apply_level_kernel");
}

}  // namespace

size_t sytrd_band_blocks_bytes(int64_t n) {
  // Level 0 has P blocks, the merge levels P - 1 together.
  return static_cast<size_t>(std::max<int64_t>(1, 2 * tiles_of(n))) * H * H * sizeof(double);
}

Status sytrd_to_band(cudaStream_t st, int64_t n, double *a, int64_t lda, double *z, int64_t ldz,
                     double *blocks) {
  static const Status opt_in = [] {
    Status s = check(cudaFuncSetAttribute(tile_qr_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                          static_cast<int>(kPanelSmem)),
                     "cudaFuncSetAttribute");
    if (s)
      s = check(cudaFuncSetAttribute(pair_qr_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     static_cast<int>(kPanelSmem)),
                "cudaFuncSetAttribute");
    return s;
  }();
  if (!opt_in) return opt_in;
  Level levels[64];
  for (int64_t c0 = 0; n - (c0 + B) >= 2; c0 += B) {
    const int64_t r0 = c0 + B;
    const int64_t P = (n - r0 + H - 1) / H;
    int nl = 0;
    double *next = blocks;
    tile_qr_kernel<<<static_cast<unsigned>(P), kThreads, kPanelSmem, st>>>(a, lda, n, c0, next);
    Status s = check_launch("sytrd tile_qr_kernel");
    if (!s) return s;
    levels[nl++] = {r0, H, 0, H, 0, P, next};
    next += P * H * H;
    for (int64_t step = 1; step < P; step *= 2) {
      const int64_t pairs = (P - step - 1) / (2 * step) + 1;
      pair_qr_kernel<<<static_cast<unsigned>(pairs), kThreads, kPanelSmem, st>>>(a, lda, n, c0,
                                                                            step, next);
      if (!(s = check_launch("sytrd pair_qr_kernel"))) return s;
      levels[nl++] = {r0, 2 * step * H, step * H, B, B, pairs, next};
      next += pairs * H * H;
    }
    // A := M A M^T on the trailing rows and columns (the panel itself was written above), then
    // z := z M^T.
    for (int l = 0; l < nl; ++l)
      if (!(s = apply_level<false>(st, a, lda, n, levels[l], r0, n))) return s;
    for (int l = 0; l < nl; ++l) {
      if (!(s = apply_level<true>(st, a, lda, n, levels[l], r0, n))) return s;
      if (z && !(s = apply_level<true>(st, z, ldz, n, levels[l], 0, n))) return s;
    }
  }
  return Status::success();
}

Status sytrd_take_tridiagonal(cudaStream_t st, int64_t n, const double *base, int64_t stride,
                              double *d, double *e) {
  const unsigned grid = static_cast<unsigned>(std::min<int64_t>(1024, (n + 255) / 256));
  take_tridiagonal_kernel<<<grid, 256, 0, st>>>(n, base, stride, d, e);
  return check_launch("sytrd take_tridiagonal_kernel");
}

}  // namespace gpueig::gpu
