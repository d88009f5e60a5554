// cuBLAS, loaded when a call first needs it (getrf's trailing updates, sytrd's Householder stage
// 1) instead of when libgpueig.so is loaded: the library then loads, and runs on the CPU, on a machine without the
// CUDA toolkit's libraries, and a missing cuBLAS is one more reason for the CPU path
// (GPUEIG_VERBOSE names it) or, with the GPU forced, GPUEIG_ERR_DEVICE.
#pragma once
#include <cublas_v2.h>

#include <string>

#include "gpu_backend.hpp"

namespace gpueig::gpu {

// The cuBLAS entry points the library uses, resolved from the cuBLAS of the toolkit it was built
// with (GPUEIG_CUBLAS_SONAME, e.g. libcublas.so.13).
struct CublasApi {
  decltype(&cublasCreate_v2) create;
  decltype(&cublasDestroy_v2) destroy;
  decltype(&cublasSetStream_v2) set_stream;
  decltype(&cublasGetStream_v2) get_stream;
  decltype(&cublasDgemm_v2) dgemm;
  decltype(&cublasDtrsm_v2) dtrsm;
  decltype(&cublasDsymm_v2) dsymm;    // sytrd's Householder stage 1
  decltype(&cublasDsyr2k_v2) dsyr2k;
};

// The loaded table, or nullptr with *why saying what failed (the library that could not be
// loaded or the symbol it lacks). Loaded once per process; thread-safe.
const CublasApi *cublas_api(std::string *why);

// A cuBLAS call's status as the library's: success, or device_error "WHAT failed".
Status check(cublasStatus_t status, const char *what);

}  // namespace gpueig::gpu
