// gpu_gtsv_pcr, GPU half: parallel cyclic reduction (PCR) for any n and any number of
// right-hand sides, then an a-posteriori residual check.
//
// PCR step with stride s turns row i, a_i x_{i-s} + b_i x_i + c_i x_{i+s} = r_i, into a row that
// couples x_i to x_{i-2s} and x_{i+2s} by eliminating with rows i-s and i+s. Rows outside 0..n-1
// act as identity rows, which is what lifts the power-of-two restriction: after ceil(log2 n)
// steps every row is decoupled and x_i = r_i / b_i. PCR does not pivot, so it is only trusted
// when no pivot was zero, every value stayed finite and the residual of the result is small;
// otherwise the caller recomputes with DGTSV.
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "context.hpp"
#include "gtsv.hpp"

namespace gpueig::gpu {
namespace {

constexpr int kThreads = 256;

struct Rows {  // one level of the reduced system: coefficients of x_{i-s}, x_i, x_{i+s}
  double *a, *b, *c;
};

// Checks gathered on the device and read back once.
struct Checks {
  unsigned long long anorm_bits;  // ||A||_1 as the bits of a non-negative double (atomicMax)
  int breakdown;                  // a zero pivot or a non-finite value appeared
  int pad;
  // followed by rsum[nrhs] and xsum[nrhs]
};

__device__ __forceinline__ int64_t row_index() {
  return static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}

__global__ void load_rows(int64_t n, const double *dl, const double *d, const double *du,
                          Rows out, Checks *chk) {
  const int64_t i = row_index();
  if (i >= n) return;
  const double a = i > 0 ? dl[i - 1] : 0.0, b = d[i], c = i < n - 1 ? du[i] : 0.0;
  out.a[i] = a;
  out.b[i] = b;
  out.c[i] = c;
  if (!isfinite(a) || !isfinite(b) || !isfinite(c)) chk->breakdown = 1;
}

__global__ void pcr_step(int64_t n, int64_t s, int64_t nrhs, Rows in, const double *rin,
                         int64_t ldin, Rows out, double *rout, int64_t ldout, Checks *chk) {
  const int64_t i = row_index();
  if (i >= n) return;
  const int64_t lo = i - s, hi = i + s;
  double k1 = 0.0, k2 = 0.0, na = 0.0, nc = 0.0, nb = in.b[i];
  bool bad = false;
  // A zero coupling needs no elimination; skipping it also keeps a zero pivot elsewhere from
  // poisoning this row.
  if (lo >= 0 && in.a[i] != 0.0) {
    const double p = in.b[lo];
    bad |= (p == 0.0);
    k1 = in.a[i] / p;
    na = -k1 * in.a[lo];
    nb -= k1 * in.c[lo];
  }
  if (hi < n && in.c[i] != 0.0) {
    const double p = in.b[hi];
    bad |= (p == 0.0);
    k2 = in.c[i] / p;
    nc = -k2 * in.c[hi];
    nb -= k2 * in.a[hi];
  }
  bad |= !isfinite(na) || !isfinite(nb) || !isfinite(nc);
  if (bad) chk->breakdown = 1;
  out.a[i] = na;
  out.b[i] = nb;
  out.c[i] = nc;
  for (int64_t j = 0; j < nrhs; ++j) {
    double r = rin[i + j * ldin];
    if (k1 != 0.0) r -= k1 * rin[lo + j * ldin];
    if (k2 != 0.0) r -= k2 * rin[hi + j * ldin];
    rout[i + j * ldout] = r;
  }
}

__global__ void pcr_finish(int64_t n, int64_t nrhs, const double *b, const double *rin,
                           int64_t ldin, double *x, Checks *chk) {
  const int64_t i = row_index();
  if (i >= n) return;
  const double p = b[i];
  if (p == 0.0) chk->breakdown = 1;
  for (int64_t j = 0; j < nrhs; ++j) x[i + j * n] = rin[i + j * ldin] / p;
}

// Block-wide reduction with `op` (a sum or a max); the result is valid in thread 0. Every thread
// of the block must call it.
template <class Op>
__device__ double block_reduce(double v, Op op) {
  __shared__ double partial[kThreads / 32];
  for (int off = 16; off > 0; off >>= 1) v = op(v, __shfl_down_sync(0xffffffffu, v, off));
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  __syncthreads();  // `partial` may still be read by the previous call
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  v = 0.0;  // the identity of both operations used here (values are non-negative)
  if (warp == 0) {
    v = lane < kThreads / 32 ? partial[lane] : 0.0;
    for (int off = 16; off > 0; off >>= 1) v = op(v, __shfl_down_sync(0xffffffffu, v, off));
  }
  return v;
}

struct Sum {
  __device__ double operator()(double a, double b) const { return a + b; }
};
struct Max {
  __device__ double operator()(double a, double b) const { return fmax(a, b); }
};

// Per right-hand side j: sum |b - A x| and sum |x|; the blocks with blockIdx.y = 0 also take the
// largest column sum of |A|. NaN propagates into the sums (fmax would drop it, so a NaN column of
// A counts as infinite) and makes the check fail.
__global__ void residual_norms(int64_t n, int64_t nrhs, const double *dl, const double *d,
                               const double *du, const double *rhs, int64_t ldr, const double *x,
                               Checks *chk) {
  const int64_t i = row_index();
  double *rsum = reinterpret_cast<double *>(chk + 1);
  double *xsum = rsum + nrhs;
  for (int64_t j = blockIdx.y; j < nrhs; j += gridDim.y) {
    double r = 0.0, xa = 0.0;
    if (i < n) {
      const double *xj = x + j * n;
      double ax = d[i] * xj[i];
      if (i > 0) ax += dl[i - 1] * xj[i - 1];
      if (i < n - 1) ax += du[i] * xj[i + 1];
      r = fabs(rhs[i + j * ldr] - ax);
      xa = fabs(xj[i]);
    }
    r = block_reduce(r, Sum());
    xa = block_reduce(xa, Sum());
    if (threadIdx.x == 0) {
      atomicAdd(rsum + j, r);
      atomicAdd(xsum + j, xa);
    }
  }
  if (blockIdx.y == 0) {
    double col = 0.0;
    if (i < n) {
      col = fabs(d[i]) + (i > 0 ? fabs(du[i - 1]) : 0.0) + (i < n - 1 ? fabs(dl[i]) : 0.0);
      if (isnan(col)) col = INFINITY;
    }
    col = block_reduce(col, Max());
    if (threadIdx.x == 0)
      atomicMax(&chk->anorm_bits, static_cast<unsigned long long>(__double_as_longlong(col)));
  }
}

size_t checks_bytes(int64_t nrhs) { return sizeof(Checks) + 2 * nrhs * sizeof(double); }

unsigned blocks_for(int64_t n) { return static_cast<unsigned>((n + kThreads - 1) / kThreads); }

// Runs PCR and the check; on success *solution points to X (n x nrhs, leading dimension n) inside
// the workspace.
Status pcr_solve(cudaStream_t st, int64_t n, int64_t nrhs, const double *dl, const double *d,
                 const double *du, const double *rhs, int64_t ldr, void *work,
                 const double **solution) {
  double *w = static_cast<double *>(work);
  Rows set[2];
  for (auto &r : set) {
    r = {w, w + n, w + 2 * n};
    w += 3 * n;
  }
  double *rbuf[2] = {w, w + n * nrhs};
  w += 2 * n * nrhs;
  Checks *chk = reinterpret_cast<Checks *>(w);

  Status s = check(cudaMemsetAsync(chk, 0, checks_bytes(nrhs), st), "cudaMemsetAsync");
  if (!s) return s;
  const unsigned blocks = blocks_for(n);
  load_rows<<<blocks, kThreads, 0, st>>>(n, dl, d, du, set[0], chk);
  int cur = 0;
  const double *r = rhs;  // the first step reads B in place, so B stays intact for the check
  int64_t ld = ldr;
  for (int64_t stride = 1; stride < n; stride *= 2) {
    pcr_step<<<blocks, kThreads, 0, st>>>(n, stride, nrhs, set[cur], r, ld, set[1 - cur],
                                          rbuf[1 - cur], n, chk);
    cur = 1 - cur;
    r = rbuf[cur];
    ld = n;
  }
  // Divide in place, except when there was no step (n = 1) and r is still B itself.
  double *x = (r == rhs) ? rbuf[0] : rbuf[cur];
  pcr_finish<<<blocks, kThreads, 0, st>>>(n, nrhs, set[cur].b, r, ld, x, chk);
  const unsigned ygrid = static_cast<unsigned>(nrhs < 65535 ? nrhs : 65535);
  residual_norms<<<dim3(blocks, ygrid), kThreads, 0, st>>>(n, nrhs, dl, d, du, rhs, ldr, x, chk);
  if (!(s = check_launch("PCR kernels"))) return s;

  std::vector<unsigned char> host(checks_bytes(nrhs));
  if (!(s = check(cudaMemcpyAsync(host.data(), chk, host.size(), cudaMemcpyDeviceToHost, st),
                  "cudaMemcpyAsync")))
    return s;
  if (!(s = check(cudaStreamSynchronize(st), "PCR solve"))) return s;

  const Checks *c = reinterpret_cast<const Checks *>(host.data());
  if (c->breakdown)
    return Status::fail(Status::unsafe, "PCR without pivoting met a zero pivot or non-finite value");
  double anorm;
  std::memcpy(&anorm, &c->anorm_bits, sizeof anorm);
  const double *rsum = reinterpret_cast<const double *>(c + 1), *xsum = rsum + nrhs;
  for (int64_t j = 0; j < nrhs; ++j) {
    // As DGTT02: ((||r|| / ||A||) / ||x||) / eps, with an exact zero residual always accepted.
    double ratio = rsum[j] == 0.0 ? 0.0 : rsum[j] / anorm / xsum[j] / kUnitRoundoff;
    if (!(ratio <= kGtsvResidualLimit) || !std::isfinite(xsum[j]) || !std::isfinite(anorm))
      return Status::fail(Status::unsafe, "PCR residual check failed (ratio " +
                                              std::to_string(ratio) + " for column " +
                                              std::to_string(j + 1) + ")");
  }
  *solution = x;
  return Status::success();
}

size_t pcr_workspace_bytes(int64_t n, int64_t nrhs) {
  return (6 * n + 2 * n * nrhs) * sizeof(double) + checks_bytes(nrhs);
}

}  // namespace

size_t gtsv_workspace_bytes(int64_t n, int64_t nrhs) { return pcr_workspace_bytes(n, nrhs); }

Status gtsv_device(cudaStream_t st, int64_t n, int64_t nrhs, const double *dl, const double *d,
                   const double *du, double *x, int64_t ldx, void *work) {
  const double *sol = nullptr;
  Status s = pcr_solve(st, n, nrhs, dl, d, du, x, ldx, work, &sol);
  if (!s) return s;
  return check(cudaMemcpy2DAsync(x, ldx * sizeof(double), sol, n * sizeof(double),
                                 n * sizeof(double), nrhs, cudaMemcpyDeviceToDevice, st),
               "cudaMemcpy2DAsync");
}

Status gtsv(int64_t n, int64_t nrhs, const double *dl, const double *d, const double *du,
            double *b, int64_t ldb) {
  DeviceScope scope;
  if (!scope.status()) return scope.status();
  Context *ctx = nullptr;
  Status s = Context::get(ctx);
  if (!s) return s;
  // Workspace: the PCR buffers, then the uploaded matrix and right-hand sides.
  const size_t pcr_bytes = pcr_workspace_bytes(n, nrhs);
  void *work = nullptr;
  if (!(s = ctx->workspace(pcr_bytes + (3 * n + n * nrhs) * sizeof(double), &work))) return s;
  double *up = reinterpret_cast<double *>(static_cast<char *>(work) + pcr_bytes);
  double *ddl = up, *dd = up + n, *ddu = up + 2 * n, *dx = up + 3 * n;
  cudaStream_t st = ctx->stream();
  const size_t off = (n - 1) * sizeof(double);
  if (!(s = check(cudaMemcpyAsync(ddl, dl, off, cudaMemcpyHostToDevice, st), "upload dl")) ||
      !(s = check(cudaMemcpyAsync(dd, d, n * sizeof(double), cudaMemcpyHostToDevice, st),
                  "upload d")) ||
      !(s = check(cudaMemcpyAsync(ddu, du, off, cudaMemcpyHostToDevice, st), "upload du")) ||
      !(s = check(cudaMemcpy2DAsync(dx, n * sizeof(double), b, ldb * sizeof(double),
                                    n * sizeof(double), nrhs, cudaMemcpyHostToDevice, st),
                  "upload B")))
    return s;
  const double *sol = nullptr;
  if (!(s = pcr_solve(st, n, nrhs, ddl, dd, ddu, dx, n, work, &sol))) return s;
  if (!(s = check(cudaMemcpy2DAsync(b, ldb * sizeof(double), sol, n * sizeof(double),
                                    n * sizeof(double), nrhs, cudaMemcpyDeviceToHost, st),
                  "download X")))
    return s;
  return check(cudaStreamSynchronize(st), "download X");
}

}  // namespace gpueig::gpu
