// gpu_getrf_crout: argument checks, dispatch, and the CPU path (LAPACK DGETRF). The GPU half is
// cuda/getrf.cu (device factorization) and cuda/getrf_host.cu (transfers).
#include "checks.hpp"
#include "cpu_paths.hpp"
#include "device_call.hpp"
#include "dispatch.hpp"
#include "tuning.hpp"
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

namespace {

// DGETRF's argument checks (the host and the device-pointer calls share them): 0 or -i.
int getrf_arguments(int m, int n, int lda) {
  if (m < 0) return -1;
  if (n < 0) return -2;
  if (lda < gpueig::max1(m)) return -4;
  return 0;
}

}  // namespace

extern "C" int gpu_getrf_crout(int m, int n, double *a, int lda, int *ipiv) {
  using namespace gpueig;
  return guarded([&] {
    CallRecord call(Routine::getrf, sizes({{"m", m}, {"n", n}}));
    if (const int bad = getrf_arguments(m, n, lda)) return bad;
    if (m == 0 || n == 0) return 0;

    return run_dispatched(
        call, Routine::getrf, tuning::getrf_work_size(m, n),
        [&](int &info) { return gpu::device().getrf(m, n, a, lda, ipiv, &info); },
        [&] { return cpu::getrf(m, n, a, lda, ipiv); });
  });
}

extern "C" int gpu_getrf_dev(int m, int n, double *a, int lda, int *ipiv, int *info, void *stream) {
  using namespace gpueig;
  return guarded([&] {
    CallRecord call(Routine::getrf, sizes({{"m", m}, {"n", n}}));
    if (const int bad = getrf_arguments(m, n, lda)) return bad;
    const bool empty = m == 0 || n == 0;
    return run_on_device(call, {{3, a, !empty}, {5, ipiv, !empty}, {6, info, true}}, 7, stream,
                         [&](gpu::Device &dev) {
                           return empty ? dev.zero_info(info, stream)
                                        : dev.getrf_dev(m, n, a, lda, ipiv, info, stream);
                         });
  });
}
