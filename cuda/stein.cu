// gpu_stein's GPU half with host pointers (Device::stein): the method of src/stein_phases.hpp.
// The clusters are planned on the host, block by block. A block with a large cluster
// (stein_phases::by_divide_and_conquer, not first tried as independent vectors) takes all its
// vectors from its divide and conquer (cuda/stedc.cu), matched on the host by rank as stein_phases
// does (stein_phases::whole_block says why the whole block). In the other blocks a cluster of a few
// eigenvalues over a long block (stein_phases::independent_first) first has every vector as a
// warp's task of its own; their Gram matrices are then measured on the device, and a cluster that
// fails the test goes on as a small one (a Gram-Schmidt task) or, large, takes its whole block to
// the divide and conquer. Every small cluster is a warp's task (DSTEIN's inverse iteration,
// Gram-Schmidt inside the cluster), clusters side by side, a fixed number of warps each with its
// own factorization scratch. A Gram-Schmidt vector that did not converge takes its block to the
// divide and conquer before it is reported; where no run matches W, cluster by cluster as before.
#include <algorithm>
#include <vector>

#include "context.hpp"
#include "device_util.hpp"
#include "hardware.hpp"
#include "staging.hpp"
#include "stedc.hpp"
#include "stein.hpp"
#include "stein_phases.hpp"
#include "warp.cuh"
#include "workspace.hpp"

namespace gpueig::gpu {
namespace {

namespace ph = stein_phases;
constexpr int kThreads = 128;
constexpr int kWarpSlots = 1024;  // warps in flight, each with 4 n doubles + n bytes of scratch

struct Task {
  int64_t begin, len;
  int first, count;
  double onenrm;
};

// A warp per cluster (grid-stride over the clusters): each eigenvalue's vector into its column
// of z (rows begin .., zero elsewhere on entry), converged[j] set.
__global__ void __launch_bounds__(kThreads) clusters_kernel(const Task *tasks, int ntasks, const double *d,
                                                            const double *e, const double *w, double *z,
                                                            int64_t ldz, int64_t n, char *scratch,
                                                            int *converged) {
  const int slot = (blockIdx.x * blockDim.x + threadIdx.x) / 32, slots = gridDim.x * blockDim.x / 32;
  const WarpTeam team;
  double *base = reinterpret_cast<double *>(scratch) + int64_t(slot) * 4 * n;
  const ph::Lu f{base, base + n, base + 2 * n, base + 3 * n,
                 reinterpret_cast<unsigned char *>(scratch + size_t(slots) * 4 * n * sizeof(double)) + int64_t(slot) * n};
  for (int t = slot; t < ntasks; t += slots) {
    const Task c = tasks[t];
    double xjm = 0;
    for (int k = 0; k < c.count; ++k) {
      const int j = c.first + k;
      double *y = z + c.begin + int64_t(j) * ldz;
      if (c.len == 1) {
        if (team.lane() == 0) y[0] = 1, converged[j] = 1;
        continue;
      }
      double x = w[j];
      if (k > 0 && x - xjm < 10 * fabs(ph::kPrecision * x)) x = xjm + 10 * fabs(ph::kPrecision * x);
      const bool ok = ph::inverse_iteration(c.len, d + c.begin, e + c.begin, c.onenrm, x, uint64_t(j),
                                            z + c.begin + int64_t(c.first) * ldz, ldz, k, f, y, team);
      if (team.lane() == 0) converged[j] = ok ? 1 : 0;
      xjm = x;
    }
  }
}

// Columns of the block's eigenvectors (ld len) into z: z(begin.., first + k) = vecs(:, i0 + k).
__global__ void copy_columns_kernel(const double *vecs, int64_t len, int64_t i0, int count, double *z,
                                    int64_t ldz, int64_t begin, int first, int *converged) {
  const int64_t idx = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (idx >= len * count) return;
  const int64_t i = idx % len, k = idx / len;
  z[begin + i + (first + k) * ldz] = vecs[i + (i0 + k) * len];
  if (i == 0) converged[first + k] = 1;
}

// One vector of a cluster whose vectors were computed independently: column first + k of the
// cluster's count, over rows begin .. begin + len - 1.
struct GramTask {
  int64_t begin, len;
  int first, count, k;
};

// gram[first + k] = sum over i of |z_i^T z_k - delta_ik| within the vector's cluster (a block per
// vector, a warp per dot product).
constexpr int kGramThreads = 256;
__global__ void __launch_bounds__(kGramThreads) gram_kernel(const GramTask *tasks, const double *z, int64_t ldz,
                                                            double *gram) {
  __shared__ double part[kGramThreads / 32];
  const GramTask t = tasks[blockIdx.x];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const double *zk = z + t.begin + int64_t(t.first + t.k) * ldz;
  double mine = 0;
  for (int i = warp; i < t.count; i += kGramThreads / 32) {
    const double *zi = z + t.begin + int64_t(t.first + i) * ldz;
    double dot = 0;
    for (int64_t r = lane; r < t.len; r += 32) dot += zi[r] * zk[r];
    for (int o = 16; o > 0; o >>= 1) dot += __shfl_xor_sync(0xffffffffu, dot, o);
    mine += fabs(dot - (i == t.k ? 1.0 : 0.0));
  }
  if (lane == 0) part[warp] = mine;
  __syncthreads();
  if (threadIdx.x == 0) {
    double sum = 0;
    for (int w = 0; w < kGramThreads / 32; ++w) sum += part[w];
    gram[t.first + t.k] = sum;
  }
}

// IFAIL and INFO from the flags, as DSTEIN writes them: IFAIL(1..INFO) the 1-based indices of the
// vectors that did not converge, in order, zero after. One block: each thread counts a contiguous
// run of flags, a scan of the counts places its indices.
constexpr int kFailThreads = 1024;
__global__ void __launch_bounds__(kFailThreads) failures_kernel(const int *conv, int m, int *ifail, int *info) {
  __shared__ int before[kFailThreads];
  const int t = threadIdx.x;
  const int64_t run = (int64_t(m) + kFailThreads - 1) / kFailThreads;
  const int64_t lo = std::min<int64_t>(m, t * run), hi = std::min<int64_t>(m, lo + run);
  int count = 0;
  for (int64_t j = lo; j < hi; ++j) count += conv[j] == 0;
  before[t] = count;
  __syncthreads();
  for (int off = 1; off < kFailThreads; off <<= 1) {  // inclusive scan (Hillis-Steele)
    const int v = t >= off ? before[t - off] : 0;
    __syncthreads();
    before[t] += v;
    __syncthreads();
  }
  const int total = before[kFailThreads - 1];
  int at = before[t] - count;
  for (int64_t j = lo; j < hi; ++j)
    if (conv[j] == 0) ifail[at++] = int(j + 1);
  for (int64_t j = total + t; j < m; j += kFailThreads) ifail[j] = 0;
  if (t == 0) *info = total;
}

unsigned blocks_for(int64_t count, int threads) {
  return static_cast<unsigned>(std::max<int64_t>(1, (count + threads - 1) / threads));
}

}  // namespace

namespace {

// Queues the warps' inverse iteration for `tasks` (uploaded into dtasks, room for all).
Status run_tasks(Context &ctx, cudaStream_t st, const std::vector<Task> &tasks, Task *dtasks, const double *dd,
                 const double *de, const double *dw, double *dz, int64_t ldz, int64_t n, char *scratch, int *conv) {
  if (tasks.empty()) return Status::success();
  const size_t bytes = tasks.size() * sizeof(Task);
  Status s = upload(ctx, dtasks, bytes, tasks.data(), bytes, bytes, 1, st);
  if (!s) return s;
  const int64_t warps = std::min<int64_t>(kWarpSlots, int64_t(tasks.size()));
  clusters_kernel<<<blocks_for(warps * 32, kThreads), kThreads, 0, st>>>(dtasks, int(tasks.size()), dd, de, dw, dz,
                                                                         ldz, n, scratch, conv);
  return check_launch("stein clusters_kernel");
}

}  // namespace

Status stein_device(Context &ctx, CallerStream *caller, int n, const double *d, const double *e,
                    const double *dd, const double *de, int m, const double *w, const double *dw,
                    const int *iblock, const int *isplit, double *dz, int64_t ldz, int *conv) {
  cudaStream_t st = caller ? caller->stream() : ctx.stream();
  const std::vector<ph::Cluster> cl = ph::clusters(d, e, m, w, iblock, isplit);
  // 1. The plan, block by block as stein_phases::solve: a block with a large cluster (not first
  // tried as independent vectors) wholly from its divide and conquer; in the others independent
  // vectors (a task each) and Gram-Schmidt tasks.
  struct Block {
    ph::Cluster all;      // stein_phases::whole_block
    size_t c0, c1;        // its clusters cl[c0 .. c1)
    bool large, from_dc;  // from_dc: its vectors came from the divide and conquer
  };
  std::vector<Block> blocks;
  for (size_t b0 = 0, b1; b0 < cl.size(); b0 = b1) {
    for (b1 = b0 + 1; b1 < cl.size() && cl[b1].begin == cl[b0].begin;) ++b1;
    const bool large = std::any_of(&cl[b0], &cl[0] + b1, [](const ph::Cluster &c) {
      return ph::by_divide_and_conquer(c) && !ph::independent_first(c);
    });
    blocks.push_back({ph::whole_block(&cl[b0], &cl[0] + b1), b0, b1, large, false});
  }
  std::vector<Task> tasks;
  std::vector<GramTask> gram_tasks;
  std::vector<const ph::Cluster *> independent;
  std::vector<size_t> to_dc;  // blocks, in order
  bool gram_schmidt = false;  // a Gram-Schmidt task queued (its convergence checked in step 6)
  for (size_t bi = 0; bi < blocks.size(); ++bi) {
    const Block &b = blocks[bi];
    if (b.large) {
      to_dc.push_back(bi);
      continue;
    }
    for (size_t i = b.c0; i < b.c1; ++i) {
      const ph::Cluster &c = cl[i];
      if (ph::independent_first(c)) {
        independent.push_back(&c);
        for (int k = 0; k < c.count; ++k) {
          tasks.push_back({c.begin, c.len, c.first + k, 1, c.onenrm});
          gram_tasks.push_back({c.begin, c.len, c.first, c.count, k});
        }
      } else {
        tasks.push_back({c.begin, c.len, c.first, c.count, c.onenrm});
        gram_schmidt = gram_schmidt || c.len > 1;
      }
    }
  }
  Status s;
  const int64_t nn = n;
  WorkspacePlan plan;
  const size_t o_tasks = plan.add_array<Task>(std::max<size_t>(cl.size(), tasks.size()));
  const size_t o_gram_tasks = plan.add_array<GramTask>(std::max<size_t>(1, gram_tasks.size()));
  const size_t o_gram = plan.add_array<double>(m);
  // Scratch for the warps the larger of the two task launches has (whole thread blocks of them).
  const int64_t warps = (std::min<int64_t>(kWarpSlots, int64_t(std::max(cl.size(), tasks.size()))) + kThreads / 32 - 1) /
                        (kThreads / 32) * (kThreads / 32);
  const size_t o_scratch = plan.add(size_t(warps) * nn * (4 * sizeof(double) + 1));
  Workspace buf(st);
  if (!(s = buf.allocate(plan))) return s;
  Task *dtasks = buf.at<Task>(o_tasks);
  char *scratch = buf.at<char>(o_scratch);
  constexpr size_t kD = sizeof(double);
  // (the columns of z zero outside their block)
  if (!(s = check(cudaMemset2DAsync(dz, ldz * kD, 0, nn * kD, m, st), "cudaMemset2DAsync")) ||
      !(s = check(cudaMemsetAsync(conv, 0, m * sizeof(int), st), "cudaMemsetAsync")))
    return s;

  // 2. The independent vectors and the Gram-Schmidt clusters, side by side.
  if (!(s = run_tasks(ctx, st, tasks, dtasks, dd, de, dw, dz, ldz, nn, scratch, conv))) return s;
  tasks.clear();

  // 3. Each independent cluster kept if its vectors converged and are orthogonal
  // (stein_phases::independent_limit), else recomputed: a large one with its whole block from the
  // divide and conquer, a small one as the other clusters are.
  std::vector<int> ok(m);
  std::vector<char> redo(cl.size());  // rejected independent clusters that are large
  if (!independent.empty()) {
    const size_t bytes = gram_tasks.size() * sizeof(GramTask);
    GramTask *dgram_tasks = buf.at<GramTask>(o_gram_tasks);
    double *dgram = buf.at<double>(o_gram);
    if (!(s = upload(ctx, dgram_tasks, bytes, gram_tasks.data(), bytes, bytes, 1, st))) return s;
    gram_kernel<<<unsigned(gram_tasks.size()), kGramThreads, 0, st>>>(dgram_tasks, dz, ldz, dgram);
    if (!(s = check_launch("stein gram_kernel"))) return s;
    std::vector<double> gram(m);
    if (!(s = download(ctx, gram.data(), m * kD, dgram, m * kD, m * kD, 1, st)) ||
        !(s = download(ctx, ok.data(), m * sizeof(int), conv, m * sizeof(int), m * sizeof(int), 1, st)))
      return s;
    size_t bi = 0;
    for (const ph::Cluster *c : independent) {
      bool kept = true;
      for (int k = 0; k < c->count; ++k)
        kept = kept && ok[c->first + k] && gram[c->first + k] <= ph::independent_limit(c->len);
      if (kept) continue;
      while (blocks[bi].all.begin != c->begin) ++bi;  // (independent is in block order)
      if (!ph::by_divide_and_conquer(*c)) {
        tasks.push_back({c->begin, c->len, c->first, c->count, c->onenrm});
        gram_schmidt = true;
        continue;
      }
      redo[size_t(c - cl.data())] = 1;
      if (to_dc.empty() || to_dc.back() != bi) to_dc.push_back(bi);
    }
  }

  // 4. Blocks from their divide and conquer (each block's once, however many of its clusters
  // need it), the block's wanted eigenvalues matched as one run; where no run is close enough,
  // cluster by cluster (a large one matched on its own or else by Gram-Schmidt).
  std::vector<double> vals;
  int64_t cached = -1;
  // The divide and conquer's workspace and cuBLAS handle only once a block needs them (room for
  // the block's len^2 vectors: 512 MB at 8192).
  cublasHandle_t blas = nullptr;
  Workspace dcbuf(st);
  int64_t dc_room = 0;
  size_t o_vals = 0, o_vecs = 0, o_dc = 0;
  // The vectors of c from its block's divide and conquer, when its eigenvalues match a run.
  auto from_dc = [&](const ph::Cluster &c, bool &matched) -> Status {
    matched = false;
    Status r;
    if (!blas && !(r = caller ? caller->blas(&blas) : ctx.blas(&blas))) return r;
    if (dc_room < c.len) {
      WorkspacePlan dplan;
      o_vals = dplan.add_array<double>(c.len);
      o_vecs = dplan.add_array<double>(size_t(c.len) * c.len);
      o_dc = dplan.add(stedc_device_bytes(c.len));
      cached = -1;
      if (!(r = dcbuf.allocate(dplan))) return r;
      dc_room = c.len;
    }
    double *dv = dcbuf.at<double>(o_vals), *dvecs = dcbuf.at<double>(o_vecs);
    if (cached != c.begin) {
      int dinfo = 0;
      cached = -1;
      if (!(r = check(cudaMemcpyAsync(dv, dd + c.begin, c.len * kD, cudaMemcpyDeviceToDevice, st), "cudaMemcpyAsync")) ||
          !(r = stedc_device(blas, st, c.len, dv, de + c.begin, dvecs, c.len, dcbuf.at<char>(o_dc), &dinfo)))
        return r;
      vals.resize(c.len);
      if (dinfo == 0 && (r = download(ctx, vals.data(), c.len * kD, dv, c.len * kD, c.len * kD, 1, st)))
        cached = c.begin;
      if (!r) return r;
    }
    const int64_t i0 = cached == c.begin ? ph::match_run(vals, w + c.first, c) : -1;
    if (i0 < 0) return Status::success();
    copy_columns_kernel<<<blocks_for(c.len * c.count, 256), 256, 0, st>>>(dvecs, c.len, i0, c.count, dz, ldz,
                                                                        c.begin, c.first, conv);
    matched = true;
    return check_launch("stein copy_columns_kernel");
  };
  for (size_t bi : to_dc) {
    Block &b = blocks[bi];
    bool matched = false;
    if (!(s = from_dc(b.all, matched))) return s;
    if ((b.from_dc = matched)) continue;
    for (size_t i = b.c0; i < b.c1; ++i) {
      const ph::Cluster &c = cl[i];
      if (!b.large && !redo[i]) continue;  // (step 2 or 3 settled it)
      if (ph::by_divide_and_conquer(c)) {
        if (!(s = from_dc(c, matched))) return s;
        if (matched) continue;
      }
      tasks.push_back({c.begin, c.len, c.first, c.count, c.onenrm});
      gram_schmidt = gram_schmidt || c.len > 1;
    }
  }
  // 5. The clusters recomputed by Gram-Schmidt.
  if (!(s = run_tasks(ctx, st, tasks, dtasks, dd, de, dw, dz, ldz, nn, scratch, conv))) return s;

  // 6. A Gram-Schmidt vector that did not converge (where DSTEIN stops with IFAIL): its whole
  // block again, from the divide and conquer (a wait on the stream, only where a Gram-Schmidt
  // cluster ran); IFAIL (conv 0) only where no run matches.
  if (!gram_schmidt) return Status::success();
  if (!(s = download(ctx, ok.data(), m * sizeof(int), conv, m * sizeof(int), m * sizeof(int), 1, st))) return s;
  for (const Block &b : blocks) {
    if (b.from_dc || b.all.len == 1) continue;
    bool failed = false;
    for (int k = 0; k < b.all.count && !failed; ++k) failed = !ok[b.all.first + k];
    bool matched = false;
    if (failed && !(s = from_dc(b.all, matched))) return s;
  }
  return Status::success();
}

Status stein(int n, const double *d, const double *e, int m, const double *w, const int *iblock,
             const int *isplit, double *z, int ldz, int *ifail, int *info) {
  DeviceScope scope;
  Context *ctx = nullptr;
  Status s = enter(scope, ctx);
  if (!s) return s;
  cudaStream_t st = ctx->stream();
  const int64_t nn = n;
  WorkspacePlan plan;
  const size_t o_d = plan.add_array<double>(nn), o_e = plan.add_array<double>(nn), o_w = plan.add_array<double>(m);
  const size_t o_z = plan.add_array<double>(size_t(nn) * m), o_conv = plan.add_array<int>(m);
  Workspace buf(st);
  if (!(s = buf.allocate(plan))) return s;
  double *dd = buf.at<double>(o_d), *de = buf.at<double>(o_e), *dw = buf.at<double>(o_w), *dz = buf.at<double>(o_z);
  int *conv = buf.at<int>(o_conv);
  constexpr size_t kD = sizeof(double);
  if (!(s = upload(*ctx, dd, nn * kD, d, nn * kD, nn * kD, 1)) ||
      (n > 1 && !(s = upload(*ctx, de, nn * kD, e, nn * kD, (nn - 1) * kD, 1))) ||
      !(s = upload(*ctx, dw, m * kD, w, m * kD, m * kD, 1)) ||
      !(s = stein_device(*ctx, nullptr, n, d, e, dd, de, m, w, dw, iblock, isplit, dz, nn, conv)))
    return s;
  std::vector<int> ok(m);
  if (!(s = download(*ctx, ok.data(), m * sizeof(int), conv, m * sizeof(int), m * sizeof(int), 1))) return s;
  if (!(s = download(*ctx, z, size_t(ldz) * kD, dz, nn * kD, nn * kD, m))) return s;
  int failed = 0;
  std::fill_n(ifail, m, 0);
  for (int j = 0; j < m; ++j)
    if (!ok[j]) ifail[failed++] = j + 1;
  *info = failed;
  return Status::success();
}

// The device twin: T and W (checked and scaled on the host) up into workspace, the vectors straight
// into the caller's Z, IFAIL and INFO made on the device; all on the caller's stream.
Status stein_dev(int n, const double *d, const double *e, int m, const double *w, const int *iblock,
                 const int *isplit, double *z, int64_t ldz, int *ifail, int *info, void *stream) {
  CallerStream call(stream);
  Status s = call.enter();
  if (!s) return s;
  cudaStream_t st = call.stream();
  const int64_t nn = n;
  WorkspacePlan plan;
  const size_t o_d = plan.add_array<double>(nn), o_e = plan.add_array<double>(nn), o_w = plan.add_array<double>(m);
  const size_t o_conv = plan.add_array<int>(m);
  Workspace buf(st);
  if (!(s = buf.allocate(plan))) return s;
  double *dd = buf.at<double>(o_d), *de = buf.at<double>(o_e), *dw = buf.at<double>(o_w);
  int *conv = buf.at<int>(o_conv);
  constexpr size_t kD = sizeof(double);
  if (!(s = upload_packed(call, {{dd, d, nn * kD}, {de, e, (nn - 1) * kD}, {dw, w, m * kD}})) ||
      !(s = stein_device(call.context(), &call, n, d, e, dd, de, m, w, dw, iblock, isplit, z, ldz, conv)))
    return s;
  failures_kernel<<<1, kFailThreads, 0, st>>>(conv, m, ifail, info);
  return check_launch("stein failures_kernel");
}

}  // namespace gpueig::gpu
