// gpu_toeplitz_eig's GPU half: the two half-size blocks of the symmetric Toeplitz matrix T are
// formed on the device from t alone (never the dense n x n T) and reduced to tridiagonal form by
// the library's own Givens method (cuda/sytrd_chase.cu), both at once, each from a host thread of
// its own (sytrd_two_stage waits for its stream at its end, and one half alone leaves most of the
// GPU idle: stage 1 is a chain of panel kernels on a few SMs, the bulge chasing a pipeline of
// n/64 warps). The eigenvalues of the two tridiagonal matrices are then found by the library's GPU
// bisection (src/toeplitz.cpp), which also merges the two spectra.
#include <algorithm>
#include <cmath>
#include <exception>
#include <thread>

#include "context.hpp"
#include "hardware.hpp"
#include "device_util.hpp"
#include "sytrd.hpp"

namespace gpueig::gpu {
namespace {

constexpr size_t kD = sizeof(double);

// The half block of sign +1 (symmetric eigenvectors) or -1 (skew-symmetric), both triangles:
//   H(i,j) = t(|i-j|) + sign t(n-1-i-j),  i, j < k = n/2,
// and for sign +1 and odd n the middle row and column sqrt(2) t(k-i), H(k,k) = t(0).
__global__ void half_block_kernel(const double *t, int64_t n, int sign, double *h, int64_t size) {
  const int64_t k = n / 2;
  const double r2 = 1.4142135623730951;
  for (int64_t idx = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; idx < size * size;
       idx += int64_t(gridDim.x) * blockDim.x) {
    const int64_t i = idx % size, j = idx / size;
    double v;
    if (i < k && j < k) v = t[i > j ? i - j : j - i] + sign * t[n - 1 - i - j];
    else if (i < k) v = r2 * t[k - i];  // j = k
    else if (j < k) v = r2 * t[k - j];  // i = k
    else v = t[0];
    h[idx] = v;
  }
}

// One half: formed from t (host, n entries), reduced, its tridiagonal form downloaded into d, e.
Status reduce_half(int64_t n, const double *t, int sign, int64_t size, double *d, double *e) {
  DeviceScope scope;
  Context *ctx = nullptr;
  Status s = enter(scope, ctx);
  if (!s) return s;
  cudaStream_t st = ctx->stream();
  WorkspacePlan plan;
  const size_t o_h = plan.add_array<double>(size_t(size) * size), o_t = plan.add_array<double>(n);
  const size_t o_d = plan.add_array<double>(size), o_e = plan.add_array<double>(size);
  const size_t o_inv = plan.add_array<SimilarityInvariants>(1);
  const size_t o_work = plan.add(sytrd_two_stage_bytes(size, SytrdZ::none));
  Workspace buf(st);
  if (!(s = buf.allocate(plan))) return s;
  double *h = buf.at<double>(o_h), *dt = buf.at<double>(o_t), *dd = buf.at<double>(o_d),
         *de = buf.at<double>(o_e);
  auto *dinv = buf.at<SimilarityInvariants>(o_inv);
  void *dwork = buf.at<char>(o_work);
  if (!(s = check(cudaMemcpyAsync(dt, t, n * kD, cudaMemcpyHostToDevice, st), "cudaMemcpyAsync")))
    return s;
  const unsigned grid =
      static_cast<unsigned>(std::min<int64_t>(8192, (size * size + 255) / 256));
  half_block_kernel<<<std::max(grid, 1u), 256, 0, st>>>(dt, n, sign, h, size);
  if (!(s = check_launch("toeplitz half_block_kernel"))) return s;
  if (size == 1) {
    if (!(s = check(cudaMemcpyAsync(d, h, kD, cudaMemcpyDeviceToHost, st), "cudaMemcpyAsync")))
      return s;
    return check(cudaStreamSynchronize(st), "toeplitz");
  }
  SimilarityInvariants inv{};
  if (!(s = similarity_invariants(st, h, size, size, dinv)) ||
      !(s = sytrd_two_stage(st, size, h, size, dd, de, nullptr, 0, SytrdZ::none, dwork)) ||
      !(s = check_download("toeplitz download")) ||
      !(s = check(cudaMemcpyAsync(d, dd, size * kD, cudaMemcpyDeviceToHost, st), "cudaMemcpyAsync")) ||
      !(s = check(cudaMemcpyAsync(e, de, (size - 1) * kD, cudaMemcpyDeviceToHost, st),
                   "cudaMemcpyAsync")) ||
      !(s = check(cudaMemcpyAsync(&inv, dinv, sizeof inv, cudaMemcpyDeviceToHost, st),
                   "cudaMemcpyAsync")) ||
      !(s = check(cudaStreamSynchronize(st), "toeplitz")))
    return s;
  // A wrong tridiagonal form (see SimilarityInvariants) sends the whole call to the CPU.
  if (!keeps_invariants(inv, size, d, e))
    return Status::fail(Status::unsafe, "a half block's T does not keep its Frobenius norm and "
                                        "trace: the CPU method instead");
  return Status::success();
}

}  // namespace

Status toeplitz_tridiagonals(int64_t n, const double *t, ToeplitzHalves *halves,
                             const std::function<Status(int)> &then) {
  const int64_t k = n / 2;
  const int64_t sizes[2] = {k + (n % 2), k};  // symmetric half (with the middle row), skew half
  const int signs[2] = {+1, -1};
  for (int h = 0; h < 2; ++h) {
    halves[h].size = sizes[h];
    halves[h].d.assign(std::max<int64_t>(sizes[h], 1), 0.0);
    halves[h].e.assign(std::max<int64_t>(sizes[h] - 1, 1), 0.0);
  }
  // One half, reduced and then handed to `then`, on the calling thread.
  auto half = [&](int h) {
    Status s = reduce_half(n, t, signs[h], sizes[h], halves[h].d.data(), halves[h].e.data());
    return (s && then) ? then(h) : s;
  };
  Status second = Status::success();
  std::thread worker;
  bool threaded = sizes[1] > 0;
  if (threaded) {
    try {
      worker = std::thread([&] {
        // No exception may leave the thread (std::terminate would end the caller's process).
        try {
          second = half(1);
        } catch (const std::exception &ex) {
          second.code = Status::device_error;
          try {
            second.reason = ex.what();
          } catch (...) {
          }
        } catch (...) {
          second.code = Status::device_error;
        }
      });
    } catch (...) {  // no thread to be had: one half after the other
      threaded = false;
    }
  }
  Status first;
  try {
    first = half(0);
  } catch (...) {
    if (threaded) worker.join();  // a joinable std::thread must not be destroyed
    throw;
  }
  if (threaded) worker.join();
  else if (sizes[1] > 0 && first)
    second = half(1);
  return first ? second : first;
}

}  // namespace gpueig::gpu
