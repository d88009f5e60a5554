// Stage 2 of the two-stage method: band (lower bandwidth KD = kSytrdBand) -> tridiagonal by
// Givens bulge chasing, and the driver of the whole method.
//
// The task structure is LAPACK's DSB2ST_KERNELS / DSYTRD_SB2ST with each Householder reflector
// replaced by a chain of rotations of adjacent rows (any orthogonal transformation that maps the
// column to a multiple of e1 keeps the algorithm's structure). Sweep s clears column s; its window
// w covers rows st = s+1+w*KD .. ed = min(st+KD-1, n-1):
//   window 0   a chain zeroes A(st+1:ed, s) into A(st, s);
//   each w     the window's chain is applied on both sides of the diagonal block A(st:ed, st:ed),
//              then from the right to the block below, A(ed+1:ed+KD, st:ed); a new chain zeroes
//              that block's first column below its top, and is applied from the left to the rest
//              of the block. That chain is window w+1's.
// Window w of sweep s touches what window w+1 of sweep s-1 touches, and nothing of sweep s-1's
// windows after it, so all sweeps run at once, each a window behind the one before: one warp per
// sweep, a progress counter per sweep, a persistent cooperative grid.
//
// A chain is generated in parallel: lane k computes its rotation from the suffix norms of the
// column (a scaled warp scan), so generating costs a few shuffles instead of KD dependent hypots.
//
// With z, the rotations are recorded (rot[sweep][row]) and applied afterwards to z's rows:
// z := z G_1^T G_2^T ... in an order that groups KG sweeps (kApplyGroup) and walks their windows
// from the last to the first, so that a thread keeps KD + KG - 1 columns of its row in registers
// while the rotations of KG sweeps pass over them.
#include <cuda/atomic>

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "context.hpp"
#include "device_util.hpp"
#include "rotation.cuh"
#include "sytrd.hpp"
#include "warp.cuh"

namespace gpueig::gpu {
namespace {

constexpr int KD = kSytrdBand;
constexpr unsigned kFull = 0xffffffffu;
constexpr int kApplyGroup = 32;    // sweeps applied together to z
constexpr int kApplyWarps = 4;     // groups of sweeps applied to z at once, one per warp
constexpr int kLdab = 2 * KD + 1;  // band storage: diagonal, KD subdiagonals, KD rows for the bulge
// Rotations of a chunk of sweeps are kept at most this large; bigger problems chase in chunks.
constexpr size_t kRotBudget = size_t(1280) << 20;
// A pipeline wait longer than this means a bug: the kernel gives up and reports it.
constexpr unsigned long long kWaitLimitNs = 20ull * 1000 * 1000 * 1000;
// Each sweep's progress counter has a 128-byte line of its own: the warps that spin on one do
// not queue behind the writes to its neighbours.
constexpr int kFlagStride = 32;

int64_t sweeps_of(int64_t n) { return std::max<int64_t>(0, n - 2); }
int64_t rot_ld(int64_t n) { return n + KD + kApplyGroup; }
int64_t chunk_sweeps(int64_t n) {
  // GPUEIG_SYTRD_CHUNK (sweeps) lets the tests cut small problems into chunks too.
  if (const char *v = std::getenv("GPUEIG_SYTRD_CHUNK"))
    if (std::atoll(v) > 0) return std::min<int64_t>(std::atoll(v), std::max<int64_t>(1, sweeps_of(n)));
  const int64_t per = rot_ld(n) * int64_t(sizeof(double2));
  int64_t c = static_cast<int64_t>(kRotBudget) / per;
  c = std::max<int64_t>(kApplyGroup, c / kApplyGroup * kApplyGroup);
  return std::min(c, std::max<int64_t>(1, sweeps_of(n)));
}

__device__ inline int windows_of(int64_t n, int64_t s) { return static_cast<int>((n - 2 - s) / KD + 1); }

struct Chase {
  double *ab;  // band, lower, leading dimension kLdab: A(i, j) = ab[(i - j) + j * kLdab]
  int64_t n, s_begin, s_end;
  int *progress;   // windows finished, per sweep (all sweeps), kFlagStride apart
  double2 *rot;    // (c, s) of sweeps [s_begin, s_end): rot[(s - s_begin) * ldrot + row], or null
  int64_t ldrot;
  int *failed;
};

__device__ inline double &band(const Chase &p, int64_t i, int64_t j) { return p.ab[(i - j) + j * kLdab]; }

// Lane l holds x_l (l < len). On return lane k (1 <= k < len) holds the rotation (c, s) on
// window rows (k-1, k) that, applied for k = len-1 down to 1, maps x to r0 * e1; other lanes hold
// the identity. r0 (every lane) is the new first entry: ||x|| (x_0 itself when len = 1).
__device__ void make_chain(double x, int len, double &c, double &s, double &r0) {
  const int lane = threadIdx.x;
  c = 1;
  s = 0;
  if (len <= 1) {
    r0 = __shfl_sync(kFull, x, 0);
    return;
  }
  const double scale = warp_max(lane < len ? fabs(x) : 0.0);
  if (scale == 0) {
    r0 = 0;
    return;
  }
  double y = lane < len ? x / scale : 0.0;
  y *= y;
  for (int o = 1; o < 32; o <<= 1) {  // suffix sums: y_l = sum of squares of x_l .. x_{len-1}
    const double t = __shfl_down_sync(kFull, y, o);
    if (lane + o < 32) y += t;
  }
  const double r = scale * sqrt(y);  // ||x_l .. x_{len-1}||
  const double rp = __shfl_up_sync(kFull, r, 1), xp = __shfl_up_sync(kFull, x, 1);
  // Rotation k meets x_{k-1} and the running norm of what is below it (x itself at the bottom).
  if (lane >= 1 && lane < len && rp != 0) {
    c = xp / rp;
    s = (lane == len - 1 ? x : r) / rp;
  }
  r0 = __shfl_sync(kFull, r, 0);
}

// The chain's rotations in shared memory, where every lane reads them (broadcast) while it
// applies them: the reads do not wait on the rotations' arithmetic, as shuffles would.
__device__ inline void publish_chain(double2 *chain, double c, double s) {
  __syncwarp();
  chain[threadIdx.x] = make_double2(c, s);
  __syncwarp();
}

// v (this lane's vector over the window rows) := chain * v.
__device__ inline void apply_chain(double (&v)[KD], const double2 *chain) {
#pragma unroll
  for (int k = KD - 1; k >= 1; --k) {
    rotate_carry_y(chain[k], v[k - 1], v[k]);
  }
}

// The window block M (KD x KD in shared memory) := chain * M, lane = column (kRows false), or
// M := M * chain^T, lane = row (kRows true): each lane takes its column or row into registers.
template <bool kRows>
__device__ inline void apply_chain_to(double (&M)[KD][KD + 1], const double2 *chain) {
  const int lane = threadIdx.x;
  double v[KD];
#pragma unroll
  for (int i = 0; i < KD; ++i) v[i] = kRows ? M[lane][i] : M[i][lane];
  apply_chain(v, chain);
#pragma unroll
  for (int i = 0; i < KD; ++i) (kRows ? M[lane][i] : M[i][lane]) = v[i];
}

__device__ void record(const Chase &p, int64_t s, int64_t st, int len, double c, double sn) {
  if (p.rot && threadIdx.x >= 1 && threadIdx.x < len)
    p.rot[(s - p.s_begin) * p.ldrot + st + threadIdx.x] = make_double2(c, sn);
}

// Lane 0 (lane % 32 == 0) of the calling warp spins until flag.load(acquire) >= need; the other
// lanes' accesses after the call are ordered after that acquire. False, and *failed set, after
// kWaitLimitNs; false as well once another warp has set *failed.
template <class Flag, class T>
__device__ bool warp_wait(Flag &flag, T need, int *failed) {
  int ok = 1;
  if (threadIdx.x % 32 == 0) {
    cuda::atomic_ref<int, cuda::thread_scope_device> bad(*failed);
    unsigned long long t0 = 0, t = 0;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    for (unsigned spins = 0; flag.load(cuda::memory_order_acquire) < need; ++spins) {
      // Another warp's failure is looked for now and then: it costs a load the flag's does not.
      if (spins % 16 == 15 && bad.load(cuda::memory_order_relaxed)) {
        ok = 0;
        break;
      }
      asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
      if (t - t0 > kWaitLimitNs) {
        bad.store(1, cuda::memory_order_relaxed);
        ok = 0;
        break;
      }
      // A wait sits on the critical path of the pipeline (a sweep follows its predecessor
      // window by window): spin without sleeping first, then back off.
      if (spins >= 256) __nanosleep(64);
    }
  }
  return __shfl_sync(kFull, ok, 0) != 0;
}

__device__ bool wait_for(const Chase &p, int *flag, int need) {
  cuda::atomic_ref<int, cuda::thread_scope_device> f(*flag);
  return warp_wait(f, need, p.failed);
}

__global__ void __launch_bounds__(32) chase_kernel(Chase p) {
  __shared__ double M[KD][KD + 1];
  __shared__ double2 chain[2][KD];  // the window's chain (chain[cur]) and the next one
  const int lane = threadIdx.x;
  double v[KD];
  for (int64_t s = p.s_begin + blockIdx.x; s < p.s_end; s += gridDim.x) {
    const int nw = windows_of(p.n, s);
    const int prev_nw = s > 0 ? windows_of(p.n, s - 1) : 0;
    int cur = 0;
    for (int w = 0; w < nw; ++w) {
      if (s > 0 && !wait_for(p, p.progress + (s - 1) * kFlagStride, min(w + 2, prev_nw))) return;
      const int64_t st = s + 1 + int64_t(w) * KD, ed = min(st + KD - 1, p.n - 1);
      const int len = static_cast<int>(ed - st + 1);
      // The diagonal block (its lower triangle) and the block below it (rows j1 .. j1+len2-1,
      // columns st .. ed): all loads are unrolled into registers and issued at once, so that the
      // window waits on memory once.
      const int64_t j1 = ed + 1;
      const int len2 = j1 <= p.n - 1 ? static_cast<int>(min(ed + KD, p.n - 1) - j1 + 1) : 0;
      double below[KD];
#pragma unroll
      for (int j = 0; j < KD; ++j)
        v[j] = j < len && lane >= j && lane < len ? __ldcg(&band(p, st + lane, st + j)) : 0.0;
#pragma unroll
      for (int j = 0; j < KD; ++j)
        below[j] = j < len && lane < len2 ? __ldcg(&band(p, j1 + lane, st + j)) : 0.0;
      if (w == 0) {
        const double x = lane < len ? __ldcg(&band(p, st + lane, s)) : 0.0;
        double c, sn, r0;
        make_chain(x, len, c, sn, r0);
        if (lane < len) __stcg(&band(p, st + lane, s), lane == 0 ? r0 : 0.0);
        record(p, s, st, len, c, sn);
        publish_chain(chain[cur], c, sn);
      }
      // Both sides of the diagonal block (held whole in M, stored as its lower triangle).
#pragma unroll
      for (int j = 0; j < KD; ++j) {  // entry (a, b) has one writer: lane max(a, b)
        if (j <= lane) M[lane][j] = v[j];
        if (j < lane) M[j][lane] = v[j];
      }
      __syncwarp();
      apply_chain_to<false>(M, chain[cur]);
      __syncwarp();
      apply_chain_to<true>(M, chain[cur]);
      __syncwarp();
      for (int j = 0; j < len; ++j)
        if (lane >= j && lane < len) __stcg(&band(p, st + lane, st + j), M[lane][j]);

      if (len2 > 0) {
        __syncwarp();
        apply_chain(below, chain[cur]);  // from the right: row by row
#pragma unroll
        for (int j = 0; j < KD; ++j) M[lane][j] = below[j];
        __syncwarp();
        double c2, s2, r0;
        make_chain(lane < len2 ? M[lane][0] : 0.0, len2, c2, s2, r0);
        record(p, s, j1, len2, c2, s2);
        cur ^= 1;  // the new chain is the next window's
        publish_chain(chain[cur], c2, s2);
        if (lane == 0) {  // column 0 is what the chain was made to produce
#pragma unroll
          for (int i = 0; i < KD; ++i) M[i][0] = i == 0 ? r0 : 0.0;
        } else {  // the rest from the left, column by column
          apply_chain_to<false>(M, chain[cur]);
        }
        __syncwarp();
        for (int j = 0; j < len; ++j)
          if (lane < len2) __stcg(&band(p, j1 + lane, st + j), M[lane][j]);
      }
      __syncwarp();
      __threadfence();
      if (lane == 0)
        cuda::atomic_ref<int, cuda::thread_scope_device>(p.progress[s * kFlagStride]).store(
            w + 1, cuda::memory_order_release);
    }
  }
}

// Lower band storage of the band stage 1 left in a's upper triangle, with the bulge rows zeroed.
__global__ void to_band_kernel(const double *a, int64_t lda, int64_t n, double *ab) {
  for (int64_t idx = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; idx < n * kLdab;
       idx += int64_t(gridDim.x) * blockDim.x) {
    const int64_t j = idx / kLdab, d = idx % kLdab;
    ab[idx] = d <= KD && j + d < n ? a[j + (j + d) * lda] : 0.0;
  }
}

__global__ void identity_rotations_kernel(double2 *rot, int64_t count) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count;
       i += int64_t(gridDim.x) * blockDim.x)
    rot[i] = make_double2(1.0, 0.0);
}

// z := z G^T for every rotation of sweeps [s_begin, s_end), one row of z per lane. For a group
// of KG sweeps s0.., window t's rotations of all of them (window t of sweep s0+o covers columns
// base+o .. base+o+KD-1, base = s0+1+t*KD) commute with windows t+1.. of the later sweeps, so the
// windows are walked from the last to the first and the row's KD+KG-1 columns stay in registers.
//
// A row has too few groups' worth of parallelism on its own (n rows are a few hundred warps), so
// the kApplyWarps warps of a block take consecutive groups of the same 32 rows, pipelined: group
// g's window at base b shares columns with group g-1's windows at b-KD, b and b+KD, and may run
// once g-1 (walking down too) has done the one at b-KD, which it then has stored. Each warp
// publishes a ticket (group * kTicket + windows done) after its stores. The
// waits cannot cycle (a group waits only on the one before it); they are capped all the same.
constexpr long long kTicket = 1ll << 40;

template <int KG>
__global__ void __launch_bounds__(32 * kApplyWarps)
    apply_chains_kernel(double *z, int64_t ldz, int64_t n, const double2 *rot, int64_t ldrot,
                        int64_t s_begin, int64_t s_end, long long *tickets, int *failed) {
  constexpr int kW = KD + KG - 1;
  extern __shared__ double2 rs_all[];  // [kApplyWarps][KG][KD]: each warp's window rotations
  const int lane = threadIdx.x % 32, wid = threadIdx.x / 32;
  double2(*rs)[KD] = reinterpret_cast<double2(*)[KD]>(rs_all + wid * KG * KD);
  // The block's tickets, in global memory (spinning on shared memory would be a hazard to
  // racecheck, which cannot see the acquire/release pairing).
  long long *ticket = tickets + int64_t(blockIdx.x) * kApplyWarps;
  cuda::atomic_ref<long long, cuda::thread_scope_block> mine(ticket[wid]),
      prev(ticket[(wid + kApplyWarps - 1) % kApplyWarps]);
  const int64_t row = blockIdx.x * int64_t(32) + lane;
  const bool live = row < n;
  if (lane == 0) mine.store(-1, cuda::memory_order_relaxed);
  __syncthreads();
  const int64_t groups = (s_end - s_begin + KG - 1) / KG;
  double W[kW];
  for (int64_t g = wid; g < groups; g += kApplyWarps) {
    const int64_t s0 = s_begin + g * KG, sp = s0 - KG;
    const int64_t ptop = sp + 1 + (n - 2 - sp) / KD * KD;  // group g-1's first window (g > 0)
    // Waits until group g-1 has done its windows at bases >= b - KD (all of them, at most).
    auto wait_prev = [&](int64_t b) {
      if (g == 0 || b - KD > ptop) return true;
      const int64_t lowest = std::max<int64_t>(b - KD, sp + 1);
      const long long need = (g - 1) * kTicket + (ptop - lowest) / KD + 1;
      return warp_wait(prev, need, failed);
    };
    auto publish = [&](long long done) {
      __syncwarp();  // orders every lane's stores before lane 0's release
      if (lane == 0) mine.store(g * kTicket + done, cuda::memory_order_release);
    };
    int64_t base = s0 + 1 + (n - 2 - s0) / KD * KD;  // the last window with rows in the matrix
    if (!wait_prev(base)) return;
#pragma unroll
    for (int i = 0; i < kW; ++i) W[i] = live && base + i < n ? z[row + (base + i) * ldz] : 0.0;
    for (long long done = 1;; ++done) {
      __syncwarp();
      for (int idx = lane; idx < KG * KD; idx += 32) {
        const int o = idx / KD, k = idx % KD;
        rs[o][k] = s0 + o < s_end && k > 0 ? rot[(s0 + o - s_begin) * ldrot + base + o + k]
                                           : make_double2(1.0, 0.0);
      }
      __syncwarp();
      // Sweep o's rotation k (columns o+k-1, o+k) needs sweep o's k+1 and sweep o-1's k .. k+2
      // before it, nothing else: in the order of step o + (KD-1-k) the rotations of a step are
      // independent, so that up to KG chains' running values are in flight at once instead of
      // one chain's waiting on each FMA.
#pragma unroll
      for (int step = 0; step < KD + KG - 2; ++step) {
#pragma unroll
        for (int o = 0; o < KG; ++o) {
          const int k = KD - 1 - (step - o);
          if (k >= 1 && k <= KD - 1) rotate_carry_y(rs[o][k], W[o + k - 1], W[o + k]);
        }
      }
      if (base == s0 + 1) {
#pragma unroll
        for (int i = 0; i < kW; ++i)
          if (live && base + i < n) z[row + (base + i) * ldz] = W[i];
        publish(done);
        break;
      }
      // Columns base+KG-1 .. are done for this group; slide the window KD columns left.
#pragma unroll
      for (int i = KG - 1; i < kW; ++i)
        if (live && base + i < n) z[row + (base + i) * ldz] = W[i];
      publish(done);
#pragma unroll
      for (int i = KG - 2; i >= 0; --i) W[KD + i] = W[i];
      base -= KD;
      if (!wait_prev(base)) return;
#pragma unroll
      for (int i = 0; i < KD; ++i) W[i] = live ? z[row + (base + i) * ldz] : 0.0;
    }
  }
}

unsigned grid_for(int64_t count, int threads) {
  return static_cast<unsigned>(std::min<int64_t>(4096, (count + threads - 1) / threads));
}

Status chase(cudaStream_t st, const Chase &args) {
  int dev = 0, sms = 0, per_sm = 0;
  Status s = check(cudaGetDevice(&dev), "cudaGetDevice");
  if (s) s = check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev), "attribute");
  if (s)
    s = check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, chase_kernel, 32, 0),
              "occupancy");
  if (!s) return s;
  // Every warp of the grid must be resident (a warp waits on the sweep before it): a cooperative
  // launch guarantees it or fails. A sweep lasts its windows, about (n - s)/KD of them, and the
  // next starts two windows after it: about n/(2 KD) sweeps are in flight, and a warp per sweep
  // more would only spin. Twice that keeps the pipeline from waiting on a warp still busy with
  // its previous sweep.
  const int64_t useful = std::max<int64_t>(32, args.n / KD);
  const int64_t grid = std::min<int64_t>({args.s_end - args.s_begin, int64_t(per_sm) * sms, useful});
  Chase a = args;
  void *params[] = {&a};
  return check(cudaLaunchCooperativeKernel(reinterpret_cast<void *>(chase_kernel),
                                           dim3(static_cast<unsigned>(grid)), dim3(32), params, 0, st),
               "sytrd chase_kernel");
}

size_t align_up(size_t b) { return (b + 255) / 256 * 256; }
size_t tickets_bytes(int64_t n) { return size_t((n + 31) / 32) * kApplyWarps * sizeof(long long); }

}  // namespace

SytrdMethod sytrd_method() {
  const char *v = std::getenv("GPUEIG_SYTRD_METHOD");
  return v && std::strcmp(v, "tree") == 0 ? SytrdMethod::tree : SytrdMethod::two_stage;
}

size_t sytrd_two_stage_bytes(int64_t n, bool wantz) {
  size_t b = align_up(sytrd_band_blocks_bytes(n)) + align_up(size_t(kLdab) * n * sizeof(double)) +
             align_up((sweeps_of(n) + 1) * kFlagStride * sizeof(int)) + align_up(sizeof(int));
  if (wantz)
    b += align_up(size_t(chunk_sweeps(n)) * rot_ld(n) * sizeof(double2)) + align_up(tickets_bytes(n));
  return b;
}

Status sytrd_two_stage(cudaStream_t st, int64_t n, double *a, int64_t lda, double *d, double *e,
                       double *z, int64_t ldz, void *work) {
  char *w = static_cast<char *>(work);
  double *blocks = reinterpret_cast<double *>(w);
  w += align_up(sytrd_band_blocks_bytes(n));
  double *ab = reinterpret_cast<double *>(w);
  w += align_up(size_t(kLdab) * n * sizeof(double));
  int *progress = reinterpret_cast<int *>(w);
  w += align_up((sweeps_of(n) + 1) * kFlagStride * sizeof(int));
  int *failed = reinterpret_cast<int *>(w);
  w += align_up(sizeof(int));
  double2 *rot = z ? reinterpret_cast<double2 *>(w) : nullptr;
  long long *tickets = nullptr;
  if (z) {
    w += align_up(size_t(chunk_sweeps(n)) * rot_ld(n) * sizeof(double2));
    tickets = reinterpret_cast<long long *>(w);
  }

  Status s = sytrd_to_band(st, n, a, lda, z, ldz, blocks);
  if (!s) return s;
  to_band_kernel<<<grid_for(n * kLdab, 256), 256, 0, st>>>(a, lda, n, ab);
  if (!(s = check_launch("sytrd to_band_kernel"))) return s;
  if (!(s = check(cudaMemsetAsync(progress, 0, (sweeps_of(n) + 1) * kFlagStride * sizeof(int), st),
                  "cudaMemsetAsync")) ||
      !(s = check(cudaMemsetAsync(failed, 0, sizeof(int), st), "cudaMemsetAsync")))
    return s;
  const int64_t chunk = chunk_sweeps(n), ldrot = rot_ld(n);
  constexpr size_t smem = size_t(kApplyWarps) * kApplyGroup * KD * sizeof(double2);
  if (rot && !(s = check(cudaFuncSetAttribute(apply_chains_kernel<kApplyGroup>,
                                              cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)),
                         "cudaFuncSetAttribute")))
    return s;
  for (int64_t s0 = 0; s0 < sweeps_of(n); s0 += chunk) {
    const int64_t s1 = std::min(sweeps_of(n), s0 + chunk);
    if (rot) {
      identity_rotations_kernel<<<grid_for((s1 - s0) * ldrot, 256), 256, 0, st>>>(
          rot, (s1 - s0) * ldrot);
      if (!(s = check_launch("sytrd identity_rotations_kernel"))) return s;
    }
    if (!(s = chase(st, Chase{ab, n, s0, s1, progress, rot, ldrot, failed}))) return s;
    if (rot) {
      apply_chains_kernel<kApplyGroup>
          <<<static_cast<unsigned>((n + 31) / 32), 32 * kApplyWarps, smem, st>>>(
              z, ldz, n, rot, ldrot, s0, s1, tickets, failed);
      if (!(s = check_launch("sytrd apply_chains_kernel"))) return s;
    }
  }
  if (!(s = sytrd_take_tridiagonal(st, n, ab, kLdab, d, e))) return s;
  int bad = 0;
  if (!(s = fetch_flag(st, failed, &bad))) return s;
  if (bad) return Status::fail(Status::device_error, "sytrd: a bulge-chasing wait timed out");
  return Status::success();
}

}  // namespace gpueig::gpu
