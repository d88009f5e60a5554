// gpu_getrf_crout with host pointers: the matrix through the pinned ring (cuda/staging.cu), the
// device factorization (cuda/getrf.cu), then IPIV, INFO and the factors back.
#include <algorithm>
#include <vector>

#include "context.hpp"
#include "getrf.hpp"
#include "staging.hpp"

namespace gpueig::gpu {
namespace {

constexpr size_t kD = sizeof(double);

// Device memory of one call, stream-ordered: returned to the pool (and the pool trimmed) when the
// call ends, so a large factorization does not keep gigabytes for the rest of the process.
class StreamBuffer {
 public:
  explicit StreamBuffer(cudaStream_t st) : st_(st) {}
  ~StreamBuffer() {
    if (p_) cudaFreeAsync(p_, st_);
  }
  Status allocate(size_t bytes) {
    return check(cudaMallocAsync(&p_, bytes, st_), "cudaMallocAsync");
  }
  char *get() const { return static_cast<char *>(p_); }

 private:
  cudaStream_t st_;
  void *p_ = nullptr;
};

size_t round_up(size_t b) { return (b + 255) / 256 * 256; }

}  // namespace

Status getrf(int64_t m, int64_t n, double *a, int64_t lda, int *ipiv, int *info) {
  DeviceScope scope;
  if (!scope.status()) return scope.status();
  Context *ctx = nullptr;
  Status s = Context::get(ctx);
  cublasHandle_t blas = nullptr;
  if (s) s = ctx->blas(&blas);
  if (!s) return s;
  cudaStream_t st = ctx->stream();
  const int64_t mn = std::min(m, n);
  // Columns padded to 32 rows keep every column 256-byte aligned for the tensor-core DGEMMs.
  const int64_t ldd = (m + 31) / 32 * 32;
  const size_t mat = round_up(static_cast<size_t>(ldd) * n * kD);
  const size_t piv = round_up(mn * sizeof(int));
  StreamBuffer buf(st);
  if (!(s = buf.allocate(mat + piv + 256 + getrf_scratch_bytes()))) return s;
  double *dA = reinterpret_cast<double *>(buf.get());
  int *dipiv = reinterpret_cast<int *>(buf.get() + mat);
  int *flags = reinterpret_cast<int *>(buf.get() + mat + piv);  // INFO, non-finite
  void *scratch = buf.get() + mat + piv + 256;

  if (!(s = upload(*ctx, dA, ldd * kD, a, lda * kD, m * kD, n)) ||
      !(s = getrf_device(blas, st, m, n, dA, ldd, dipiv, flags, flags + 1, scratch)))
    return s;
  int host_flags[2] = {0, 0};
  std::vector<int> host_ipiv(mn);
  if (!(s = check(cudaMemcpyAsync(host_flags, flags, sizeof host_flags, cudaMemcpyDeviceToHost,
                                  st),
                  "cudaMemcpyAsync")) ||
      !(s = check(cudaMemcpyAsync(host_ipiv.data(), dipiv, mn * sizeof(int),
                                  cudaMemcpyDeviceToHost, st),
                  "cudaMemcpyAsync")) ||
      !(s = check(cudaStreamSynchronize(st), "getrf")))
    return s;
  // LAPACK's INFO on NaN or Inf entries follows its BLAS's IDAMAX (which entry wins against a
  // NaN): only LAPACK itself reproduces it. Nothing was written to the caller's arrays yet.
  if (host_flags[1])
    return Status::fail(Status::unsafe, "A holds NaN or Inf entries: factored by LAPACK");
  if (!(s = download(*ctx, a, lda * kD, dA, ldd * kD, m * kD, n)))
    return Status::fail(Status::output_lost, s.reason);
  std::copy(host_ipiv.begin(), host_ipiv.end(), ipiv);
  *info = host_flags[0];
  return Status::success();
}

}  // namespace gpueig::gpu
