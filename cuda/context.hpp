// The GPU context layer: device selection, error mapping, and one context per host thread
// (stream, grow-only device workspace, cached library handles).
#pragma once
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstddef>

#include "gpu_backend.hpp"

namespace gpueig::gpu {

// Maps a CUDA error to a Status. Errors that leave the CUDA context unusable (illegal address,
// launch failure, ...) also mark the device lost for the rest of the process, so later calls go
// straight to the CPU instead of failing again.
Status check(cudaError_t err, const char *what);
inline Status check_launch(const char *what) { return check(cudaGetLastError(), what); }

// Makes the library's device current for a call and restores the caller's device afterwards, so
// an application that uses CUDA itself is not disturbed.
class DeviceScope {
 public:
  DeviceScope();
  ~DeviceScope();
  const Status &status() const { return status_; }
  DeviceScope(const DeviceScope &) = delete;
  DeviceScope &operator=(const DeviceScope &) = delete;

 private:
  int previous_ = -1;
  Status status_;
};

// Pinned host buffers that stream transfers of the caller's arrays (cuda/staging.cu), each with
// an event recorded after the last copy that used it.
struct PinnedRing {
  static constexpr int kBuffers = 3;
  static constexpr size_t kChunk = size_t(16) << 20;
  char *base = nullptr;
  cudaEvent_t done[kBuffers] = {};
  char *buffer(int i) const { return base + i * kChunk; }
};

class Context {
 public:
  // The calling thread's context, created on first use. Call inside a DeviceScope.
  static Status get(Context *&out);
  ~Context();

  cudaStream_t stream() const { return stream_; }
  // A second stream of the thread, created on first use, for transfers that overlap the work
  // queued on stream() (getrf streams its matrix in and out while it is factored).
  Status copy_stream(cudaStream_t *out);
  // A device buffer of at least `bytes`, valid until the next workspace() call of this thread.
  // GPUEIG_FAULT_INJECT=alloc makes it fail as cudaMalloc would (used by the fallback tests).
  Status workspace(size_t bytes, void **ptr);
  Status blas(cublasHandle_t *handle);
  // The thread's pinned ring, allocated on first use (kBuffers x kChunk bytes).
  Status ring(PinnedRing **out);

 private:
  cudaStream_t stream_ = nullptr, copy_ = nullptr;
  void *work_ = nullptr;
  size_t work_bytes_ = 0;
  cublasHandle_t blas_ = nullptr;
  PinnedRing ring_;
};

// The preamble of every host entry point's device work: the library's device made current for
// the call (`scope`, which the caller keeps alive) and the calling thread's context.
inline Status enter(const DeviceScope &scope, Context *&ctx) {
  if (!scope.status()) return scope.status();
  return Context::get(ctx);
}

}  // namespace gpueig::gpu
