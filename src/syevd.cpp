// gpu_syevd: argument checks, dispatch, and the CPU path (LAPACK DSYEVD). The GPU half is
// cuda/syevd_host.cu: the reduction by Givens rotations with Q, the tridiagonal's eigenpairs by
// divide and conquer (cuda/stedc.cu), Q Z.
#include <algorithm>
#include <climits>
#include <new>
#include <vector>

#include "checks.hpp"
#include "cpu_paths.hpp"
#include "device_call.hpp"
#include "dispatch.hpp"
#include "gpu_backend.hpp"
#include "gpueig.h"
#include "lapack.hpp"
#include "lapack_workspace.hpp"

namespace gpueig::cpu {

int syevd(char jobz, char uplo, int n, double *a, int lda, double *w) {
  const lapack::Table *L = lapack::table();
  if (!L) return GPUEIG_ERR_LAPACK;
  const bool wantz = lsame(jobz, 'V');
  try {
    int query_lwork = -1, query_liwork = -1, iquery = 0, info = 0;
    double query = 0;
    L->dsyevd(&jobz, &uplo, &n, a, &lda, w, &query, &query_lwork, &iquery, &query_liwork, &info, 1, 1);
    if (info != 0) return GPUEIG_ERR_INTERNAL;
    const int64_t lwork = lapack::workspace_length(query, lapack::dsyevd_lwork_min(wantz, n));
    const int64_t liwork = lapack::workspace_length(iquery, lapack::dsyevd_liwork_min(wantz, n));
    // (DSYEVD's workspace of 1 + 6n + 2n^2 outgrows LP64's INTEGER from n = 32767 on)
    if (lwork < 0 || liwork < 0) return GPUEIG_ERR_MEMORY;
    std::vector<double> work(lwork);
    std::vector<int> iwork(liwork);
    int lw = static_cast<int>(lwork), liw = static_cast<int>(liwork);
    L->dsyevd(&jobz, &uplo, &n, a, &lda, w, work.data(), &lw, iwork.data(), &liw, &info, 1, 1);
    return info < 0 ? GPUEIG_ERR_INTERNAL : info;
  } catch (const std::bad_alloc &) {
    return GPUEIG_ERR_MEMORY;
  }
}

void gemm(int64_t m, int64_t n, int64_t k, const double *a, int64_t lda, const double *b,
          int64_t ldb, double *c, int64_t ldc) {
  const lapack::Table *L = lapack::table();
  const int mi = int(m), ni = int(n), ki = int(k), la = int(lda), lb = int(ldb), lc = int(ldc);
  const double one = 1, zero = 0;
  if (L) L->dgemm("N", "N", &mi, &ni, &ki, &one, a, &la, b, &lb, &zero, c, &lc, 1, 1);
}

}  // namespace gpueig::cpu

namespace gpueig {
namespace {

// The checks gpu_syevd and gpu_syevd_dev share (their first five arguments): 0 or -i.
int syevd_arguments(char jobz, char uplo, int n, int lda) {
  if (!lsame(jobz, 'N') && !lsame(jobz, 'V')) return -1;
  if (!lsame(uplo, 'U') && !lsame(uplo, 'L')) return -2;
  if (n < 0) return -3;
  if (lda < max1(n)) return -5;
  return 0;
}

// gpu_syevd_dev's recompute where the device's method declines (NaN / Inf in A, a check that
// fails, no convergence), as the host API recomputes: A down, LAPACK DSYEVD, W, A (JOBZ 'V') and
// INFO (DSYEVD's, which may be > 0) up.
gpu::Status syevd_on_host(gpu::Device &dev, char j, char u, int64_t n, double *a, int64_t lda, double *w,
                          int *info, void *stream) {
  std::vector<double> ha(n * n), hw(n);
  gpu::Status s = dev.download_matrix(ha.data(), n, a, lda, n, n, stream);
  if (!s) return s;
  const int r = cpu::syevd(j, u, int(n), ha.data(), int(n), hw.data());
  if (r < 0)
    return gpu::Status::fail(gpu::Status::device_error,
                             r == GPUEIG_ERR_LAPACK ? "no LAPACK for the host recompute" : "the host recompute failed");
  s = dev.upload_matrix(w, n, hw.data(), n, n, 1, stream);
  if (s && j == 'V') s = dev.upload_matrix(a, lda, ha.data(), n, n, n, stream);
  return s ? dev.upload_arrays({{info, &r, sizeof(int)}}, stream) : s;
}

}  // namespace
}  // namespace gpueig

extern "C" int gpu_syevd_dev(char jobz, char uplo, int n, double *a, int lda, double *w, int *info, void *stream) {
  using namespace gpueig;
  return guarded([&] {
    CallRecord call(Routine::syevd, sizes({{"n", n}}));
    if (const int bad = syevd_arguments(jobz, uplo, n, lda)) return bad;
    const char j = lsame(jobz, 'V') ? 'V' : 'N';
    const char u = lsame(uplo, 'U') ? 'U' : 'L';
    const bool some = n > 0;
    return run_on_device(call, {{4, a, some}, {6, w, some}, {7, info, true}}, 8, stream, [&](gpu::Device &dev) {
      if (!some) return dev.zero_info(info, stream);
      gpu::Status s = dev.syevd_dev(j, u, n, a, lda, w, info, stream);
      if (s.code != gpu::Status::unsafe) return s;
      return syevd_on_host(dev, j, u, n, a, lda, w, info, stream);
    });
  });
}

extern "C" int gpu_syevd(char jobz, char uplo, int n, double *a, int lda, double *w) {
  using namespace gpueig;
  return guarded([&] {
    CallRecord call(Routine::syevd, sizes({{"n", n}}));
    if (const int bad = syevd_arguments(jobz, uplo, n, lda)) return bad;
    if (n == 0) return 0;

    const char j = lsame(jobz, 'V') ? 'V' : 'N';
    const char u = lsame(uplo, 'U') ? 'U' : 'L';
    // JOBZ 'N' is the reduction's and the bisection's work: the reduction's crossover decides.
    return run_dispatched(
        call, j == 'V' ? Routine::syevd : Routine::sytrd, n,
        [&](int &info) {
          info = 0;
          return gpu::device().syevd(j, u, n, a, lda, w);
        },
        [&] { return cpu::syevd(j, u, n, a, lda, w); });
  });
}
