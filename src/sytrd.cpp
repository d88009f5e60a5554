// gpu_sytrd_givens: argument checks, dispatch, and the CPU path (LAPACK DSYTRD + DORGTR, and a
// DGEMM for the update form Q := Q_in * Q). The GPU half is cuda/sytrd_*.cu.
#include <algorithm>
#include <vector>

#include "checks.hpp"
#include "device_call.hpp"
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

namespace gpueig {
namespace {

// The checks gpu_sytrd_givens and gpu_sytrd_dev share (their first nine arguments): 0 or -i.
int sytrd_arguments(char vect, char uplo, int n, int lda, int ldq) {
  const bool wantq = lsame(vect, 'V') || lsame(vect, 'U');
  if (!wantq && !lsame(vect, 'N')) return -1;
  if (!lsame(uplo, 'U') && !lsame(uplo, 'L')) return -2;
  if (n < 0) return -3;
  if (lda < max1(n)) return -5;
  if (ldq < 1 || (wantq && ldq < max1(n))) return -9;
  return 0;
}

// gpu_sytrd_dev's recompute where the device's reduction cannot be trusted (NaN / Inf in A, a T
// that fails its check), as the host API recomputes: A's triangle (and Q_in) down, LAPACK, D, E
// (and Q) up.
gpu::Status sytrd_on_host(gpu::Device &dev, char v, char u, int64_t n, const double *a, int64_t lda,
                          double *d, double *e, double *q, int64_t ldq, int *info, void *stream) {
  const bool wantq = v != 'N';
  std::vector<double> ha(n * n), hd(n), he(std::max<int64_t>(n - 1, 1)), hq(wantq ? n * n : 1);
  gpu::Status s = dev.download_matrix(ha.data(), n, a, lda, n, n, stream);
  if (s && v == 'U') s = dev.download_matrix(hq.data(), n, q, ldq, n, n, stream);
  if (!s) return s;
  const int r = cpu::sytrd(v, u, int(n), ha.data(), int(n), hd.data(), he.data(), hq.data(),
                           int(wantq ? n : 1));
  if (r != 0)
    return gpu::Status::fail(gpu::Status::device_error,
                             r == GPUEIG_ERR_LAPACK ? "no LAPACK for the host recompute"
                                                    : "the host recompute failed");
  s = dev.upload_matrix(d, n, hd.data(), n, n, 1, stream);
  if (s && n > 1) s = dev.upload_matrix(e, n, he.data(), n, n - 1, 1, stream);
  if (s && wantq) s = dev.upload_matrix(q, ldq, hq.data(), n, n, n, stream);
  return s ? dev.zero_info(info, stream) : s;
}

}  // namespace
}  // namespace gpueig

extern "C" int gpu_sytrd_dev(char vect, char uplo, int n, const double *a, int lda, double *d,
                             double *e, double *q, int ldq, int *info, void *stream) {
  using namespace gpueig;
  return guarded([&] {
    CallRecord call(Routine::sytrd, sizes({{"n", n}}));
    if (const int bad = sytrd_arguments(vect, uplo, n, lda, ldq)) return bad;
    const char v = lsame(vect, 'N') ? 'N' : lsame(vect, 'V') ? 'V' : 'U';
    const char u = lsame(uplo, 'U') ? 'U' : 'L';
    const bool some = n > 0;
    return run_on_device(call, {{4, a, some}, {6, d, some}, {7, e, n > 1}, {8, q, some && v != 'N'},
                                {10, info, true}},
                         11, stream, [&](gpu::Device &dev) {
                           if (!some) return dev.zero_info(info, stream);
                           gpu::Status s = dev.sytrd_dev(v, u, n, a, lda, d, e, q, ldq, info, stream);
                           if (s.code != gpu::Status::unsafe) return s;
                           return sytrd_on_host(dev, v, u, n, a, lda, d, e, q, ldq, info, stream);
                         });
  });
}

extern "C" int gpu_sytrd_givens(char vect, char uplo, int n, double *a, int lda, double *d,
                                double *e, double *q, int ldq) {
  using namespace gpueig;
  return guarded([&] {
    CallRecord call(Routine::sytrd, sizes({{"n", n}}));
    if (const int bad = sytrd_arguments(vect, uplo, n, lda, ldq)) return bad;
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
