// gpu_getrs_crout with host pointers: the factors (n x n) and B go up through the pinned ring,
// the solve runs on the device (getrs_device, cuda/getrf.cu) and X comes back into B. IPIV
// (DGETRF's interchanges, 1-based, checked in range by the caller) becomes the row order on the
// host, O(n). The whole LU goes up for O(n^2 nrhs) work: auto sends a call here only from a
// measured crossover (src/tuning.hpp).
#include <algorithm>
#include <numeric>
#include <vector>

#include "context.hpp"
#include "getrf.hpp"
#include "hardware.hpp"
#include "staging.hpp"
#include "workspace.hpp"

namespace gpueig::gpu {

Status getrs(char trans, int64_t n, int64_t nrhs, const double *a, int64_t lda, const int *ipiv,
             double *b, int64_t ldb) {
  constexpr size_t kD = sizeof(double);
  DeviceScope scope;
  Context *ctx = nullptr;
  cublasHandle_t blas = nullptr;
  Status s = enter(scope, ctx, true, &blas);
  if (!s) return s;
  cudaStream_t st = ctx->stream();
  // order[i]: the row of A that the interchanges IPIV(1), IPIV(2), .. bring to row i (P^T A).
  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  for (int64_t i = 0; i < n; ++i) std::swap(order[i], order[ipiv[i] - 1]);

  WorkspacePlan plan;
  const size_t o_lu = plan.add_array<double>(static_cast<size_t>(n) * n);
  const size_t o_b = plan.add_array<double>(static_cast<size_t>(n) * nrhs);
  const size_t o_x = plan.add_array<double>(static_cast<size_t>(n) * nrhs);
  const size_t o_order = plan.add_array<int>(n);
  Workspace buf(st);
  if (!(s = buf.allocate(plan))) return s;
  double *dlu = buf.at<double>(o_lu), *db = buf.at<double>(o_b), *dx = buf.at<double>(o_x);
  int *dorder = buf.at<int>(o_order);
  if (!(s = upload(*ctx, dlu, n * kD, a, lda * kD, n * kD, n)) ||
      !(s = upload(*ctx, db, n * kD, b, ldb * kD, n * kD, nrhs)) ||
      !(s = upload(*ctx, dorder, n * sizeof(int), order.data(), n * sizeof(int), n * sizeof(int),
                   1)) ||
      !(s = getrs_device(blas, st, trans == 'N' ? 'N' : 'T', n, nrhs, dlu, n, dorder, db, n, dx)))
    return s;
  // X into B: a failure before the first piece reached B leaves it as it was.
  bool wrote = false;
  s = download(*ctx, b, ldb * kD, dx, n * kD, n * kD, nrhs, st, &wrote);
  if (!s && wrote) return Status::fail(Status::output_lost, "B partly overwritten: " + s.reason);
  return s;
}

}  // namespace gpueig::gpu
