// The CPU backend's view of LAPACK: a table of function pointers bound at first use to the real
// LAPACK library (OpenBLAS by default), never to whatever defines the same names first in the
// process. That matters once libgpueig_lapack.so is LD_PRELOADed: it exports dgtsv_, dstebz_, ...
// itself, and a plain call from here would resolve to the shim and recurse.
#pragma once
#include <cstddef>

namespace gpueig::lapack {

// Fortran ABI: everything by reference, hidden trailing lengths for CHARACTER arguments.
using dgtsv_t = void (*)(const int *n, const int *nrhs, double *dl, double *d, double *du,
                         double *b, const int *ldb, int *info);
using dstebz_t = void (*)(const char *range, const char *order, const int *n, const double *vl,
                          const double *vu, const int *il, const int *iu, const double *abstol,
                          const double *d, const double *e, int *m, int *nsplit, double *w,
                          int *iblock, int *isplit, double *work, int *iwork, int *info,
                          size_t, size_t);
using dsterf_t = void (*)(const int *n, double *d, double *e, int *info);
using dgetrf_t = void (*)(const int *m, const int *n, double *a, const int *lda, int *ipiv,
                          int *info);
using dgetrs_t = void (*)(const char *trans, const int *n, const int *nrhs, const double *a,
                          const int *lda, const int *ipiv, double *b, const int *ldb, int *info,
                          size_t);
using dstein_t = void (*)(const int *n, const double *d, const double *e, const int *m,
                          const double *w, const int *iblock, const int *isplit, double *z,
                          const int *ldz, double *work, int *iwork, int *ifail, int *info);
using dsytrd_t = void (*)(const char *uplo, const int *n, double *a, const int *lda, double *d,
                          double *e, double *tau, double *work, const int *lwork, int *info,
                          size_t);
using dorgtr_t = void (*)(const char *uplo, const int *n, double *a, const int *lda,
                          const double *tau, double *work, const int *lwork, int *info, size_t);
using dsyevr_t = void (*)(const char *jobz, const char *range, const char *uplo, const int *n,
                          double *a, const int *lda, const double *vl, const double *vu,
                          const int *il, const int *iu, const double *abstol, int *m, double *w,
                          double *z, const int *ldz, int *isuppz, double *work, const int *lwork,
                          int *iwork, const int *liwork, int *info, size_t, size_t, size_t);
using dsyevx_t = void (*)(const char *jobz, const char *range, const char *uplo, const int *n,
                          double *a, const int *lda, const double *vl, const double *vu,
                          const int *il, const int *iu, const double *abstol, int *m, double *w,
                          double *z, const int *ldz, double *work, const int *lwork, int *iwork,
                          int *ifail, int *info, size_t, size_t, size_t);
using dsyevd_t = void (*)(const char *jobz, const char *uplo, const int *n, double *a,
                          const int *lda, double *w, double *work, const int *lwork, int *iwork,
                          const int *liwork, int *info, size_t, size_t);
using dgemm_t = void (*)(const char *ta, const char *tb, const int *m, const int *n, const int *k,
                         const double *alpha, const double *a, const int *lda, const double *b,
                         const int *ldb, const double *beta, double *c, const int *ldc, size_t,
                         size_t);

struct Table {
  dgtsv_t dgtsv;
  dstebz_t dstebz;
  dsterf_t dsterf;
  dgetrf_t dgetrf;
  dgetrs_t dgetrs;
  dstein_t dstein;
  dsytrd_t dsytrd;
  dorgtr_t dorgtr;
  dsyevr_t dsyevr;
  dsyevd_t dsyevd;
  dsyevx_t dsyevx;
  dgemm_t dgemm;
};

// The bound table, or nullptr when no LAPACK library could be loaded (the reason is in
// load_error()). Thread-safe; binding happens once.
const Table *table();
const char *load_error();
// The library the table was bound to (for `gpueig info`).
const char *library_name();

}  // namespace gpueig::lapack
