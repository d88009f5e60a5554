// Small device utilities shared by the routines' host halves: the NaN/Inf scan that sends such
// inputs to LAPACK, streams and events.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "context.hpp"
#include "workspace.hpp"

namespace gpueig::gpu {

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

// Small arrays of the caller's device memory to the host (download_packed, waits for the
// stream) and back (upload_packed, queued; returns once the host data is taken), in one transfer
// each: packed 8-byte aligned in workspace by one kernel (a single array is copied as it is).
// Each bytes a multiple of 4. A separate
// cudaMemcpyAsync per small array costs about 7 us of driver time: gpu_stebz_dev's six came to
// about 50 us over the host call's time (H100, n = 1024).
Status download_packed(CallerStream &call, const std::vector<ToHost> &pieces);
Status upload_packed(CallerStream &call, const std::vector<ToDevice> &pieces);

}  // namespace gpueig::gpu
