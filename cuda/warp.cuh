// Warp-wide helpers shared by the kernels of several files.
#pragma once

namespace gpueig::gpu {

// The largest of the 32 lanes' v, on every lane.
__device__ inline double warp_max(double v) {
  for (int o = 16; o > 0; o >>= 1) v = fmax(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

}  // namespace gpueig::gpu
