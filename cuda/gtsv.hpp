// Tridiagonal solves on device-resident data: one system with several right-hand sides, or a
// batch of systems. Used by the host-pointer entry points (cuda/gtsv.cu) and by the benchmark.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "gpu_backend.hpp"

namespace gpueig::gpu {

// A solution is accepted only if ||b - A x||_1 / (||A||_1 ||x||_1 eps) stays at or below this:
// LAPACK's DGTT02 ratio with eps = 2^-53, whose test threshold is 30. Kept low so an accepted
// answer is never far from DGTSV's own (backward stable, ratio below 1 in practice), with room
// for the rounding of the residual itself.
constexpr double kGtsvResidualLimit = 8.0;
constexpr double kUnitRoundoff = 1.1102230246251565e-16;  // 2^-53, LAPACK's DLAMCH('E')

// ncol tridiagonal systems ("columns") of order n. Column c is A_c x_c = b_c with
//   A_c: sub-diagonal dl + c*ms (n-1 entries), diagonal d + c*ms, super-diagonal du + c*ms,
//   b_c = b + c*bs, x_c = x + c*xs.
// ms = 0 shares one matrix between all columns (several right-hand sides of one system).
// x must not overlap b (b stays intact for the re-solve of columns that fail their check),
// except in gtsv_in_place, where x = b and b is saved in keep (column c at c*n) as it is read
// for the last time.
struct GtsvColumns {
  int64_t n = 0, ncol = 0;
  const double *dl = nullptr, *d = nullptr, *du = nullptr;
  int64_t ms = 0;
  const double *b = nullptr;
  int64_t bs = 0;
  double *x = nullptr;
  int64_t xs = 0;
  double *keep = nullptr;
};

// Columns stored back to back: matrix column c at c*ms (0: one shared matrix), b and x at c*n.
inline GtsvColumns packed_columns(int64_t n, int64_t ncol, const double *dl, const double *d,
                                  const double *du, int64_t ms, const double *b, double *x) {
  GtsvColumns p;
  p.n = n;
  p.ncol = ncol;
  p.dl = dl;
  p.d = d;
  p.du = du;
  p.ms = ms;
  p.b = b;
  p.bs = n;
  p.x = x;
  p.xs = n;
  return p;
}

// Device workspace bytes gtsv_enqueue needs for this shape.
size_t gtsv_workspace_bytes(int64_t n, int64_t ncol, bool shared_matrix);

// Enqueues the solve of every column and its residual check on `stream`, without waiting.
// `work` must hold gtsv_workspace_bytes(...) and stay untouched until gtsv_failed returns.
Status gtsv_enqueue(cudaStream_t stream, const GtsvColumns &p, void *work);

// Waits for the work enqueued by gtsv_enqueue and returns, ascending, the columns whose result
// must not be used (zero pivot, non-finite value or residual above the limit).
Status gtsv_failed(cudaStream_t stream, const GtsvColumns &p, void *work,
                   std::vector<int64_t> *failed);

// The residual ratio column `col`'s result was judged by (after gtsv_failed), for messages.
double gtsv_ratio(cudaStream_t stream, const GtsvColumns &p, void *work, int64_t col);

// Re-solves the listed columns on the device by DGTSV's own algorithm (partial pivoting, the
// same operations in the same order), one thread per column: x_c receives what DGTSV leaves in
// B, info[k] DGTSV's INFO for column failed[k]. Requires ms != 0. Needs `scratch` of
// gtsv_pivot_scratch_bytes(n, failed.size()) bytes.
size_t gtsv_pivot_scratch_bytes(int64_t n, size_t count);
Status gtsv_pivot(cudaStream_t stream, const GtsvColumns &p, const std::vector<int64_t> &failed,
                  void *scratch, std::vector<int> *info);

// The host call's re-solve of a lone column (p.ncol = 1, p.x apart from p.b) that failed its
// check: solved again on the device with partial pivoting inside chunks of rows (the
// device-pointer calls' parallel pivoting solve, cuda/gtsv.cu), x_0 accepted (*accepted) only if
// it passes the same residual check; otherwise x means nothing and the caller takes DGTSV.
// Waits for the stream. `scratch`: gtsv_pivot_lone_bytes(n) bytes.
size_t gtsv_pivot_lone_bytes(int64_t n);
Status gtsv_pivot_lone(cudaStream_t stream, const GtsvColumns &p, void *scratch, bool *accepted);

// The re-solve of the device-pointer calls, queued without waiting: the columns that failed the
// check of the gtsv_enqueue whose workspace is `work` (every column, if `every`, or if the matrix
// is shared and any failed: DGTSV's answer for all its right-hand sides) solved again into x by
// DGTSV's algorithm, `slots` columns at a time (scratch: gtsv_resolve_scratch_bytes(n, slots)).
// *info (device) receives the least (ms != 0 ? c*n : 0) + INFO over the columns c DGTSV finds
// singular (0: none; INT_MAX where it does not fit an int). Without a gtsv_enqueue before it
// (`every`), `work` (gtsv_workspace_bytes) must be cleared by gtsv_clear_verdict first.
size_t gtsv_resolve_scratch_bytes(int64_t n, int64_t slots);

// The device-pointer calls' solve, queued without waiting: X over B in place (p.x = p.b,
// p.xs = p.bs, ncol >= 1), INFO (*info, device) as gtsv_resolve_on_device's. Columns of one tile
// with a matrix each (or a single column) are judged, and re-solved by DGTSV's algorithm where
// they fail, by the group that solved them (a single column first by its block's parallel
// pivoting solve): one kernel, no workspace. Otherwise B is saved as the last pass reads it, and
// the failed columns are solved again from that copy: a single column, or columns of more than
// 2048 rows, first by the parallel pivoting solve (kept where it passes the check, INFO 0), by
// DGTSV's algorithm where that fails or for shorter columns. `work`: gtsv_in_place_bytes(...)
// bytes (0: none needed, may be null).
size_t gtsv_in_place_bytes(int64_t n, int64_t ncol, int64_t ms);
Status gtsv_in_place(cudaStream_t stream, const GtsvColumns &p, void *work, int *info);
Status gtsv_clear_verdict(cudaStream_t stream, const GtsvColumns &p, void *work);
Status gtsv_resolve_on_device(cudaStream_t stream, const GtsvColumns &p, void *work, bool every,
                              double *scratch, int64_t slots, int *info);

}  // namespace gpueig::gpu
