// gpu_getrf_crout: argument checks, dispatch, and the CPU path (LAPACK DGETRF). The GPU half is
// cuda/getrf.cu (device factorization) and cuda/getrf_host.cu (transfers).
#include "checks.hpp"
#include "cpu_paths.hpp"
#include "dispatch.hpp"
#include "gpu_backend.hpp"
#include "gpueig.h"
#include "lapack.hpp"

namespace gpueig::cpu {

int getrf(int m, int n, double *a, int lda, int *ipiv) {
  const lapack::Table *L = lapack::table();
  if (!L) return GPUEIG_ERR_LAPACK;
  int info = 0;
  L->dgetrf(&m, &n, a, &lda, ipiv, &info);
  return info;
}

}  // namespace gpueig::cpu

extern "C" int gpu_getrf_crout(int m, int n, double *a, int lda, int *ipiv) {
  using namespace gpueig;
  return guarded([&] {
    CallRecord call(Routine::getrf, sizes({{"m", m}, {"n", n}}));
    if (m < 0) return -1;
    if (n < 0) return -2;
    if (lda < max1(m)) return -4;
    if (m == 0 || n == 0) return 0;

    return run_dispatched(
        call, Routine::getrf, m < n ? m : n,
        [&](int &info) { return gpu::device().getrf(m, n, a, lda, ipiv, &info); },
        [&] { return cpu::getrf(m, n, a, lda, ipiv); });
  });
}
