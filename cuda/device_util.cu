// Shared device utilities (cuda/device_util.hpp).
#include <algorithm>
#include <cstring>
#include <vector>

#include "device_util.hpp"
#include "staging.hpp"

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

namespace {

constexpr int kMaxPieces = 8;
struct PieceTable {
  int count;
  char *dev[kMaxPieces];
  size_t at[kMaxPieces], words[kMaxPieces];  // offset in the packed buffer (bytes), length (4-byte words)
};

// gather: the pieces into `packed`; else `packed` out to the pieces.
__global__ void pack_kernel(PieceTable t, char *packed, bool gather) {
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  for (int p = 0; p < t.count; ++p) {
    unsigned *d = reinterpret_cast<unsigned *>(t.dev[p]);
    unsigned *q = reinterpret_cast<unsigned *>(packed + t.at[p]);
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < t.words[p]; i += stride)
      if (gather) q[i] = d[i];
      else d[i] = q[i];
  }
}

// The packed layout: each piece at an 8-byte aligned offset; the total.
size_t layout(const std::vector<size_t> &bytes, std::vector<size_t> &at) {
  size_t total = 0;
  for (size_t b : bytes) {
    at.push_back(total);
    total += (b + 7) / 8 * 8;
  }
  return total;
}

// pack_kernel over the pieces, kMaxPieces per launch.
Status pack_launch(cudaStream_t st, const std::vector<char *> &dev, const std::vector<size_t> &at,
                   const std::vector<size_t> &bytes, char *packed, bool gather) {
  for (size_t first = 0; first < dev.size(); first += kMaxPieces) {
    PieceTable t{};
    size_t most = 0;
    for (size_t p = first; p < dev.size() && t.count < kMaxPieces; ++p) {
      if (bytes[p] % 4 != 0) return Status::fail(Status::device_error, "packed transfer: not whole 4-byte words");
      t.dev[t.count] = dev[p];
      t.at[t.count] = at[p];
      t.words[t.count] = bytes[p] / 4;
      most = std::max(most, bytes[p] / 4);
      ++t.count;
    }
    const unsigned blocks = unsigned(std::min<size_t>(1024, (most + 255) / 256 + 1));
    pack_kernel<<<blocks, 256, 0, st>>>(t, packed, gather);
    Status s = check_launch("pack_kernel");
    if (!s) return s;
  }
  return Status::success();
}

}  // namespace

Status download_packed(CallerStream &call, const std::vector<ToHost> &pieces) {
  std::vector<char *> dev;
  std::vector<size_t> bytes, at;
  for (const ToHost &p : pieces)
    if (p.bytes > 0) dev.push_back(static_cast<char *>(const_cast<void *>(p.dev))), bytes.push_back(p.bytes);
  const size_t total = layout(bytes, at);
  if (total == 0) return Status::success();
  const cudaStream_t st = call.stream();
  if (dev.size() == 1)  // one array: nothing to pack
    for (const ToHost &p : pieces)
      if (p.bytes > 0) return download(call.context(), p.host, p.bytes, p.dev, p.bytes, p.bytes, 1, st);
  Workspace buf(st);
  Status s = buf.allocate(total);
  std::vector<char> host(total);
  if (!s || !(s = pack_launch(st, dev, at, bytes, buf.at<char>(0), true)) ||
      !(s = download(call.context(), host.data(), total, buf.at<char>(0), total, total, 1, st)))
    return s;
  size_t k = 0;
  for (const ToHost &p : pieces)
    if (p.bytes > 0) std::memcpy(p.host, host.data() + at[k++], p.bytes);
  return s;
}

Status upload_packed(CallerStream &call, const std::vector<ToDevice> &pieces) {
  std::vector<char *> dev;
  std::vector<size_t> bytes, at;
  for (const ToDevice &p : pieces)
    if (p.bytes > 0) dev.push_back(static_cast<char *>(p.dev)), bytes.push_back(p.bytes);
  const size_t total = layout(bytes, at);
  if (total == 0) return Status::success();
  const cudaStream_t st = call.stream();
  if (dev.size() == 1)  // one array: nothing to pack
    for (const ToDevice &p : pieces)
      if (p.bytes > 0) return upload(call.context(), p.dev, p.bytes, p.host, p.bytes, p.bytes, 1, st);
  std::vector<char> host(total);
  size_t k = 0;
  for (const ToDevice &p : pieces)
    if (p.bytes > 0) std::memcpy(host.data() + at[k++], p.host, p.bytes);
  Workspace buf(st);
  Status s = buf.allocate(total);
  if (!s || !(s = upload(call.context(), buf.at<char>(0), total, host.data(), total, total, 1, st))) return s;
  return pack_launch(st, dev, at, bytes, buf.at<char>(0), false);
}

}  // namespace gpueig::gpu
