// Tridiagonal solve by parallel cyclic reduction on device-resident data (used by the host-pointer
// entry point and by the benchmark).
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "gpu_backend.hpp"

namespace gpueig::gpu {

// The solution is accepted only if ||b - A x||_1 / (||A||_1 ||x||_1 eps) stays at or below this
// for every right-hand side: LAPACK's DGTT02 ratio with eps = 2^-53, whose test threshold is 30.
// Kept well below 10 so an accepted answer is never worse than 10x DGTSV's own (backward stable,
// ratio <= 1 in practice), with room for the device's different summation order.
constexpr double kGtsvResidualLimit = 8.0;
constexpr double kUnitRoundoff = 1.1102230246251565e-16;  // 2^-53, LAPACK's DLAMCH('E')

// Device workspace bytes gtsv_device needs for an n x nrhs problem.
size_t gtsv_workspace_bytes(int64_t n, int64_t nrhs);

// Solves A X = B with device pointers: dl, d, du (lengths n-1, n, n-1) are read only; x holds B
// (leading dimension ldx) on entry and X on exit. On any status but ok, x is unchanged.
// `work` must hold gtsv_workspace_bytes(n, nrhs). Synchronizes `stream` once (for the check).
Status gtsv_device(cudaStream_t stream, int64_t n, int64_t nrhs, const double *dl,
                   const double *d, const double *du, double *x, int64_t ldx, void *work);

}  // namespace gpueig::gpu
