// Host <-> device transfers of the caller's (pageable) arrays at the speed of pinned memory.
//
// A plain cudaMemcpy from pageable memory goes through the driver's own small staging buffers,
// one copy at a time (about 11 GB/s host to device on the H100 machine). Here a ring of pinned
// buffers is filled by several host threads at once while the DMA engine drains the previous
// buffer, so copying into pinned memory and the PCIe transfer overlap.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>

#include "gpu_backend.hpp"

namespace gpueig::gpu {

class Context;

// Below this many bytes a transfer goes straight through cudaMemcpy: the pipeline would not pay.
constexpr size_t kStagingMinBytes = size_t(4) << 20;

// Copies a `height` x `width`-byte 2D region (row pitches in bytes) from host to device. The
// copies are queued on the context's stream; the host source may be reused on return.
Status upload(Context &ctx, void *dev, size_t dpitch, const void *host, size_t hpitch,
              size_t width, size_t height);

// Copies device to host, after everything queued before it on the context's stream; returns
// when the data is in `host`.
Status download(Context &ctx, void *host, size_t hpitch, const void *dev, size_t dpitch,
                size_t width, size_t height);

}  // namespace gpueig::gpu
