// gpu_gtsv_pcr, GPU half: tiled reduction that reads each system once and writes x once.
//
// A system that fits one tile (n <= 2048) is solved wholly inside one thread group: loaded into
// shared memory, solved (cuda/gtsv_tile.cuh), checked and written. A larger system is cut into
// tiles of about kBig rows. Pass 1 (tile_pass) solves each tile with its first and last unknowns
// as symbolic boundary values and keeps only two rows per tile: the equations of those two
// unknowns once the tile's interior is eliminated. Those rows form a tridiagonal system of
// 2 * tiles unknowns, solved the same way (recursively). Pass 2 re-reads each tile, repeats the
// same elimination, forms x from the now known boundary values, checks the residual of every
// row and writes x.
// Traffic: the matrix and b read twice, x written once, the reduced systems are ~1% extra.
//
// No step pivots. Every column's result is judged by LAPACK's DGTT02 residual ratio, computed
// in pass 2 from the values it already holds (no extra memory traffic); a column that fails, or
// met a zero pivot or a non-finite value, is reported to the caller, which re-solves it with
// partial pivoting (gtsv_pivot, or DGTSV on the host).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "context.hpp"
#include "gtsv.hpp"
#include "gtsv_tile.cuh"

namespace gpueig::gpu {
namespace {

using tile::Chunk;
using tile::Row;
using tile::Shared;
using tile::slot;

// Tile shape of the multi-tile path: one warp x 8 rows per tile, four tiles per block. Warp
// tiles need no block-wide barrier: on the H100 at n = 2^24 they took 1.01 ms against 1.11 ms
// for 128-thread tiles of 1024 rows (2026-11-21).
constexpr int kBigT = 32, kBigM = 8, kBigG = 4;
constexpr int kBig = kBigT * kBigM;
constexpr int kMaxSingle = 2048;  // the largest system solved by one group (256 threads x 8)

struct Check {  // per column, accumulated by the tiles of the column
  double rsum, xsum;               // sum |b - A x|, sum |x|
  unsigned long long anorm_bits;   // max column sum of |A|, as the bits of a non-negative double
  unsigned long long pad;
};

struct Judged {  // the verdict, read back by gtsv_failed
  int count;
  int pad;
  // followed by int64_t list[ncol]
};

// Column c's pointers, tile j's first row and length.
struct Place {
  int64_t col, r0, len;
};

__device__ __forceinline__ Place place(const GtsvColumns &p, int64_t tiles, int64_t item) {
  Place q;
  int64_t tl;
  if (p.ms == 0) {  // shared matrix: neighbouring blocks take the same tile of different columns
    tl = item / p.ncol;
    q.col = item % p.ncol;
  } else {
    q.col = item / tiles;
    tl = item % tiles;
  }
  q.r0 = tl * p.n / tiles;  // balanced: every tile of a multi-tile column has >= kBig/2 rows
  q.len = (tl + 1) * p.n / tiles - q.r0;
  return q;
}

__device__ __forceinline__ int64_t tile_of(const GtsvColumns &p, int64_t tiles, int64_t item) {
  return p.ms == 0 ? item / p.ncol : item % tiles;
}

// Loads rows r0 .. r0+len-1 of column `col` into the group's shared tile; rows past len are
// identity rows (x = 0), which decouple.
template <int T, int M, int K>
__device__ __forceinline__ void load_tile(Shared<T, M, K> &sh, const GtsvColumns &p, int t,
                                          const Place &q) {
  const double *dl = p.dl + q.col * p.ms, *d = p.d + q.col * p.ms, *du = p.du + q.col * p.ms;
  const double *b = p.b + q.col * p.bs;
  for (int i = t; i < T * M; i += T) {
    double a = 0.0, dd = 1.0, c = 0.0, r = 0.0;
    if (i < q.len) {
      const int64_t g = q.r0 + i;
      if (g > 0) a = dl[g - 1];
      dd = d[g];
      if (g < p.n - 1) c = du[g];
      r = b[g];
    }
    sh.a[slot(i)] = a;
    sh.b[slot(i)] = dd;
    sh.c[slot(i)] = c;
    sh.r[slot(i)] = r;
  }
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

// With x of the thread's rows known (left/right: x just outside the tile): adds the rows'
// residual sums to the column's check and stores x, coalesced through shared memory.
template <int T, int M, int K>
__device__ __forceinline__ void finish_tile(Shared<T, M, K> &sh, const GtsvColumns &p,
                                            const Place &q, int t, const double (&x)[M],
                                            double left, double right, Check *chk) {
  const int L = static_cast<int>(q.len);
  double *ends = sh.rr[1][0];  // free once the PCR is done
  ends[2 * t] = x[0];
  ends[2 * t + 1] = x[M - 1];
  tile::group_sync<T>();
  if (chk) {
    const double *dl = p.dl + q.col * p.ms, *du = p.du + q.col * p.ms;
    double rsum = 0.0, xsum = 0.0, amax = 0.0;
#pragma unroll
    for (int k = 0; k < M; ++k) {
      const int i = t * M + k;
      if (i < L) {
        const int64_t g = q.r0 + i;
        const double xm = i == 0 ? left : (k == 0 ? ends[2 * t - 1] : x[k - 1]);
        const double xp = i == L - 1 ? right : (k == M - 1 ? ends[2 * t + 2] : x[k + 1]);
        const double ai = sh.a[slot(i)], bi = sh.b[slot(i)], ci = sh.c[slot(i)];
        rsum += fabs(sh.r[slot(i)] - (ai * xm + bi * x[k] + ci * xp));
        xsum += fabs(x[k]);
        // Column i of A: du(i-1), d(i), dl(i); the neighbours across the tile ends from memory.
        const double up = i > 0 ? sh.c[slot(i - 1)] : (g > 0 ? du[g - 1] : 0.0);
        const double down = i < L - 1 ? sh.a[slot(i + 1)] : (g < p.n - 1 ? dl[g] : 0.0);
        double col = fabs(up) + fabs(bi) + fabs(down);
        if (isnan(col)) col = INFINITY;  // fmax would drop a NaN
        amax = fmax(amax, col);
      }
    }
    tile::group_reduce(sh, t, rsum, xsum, amax);
    if (t == 0) {
      Check &c = chk[q.col];
      atomicAdd(&c.rsum, rsum);
      atomicAdd(&c.xsum, xsum);
      atomicMax(&c.anorm_bits, static_cast<unsigned long long>(__double_as_longlong(amax)));
    }
  }
  tile::group_sync<T>();
#pragma unroll
  for (int k = 0; k < M; ++k) sh.r[slot(t * M + k)] = x[k];
  tile::group_sync<T>();
  double *out = p.x + q.col * p.xs + q.r0;
  for (int i = t; i < L; i += T) out[i] = sh.r[slot(i)];
}

// The two passes of the multi-tile path. Each tile is solved with its first and last unknowns,
// F_j and E_j, as symbolic boundary values: for three right-hand sides (b with zero boundary
// values, F_j = 1, E_j = 1), so every row becomes x_i = z0_i + z1_i F_j + z2_i E_j.
// Pass 1 (Finish = false) keeps two rows per tile, the equations of F_j and E_j once rows 1 and
// len-2 are substituted:
//   row 2j:   a E_{j-1} + b F_j + c E_j     = r
//   row 2j+1: a F_j     + b E_j + c F_{j+1} = r
// written as rows 2j, 2j+1 of the column's reduced system `red` (gtsv layout, column stride
// red.n; the matrix only once when it is shared).
// Pass 2 (Finish = true) reads F_j, E_j and their neighbours from red.x and forms every x_i from
// the same z: recomputing the tile with F_j and E_j as plain values would be another rounding
// of an interior that can be ill-conditioned (a Laplacian's grows with len^2), and the boundary
// rows' residuals would show it.
template <int T, int M, int G, bool Finish>
__global__ void __launch_bounds__(T *G)
    tile_pass(GtsvColumns p, int64_t tiles, GtsvColumns red, Check *chk) {
  extern __shared__ __align__(16) unsigned char smem[];
  const int t = threadIdx.x % T, grp = threadIdx.x / T;
  auto &sh = reinterpret_cast<Shared<T, M, 3> *>(smem)[grp];
  const int64_t item = static_cast<int64_t>(blockIdx.x) * G + grp;
  if (item >= p.ncol * tiles) return;  // only whole warps leave (G > 1 implies T = 32)
  const Place q = place(p, tiles, item);
  const int64_t j = tile_of(p, tiles, item);
  const int L = static_cast<int>(q.len);
  load_tile(sh, p, t, q);
  tile::group_sync<T>();

  Row<3> rows[M];
#pragma unroll
  for (int k = 0; k < M; ++k) {
    const int i = t * M + k;
    rows[k] = {sh.a[slot(i)], sh.b[slot(i)], sh.c[slot(i)], {sh.r[slot(i)], 0.0, 0.0}};
    if (i == 0) rows[k] = {0.0, 1.0, 0.0, {0.0, 1.0, 0.0}};
    if (i == L - 1) rows[k] = {0.0, 1.0, 0.0, {0.0, 0.0, 1.0}};
  }
  Chunk<M, 3> ck;
  Row<3> s, e;
  tile::sweep<M, 3>(rows, ck, s, e);
  tile::solve_ends<T, M, 3>(sh, t, s, e, ck);

  if constexpr (Finish) {
    const double *v = red.x + q.col * red.xs;
    const double f = v[2 * j], l = v[2 * j + 1];
    const double left = j > 0 ? v[2 * j - 1] : 0.0, right = j < tiles - 1 ? v[2 * j + 2] : 0.0;
    double x[M];
#pragma unroll
    for (int k = 0; k < M; ++k)
      x[k] = tile::chunk_x<M, 3>(ck, 0, k) + tile::chunk_x<M, 3>(ck, 1, k) * f +
             tile::chunk_x<M, 3>(ck, 2, k) * l;
    finish_tile(sh, p, q, t, x, left, right, chk);
  } else {
    // z at rows 1 and len-2 (len >= kBig/2, so distinct), parked in ra[1].
    double *z = sh.ra[1];
#pragma unroll
    for (int k = 0; k < M; ++k) {
      const int i = t * M + k;
      if (i == 1 || i == L - 2) {
        const int at = (i == 1 ? 0 : 3);
#pragma unroll
        for (int jj = 0; jj < 3; ++jj) z[at + jj] = tile::chunk_x<M, 3>(ck, jj, k);
      }
    }
    tile::group_sync<T>();
    if (t == 0) {
      const double a0 = sh.a[slot(0)], b0 = sh.b[slot(0)], c0 = sh.c[slot(0)],
                   r0 = sh.r[slot(0)];
      const double al = sh.a[slot(L - 1)], bl = sh.b[slot(L - 1)], cl = sh.c[slot(L - 1)],
                   rl = sh.r[slot(L - 1)];
      // x_1 = z0 + z1 F + z2 E in row 0; x_{len-2} likewise in row len-1.
      const double fb = b0 + c0 * z[1], fc = c0 * z[2], fr = r0 - c0 * z[0];
      const double ea = al * z[4], eb = bl + al * z[5], er = rl - al * z[3];
      const int64_t nred = red.n, f = 2 * j;
      double *rb = const_cast<double *>(red.b) + q.col * red.bs;
      rb[f] = fr;
      rb[f + 1] = er;
      if (p.ms != 0 || q.col == 0) {
        const int64_t base = q.col * red.ms;
        double *dl = const_cast<double *>(red.dl) + base, *d = const_cast<double *>(red.d) + base,
               *du = const_cast<double *>(red.du) + base;
        if (f > 0) dl[f - 1] = a0;
        d[f] = fb;
        du[f] = fc;
        dl[f] = ea;
        d[f + 1] = eb;
        if (f + 1 < nred - 1) du[f + 1] = cl;
      }
    }
  }
}

// A column that fits one tile, solved whole: G groups of T threads per block, one column each.
template <int T, int M, int G>
__global__ void __launch_bounds__(T *G) solve_tiles(GtsvColumns p, Check *chk) {
  extern __shared__ __align__(16) unsigned char smem[];
  const int t = threadIdx.x % T, grp = threadIdx.x / T;
  auto &sh = reinterpret_cast<Shared<T, M, 1> *>(smem)[grp];
  const int64_t item = static_cast<int64_t>(blockIdx.x) * G + grp;
  if (item >= p.ncol) return;  // only whole warps leave (G > 1 implies T = 32)
  const Place q = place(p, 1, item);
  load_tile(sh, p, t, q);
  tile::group_sync<T>();

  Row<1> rows[M];
#pragma unroll
  for (int k = 0; k < M; ++k) {
    const int i = t * M + k;
    rows[k] = {sh.a[slot(i)], sh.b[slot(i)], sh.c[slot(i)], {sh.r[slot(i)]}};
  }
  Chunk<M, 1> ck;
  Row<1> s, e;
  tile::sweep<M, 1>(rows, ck, s, e);
  tile::solve_ends<T, M, 1>(sh, t, s, e, ck);
  double x[M];
#pragma unroll
  for (int k = 0; k < M; ++k) x[k] = tile::chunk_x<M, 1>(ck, 0, k);
  finish_tile(sh, p, q, t, x, 0.0, 0.0, chk);
}

__global__ void judge(int64_t ncol, const Check *chk, Judged *verdict, int64_t *list) {
  const int64_t c = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c >= ncol) return;
  const double anorm = __longlong_as_double(static_cast<long long>(chk[c].anorm_bits));
  const double rsum = chk[c].rsum, xsum = chk[c].xsum;
  // As DGTT02: ((||r|| / ||A||) / ||x||) / eps; an exact zero residual is always accepted.
  const double ratio = rsum == 0.0 ? 0.0 : rsum / anorm / xsum / kUnitRoundoff;
  const bool ok = ratio <= kGtsvResidualLimit && isfinite(xsum) && isfinite(anorm);
  if (!ok) list[atomicAdd(&verdict->count, 1)] = c;
}

// ---- launch plumbing --------------------------------------------------------------------------

template <int T, int M, int G>
void launch_solve(cudaStream_t st, const GtsvColumns &p, Check *chk) {
  const size_t bytes = sizeof(Shared<T, M, 1>) * G;
  set_smem<solve_tiles<T, M, G>>(bytes);
  solve_tiles<T, M, G>
      <<<static_cast<unsigned>((p.ncol + G - 1) / G), T * G, bytes, st>>>(p, chk);
}

// One tile per column: the smallest tile that holds n rows.
void launch_single(cudaStream_t st, const GtsvColumns &p, Check *chk) {
  if (p.n <= 64) return launch_solve<32, 2, 4>(st, p, chk);
  if (p.n <= 128) return launch_solve<32, 4, 4>(st, p, chk);
  if (p.n <= 256) return launch_solve<32, 8, 4>(st, p, chk);
  if (p.n <= 512) return launch_solve<64, 8, 1>(st, p, chk);
  if (p.n <= 1024) return launch_solve<128, 8, 1>(st, p, chk);
  return launch_solve<256, 8, 1>(st, p, chk);
}

// The sizes of the reduced systems, top level first (empty when n fits one tile).
std::vector<int64_t> reduced_sizes(int64_t n) {
  std::vector<int64_t> out;
  while (n > kMaxSingle) {
    n = 2 * ((n + kBig - 1) / kBig);
    out.push_back(n);
  }
  return out;
}

size_t checks_bytes(int64_t ncol) {
  return ncol * sizeof(Check) + sizeof(Judged) + ncol * sizeof(int64_t);
}

size_t round_up(size_t b) { return (b + 255) / 256 * 256; }

size_t levels_bytes(int64_t n, int64_t ncol, bool shared) {
  size_t bytes = 0;
  for (int64_t m : reduced_sizes(n))
    bytes += round_up(3 * m * (shared ? 1 : ncol) * sizeof(double)) +
             2 * round_up(m * ncol * sizeof(double));
  return bytes;
}

void solve_level(cudaStream_t st, const GtsvColumns &p, char *arena, Check *chk);

// Pass 1 for every tile of every column, then the reduced system, then pass 2.
template <int T, int M, int G>
void launch_tiled(cudaStream_t st, const GtsvColumns &p, const GtsvColumns &red, int64_t tiles,
                  char *arena, Check *chk) {
  const size_t bytes = sizeof(Shared<T, M, 3>) * G;
  set_smem<tile_pass<T, M, G, false>>(bytes);
  set_smem<tile_pass<T, M, G, true>>(bytes);
  const unsigned grid = static_cast<unsigned>((p.ncol * tiles + G - 1) / G);
  tile_pass<T, M, G, false><<<grid, T * G, bytes, st>>>(p, tiles, red, nullptr);
  solve_level(st, red, arena, nullptr);
  tile_pass<T, M, G, true><<<grid, T * G, bytes, st>>>(p, tiles, red, chk);
}

// Solves p (all columns) with the reduced systems carved from `arena`; `chk` only at the top.
void solve_level(cudaStream_t st, const GtsvColumns &p, char *arena, Check *chk) {
  if (p.n <= kMaxSingle) return launch_single(st, p, chk);
  const int64_t tiles = (p.n + kBig - 1) / kBig, m = 2 * tiles;
  const bool shared = p.ms == 0;
  double *mat = reinterpret_cast<double *>(arena);
  arena += round_up(3 * m * (shared ? 1 : p.ncol) * sizeof(double));
  double *rhs = reinterpret_cast<double *>(arena);
  arena += round_up(m * p.ncol * sizeof(double));
  double *xr = reinterpret_cast<double *>(arena);
  arena += round_up(m * p.ncol * sizeof(double));
  const int64_t mcols = shared ? 1 : p.ncol;
  const GtsvColumns red = packed_columns(m, p.ncol, mat, mat + m * mcols, mat + 2 * m * mcols,
                                         shared ? 0 : m, rhs, xr);
  launch_tiled<kBigT, kBigM, kBigG>(st, p, red, tiles, arena, chk);
}

}  // namespace

size_t gtsv_workspace_bytes(int64_t n, int64_t ncol, bool shared_matrix) {
  return round_up(checks_bytes(ncol)) + levels_bytes(n, ncol, shared_matrix);
}

Status gtsv_enqueue(cudaStream_t st, const GtsvColumns &p, void *work) {
  char *w = static_cast<char *>(work);
  Check *chk = reinterpret_cast<Check *>(w);
  Judged *verdict = reinterpret_cast<Judged *>(chk + p.ncol);
  int64_t *list = reinterpret_cast<int64_t *>(verdict + 1);
  Status s = check(cudaMemsetAsync(chk, 0, p.ncol * sizeof(Check) + sizeof(Judged), st),
                   "cudaMemsetAsync");
  if (!s) return s;
  solve_level(st, p, w + round_up(checks_bytes(p.ncol)), chk);
  judge<<<static_cast<unsigned>((p.ncol + 255) / 256), 256, 0, st>>>(p.ncol, chk, verdict, list);
  return check_launch("gtsv kernels");
}

Status gtsv_failed(cudaStream_t st, const GtsvColumns &p, void *work,
                   std::vector<int64_t> *failed) {
  const Check *chk = static_cast<const Check *>(work);
  const Judged *verdict = reinterpret_cast<const Judged *>(chk + p.ncol);
  const int64_t *list = reinterpret_cast<const int64_t *>(verdict + 1);
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
  if (cudaMemcpyAsync(&c, static_cast<const Check *>(work) + col, sizeof c,
                      cudaMemcpyDeviceToHost, st) != cudaSuccess ||
      cudaStreamSynchronize(st) != cudaSuccess)
    return NAN;
  double anorm;
  std::memcpy(&anorm, &c.anorm_bits, sizeof anorm);
  return c.rsum / anorm / c.xsum / kUnitRoundoff;
}

// ---- the pivoting re-solve --------------------------------------------------------------------

namespace {

// DGTSV for one right-hand side, operation for operation (explicit roundings: no contraction
// into FMA, so the result matches LAPACK compiled without it). d, du, dl are scratch copies that
// receive U and the fill-in, as in DGTSV; x holds B on entry. Returns DGTSV's INFO.
__device__ int dgtsv_one(int64_t n, double *dl, double *d, double *du, double *x) {
  for (int64_t i = 0; i + 1 < n; ++i) {
    const bool last = i + 2 == n;
    if (fabs(d[i]) >= fabs(dl[i])) {
      if (d[i] == 0.0) return static_cast<int>(i + 1);
      const double fact = dl[i] / d[i];
      d[i + 1] = __dsub_rn(d[i + 1], __dmul_rn(fact, du[i]));
      x[i + 1] = __dsub_rn(x[i + 1], __dmul_rn(fact, x[i]));
      if (!last) dl[i] = 0.0;
    } else {
      const double fact = d[i] / dl[i];
      d[i] = dl[i];
      const double temp = d[i + 1];
      d[i + 1] = __dsub_rn(du[i], __dmul_rn(fact, temp));
      if (!last) {
        dl[i] = du[i + 1];
        du[i + 1] = __dmul_rn(-fact, dl[i]);
      }
      du[i] = temp;
      const double tb = x[i];
      x[i] = x[i + 1];
      x[i + 1] = __dsub_rn(tb, __dmul_rn(fact, x[i + 1]));
    }
  }
  if (d[n - 1] == 0.0) return static_cast<int>(n);
  x[n - 1] = x[n - 1] / d[n - 1];
  if (n > 1) x[n - 2] = __dsub_rn(x[n - 2], __dmul_rn(du[n - 2], x[n - 1])) / d[n - 2];
  for (int64_t i = n - 3; i >= 0; --i)
    x[i] = __dsub_rn(__dsub_rn(x[i], __dmul_rn(du[i], x[i + 1])), __dmul_rn(dl[i], x[i + 2])) /
           d[i];
  return 0;
}

__global__ void pivot_columns(GtsvColumns p, const int64_t *list, int64_t count, double *scratch,
                              int *info) {
  const int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k >= count) return;
  const int64_t c = list[k], n = p.n;
  double *dl = scratch + k * 3 * n, *d = dl + n, *du = d + n;
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
  info[k] = dgtsv_one(n, dl, d, du, x);
}

}  // namespace

size_t gtsv_pivot_scratch_bytes(int64_t n, size_t count) {
  return round_up(count * 3 * n * sizeof(double)) + round_up(count * sizeof(int64_t)) +
         round_up(count * sizeof(int));
}

Status gtsv_pivot(cudaStream_t st, const GtsvColumns &p, const std::vector<int64_t> &failed,
                  void *scratch, std::vector<int> *info) {
  const int64_t count = static_cast<int64_t>(failed.size());
  info->assign(count, 0);
  if (count == 0) return Status::success();
  char *w = static_cast<char *>(scratch);
  double *work = reinterpret_cast<double *>(w);
  w += round_up(count * 3 * p.n * sizeof(double));
  int64_t *list = reinterpret_cast<int64_t *>(w);
  w += round_up(count * sizeof(int64_t));
  int *dinfo = reinterpret_cast<int *>(w);
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

}  // namespace gpueig::gpu
