// Host <-> device transfers of the caller's (pageable) arrays at the speed of pinned memory.
//
// A plain cudaMemcpy from pageable memory goes through the driver's own small staging buffers,
// one copy at a time (about 11 GB/s host to device on the H100 machine). Here a ring of pinned
// buffers is filled by several host threads at once while the DMA engine drains the previous
// buffer, so copying into pinned memory and the PCIe transfer overlap.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <deque>
#include <vector>

#include "context.hpp"
#include "gpu_backend.hpp"

namespace gpueig::gpu {

// Below this many bytes a transfer goes straight through cudaMemcpy (src/tuning.hpp).
constexpr size_t kStagingMinBytes = tuning::kStagingMinBytes;

// Copies a `height` x `width`-byte 2D region (row pitches in bytes) from host to device. The
// copies are queued on `st` (the context's stream if null); the host source may be reused on
// return.
Status upload(Context &ctx, void *dev, size_t dpitch, const void *host, size_t hpitch,
              size_t width, size_t height, cudaStream_t st = nullptr);

// Copies device to host, after everything queued before it on `st` (the context's stream if
// null); returns when the data is in `host`. *wrote (when given) is set once a copy into `host`
// has been issued: after a failure it says whether `host` may be partly written.
Status download(Context &ctx, void *host, size_t hpitch, const void *dev, size_t dpitch,
                size_t width, size_t height, cudaStream_t st = nullptr, bool *wrote = nullptr);

// A 2D region to download, once `after` (if not null) has completed.
struct Region {
  void *host;
  size_t hpitch;
  const void *dev;
  size_t dpitch, width, height;
  cudaEvent_t after;
};

// Downloads regions in order through one pipeline over the ring, however many are added and
// however small: a region's transfer overlaps the host copy of the ones before it. add() may
// copy out earlier pieces to free a buffer; finish() returns when all of it is in host memory.
class Downloader {
 public:
  // *wrote (when given) is set once a piece is copied into host memory.
  Downloader(Context &ctx, cudaStream_t st, bool *wrote = nullptr)
      : ctx_(ctx), st_(st), wrote_(wrote) {}
  Status add(const Region &r);
  Status finish();

 private:
  struct InFlight {
    char *host;
    size_t hpitch, len, rows;
    int buffer;
  };
  Status drain_one();

  Context &ctx_;
  cudaStream_t st_;
  bool *wrote_;
  PinnedRing *ring_ = nullptr;
  std::deque<InFlight> flight_;
  std::vector<cudaEvent_t> waits_;  // events not yet waited for by a queued piece
  size_t next_ = 0;                 // pieces queued so far (picks the ring buffer)
};

}  // namespace gpueig::gpu
