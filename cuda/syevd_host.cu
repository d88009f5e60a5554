// gpu_syevd's GPU half (Device::syevd) and its device twin (Device::syevd_dev): the triangle UPLO
// comes in (uploaded from the host, or copied from the caller's device memory) and is mirrored
// (cuda/sytrd_host.cu's steps), scaled by a power of two where DSYEVD scales A, reduced to
// T = Q^T A Q by the two-stage Givens method with Q formed, and then
//   JOBZ 'N': T's eigenvalues by bisection (gpu_stebz's GPU path, on the host's copy of T);
//   JOBZ 'V': T = Z L Z^T by divide and conquer on the device (cuda/stedc.cu), the pairs
//             certified there (LAPACK's two test ratios, below), A's eigenvectors Q Z by a
//             cuBLAS product, downloaded into A (the twin: copied over the caller's A).
// Anything that fails a check is `unsafe`: the CPU recomputes it with DSYEVD. The reduction and
// the certification are shared with gpu_syevx (cuda/symmetric_eigen.hpp).
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <vector>

#include "context.hpp"
#include "cublas_loader.hpp"
#include "device_util.hpp"
#include "hardware.hpp"
#include "scaling.hpp"
#include "staging.hpp"
#include "stedc.hpp"
#include "symmetric_eigen.hpp"
#include "sytrd.hpp"
#include "workspace.hpp"

namespace gpueig::gpu {
namespace {

constexpr size_t kD = sizeof(double);
constexpr int kThreads = 256;
// T's eigenpairs are returned only with both of LAPACK's test ratios (DSTT21-like residual, DORT01
// orthogonality) within its threshold; the divide and conquer reaches about 1.
constexpr double kCertifyRatio = 30.0;
constexpr double kUlp = DBL_EPSILON;  // DLAMCH('P')

__global__ void scale_kernel(double *a, int64_t lda, int64_t n, double sigma) {
  for (int64_t idx = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; idx < n * n;
       idx += int64_t(gridDim.x) * blockDim.x)
    a[idx % n + idx / n * lda] *= sigma;
}

// The largest of non-negative doubles (their bit patterns order as they do); NaN wins.
__device__ inline void atomic_max_nonneg(double *at, double v) {
  if (isnan(v)) v = INFINITY;
  atomicMax(reinterpret_cast<unsigned long long *>(at), static_cast<unsigned long long>(__double_as_longlong(v)));
}

__device__ inline double block_sum(double v) {
  __shared__ double part[kThreads / 32];
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  if (threadIdx.x % 32 == 0) part[threadIdx.x / 32] = v;
  __syncthreads();
  v = 0;
  if (threadIdx.x == 0)
    for (int w = 0; w < kThreads / 32; ++w) v += part[w];
  return v;
}

// A block per column j: ratio[0] = max_j ||T z_j - lambda_j z_j||_1, T = tridiag(e, d, e).
__global__ void __launch_bounds__(kThreads) residual_kernel(const double *d, const double *e, const double *lam,
                                                            const double *z, int64_t ldz, int64_t n,
                                                            double *ratio) {
  const int64_t j = blockIdx.x;
  const double *x = z + j * ldz;
  double s = 0;
  for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
    double t = (d[i] - lam[j]) * x[i];
    if (i > 0) t += e[i - 1] * x[i - 1];
    if (i + 1 < n) t += e[i] * x[i + 1];
    s += fabs(t);
  }
  s = block_sum(s);
  if (threadIdx.x == 0) atomic_max_nonneg(ratio, s);
}

// A block per column j of G = Z^T Z: ratio[1] = max_j sum_i |G(i, j) - delta_ij|.
__global__ void __launch_bounds__(kThreads) orthogonality_kernel(const double *g, int64_t ldg, int64_t n,
                                                                 double *ratio) {
  const int64_t j = blockIdx.x;
  double s = 0;
  for (int64_t i = threadIdx.x; i < n; i += blockDim.x) s += fabs(g[i + j * ldg] - (i == j ? 1.0 : 0.0));
  s = block_sum(s);
  if (threadIdx.x == 0) atomic_max_nonneg(ratio + 1, s);
}

unsigned grid_for(int64_t count) {
  return static_cast<unsigned>(std::min<int64_t>(8192, std::max<int64_t>(1, (count + kThreads - 1) / kThreads)));
}

// JOBZ 'N': T's eigenvalues (host d, e) by bisection on the GPU into w (host, n; in T's scale).
Status eigenvalues_only(int64_t n, const double *d, const double *e, double *w) {
  std::vector<int> iblock(n), isplit(n);
  int m = 0, nsplit = 0, info = 0;
  Status s = gpu::stebz('A', 'E', int(n), 0, 0, 0, 0, 0.0, d, e, &m, &nsplit, w, iblock.data(), isplit.data(),
                        &info);
  if (!s) return s;
  if (info != 0 || m != n) return Status::fail(Status::unsafe, "bisection did not find every eigenvalue");
  return Status::success();
}

// w := d / sigma on the device (exact: sigma is a power of two), the eigenvalues back in A's scale.
__global__ void unscale_kernel(const double *d, int64_t n, double sigma, double *w) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
    w[i] = d[i] / sigma;
}

// The device arrays of gpu_syevd's method: the reduction's (r; Q formed for JOBZ 'V'), Z, T's
// copy for the residual and the check's two ratios.
struct SyevdBuffers {
  Workspace buf;
  ReductionArrays r{};
  double *z = nullptr, *t = nullptr, *ratio = nullptr;

  explicit SyevdBuffers(cudaStream_t st) : buf(st) {}
  Status allocate(int64_t n, bool wantz) {
    const SytrdZ zmode = wantz ? SytrdZ::form : SytrdZ::none;
    const size_t nn = size_t(n) * size_t(n);
    WorkspacePlan plan;
    const size_t o_a = plan.add_array<double>(nn);
    const size_t o_q = wantz ? plan.add_array<double>(nn) : 0, o_z = wantz ? plan.add_array<double>(nn) : 0;
    const size_t o_d = plan.add_array<double>(n), o_e = plan.add_array<double>(n);
    const size_t o_t = plan.add_array<double>(2 * n), o_ratio = plan.add_array<double>(2);
    const size_t o_flag = plan.add_array<int>(1);
    const size_t o_inv = plan.add_array<SimilarityInvariants>(1);
    const size_t o_work =
        plan.add(std::max(sytrd_two_stage_bytes(n, zmode), wantz ? stedc_device_bytes(n) : 0));
    const Status s = buf.allocate(plan);
    if (!s) return s;
    r = {buf.at<double>(o_a),   wantz ? buf.at<double>(o_q) : nullptr, buf.at<double>(o_d),
         buf.at<double>(o_e),   buf.at<int>(o_flag),                   buf.at<SimilarityInvariants>(o_inv),
         buf.at<char>(o_work)};
    z = wantz ? buf.at<double>(o_z) : nullptr;
    t = buf.at<double>(o_t);
    ratio = buf.at<double>(o_ratio);
    return s;
  }
};

// gpu_syevd's method on A's triangle uplo (the host's, or device memory with a_on_device), queued
// on st (blas bound to it; null for JOBZ 'N'): A scaled by *sigma where DSYEVD would scale it and
// reduced to T = Q^T A Q (checked). JOBZ 'N': T's eigenvalues into host_w (n, host, in T's scale).
// JOBZ 'V': T = Z L Z^T by divide and conquer, certified, L in b.r.d (T's scale) and A's
// eigenvectors Q Z in b.r.a, on the device. `unsafe` wherever a check fails.
Status syevd_on(Context &ctx, cudaStream_t st, cublasHandle_t blas, char jobz, char uplo, int64_t n,
                const double *a, int64_t lda, bool a_on_device, SyevdBuffers &b, double *host_w, double *sigma) {
  const ReductionArrays &r = b.r;
  // 1. A scaled where DSYEVD would scale it, reduced to T = Q^T A Q (checked).
  HostTridiagonal t;
  Status s = reduce_symmetric(ctx, st, uplo, n, a, lda, a_on_device, dsyevd_rmax(), r, &t);
  if (!s) return s;
  *sigma = t.sigma;
  if (jobz != 'V') return eigenvalues_only(n, t.d.data(), t.e.data(), host_w);

  // 2. T's eigenpairs: r.d := L, b.z := Z (T's copy kept in b.t for the residual).
  if (!(s = check(cudaMemcpyAsync(b.t, r.d, n * kD, cudaMemcpyDeviceToDevice, st), "cudaMemcpyAsync")) ||
      (n > 1 && !(s = check(cudaMemcpyAsync(b.t + n, r.e, (n - 1) * kD, cudaMemcpyDeviceToDevice, st),
                            "cudaMemcpyAsync"))))
    return s;
  int info = 0;
  if (!(s = stedc_device(blas, st, n, r.d, r.e, b.z, n, r.work, &info))) return s;
  if (info != 0) return Status::fail(Status::unsafe, "divide and conquer did not converge: recomputed by LAPACK");

  // 3. Certified (Z^T Z formed in r.a, free since the reduction).
  bool ok = false;
  if (!(s = certify_pairs(st, blas, n, n, b.t, b.t + n, r.d, b.z, n, r.a, b.ratio, t.norm, &ok))) return s;
  if (!ok) return Status::fail(Status::unsafe, "T's eigenpairs failed their check: recomputed by LAPACK");

  // 4. A's eigenvectors Q Z into r.a.
  const CublasApi *api = cublas_api(nullptr);
  const double one = 1, zero = 0;
  return check(api->dgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, int(n), int(n), int(n), &one, r.q, int(n), b.z, int(n),
                          &zero, r.a, int(n)),
               "cublasDgemm");
}

}  // namespace

double dsyevd_rmax() { return std::sqrt(scaling::kPrecision / DBL_MIN); }

double dsyevx_rmax() { return std::min(dsyevd_rmax(), 1 / std::sqrt(std::sqrt(DBL_MIN))); }

Status reduce_symmetric(Context &ctx, cudaStream_t st, char uplo, int64_t n, const double *a, int64_t lda,
                        bool a_on_device, double rmax, const ReductionArrays &r, HostTridiagonal *t) {
  Status s;
  // A in, checked, and scaled by a power of two into [1 / rmax, rmax] (DSYEVD's and DSYEVX's
  // RMIN = sqrt(SMLNUM) is 1 / RMAX for DSYEVD; DSYEVX's RMAX is smaller), invariants again.
  if (!(s = load_symmetric(ctx, st, uplo, n, a, lda, a_on_device, r.a, r.flag, r.inv))) return s;
  SimilarityInvariants inv{};
  if (!(s = check(cudaMemcpyAsync(&inv, r.inv, sizeof inv, cudaMemcpyDeviceToHost, st), "cudaMemcpyAsync")) ||
      !(s = check(cudaStreamSynchronize(st), "reduce_symmetric")))
    return s;
  t->amax = inv.amax;
  t->sigma = scaling::power_of_two_into(inv.amax, std::sqrt(DBL_MIN / scaling::kPrecision), rmax);
  if (t->sigma != 1) {
    scale_kernel<<<grid_for(n * n), kThreads, 0, st>>>(r.a, n, n, t->sigma);
    if (!(s = check_launch("scale_kernel")) || !(s = similarity_invariants(st, r.a, n, n, r.inv))) return s;
  }
  // T = Q^T A Q, checked; the host's copy of T.
  t->d.assign(n, 0.0);
  t->e.assign(std::max<int64_t>(1, n - 1), 0.0);
  const SytrdZ zmode = r.q ? SytrdZ::form : r.keep_q ? SytrdZ::apply : SytrdZ::none;
  if (r.q && !(s = set_identity(st, r.q, n, n))) return s;
  if (!(s = sytrd_two_stage(st, n, r.a, n, r.d, r.e, r.q, n, zmode, r.work)) ||
      !(s = check_reduction(ctx, st, n, r.d, r.e, r.q, r.flag, r.inv, t->d.data(), t->e.data())))
    return s;
  t->norm = 0;
  for (int64_t i = 0; i < n; ++i)
    t->norm = std::max(t->norm, std::fabs(t->d[i]) + (i > 0 ? std::fabs(t->e[i - 1]) : 0) +
                                    (i + 1 < n ? std::fabs(t->e[i]) : 0));
  return Status::success();
}

Status certify_pairs(cudaStream_t st, cublasHandle_t blas, int64_t n, int64_t m, const double *dd,
                     const double *de, const double *lam, const double *z, int64_t ldz, double *g,
                     double *ratio, double tnorm, bool *ok) {
  const CublasApi *api = cublas_api(nullptr);
  const double one = 1, zero = 0;
  Status s;
  if (!(s = check(cudaMemsetAsync(ratio, 0, 2 * kD, st), "cudaMemsetAsync"))) return s;
  residual_kernel<<<unsigned(m), kThreads, 0, st>>>(dd, de, lam, z, ldz, n, ratio);
  if (!(s = check_launch("residual_kernel")) ||
      !(s = check(api->dgemm(blas, CUBLAS_OP_T, CUBLAS_OP_N, int(m), int(m), int(n), &one, z,
                                     int(ldz), z, int(ldz), &zero, g, int(m)), "cublasDgemm")))
    return s;
  orthogonality_kernel<<<unsigned(m), kThreads, 0, st>>>(g, m, m, ratio);
  if (!(s = check_launch("orthogonality_kernel"))) return s;
  double r[2] = {0, 0};
  if (!(s = check(cudaMemcpyAsync(r, ratio, sizeof r, cudaMemcpyDeviceToHost, st), "cudaMemcpyAsync")) ||
      !(s = check(cudaStreamSynchronize(st), "certify_pairs")))
    return s;
  const double res = r[0] == 0 ? 0 : r[0] / (double(n) * (tnorm > 0 ? tnorm : 1) * kUlp);
  const double orth = r[1] / (double(n) * kUlp);
  *ok = res <= kCertifyRatio && orth <= kCertifyRatio;
  return Status::success();
}

Status syevd(char jobz, char uplo, int64_t n, double *a, int64_t lda, double *w) {
  const bool wantz = jobz == 'V';
  if (wantz && n > kDenseEigenMaxOrder) return Status::fail(Status::unavailable, "syevd: n > 65535");
  DeviceScope scope;
  Context *ctx = nullptr;
  cublasHandle_t blas = nullptr;
  Status s = enter(scope, ctx, wantz, &blas);
  if (!s) return s;
  cudaStream_t st = ctx->stream();
  SyevdBuffers b(st);
  std::vector<double> vals(n);
  double sigma = 1;
  if (!(s = b.allocate(n, wantz)) || !(s = syevd_on(*ctx, st, blas, jobz, uplo, n, a, lda, false, b, vals.data(), &sigma)))
    return s;
  if (wantz) {  // the results down
    if (!(s = download(*ctx, vals.data(), n * kD, b.r.d, n * kD, n * kD, 1))) return s;
    // A is the input too: once part of it is overwritten, nothing can be recomputed.
    bool wrote = false;
    if (!(s = download(*ctx, a, lda * kD, b.r.a, n * kD, n * kD, n, nullptr, &wrote)))
      return wrote ? Status::fail(Status::output_lost, s.reason) : s;
  }
  for (int64_t i = 0; i < n; ++i) w[i] = vals[i] / sigma;
  return Status::success();
}

// The device twin: the same method on the caller's stream, A read from device memory; the results
// copied into the caller's W and A (JOBZ 'V') on the device, INFO := 0 there. The call waits for
// the stream where the method reads its checks' verdicts; A and W are written only after all of
// them have passed (`unsafe` leaves both untouched for the host's recompute).
Status syevd_dev(char jobz, char uplo, int64_t n, double *a, int64_t lda, double *w, int *info, void *stream) {
  const bool wantz = jobz == 'V';
  if (wantz && n > kDenseEigenMaxOrder) return Status::fail(Status::unavailable, "syevd: n > 65535");
  CallerStream call(stream);
  cublasHandle_t blas = nullptr;
  Status s = wantz ? call.enter(&blas) : call.enter();
  if (!s) return s;
  cudaStream_t st = call.stream();
  SyevdBuffers b(st);
  std::vector<double> vals(wantz ? 0 : n);
  double sigma = 1;
  if (!(s = b.allocate(n, wantz)) ||
      !(s = syevd_on(call.context(), st, blas, jobz, uplo, n, a, lda, true, b, vals.data(), &sigma)))
    return s;
  if (!wantz) {
    for (double &v : vals) v /= sigma;
    const int zero = 0;
    return upload_packed(call, {{w, vals.data(), n * kD}, {info, &zero, sizeof(int)}});
  }
  unscale_kernel<<<grid_for(n), kThreads, 0, st>>>(b.r.d, n, sigma, w);
  if (!(s = check_launch("syevd unscale_kernel")) ||
      !(s = check(cudaMemcpy2DAsync(a, lda * kD, b.r.a, n * kD, n * kD, n, cudaMemcpyDeviceToDevice, st),
                  "cudaMemcpy2DAsync")))
    return s;
  return check(cudaMemsetAsync(info, 0, sizeof(int), st), "cudaMemsetAsync");
}

}  // namespace gpueig::gpu
