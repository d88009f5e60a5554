// bench::fill_random (bench/bench.hpp).
#include "bench.hpp"

namespace bench {
namespace {

__global__ void fill_random_kernel(double *a, int64_t count, uint64_t seed) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count;
       i += int64_t(gridDim.x) * blockDim.x) {
    uint64_t z = (uint64_t(i) + seed) * 0x9E3779B97F4A7C15ull;  // splitmix64
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    a[i] = double(z >> 11) * 0x1.0p-52 - 1.0;
  }
}

}  // namespace

void fill_random(cudaStream_t stream, double *a, int64_t count, uint64_t seed) {
  fill_random_kernel<<<1024, 256, 0, stream>>>(a, count, seed);
  CUDA_OK(cudaGetLastError());
}

}  // namespace bench
