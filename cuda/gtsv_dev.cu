// gpu_gtsv_dev and gpu_gtsv_batch_dev: the tridiagonal solves on the caller's device arrays,
// queued on the caller's stream (include/gpueig.h, device-pointer API). The method is the host
// calls' (cuda/gtsv.cu: elimination without pivoting, every column's residual judged on the
// device); what the host calls decide after reading the verdict back (which columns DGTSV must
// solve again, and INFO) is decided here on the device, so nothing waits. X is made in place
// (gtsv_in_place): a column that fits one tile is judged and, where it fails, solved again by
// the thread group that holds it (a lone one with pivoting inside chunks, in its block's shared
// memory, then DGTSV's algorithm if need be); larger ones keep a copy of B for that.
// NRHS = 0 (DGTSV's INFO alone) factors the matrix by DGTSV's algorithm on a zero right-hand side.
#include <algorithm>

#include "context.hpp"
#include "gtsv.hpp"
#include "hardware.hpp"
#include "workspace.hpp"

namespace gpueig::gpu {
namespace {

// NRHS = 0: gtsv_resolve_on_device over every column (one) on a zero B in workspace.
Status factor_only(cudaStream_t st, int64_t n, const double *dl, const double *d, const double *du, int *info) {
  WorkspacePlan plan;
  const size_t o_work = plan.add(gtsv_workspace_bytes(n, 1, false));
  const size_t o_zero = plan.add_array<double>(n);
  const size_t o_scratch = plan.add(gtsv_resolve_scratch_bytes(n, 1));
  Workspace ws(st);
  Status s = ws.allocate(plan);
  if (!s) return s;
  GtsvColumns p;
  p.n = n;
  p.ncol = 1;
  p.dl = dl;
  p.d = d;
  p.du = du;
  p.ms = n;
  p.b = ws.at<double>(o_zero);
  p.bs = n;
  p.x = ws.at<double>(o_zero);
  p.xs = n;
  void *work = ws.at<char>(o_work);
  s = check(cudaMemsetAsync(ws.at<double>(o_zero), 0, n * sizeof(double), st), "cudaMemsetAsync");
  if (s) s = gtsv_clear_verdict(st, p, work);
  if (s) s = gtsv_resolve_on_device(st, p, work, true, ws.at<double>(o_scratch), 1, info);
  return s;
}

}  // namespace

Status gtsv_dev(int64_t n, int64_t ncol, const double *dl, const double *d, const double *du, int64_t ms,
                double *b, int64_t ldb, int *info, void *stream) {
  CallerStream call(stream);
  Status s = call.enter();
  if (!s) return s;
  const cudaStream_t st = call.stream();
  if (ncol == 0) return factor_only(st, n, dl, d, du, info);
  GtsvColumns p;
  p.n = n;
  p.ncol = ncol;
  p.dl = dl;
  p.d = d;
  p.du = du;
  p.ms = ms;
  p.b = b;
  p.bs = ldb;
  p.x = b;
  p.xs = ldb;
  const size_t bytes = gtsv_in_place_bytes(n, ncol, ms);
  Workspace ws(st);
  if (bytes > 0 && !(s = ws.allocate(bytes))) return s;
  return gtsv_in_place(st, p, ws.get(), info);
}

}  // namespace gpueig::gpu
