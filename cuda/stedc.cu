// Divide and conquer on the device (cuda/stedc.hpp): the phases of src/stedc_phases.hpp in the
// order of its host run (stedc_phases::solve), each phase one kernel over every merge of a level
// of the tree (grid.y or grid.z = the merge), a warp per leaf, per secular root, per Loewner
// entry and per rank-one vector, a thread per merge for the deflation's decisions and a thread
// per row for its rotations. The level's products are cuBLAS DGEMMs, one per merge, sized by the
// deflation (read back once per level).
//
// Device memory: the working copies of d and e, per-row vectors (z, poles, weights, roots, ...),
// per-merge scalars, and three n x n arrays: the differences d_j - lambda_i of every merge
// (merge at rows b.. holds its k x k block at columns b..b+k-1, leading dimension n), the kept
// eigenvector columns gathered, and the products (both laid out the same way).
#include "stedc.hpp"

#include <algorithm>
#include <climits>
#include <utility>
#include <vector>

#include "context.hpp"
#include "cublas_loader.hpp"
#include "stedc_phases.hpp"
#include "warp.cuh"
#include "workspace_plan.hpp"

namespace gpueig::gpu {
namespace {

namespace ph = stedc_phases;
constexpr unsigned kFull = 0xffffffffu;
constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;


struct Layout {
  size_t d, e, scale, zz, dlam, w, zhat, lam, vals, rho, rot_cs, delta, g, out;
  size_t first, order, sorted, perm, rot_cols, k, nrot, status, bytes;
};

Layout layout(int64_t n) {
  const int64_t leaves = static_cast<int64_t>(ph::leaf_starts(n).size()) - 1;
  const size_t nn = size_t(n) * size_t(n);
  WorkspacePlan p;
  Layout l{};
  l.d = p.add_array<double>(n);
  l.e = p.add_array<double>(n);
  l.scale = p.add_array<double>(1);
  for (size_t *v : {&l.zz, &l.dlam, &l.w, &l.zhat, &l.lam, &l.vals}) *v = p.add_array<double>(n);
  l.rho = p.add_array<double>(leaves);
  l.rot_cs = p.add_array<double>(2 * n);
  for (size_t *v : {&l.delta, &l.g, &l.out}) *v = p.add_array<double>(nn);
  l.first = p.add_array<int64_t>(leaves + 1);
  for (size_t *v : {&l.order, &l.sorted, &l.perm}) *v = p.add_array<int>(n);
  l.rot_cols = p.add_array<int>(2 * n);
  l.k = p.add_array<int>(leaves);
  l.nrot = p.add_array<int>(leaves);
  l.status = p.add_array<int>(2);
  l.bytes = p.bytes();
  return l;
}

// The device's view of one call.
struct Tree {
  int64_t n;
  double *d, *e, *scale;  // working copies, scaled; the scale
  double *z;
  int64_t ldz;
  double *zz, *dlam, *w, *zhat, *lam, *vals, *rho, *rot_cs, *delta, *g, *out;
  const int64_t *first;
  int leaves;
  int *order, *sorted, *perm, *rot_cols, *k, *nrot;
  int *status;  // [0]: DSTEDC's INFO of a failed leaf (INT_MAX: none), [1]: a secular root not found
};

// Merge m of the level whose pieces are `width` leaves wide: rows b .. b+n-1, the first n1 from
// the left piece.
struct Merge {
  int64_t b, n1, n;
};
__device__ inline Merge merge_of(const Tree &t, int width, int m) {
  const int p = 2 * width * m;
  const int64_t b = t.first[p];
  return {b, t.first[p + width] - b, t.first[p + 2 * width] - b};
}

// One block: the working copies of d and e, scaled to max |T| = 1 with negligible couplings
// zeroed (stedc_phases::scale_and_split, max by a block reduction), T torn at every cut of the
// tree, status reset.
__global__ void __launch_bounds__(1024) prepare_kernel(Tree t, const double *d, const double *e) {
  __shared__ double part[32];
  double m = 0;
  for (int64_t i = threadIdx.x; i < 2 * t.n - 1; i += blockDim.x)
    m = fmax(m, fabs(i < t.n ? d[i] : e[i - t.n]));
  for (int o = 16; o > 0; o >>= 1) m = fmax(m, __shfl_down_sync(kFull, m, o));
  if (threadIdx.x % 32 == 0) part[threadIdx.x / 32] = m;
  __syncthreads();
  if (threadIdx.x < 32) {
    m = threadIdx.x < blockDim.x / 32 ? part[threadIdx.x] : 0.0;
    for (int o = 16; o > 0; o >>= 1) m = fmax(m, __shfl_down_sync(kFull, m, o));
    if (threadIdx.x == 0) part[0] = m;
  }
  __syncthreads();
  const double anorm = part[0] > 0 ? part[0] : 1.0;  // T = 0: the tree gives Z = I, d = 0
  for (int64_t i = threadIdx.x; i < t.n; i += blockDim.x) t.d[i] = d[i] / anorm;
  for (int64_t i = threadIdx.x; i + 1 < t.n; i += blockDim.x) t.e[i] = e[i] / anorm;
  __syncthreads();
  for (int64_t i = threadIdx.x; i + 1 < t.n; i += blockDim.x)
    t.e[i] = ph::split_coupling(t.d[i], t.d[i + 1], t.e[i]);
  __syncthreads();
  for (int p = 1 + threadIdx.x; p < t.leaves; p += blockDim.x) {  // cuts are >= kLeaf / 2 rows apart
    const int64_t r = t.first[p];
    const double c = fabs(t.e[r - 1]);
    t.d[r - 1] -= c;
    t.d[r] -= c;
  }
  if (threadIdx.x == 0) {
    *t.scale = anorm;
    t.status[0] = INT_MAX;
    t.status[1] = 0;
  }
}

// A warp per leaf: its block of z set to the identity and its eigenpairs by leaf_ql, every lane
// on a private copy of the leaf's d and e, the rows of z shared.
__global__ void __launch_bounds__(kThreads) leaf_kernel(Tree t) {
  const int leaf = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
  if (leaf >= t.leaves) return;  // (the whole warp)
  const int64_t b = t.first[leaf];
  const int m = static_cast<int>(t.first[leaf + 1] - b);
  double d[ph::kLeaf], e[ph::kLeaf];
  for (int i = 0; i < m; ++i) {
    d[i] = t.d[b + i];
    e[i] = i + 1 < m ? t.e[b + i] : 0.0;
  }
  double *q = t.z + b + b * t.ldz;
  for (int r = lane; r < m; r += 32) q[r + r * t.ldz] = 1;
  __syncwarp();
  const int bad = ph::leaf_ql(m, d, e, q, t.ldz, WarpTeam{});
  if (lane != 0) return;
  if (bad)
    atomicMin(&t.status[0], static_cast<int>((b + 1) * (t.n + 1) + b + m));  // DSTEDC's INFO
  else
    for (int i = 0; i < m; ++i) t.d[b + i] = d[i];
}

// merge_z: z = [last row of Q1, sign(e) first row of Q2] / sqrt(2), rho = 2 |e| (x: rows).
__global__ void merge_z_kernel(Tree t, int width) {
  const Merge g = merge_of(t, width, blockIdx.y);
  const int64_t j = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  const double coupling = t.e[g.b + g.n1 - 1], r2 = 0.70710678118654752440;
  if (j < g.n) {
    const double *q = t.z + g.b + g.b * t.ldz;
    t.zz[g.b + j] = j < g.n1 ? r2 * q[(g.n1 - 1) + j * t.ldz]
                             : (coupling < 0 ? -r2 : r2) * q[g.n1 + j * t.ldz];
  }
  if (j == 0) t.rho[blockIdx.y] = 2 * fabs(coupling);
}

// deflate's decisions, a thread per merge.
__global__ void deflate_kernel(Tree t, int width, int merges) {
  const int m = blockIdx.x * blockDim.x + threadIdx.x;
  if (m >= merges) return;
  const Merge g = merge_of(t, width, m);
  const int64_t b = g.b;
  t.k[m] = ph::deflate(static_cast<int>(g.n1), static_cast<int>(g.n), t.d + b, t.zz + b, t.rho[m],
                       t.order + b, t.sorted + b, t.dlam + b, t.w + b, t.rot_cols + 2 * b,
                       t.rot_cs + 2 * b, &t.nrot[m]);
}

// The deflation's rotations, a thread per row of the merge's columns.
__global__ void rotate_kernel(Tree t, int width) {
  const Merge g = merge_of(t, width, blockIdx.y);
  const int64_t r = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (r >= g.n) return;
  ph::rotate_row(t.nrot[blockIdx.y], t.rot_cols + 2 * g.b, t.rot_cs + 2 * g.b,
                 t.z + (g.b + r) + g.b * t.ldz, t.ldz);
}

// The index of this warp's task in the merge (x: warps), or -1 past the merge's k.
__device__ inline int warp_task(const Tree &t) {
  const int i = static_cast<int>((blockIdx.x * int64_t(blockDim.x) + threadIdx.x) / 32);
  return i < t.k[blockIdx.y] ? i : -1;
}

__global__ void __launch_bounds__(kThreads) secular_kernel(Tree t, int width) {
  const int i = warp_task(t);
  if (i < 0) return;
  const Merge g = merge_of(t, width, blockIdx.y);
  const double lam = ph::secular_root(t.k[blockIdx.y], t.dlam + g.b, t.w + g.b, t.rho[blockIdx.y], i,
                                      t.delta + (g.b + i) * t.n, 1, WarpTeam{});
  if (threadIdx.x % 32 == 0) {
    t.lam[g.b + i] = lam;
    if (isnan(lam)) t.status[1] = 1;
  }
}

__global__ void __launch_bounds__(kThreads) loewner_kernel(Tree t, int width) {
  const int i = warp_task(t);
  if (i < 0) return;
  const Merge g = merge_of(t, width, blockIdx.y);
  const double zi = ph::loewner_z(t.k[blockIdx.y], t.dlam + g.b, t.delta + g.b * t.n, t.n, i,
                                  t.w[g.b + i], WarpTeam{});
  if (threadIdx.x % 32 == 0) t.zhat[g.b + i] = zi;
}

__global__ void __launch_bounds__(kThreads) rank1_kernel(Tree t, int width) {
  const int l = warp_task(t);
  if (l < 0) return;
  const Merge g = merge_of(t, width, blockIdx.y);
  ph::rank1_vector(t.k[blockIdx.y], t.zhat + g.b, t.delta + (g.b + l) * t.n, WarpTeam{});
}

// The merge's columns in the deflation's order: the k kept ones into g (the product's left
// factor), the deflated ones straight into out (x: rows, y: columns, z: merges).
__global__ void gather_kernel(Tree t, int width) {
  const Merge g = merge_of(t, width, blockIdx.z);
  const int64_t r = blockIdx.x * int64_t(blockDim.x) + threadIdx.x, c = blockIdx.y;
  if (r >= g.n || c >= g.n) return;
  const double *src = t.z + g.b + (g.b + t.order[g.b + c]) * t.ldz;
  double *dst = (c < t.k[blockIdx.z] ? t.g : t.out) + (g.b + c) * t.n;
  dst[r] = src[r];
}

// The merged eigenvalues in ascending order (the roots and the deflated poles, each ascending,
// merged) and the permutation that takes out's columns there; a thread per merge.
__global__ void order_kernel(Tree t, int width, int merges) {
  const int m = blockIdx.x * blockDim.x + threadIdx.x;
  if (m >= merges) return;
  const Merge g = merge_of(t, width, m);
  const int64_t b = g.b, k = t.k[m];
  for (int64_t i = 0; i < g.n; ++i) t.vals[b + i] = i < k ? t.lam[b + i] : t.d[b + t.order[b + i]];
  int64_t x = 0, y = k;
  for (int64_t s = 0; s < g.n; ++s)
    t.perm[b + s] = static_cast<int>((y >= g.n || (x < k && t.vals[b + x] <= t.vals[b + y])) ? x++ : y++);
  for (int64_t s = 0; s < g.n; ++s) t.d[b + s] = t.vals[b + t.perm[b + s]];
}

// z's block := out's columns in ascending order of their eigenvalues (x: rows, y: columns, z: merges).
__global__ void scatter_kernel(Tree t, int width) {
  const Merge g = merge_of(t, width, blockIdx.z);
  const int64_t r = blockIdx.x * int64_t(blockDim.x) + threadIdx.x, c = blockIdx.y;
  if (r >= g.n || c >= g.n) return;
  t.z[(g.b + r) + (g.b + c) * t.ldz] = t.out[r + (g.b + t.perm[g.b + c]) * t.n];
}

__global__ void unscale_kernel(Tree t, double *d) {
  const int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (i < t.n) d[i] = t.d[i] * *t.scale;
}

// bytes from the device, the stream synchronized (the host needs them now).
Status fetch(cudaStream_t st, void *dst, const void *src, size_t bytes) {
  Status s = check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, st), "cudaMemcpyAsync");
  return s ? check(cudaStreamSynchronize(st), "cudaStreamSynchronize") : s;
}

unsigned blocks_for(int64_t count, int threads) {
  return static_cast<unsigned>(std::max<int64_t>(1, (count + threads - 1) / threads));
}

}  // namespace

size_t stedc_device_bytes(int64_t n) { return layout(std::max<int64_t>(1, n)).bytes; }

Status stedc_device(cublasHandle_t blas, cudaStream_t st, int64_t n, double *d, const double *e,
                    double *z, int64_t ldz, void *work, int *info) {
  *info = 0;
  if (n <= 0) return Status::success();
  // A merge's columns are a grid dimension (gather_kernel, scatter_kernel); n^2 doubles are
  // three times 32 GiB there anyway.
  if (n > 65535) return Status::fail(Status::unavailable, "stedc: n > 65535");
  const std::vector<int64_t> first = ph::leaf_starts(n);
  const Layout l = layout(n);
  Tree t{};
  t.n = n;
  t.z = z;
  t.ldz = ldz;
  for (auto [to, at] : {std::pair{&t.d, l.d}, {&t.e, l.e}, {&t.scale, l.scale}, {&t.zz, l.zz},
                        {&t.dlam, l.dlam}, {&t.w, l.w}, {&t.zhat, l.zhat}, {&t.lam, l.lam},
                        {&t.vals, l.vals}, {&t.rho, l.rho}, {&t.rot_cs, l.rot_cs},
                        {&t.delta, l.delta}, {&t.g, l.g}, {&t.out, l.out}})
    *to = part<double>(work, at);
  for (auto [to, at] : {std::pair{&t.order, l.order}, {&t.sorted, l.sorted}, {&t.perm, l.perm},
                        {&t.rot_cols, l.rot_cols}, {&t.k, l.k}, {&t.nrot, l.nrot},
                        {&t.status, l.status}})
    *to = part<int>(work, at);
  int64_t *first_dev = part<int64_t>(work, l.first);
  t.first = first_dev;
  t.leaves = static_cast<int>(first.size()) - 1;

  Status s = check(cudaMemcpyAsync(first_dev, first.data(), first.size() * sizeof(int64_t),
                                   cudaMemcpyHostToDevice, st),
                   "cudaMemcpyAsync");
  if (s) s = check(cudaMemset2DAsync(z, ldz * sizeof(double), 0, n * sizeof(double), n, st), "cudaMemset2DAsync");
  if (!s) return s;
  prepare_kernel<<<1, 1024, 0, st>>>(t, d, e);
  if (!(s = check_launch("stedc prepare_kernel"))) return s;
  leaf_kernel<<<blocks_for(int64_t(t.leaves) * 32, kThreads), kThreads, 0, st>>>(t);
  if (!(s = check_launch("stedc leaf_kernel"))) return s;

  const CublasApi *api = cublas_api(nullptr);
  if (!api) return Status::fail(Status::unavailable, "cuBLAS not loaded");
  if (!(s = check(api->set_stream(blas, st), "cublasSetStream"))) return s;
  std::vector<int> k;
  for (int width = 1; width < t.leaves; width *= 2) {
    const int merges = t.leaves / (2 * width);
    int64_t widest = 0;
    for (int m = 0; m < merges; ++m)
      widest = std::max(widest, first[2 * width * (m + 1)] - first[2 * width * m]);
    const dim3 rows(blocks_for(widest, kThreads), merges), warps(blocks_for(widest, kWarps), merges);
    const dim3 cells(blocks_for(widest, kThreads), static_cast<unsigned>(widest), merges);
    merge_z_kernel<<<rows, kThreads, 0, st>>>(t, width);
    deflate_kernel<<<blocks_for(merges, 64), 64, 0, st>>>(t, width, merges);
    rotate_kernel<<<rows, kThreads, 0, st>>>(t, width);
    secular_kernel<<<warps, kThreads, 0, st>>>(t, width);
    loewner_kernel<<<warps, kThreads, 0, st>>>(t, width);
    rank1_kernel<<<warps, kThreads, 0, st>>>(t, width);
    gather_kernel<<<cells, kThreads, 0, st>>>(t, width);
    if (!(s = check_launch("stedc merge kernels"))) return s;
    // The products' sizes: the deflation's k of every merge.
    k.resize(merges);
    if (!(s = fetch(st, k.data(), t.k, merges * sizeof(int)))) return s;
    const double one = 1, zero = 0;
    for (int m = 0; m < merges; ++m) {
      if (k[m] == 0) continue;
      const int64_t b = first[2 * width * m], nm = first[2 * width * (m + 1)] - b;
      if (!(s = check(api->dgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, int(nm), k[m], k[m], &one, t.g + b * n, int(n),
                                 t.delta + b * n, int(n), &zero, t.out + b * n, int(n)),
                      "cublasDgemm")))
        return s;
    }
    order_kernel<<<blocks_for(merges, 64), 64, 0, st>>>(t, width, merges);
    scatter_kernel<<<cells, kThreads, 0, st>>>(t, width);
    if (!(s = check_launch("stedc merge kernels"))) return s;
  }
  unscale_kernel<<<blocks_for(n, kThreads), kThreads, 0, st>>>(t, d);
  if (!(s = check_launch("stedc unscale_kernel"))) return s;
  int status[2] = {0, 0};
  if (!(s = fetch(st, status, t.status, sizeof(status)))) return s;
  if (status[1]) return Status::fail(Status::device_error, "stedc: a secular root was not found");
  if (status[0] != INT_MAX) *info = status[0];
  return Status::success();
}

}  // namespace gpueig::gpu
