// gpu_toeplitz_eig's structured method on the GPU (src/toeplitz_structured.hpp): T's Cauchy-like
// half blocks set up on the device from t (O(n^2) work, O(n) memory), then every shift's inertia
// by pivoted elimination on the generators, one thread block per (shift, half block), all shifts
// of a round side by side.
#include <algorithm>
#include <cmath>
#include <vector>

#include "context.hpp"
#include "device_util.hpp"
#include "fast_math.cuh"
#include "hardware.hpp"
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

// The inertia of one half block of C - sigma I (block b of task blockIdx.x: shift
// sigma[blockIdx.x / 2], half blockIdx.x % 2), as structured::half_inertia computes it: Bunch-
// Kaufman pivoting, the pivot's row formed from the generators, the Schur complement's generators
// and diagonal updated. The active elements stay packed in positions 0 .. m-1: an eliminated
// pivot's position is refilled by the last element(s) in the same pass that updates them, and the
// pivot's data travels with the reductions, so that a step costs two barriers (three when Bunch-
// Kaufman looks at a second row). Arrays in shared memory (`shared`) or in `work` (4 x stride
// doubles per task: g, h, d and the places ix).
__global__ void __launch_bounds__(kThreads)
    inertia_kernel(HalfBlock b0, HalfBlock b1, const double *sigma, int64_t *below, int *trusted,
                   bool shared, double *work, int64_t stride) {
  extern __shared__ double smem[];
  __shared__ Candidate slots[2][kWarps];
  int turn = 0;
  const HalfBlock b = blockIdx.x % 2 ? b1 : b0;
  const double sg = sigma[blockIdx.x / 2];
  int64_t m = b.size;
  const int64_t cap = shared ? m : stride;
  double *base = shared ? smem : work + int64_t(blockIdx.x) * 4 * stride;
  // The nodes stay in the half block's table: an element carries its place there (ix), so that a
  // half of 8192 (n = 16384) fits shared memory at 28 bytes an element.
  double *g = base, *h = base + cap, *d = base + 2 * cap;
  int *ix = reinterpret_cast<int *>(base + 3 * cap);
  const double *v = b.v;
  if (m == 0) {
    if (threadIdx.x == 0) below[blockIdx.x] = 0, trusted[blockIdx.x] = 1;
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
    const double x = two ? cauchy_entry(p2.g, p2.h, p2.v, p1.g, p1.h, p1.v) : 0;
    const double det = p1.d * p2.d - x * x;
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
  if (m == 1) neg += r.d < 0;

  // Growth and finiteness over the block: every thread's verdict into one.
  const Candidate worst =
      block_best({finite ? largest / fmax(start, 1e-300) : INFINITY, 0, 0, 0, 0, 0}, slots, turn);
  if (threadIdx.x == 0) {
    below[blockIdx.x] = neg;
    trusted[blockIdx.x] = worst.key <= kGrowth;
  }
}

// The device side of one structured call: C's half blocks, and the buffers of a batch.
class Session {
 public:
  Session(cudaStream_t st) : st_(st), form_(st), batch_(st) {}

  Status setup(int64_t n, const double *t) {
    n_ = n;
    size_[0] = (n + 1) / 2, size_[1] = n / 2;
    const int64_t period = 2 * (n + 1);
    // Tables, h and the nodes on the host (O(n), the host path's own numbers); g and d, the
    // O(n^2) part, on the device.
    const structured::AngleTables tables = structured::angle_tables(n);
    const structured::CauchyForm nodes = structured::cauchy_nodes(n, tables);
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
    // The elimination's home: shared memory where the larger half fits, else global memory.
    int dev = 0, optin = 0, sms = 0;
    if (!(s = check(cudaGetDevice(&dev), "cudaGetDevice")) ||
        !(s = check(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev),
                    "cudaDeviceGetAttribute")) ||
        !(s = sm_count(&sms)))
      return s;
    const size_t need = (3 * kD + sizeof(int)) * size_t(size_[0]);
    shared_ = need + sizeof(Candidate) * 2 * kWarps <= size_t(optin);
    int per_sm = 1;
    if (shared_) {
      if (!(s = check(cudaFuncSetAttribute(inertia_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           int(need)), "cudaFuncSetAttribute")) ||
          !(s = check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, inertia_kernel, kThreads, need),
                      "cudaOccupancyMaxActiveBlocksPerMultiprocessor")))
        return s;
    } else if (!(s = check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, inertia_kernel, kThreads, 0),
                           "cudaOccupancyMaxActiveBlocksPerMultiprocessor"))) {
      return s;
    }
    smem_ = shared_ ? need : 0;
    slots_ = std::max(1, sms * std::max(per_sm, 1) / 2);  // two blocks (halves) a shift
    return check(cudaStreamSynchronize(st_), "toeplitz structured setup");
  }

  int slots() const { return slots_; }
  int64_t bytes() const { return form_bytes_ + batch_bytes_; }

  Status evaluate(const std::vector<double> &sigma, std::vector<ToeplitzInertia> &out) {
    const int64_t count = int64_t(sigma.size()), tasks = 2 * count;
    if (count == 0) return Status::success();
    WorkspacePlan plan;
    const size_t o_s = plan.add_array<double>(count), o_b = plan.add_array<int64_t>(tasks),
                 o_t = plan.add_array<int>(tasks);
    const int64_t stride = std::max<int64_t>(size_[0], 1);
    const size_t o_w = shared_ ? plan.add_array<double>(1) : plan.add_array<double>(4 * stride * tasks);
    Status s = batch_.allocate(plan);
    if (!s) return s;
    batch_bytes_ = std::max(batch_bytes_, int64_t(plan.bytes()));
    double *ds = batch_.at<double>(o_s);
    int64_t *db = batch_.at<int64_t>(o_b);
    int *dtr = batch_.at<int>(o_t);
    std::vector<int64_t> hb(tasks);
    std::vector<int> ht(tasks);
    if (!(s = check(cudaMemcpyAsync(ds, sigma.data(), count * sizeof(double), cudaMemcpyHostToDevice, st_),
                    "cudaMemcpyAsync")))
      return s;
    inertia_kernel<<<unsigned(tasks), kThreads, smem_, st_>>>(half_[0], half_[1], ds, db, dtr, shared_,
                                                               batch_.at<double>(o_w), stride);
    if (!(s = check_launch("inertia_kernel")) || !(s = check_download("toeplitz inertia")) ||
        !(s = check(cudaMemcpyAsync(hb.data(), db, tasks * sizeof(int64_t), cudaMemcpyDeviceToHost, st_),
                    "cudaMemcpyAsync")) ||
        !(s = check(cudaMemcpyAsync(ht.data(), dtr, tasks * sizeof(int), cudaMemcpyDeviceToHost, st_),
                    "cudaMemcpyAsync")) ||
        !(s = check(cudaStreamSynchronize(st_), "toeplitz inertia")))
      return s;
    for (int64_t i = 0; i < count; ++i)
      out[i] = {hb[2 * i] + hb[2 * i + 1], ht[2 * i] && ht[2 * i + 1]};
    return Status::success();
  }

 private:
  cudaStream_t st_;
  Workspace form_, batch_;
  int64_t n_ = 0, size_[2] = {0, 0};
  HalfBlock half_[2] = {};
  bool shared_ = false;
  size_t smem_ = 0;
  int slots_ = 1;
  int64_t form_bytes_ = 0, batch_bytes_ = 0;
};

}  // namespace

Status toeplitz_inertia(int64_t n, const double *t,
                        const std::function<Status(const InertiaBatch &, int)> &use, int64_t *bytes) {
  DeviceScope scope;
  Context *ctx = nullptr;
  Status s = enter(scope, ctx);
  if (!s) return s;
  Session session(ctx->stream());
  if (!(s = session.setup(n, t))) return s;
  const InertiaBatch batch = [&](const std::vector<double> &sigma, std::vector<ToeplitzInertia> &out) {
    return session.evaluate(sigma, out);
  };
  s = use(batch, session.slots());
  *bytes = session.bytes();
  return s;
}

}  // namespace gpueig::gpu
