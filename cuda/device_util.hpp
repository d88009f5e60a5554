// Small device utilities shared by the routines' host halves: the NaN/Inf scan that sends such
// inputs to LAPACK, streams and events.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

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

}  // namespace gpueig::gpu
