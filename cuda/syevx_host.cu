// gpu_syevx's GPU half for a subset of the spectrum (Device::syevx; the whole spectrum goes to
// gpu_syevd's): A up, scaled where DSYEVX scales it and reduced to T = Q^T A Q
// (cuda/symmetric_eigen.hpp), the wanted eigenvalues of T by the GPU's bisection (gpu_stebz's
// GPU half, ORDER 'B' for vectors as DSYEVX asks DSTEBZ), their vectors by gpu_stein's method on
// T already on the device (cuda/stein.hpp), the pairs certified there (LAPACK's residual and
// orthogonality ratios within 30), Q Z, the columns put in ascending order of the eigenvalues
// (DSYEVX's final sort), and only the n x M vectors downloaded (the device twin, syevx_dev: the
// same on the caller's device A and stream, the vectors copied into the caller's Z there). Q is
// kept as the reduction's blocks and applied to the M vectors (sytrd_apply_q: at n = 8192
// forming Q cost about 210 ms of the reduction's 555) where that workspace fits
// (sytrd_can_apply), else formed and multiplied by cuBLAS.
// Anything that fails is `unsafe`: the CPU recomputes the call with DSYEVX.
#include <algorithm>
#include <numeric>
#include <vector>

#include "context.hpp"
#include "cublas_loader.hpp"
#include "device_util.hpp"
#include "hardware.hpp"
#include "scaling.hpp"
#include "staging.hpp"
#include "stein.hpp"
#include "symmetric_eigen.hpp"
#include "workspace.hpp"

namespace gpueig::gpu {
namespace {

constexpr size_t kD = sizeof(double);

// out(:, j) = in(:, perm[j]) for the m columns of n rows (both ld n).
__global__ void gather_columns_kernel(const double *in, const int *perm, int64_t n, int64_t m, double *out) {
  for (int64_t idx = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; idx < n * m;
       idx += int64_t(gridDim.x) * blockDim.x)
    out[idx] = in[idx % n + int64_t(perm[idx / n]) * n];
}

// The device arrays and results of gpu_syevx's method for a subset: M, W(1..M) (host, ascending,
// in A's scale) and, for JOBZ 'V', the n x M vectors in that order (device, ld n, held in vbuf).
struct SyevxResult {
  int m = 0;
  std::vector<double> w;
  double *z = nullptr;
  Workspace buf, vbuf;
  explicit SyevxResult(cudaStream_t st) : buf(st), vbuf(st) {}
};

// gpu_syevx's method for a subset on A's triangle uplo (the host's, or device memory with
// a_on_device), queued on st (blas bound to it, for JOBZ 'V'; `caller` the device call's stream,
// null for the host call). `unsafe` wherever a check fails.
Status syevx_on(Context &ctx, CallerStream *caller, cudaStream_t st, cublasHandle_t blas, char jobz, char range,
                char uplo, int64_t n, const double *a, int64_t lda, bool a_on_device, double vl, double vu, int il,
                int iu, double abstol, SyevxResult &out) {
  const bool wantz = jobz == 'V';
  const size_t nn = size_t(n) * size_t(n);
  const bool keep_q = wantz && sytrd_can_apply(n), form_q = wantz && !keep_q;
  const SytrdZ zmode = form_q ? SytrdZ::form : keep_q ? SytrdZ::apply : SytrdZ::none;
  WorkspacePlan plan;
  const size_t o_a = plan.add_array<double>(nn), o_q = form_q ? plan.add_array<double>(nn) : 0;
  const size_t o_d = plan.add_array<double>(n), o_e = plan.add_array<double>(n);
  const size_t o_flag = plan.add_array<int>(1), o_inv = plan.add_array<SimilarityInvariants>(1);
  const size_t o_work = plan.add(sytrd_two_stage_bytes(n, zmode));
  Status s;
  if (!(s = out.buf.allocate(plan))) return s;
  Workspace &buf = out.buf;
  const ReductionArrays r{buf.at<double>(o_a), form_q ? buf.at<double>(o_q) : nullptr, buf.at<double>(o_d),
                          buf.at<double>(o_e), buf.at<int>(o_flag), buf.at<SimilarityInvariants>(o_inv),
                          buf.at<char>(o_work), keep_q};

  // 1. T = Q^T (sigma A) Q, checked.
  HostTridiagonal t;
  if (!(s = reduce_symmetric(ctx, st, uplo, n, a, lda, a_on_device, dsyevx_rmax(), r, &t))) return s;

  // 2. The wanted eigenvalues of T (VL, VU and ABSTOL scaled with A, as DSYEVX scales them).
  // (VL, VU] collapsing in DSYEVX's own scaling: none in it (gpu_syevx's documented M = 0).
  out.m = 0;
  if (range == 'V' && scaling::dsyevx_collapses(t.amax, vl, vu)) return Status::success();
  const double sigma = t.sigma;
  const double vll = range == 'V' ? vl * sigma : vl, vuu = range == 'V' ? vu * sigma : vu;
  const double abstll = abstol > 0 ? abstol * sigma : abstol;
  if (range == 'V' && !(vll < vuu)) return Status::success();  // (collapsed in our power of two)
  std::vector<double> vals(n);
  std::vector<int> iblock(n), isplit(n);
  int mm = 0, nsplit = 0, info = 0;
  if (!(s = gpu::stebz(range, wantz ? 'B' : 'E', int(n), vll, vuu, il, iu, abstll, t.d.data(), t.e.data(), &mm,
                       &nsplit, vals.data(), iblock.data(), isplit.data(), &info)))
    return s;
  if (info != 0) return Status::fail(Status::unsafe, "bisection: DSTEBZ INFO " + std::to_string(info) + ": LAPACK's turn");
  if (!wantz || mm == 0) {
    out.w.resize(mm);
    for (int j = 0; j < mm; ++j) out.w[j] = vals[j] / sigma;
    out.m = mm;
    return Status::success();
  }

  // 3. Their vectors, certified.
  WorkspacePlan vplan;
  const size_t o_w = vplan.add_array<double>(mm), o_z = vplan.add_array<double>(size_t(n) * mm);
  const size_t o_out = vplan.add_array<double>(size_t(n) * mm), o_g = vplan.add_array<double>(size_t(mm) * mm);
  const size_t o_ratio = vplan.add_array<double>(2), o_conv = vplan.add_array<int>(mm);
  const size_t o_perm = vplan.add_array<int>(mm);
  if (!(s = out.vbuf.allocate(vplan))) return s;
  Workspace &vbuf = out.vbuf;
  double *dw = vbuf.at<double>(o_w), *dz = vbuf.at<double>(o_z), *dout = vbuf.at<double>(o_out);
  int *conv = vbuf.at<int>(o_conv), *dperm = vbuf.at<int>(o_perm);
  if (!(s = upload(ctx, dw, mm * kD, vals.data(), mm * kD, mm * kD, 1, st)) ||
      !(s = stein_device(ctx, caller, int(n), t.d.data(), t.e.data(), r.d, r.e, mm, vals.data(), dw, iblock.data(),
                         isplit.data(), dz, n, conv)))
    return s;
  std::vector<int> ok(mm);
  if (!(s = download(ctx, ok.data(), mm * sizeof(int), conv, mm * sizeof(int), mm * sizeof(int), 1, st))) return s;
  if (std::count(ok.begin(), ok.end(), 0) > 0)
    return Status::fail(Status::unsafe, "inverse iteration did not converge for every vector: LAPACK's turn");
  bool certified = false;
  if (!(s = certify_pairs(st, blas, n, mm, r.d, r.e, dw, dz, n, vbuf.at<double>(o_g),
                          vbuf.at<double>(o_ratio), t.norm, &certified)))
    return s;
  if (!certified) return Status::fail(Status::unsafe, "T's eigenpairs failed their check: recomputed by LAPACK");

  // 4. A's eigenvectors Q Z, in ascending order of their eigenvalues (ORDER 'B' is by block).
  std::vector<int> perm(mm);
  std::iota(perm.begin(), perm.end(), 0);
  std::stable_sort(perm.begin(), perm.end(), [&](int i, int j) { return vals[i] < vals[j]; });
  if (keep_q) {  // Q Z in place, checked finite (Q is not checked as a matrix here)
    int bad = 0;
    if (!(s = sytrd_apply_q(st, n, r.work, dz, n, mm)) ||
        !(s = check(cudaMemsetAsync(r.flag, 0, sizeof(int), st), "cudaMemsetAsync")) ||
        !(s = check_finite(st, dz, n, n, mm, r.flag)) || !(s = fetch_flag(st, r.flag, &bad)))
      return s;
    if (bad) return Status::fail(Status::unsafe, "Q Z not finite: recomputed by LAPACK");
    std::swap(dz, dout);
  } else {
    const CublasApi *api = cublas_api(nullptr);
    const double one = 1, zero = 0;
    if (!(s = check(api->dgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, int(n), mm, int(n), &one, r.q, int(n), dz, int(n),
                               &zero, dout, int(n)),
                    "cublasDgemm")))
      return s;
  }
  if (!(s = upload(ctx, dperm, mm * sizeof(int), perm.data(), mm * sizeof(int), mm * sizeof(int), 1, st))) return s;
  const int64_t count = int64_t(n) * mm;
  gather_columns_kernel<<<unsigned(std::min<int64_t>(8192, (count + 255) / 256)), 256, 0, st>>>(dout, dperm, n, mm, dz);
  if (!(s = check_launch("syevx gather_columns_kernel"))) return s;
  out.z = dz;
  out.w.resize(mm);
  for (int j = 0; j < mm; ++j) out.w[j] = vals[perm[j]] / sigma;
  out.m = mm;
  return Status::success();
}

}  // namespace

Status syevx(char jobz, char range, char uplo, int64_t n, const double *a, int64_t lda, double vl,
             double vu, int il, int iu, double abstol, int *m, double *w, double *z, int64_t ldz) {
  const bool wantz = jobz == 'V';
  if (n > kDenseEigenMaxOrder) return Status::fail(Status::unavailable, "syevx: n > 65535");
  DeviceScope scope;
  Context *ctx = nullptr;
  cublasHandle_t blas = nullptr;
  Status s = enter(scope, ctx, wantz, &blas);
  if (!s) return s;
  cudaStream_t st = ctx->stream();
  SyevxResult r(st);
  if (!(s = syevx_on(*ctx, nullptr, st, blas, jobz, range, uplo, n, a, lda, false, vl, vu, il, iu, abstol, r)))
    return s;
  // Only the n x M vectors come down.
  if (wantz && r.m > 0 && !(s = download(*ctx, z, size_t(ldz) * kD, r.z, n * kD, n * kD, r.m, st))) return s;
  std::copy(r.w.begin(), r.w.end(), w);
  *m = r.m;
  return Status::success();
}

// The device twin: the whole spectrum by syevd_dev's method (the vectors over A, then copied into
// Z), a subset by the method above on the caller's stream; Z's M columns copied on the device,
// W, IFAIL (zeros) and INFO (0) written there. `unsafe` leaves every output untouched.
Status syevx_dev(char jobz, char range, char uplo, int64_t n, double *a, int64_t lda, double vl, double vu,
                 int il, int iu, double abstol, int *m, double *w, double *z, int64_t ldz, int *ifail, int *info,
                 void *stream) {
  const bool wantz = jobz == 'V';
  if (n > kDenseEigenMaxOrder) return Status::fail(Status::unavailable, "syevx: n > 65535");
  const bool whole = range == 'A' || (range == 'I' && il == 1 && iu == n);
  Status s;
  if (whole && !(s = syevd_dev(jobz, uplo, n, a, lda, w, info, stream))) return s;
  CallerStream call(stream);
  cublasHandle_t blas = nullptr;
  if (!(s = wantz && !whole ? call.enter(&blas) : call.enter())) return s;
  const cudaStream_t st = call.stream();
  if (whole) {
    if (wantz && (!(s = check(cudaMemcpy2DAsync(z, size_t(ldz) * kD, a, size_t(lda) * kD, n * kD, n,
                                                cudaMemcpyDeviceToDevice, st),
                              "cudaMemcpy2DAsync")) ||
                  !(s = check(cudaMemsetAsync(ifail, 0, n * sizeof(int), st), "cudaMemsetAsync"))))
      return s;
    *m = int(n);
    return s;
  }
  SyevxResult r(st);
  if (!(s = syevx_on(call.context(), &call, st, blas, jobz, range, uplo, n, a, lda, true, vl, vu, il, iu, abstol,
                     r)))
    return s;
  if (wantz && r.m > 0 &&
      (!(s = check(cudaMemcpy2DAsync(z, size_t(ldz) * kD, r.z, n * kD, n * kD, r.m, cudaMemcpyDeviceToDevice, st),
                   "cudaMemcpy2DAsync")) ||
       !(s = check(cudaMemsetAsync(ifail, 0, r.m * sizeof(int), st), "cudaMemsetAsync"))))
    return s;
  const int zero = 0;
  if (!(s = upload_packed(call, {{w, r.w.data(), r.m * kD}, {info, &zero, sizeof(int)}}))) return s;
  *m = r.m;
  return s;
}

}  // namespace gpueig::gpu
