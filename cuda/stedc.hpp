// All eigenvalues and eigenvectors of a symmetric tridiagonal matrix on the device, by divide
// and conquer: src/stedc_phases.hpp's phases, a warp or a thread per task, the products that
// carry the eigenvectors up the tree on cuBLAS.
#pragma once
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "gpu_backend.hpp"

namespace gpueig::gpu {

// Device workspace of stedc_device (bytes): about 3 n^2 doubles (the secular equations'
// differences, the kept columns and the products of a level).
size_t stedc_device_bytes(int64_t n);

// T = tridiag(e, d, e): d (n) is overwritten by the eigenvalues, ascending, z (ldz >= n) by the
// eigenvectors; e (n - 1) is read. All device memory; work holds stedc_device_bytes(n).
// *info (host): 0, or DSTEDC's INFO naming a leaf whose QL did not converge (d, z undefined).
// device_error when a secular root was not found within its cap (never expected) or a launch
// failed. The stream is synchronized once per level of the tree (the products' sizes are the
// deflation's result).
Status stedc_device(cublasHandle_t blas, cudaStream_t stream, int64_t n, double *d, const double *e,
                    double *z, int64_t ldz, void *work, int *info);

}  // namespace gpueig::gpu
