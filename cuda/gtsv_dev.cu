// gpu_gtsv_dev and gpu_gtsv_batch_dev: the tridiagonal solves on the caller's device arrays,
// queued on the caller's stream (include/gpueig.h, device-pointer API). The method is the host
// calls' (cuda/gtsv.cu: elimination without pivoting, every column's residual judged on the
// device); what the host calls decide after reading the verdict back (which columns DGTSV must
// solve again, and INFO) is decided here on the device, so nothing waits:
//   1. gtsv_enqueue solves every column into workspace x and judges it;
//   2. gtsv_resolve_on_device solves the failed columns again by DGTSV's algorithm into x (all
//      of them for a shared matrix once any failed), keeping the least singular code,
//      and the last of its blocks writes INFO from it;
//   3. x is copied into B (B is read until every column is judged, so X cannot be made in place).
// NRHS = 0 (DGTSV's INFO alone) factors the matrix by step 2 on a zero right-hand side.
#include <algorithm>

#include "context.hpp"
#include "gtsv.hpp"
#include "hardware.hpp"
#include "tuning.hpp"
#include "workspace.hpp"

namespace gpueig::gpu {
namespace {

// Columns the re-solve takes at once: all of them up to tuning::kGtsvResolveBytes of scratch.
int64_t resolve_slots(int64_t n, int64_t ncol) {
  const int64_t fit = static_cast<int64_t>(tuning::kGtsvResolveBytes / (3 * sizeof(double) * size_t(n)));
  return std::max<int64_t>(1, std::min(ncol, fit));
}

}  // namespace

Status gtsv_dev(int64_t n, int64_t ncol, const double *dl, const double *d, const double *du, int64_t ms,
                double *b, int64_t ldb, int *info, void *stream) {
  CallerStream call(stream);
  Status s = call.enter();
  if (!s) return s;
  const cudaStream_t st = call.stream();
  const bool factor_only = ncol == 0;  // DGTSV's INFO alone: one zero right-hand side
  const int64_t cols = factor_only ? 1 : ncol, slots = resolve_slots(n, cols);
  WorkspacePlan plan;
  const size_t o_work = plan.add(gtsv_workspace_bytes(n, cols, ms == 0));
  const size_t o_x = plan.add_array<double>(n * cols);
  const size_t o_zero = plan.add_array<double>(factor_only ? n : 0);
  const size_t o_scratch = plan.add(gtsv_resolve_scratch_bytes(n, slots));
  Workspace ws(st);
  if (!(s = ws.allocate(plan))) return s;
  GtsvColumns p;
  p.n = n;
  p.ncol = cols;
  p.dl = dl;
  p.d = d;
  p.du = du;
  p.ms = ms;
  p.b = factor_only ? ws.at<double>(o_zero) : b;
  p.bs = factor_only ? n : ldb;
  p.x = ws.at<double>(o_x);
  p.xs = n;
  void *work = ws.at<char>(o_work);
  if (factor_only) {
    s = check(cudaMemsetAsync(ws.at<double>(o_zero), 0, n * sizeof(double), st), "cudaMemsetAsync");
    if (s) s = gtsv_clear_verdict(st, p, work);
    if (s) s = gtsv_resolve_on_device(st, p, work, true, ws.at<double>(o_scratch), 1, info);
    return s;
  }
  s = gtsv_enqueue(st, p, work);
  if (s) s = gtsv_resolve_on_device(st, p, work, false, ws.at<double>(o_scratch), slots, info);
  if (s)
    s = check(cudaMemcpy2DAsync(b, ldb * sizeof(double), p.x, n * sizeof(double), n * sizeof(double), cols,
                                cudaMemcpyDeviceToDevice, st),
              "cudaMemcpy2DAsync");
  return s;
}

}  // namespace gpueig::gpu
