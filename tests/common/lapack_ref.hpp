// Direct LAPACK/BLAS calls for the tests: the reference every libgpueig result is checked against.
// Fortran ABI (hidden CHARACTER lengths last). Linked straight to the LAPACK library the build
// found, independently of libgpueig's own run-time binding.
#pragma once
#include <cstddef>

extern "C" {
void dgtsv_(const int *n, const int *nrhs, double *dl, double *d, double *du, double *b,
            const int *ldb, int *info);
void dstebz_(const char *range, const char *order, const int *n, const double *vl,
             const double *vu, const int *il, const int *iu, const double *abstol, const double *d,
             const double *e, int *m, int *nsplit, double *w, int *iblock, int *isplit,
             double *work, int *iwork, int *info, size_t, size_t);
void dsterf_(const int *n, double *d, double *e, int *info);
void dgetrf_(const int *m, const int *n, double *a, const int *lda, int *ipiv, int *info);
void dgetrs_(const char *trans, const int *n, const int *nrhs, const double *a, const int *lda,
             const int *ipiv, double *b, const int *ldb, int *info, size_t);
void dgesv_(const int *n, const int *nrhs, double *a, const int *lda, int *ipiv, double *b,
            const int *ldb, int *info);
void dsytrd_(const char *uplo, const int *n, double *a, const int *lda, double *d, double *e,
             double *tau, double *work, const int *lwork, int *info, size_t);
void dsyevd_(const char *jobz, const char *uplo, const int *n, double *a, const int *lda,
             double *w, double *work, const int *lwork, int *iwork, const int *liwork, int *info,
             size_t, size_t);
void dsyevr_(const char *jobz, const char *range, const char *uplo, const int *n, double *a,
             const int *lda, const double *vl, const double *vu, const int *il, const int *iu,
             const double *abstol, int *m, double *w, double *z, const int *ldz, int *isuppz,
             double *work, const int *lwork, int *iwork, const int *liwork, int *info, size_t,
             size_t, size_t);
void dgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k,
            const double *alpha, const double *a, const int *lda, const double *b, const int *ldb,
            const double *beta, double *c, const int *ldc, size_t, size_t);
}
