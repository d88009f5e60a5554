// gpu_getrs_crout: argument checks, dispatch, and the CPU path (LAPACK DGETRS). The GPU half
// (cuda/getrs_host.cu) uploads the whole LU (n^2 doubles) for O(n^2 nrhs) work, which can pay
// only where the CPU's own pass over the LU is slow: auto's crossover (src/tuning.hpp) is on n.
#include <cstdint>

#include "checks.hpp"
#include "cpu_paths.hpp"
#include "device_call.hpp"
#include "dispatch.hpp"
#include "gpu_backend.hpp"
#include "gpueig.h"
#include "lapack.hpp"

namespace gpueig::cpu {

int getrs(char trans, int n, int nrhs, const double *a, int lda, const int *ipiv, double *b,
          int ldb) {
  const lapack::Table *L = lapack::table();
  if (!L) return GPUEIG_ERR_LAPACK;
  int info = 0;
  L->dgetrs(&trans, &n, &nrhs, a, &lda, ipiv, b, &ldb, &info, 1);
  return info;
}

}  // namespace gpueig::cpu

namespace {

// DGETRS applies IPIV's interchanges without looking at them: an entry outside 1..N would make
// DLASWP read and write outside B. Checked here, so that no IPIV can fault the caller.
bool pivots_in_range(int n, const int *ipiv) {
  for (int64_t i = 0; i < n; ++i)
    if (ipiv[i] < 1 || ipiv[i] > n) return false;
  return true;
}

// DGETRS's argument checks (the host and the device-pointer calls share them): 0 or -i.
int getrs_arguments(char trans, int n, int nrhs, int lda, int ldb) {
  using gpueig::lsame, gpueig::max1;
  if (!lsame(trans, 'N') && !lsame(trans, 'T') && !lsame(trans, 'C')) return -1;
  if (n < 0) return -2;
  if (nrhs < 0) return -3;
  if (lda < max1(n)) return -5;
  if (ldb < max1(n)) return -8;
  return 0;
}

}  // namespace

extern "C" int gpu_getrs_crout(char trans, int n, int nrhs, const double *a, int lda,
                               const int *ipiv, double *b, int ldb) {
  using namespace gpueig;
  return guarded([&] {
    CallRecord call(Routine::getrs, sizes({{"n", n}, {"nrhs", nrhs}}));
    if (const int bad = getrs_arguments(trans, n, nrhs, lda, ldb)) return bad;
    if (n == 0 || nrhs == 0) return 0;  // (IPIV not read, as DGETRS)
    if (!pivots_in_range(n, ipiv)) return -6;  // after LAPACK's own checks

    const char t = lsame(trans, 'N') ? 'N' : 'T';  // 'C' is 'T' for real matrices
    auto on_gpu = [&](int &info) {
      info = 0;
      return gpu::device().getrs(t, n, nrhs, a, lda, ipiv, b, ldb);
    };
    return run_dispatched(call, Routine::getrs, n, on_gpu,
                          [&] { return cpu::getrs(trans, n, nrhs, a, lda, ipiv, b, ldb); });
  });
}

extern "C" int gpu_getrs_dev(char trans, int n, int nrhs, const double *a, int lda, const int *ipiv,
                             double *b, int ldb, int *info, void *stream) {
  using namespace gpueig;
  return guarded([&] {
    CallRecord call(Routine::getrs, sizes({{"n", n}, {"nrhs", nrhs}}));
    if (const int bad = getrs_arguments(trans, n, nrhs, lda, ldb)) return bad;
    const bool empty = n == 0 || nrhs == 0;  // (nothing but INFO referenced, as DGETRS)
    const char t = lsame(trans, 'N') ? 'N' : 'T';
    return run_on_device(call, {{4, a, !empty}, {6, ipiv, !empty}, {7, b, !empty}, {9, info, true}}, 10,
                         stream, [&](gpu::Device &dev) {
                           return empty ? dev.zero_info(info, stream)
                                        : dev.getrs_dev(t, n, nrhs, a, lda, ipiv, b, ldb, info, stream);
                         });
  });
}
