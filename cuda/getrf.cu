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
// kernel (panel_kernel) that keeps it in shared memory, spread over up to one block per SM: per
// column, each block offers its largest entry (and that row) and the owner of the diagonal row
// offers it; one grid-wide barrier later every block picks the same pivot, swaps, scales and
// updates its rows. One barrier per column and no host round trip: the pivot search of a
// 32768-row column costs a few microseconds.
//
// Pivot choice is DGETF2's: the first entry of largest magnitude; a zero pivot is recorded in
// INFO (the first one) and its column left unscaled, and the factorization goes on. A NaN never
// wins the pivot search, so the host wrapper sends matrices with non-finite entries to LAPACK
// (the `nonfinite` flag), whose INFO then depends on its own BLAS's NaN rules.
#include <cooperative_groups.h>

#include <algorithm>
#include <climits>
#include <mutex>
#include <string>

#include "context.hpp"
#include "getrf.hpp"

namespace gpueig::gpu {
namespace {

namespace cg = cooperative_groups;

constexpr int kThreads = 256;       // threads per block of the panel kernel
// Widest sub-panel the panel kernel takes. 128 passed the occupancy calculator on the H100 but
// its cooperative launches with ~200 KiB of shared memory per block and 40+ blocks failed with
// "too many blocks" (2026-11-21); 64 runs at every size measured.
constexpr int kBaseW = 64;
constexpr int kMaxBlocks = 1024;    // candidate slots (>= blocks of any cooperative launch)
constexpr int kSlot = kBaseW + 2;   // a candidate: |value|, row, the row's kBaseW values
constexpr int kMaxSwaps = 1024;     // rows one interchange plan moves: 2 x the widest panel (512)
constexpr int kSwapCols = 4;        // columns an apply_swaps block moves per step
constexpr double kSfmin = 2.2250738585072014e-308;  // DLAMCH('S'): DGETF2 divides below it
constexpr size_t kPanelSmemMax = 200 * 1024;         // rows of one block, in shared memory

// Row interchanges ipiv[k0..k1) of a panel, as one permutation of the rows they touch: row
// dst[i] receives the old row src[i]. Rows are relative to the column start.
struct SwapPlan {
  int count;
  int64_t dst[kMaxSwaps], src[kMaxSwaps];
};

struct Scratch {
  double cand[2][kMaxBlocks * kSlot];  // per column parity: every block's candidate
  double rowk[2][kBaseW];              // per column parity: the diagonal row before the swap
  SwapPlan plan;
};

struct PanelArgs {
  double *a;
  int64_t lda, h;    // the sub-panel: h rows x w columns at a
  int w;
  int64_t rpb;       // rows per block: block b owns rows [b*rpb, (b+1)*rpb)
  int *ipiv;         // w entries
  int64_t row_base;  // global row of the sub-panel's row 0 (ipiv values are global, 1-based)
  int64_t col_base;  // global column of its column 0 (for INFO)
  int *info;
  Scratch *s;
};

// Keeps (v, i) in (bv, bi) if it is the better candidate: larger magnitude, then the smaller row
// (DGETF2 takes the first maximum).
__device__ __forceinline__ void offer(double v, long long i, double &bv, long long &bi) {
  if (v > bv || (v == bv && i < bi)) {
    bv = v;
    bi = i;
  }
}

// The best candidate of the warp, in lane 0.
__device__ __forceinline__ void warp_best(double &bv, long long &bi) {
  for (int off = 16; off > 0; off >>= 1) {
    const double v = __shfl_down_sync(0xffffffffu, bv, off);
    const long long i = __shfl_down_sync(0xffffffffu, bi, off);
    offer(v, i, bv, bi);
  }
}

__global__ void __launch_bounds__(kThreads) panel_kernel(PanelArgs P) {
  extern __shared__ double rows[];  // [nr][w + 1]: the block's rows of the sub-panel
  __shared__ double s_val[kThreads / 32], urow[kBaseW], krow[kBaseW];
  __shared__ long long s_idx[kThreads / 32], s_p;
  cg::grid_group grid = cg::this_grid();
  const int w = P.w, ld = w + 1, tid = threadIdx.x, lane = tid % 32, wid = tid / 32;
  const long long kNone = LLONG_MAX;
  const int64_t r0 = static_cast<int64_t>(blockIdx.x) * P.rpb;
  const int64_t left = P.h - r0;
  const int nr = static_cast<int>(left <= 0 ? 0 : (left < P.rpb ? left : P.rpb));
  for (int64_t x = tid; x < static_cast<int64_t>(nr) * w; x += kThreads) {
    const int i = static_cast<int>(x % nr), c = static_cast<int>(x / nr);
    rows[i * ld + c] = P.a[r0 + i + c * P.lda];
  }
  __syncthreads();
  for (int k = 0; k < w; ++k) {
    double *cand = P.s->cand[k & 1];
    double *rowk = P.s->rowk[k & 1];
    // This block's candidate among its rows i >= k. `v > best` is false for NaN: never chosen.
    double best = -1.0;
    long long bi = kNone;
    for (int i = tid; i < nr; i += kThreads) {
      if (r0 + i < k) continue;
      const double v = fabs(rows[i * ld + k]);
      if (v > best) {
        best = v;
        bi = r0 + i;
      }
    }
    warp_best(best, bi);
    if (lane == 0) {
      s_val[wid] = best;
      s_idx[wid] = bi;
    }
    __syncthreads();
    if (tid == 0) {
      for (int q = 1; q < kThreads / 32; ++q) offer(s_val[q], s_idx[q], best, bi);
      s_p = bi;
      cand[blockIdx.x * kSlot] = best;
      cand[blockIdx.x * kSlot + 1] = bi == kNone ? -1.0 : static_cast<double>(bi);
    }
    __syncthreads();
    const long long mine = s_p;
    if (tid < w) {
      if (mine != kNone) cand[blockIdx.x * kSlot + 2 + tid] = rows[(mine - r0) * ld + tid];
      if (k >= r0 && k < r0 + nr) rowk[tid] = rows[(k - r0) * ld + tid];
    }
    grid.sync();
    // Every block picks the same winner (same data, same order of comparisons). __ldcg: the
    // slots were written by other SMs, and this SM's L1 may hold them from two columns ago.
    if (wid == 0) {
      double bv = -1.0;
      long long bp = kNone;
      for (int q = lane; q < static_cast<int>(gridDim.x); q += 32) {
        const double v = __ldcg(cand + q * kSlot), pr = __ldcg(cand + q * kSlot + 1);
        const long long p = pr < 0 ? kNone : static_cast<long long>(pr);
        if (p != kNone) offer(v, p, bv, bp);
      }
      warp_best(bv, bp);
      if (lane == 0) s_p = bp == kNone ? k : bp;  // only NaNs below the diagonal: keep row k
    }
    __syncthreads();
    const long long p = s_p;
    if (tid < w) {
      krow[tid] = __ldcg(rowk + tid);
      urow[tid] = p == k ? krow[tid] : __ldcg(cand + (p / P.rpb) * kSlot + 2 + tid);
    }
    __syncthreads();
    const double piv = urow[k];
    if (blockIdx.x == 0 && tid == 0) {
      P.ipiv[k] = static_cast<int>(P.row_base + p + 1);
      if (piv == 0.0) atomicCAS(P.info, 0, static_cast<int>(P.col_base + k + 1));
    }
    if (piv != 0.0) {  // a zero pivot: no interchange (p == k), no scaling, as DGETF2
      if (p != k && tid < w) {
        if (p >= r0 && p < r0 + nr) rows[(p - r0) * ld + tid] = krow[tid];
        if (k >= r0 && k < r0 + nr) rows[(k - r0) * ld + tid] = urow[tid];
      }
      __syncthreads();
      const bool recip = fabs(piv) >= kSfmin;
      const double inv = 1.0 / piv;
      const int64_t below = k + 1 - r0;  // this block's first row under the diagonal
      const int i0 = below <= 0 ? 0 : (below >= nr ? nr : static_cast<int>(below));
      for (int i = i0 + tid; i < nr; i += kThreads) {
        double &l = rows[i * ld + k];
        l = recip ? l * inv : l / piv;
      }
      __syncthreads();
      // The rank-1 update, one (row, column) entry per thread and step. Separate rounding of
      // product and difference, as DGER compiled without contraction: a rank-deficient matrix
      // then meets the exact zero pivots LAPACK meets (INFO).
      const int nc = w - k - 1;
      for (int x = tid; x < (nr - i0) * nc; x += kThreads) {
        double *row = rows + (i0 + x / nc) * ld;
        const int c = k + 1 + x % nc;
        row[c] = __dsub_rn(row[c], __dmul_rn(row[k], urow[c]));
      }
    }
    __syncthreads();
  }
  for (int64_t x = tid; x < static_cast<int64_t>(nr) * w; x += kThreads) {
    const int i = static_cast<int>(x % nr), c = static_cast<int>(x / nr);
    P.a[r0 + i + c * P.lda] = rows[i * ld + c];
  }
}

// Builds the SwapPlan of ipiv[k0..k1) (global 1-based rows; row 0 of the target columns is
// global row row_base), one warp: the interchanges are simulated in order on the list of rows
// they touch, rows k0..k1-1 first, then the rows below k1 as they appear (DGETF2 pivots satisfy
// p >= k, so a row above k1 is always in the first part).
__global__ void plan_swaps(const int *ipiv, int64_t k0, int64_t k1, int64_t row_base,
                           SwapPlan *plan) {
  __shared__ int64_t rows[kMaxSwaps];
  __shared__ int from[kMaxSwaps];  // from[i]: index in rows of the original row now at rows[i]
  __shared__ int outside;
  const int lane = threadIdx.x, len = static_cast<int>(k1 - k0);
  for (int i = lane; i < len; i += 32) {
    rows[i] = k0 + i;
    from[i] = i;
  }
  if (lane == 0) outside = 0;
  __syncwarp();
  for (int64_t k = k0; k < k1; ++k) {
    const int64_t p = ipiv[k] - 1 - row_base;
    const int nout = outside;  // the same in every lane: the last __syncwarp follows its update
    int at;
    if (p < k1) {
      at = static_cast<int>(p - k0);
    } else {
      at = -1;
      for (int b = 0; b < nout && at < 0; b += 32) {
        const bool hit = b + lane < nout && rows[len + b + lane] == p;
        const unsigned m = __ballot_sync(0xffffffffu, hit);
        if (m) at = len + b + __ffs(m) - 1;
      }
      if (at < 0) {
        at = len + nout;
        if (lane == 0) {
          rows[at] = p;
          from[at] = at;
          outside = nout + 1;
        }
      }
    }
    __syncwarp();
    if (lane == 0) {
      const int i = static_cast<int>(k - k0), t = from[i];
      from[i] = from[at];
      from[at] = t;
    }
    __syncwarp();
  }
  const int count = len + outside;
  for (int i = lane; i < count; i += 32) {
    plan->dst[i] = rows[i];
    plan->src[i] = rows[from[i]];
  }
  if (lane == 0) plan->count = count;
}

// Applies the plan to ncols columns of `a`: every block moves kSwapCols columns at a time, all
// loads of a column before any store, so the loads of a step are independent and in flight
// together (a sequence of swaps would wait for memory once per interchange).
__global__ void apply_swaps(double *a, int64_t lda, int64_t ncols, const SwapPlan *plan) {
  __shared__ double vals[kSwapCols][kMaxSwaps];
  const int count = plan->count;
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

// Sets *flag if any of the m x n entries is NaN or infinite (a block per column at a time).
__global__ void nonfinite_kernel(const double *a, int64_t lda, int64_t m, int64_t n, int *flag) {
  bool bad = false;
  for (int64_t c = blockIdx.x; c < n; c += gridDim.x)
    for (int64_t i = threadIdx.x; i < m; i += blockDim.x) bad |= !isfinite(a[i + c * lda]);
  if (__syncthreads_or(bad) && threadIdx.x == 0) atomicExch(flag, 1);
}

struct Driver {
  cublasHandle_t blas;
  cudaStream_t st;
  int *info;
  Scratch *s;
  int sms;

  Status gemm_minus(int64_t m, int64_t n, int64_t k, const double *A, int64_t lda,
                    const double *B, int64_t ldb, double *C, int64_t ldc) const {
    if (m == 0 || n == 0 || k == 0) return Status::success();
    const double minus = -1.0, one = 1.0;
    const cublasStatus_t r = cublasDgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, int(m), int(n), int(k),
                                         &minus, A, int(lda), B, int(ldb), &one, C, int(ldc));
    return r == CUBLAS_STATUS_SUCCESS ? Status::success()
                                      : Status::fail(Status::device_error, "cublasDgemm failed");
  }

  // B := L^-1 B, L unit lower triangular m x m.
  Status trsm_lower_unit(int64_t m, int64_t n, const double *L, int64_t ldl, double *B,
                         int64_t ldb) const {
    if (m == 0 || n == 0) return Status::success();
    const double one = 1.0;
    const cublasStatus_t r =
        cublasDtrsm(blas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N,
                    CUBLAS_DIAG_UNIT, int(m), int(n), &one, L, int(ldl), B, int(ldb));
    return r == CUBLAS_STATUS_SUCCESS ? Status::success()
                                      : Status::fail(Status::device_error, "cublasDtrsm failed");
  }

  // The interchanges ipiv[k0..k1) as a plan (kept in scratch for the apply calls after it).
  Status plan(int64_t k0, int64_t k1, const int *ipiv, int64_t row_base) const {
    plan_swaps<<<1, 32, 0, st>>>(ipiv, k0, k1, row_base, &s->plan);
    return check_launch("plan_swaps");
  }

  Status apply(double *a, int64_t lda, int64_t ncols) const {
    if (ncols == 0) return Status::success();
    const int64_t blocks = std::min<int64_t>(8 * sms, (ncols + kSwapCols - 1) / kSwapCols);
    apply_swaps<<<unsigned(blocks), 256, 0, st>>>(a, lda, ncols, &s->plan);
    return check_launch("apply_swaps");
  }

  // Blocks and rows per block of the panel kernel for h rows of w columns: about a row per
  // thread, more blocks where the rows would not fit one block's shared memory.
  void shape(int64_t h, int w, int64_t *blocks, int64_t *rpb) const {
    const int64_t row_bytes = (w + 1) * static_cast<int64_t>(sizeof(double));
    const int64_t by_smem = (h * row_bytes + kPanelSmemMax - 1) / kPanelSmemMax;
    *blocks = std::max<int64_t>(1, std::max<int64_t>((h + kThreads - 1) / kThreads, by_smem));
    *rpb = (h + *blocks - 1) / *blocks;
  }

  // The widest sub-panel (<= kBaseW, a power of two) for which a panel of h rows runs as one
  // cooperative launch: every block resident at once, as the occupancy calculator sees it.
  int base_width(int64_t h) const {
    for (int w = kBaseW; w >= 1; w /= 2) {
      int64_t blocks = 0, rpb = 0;
      shape(h, w, &blocks, &rpb);
      const size_t smem = static_cast<size_t>(rpb) * (w + 1) * sizeof(double);
      if (smem > kPanelSmemMax || blocks > kMaxBlocks) continue;
      int per_sm = 0;
      if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, panel_kernel, kThreads, smem) !=
          cudaSuccess)
        return 0;
      if (static_cast<int64_t>(per_sm) * sms >= blocks) return w;
    }
    return 0;
  }

  Status base(double *a, int64_t lda, int64_t h, int w, int *ipiv, int64_t row_base,
              int64_t col_base) const {
    int64_t blocks = 0, rpb = 0;
    shape(h, w, &blocks, &rpb);
    const size_t smem = static_cast<size_t>(rpb) * (w + 1) * sizeof(double);
    PanelArgs args{a, lda, h, w, rpb, ipiv, row_base, col_base, info, s};
    void *params[] = {&args};
    const cudaError_t e = cudaLaunchCooperativeKernel(reinterpret_cast<void *>(panel_kernel),
                                                      dim3(unsigned(blocks)), dim3(kThreads),
                                                      params, smem, st);
    if (e == cudaErrorCooperativeLaunchTooLarge) {  // not sticky: the CPU can take over
      cudaGetLastError();
      return Status::fail(Status::unavailable,
                          "panel_kernel: " + std::to_string(blocks) + " blocks of " +
                              std::to_string(smem) + " B not co-resident");
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

}  // namespace

size_t getrf_scratch_bytes() { return sizeof(Scratch); }

Status getrf_device(cublasHandle_t blas, cudaStream_t st, int64_t m, int64_t n, double *a,
                    int64_t lda, int *ipiv, int *info, int *nonfinite, void *scratch, int nb) {
  if (nb <= 0) nb = kGetrfBlock;
  nb = std::min(nb, kMaxSwaps / 2);
  static std::once_flag once;
  std::call_once(once, [] {
    cudaFuncSetAttribute(panel_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                         static_cast<int>(kPanelSmemMax));
    // A cooperative launch is checked against the carveout in force: ask for all of it.
    cudaFuncSetAttribute(panel_kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                         cudaSharedmemCarveoutMaxShared);
  });
  Driver d{blas, st, info, static_cast<Scratch *>(scratch), sm_count()};
  const int64_t mn = std::min(m, n);
  const int wb = d.base_width(m);
  if (wb == 0) return Status::fail(Status::unavailable, "panel too tall for the GPU panel kernel");
  Status s = check(cudaMemsetAsync(info, 0, sizeof(int), st), "cudaMemsetAsync");
  if (s) s = check(cudaMemsetAsync(nonfinite, 0, sizeof(int), st), "cudaMemsetAsync");
  if (!s) return s;
  if (m > 0 && n > 0) {
    const unsigned grid = static_cast<unsigned>(std::min<int64_t>(8 * d.sms, n));
    nonfinite_kernel<<<grid, 256, 0, st>>>(a, lda, m, n, nonfinite);
    if (!(s = check_launch("nonfinite_kernel"))) return s;
  }
  for (int64_t j = 0; j < mn && s; j += nb) {
    const int64_t jb = std::min<int64_t>(nb, mn - j);
    double *pan = a + j + j * lda;
    s = d.gemm_minus(m - j, jb, j, a + j, lda, a + j * lda, lda, pan, lda);
    if (s) s = d.panel(pan, lda, m - j, jb, ipiv + j, j, j, wb);
    if (s) s = d.plan(j, j + jb, ipiv, 0);
    if (s) s = d.apply(a, lda, j);
    if (s && j + jb < n) {
      double *right = a + (j + jb) * lda;
      s = d.apply(right, lda, n - j - jb);
      if (s) s = d.gemm_minus(jb, n - j - jb, j, a + j, lda, right, lda, right + j, lda);
      if (s) s = d.trsm_lower_unit(jb, n - j - jb, pan, lda, right + j, lda);
    }
  }
  return s;
}

}  // namespace gpueig::gpu
