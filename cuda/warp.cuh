// Warp-wide helpers shared by the kernels of several files.
#pragma once
#include <cstdint>

namespace gpueig::gpu {

// A warp as a team of the host/device tasks (host_device.hpp's SerialTeam on the host):
// lane-strided loops; sums and products combined by a tree and broadcast from lane 0, so that
// every lane holds the same bits and takes the same branches.
struct WarpTeam {
  __device__ int lane() const { return threadIdx.x % 32; }
  __device__ int width() const { return 32; }
  __device__ double sum(double x) const {
    for (int o = 16; o > 0; o >>= 1) x += __shfl_down_sync(0xffffffffu, x, o);
    return __shfl_sync(0xffffffffu, x, 0);
  }
  __device__ double prod(double x) const {
    for (int o = 16; o > 0; o >>= 1) x *= __shfl_down_sync(0xffffffffu, x, o);
    return __shfl_sync(0xffffffffu, x, 0);
  }
  __device__ double max(double x) const {
    for (int o = 16; o > 0; o >>= 1) x = fmax(x, __shfl_xor_sync(0xffffffffu, x, o));
    return x;  // (max is exact: every lane holds the same bits)
  }
  __device__ int64_t argmax(double v, int64_t i) const {
    for (int o = 16; o > 0; o >>= 1) {
      const double ov = __shfl_xor_sync(0xffffffffu, v, o);
      const int64_t oi = __shfl_xor_sync(0xffffffffu, i, o);
      if (ov > v || (ov == v && oi < i)) v = ov, i = oi;
    }
    return i;
  }
  template <class T>
  __device__ T bcast(T x, int k) const { return __shfl_sync(0xffffffffu, x, k); }
  __device__ void sync() const { __syncwarp(); }
};

// The largest of the 32 lanes' v, on every lane.
__device__ inline double warp_max(double v) {
  for (int o = 16; o > 0; o >>= 1) v = fmax(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

}  // namespace gpueig::gpu
