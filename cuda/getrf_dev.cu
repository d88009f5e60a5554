// gpu_getrf_dev, gpu_getrs_dev and gpu_gesv_dev: the LU routines on the caller's device arrays,
// queued on the caller's stream (include/gpueig.h, device-pointer API). The factorization is
// getrf_device and the solve getrs_device (cuda/getrf.cu), the methods of the host-pointer calls
// without their transfers. Nothing here waits for the stream: the conditions DGETRS and DGESV
// decide on (an IPIV entry out of range, a singular U) are read on the device, where the last
// kernel of the call writes X into B only if INFO is 0.
#include <algorithm>

#include "context.hpp"
#include "getrf.hpp"
#include "hardware.hpp"
#include "workspace.hpp"

namespace gpueig::gpu {
namespace {

constexpr int kOrderThreads = 1024;
// The row order is built in shared memory up to this many rows (192 KiB; less where the device's
// opt-in limit is lower: order_shared_limit), in global memory beyond.
constexpr int64_t kOrderSharedRows = 49152;

// The row order of the interchanges ipiv (1-based, n entries) applied in sequence, as DLASWP
// applies them: row i of P^T A is row order[i] of A. Every entry is checked first: one outside
// 1..n gives *info = -6 and the identity order (so that what follows reads in bounds). The
// interchanges themselves are a chain (each one moves what the ones before moved), done by one
// thread on an order in shared memory (`shared` ints, 0: in `order` itself); the IPIV entries
// are loaded eight at a time ahead of the swaps that use them.
__global__ void order_from_pivots(const int *ipiv, int64_t n, int *order, int *info, int64_t shared) {
  extern __shared__ int s_order[];
  __shared__ int bad;
  int *ord = shared ? s_order : order;
  if (threadIdx.x == 0) bad = 0;
  __syncthreads();
  for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
    ord[i] = int(i);
    const int p = ipiv[i];
    if (p < 1 || p > n) atomicOr(&bad, 1);
  }
  __syncthreads();
  if (threadIdx.x == 0 && !bad) {
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
      int p[8];
#pragma unroll
      for (int k = 0; k < 8; ++k) p[k] = ipiv[i + k] - 1;
#pragma unroll
      for (int k = 0; k < 8; ++k) {
        const int t = ord[i + k];
        ord[i + k] = ord[p[k]];
        ord[p[k]] = t;
      }
    }
    for (; i < n; ++i) {
      const int p = ipiv[i] - 1, t = ord[i];
      ord[i] = ord[p];
      ord[p] = t;
    }
  }
  __syncthreads();
  if (shared)
    for (int64_t i = threadIdx.x; i < n; i += blockDim.x) order[i] = s_order[i];
  if (threadIdx.x == 0) *info = bad ? -6 : 0;
}

// b := x (n x nrhs; x's leading dimension n) where *info is 0; b untouched otherwise.
__global__ void copy_if_ok(const double *x, int64_t n, int64_t nrhs, double *b, int64_t ldb,
                           const int *info) {
  if (*info != 0) return;
  for (int64_t j = blockIdx.y; j < nrhs; j += gridDim.y)
    for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
         i += int64_t(gridDim.x) * blockDim.x)
      b[i + j * ldb] = x[i + j * n];
}

// The rows kept in shared memory by order_from_pivots on this device (its opt-in limit, less
// the kernel's own static word), 0 where the attribute cannot be set.
int64_t order_shared_limit() {
  static const int64_t rows = [] {
    int dev = 0, optin = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev) != cudaSuccess) {
      cudaGetLastError();
      return int64_t(0);
    }
    const int64_t bytes = std::min<int64_t>(kOrderSharedRows * sizeof(int), optin - 64);
    if (cudaFuncSetAttribute(order_from_pivots, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             int(bytes)) != cudaSuccess) {
      cudaGetLastError();
      return int64_t(0);
    }
    return bytes / int64_t(sizeof(int));
  }();
  return rows;
}

Status queue_order(cudaStream_t st, const int *ipiv, int64_t n, int *order, int *info) {
  const int64_t shared = n <= order_shared_limit() ? n : 0;
  order_from_pivots<<<1, kOrderThreads, shared * sizeof(int), st>>>(ipiv, n, order, info, shared);
  return check_launch("order_from_pivots");
}

Status queue_copy_if_ok(cudaStream_t st, const double *x, int64_t n, int64_t nrhs, double *b,
                        int64_t ldb, const int *info) {
  const dim3 grid(unsigned(std::min<int64_t>((n + 255) / 256, 64)), unsigned(std::min<int64_t>(nrhs, 65535)));
  copy_if_ok<<<grid, 256, 0, st>>>(x, n, nrhs, b, ldb, info);
  return check_launch("copy_if_ok");
}

// The solve's workspace, in the plan of the call it belongs to (gesv_dev takes one allocation for
// its factorization and its solve).
struct SolveParts {
  size_t order, x, copy;
  SolveParts(WorkspacePlan &plan, char trans, int64_t n, int64_t nrhs)
      : order(plan.add_array<int>(n)),
        x(plan.add_array<double>(n * nrhs)),
        copy(plan.add_array<double>(trans == 'N' ? 0 : n * nrhs)) {}
};

// The solve of getrs_dev and gesv_dev: the order from ipiv (`*order_info` its verdict), X by
// getrs_device into workspace, and X into B where *gate is 0 (gate: order_info, or getrf's
// INFO). For trans 'T' getrs_device works in place in a copy of B, so B stays as it was until
// the gated copy.
Status solve(cublasHandle_t blas, cudaStream_t st, char trans, int64_t n, int64_t nrhs, const double *lu,
             int64_t ldlu, const int *ipiv, double *b, int64_t ldb, int *order_info, const int *gate,
             Workspace &ws, const SolveParts &parts) {
  int *order = ws.at<int>(parts.order);
  double *x = ws.at<double>(parts.x);
  Status s = queue_order(st, ipiv, n, order, order_info);
  if (!s) return s;
  if (trans == 'N') {
    s = getrs_device(blas, st, 'N', n, nrhs, lu, ldlu, order, b, ldb, x);
  } else {
    double *copy = ws.at<double>(parts.copy);
    s = check(cudaMemcpy2DAsync(copy, n * sizeof(double), b, ldb * sizeof(double), n * sizeof(double), nrhs,
                                cudaMemcpyDeviceToDevice, st),
              "cudaMemcpy2DAsync");
    if (s) s = getrs_device(blas, st, 'T', n, nrhs, lu, ldlu, order, copy, n, x);
  }
  if (s) s = queue_copy_if_ok(st, x, n, nrhs, b, ldb, gate);
  return s;
}

// getrf_device on the caller's arrays, its scratch in `scratch` (getrf_scratch_bytes). An A with
// NaN or Inf entries is factored as it is: no NaN scan.
Status factor(cublasHandle_t blas, cudaStream_t st, int64_t m, int64_t n, double *a, int64_t lda, int *ipiv,
              int *info, void *scratch) {
  return getrf_device(blas, st, m, n, a, lda, ipiv, info, nullptr, scratch);
}

}  // namespace

Status getrf_dev(int64_t m, int64_t n, double *a, int64_t lda, int *ipiv, int *info, void *stream) {
  CallerStream call(stream);
  cublasHandle_t blas = nullptr;
  Status s = call.enter(&blas);
  if (!s) return s;
  WorkspacePlan plan;
  const size_t o_scratch = plan.add(getrf_scratch_bytes());
  Workspace ws(call.stream());
  if (!(s = ws.allocate(plan))) return s;
  return factor(blas, call.stream(), m, n, a, lda, ipiv, info, ws.at<char>(o_scratch));
}

Status getrs_dev(char trans, int64_t n, int64_t nrhs, const double *a, int64_t lda, const int *ipiv,
                 double *b, int64_t ldb, int *info, void *stream) {
  CallerStream call(stream);
  cublasHandle_t blas = nullptr;
  Status s = call.enter(&blas);
  if (!s) return s;
  WorkspacePlan plan;
  const SolveParts parts(plan, trans, n, nrhs);
  Workspace ws(call.stream());
  if (!(s = ws.allocate(plan))) return s;
  return solve(blas, call.stream(), trans, n, nrhs, a, lda, ipiv, b, ldb, info, info, ws, parts);
}

Status gesv_dev(int64_t n, int64_t nrhs, double *a, int64_t lda, int *ipiv, double *b, int64_t ldb,
                int *info, void *stream) {
  CallerStream call(stream);
  cublasHandle_t blas = nullptr;
  Status s = call.enter(&blas);
  if (!s) return s;
  // One allocation: the factorization's scratch, the order's verdict, the solve's arrays.
  WorkspacePlan plan;
  const size_t o_scratch = plan.add(getrf_scratch_bytes());
  const size_t o_order_info = plan.add_array<int>(1);
  const SolveParts parts(plan, 'N', n, nrhs > 0 ? nrhs : 0);
  Workspace ws(call.stream());
  if (!(s = ws.allocate(plan))) return s;
  s = factor(blas, call.stream(), n, n, a, lda, ipiv, info, ws.at<char>(o_scratch));
  // X into B only where DGETRF's INFO is 0, as DGESV solves only then.
  if (s && nrhs > 0)
    s = solve(blas, call.stream(), 'N', n, nrhs, a, lda, ipiv, b, ldb, ws.at<int>(o_order_info), info, ws,
              parts);
  return s;
}

Status zero_info(int *info, void *stream) {
  CallerStream call(stream);
  Status s = call.enter();
  if (s) s = check(cudaMemsetAsync(info, 0, sizeof(int), call.stream()), "cudaMemsetAsync");
  return s;
}

}  // namespace gpueig::gpu
