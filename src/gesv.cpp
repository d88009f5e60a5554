// gpu_gesv_crout: argument checks, dispatch, and the CPU path (LAPACK DGESV). The GPU half
// (cuda/getrf_host.cu) is gpu_getrf_crout's streamed factorization with the solve on the device
// after it: the factors are there already, and a host DGETRS would read all n^2 of them again
// from host memory (at n = 8192 that took longer than the whole factorization's tail).
#include "checks.hpp"
#include "cpu_paths.hpp"
#include "device_call.hpp"
#include "dispatch.hpp"
#include "gpu_backend.hpp"
#include "gpueig.h"
#include "lapack.hpp"

namespace gpueig::cpu {

int gesv(int n, int nrhs, double *a, int lda, int *ipiv, double *b, int ldb) {
  // DGETRF then DGETRS, as Reference LAPACK's DGESV (OpenBLAS's own DGESV returns for NRHS = 0
  // without factoring A: the contract here is Reference LAPACK's, on every backend).
  int info = getrf(n, n, a, lda, ipiv);
  if (info == 0 && nrhs > 0) info = getrs('N', n, nrhs, a, lda, ipiv, b, ldb);
  return info;
}

}  // namespace gpueig::cpu

namespace {

// DGESV's argument checks (the host and the device-pointer calls share them): 0 or -i.
int gesv_arguments(int n, int nrhs, int lda, int ldb) {
  if (n < 0) return -1;
  if (nrhs < 0) return -2;
  if (lda < gpueig::max1(n)) return -4;
  if (ldb < gpueig::max1(n)) return -7;
  return 0;
}

}  // namespace

extern "C" int gpu_gesv_crout(int n, int nrhs, double *a, int lda, int *ipiv, double *b, int ldb) {
  using namespace gpueig;
  return guarded([&] {
    CallRecord call(Routine::gesv, sizes({{"n", n}, {"nrhs", nrhs}}));
    if (const int bad = gesv_arguments(n, nrhs, lda, ldb)) return bad;
    if (n == 0) return 0;  // NRHS = 0 still factors A, as DGESV does
    // Without a LAPACK for the solve, fail before the device factors A in place: an error from
    // here never leaves A half-way (the shim forwards such calls to the program's LAPACK).
    if (!lapack::table()) return GPUEIG_ERR_LAPACK;

    // The GPU half: A factored and, unless U is singular (INFO > 0: DGESV's INFO, B untouched),
    // X solved on the device (outputs written only when it succeeds, or it reports them partly
    // written). If the device solve failed after the factors were in A, DGETRS on the host.
    auto on_gpu = [&](int &info) {
      bool solved = false;
      gpu::Status st = gpu::device().gesv(n, nrhs, a, lda, ipiv, b, ldb, &info, &solved);
      if (st && info == 0 && nrhs > 0 && !solved)
        info = cpu::getrs('N', n, nrhs, a, lda, ipiv, b, ldb);
      return st;
    };
    return run_dispatched(call, Routine::gesv, n, on_gpu,
                          [&] { return cpu::gesv(n, nrhs, a, lda, ipiv, b, ldb); });
  });
}

extern "C" int gpu_gesv_dev(int n, int nrhs, double *a, int lda, int *ipiv, double *b, int ldb,
                            int *info, void *stream) {
  using namespace gpueig;
  return guarded([&] {
    CallRecord call(Routine::gesv, sizes({{"n", n}, {"nrhs", nrhs}}));
    if (const int bad = gesv_arguments(n, nrhs, lda, ldb)) return bad;
    return run_on_device(call, {{3, a, n > 0}, {5, ipiv, n > 0}, {6, b, n > 0 && nrhs > 0}, {8, info, true}},
                         9, stream, [&](gpu::Device &dev) {
                           return n == 0 ? dev.zero_info(info, stream)
                                         : dev.gesv_dev(n, nrhs, a, lda, ipiv, b, ldb, info, stream);
                         });
  });
}
