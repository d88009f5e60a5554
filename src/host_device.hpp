// GPUEIG_HD marks a function that the host and the GPU kernels both run (compiled for both by
// nvcc, a plain function elsewhere): the arithmetic a CUDA kernel does and the one the CPU tests
// check are then the same code.
#pragma once

#ifdef __CUDACC__
#define GPUEIG_HD __host__ __device__
#else
#define GPUEIG_HD
#endif
