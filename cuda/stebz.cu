// gpu_stebz, GPU half: DSTEBZ's contract with the bisection on the GPU.
//
// The host does DSTEBZ's O(n) bookkeeping exactly as LAPACK does it (splitting, PIVMIN,
// Gershgorin intervals, the counts at each block's interval ends, and for RANGE 'I' the
// discarding of surplus eigenvalues and the selection sort of ORDER 'E'), so M, NSPLIT, ISPLIT and
// IBLOCK are DSTEBZ's own; the GPU brackets every wanted eigenvalue independently.
//
// Each eigenvalue is searched by a group of G threads evaluating G*C shifts per pass
// (multisection): the interval shrinks by G*C + 1 per pass. With many eigenvalues G = 1 (plain
// bisection, C interleaved shifts per thread to hide the division latency of the Sturm count);
// with few eigenvalues the threads that would idle split each interval further instead. No
// compaction, no inter-block communication: every group works on its own eigenvalue until its
// interval meets DLAEBZ's convergence test or the ITMAX cap, so no input can loop forever.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "context.hpp"
#include "stebz.hpp"
#include "sturm.hpp"

namespace gpueig::gpu {
namespace {

constexpr int kThreads = 256;
constexpr double kUlp = 0x1p-52;    // DLAMCH('P')
constexpr double kSafeMin = DBL_MIN;  // DLAMCH('S')
constexpr double kFudge = 2.1, kRelFac = 2.0;
// The grid phase (StebzGrid): 2^16 counts, for one block of order >= 1024 with >= 64 eigenvalues
// wanted; it costs about one pass of the search and saves 16 bisection levels of every search.
constexpr int kGridPoints = 1 << 16, kGridMinOrder = 1024, kGridMinTasks = 64;

template <int Q>
__device__ __forceinline__ double shift_point(double lo, double hi, int i) {
  if (Q == 1) return 0.5 * (lo + hi);  // DLAEBZ's midpoint
  return lo + (hi - lo) * (static_cast<double>(i + 1) / (Q + 1));
}

__device__ __forceinline__ double grid_point(double lo, double hi, int i, int k) {
  return lo + (hi - lo) * (static_cast<double>(i) / k);
}

// First index i in [0, len) with v[i] >= k (len if none): with counts monotone this is where N
// jumps past k; without (rounding), still a place with v[i-1] < k <= v[i], which is all a bracket
// needs.
__device__ __forceinline__ int first_at_least(const int *v, int len, int k) {
  int lo = 0, hi = len;
  while (lo < hi) {
    const int mid = (lo + hi) / 2;
    if (v[mid] >= k) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

__global__ void grid_kernel(const SturmRow *__restrict__ rows, int64_t n, double lo, double hi,
                            int k, double pivmin, int *counts) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > k) return;
  const double x[1] = {grid_point(lo, hi, i, k)};
  int c[1];
  sturm_counts_scaled<1>(rows, n, x, pivmin, c);
  counts[i] = c[0];
}

// The search: a group of G threads per eigenvalue (a task), each evaluating C shifts per pass.
// G <= 32: the group is part of a warp and talks through shuffles. G = 64, 128 or 256: the group
// is the thread block (launched with G threads) and talks through shared memory.
template <int G, int C, bool IntegerTests>
__global__ void __launch_bounds__(kThreads)
    search_kernel(const SturmRow *__restrict__ rows, const StebzBlock *__restrict__ blocks,
                  int nblocks, int64_t ntasks, double pivmin, double rtol, StebzGrid grid,
                  double *w, int *conv, StebzBracket *brackets) {
  constexpr int Q = G * C;
  constexpr bool kBlockGroup = G > 32;
  static_assert(G <= kThreads, "a group is part of a warp or a whole thread block");
  __shared__ int s_cnt[kBlockGroup ? Q : 1];
  const int64_t task = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / G;
  if (task >= ntasks) return;  // groups are aligned, so a group leaves as a whole
  const int r = threadIdx.x % G;
  const unsigned lane = threadIdx.x % 32;
  const unsigned mask =
      G >= 32 ? 0xffffffffu : ((1u << (G % 32)) - 1) << (lane & ~((G % 32) - 1));
  const int base_lane = G >= 32 ? 0 : static_cast<int>(lane & ~(G - 1));

  int lb = 0, ub = nblocks - 1;  // the block holding this task: last b with task0 <= task
  while (lb < ub) {
    const int mid = (lb + ub + 1) / 2;
    if (blocks[mid].task0 <= task) lb = mid;
    else ub = mid - 1;
  }
  const StebzBlock b = blocks[lb];
  const int k = b.first_k + 1 + static_cast<int>(task - b.task0);
  const SturmRow *t = rows + b.begin;
  double lo = b.lo, hi = b.hi;
  int nlo = -1, nhi = static_cast<int>(b.len) + 1;  // DLAEBZ's "not known yet"
  double levels = b.itmax;
  if (grid.counts) {  // start in the grid cell holding eigenvalue k
    const int i = max(1, first_at_least(grid.counts, grid.k + 1, k));
    lo = grid_point(b.lo, b.hi, i - 1, grid.k);
    hi = grid_point(b.lo, b.hi, i, grid.k);
    nlo = grid.counts[i - 1];
    nhi = grid.counts[i];
    levels -= log2(static_cast<double>(grid.k));
  }
  const int max_pass = max(1, static_cast<int>(ceil(levels / log2(static_cast<double>(Q + 1))))) + 1;
  int converged = 0;
  for (int pass = 0;; ++pass) {
    // DLAEBZ's test: width below max(ABSTOL, PIVMIN, RELTOL * max(|a|, |b|)).
    const double tol = fmax(fmax(b.atol, pivmin), rtol * fmax(fabs(lo), fabs(hi)));
    if (hi - lo < tol) {
      converged = 1;
      break;
    }
    if (pass >= max_pass) break;
    double x[C];
    int cnt[C];
#pragma unroll
    for (int c = 0; c < C; ++c) x[c] = shift_point<Q>(lo, hi, r * C + c);
    // Locating (WL, WU] decides which eigenvalues DSTEBZ returns, and the host recounts at the
    // points found with DLAEBZ's arithmetic: count those exactly as the host will (the scaling
    // by a power of two changes no rounding). The eigenvalues themselves only need brackets:
    // the faster division-free count.
    if (b.locate) sturm_counts<C>(t, b.len, x, pivmin, cnt);
    else sturm_counts_scaled<C, IntegerTests>(t, b.len, x, pivmin, cnt);

    // Where N(x) passes k - 1 and k among the group's Q shifts.
    int below_k1, below_k;  // first shift with count >= k - 1, and >= k
    int at = 0;             // count at a shift, for count_at()
    auto count_at = [&](int p) {
      if constexpr (kBlockGroup) {
        return s_cnt[p];
      } else {
#pragma unroll
        for (int c = 0; c < C; ++c)
          if (c == p % C) at = cnt[c];
        return G == 1 ? at : __shfl_sync(mask, at, base_lane + p / C);
      }
    };
    if constexpr (kBlockGroup) {
#pragma unroll
      for (int c = 0; c < C; ++c) s_cnt[r * C + c] = cnt[c];
      __syncthreads();
      below_k1 = first_at_least(s_cnt, Q, k - 1);
      below_k = first_at_least(s_cnt, Q, k);
    } else {
      below_k1 = Q;
      below_k = Q;
#pragma unroll
      for (int c = C - 1; c >= 0; --c) {
        if (cnt[c] >= k - 1) below_k1 = r * C + c;
        if (cnt[c] >= k) below_k = r * C + c;
      }
#pragma unroll
      for (int off = G / 2; off > 0; off >>= 1) {
        below_k1 = min(below_k1, __shfl_xor_sync(mask, below_k1, off));
        below_k = min(below_k, __shfl_xor_sync(mask, below_k, off));
      }
    }
    bool done = false;
    if (b.locate && below_k1 < below_k) {
      // Shifts with exactly k - 1 eigenvalues below lie in the gap under eigenvalue k: stop at
      // the middle one, as far from both neighbours as this pass can tell (DLAEBZ, IJOB = 3).
      const int mid = (below_k1 + below_k - 1) / 2;
      if (count_at(mid) == k - 1) {
        lo = hi = shift_point<Q>(lo, hi, mid);
        nlo = nhi = k - 1;
        done = true;
      }
    }
    if (!done) {
      const double new_lo = below_k > 0 ? shift_point<Q>(lo, hi, below_k - 1) : lo;
      const double new_hi = below_k < Q ? shift_point<Q>(lo, hi, below_k) : hi;
      if (below_k > 0) nlo = count_at(below_k - 1);
      if (below_k < Q) nhi = count_at(below_k);
      lo = new_lo;
      hi = new_hi;
    }
    if (kBlockGroup) __syncthreads();  // s_cnt is rewritten by the next pass
    if (done) {
      converged = 1;
      break;
    }
  }
  if (r != 0) return;
  if (w) {
    const int64_t pos = b.out + (k - b.first_k - 1);
    w[pos] = 0.5 * (lo + hi);
    conv[pos] = converged;
  }
  if (brackets) brackets[task] = {lo, hi, nlo, nhi, converged};
}

template <int G, int C, bool I>
cudaError_t launch(cudaStream_t s, const SturmRow *rows, const StebzBlock *blocks, int nblocks,
                   int64_t ntasks, double pivmin, double rtol, StebzGrid grid, double *w,
                   int *conv, StebzBracket *br) {
  const int64_t threads = ntasks * G;
  const int block = G > 32 ? G : kThreads;
  const unsigned nb = static_cast<unsigned>((threads + block - 1) / block);
  search_kernel<G, C, I><<<nb, block, 0, s>>>(rows, blocks, nblocks, ntasks, pivmin, rtol, grid,
                                              w, conv, br);
  return cudaGetLastError();
}

template <int G>
cudaError_t launch_c(StebzGeometry geo, cudaStream_t s, const SturmRow *rows,
                     const StebzBlock *blocks, int nblocks, int64_t ntasks, double pivmin,
                     double rtol, StebzGrid grid, double *w, int *conv, StebzBracket *br) {
  const int v = geo.c * 2 + (geo.integer_tests ? 1 : 0);
  switch (v) {
    case 2: return launch<G, 1, false>(s, rows, blocks, nblocks, ntasks, pivmin, rtol, grid, w, conv, br);
    case 3: return launch<G, 1, true>(s, rows, blocks, nblocks, ntasks, pivmin, rtol, grid, w, conv, br);
    case 4: return launch<G, 2, false>(s, rows, blocks, nblocks, ntasks, pivmin, rtol, grid, w, conv, br);
    case 5: return launch<G, 2, true>(s, rows, blocks, nblocks, ntasks, pivmin, rtol, grid, w, conv, br);
    default: return cudaErrorInvalidValue;
  }
}

}  // namespace

cudaError_t stebz_grid_counts(cudaStream_t s, const SturmRow *rows, int64_t n, double lo,
                              double hi, int k, double pivmin, int *counts) {
  grid_kernel<<<(k + kThreads) / kThreads, kThreads, 0, s>>>(rows, n, lo, hi, k, pivmin, counts);
  return cudaGetLastError();
}

cudaError_t stebz_search(cudaStream_t s, StebzGeometry geo, const SturmRow *rows,
                         const StebzBlock *blocks, int nblocks, int64_t ntasks, double pivmin,
                         double rtol, StebzGrid grid, double *w, int *conv, StebzBracket *br) {
  if (ntasks <= 0) return cudaSuccess;
#define GPUEIG_STEBZ_G(g) \
  case g: return launch_c<g>(geo, s, rows, blocks, nblocks, ntasks, pivmin, rtol, grid, w, conv, br)
  switch (geo.g) {
    GPUEIG_STEBZ_G(1);
    GPUEIG_STEBZ_G(2);
    GPUEIG_STEBZ_G(4);
    GPUEIG_STEBZ_G(8);
    GPUEIG_STEBZ_G(16);
    GPUEIG_STEBZ_G(32);
    GPUEIG_STEBZ_G(64);
    GPUEIG_STEBZ_G(128);
    GPUEIG_STEBZ_G(256);
    default: return cudaErrorInvalidValue;
  }
#undef GPUEIG_STEBZ_G
}

StebzGeometry stebz_geometry(int64_t ntasks, int64_t) {
  // Measured on an H100 (gpueig_bench's sweep, after the 2^16-point grid; README):
  //   164 eigenvalues of n = 16384: G=64 6.6 ms (FP64 tests), 8.2 (integer tests), G=128 7.1;
  //   all of n = 16384 (integer tests): G=4 23.2 ms, G=2 26.1, G=1 39.7 (FP64 tests: G=2 24.2);
  //   all of n = 32768 (integer tests): G=2 65.8 ms, G=1 79.3 (FP64 tests: G=1 71.0, G=2 74.4).
  // Few eigenvalues: two warps of shifts each (6 levels a pass, and warps enough to hide the
  // latency of the count chain). Many: the GPU is full, FP64 throughput decides, so the counts
  // with integer tests, and the fewest threads per eigenvalue that give about 2^16 threads.
  if (ntasks <= 2048) return {64, 1, false};
  int g = 1;
  while (g < 32 && ntasks * g < (int64_t{1} << 16)) g *= 2;
  return {g, 1, true};
}

namespace {

// DSTEBZ's ORDER = 'E' sort, which is a selection sort: for each position, the first strictly
// smaller minimum among the later ones is swapped in. Equal eigenvalues of different blocks end
// up in an order only that algorithm defines, so it is reproduced exactly (in O(m log m), with a
// segment tree over the positions) whenever there are ties; without ties a plain sort agrees.
void dstebz_order_e(std::vector<double> &w, std::vector<int> &ib) {
  const size_t m = w.size();
  if (m < 2) return;
  std::vector<size_t> idx(m);
  std::iota(idx.begin(), idx.end(), 0);
  std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return w[a] < w[b]; });
  bool ties = false;
  for (size_t i = 1; i < m && !ties; ++i) ties = w[idx[i]] == w[idx[i - 1]];
  if (!ties) {
    std::vector<double> w2(m);
    std::vector<int> ib2(m);
    for (size_t i = 0; i < m; ++i) {
      w2[i] = w[idx[i]];
      ib2[i] = ib[idx[i]];
    }
    w.swap(w2);
    ib.swap(ib2);
    return;
  }
  size_t size = 1;
  while (size < m) size *= 2;
  std::vector<size_t> tree(2 * size, m);  // index of the leftmost minimum; m = empty
  auto better = [&](size_t a, size_t b) {
    if (a == m) return b;
    if (b == m) return a;
    return w[b] < w[a] ? b : a;  // ties keep the left one
  };
  auto update = [&](size_t p) {
    size_t i = p + size;
    tree[i] = p;
    for (i /= 2; i >= 1; i /= 2) tree[i] = better(tree[2 * i], tree[2 * i + 1]);
  };
  for (size_t p = 0; p < m; ++p) tree[p + size] = p;
  for (size_t i = size - 1; i >= 1; --i) tree[i] = better(tree[2 * i], tree[2 * i + 1]);
  auto query = [&](size_t l, size_t r) {  // leftmost minimum in [l, r)
    size_t left = m, right = m;
    for (l += size, r += size; l < r; l /= 2, r /= 2) {
      if (l & 1) left = better(left, tree[l++]);
      if (r & 1) right = better(tree[--r], right);
    }
    return better(left, right);
  };
  for (size_t je = 0; je + 1 < m; ++je) {
    const size_t ie = query(je + 1, m);
    if (w[ie] < w[je]) {
      std::swap(w[ie], w[je]);
      std::swap(ib[ie], ib[je]);
      update(ie);
      update(je);
    }
  }
}

// DSTEBZ's Gershgorin interval [gl, gu] of rows begin..end-1, with off(j) = |T(j, j+1)| as the
// caller's DSTEBZ step takes it (before the fudge, which differs between the steps).
template <class Off>
std::pair<double, double> gershgorin(const double *d, int begin, int end, Off off) {
  double gu = d[begin], gl = d[begin], t1 = 0;
  for (int j = begin; j < end - 1; ++j) {
    const double t2 = off(j);
    gu = std::max(gu, d[j] + t1 + t2);
    gl = std::min(gl, d[j] - t1 - t2);
    t1 = t2;
  }
  return {std::min(gl, d[end - 1] - t1), std::max(gu, d[end - 1] + t1)};
}

}  // namespace

Status stebz(char range, char order, int n, double vl, double vu, int il, int iu, double abstol,
             const double *d, const double *e, int *m_out, int *nsplit_out, double *w_out,
             int *iblock_out, int *isplit_out, int *info_out) {
  int irange = (range == 'A' || range == 'a') ? 1 : (range == 'V' || range == 'v') ? 2 : 3;
  const bool order_e = order == 'E' || order == 'e';
  if (irange == 3 && il == 1 && iu == n) irange = 1;
  const double rtoli = kUlp * kRelFac;

  if (n == 1) {  // DSTEBZ's special case; nothing for a GPU to do
    *nsplit_out = 1;
    isplit_out[0] = 1;
    *m_out = 0;
    if (!(irange == 2 && (vl >= d[0] || vu < d[0]))) {
      w_out[0] = d[0];
      iblock_out[0] = 1;
      *m_out = 1;
    }
    *info_out = 0;
    return Status::success();
  }

  // Splitting and PIVMIN, as DSTEBZ; rows[j] = (d(j), e(j-1)^2), with 0 where T splits.
  std::vector<SturmRow> rows(n);
  std::vector<int> isplit;
  double pivmin = 1.0;
  rows[0] = {d[0], 0.0};
  for (int j = 1; j < n; ++j) {
    const double t = e[j - 1] * e[j - 1];
    rows[j] = {d[j], 0.0};
    if (std::fabs(d[j] * d[j - 1]) * (kUlp * kUlp) + kSafeMin > t) {
      isplit.push_back(j);
    } else {
      rows[j].e2 = t;
      pivmin = std::max(pivmin, t);
    }
  }
  isplit.push_back(n);
  pivmin *= kSafeMin;
  // Where some E(i)^2 overflows, PIVMIN is infinite and DSTEBZ's bisection cannot converge
  // (INFO = 1); the GPU's counts, on T scaled to about 1, would report success with eigenvalues
  // bracketed to an infinite tolerance. DSTEBZ's own arithmetic answers instead.
  if (!std::isfinite(pivmin))
    return Status::fail(Status::unsafe, "E(i)^2 overflows: DSTEBZ on the CPU, as LAPACK would");
  const int nsplit = static_cast<int>(isplit.size());
  // RANGE 'I' on an unsplit matrix needs no interval (WL, WU]: eigenvalues IL..IU of the one
  // block are searched by index directly, which is what DSTEBZ's interval and discarding amount
  // to, and saves the two whole-matrix searches.
  const bool by_index = irange == 3 && nsplit == 1;

  DeviceScope scope;
  Context *ctx = nullptr;
  Status s = enter(scope, ctx);
  if (!s) return s;
  cudaStream_t st = ctx->stream();
  // The GPU works on T scaled by a power of two (exact) to entries of about 1, which the
  // division-free count needs; the host keeps LAPACK's own counts on the unscaled T.
  const SturmScale sc = sturm_scale(rows.data(), n, pivmin);
  std::vector<SturmRow> scaled(n);
  for (int j = 0; j < n; ++j) scaled[j] = {rows[j].d * sc.c, rows[j].e2 * sc.c * sc.c};
  // Workspace: rows | blocks (at most nsplit + 2) | w | conv | 2 brackets | grid counts.
  const size_t nn = static_cast<size_t>(n);
  const size_t bytes = nn * sizeof(SturmRow) + (nsplit + 2) * sizeof(StebzBlock) +
                       nn * sizeof(double) + nn * sizeof(int) + 2 * sizeof(StebzBracket) +
                       (kGridPoints + 1) * sizeof(int) + 96;
  void *work = nullptr;
  if (!(s = ctx->workspace(bytes, &work))) return s;
  char *p = static_cast<char *>(work);
  auto carve = [&](size_t b) {
    char *q = p;
    p += (b + 15) / 16 * 16;
    return q;
  };
  SturmRow *drows = reinterpret_cast<SturmRow *>(carve(nn * sizeof(SturmRow)));
  StebzBlock *dblocks = reinterpret_cast<StebzBlock *>(carve((nsplit + 2) * sizeof(StebzBlock)));
  double *dw = reinterpret_cast<double *>(carve(nn * sizeof(double)));
  int *dconv = reinterpret_cast<int *>(carve(nn * sizeof(int)));
  StebzBracket *dbr = reinterpret_cast<StebzBracket *>(carve(2 * sizeof(StebzBracket)));
  int *dgrid = reinterpret_cast<int *>(carve((kGridPoints + 1) * sizeof(int)));
  if (!(s = check(cudaMemcpyAsync(drows, scaled.data(), nn * sizeof(SturmRow),
                                  cudaMemcpyHostToDevice, st), "upload T")))
    return s;
  // A search block in the GPU's scale.
  auto to_device = [&](StebzBlock b) {
    b.lo *= sc.c;
    b.hi *= sc.c;
    b.atol *= sc.c;
    return b;
  };

  double wl = 0, wu = 0, wlu = 0, wul = 0;
  if (irange == 3 && !by_index) {
    // The interval holding eigenvalues IL..IU, as DSTEBZ's DLAEBZ (IJOB = 3) on the whole
    // matrix: points WL with N(WL) = IL - 1 and WU with N(WU) = IU, or where a cluster makes that
    // impossible, the small intervals (WL, WLU] and (WUL, WU] across which N jumps past them.
    // Off-diagonals as DSTEBZ takes them here: sqrt(e^2), i.e. 0 where T splits.
    auto [gl, gu] = gershgorin(d, 0, n, [&](int j) { return std::sqrt(rows[j + 1].e2); });
    const double tnorm = std::max(std::fabs(gl), std::fabs(gu));
    gl = gl - kFudge * tnorm * kUlp * n - kFudge * 2.0 * pivmin;
    gu = gu + kFudge * tnorm * kUlp * n + kFudge * pivmin;
    const int itmax = static_cast<int>((std::log(tnorm + pivmin) - std::log(pivmin)) / std::log(2.0)) + 2;
    const double atoli = abstol <= 0 ? kUlp * tnorm : abstol;
    // Like DLAEBZ, whose first search points are GL and GU themselves: IL = 1 and IU = N are
    // answered there without a search.
    StebzBracket lower{gl, gl, 0, 0, 1}, upper{gu, gu, n, n, 1};
    lower.nlo = lower.nhi = sturm_count(rows.data(), n, gl, pivmin);
    upper.nlo = upper.nhi = sturm_count(rows.data(), n, gu, pivmin);
    std::vector<StebzBlock> targets;
    if (il > 1 || lower.nlo != 0)
      targets.push_back(to_device({0, n, il - 1, il, 0, 0, gl, gu, atoli, itmax, 1}));
    if (iu < n || upper.nlo != n)
      targets.push_back(to_device({0, n, iu, iu + 1, 0, static_cast<int64_t>(targets.size()), gl,
                                   gu, atoli, itmax, 1}));
    StebzBracket br[2];
    const int nt = static_cast<int>(targets.size());
    if (nt > 0 &&
        (!(s = check(cudaMemcpyAsync(dblocks, targets.data(), nt * sizeof(StebzBlock),
                                     cudaMemcpyHostToDevice, st), "upload targets")) ||
         !(s = check(stebz_search(st, {kThreads, 1, false}, drows, dblocks, nt, nt, sc.pivmin, rtoli,
                                  {nullptr, 0}, nullptr, nullptr, dbr), "stebz locate kernel")) ||
         !(s = check(cudaMemcpyAsync(br, dbr, nt * sizeof(StebzBracket), cudaMemcpyDeviceToHost,
                                     st), "download")) ||
         !(s = check(cudaStreamSynchronize(st), "stebz locate"))))
      return s;
    for (int i = 0; i < nt; ++i) {  // back to T's own scale (exact)
      br[i].lo /= sc.c;
      br[i].hi /= sc.c;
    }
    int next = 0;
    if (il > 1 || lower.nlo != 0) lower = br[next++];
    if (iu < n || upper.nlo != n) upper = br[next++];
    // Sides a search never moved keep DLAEBZ's "unknown" marks: count them here.
    for (StebzBracket *b : {&lower, &upper}) {
      if (b->nlo < 0) b->nlo = sturm_count(rows.data(), n, b->lo, pivmin);
      if (b->nhi > n) b->nhi = sturm_count(rows.data(), n, b->hi, pivmin);
    }
    wl = lower.lo;
    wlu = lower.hi;
    const int nwl = lower.nlo;
    int nwu;
    if (upper.nlo == iu) {  // a point with exactly IU eigenvalues below
      wu = wul = upper.lo;
      nwu = iu;
    } else {
      wu = upper.hi;
      wul = upper.lo;
      nwu = upper.nhi;
    }
    if (nwl < 0 || nwl >= n || nwu < 1 || nwu > n) {
      *m_out = 0;
      *nsplit_out = nsplit;
      std::copy(isplit.begin(), isplit.end(), isplit_out);
      *info_out = 4;
      return Status::success();
    }
  } else if (irange == 2) {
    wl = vl;
    wu = vu;
  }

  // Blocks: DSTEBZ's loop, with the bisection itself left to the GPU.
  std::vector<StebzBlock> blocks;
  std::vector<int> block_of;  // DSTEBZ's JB for each entry of `blocks`
  std::vector<double> w;
  std::vector<int> ib;
  int nwl = 0, nwu = 0;
  int64_t ntasks = 0;
  int iend = 0;
  for (int jb = 1; jb <= nsplit; ++jb) {
    const int ibegin = iend;
    iend = isplit[jb - 1];
    const int in = iend - ibegin;
    if (in == 1) {
      const double v = d[ibegin] - pivmin;
      if (irange == 1 || wl >= v) ++nwl;
      if (irange == 1 || wu >= v) ++nwu;
      if (irange == 1 || (wl < v && wu >= v)) {
        w.push_back(d[ibegin]);
        ib.push_back(jb);
      }
      continue;
    }
    auto [gl, gu] = gershgorin(d, ibegin, iend, [&](int j) { return std::fabs(e[j]); });
    const double bnorm = std::max(std::fabs(gl), std::fabs(gu));
    gl = gl - kFudge * bnorm * kUlp * in - kFudge * pivmin;
    gu = gu + kFudge * bnorm * kUlp * in + kFudge * pivmin;
    const double atoli = abstol <= 0 ? kUlp * std::max(std::fabs(gl), std::fabs(gu)) : abstol;
    if (irange > 1 && !by_index) {
      if (gu < wl) {
        nwl += in;
        nwu += in;
        continue;
      }
      gl = std::max(gl, wl);
      gu = std::min(gu, wu);
      if (gl >= gu) continue;
    }
    const int nab1 = by_index ? il - 1 : sturm_count(rows.data() + ibegin, in, gl, pivmin);
    const int nab2 = by_index ? iu : sturm_count(rows.data() + ibegin, in, gu, pivmin);
    nwl += nab1;
    nwu += nab2;
    const int im = nab2 - nab1;
    if (im <= 0) continue;
    const int itmax = static_cast<int>((std::log(gu - gl + pivmin) - std::log(pivmin)) / std::log(2.0)) + 2;
    blocks.push_back({ibegin, in, nab1, nab2, static_cast<int64_t>(w.size()), ntasks, gl, gu, atoli,
                      itmax, 0});
    block_of.push_back(jb);
    ntasks += im;
    w.insert(w.end(), im, 0.0);
    ib.insert(ib.end(), im, jb);
  }

  bool ncnvrg = false;
  if (ntasks > 0) {
    const int nb = static_cast<int>(blocks.size());
    std::vector<double> wg(w.size());
    std::vector<int> conv(w.size());
    std::vector<StebzBlock> on_device(nb);
    for (int b = 0; b < nb; ++b) on_device[b] = to_device(blocks[b]);
    // One large block with many eigenvalues wanted: a grid of counts first (see StebzGrid).
    StebzGrid grid{nullptr, 0};
    if (nb == 1 && blocks[0].len >= kGridMinOrder && ntasks >= kGridMinTasks) {
      grid = {dgrid, kGridPoints};
      if (!(s = check(stebz_grid_counts(st, drows + blocks[0].begin, blocks[0].len,
                                        on_device[0].lo, on_device[0].hi, kGridPoints, sc.pivmin,
                                        dgrid), "stebz grid kernel")))
        return s;
    }
    if (!(s = check(cudaMemcpyAsync(dblocks, on_device.data(), nb * sizeof(StebzBlock),
                                    cudaMemcpyHostToDevice, st), "upload blocks")) ||
        !(s = check(stebz_search(st, stebz_geometry(ntasks, n), drows, dblocks, nb, ntasks,
                                 sc.pivmin, rtoli, grid, dw, dconv, nullptr), "stebz search kernel")) ||
        !(s = check(cudaMemcpyAsync(wg.data(), dw, w.size() * sizeof(double),
                                    cudaMemcpyDeviceToHost, st), "download w")) ||
        !(s = check(cudaMemcpyAsync(conv.data(), dconv, w.size() * sizeof(int),
                                    cudaMemcpyDeviceToHost, st), "download flags")) ||
        !(s = check(cudaStreamSynchronize(st), "stebz search")))
      return s;
    for (int b = 0; b < nb; ++b)
      for (int k = 0; k < blocks[b].last_k - blocks[b].first_k; ++k) {
        const int64_t pos = blocks[b].out + k;
        w[pos] = wg[pos] / sc.c;
        if (!conv[pos]) {  // DSTEBZ marks eigenvalues that did not converge with -JB
          ib[pos] = -block_of[b];
          ncnvrg = true;
        }
      }
  }

  bool toofew = false;
  if (irange == 3 && !by_index) {  // DSTEBZ's discarding of eigenvalues outside IL..IU, verbatim
    int idiscl = il - 1 - nwl, idiscu = nwu - iu;
    if (idiscl > 0 || idiscu > 0) {
      size_t im = 0;
      for (size_t je = 0; je < w.size(); ++je) {
        if (w[je] <= wlu && idiscl > 0) {
          --idiscl;
        } else if (w[je] >= wul && idiscu > 0) {
          --idiscu;
        } else {
          w[im] = w[je];
          ib[im] = ib[je];
          ++im;
        }
      }
      w.resize(im);
      ib.resize(im);
    }
    if (idiscl > 0 || idiscu > 0) {
      // Non-monotone counts left surplus eigenvalues outside the clusters: drop the smallest
      // IDISCL and the largest IDISCU, as DSTEBZ does.
      for (; idiscl > 0; --idiscl) {
        size_t iw = w.size();
        double wkill = wu;
        for (size_t je = 0; je < w.size(); ++je)
          if (ib[je] != 0 && (w[je] < wkill || iw == w.size())) {
            iw = je;
            wkill = w[je];
          }
        if (iw < w.size()) ib[iw] = 0;
      }
      for (; idiscu > 0; --idiscu) {
        size_t iw = w.size();
        double wkill = wl;
        for (size_t je = 0; je < w.size(); ++je)
          if (ib[je] != 0 && (w[je] > wkill || iw == w.size())) {
            iw = je;
            wkill = w[je];
          }
        if (iw < w.size()) ib[iw] = 0;
      }
      size_t im = 0;
      for (size_t je = 0; je < w.size(); ++je)
        if (ib[je] != 0) {
          w[im] = w[je];
          ib[im] = ib[je];
          ++im;
        }
      w.resize(im);
      ib.resize(im);
    }
    if (idiscl < 0 || idiscu < 0) toofew = true;
  }
  if (order_e && nsplit > 1) dstebz_order_e(w, ib);

  *m_out = static_cast<int>(w.size());
  *nsplit_out = nsplit;
  std::copy(isplit.begin(), isplit.end(), isplit_out);
  std::copy(w.begin(), w.end(), w_out);
  std::copy(ib.begin(), ib.end(), iblock_out);
  *info_out = (ncnvrg ? 1 : 0) + (toofew ? 2 : 0);
  return Status::success();
}

}  // namespace gpueig::gpu
