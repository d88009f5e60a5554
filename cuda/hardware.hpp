// The GPU halves of the routines on the hardware, with the contracts of Device (src/gpu_backend.hpp):
// cuda/hardware.cu wraps them in the Device the host side calls.
#pragma once
#include <cstdint>
#include <functional>
#include <vector>

#include "gpu_backend.hpp"

namespace gpueig::gpu {

Status gtsv(int64_t n, int64_t nrhs, const double *dl, const double *d, const double *du,
            double *b, int64_t ldb);
Status gtsv_batch(int64_t n, int64_t batch, const double *dl, const double *d, const double *du,
                  double *b, int64_t stride, std::vector<BatchOutcome> *redo, int64_t *done);
Status sytrd(char vect, char uplo, int64_t n, double *a, int64_t lda, double *d, double *e,
             double *q, int64_t ldq);
Status syevd(char jobz, char uplo, int64_t n, double *a, int64_t lda, double *w);
Status syevx(char jobz, char range, char uplo, int64_t n, const double *a, int64_t lda, double vl,
             double vu, int il, int iu, double abstol, int *m, double *w, double *z, int64_t ldz);
Status stein(int n, const double *d, const double *e, int m, const double *w, const int *iblock,
             const int *isplit, double *z, int ldz, int *ifail, int *info);
Status getrf(int64_t m, int64_t n, double *a, int64_t lda, int *ipiv, int *info);
Status gesv(int64_t n, int64_t nrhs, double *a, int64_t lda, int *ipiv, double *b, int64_t ldb,
            int *info, bool *solved);
Status getrs(char trans, int64_t n, int64_t nrhs, const double *a, int64_t lda, const int *ipiv,
             double *b, int64_t ldb);
// The device-pointer sytrd (cuda/sytrd_host.cu), and a copy of rows x cols doubles between any
// two of host and device memory, in order on `stream` and waited for.
Status sytrd_dev(char vect, char uplo, int64_t n, const double *a, int64_t lda, double *d, double *e,
                 double *q, int64_t ldq, int *info, void *stream);
// The device-pointer syevd (cuda/syevd_host.cu).
Status syevd_dev(char jobz, char uplo, int64_t n, double *a, int64_t lda, double *w, int *info, void *stream);
// The device-pointer syevx (cuda/syevx_host.cu).
Status syevx_dev(char jobz, char range, char uplo, int64_t n, double *a, int64_t lda, double vl, double vu,
                 int il, int iu, double abstol, int *m, double *w, double *z, int64_t ldz, int *ifail, int *info,
                 void *stream);
Status copy_matrix(double *dst, int64_t ldd, const double *src, int64_t lds, int64_t rows,
                   int64_t cols, void *stream);
// The device-pointer API (cuda/getrf_dev.cu).
Status getrf_dev(int64_t m, int64_t n, double *a, int64_t lda, int *ipiv, int *info, void *stream);
Status getrs_dev(char trans, int64_t n, int64_t nrhs, const double *a, int64_t lda, const int *ipiv,
                 double *b, int64_t ldb, int *info, void *stream);
Status gesv_dev(int64_t n, int64_t nrhs, double *a, int64_t lda, int *ipiv, double *b, int64_t ldb,
                int *info, void *stream);
// The tridiagonal device twins (cuda/gtsv_dev.cu).
Status gtsv_dev(int64_t n, int64_t ncol, const double *dl, const double *d, const double *du, int64_t ms,
                double *b, int64_t ldb, int *info, void *stream);
Status zero_info(int *info, void *stream);
Status stebz(char range, char order, int n, double vl, double vu, int il, int iu, double abstol,
             const double *d, const double *e, int *m, int *nsplit, double *w, int *iblock,
             int *isplit, int *info);
// The device twins of stebz (cuda/stebz.cu) and stein (cuda/stein.cu).
Status stebz_dev(char range, char order, int n, double vl, double vu, int il, int iu, double abstol,
                 const double *d, const double *e, int *m, int *nsplit, double *w, int *iblock,
                 int *isplit, int *info, void *stream);
Status stein_dev(int n, const double *d, const double *e, int m, const double *w, const int *iblock,
                 const int *isplit, double *z, int64_t ldz, int *ifail, int *info, void *stream);
Status toeplitz_tridiagonals(int64_t n, const double *t, ToeplitzHalves *halves,
                             const std::function<Status(int)> &then);
Status toeplitz_inertia(int64_t n, const double *t, const InertiaUse &use, int64_t *bytes);

}  // namespace gpueig::gpu
