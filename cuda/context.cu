#include "context.hpp"

#include <atomic>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>

#include "env.hpp"

namespace gpueig::gpu {
namespace {

struct DeviceState {
  int ordinal = -1;
  int count = 0;
  bool usable = false;
  std::string why;
};

DeviceState g_device;
std::once_flag g_device_once;
std::atomic<bool> g_lost{false};
std::string g_lost_why;
std::mutex g_lost_mutex;

void probe() {
  // With the runtime linked statically this works, and fails cleanly, on a machine that has no
  // NVIDIA driver at all.
  cudaError_t err = cudaGetDeviceCount(&g_device.count);
  if (err != cudaSuccess) {
    g_device.count = 0;
    g_device.why = std::string("no CUDA device (") + cudaGetErrorString(err) + ")";
    cudaGetLastError();
    return;
  }
  // A GPUEIG_DEVICE that is not a device ordinal leaves the GPU unused (rather than quietly
  // running on device 0).
  int64_t want = 0;
  if (!env::read_integer("GPUEIG_DEVICE", &want, 0, INT_MAX, "no GPU will be used")) {
    g_device.why = std::string("GPUEIG_DEVICE=") + env::raw("GPUEIG_DEVICE") + " is not a device ordinal";
    return;
  }
  if (want >= g_device.count) {
    g_device.why = "GPUEIG_DEVICE=" + std::to_string(want) + " but only " +
                   std::to_string(g_device.count) + " device(s) visible";
    return;
  }
  g_device.ordinal = static_cast<int>(want);
  g_device.usable = true;
}

const DeviceState &device() {
  std::call_once(g_device_once, probe);
  return g_device;
}

bool is_sticky(cudaError_t err) {
  switch (err) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorECCUncorrectable:
    case cudaErrorAssert:
    case cudaErrorLaunchTimeout:
      return true;
    default:
      return false;
  }
}

thread_local std::unique_ptr<Context> t_context;

}  // namespace

bool available() { return device().usable && !g_lost.load(); }

std::string unavailable_reason() {
  if (!device().usable) return device().why;
  if (g_lost.load()) {
    std::lock_guard<std::mutex> lock(g_lost_mutex);
    return "device lost earlier: " + g_lost_why;
  }
  return "";
}

int selected_device() { return device().ordinal; }

std::string describe_devices() {
  std::string out;
  for (int i = 0; i < device().count; ++i) {
    cudaDeviceProp p{};
    if (cudaGetDeviceProperties(&p, i) != cudaSuccess) continue;
    char line[512];
    std::snprintf(line, sizeof line, "%d: %s, sm_%d%d, %d SMs, %.1f GiB%s\n", i, p.name, p.major,
                  p.minor, p.multiProcessorCount, p.totalGlobalMem / 1073741824.0,
                  i == device().ordinal ? " (selected)" : "");
    out += line;
  }
  return out;
}

Status check(cudaError_t err, const char *what) {
  if (err == cudaSuccess) return Status::success();
  std::string why = std::string(what) + ": " + cudaGetErrorString(err);
  if (is_sticky(err)) {
    std::lock_guard<std::mutex> lock(g_lost_mutex);
    if (!g_lost.exchange(true)) g_lost_why = why;
  } else {
    cudaGetLastError();  // clear a non-sticky error so the next call starts clean
  }
  return Status::fail(Status::device_error, why);
}

DeviceScope::DeviceScope() {
  if (!available()) {
    status_ = Status::fail(Status::unavailable, unavailable_reason());
    return;
  }
  if (cudaGetDevice(&previous_) != cudaSuccess) previous_ = -1;
  status_ = check(cudaSetDevice(device().ordinal), "cudaSetDevice");
}

DeviceScope::~DeviceScope() {
  if (previous_ >= 0 && previous_ != device().ordinal) cudaSetDevice(previous_);
}

Status Context::get(Context *&out) {
  if (!t_context) {
    auto ctx = std::make_unique<Context>();
    Status st = check(cudaStreamCreateWithFlags(&ctx->stream_, cudaStreamNonBlocking),
                      "cudaStreamCreate");
    if (!st) return st;
    t_context = std::move(ctx);
  }
  out = t_context.get();
  return Status::success();
}

Context::~Context() {
  // Runs at thread exit; after a lost device the calls below fail harmlessly.
  if (blas_) cublasDestroy(blas_);
  if (ring_.base) {
    cudaStreamSynchronize(stream_);
    if (copy_) cudaStreamSynchronize(copy_);
    for (cudaEvent_t e : ring_.done) cudaEventDestroy(e);
    cudaFreeHost(ring_.base);
  }
  if (work_) cudaFree(work_);
  if (copy_) cudaStreamDestroy(copy_);
  if (stream_) cudaStreamDestroy(stream_);
}

Status Context::copy_stream(cudaStream_t *out) {
  if (!copy_) {
    Status st = check(cudaStreamCreateWithFlags(&copy_, cudaStreamNonBlocking), "cudaStreamCreate");
    if (!st) return st;
  }
  *out = copy_;
  return Status::success();
}

Status Context::workspace(size_t bytes, void **ptr) {
  if (const char *f = env::raw("GPUEIG_FAULT_INJECT"); f && std::strcmp(f, "alloc") == 0)
    return Status::fail(Status::device_error, "cudaMalloc: injected fault (GPUEIG_FAULT_INJECT)");
  if (bytes > work_bytes_) {
    if (work_) {
      // The old buffer may still be in use by work queued on our stream.
      cudaStreamSynchronize(stream_);
      cudaFree(work_);
      work_ = nullptr;
      work_bytes_ = 0;
    }
    Status st = check(cudaMalloc(&work_, bytes), "cudaMalloc");
    if (!st) return st;
    work_bytes_ = bytes;
  }
  *ptr = work_;
  return Status::success();
}

Status Context::ring(PinnedRing **out) {
  if (!ring_.base) {
    void *p = nullptr;
    Status st = check(cudaHostAlloc(&p, PinnedRing::kBuffers * PinnedRing::kChunk,
                                    cudaHostAllocPortable),
                      "cudaHostAlloc");
    if (!st) return st;
    for (int i = 0; i < PinnedRing::kBuffers; ++i) {
      st = check(cudaEventCreateWithFlags(&ring_.done[i], cudaEventDisableTiming),
                 "cudaEventCreate");
      if (!st) {
        for (int k = 0; k < i; ++k) cudaEventDestroy(ring_.done[k]);
        cudaFreeHost(p);
        return st;
      }
    }
    ring_.base = static_cast<char *>(p);
  }
  *out = &ring_;
  return Status::success();
}

Status Context::blas(cublasHandle_t *handle) {
  if (!blas_) {
    if (cublasCreate(&blas_) != CUBLAS_STATUS_SUCCESS) {
      blas_ = nullptr;
      return Status::fail(Status::device_error, "cublasCreate failed");
    }
    cublasSetStream(blas_, stream_);
  }
  *handle = blas_;
  return Status::success();
}

}  // namespace gpueig::gpu
