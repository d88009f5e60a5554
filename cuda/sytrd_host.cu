// gpu_sytrd_givens with host pointers: the triangle UPLO goes up through the pinned ring and is
// mirrored into a full symmetric matrix on the device, the method of GPUEIG_SYTRD_METHOD
// (cuda/sytrd_chase.cu, cuda/sytrd_tree.cu) reduces it, and D, E and Q come back. A itself is
// not written back: its contents on exit are unspecified (include/gpueig.h).
#include <algorithm>
#include <cmath>
#include <vector>

#include "context.hpp"
#include "hardware.hpp"
#include "device_util.hpp"
#include "staging.hpp"
#include "sytrd.hpp"
#include "workspace.hpp"

namespace gpueig::gpu {
namespace {

constexpr size_t kD = sizeof(double);


// The triangle `uplo` of a (n x n, lda) copied over the other one.
__global__ void mirror_kernel(double *a, int64_t lda, int64_t n, bool upper) {
  for (int64_t idx = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; idx < n * n;
       idx += int64_t(gridDim.x) * blockDim.x) {
    const int64_t i = idx % n, j = idx / n;
    if (upper ? i > j : i < j) a[i + j * lda] = a[j + i * lda];
  }
}

__global__ void identity_kernel(double *z, int64_t ldz, int64_t n) {
  for (int64_t idx = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; idx < n * n;
       idx += int64_t(gridDim.x) * blockDim.x)
    z[idx % n + idx / n * ldz] = idx % n == idx / n;
}

unsigned grid_for(int64_t count) {
  return static_cast<unsigned>(std::min<int64_t>(8192, (count + 255) / 256));
}

// inv->amax = max |a| (non-negative doubles order as their bit patterns do).
__global__ void amax_kernel(const double *a, int64_t lda, int64_t n, SimilarityInvariants *inv) {
  double m = 0;
  for (int64_t idx = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; idx < n * n;
       idx += int64_t(gridDim.x) * blockDim.x)
    m = fmax(m, fabs(a[idx % n + idx / n * lda]));
  for (int o = 16; o > 0; o /= 2) m = fmax(m, __shfl_xor_sync(0xffffffffu, m, o));
  if ((threadIdx.x & 31) == 0)
    atomicMax(reinterpret_cast<unsigned long long *>(&inv->amax),
              static_cast<unsigned long long>(__double_as_longlong(m)));
}

// inv->sumsq += sum (a / amax)^2, inv->trace += sum a(i,i) / amax.
__global__ void sums_kernel(const double *a, int64_t lda, int64_t n, SimilarityInvariants *inv) {
  const double scale = inv->amax > 0 ? inv->amax : 1.0;
  double sq = 0, tr = 0;
  for (int64_t idx = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; idx < n * n;
       idx += int64_t(gridDim.x) * blockDim.x) {
    const int64_t i = idx % n, j = idx / n;
    const double v = a[i + j * lda] / scale;
    sq = fma(v, v, sq);
    if (i == j) tr += v;
  }
  for (int o = 16; o > 0; o /= 2) {
    sq += __shfl_xor_sync(0xffffffffu, sq, o);
    tr += __shfl_xor_sync(0xffffffffu, tr, o);
  }
  if ((threadIdx.x & 31) == 0) {
    atomicAdd(&inv->sumsq, sq);
    atomicAdd(&inv->trace, tr);
  }
}

}  // namespace

Status similarity_invariants(cudaStream_t st, const double *a, int64_t lda, int64_t n,
                             SimilarityInvariants *inv) {
  Status s = check(cudaMemsetAsync(inv, 0, sizeof(SimilarityInvariants), st), "cudaMemsetAsync");
  if (!s) return s;
  amax_kernel<<<grid_for(n * n), 256, 0, st>>>(a, lda, n, inv);
  if (!(s = check_launch("sytrd amax_kernel"))) return s;
  sums_kernel<<<grid_for(n * n), 256, 0, st>>>(a, lda, n, inv);
  return check_launch("sytrd sums_kernel");
}

bool keeps_invariants(const SimilarityInvariants &inv, int64_t n, const double *d, const double *e) {
  const double scale = inv.amax > 0 ? inv.amax : 1.0;
  double sq = 0, tr = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double v = d[i] / scale;
    sq += v * v;
    tr += v;
  }
  for (int64_t i = 0; i + 1 < n; ++i) sq += 2 * (e[i] / scale) * (e[i] / scale);
  const double fa = std::sqrt(inv.sumsq), ft = std::sqrt(sq);
  const double tol = 30.0 * static_cast<double>(n) * 0x1p-52 * fa;
  return std::fabs(ft - fa) <= tol && std::fabs(tr - inv.trace) <= tol;
}

Status queue_symmetric(Context &ctx, cudaStream_t st, char uplo, int64_t n, const double *a, int64_t lda,
                       bool a_on_device, double *da, int *flag, SimilarityInvariants *inv) {
  // Only triangle UPLO is used: the other one is overwritten by the mirror before anything
  // (the NaN check included) looks at it. So only that triangle travels from the host, as
  // rectangles of kTriangleColumns columns (each a little of the other triangle): about half of
  // A's bytes. (Not timed apart: the H100 runs of 2026-11-28 before and after it differed by more
  // from machine to machine than the upload's share of gpu_syevx could show.) Device memory is
  // copied whole, in one 2D copy.
  constexpr int64_t kTriangleColumns = 128;
  Status s;
  if (a_on_device)
    s = check(cudaMemcpy2DAsync(da, n * kD, a, lda * kD, n * kD, n, cudaMemcpyDeviceToDevice, st),
              "cudaMemcpy2DAsync");
  for (int64_t j0 = 0; !a_on_device && j0 < n && s; j0 += kTriangleColumns) {
    const int64_t j1 = std::min(n, j0 + kTriangleColumns);
    const int64_t r0 = uplo == 'U' ? 0 : j0, r1 = uplo == 'U' ? j1 : n;  // rows of the rectangle
    s = upload(ctx, da + r0 + j0 * n, n * kD, a + r0 + j0 * lda, lda * kD, (r1 - r0) * kD, j1 - j0, st);
  }
  if (!s) return s;
  mirror_kernel<<<grid_for(n * n), 256, 0, st>>>(da, n, n, uplo == 'U');
  if (!(s = check_launch("sytrd mirror_kernel")) ||
      !(s = check(cudaMemsetAsync(flag, 0, sizeof(int), st), "cudaMemsetAsync")) ||
      !(s = check_finite(st, da, n, n, n, flag)))
    return s;
  return similarity_invariants(st, da, n, n, inv);
}

Status load_symmetric(Context &ctx, cudaStream_t st, char uplo, int64_t n, const double *a, int64_t lda,
                      bool a_on_device, double *da, int *flag, SimilarityInvariants *inv) {
  Status s = queue_symmetric(ctx, st, uplo, n, a, lda, a_on_device, da, flag, inv);
  int bad = 0;
  if (!s || !(s = fetch_flag(st, flag, &bad))) return s;
  return bad ? Status::fail(Status::unsafe, "A holds NaN or Inf entries: recomputed by LAPACK") : s;
}

Status set_identity(cudaStream_t st, double *z, int64_t ldz, int64_t n) {
  identity_kernel<<<grid_for(n * n), 256, 0, st>>>(z, ldz, n);
  return check_launch("sytrd identity_kernel");
}

namespace {

// Queues the scan of a reduction's outputs for NaN / Inf into *flag: a reduction that overflowed
// (entries near DBL_MAX: a 64 x 64 block product can grow an entry by up to 8x) is never
// returned; LAPACK recomputes it and gives its own answer there.
Status scan_reduction(cudaStream_t st, int64_t n, const double *dd, const double *de,
                      const double *dz, int *flag) {
  Status s = check_finite(st, dd, n, n, 1, flag);
  if (s && n > 1) s = check_finite(st, de, n, n - 1, 1, flag);
  if (s && dz) s = check_finite(st, dz, n, n, n, flag);
  return s;
}

// The device arrays of one reduction (the host call's and the device call's): the full copy of
// A, z (with Q), d and e, the NaN flag, A's invariants and the method's own workspace.
struct ReductionBuffers {
  Workspace buf;
  double *a = nullptr, *z = nullptr, *d = nullptr, *e = nullptr;
  int *flag = nullptr;
  SimilarityInvariants *inv = nullptr;
  void *work = nullptr;
  SytrdMethod method = sytrd_method();

  explicit ReductionBuffers(cudaStream_t st) : buf(st) {}
  Status allocate(int64_t n, SytrdZ zmode) {
    WorkspacePlan plan;
    const size_t o_a = plan.add_array<double>(size_t(n) * n);
    const size_t o_z = zmode != SytrdZ::none ? plan.add_array<double>(size_t(n) * n) : 0;
    const size_t o_d = plan.add_array<double>(n), o_e = plan.add_array<double>(n);
    const size_t o_flag = plan.add_array<int>(1);
    const size_t o_inv = plan.add_array<SimilarityInvariants>(1);
    const size_t o_work =
        plan.add(method == SytrdMethod::two_stage ? sytrd_two_stage_bytes(n, zmode) : 0);
    const Status s = buf.allocate(plan);
    if (!s) return s;
    a = buf.at<double>(o_a);
    z = zmode != SytrdZ::none ? buf.at<double>(o_z) : nullptr;
    d = buf.at<double>(o_d);
    e = buf.at<double>(o_e);
    flag = buf.at<int>(o_flag);
    inv = buf.at<SimilarityInvariants>(o_inv);
    work = buf.at<char>(o_work);
    return s;
  }
  // a (full, symmetric) reduced to (d, e), z as zmode says, by GPUEIG_SYTRD_METHOD's method.
  Status reduce(cudaStream_t st, int64_t n, SytrdZ zmode) {
    return method == SytrdMethod::two_stage ? sytrd_two_stage(st, n, a, n, d, e, z, n, zmode, work)
                                            : sytrd_tree(st, n, a, n, d, e, z, n);
  }
};

}  // namespace

Status check_reduction(Context &ctx, cudaStream_t st, int64_t n, const double *dd, const double *de,
                       const double *dz, int *flag, const SimilarityInvariants *dinv, double *d,
                       double *e) {
  int bad = 0;
  Status s = scan_reduction(st, n, dd, de, dz, flag);
  if (!s || !(s = fetch_flag(st, flag, &bad))) return s;
  if (bad) return Status::fail(Status::unsafe, "the GPU reduction overflowed: recomputed by LAPACK");
  if (!(s = download(ctx, d, n * kD, dd, n * kD, n * kD, 1, st))) return s;
  if (n > 1 && !(s = download(ctx, e, n * kD, de, n * kD, (n - 1) * kD, 1, st))) return s;
  // T must keep A's Frobenius norm and trace; checked before anything else is written (Q_in
  // stays intact for the CPU's recompute). d and e are the CPU's to overwrite then.
  SimilarityInvariants inv{};
  if (!(s = check(cudaMemcpyAsync(&inv, dinv, sizeof inv, cudaMemcpyDeviceToHost, st),
                  "cudaMemcpyAsync")) ||
      !(s = check(cudaStreamSynchronize(st), "sytrd")))
    return s;
  if (!keeps_invariants(inv, n, d, e))
    return Status::fail(Status::unsafe,
                        "the GPU's T does not keep A's Frobenius norm and trace: recomputed by LAPACK");
  return Status::success();
}

Status sytrd(char vect, char uplo, int64_t n, double *a, int64_t lda, double *d, double *e,
             double *q, int64_t ldq) {
  DeviceScope scope;
  Context *ctx = nullptr;
  Status s = enter(scope, ctx);
  if (!s) return s;
  cudaStream_t st = ctx->stream();
  const bool wantz = vect != 'N';
  // z is the identity for 'V' (Q formed), Q_in for 'U' (Q_in * Q).
  const SytrdZ zmode = vect == 'V' ? SytrdZ::form : vect == 'U' ? SytrdZ::update : SytrdZ::none;
  ReductionBuffers b(st);
  if (!(s = b.allocate(n, zmode))) return s;
  double *dz = b.z;

  if (!(s = load_symmetric(*ctx, st, uplo, n, a, lda, false, b.a, b.flag, b.inv))) return s;
  if (vect == 'V' && !(s = set_identity(st, dz, n, n))) return s;
  if (vect == 'U' && !(s = upload(*ctx, dz, n * kD, q, ldq * kD, n * kD, n))) return s;

  s = b.reduce(st, n, zmode);
  if (!s || !(s = check_reduction(*ctx, st, n, b.d, b.e, dz, b.flag, b.inv, d, e))) return s;
  // VECT = 'U' destroys Q_in once its download has started: no recompute is possible then.
  bool wrote = false;
  if (wantz && !(s = download(*ctx, q, ldq * kD, dz, n * kD, n * kD, n, nullptr, &wrote)))
    return vect == 'U' && wrote ? Status::fail(Status::output_lost, s.reason) : s;
  return Status::success();
}

// gpu_sytrd_dev: the caller's device matrix, on the caller's stream. The triangle is copied into
// workspace and mirrored there (the caller's A is only read), then reduced as above. The checks
// every GPU reduction gets (A finite; D, E, Q finite; T keeps A's norm and trace) are read on the
// host, so the call waits for the stream twice: after the NaN scan and at the end. Outputs are
// written only once the reduction has passed; `unsafe` leaves them for the host's recompute.
Status sytrd_dev(char vect, char uplo, int64_t n, const double *a, int64_t lda, double *d, double *e,
                 double *q, int64_t ldq, int *info, void *stream) {
  CallerStream call(stream);
  Status s = call.enter();
  if (!s) return s;
  cudaStream_t st = call.stream();
  const SytrdZ zmode = vect == 'V' ? SytrdZ::form : vect == 'U' ? SytrdZ::update : SytrdZ::none;
  ReductionBuffers b(st);
  if (!(s = b.allocate(n, zmode))) return s;

  // A's triangle, mirrored, scanned for NaN / Inf. Its verdict is read with the reduction's, at
  // the end: one wait for the stream, not two (a NaN or Inf in A, rare, then costs a reduction
  // that is thrown away; nothing in it iterates on the data).
  if (!(s = queue_symmetric(call.context(), st, uplo, n, a, lda, true, b.a, b.flag, b.inv))) return s;
  if (vect == 'V' && !(s = set_identity(st, b.z, n, n))) return s;
  if (vect == 'U' &&
      !(s = check(cudaMemcpy2DAsync(b.z, n * kD, q, ldq * kD, n * kD, n, cudaMemcpyDeviceToDevice, st),
                  "cudaMemcpy2DAsync")))
    return s;
  if (!(s = b.reduce(st, n, zmode)) || !(s = scan_reduction(st, n, b.d, b.e, b.z, b.flag))) return s;

  // The verdicts (A and the reduction finite; T keeps A's norm and trace, check_reduction's test)
  // read in one trip, on the caller's stream.
  std::vector<double> hd(n), he(std::max<int64_t>(n - 1, 1));
  SimilarityInvariants inv{};
  int bad = 0;
  if (!(s = check(cudaMemcpyAsync(&bad, b.flag, sizeof(int), cudaMemcpyDeviceToHost, st), "cudaMemcpyAsync")) ||
      !(s = check(cudaMemcpyAsync(hd.data(), b.d, n * kD, cudaMemcpyDeviceToHost, st), "cudaMemcpyAsync")) ||
      (n > 1 && !(s = check(cudaMemcpyAsync(he.data(), b.e, (n - 1) * kD, cudaMemcpyDeviceToHost, st),
                            "cudaMemcpyAsync"))) ||
      !(s = check(cudaMemcpyAsync(&inv, b.inv, sizeof inv, cudaMemcpyDeviceToHost, st), "cudaMemcpyAsync")) ||
      !(s = check(cudaStreamSynchronize(st), "sytrd")))
    return s;
  if (bad)
    return Status::fail(Status::unsafe,
                        "A holds NaN or Inf entries, or the GPU reduction overflowed: recomputed by LAPACK on the host");
  if (!keeps_invariants(inv, n, hd.data(), he.data()))
    return Status::fail(Status::unsafe,
                        "the GPU's T does not keep A's Frobenius norm and trace: recomputed by LAPACK on the host");
  if (!(s = check(cudaMemcpyAsync(d, b.d, n * kD, cudaMemcpyDeviceToDevice, st), "cudaMemcpyAsync")) ||
      (n > 1 && !(s = check(cudaMemcpyAsync(e, b.e, (n - 1) * kD, cudaMemcpyDeviceToDevice, st), "cudaMemcpyAsync"))) ||
      (b.z && !(s = check(cudaMemcpy2DAsync(q, ldq * kD, b.z, n * kD, n * kD, n, cudaMemcpyDeviceToDevice, st),
                          "cudaMemcpy2DAsync"))))
    return s;
  return check(cudaMemsetAsync(info, 0, sizeof(int), st), "cudaMemsetAsync");
}

Status copy_matrix(double *dst, int64_t ldd, const double *src, int64_t lds, int64_t rows,
                   int64_t cols, void *stream) {
  CallerStream call(stream);
  Status s = call.enter();
  if (s && rows > 0 && cols > 0)
    s = check(cudaMemcpy2DAsync(dst, ldd * kD, src, lds * kD, rows * kD, cols, cudaMemcpyDefault,
                                call.stream()),
              "cudaMemcpy2DAsync");
  if (s) s = check(cudaStreamSynchronize(call.stream()), "cudaStreamSynchronize");
  return s;
}

}  // namespace gpueig::gpu
