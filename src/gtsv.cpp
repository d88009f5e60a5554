// gpu_gtsv_pcr: argument checks, dispatch, and the CPU path (DGTSV on copies of DL, D, DU).
// The GPU half is cuda/gtsv.cu.
#include <vector>

#include "checks.hpp"
#include "dispatch.hpp"
#include "gpu_backend.hpp"
#include "gpueig.h"
#include "lapack.hpp"

namespace gpueig {
namespace {

int gtsv_cpu(int n, int nrhs, const double *dl, const double *d, const double *du, double *b,
             int ldb) {
  const lapack::Table *L = lapack::table();
  if (!L) return GPUEIG_ERR_LAPACK;
  // DGTSV overwrites the matrix with its factors; the documented contract here keeps it.
  std::vector<double> dl2, d2, du2;
  try {
    dl2.assign(dl, dl + (n - 1));
    d2.assign(d, d + n);
    du2.assign(du, du + (n - 1));
  } catch (const std::bad_alloc &) {
    return GPUEIG_ERR_MEMORY;
  }
  int info = 0;
  L->dgtsv(&n, &nrhs, dl2.data(), d2.data(), du2.data(), b, &ldb, &info);
  return info;
}

}  // namespace
}  // namespace gpueig

extern "C" int gpu_gtsv_pcr(int n, int nrhs, double *dl, double *d, double *du, double *b,
                            int ldb) {
  using namespace gpueig;
  CallRecord call(Routine::gtsv, sizes({{"n", n}, {"nrhs", nrhs}}));
  if (n < 0) return -1;
  if (nrhs < 0) return -2;
  if (ldb < max1(n)) return -7;
  if (n == 0 || nrhs == 0) return 0;

  return run_dispatched(
      call, Routine::gtsv, n,
      [&](int &) { return gpu::gtsv(n, nrhs, dl, d, du, b, ldb); },
      [&] { return gtsv_cpu(n, nrhs, dl, d, du, b, ldb); });
}
