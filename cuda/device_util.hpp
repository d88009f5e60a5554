// Small device utilities shared by the routines' host halves: a stream-ordered device buffer and
// the NaN/Inf scan that sends such inputs to LAPACK.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "context.hpp"

namespace gpueig::gpu {

// Device memory of one call, stream-ordered: returned to the pool (and the pool trimmed) when the
// call ends, so a large call does not keep gigabytes for the rest of the process.
class StreamBuffer {
 public:
  explicit StreamBuffer(cudaStream_t st) : st_(st) {}
  ~StreamBuffer() {
    if (p_) cudaFreeAsync(p_, st_);
  }
  StreamBuffer(const StreamBuffer &) = delete;
  StreamBuffer &operator=(const StreamBuffer &) = delete;
  Status allocate(size_t bytes) {
    return check(cudaMallocAsync(&p_, bytes, st_), "cudaMallocAsync");
  }
  char *get() const { return static_cast<char *>(p_); }
  template <class T>
  T *as(size_t byte_offset = 0) const {
    return reinterpret_cast<T *>(get() + byte_offset);
  }

 private:
  cudaStream_t st_;
  void *p_ = nullptr;
};

// Sets *flag (device) to 1, queued on `stream`, if any of the m x n entries at `a` is NaN or
// infinite.
Status check_finite(cudaStream_t stream, const double *a, int64_t lda, int64_t m, int64_t n,
                    int *flag);

// *host = *flag (device) once everything queued on `stream` before it has run (waits for it).
Status fetch_flag(cudaStream_t stream, const int *flag, int *host);

// A non-blocking stream at the device's highest (or lowest) priority.
Status create_priority_stream(cudaStream_t *stream, bool highest);

// The number of SMs of the current device.
Status sm_count(int *sms);

// Records event e on `from` and makes `to` wait for it: work queued on `to` afterwards runs after
// everything queued on `from` so far.
Status record_wait(cudaEvent_t e, cudaStream_t from, cudaStream_t to);

}  // namespace gpueig::gpu
