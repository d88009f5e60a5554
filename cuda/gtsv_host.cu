// gpu_gtsv_pcr and gpu_gtsv_pcr_batch with host pointers: transfers through the pinned ring,
// the device solve (cuda/gtsv.cu), and the re-solve of systems that fail their check.
#include <algorithm>
#include <string>
#include <vector>

#include "context.hpp"
#include "hardware.hpp"
#include "gtsv.hpp"
#include "staging.hpp"
#include "tuning.hpp"
#include "workspace.hpp"

namespace gpueig::gpu {
namespace {

constexpr size_t kD = sizeof(double);

constexpr size_t kDevicePivotMin = tuning::kGtsvDevicePivotMin;
constexpr size_t kGroupBytes = tuning::kGtsvGroupBytes;

struct Buffers {  // device copies: matrix columns at stride n, b and x
  double *dl, *d, *du, *b, *x;
  void *work;
};

// The device arrays of a solve of ncol columns (mcols matrices), carved from `ws`, which is
// allocated here unless it already holds this layout (a batch's groups reuse the first one's).
Status carve(Workspace &ws, int64_t n, int64_t mcols, int64_t ncol, Buffers *out) {
  WorkspacePlan plan;
  const size_t o_work = plan.add(gtsv_workspace_bytes(n, ncol, mcols == 1));
  const size_t o_mat = plan.add_array<double>(3 * n * mcols);
  const size_t o_b = plan.add_array<double>(n * ncol), o_x = plan.add_array<double>(n * ncol);
  if (!ws.get()) {
    Status s = ws.allocate(plan);
    if (!s) return s;
  }
  out->work = ws.at<char>(o_work);
  double *m = ws.at<double>(o_mat);
  out->dl = m;
  out->d = m + n * mcols;
  out->du = m + 2 * n * mcols;
  out->b = ws.at<double>(o_b);
  out->x = ws.at<double>(o_x);
  return Status::success();
}

// Uploads `cols` matrices (host stride hs elements, device stride n).
Status upload_matrix(Context &ctx, int64_t n, int64_t cols, const double *dl, const double *d,
                     const double *du, int64_t hs, const Buffers &buf) {
  Status s = upload(ctx, buf.d, n * kD, d, hs * kD, n * kD, cols);
  if (s && n > 1) s = upload(ctx, buf.dl, n * kD, dl, hs * kD, (n - 1) * kD, cols);
  if (s && n > 1) s = upload(ctx, buf.du, n * kD, du, hs * kD, (n - 1) * kD, cols);
  return s;
}

}  // namespace

Status gtsv(int64_t n, int64_t nrhs, const double *dl, const double *d, const double *du,
            double *b, int64_t ldb) {
  DeviceScope scope;
  Context *ctx = nullptr;
  Status s = enter(scope, ctx);
  if (!s) return s;
  Buffers buf;
  Workspace ws(ctx->stream());
  if (!(s = carve(ws, n, 1, nrhs, &buf)) ||
      !(s = upload_matrix(*ctx, n, 1, dl, d, du, n, buf)) ||
      !(s = upload(*ctx, buf.b, n * kD, b, ldb * kD, n * kD, nrhs)))
    return s;
  const GtsvColumns p = packed_columns(n, nrhs, buf.dl, buf.d, buf.du, 0, buf.b, buf.x);
  std::vector<int64_t> failed;
  if (!(s = gtsv_enqueue(ctx->stream(), p, buf.work)) ||
      !(s = gtsv_failed(ctx->stream(), p, buf.work, &failed)))
    return s;
  if (!failed.empty() && n >= (nrhs == 1 ? tuning::kGtsvHostPivotMin : tuning::kGtsvHostPivotRhsMin)) {
    // The failed columns solved again with pivoting on the device, one after another, kept if
    // every one passes the check; otherwise DGTSV on the host takes them all (one matrix).
    Workspace scratch(ctx->stream());
    if (!(s = scratch.allocate(gtsv_pivot_lone_bytes(n)))) return s;
    bool accepted = true;
    for (size_t k = 0; k < failed.size() && accepted; ++k) {
      GtsvColumns q = p;
      q.ncol = 1;
      q.b += failed[k] * p.bs;
      q.x += failed[k] * p.xs;
      if (!(s = gtsv_pivot_lone(ctx->stream(), q, scratch.get(), &accepted))) return s;
    }
    if (accepted) failed.clear();
  }
  if (!failed.empty())  // one matrix: DGTSV on the host solves all right-hand sides at once
    return Status::fail(Status::unsafe,
                        "the solve without pivoting failed its check for " +
                            std::to_string(failed.size()) + " right-hand side(s) (ratio " +
                            std::to_string(gtsv_ratio(ctx->stream(), p, buf.work, failed[0])) +
                            ", limit " + std::to_string(kGtsvResidualLimit) + ")" +
                            (n >= (nrhs == 1 ? tuning::kGtsvHostPivotMin : tuning::kGtsvHostPivotRhsMin)
                                 ? ", and so did the pivoting re-solve on the device"
                                 : ""));
  bool wrote = false;
  if (!(s = download(*ctx, b, ldb * kD, buf.x, n * kD, n * kD, nrhs, nullptr, &wrote)))
    return wrote ? Status::fail(Status::output_lost, s.reason) : s;
  return s;
}

Status gtsv_batch(int64_t n, int64_t batch, const double *dl, const double *d, const double *du,
                  double *b, int64_t stride, std::vector<BatchOutcome> *redo, int64_t *done) {
  DeviceScope scope;
  Context *ctx = nullptr;
  Status s = enter(scope, ctx);
  if (!s) return s;
  redo->clear();
  *done = 0;
  const int64_t per = static_cast<int64_t>(
      std::max<size_t>(1, kGroupBytes / (static_cast<size_t>(n) * 6 * kD)));
  // Allocated for the first (the largest) group; a shorter last group uses a prefix of each part.
  Workspace ws(ctx->stream());
  const int64_t largest = std::min(per, batch);
  for (int64_t c0 = 0; c0 < batch; c0 += per) {
    const int64_t g = std::min(per, batch - c0);
    const size_t off = static_cast<size_t>(c0) * stride;
    Buffers buf;
    if (!(s = carve(ws, n, largest, largest, &buf)) ||
        !(s = upload_matrix(*ctx, n, g, dl + off, d + off, du + off, stride, buf)) ||
        !(s = upload(*ctx, buf.b, n * kD, b + off, stride * kD, n * kD, g)))
      return s;
    const GtsvColumns p = packed_columns(n, g, buf.dl, buf.d, buf.du, n, buf.b, buf.x);
    std::vector<int64_t> failed;
    if (!(s = gtsv_enqueue(ctx->stream(), p, buf.work)) ||
        !(s = gtsv_failed(ctx->stream(), p, buf.work, &failed)))
      return s;
    const bool on_device = failed.size() >= kDevicePivotMin;
    std::vector<int> info(failed.size(), -1);  // -1: left to the host
    if (on_device) {
      Workspace scratch(ctx->stream());
      if (!(s = scratch.allocate(gtsv_pivot_scratch_bytes(n, failed.size()))) ||
          !(s = gtsv_pivot(ctx->stream(), p, failed, scratch.get(), &info)))
        return s;
    } else if (!failed.empty()) {
      // A few long systems first solved again with pivoting on the device, one after another
      // (as a lone system's: from the same order on), each kept if it passes the check.
      Workspace scratch(ctx->stream());
      if (n >= tuning::kGtsvHostPivotMin && !(s = scratch.allocate(gtsv_pivot_lone_bytes(n)))) return s;
      for (size_t k = 0; k < failed.size(); ++k) {
        const int64_t c = failed[k];
        bool accepted = false;
        if (n >= tuning::kGtsvHostPivotMin) {
          GtsvColumns q = packed_columns(n, 1, buf.dl + c * n, buf.d + c * n, buf.du + c * n, n, buf.b + c * n,
                                         buf.x + c * n);
          if (!(s = gtsv_pivot_lone(ctx->stream(), q, scratch.get(), &accepted))) return s;
        }
        if (accepted) {
          info[k] = 0;
          continue;
        }
        // Left to the host: put the original b back in x, so the download leaves b untouched.
        if (!(s = check(cudaMemcpyAsync(buf.x + c * n, buf.b + c * n, n * kD, cudaMemcpyDeviceToDevice,
                                        ctx->stream()),
                        "cudaMemcpyAsync")))
          return s;
      }
    }
    // A failure before any of this group reached B leaves its systems to the caller (*done).
    bool wrote = false;
    if (!(s = download(*ctx, b + off, stride * kD, buf.x, n * kD, n * kD, g, nullptr, &wrote)))
      return wrote ? Status::fail(Status::output_lost, s.reason) : s;
    for (size_t k = 0; k < failed.size(); ++k)
      if (info[k] != 0) redo->push_back({c0 + failed[k], info[k]});
    *done = c0 + g;
  }
  return Status::success();
}

}  // namespace gpueig::gpu
