// gpu_sytrd_givens: argument checks, dispatch, and the CPU path (LAPACK DSYTRD + DORGTR, and a
// DGEMM for the update form Q := Q_in * Q). The GPU half is cuda/sytrd_*.cu.
#include <algorithm>
#include <vector>

#include "checks.hpp"
#include "cpu_paths.hpp"
#include "dispatch.hpp"
#include "gpu_backend.hpp"
#include "gpueig.h"
#include "lapack.hpp"

namespace gpueig {
namespace {

// Copies the n x n matrix src (leading dimension lds) into dst (leading dimension ldd).
void copy_square(int64_t n, const double *src, int64_t lds, double *dst, int64_t ldd) {
  for (int64_t j = 0; j < n; ++j) std::copy(src + j * lds, src + j * lds + n, dst + j * ldd);
}

}  // namespace
}  // namespace gpueig

namespace gpueig::cpu {

int sytrd(char vect, char uplo, int n, double *a, int lda, double *d, double *e, double *q,
              int ldq) {
  const lapack::Table *L = lapack::table();
  if (!L) return GPUEIG_ERR_LAPACK;
  const int64_t nn = n;
  try {
    std::vector<double> tau(std::max<int64_t>(1, nn - 1));
    // One workspace serves DSYTRD and DORGTR: take the larger of their optimal sizes.
    int lwork = -1, info = 0;
    double query = 0;
    L->dsytrd(&uplo, &n, a, &lda, d, e, tau.data(), &query, &lwork, &info, 1);
    double opt = query;
    if (!lsame(vect, 'N')) {
      L->dorgtr(&uplo, &n, a, &lda, tau.data(), &query, &lwork, &info, 1);
      opt = std::max(opt, query);
    }
    lwork = std::max(1, static_cast<int>(opt));
    std::vector<double> work(lwork);
    L->dsytrd(&uplo, &n, a, &lda, d, e, tau.data(), work.data(), &lwork, &info, 1);
    if (info != 0 || lsame(vect, 'N')) return info;

    if (lsame(vect, 'V')) {
      copy_square(nn, a, lda, q, ldq);
      L->dorgtr(&uplo, &n, q, &ldq, tau.data(), work.data(), &lwork, &info, 1);
      return info;
    }
    // vect 'U': Q := Q_in * Q_house.
    std::vector<double> qh(nn * nn), prod(nn * nn);
    copy_square(nn, a, lda, qh.data(), nn);
    L->dorgtr(&uplo, &n, qh.data(), &n, tau.data(), work.data(), &lwork, &info, 1);
    if (info != 0) return info;
    const double one = 1.0, zero = 0.0;
    L->dgemm("N", "N", &n, &n, &n, &one, q, &ldq, qh.data(), &n, &zero, prod.data(), &n, 1, 1);
    copy_square(nn, prod.data(), nn, q, ldq);
    return 0;
  } catch (const std::bad_alloc &) {
    return GPUEIG_ERR_MEMORY;
  }
}

}  // namespace gpueig::cpu

extern "C" int gpu_sytrd_givens(char vect, char uplo, int n, double *a, int lda, double *d,
                                double *e, double *q, int ldq) {
  using namespace gpueig;
  return guarded([&] {
    CallRecord call(Routine::sytrd, sizes({{"n", n}}));
    const bool wantq = lsame(vect, 'V') || lsame(vect, 'U');
    if (!wantq && !lsame(vect, 'N')) return -1;
    if (!lsame(uplo, 'U') && !lsame(uplo, 'L')) return -2;
    if (n < 0) return -3;
    if (lda < max1(n)) return -5;
    if (ldq < 1 || (wantq && ldq < max1(n))) return -9;
    if (n == 0) return 0;

    const char v = lsame(vect, 'N') ? 'N' : lsame(vect, 'V') ? 'V' : 'U';
    const char u = lsame(uplo, 'U') ? 'U' : 'L';
    return run_dispatched(
        call, Routine::sytrd, n,
        [&](int &info) {
          info = 0;
          return gpu::device().sytrd(v, u, n, a, lda, d, e, q, ldq);
        },
        [&] { return cpu::sytrd(v, u, n, a, lda, d, e, q, ldq); });
  });
}
