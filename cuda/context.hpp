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

class Context {
 public:
  // The calling thread's context, created on first use. Call inside a DeviceScope.
  static Status get(Context *&out);
  ~Context();

  cudaStream_t stream() const { return stream_; }
  // A device buffer of at least `bytes`, valid until the next workspace() call of this thread.
  // GPUEIG_FAULT_INJECT=alloc makes it fail as cudaMalloc would (used by the fallback tests).
  Status workspace(size_t bytes, void **ptr);
  Status blas(cublasHandle_t *handle);

 private:
  cudaStream_t stream_ = nullptr;
  void *work_ = nullptr;
  size_t work_bytes_ = 0;
  cublasHandle_t blas_ = nullptr;
};

}  // namespace gpueig::gpu
