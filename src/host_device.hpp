// GPUEIG_HD marks a function that the host and the GPU kernels both run (compiled for both by
// nvcc, a plain function elsewhere): the arithmetic a CUDA kernel does and the one the CPU tests
// check are then the same code.
#pragma once
#include <cstdint>

#ifdef __CUDACC__
#define GPUEIG_HD __host__ __device__
#else
#define GPUEIG_HD
#endif

namespace gpueig {

// A team shares a task written for the host and the GPU: member `lane` of `width` takes the
// loop indices j = lane, lane + width, ...; sum, prod and max combine the members' parts and give
// every member the same value (so that all of them take the same branches); argmax(v, i) the i
// of the largest v (the smallest i among equals); bcast(x, k) member k's x, on every member; sync
// orders the members' memory accesses. On
// the host a team of one (this); on the GPU a warp (cuda/warp.cuh's WarpTeam).
struct SerialTeam {
  GPUEIG_HD int lane() const { return 0; }
  GPUEIG_HD int width() const { return 1; }
  GPUEIG_HD double sum(double x) const { return x; }
  GPUEIG_HD double prod(double x) const { return x; }
  GPUEIG_HD double max(double x) const { return x; }
  GPUEIG_HD int64_t argmax(double, int64_t i) const { return i; }
  template <class T>
  GPUEIG_HD T bcast(T x, int) const { return x; }
  GPUEIG_HD void sync() const {}
};

}  // namespace gpueig
