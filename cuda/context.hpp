// The GPU context layer: device selection, error mapping, and one context per host thread
// (streams, pinned staging ring, cached library handles). Device memory: cuda/workspace.hpp.
#pragma once
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <string>

#include "gpu_backend.hpp"
#include "tuning.hpp"

namespace gpueig::gpu {

// Maps a CUDA error to a Status. Errors that leave the CUDA context unusable (illegal address,
// launch failure, ...) also mark the device lost for the rest of the process, so later calls go
// straight to the CPU instead of failing again.
Status check(cudaError_t err, const char *what);
// The launch status of the kernel just queued. GPUEIG_FAULT_INJECT=launch or lost fails it here
// (lost as a sticky error: the device counts as lost for the rest of the process).
Status check_launch(const char *what);
// The same for a launcher that returns the launch's error itself.
Status check_launch(cudaError_t launched, const char *what);
// A download of results about to start: GPUEIG_FAULT_INJECT=download fails it here as a lost
// device would (sticky).
Status check_download(const char *what);

// Whether the library's device can be used (a device is visible, GPUEIG_DEVICE names it, it was
// not lost earlier), why not, and one line per visible device.
bool device_available();
std::string device_unavailable_reason();
std::string describe_hardware();

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
  static constexpr int kBuffers = tuning::kRingBuffers;
  static constexpr size_t kChunk = tuning::kRingChunkBytes;
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
  Status blas(cublasHandle_t *handle);
  // A high-priority stream of the thread and a cuBLAS handle of its own bound to it, created on
  // first use: getrf's look-ahead factors the next panel there while the trailing work runs on
  // the call's stream (a second handle, because two streams sharing one handle's workspace race).
  Status side(cudaStream_t *stream, cublasHandle_t *handle);
  // Streams of the thread for a routine's fork-join work beside its call's stream (sytrd's
  // look-ahead and its chase beside Q1): out[0] at the device's highest priority, out[1] and
  // out[2] at its lowest; created on first use and kept. Created per call, the work queued on
  // them waited for a host function held on an unrelated stream (H200, 2026-11-29, timed phase
  // by phase: the chase's stream and the look-ahead's held for the whole hold; the call's own
  // stream, or a long kernel on the other stream, held nothing), which a device-pointer call
  // must never do (test_device_api: NoDeviceWideWait, NoDeviceWideWaitWithQ).
  Status fork_streams(cudaStream_t out[3]);
  // The thread's pinned ring, allocated on first use (kBuffers x kChunk bytes).
  Status ring(PinnedRing **out);

 private:
  cudaStream_t stream_ = nullptr, copy_ = nullptr, side_ = nullptr, fork_[3] = {};
  cublasHandle_t blas_ = nullptr, side_blas_ = nullptr;
  PinnedRing ring_;
};

// The preamble of every host entry point's device work: the library's device made current for
// the call (`scope`, which the caller keeps alive) and the calling thread's context.
inline Status enter(const DeviceScope &scope, Context *&ctx) {
  if (!scope.status()) return scope.status();
  return Context::get(ctx);
}
// The calling thread's fork streams (Context::fork_streams), its context looked up; call inside
// a DeviceScope.
inline Status thread_fork_streams(cudaStream_t out[3]) {
  Context *ctx = nullptr;
  const Status s = Context::get(ctx);
  return s ? ctx->fork_streams(out) : s;
}
// enter(), then the context's cuBLAS handle (on its stream) into *blas where want_blas is set.
inline Status enter(const DeviceScope &scope, Context *&ctx, bool want_blas, cublasHandle_t *blas) {
  Status s = enter(scope, ctx);
  return s && want_blas ? ctx->blas(blas) : s;
}

// ---- The device-pointer API's side (include/gpueig.h) ----------------------------------------

// Whether p is memory the library's device may use in kernels: device memory of that device, or
// managed memory (a host pointer, pinned or not, or another device's memory is not).
bool device_memory(const void *p);
// Whether `stream` (a cudaStream_t; NULL the legacy default stream) belongs to the library's
// device.
bool device_stream(void *stream);

// The preamble of a device-pointer call: the library's device current for the call, the calling
// thread's context, and the caller's stream, on which all of the call's work is queued. blas()
// is the thread's cuBLAS handle set to that stream; it goes back to the context's own stream when
// the call ends.
class CallerStream {
 public:
  // NULL (the legacy default stream, CuPy's and PyTorch's default) becomes cudaStreamLegacy, its
  // explicit handle: helpers that read a null stream as "the context's own" (staging.hpp) would
  // otherwise queue the call's transfers on another stream than its kernels.
  explicit CallerStream(void *stream)
      : st_(stream ? static_cast<cudaStream_t>(stream) : cudaStreamLegacy) {}
  ~CallerStream();
  CallerStream(const CallerStream &) = delete;
  CallerStream &operator=(const CallerStream &) = delete;
  Status enter() { return gpu::enter(scope_, ctx_); }
  // enter(), then blas(handle).
  Status enter(cublasHandle_t *handle) {
    Status s = enter();
    return s ? blas(handle) : s;
  }
  cudaStream_t stream() const { return st_; }
  // The thread's context (after enter()): its pinned ring stages the call's transfers.
  Context &context() const { return *ctx_; }
  Status blas(cublasHandle_t *handle);

 private:
  DeviceScope scope_;
  Context *ctx_ = nullptr;
  cudaStream_t st_;
  cublasHandle_t blas_ = nullptr;
};

}  // namespace gpueig::gpu
