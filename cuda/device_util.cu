// Shared device utilities (cuda/device_util.hpp).
#include <algorithm>

#include "device_util.hpp"

namespace gpueig::gpu {
namespace {

// Sets *flag if any of the m x n entries is NaN or infinite (a block per column at a time).
__global__ void nonfinite_kernel(const double *a, int64_t lda, int64_t m, int64_t n, int *flag) {
  bool bad = false;
  for (int64_t c = blockIdx.x; c < n; c += gridDim.x)
    for (int64_t i = blockIdx.y * int64_t(blockDim.x) + threadIdx.x; i < m;
         i += int64_t(gridDim.y) * blockDim.x)
      bad |= !isfinite(a[i + c * lda]);
  if (__syncthreads_or(bad) && threadIdx.x == 0) atomicExch(flag, 1);
}

}  // namespace

Status check_finite(cudaStream_t st, const double *a, int64_t lda, int64_t m, int64_t n,
                    int *flag) {
  if (m <= 0 || n <= 0) return Status::success();
  // A few blocks per SM of any current GPU: columns, and slices of rows where the columns are
  // few (a block per column took 1.74 ms for 2^20 x 32 on the H100, more than half of the
  // factorization it guards).
  const int64_t cols = std::min<int64_t>(1024, n);
  const int64_t rows = std::clamp<int64_t>((1024 + cols - 1) / cols, 1, (m + 255) / 256);
  const dim3 grid(static_cast<unsigned>(cols), static_cast<unsigned>(std::min<int64_t>(rows, 65535)));
  nonfinite_kernel<<<grid, 256, 0, st>>>(a, lda, m, n, flag);
  return check_launch("nonfinite_kernel");
}

Status fetch_flag(cudaStream_t st, const int *flag, int *host) {
  Status s = check(cudaMemcpyAsync(host, flag, sizeof(int), cudaMemcpyDeviceToHost, st),
                   "cudaMemcpyAsync");
  return s ? check(cudaStreamSynchronize(st), "cudaStreamSynchronize") : s;
}

Status create_priority_stream(cudaStream_t *stream, bool highest) {
  int least = 0, greatest = 0;
  Status s = check(cudaDeviceGetStreamPriorityRange(&least, &greatest),
                   "cudaDeviceGetStreamPriorityRange");
  return s ? check(cudaStreamCreateWithPriority(stream, cudaStreamNonBlocking,
                                                highest ? greatest : least),
                   "cudaStreamCreateWithPriority")
           : s;
}

Status sm_count(int *sms) {
  int dev = 0;
  Status s = check(cudaGetDevice(&dev), "cudaGetDevice");
  return s ? check(cudaDeviceGetAttribute(sms, cudaDevAttrMultiProcessorCount, dev),
                   "cudaDeviceGetAttribute")
           : s;
}

Status record_wait(cudaEvent_t e, cudaStream_t from, cudaStream_t to) {
  Status s = check(cudaEventRecord(e, from), "cudaEventRecord");
  return s ? check(cudaStreamWaitEvent(to, e), "cudaStreamWaitEvent") : s;
}

}  // namespace gpueig::gpu
