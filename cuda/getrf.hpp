// LU factorization with partial pivoting of a device-resident matrix (blocked Crout order, LAPACK's
// SRC/VARIANTS/lu/CR), used by the host-pointer entry point (cuda/getrf_host.cu) and the benchmark.
#pragma once
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "gpu_backend.hpp"

namespace gpueig::gpu {

// Block size of the Crout loop (columns per panel) for min(m, n) = mn, tuned on the H100
// (gpueig_bench's block sweep, 2026-11-21): 64 at 8192 (43.4 ms against 45.2 with 128 and 50.8
// with 256), 128 at 16384 (156.8 ms against 160.0 with 64 and 170.0 with 256). A wider panel
// costs more columns of the latency-bound panel kernel per DGEMM; a narrower one more, smaller
// DGEMMs, which only pays while they are small anyway.
inline int getrf_block(int64_t mn) { return mn < 12288 ? 64 : 128; }

// Device scratch getrf_device needs (pivot candidates of the panel kernel, the flags).
size_t getrf_scratch_bytes();

// A = P L U in place for the m x n matrix `a` (leading dimension lda, device memory), as DGETRF:
// `ipiv` (device, min(m, n) ints) receives 1-based row interchanges, `*info` (device) DGETRF's
// INFO (first exactly zero U(i,i), factorization completed). `*nonfinite` (device) is set to 1 if
// A holds a NaN or an infinity. Everything is queued on `stream` (whose work the cuBLAS handle
// must follow); nothing waits. nb = 0 takes getrf_block(min(m, n)). Returns `unavailable` if a panel is
// too tall for the on-chip panel kernel (more than 524288 rows).
Status getrf_device(cublasHandle_t blas, cudaStream_t stream, int64_t m, int64_t n, double *a,
                    int64_t lda, int *ipiv, int *info, int *nonfinite, void *scratch, int nb = 0);

}  // namespace gpueig::gpu
