// What every entry point of the device-pointer API (include/gpueig.h) does after its scalar
// checks, written once: the device's presence, the array pointers and the stream checked (in
// that order), then the work queued, its failure GPUEIG_ERR_DEVICE (there is no CPU fallback:
// the data is in device memory), the call recorded for GPUEIG_VERBOSE and gpueig_last_backend.
#pragma once
#include <exception>
#include <initializer_list>
#include <string>

#include "dispatch.hpp"
#include "gpu_backend.hpp"
#include "gpueig.h"

namespace gpueig {

// An array argument of a device-pointer call: its position in the C signature, the pointer, and
// whether the call references it (an array of no elements is not, and may be NULL).
struct DeviceArray {
  int position;
  const void *p;
  bool referenced;
};

// No usable device: GPUEIG_ERR_DEVICE. A referenced array that is not device memory of the
// library's device: -(its position); a stream of another device: -stream_position. Then
// work(device) (returning a gpu::Status): 0 once queued, GPUEIG_ERR_DEVICE if it failed.
template <class Work>
int run_on_device(CallRecord &call, std::initializer_list<DeviceArray> arrays, int stream_position,
                  void *stream, Work &&work) {
  gpu::Device &dev = gpu::device();
  if (!dev.available()) {
    call.done(Backend::none, "no usable GPU: " + dev.unavailable_reason());
    return GPUEIG_ERR_DEVICE;
  }
  for (const DeviceArray &a : arrays)
    if (a.referenced && !dev.device_memory(a.p)) {
      call.done(Backend::none, "argument " + std::to_string(a.position) +
                                   " is not memory of the library's device (host, other device or NULL)");
      return -a.position;
    }
  if (!dev.device_stream(stream)) {
    call.done(Backend::none, "the stream is not one of the library's device");
    return -stream_position;
  }
  gpu::Status s;
  try {
    inject_throw(fault::Kind::gpu_throw);
    s = work(dev);
  } catch (const std::exception &e) {
    s = gpu::Status::fail(gpu::Status::device_error, std::string("exception: ") + e.what());
  } catch (...) {
    s = gpu::Status::fail(gpu::Status::device_error, "exception");
  }
  if (!s) {
    call.done(Backend::none, "device failure: " + s.reason);
    return GPUEIG_ERR_DEVICE;
  }
  call.done(Backend::gpu, "device pointers, queued on the caller's stream");
  return 0;
}

}  // namespace gpueig
