// gpu_getrs_crout: argument checks, dispatch, and the CPU path (LAPACK DGETRS). The GPU half
// (cuda/getrs_host.cu) uploads the whole LU (n^2 doubles) for O(n^2 nrhs) work, which can pay
// only where the CPU's own pass over the LU is slow: auto's crossover (src/tuning.hpp) is on n.
#include <cstdint>

#include "checks.hpp"
#include "cpu_paths.hpp"
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

}  // namespace

extern "C" int gpu_getrs_crout(char trans, int n, int nrhs, const double *a, int lda,
                               const int *ipiv, double *b, int ldb) {
  using namespace gpueig;
  return guarded([&] {
    CallRecord call(Routine::getrs, sizes({{"n", n}, {"nrhs", nrhs}}));
    if (!lsame(trans, 'N') && !lsame(trans, 'T') && !lsame(trans, 'C')) return -1;
    if (n < 0) return -2;
    if (nrhs < 0) return -3;
    if (lda < max1(n)) return -5;
    if (ldb < max1(n)) return -8;
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
