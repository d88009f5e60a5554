// gpu_stebz, GPU half: DSTEBZ's contract with the bisection on the GPU.
//
// The host does DSTEBZ's O(n) bookkeeping exactly as LAPACK does it (splitting, PIVMIN,
// Gershgorin intervals, the counts at each block's interval ends, and for RANGE 'I' the
// discarding of surplus eigenvalues and the selection sort of ORDER 'E'; src/stebz_phases.hpp,
// tested on the CPU), so M, NSPLIT, ISPLIT and IBLOCK are DSTEBZ's own; the GPU brackets every
// wanted eigenvalue independently (stebz() below: phase 4).
//
// Each eigenvalue is searched by a group of G threads evaluating G*C shifts per pass
// (multisection): the interval shrinks by G*C + 1 per pass. With many eigenvalues G = 1 (plain
// bisection, C interleaved shifts per thread to hide the division latency of the Sturm count);
// with few eigenvalues the threads that would idle split each interval further instead. No
// compaction, no inter-block communication: every group works on its own eigenvalue until its
// interval meets DLAEBZ's convergence test or the ITMAX cap, so no input can loop forever.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "context.hpp"
#include "device_util.hpp"
#include "hardware.hpp"
#include "workspace.hpp"
#include "stebz.hpp"
#include "sturm.hpp"

namespace gpueig::gpu {
namespace {

constexpr int kThreads = 256;

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

namespace phases = stebz_phases;

// Phase 4's view of the device: T scaled by a power of two (exact) to entries of about 1, which
// the division-free count needs (the host phases keep LAPACK's own counts on the unscaled T),
// and the parts of the workspace.
struct DeviceT {
  cudaStream_t st;
  SturmScale sc;
  SturmRow *rows;
  StebzBlock *blocks;
  double *w;
  int *conv;
  StebzBracket *brackets;
  int *grid;
  // A search block in the device's scale.
  StebzBlock scaled(StebzBlock b) const {
    b.lo *= sc.c;
    b.hi *= sc.c;
    b.atol *= sc.c;
    return b;
  }
};

// 4a. RANGE 'I': the searches for points with N = IL - 1 and N = IU (DLAEBZ, IJOB = 3), one
// thread block each; `found` receives their brackets in T's own scale.
Status locate_on_device(const DeviceT &dev, const std::vector<StebzBlock> &targets,
                        StebzBracket *found) {
  const int nt = static_cast<int>(targets.size());
  if (nt == 0) return Status::success();
  std::vector<StebzBlock> on_device(nt);
  for (int i = 0; i < nt; ++i) on_device[i] = dev.scaled(targets[i]);
  Status s;
  // Zeroed first: the kernel fills the fields of a bracket its search uses, and the whole array
  // comes back (compute-sanitizer initcheck counts the rest as uninitialized reads).
  if (!(s = check(cudaMemsetAsync(dev.brackets, 0, nt * sizeof(StebzBracket), dev.st),
                  "cudaMemsetAsync")) ||
      !(s = check(cudaMemcpyAsync(dev.blocks, on_device.data(), nt * sizeof(StebzBlock),
                                  cudaMemcpyHostToDevice, dev.st), "upload targets")) ||
      !(s = check_launch(stebz_search(dev.st, {kThreads, 1, false}, dev.rows, dev.blocks, nt, nt,
                               dev.sc.pivmin, phases::kRtoli, {nullptr, 0}, nullptr, nullptr,
                               dev.brackets), "stebz locate kernel")) ||
      !(s = check(cudaMemcpyAsync(found, dev.brackets, nt * sizeof(StebzBracket),
                                  cudaMemcpyDeviceToHost, dev.st), "download")) ||
      !(s = check(cudaStreamSynchronize(dev.st), "stebz locate")))
    return s;
  for (int i = 0; i < nt; ++i) {  // back to T's own scale (exact)
    found[i].lo /= dev.sc.c;
    found[i].hi /= dev.sc.c;
  }
  return Status::success();
}

// 4b. Every eigenvalue of the plan bracketed independently; `wg` and `conv` receive the
// midpoints (in the device's scale) and convergence flags at the plan's output positions.
Status bracket_on_device(const DeviceT &dev, const phases::Plan &plan, int64_t n,
                         std::vector<double> &wg, std::vector<int> &conv) {
  const int nb = static_cast<int>(plan.blocks.size());
  const size_t m = plan.out.w.size();
  wg.assign(m, 0.0);
  conv.assign(m, 0);
  std::vector<StebzBlock> on_device(nb);
  for (int b = 0; b < nb; ++b) on_device[b] = dev.scaled(plan.blocks[b]);
  // Zeroed first: the slots of 1 x 1 blocks are filled on the host (collect), not by the kernel,
  // and the whole of W and the flags comes back.
  Status s;
  if (!(s = check(cudaMemsetAsync(dev.w, 0, m * sizeof(double), dev.st), "cudaMemsetAsync")) ||
      !(s = check(cudaMemsetAsync(dev.conv, 0, m * sizeof(int), dev.st), "cudaMemsetAsync")))
    return s;
  StebzGrid grid{nullptr, 0};
  if (phases::use_grid(plan)) {
    grid = {dev.grid, phases::kGridPoints};
    if (!(s = check_launch(stebz_grid_counts(dev.st, dev.rows + plan.blocks[0].begin, plan.blocks[0].len,
                                      on_device[0].lo, on_device[0].hi, phases::kGridPoints,
                                      dev.sc.pivmin, dev.grid), "stebz grid kernel")))
      return s;
  }
  if (!(s = check(cudaMemcpyAsync(dev.blocks, on_device.data(), nb * sizeof(StebzBlock),
                                  cudaMemcpyHostToDevice, dev.st), "upload blocks")) ||
      !(s = check_launch(stebz_search(dev.st, stebz_geometry(plan.ntasks, n), dev.rows, dev.blocks, nb,
                               plan.ntasks, dev.sc.pivmin, phases::kRtoli, grid, dev.w, dev.conv,
                               nullptr), "stebz search kernel")) ||
      !(s = check_download("stebz download")) ||
      !(s = check(cudaMemcpyAsync(wg.data(), dev.w, m * sizeof(double), cudaMemcpyDeviceToHost,
                                  dev.st), "download w")) ||
      !(s = check(cudaMemcpyAsync(conv.data(), dev.conv, m * sizeof(int), cudaMemcpyDeviceToHost,
                                  dev.st), "download flags")) ||
      !(s = check(cudaStreamSynchronize(dev.st), "stebz search")))
    return s;
  return Status::success();
}

// DSTEBZ's results as the host holds them at the end (M = ev.w.size()).
struct Outcome {
  phases::Split sp;
  phases::Eigenvalues ev;
  int info = 0;
};

// DSTEBZ's phases on host arrays D and E, the device's work queued on `st` (which the call waits
// for: the host phases read the brackets).
Status stebz_on(cudaStream_t st, char range, char order, int n, double vl, double vu, int il,
                int iu, double abstol, const double *d, const double *e, Outcome &out) {
  const phases::Request q = phases::request(range, order, n, vl, vu, il, iu, abstol);
  if (n == 1) {  // DSTEBZ's special case; nothing for a GPU to do
    out.sp = phases::Split{{}, {1}, 0.0};
    out.ev = phases::order_one(q, d[0]);
    return Status::success();
  }

  // 1. Splitting and PIVMIN.
  out.sp = phases::split(n, d, e);
  const phases::Split &sp = out.sp;
  // Where some E(i)^2 overflows, PIVMIN is infinite and DSTEBZ's bisection cannot converge
  // (INFO = 1); the GPU's counts, on T scaled to about 1, would report success with eigenvalues
  // bracketed to an infinite tolerance. DSTEBZ's own arithmetic answers instead.
  if (!std::isfinite(sp.pivmin))
    return Status::fail(Status::unsafe, "E(i)^2 overflows: DSTEBZ on the CPU, as LAPACK would");
  const bool by_index = phases::by_index(q, sp);

  const SturmScale sc = sturm_scale(sp.rows.data(), n, sp.pivmin);
  std::vector<SturmRow> scaled(n);
  for (int j = 0; j < n; ++j) scaled[j] = {sp.rows[j].d * sc.c, sp.rows[j].e2 * sc.c * sc.c};
  const phases::WorkspaceLayout lay = phases::workspace_layout(n, sp.nsplit());
  Workspace work(st);
  Status s;
  if (!(s = work.allocate(lay.bytes))) return s;
  const DeviceT dev{st,
                    sc,
                    work.at<SturmRow>(lay.rows),
                    work.at<StebzBlock>(lay.blocks),
                    work.at<double>(lay.w),
                    work.at<int>(lay.conv),
                    work.at<StebzBracket>(lay.brackets),
                    work.at<int>(lay.grid)};
  if (!(s = check(cudaMemcpyAsync(dev.rows, scaled.data(), n * sizeof(SturmRow),
                                  cudaMemcpyHostToDevice, st), "upload T")))
    return s;

  // 2. The interval (WL, WU]: RANGE 'V''s own, or RANGE 'I''s located on the device.
  phases::Interval iv = phases::value_interval(q);
  if (q.irange == 3 && !by_index) {
    const phases::IndexSearch is = phases::index_search(q, sp, d);
    StebzBracket found[2];
    if (!(s = locate_on_device(dev, is.targets, found))) return s;
    iv = phases::index_interval(q, sp, is, found);
    if (!iv.valid) {
      out.info = 4;
      return Status::success();
    }
  }

  // 3. The plan; 4. the device's bracketing of every eigenvalue in it.
  phases::Plan plan = phases::plan_blocks(q, sp, d, e, by_index, iv);
  bool ncnvrg = false;
  if (plan.ntasks > 0) {
    std::vector<double> wg;
    std::vector<int> conv;
    if (!(s = bracket_on_device(dev, plan, n, wg, conv))) return s;
    ncnvrg = phases::collect(plan, wg, conv, sc.c);
  }

  // 5. Discarding (RANGE 'I' through an interval); 6. ordering.
  const bool toofew = q.irange == 3 && !by_index &&
                      phases::discard(q, iv, plan.nwl, plan.nwu, plan.out);
  phases::order(q, sp.nsplit(), plan.out);
  out.ev = std::move(plan.out);
  out.info = (ncnvrg ? 1 : 0) + (toofew ? 2 : 0);
  return Status::success();
}

}  // namespace

Status stebz(char range, char order, int n, double vl, double vu, int il, int iu, double abstol,
             const double *d, const double *e, int *m_out, int *nsplit_out, double *w_out,
             int *iblock_out, int *isplit_out, int *info_out) {
  DeviceScope scope;
  Context *ctx = nullptr;
  Status s = enter(scope, ctx);
  Outcome o;
  if (!s || !(s = stebz_on(ctx->stream(), range, order, n, vl, vu, il, iu, abstol, d, e, o))) return s;
  *m_out = static_cast<int>(o.ev.w.size());
  *nsplit_out = o.sp.nsplit();
  std::copy(o.sp.isplit.begin(), o.sp.isplit.end(), isplit_out);
  std::copy(o.ev.w.begin(), o.ev.w.end(), w_out);
  std::copy(o.ev.iblock.begin(), o.ev.iblock.end(), iblock_out);
  *info_out = o.info;
  return Status::success();
}

// The device twin: the same phases on the caller's stream, the outputs queued up to the caller's
// arrays on it in one packed transfer.
Status stebz_dev(char range, char order, int n, double vl, double vu, int il, int iu, double abstol,
                 const double *d, const double *e, int *m_out, int *nsplit_out, double *w_out,
                 int *iblock_out, int *isplit_out, int *info_out, void *stream) {
  CallerStream call(stream);
  Status s = call.enter();
  const cudaStream_t st = call.stream();
  Outcome o;
  if (!s || !(s = stebz_on(st, range, order, n, vl, vu, il, iu, abstol, d, e, o))) return s;
  const size_t m = o.ev.w.size(), ns = o.sp.isplit.size();
  if (!(s = upload_packed(call, {{w_out, o.ev.w.data(), m * sizeof(double)},
                                 {iblock_out, o.ev.iblock.data(), m * sizeof(int)},
                                 {isplit_out, o.sp.isplit.data(), ns * sizeof(int)},
                                 {info_out, &o.info, sizeof(int)}})))
    return s;
  *m_out = static_cast<int>(m);
  *nsplit_out = o.sp.nsplit();
  return Status::success();
}

}  // namespace gpueig::gpu
