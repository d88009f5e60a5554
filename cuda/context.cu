#include "context.hpp"
#include "cublas_loader.hpp"

#include <atomic>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>

#include "device_util.hpp"
#include "env.hpp"
#include "fault.hpp"
#include "tuning.hpp"
#include "workspace.hpp"

namespace gpueig::gpu {
namespace {

struct DeviceState {
  int ordinal = -1;
  int count = 0;
  size_t memory = 0;  // the selected device's global memory, bytes
  bool usable = false;
  std::string why;
};

DeviceState g_device;
std::once_flag g_device_once;
std::atomic<bool> g_lost{false};
std::string g_lost_why;
std::mutex g_lost_mutex;

// Never launched: its attributes say whether the device can run this build's code.
__global__ void probe_kernel() {}

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
  cudaDeviceProp p{};
  if (cudaGetDeviceProperties(&p, g_device.ordinal) == cudaSuccess) g_device.memory = p.totalGlobalMem;
  // A device this build has no code for (neither its own SASS nor PTX it can compile) would fail
  // every launch: said once here, where `gpueig info` and GPUEIG_VERBOSE show it, instead.
  int current = 0;
  cudaGetDevice(&current);
  cudaSetDevice(g_device.ordinal);
  cudaFuncAttributes attributes{};
  err = cudaFuncGetAttributes(&attributes, probe_kernel);
  cudaSetDevice(current);
  if (err != cudaSuccess) {
    cudaGetLastError();
    g_device.why = "device " + std::to_string(g_device.ordinal) + " (sm_" + std::to_string(p.major) +
                   std::to_string(p.minor) + ") cannot run this build's code (" +
                   cudaGetErrorString(err) + "; built for architectures " GPUEIG_CUDA_ARCHS
                   "): rebuild with -DCMAKE_CUDA_ARCHITECTURES=" + std::to_string(p.major) +
                   std::to_string(p.minor);
    return;
  }
  g_device.usable = true;
}

const DeviceState &probed() {
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

// The library's memory pool on its device, created on first use (inside a DeviceScope); null
// when the driver cannot make one, and the device's default pool is used instead.
cudaMemPool_t g_pool = nullptr;
std::once_flag g_pool_once;

cudaMemPool_t library_pool() {
  std::call_once(g_pool_once, [] {
    cudaMemPoolProps props{};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = probed().ordinal;
    cudaMemPool_t pool = nullptr;
    if (cudaMemPoolCreate(&pool, &props) != cudaSuccess) {
      cudaGetLastError();
      return;
    }
    uint64_t keep = tuning::kPoolKeepBytes;
    cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
    g_pool = pool;
  });
  return g_pool;
}

}  // namespace

Status Workspace::allocate(size_t bytes) {
  release();
  if (fault::fires(fault::Kind::alloc))
    return Status::fail(Status::device_error, "cudaMallocAsync: out of memory (injected)");
  bytes = bytes ? bytes : 1;
  // More than the device has: said so without asking the driver (an out-of-memory API error
  // is then not even attempted; a smaller request that does not fit fails in the driver).
  if (probed().memory && bytes > probed().memory)
    return Status::fail(Status::device_error,
                        "the call needs " + std::to_string(bytes >> 20) + " MiB of device memory; the device has " +
                            std::to_string(probed().memory >> 20) + " MiB");
  const cudaMemPool_t pool = library_pool();
  const cudaError_t err = pool ? cudaMallocFromPoolAsync(&p_, bytes, pool, st_)
                               : cudaMallocAsync(&p_, bytes, st_);
  if (err != cudaSuccess) p_ = nullptr;
  return check(err, "cudaMallocAsync");
}

void Workspace::release() {
  if (p_) cudaFreeAsync(p_, st_);
  p_ = nullptr;
}

bool device_available() {
  return probed().usable && !g_lost.load() && fault::armed() != fault::Kind::no_device;
}

std::string device_unavailable_reason() {
  if (fault::armed() == fault::Kind::no_device)
    return "no CUDA device (injected: GPUEIG_FAULT_INJECT=no_device)";
  if (!probed().usable) return probed().why;
  if (g_lost.load()) {
    std::lock_guard<std::mutex> lock(g_lost_mutex);
    return "device lost earlier: " + g_lost_why;
  }
  return "";
}

std::string describe_hardware() {
  std::string out;
  if (probed().usable) {
    cudaDeviceProp p{};
    if (cudaGetDeviceProperties(&p, probed().ordinal) == cudaSuccess &&
        (p.major != tuning::measured_on.major || p.minor != tuning::measured_on.minor ||
         p.multiProcessorCount != tuning::measured_on.sms))
      out += std::string("note: the tuning constants (src/tuning.hpp) were measured on an ") +
             tuning::measured_on.name + "; they hold here, but were not chosen for this device\n";
  }
  for (int i = 0; i < probed().count; ++i) {
    cudaDeviceProp p{};
    if (cudaGetDeviceProperties(&p, i) != cudaSuccess) continue;
    char line[512];
    std::snprintf(line, sizeof line, "%d: %s, sm_%d%d, %d SMs, %.1f GiB%s\n", i, p.name, p.major,
                  p.minor, p.multiProcessorCount, p.totalGlobalMem / 1073741824.0,
                  i == probed().ordinal ? " (selected)" : "");
    out += line;
  }
  return out;
}

static void mark_lost(const std::string &why) {
  std::lock_guard<std::mutex> lock(g_lost_mutex);
  if (!g_lost.exchange(true)) g_lost_why = why;
}

Status check_launch(const char *what) { return check_launch(cudaGetLastError(), what); }

Status check_launch(cudaError_t launched, const char *what) {
  if (fault::fires(fault::Kind::launch))
    return Status::fail(Status::device_error,
                        std::string(what) + ": too many resources requested for launch (injected)");
  if (fault::fires(fault::Kind::lost)) {
    const std::string why = std::string(what) + ": an illegal memory access was encountered (injected)";
    mark_lost(why);
    return Status::fail(Status::device_error, why);
  }
  return check(launched, what);
}

Status check_download(const char *what) {
  if (!fault::fires(fault::Kind::download)) return Status::success();
  const std::string why = std::string(what) + ": unspecified launch failure (injected)";
  mark_lost(why);
  return Status::fail(Status::device_error, why);
}

Status check(cudaError_t err, const char *what) {
  if (err == cudaSuccess) return Status::success();
  std::string why = std::string(what) + ": " + cudaGetErrorString(err);
  if (is_sticky(err)) {
    mark_lost(why);
  } else {
    cudaGetLastError();  // clear a non-sticky error so the next call starts clean
  }
  return Status::fail(Status::device_error, why);
}

DeviceScope::DeviceScope() {
  if (!device_available()) {
    status_ = Status::fail(Status::unavailable, device_unavailable_reason());
    return;
  }
  if (cudaGetDevice(&previous_) != cudaSuccess) previous_ = -1;
  status_ = check(cudaSetDevice(probed().ordinal), "cudaSetDevice");
}

DeviceScope::~DeviceScope() {
  if (previous_ >= 0 && previous_ != probed().ordinal) cudaSetDevice(previous_);
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
  if (blas_) cublas_api(nullptr)->destroy(blas_);  // blas_ exists only where cuBLAS loaded
  if (side_blas_) cublas_api(nullptr)->destroy(side_blas_);
  if (ring_.base) {
    cudaStreamSynchronize(stream_);
    if (copy_) cudaStreamSynchronize(copy_);
    for (cudaEvent_t e : ring_.done) cudaEventDestroy(e);
    cudaFreeHost(ring_.base);
  }
  if (copy_) cudaStreamDestroy(copy_);
  if (side_) cudaStreamDestroy(side_);
  for (cudaStream_t f : fork_)
    if (f) cudaStreamDestroy(f);
  if (stream_) cudaStreamDestroy(stream_);
}

Status Context::fork_streams(cudaStream_t out[3]) {
  for (int i = 0; i < 3; ++i) {
    if (!fork_[i]) {
      const Status st = create_priority_stream(&fork_[i], i == 0);
      if (!st) {
        fork_[i] = nullptr;
        return st;
      }
    }
    out[i] = fork_[i];
  }
  return Status::success();
}

Status Context::copy_stream(cudaStream_t *out) {
  if (!copy_) {
    Status st = check(cudaStreamCreateWithFlags(&copy_, cudaStreamNonBlocking), "cudaStreamCreate");
    if (!st) return st;
  }
  *out = copy_;
  return Status::success();
}

namespace {
// A cuBLAS handle bound to `stream` (cuBLAS loaded on first use); *handle stays null on failure.
Status create_blas(cublasHandle_t *handle, cudaStream_t stream) {
  std::string why;
  const CublasApi *api = cublas_api(&why);
  if (!api) return Status::fail(Status::device_error, why);
  if (api->create(handle) != CUBLAS_STATUS_SUCCESS) {
    *handle = nullptr;
    return Status::fail(Status::device_error, "cublasCreate failed");
  }
  api->set_stream(*handle, stream);
  return Status::success();
}
}  // namespace

Status Context::side(cudaStream_t *stream, cublasHandle_t *handle) {
  if (!side_) {
    Status st = create_priority_stream(&side_, true);
    if (!st) {
      side_ = nullptr;
      return st;
    }
  }
  if (!side_blas_) {
    const Status st = create_blas(&side_blas_, side_);
    if (!st) return st;
  }
  *stream = side_;
  *handle = side_blas_;
  return Status::success();
}

Status Context::ring(PinnedRing **out) {
  if (!ring_.base) {
    if (fault::fires(fault::Kind::alloc))
      return Status::fail(Status::device_error, "cudaHostAlloc: out of memory (injected)");
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
  if (fault::fires(fault::Kind::blas))
    return Status::fail(Status::device_error, "cublasCreate: CUBLAS_STATUS_NOT_INITIALIZED (injected)");
  if (!blas_) {
    const Status st = create_blas(&blas_, stream_);
    if (!st) return st;
  }
  *handle = blas_;
  return Status::success();
}

bool device_memory(const void *p) {
  if (!p || !device_available()) return false;
  cudaPointerAttributes attr{};
  if (cudaPointerGetAttributes(&attr, p) != cudaSuccess) {
    cudaGetLastError();  // (not sticky: clear it for the caller)
    return false;
  }
  if (attr.type == cudaMemoryTypeManaged) return true;
  return attr.type == cudaMemoryTypeDevice && attr.device == probed().ordinal;
}

bool device_stream(void *stream) {
  if (!stream) return true;  // the legacy default stream: the current device's, made ours
  int dev = -1;
  if (cudaStreamGetDevice(static_cast<cudaStream_t>(stream), &dev) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return dev == probed().ordinal;
}

CallerStream::~CallerStream() {
  if (blas_) {
    const CublasApi *api = cublas_api(nullptr);
    if (api) api->set_stream(blas_, ctx_->stream());
  }
}

Status CallerStream::blas(cublasHandle_t *handle) {
  Status s = ctx_->blas(&blas_);
  if (!s) return s;
  const CublasApi *api = cublas_api(nullptr);
  if (!api || api->set_stream(blas_, st_) != CUBLAS_STATUS_SUCCESS) {
    blas_ = nullptr;
    return Status::fail(Status::device_error, "cublasSetStream failed");
  }
  *handle = blas_;
  return s;
}

}  // namespace gpueig::gpu
