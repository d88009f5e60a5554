// Stage 1 of the two-stage method by Householder reflectors (GPUEIG_SYTRD_STAGE1, the default):
// dense symmetric -> band of lower bandwidth B = kSytrdBand, as LAPACK's DSYTRD_SY2SB does.
//
// Panel p holds columns c0 = p*B .. c0+B-1 and the m = n - r0 rows below its band block (r0 =
// c0 + B). Its QR factorization P = Q_p [R; 0], Q_p = H_0 .. H_{B-1} = I - V T V^T (DGEQRF's
// reflectors, DLARFT's T), leaves R as the band's subdiagonal block, and the trailing matrix
// becomes Q_p^T A22 Q_p by two cuBLAS products on the lower triangle:
//   X = A22 V T,  W = X - 1/2 V (T^T V^T X),  A22 := A22 - V W^T - W V^T   (DSYMM, DSYR2K).
// That is 4/3 n^3 flops in all, a quarter of the Givens stage 1's (cuda/sytrd_band.cu), whose
// dense 64 x 64 rotation blocks cost 16/3 n^3.
//
// The panel's QR is one cooperative kernel: its rows are shared out over the thread blocks (in
// shared memory), and each column takes one grid-wide exchange: every block sums its rows'
// products of the column with all B columns (and the column's local max and scaled sum of
// squares, for a norm that neither overflows nor loses digits to underflow), and after the
// exchange every block forms the same reflector from the same sums (added in one fixed order)
// and applies it to its own rows. The panel is first scaled by a power of two to max |a| in
// [1/2, 1), so nothing overflows; V's Gram matrix (one more exchange) gives T.
//
// Q1 = Q_0 Q_1 .. Q_last is kept as the panels' V and T (keep_all), applied to a few vectors or
// formed from its right end by three GEMMs a panel; or z := z Q_p follows each panel.
#include <cooperative_groups.h>

#include <algorithm>
#include <cmath>

#include "context.hpp"
#include "cublas_loader.hpp"
#include "device_util.hpp"
#include "env.hpp"
#include "sytrd.hpp"
#include "workspace_plan.hpp"

namespace gpueig::gpu {
namespace {

constexpr int B = kSytrdBand;
constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
constexpr int kLdx = B + 1;          // shared rows of the panel, padded: a warp reads a row
constexpr int kPartLd = B + 2;       // a block's part of an exchange: B dots, max, sum of squares
constexpr int kMaxBlocks = 512;      // thread blocks of a panel kernel at most
// Rows a thread block of the panel kernel at least: as many blocks as SMs once a panel has the
// rows. Stage 1 alone at n = 8192 (H200, 2026-11-28) with at least 32 / 64 / 128 / 256 rows a
// block: 116 / 118 / 127 / 148 ms (at 4096: 36.7 / 37.9 / 43.1 / 53.8): more blocks, less work
// a column on each, outweigh the dearer grid-wide exchange.
constexpr int kMinRows = 32;
constexpr size_t kMaxPanelSmem = size_t(200) << 10;  // the panel's rows in shared memory, at most

static_assert(B == 32, "a warp's lanes are the panel's columns");

// Panels: those with at least two rows below their band block (one row is inside the band).
int64_t hh_panels(int64_t n) { return n - B < 2 ? 0 : (n - B - 2) / B + 1; }
int64_t panel_rows(int64_t n, int64_t p) { return n - (p + 1) * B; }
// Offset (doubles) of panel p's V when all panels' are kept, one after another (m_p x B each).
size_t v_offset(int64_t n, int64_t p) {
  return size_t(B) * size_t(p * (n - B) - B * p * (p - 1) / 2);
}

struct PanelArgs {
  double *a;
  int64_t lda, r0, c0, m;  // the panel: rows r0 .. r0+m-1, columns c0 .. c0+B-1 of a
  int64_t rows;            // rows of a thread block
  double *v;               // V, explicit (unit diagonal, zeros above), m x B, leading dimension m
  double *t;               // T, B x B, column-major
  double *part;            // exchanges: 2 x gridDim.x x kPartLd
  double *piv;             // the pivot rows of the exchanges: 2 x B
  double *gram;            // gridDim.x x B x B: the blocks' parts of V^T V
};

__device__ inline double warp_sum(double v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}
__device__ inline double warp_max_of(double v) {
  for (int o = 16; o > 0; o >>= 1) v = fmax(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

// Panel QR (see the top). Exchange k (0: the panel's max, 1 + j: column j) uses buffer k & 1: a
// block writes exchange k + 2's buffer only after the barrier of exchange k + 1, which every
// block reaches after reading exchange k.
__global__ void __launch_bounds__(kThreads) householder_panel_kernel(PanelArgs p) {
  namespace cg = cooperative_groups;
  cg::grid_group grid = cg::this_grid();
  extern __shared__ double x[];  // the block's rows, row-major (kLdx)
  __shared__ double red[kWarps][B];
  __shared__ double sdot[B], stau[B];
  __shared__ double snorm;
  __shared__ double g_all[B * B], t_s[B * B];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, tid = threadIdx.x;
  const int G = gridDim.x;
  const int64_t lo = blockIdx.x * p.rows, nr = max(int64_t(0), min(p.m, lo + p.rows) - lo);
  const int kmax = static_cast<int>(p.m < B ? p.m : B);

  double mx = 0;
  for (int64_t idx = tid; idx < nr * B; idx += kThreads) {
    const int64_t li = idx % nr;
    const int k = static_cast<int>(idx / nr);
    const double v = p.a[(p.r0 + lo + li) + (p.c0 + k) * p.lda];
    x[li * kLdx + k] = v;
    mx = fmax(mx, fabs(v));
  }
  // ---- Exchange 0: the panel's max |a|; the panel is scaled to it by a power of two ----
  mx = warp_max_of(mx);
  if (lane == 0) red[warp][0] = mx;
  __syncthreads();
  if (tid == 0) {
    double b = 0;
    for (int w = 0; w < kWarps; ++w) b = fmax(b, red[w][0]);
    p.part[blockIdx.x * kPartLd] = b;
  }
  grid.sync();
  double amax = 0;
  for (int b = 0; b < G; ++b) amax = fmax(amax, p.part[b * kPartLd]);
  int e = 0;
  if (amax > 0 && isfinite(amax)) frexp(amax, &e);  // amax = f 2^e, f in [1/2, 1)
  for (int64_t idx = tid; idx < nr * B; idx += kThreads) {
    const int64_t li = idx % nr;
    const int k = static_cast<int>(idx / nr);
    x[li * kLdx + k] = ldexp(x[li * kLdx + k], -e);
  }

  // ---- Exchanges 1 .. kmax: the reflector of column j ----
  for (int j = 0; j < kmax; ++j) {
    const int buf = (j + 1) & 1;
    double *part = p.part + size_t(buf) * G * kPartLd, *piv = p.piv + buf * B;
    __syncthreads();
    // This block's rows below row j: their products of column j with every column (lane k), and
    // column j's max; then the sum of squares of column j scaled by that max.
    double dot = 0, cmax = 0;
    for (int64_t li = warp; li < nr; li += kWarps) {
      if (lo + li <= j) continue;
      const double xj = x[li * kLdx + j];
      dot = fma(xj, x[li * kLdx + lane], dot);
      cmax = fmax(cmax, fabs(xj));
    }
    red[warp][lane] = dot;
    if (lane == 0) sdot[warp] = cmax;  // (sdot as scratch: read back below before reuse)
    __syncthreads();
    double bmax = 0;
    for (int w = 0; w < kWarps; ++w) bmax = fmax(bmax, sdot[w]);
    int eb = 0;
    if (bmax > 0) frexp(bmax, &eb);
    double ssq = 0;
    for (int64_t li = tid; li < nr; li += kThreads)
      if (lo + li > j) {
        const double u = ldexp(x[li * kLdx + j], -eb);
        ssq = fma(u, u, ssq);
      }
    ssq = warp_sum(ssq);
    __syncthreads();  // (everyone has read sdot as scratch)
    if (lane == 0) sdot[warp] = ssq;
    __syncthreads();
    if (warp == 0) {
      double s = 0;
      for (int w = 0; w < kWarps; ++w) s += red[w][lane];
      part[blockIdx.x * kPartLd + lane] = s;
      if (lane == 0) {
        double q = 0;
        for (int w = 0; w < kWarps; ++w) q += sdot[w];
        part[blockIdx.x * kPartLd + B] = bmax > 0 ? ldexp(1.0, eb) : 0.0;  // the scale, a power of 2
        part[blockIdx.x * kPartLd + B + 1] = q;
      }
      if (lo <= j && j < lo + nr) piv[lane] = x[(j - lo) * kLdx + lane];
    }
    grid.sync();
    // Every block: the same sums, in the same order.
    {
      double s = 0;
      for (int b = warp; b < G; b += kWarps) s += part[b * kPartLd + lane];
      red[warp][lane] = s;
    }
    if (warp == 0) {
      // ||column j below row j|| = M sqrt(sum_b ssq_b (scale_b / M)^2), M the largest scale.
      double m = 0;
      for (int b = lane; b < G; b += 32) m = fmax(m, part[b * kPartLd + B]);
      m = warp_max_of(m);
      double q = 0;
      if (m > 0)
        for (int b = lane; b < G; b += 32) {
          const double r = part[b * kPartLd + B] / m;
          q += part[b * kPartLd + B + 1] * r * r;
        }
      q = warp_sum(q);
      if (lane == 0) snorm = m > 0 ? m * sqrt(q) : 0.0;
    }
    __syncthreads();
    if (warp == 0) {
      double s = 0;
      for (int w = 0; w < kWarps; ++w) s += red[w][lane];
      sdot[lane] = s;
    }
    __syncthreads();
    // DLARFG on (alpha, x): beta = -sign(alpha) ||(alpha, x)||, tau = (beta - alpha) / beta,
    // v = x / (alpha - beta). A column below 2^-1000 of the panel's max counts as zero (tau = 0):
    // 1 / (alpha - beta) could overflow, and what is left is far below the rounding of the rest.
    const double alpha = piv[j], xnorm = snorm;
    double tau = 0, beta = alpha, scal = 0;
    if (xnorm > 0x1p-1000) {
      beta = -copysign(hypot(alpha, xnorm), alpha);
      tau = (beta - alpha) / beta;
      scal = 1.0 / (alpha - beta);
    }
    if (tid == 0) stau[j] = tau;
    // w_k = v^T x_k = x_k(j) + scal * (x_j below j)^T x_k; x_k -= tau w_k v on this block's rows.
    const double tw = lane > j ? tau * (piv[lane] + scal * sdot[lane]) : 0.0;
    for (int64_t li = warp; li < nr; li += kWarps) {
      const int64_t g = lo + li;
      if (g < j) continue;
      const double xj = x[li * kLdx + j];
      __syncwarp();
      if (g == j) {
        if (lane > j) x[li * kLdx + lane] -= tw;
        else if (lane == j) x[li * kLdx + j] = beta;
      } else {
        const double vi = scal * xj;
        if (lane > j) x[li * kLdx + lane] = fma(-tw, vi, x[li * kLdx + lane]);
        else if (lane == j) x[li * kLdx + j] = vi;
      }
    }
  }
  if (tid < B && tid >= kmax) stau[tid] = 0.0;
  __syncthreads();

  // ---- R back into a (unscaled), V explicit, and this block's part of V^T V ----
  auto vfull = [&](int64_t li, int c) {
    const int64_t g = lo + li;
    return g > c ? x[li * kLdx + c] : g == c ? 1.0 : 0.0;
  };
  for (int64_t idx = tid; idx < nr * B; idx += kThreads) {
    const int64_t li = idx % nr, g = lo + li;
    const int k = static_cast<int>(idx / nr);
    p.v[g + k * p.m] = vfull(li, k);
    if (g <= k) p.a[(p.r0 + g) + (p.c0 + k) * p.lda] = ldexp(x[li * kLdx + k], e);
  }
  for (int q = tid; q < B * B; q += kThreads) {
    const int r = q / B, c = q % B;  // (lane c: a warp reads one row's B entries)
    double s = 0;
    for (int64_t li = 0; li < nr; ++li) s = fma(vfull(li, r), vfull(li, c), s);
    p.gram[size_t(blockIdx.x) * B * B + q] = s;
  }
  grid.sync();
  if (blockIdx.x != 0) return;
  // ---- T by DLARFT's recurrence: T(0:j, j) = -tau_j T(0:j, 0:j) V(:, 0:j)^T v_j ----
  for (int q = tid; q < B * B; q += kThreads) {
    double s = 0;
    for (int b = 0; b < G; ++b) s += p.gram[size_t(b) * B * B + q];
    g_all[q] = s;  // row-major: g_all[r * B + c] = v_r^T v_c
    t_s[q] = 0.0;
  }
  __syncthreads();
  for (int j = 0; j < B; ++j) {
    double s = 0;
    if (tid < j)
      for (int q = tid; q < j; ++q) s = fma(t_s[tid * B + q], g_all[q * B + j], s);
    __syncthreads();
    if (tid < j) t_s[tid * B + j] = -stau[j] * s;
    if (tid == j) t_s[j * B + j] = stau[j];
    __syncthreads();
  }
  for (int q = tid; q < B * B; q += kThreads) p.t[(q / B) + (q % B) * B] = t_s[q];  // column-major
}

// The band (lower, bandwidth B) copied into the upper triangle, where stage 2 reads it.
__global__ void band_to_upper_kernel(double *a, int64_t lda, int64_t n) {
  for (int64_t idx = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; idx < n * B;
       idx += int64_t(gridDim.x) * blockDim.x) {
    const int64_t j = idx / B, d = 1 + idx % B;
    if (j + d < n) a[j + (j + d) * lda] = a[(j + d) + j * lda];
  }
}

// The workspace: V (every panel's with keep_all, else one panel's), T likewise, two n x B
// products, two B x B ones, and the panel kernel's exchanges.
struct Layout {
  size_t v, t, x, w, s, mm, part, piv, gram, bytes;
};
Layout layout(int64_t n, bool keep_all) {
  WorkspacePlan plan;
  Layout l{};
  const int64_t np = std::max<int64_t>(1, hh_panels(n));
  l.v = plan.add_array<double>(std::max<size_t>(1, keep_all ? v_offset(n, np) : size_t(n) * B));
  l.t = plan.add_array<double>(size_t(keep_all ? np : 1) * B * B);
  l.x = plan.add_array<double>(size_t(n) * B + 1);
  l.w = plan.add_array<double>(size_t(n) * B + 1);
  l.s = plan.add_array<double>(B * B);
  l.mm = plan.add_array<double>(B * B);
  l.part = plan.add_array<double>(2 * kMaxBlocks * kPartLd);
  l.piv = plan.add_array<double>(2 * B);
  l.gram = plan.add_array<double>(size_t(kMaxBlocks) * B * B);
  l.bytes = plan.bytes();
  return l;
}

// The thread's cuBLAS handle on `st` for the scope of a call (its stream put back after).
class Blas {
 public:
  Status init(cudaStream_t st) {
    Context *ctx = nullptr;
    Status s = Context::get(ctx);
    if (s) s = ctx->blas(&h_);
    if (!s) return s;
    api_ = cublas_api(nullptr);
    if (api_->get_stream(h_, &prev_) != CUBLAS_STATUS_SUCCESS || api_->set_stream(h_, st) != CUBLAS_STATUS_SUCCESS) {
      api_ = nullptr;
      return Status::fail(Status::device_error, "cublasSetStream failed");
    }
    return s;
  }
  ~Blas() {
    if (api_) api_->set_stream(h_, prev_);
  }
  // C := alpha op(A) op(B) + beta C.
  Status gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, double alpha, const double *a, int64_t lda,
              const double *b, int64_t ldb, double beta, double *c, int64_t ldc) const {
    if (m <= 0 || n <= 0) return Status::success();
    return check(api_->dgemm(h_, ta ? CUBLAS_OP_T : CUBLAS_OP_N, tb ? CUBLAS_OP_T : CUBLAS_OP_N, int(m), int(n),
                            int(k), &alpha, a, int(lda), b, int(ldb), &beta, c, int(ldc)),
                "cublasDgemm");
  }
  // C (m x n) := A B, A symmetric (its lower triangle).
  Status symm_lower(int64_t m, int64_t n, const double *a, int64_t lda, const double *b, int64_t ldb, double *c,
                    int64_t ldc) const {
    const double one = 1, zero = 0;
    return check(api_->dsymm(h_, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, int(m), int(n), &one, a, int(lda), b,
                            int(ldb), &zero, c, int(ldc)),
                "cublasDsymm");
  }
  // The lower triangle of C (n x n) -= A B^T + B A^T (A, B: n x k).
  Status syr2k_lower(int64_t n, int64_t k, const double *a, int64_t lda, const double *b, int64_t ldb, double *c,
                     int64_t ldc) const {
    const double minus = -1, one = 1;
    return check(api_->dsyr2k(h_, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, int(n), int(k), &minus, a, int(lda), b,
                             int(ldb), &one, c, int(ldc)),
                "cublasDsyr2k");
  }

 private:
  cublasHandle_t h_ = nullptr;
  cudaStream_t prev_ = nullptr;
  const CublasApi *api_ = nullptr;
};

// Panel p's V and T (keep_all: its own, else the one set).
struct PanelQ {
  double *v, *t;
  int64_t r0, m;
};
PanelQ panel_q(const Layout &l, void *work, int64_t n, int64_t p, bool keep_all) {
  return {part<double>(work, l.v) + (keep_all ? v_offset(n, p) : 0),
          part<double>(work, l.t) + (keep_all ? p * B * B : 0), (p + 1) * B, panel_rows(n, p)};
}

// Thread blocks of the panel kernel for m rows, and rows a block.
Status panel_grid(int64_t m, int *grid, int64_t *rows) {
  int sms = 0;
  Status s = sm_count(&sms);
  if (!s) return s;
  *grid = static_cast<int>(std::min<int64_t>({int64_t(sms), (m + kMinRows - 1) / kMinRows, int64_t(kMaxBlocks)}));
  *rows = (m + *grid - 1) / *grid;
  if (size_t(*rows) * kLdx * sizeof(double) > kMaxPanelSmem)
    return Status::fail(Status::unavailable, "sytrd: a Householder panel's rows do not fit the shared memory");
  return s;
}

// Y (m x cols, ldy) := Q_p Y = Y - V (T (V^T Y)).
Status apply_panel_left(const Blas &blas, const PanelQ &q, double *y, int64_t ldy, int64_t cols, double *s1,
                        double *s2) {
  Status s = blas.gemm(true, false, B, cols, q.m, 1.0, q.v, q.m, y, ldy, 0.0, s1, B);
  if (s) s = blas.gemm(false, false, B, cols, B, 1.0, q.t, B, s1, B, 0.0, s2, B);
  if (s) s = blas.gemm(false, false, q.m, cols, B, -1.0, q.v, q.m, s2, B, 1.0, y, ldy);
  return s;
}

}  // namespace

SytrdStage1 sytrd_stage1(int64_t n) {
  const int choice = env::choice("GPUEIG_SYTRD_STAGE1", {"auto", "householder", "givens"}, 0);
  if (choice == 2 || !cublas_api(nullptr)) return SytrdStage1::givens;
  return choice == 1 || n >= tuning::kSytrdHouseholderMin ? SytrdStage1::householder : SytrdStage1::givens;
}

size_t sytrd_hh_bytes(int64_t n, bool keep_all) { return layout(n, keep_all).bytes; }

Status sytrd_hh_to_band(cudaStream_t st, int64_t n, double *a, int64_t lda, double *z, int64_t ldz, void *work,
                        bool keep_all) {
  const int64_t np = hh_panels(n);
  if (np == 0) return Status::success();
  if (keep_all && z) return Status::fail(Status::device_error, "sytrd_hh_to_band: keep_all with z");
  const Layout l = layout(n, keep_all);
  Blas blas;
  Status s = blas.init(st);
  if (s)
    s = check(cudaFuncSetAttribute(householder_panel_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   int(kMaxPanelSmem)),
              "cudaFuncSetAttribute");
  if (!s) return s;
  double *X = part<double>(work, l.x), *W = part<double>(work, l.w);
  double *S = part<double>(work, l.s), *M = part<double>(work, l.mm);
  for (int64_t p = 0; p < np; ++p) {
    const PanelQ q = panel_q(l, work, n, p, keep_all);
    const int64_t m = q.m, r0 = q.r0;
    // Factor: P = Q_p [R; 0] (R into a, V and T into the workspace).
    int grid = 0;
    int64_t rows = 0;
    if (!(s = panel_grid(m, &grid, &rows))) return s;
    PanelArgs args{a, lda, r0, r0 - B, m, rows, q.v, q.t,
                   part<double>(work, l.part), part<double>(work, l.piv), part<double>(work, l.gram)};
    void *params[] = {&args};
    if (!(s = check_launch(cudaLaunchCooperativeKernel(reinterpret_cast<void *>(householder_panel_kernel),
                                                       dim3(grid), dim3(kThreads), params,
                                                       size_t(rows) * kLdx * sizeof(double), st),
                           "sytrd householder_panel_kernel")))
      return s;
    // Update: A22 := Q_p^T A22 Q_p = A22 - V W^T - W V^T, W = X - 1/2 V (T^T V^T X), X = A22 V T.
    double *a22 = a + r0 + r0 * lda;
    if (!(s = blas.symm_lower(m, B, a22, lda, q.v, m, X, m)) ||
        !(s = blas.gemm(false, false, m, B, B, 1.0, X, m, q.t, B, 0.0, W, m)) ||
        !(s = blas.gemm(true, false, B, B, m, 1.0, q.v, m, W, m, 0.0, S, B)) ||
        !(s = blas.gemm(true, false, B, B, B, 1.0, q.t, B, S, B, 0.0, M, B)) ||
        !(s = blas.gemm(false, false, m, B, B, -0.5, q.v, m, M, B, 1.0, W, m)) ||
        !(s = blas.syr2k_lower(m, B, q.v, m, W, m, a22, lda)))
      return s;
    // z := z Q_p on columns r0 ..: z Q_p = z - (z V) T V^T.
    if (z) {
      double *zp = z + r0 * ldz;
      if (!(s = blas.gemm(false, false, n, B, m, 1.0, zp, ldz, q.v, m, 0.0, X, n)) ||
          !(s = blas.gemm(false, false, n, B, B, 1.0, X, n, q.t, B, 0.0, W, n)) ||
          !(s = blas.gemm(false, true, n, m, B, -1.0, W, n, q.v, m, 1.0, zp, ldz)))
        return s;
    }
  }
  band_to_upper_kernel<<<static_cast<unsigned>(std::min<int64_t>(4096, (n * B + 255) / 256)), 256, 0, st>>>(a, lda, n);
  return check_launch("sytrd band_to_upper_kernel");
}

namespace {

// y := Q1 y = Q_0 (Q_1 (.. Q_last y)), on y's cols columns; from_identity: y is the identity on
// entry (cols = n), and before Q_p's turn it is the identity outside rows and columns r0(p+1) ..,
// so Q_p meets only y(r0(p).., r0(p)..): Q1 formed from its right end.
Status q1_from_left(cudaStream_t st, int64_t n, double *y, int64_t ldy, int64_t cols, const void *work,
                    bool from_identity) {
  const int64_t np = hh_panels(n);
  if (np == 0 || cols <= 0) return Status::success();
  const Layout l = layout(n, true);
  void *w = const_cast<void *>(work);
  Blas blas;
  Status s = blas.init(st);
  double *s1 = part<double>(w, l.x), *s2 = part<double>(w, l.w);
  for (int64_t p = np - 1; p >= 0 && s; --p) {
    const PanelQ q = panel_q(l, w, n, p, true);
    const int64_t c = from_identity ? q.r0 : 0;
    s = apply_panel_left(blas, q, y + q.r0 + c * ldy, ldy, from_identity ? n - c : cols, s1, s2);
  }
  return s;
}

}  // namespace

Status sytrd_hh_form_q1(cudaStream_t st, int64_t n, double *z, int64_t ldz, const void *work) {
  return q1_from_left(st, n, z, ldz, n, work, true);
}

Status sytrd_hh_apply_q1(cudaStream_t st, int64_t n, double *y, int64_t ldy, int64_t cols, const void *work) {
  return q1_from_left(st, n, y, ldy, cols, work, false);
}

}  // namespace gpueig::gpu
