/* A LAPACK whose workspace queries lie: DSYEVD and DSYEVR answer every query (LWORK = -1 or
 * LIWORK = -1) with 1, as LAPACK's own queries answer once their 32-bit INTEGER arithmetic wraps
 * (DSYEVD's 1 + 6N + 2N^2 for N >= 32767), and forward real calls to the real LAPACK, which
 * rejects a workspace that is too small (INFO = -8 / -18). Everything else is the real LAPACK's:
 * this library depends on it, and dlsym on this library's handle finds its dependencies' symbols.
 * The toeplitz tests run with GPUEIG_LAPACK pointing here: they pass only if libgpueig sizes the
 * workspace itself and never trusts a query alone. */
#include <dlfcn.h>
#include <stddef.h>

static void *real(const char *name) {
  static void *lib;
  if (!lib) lib = dlopen(REAL_LAPACK, RTLD_NOW | RTLD_LOCAL);
  return lib ? dlsym(lib, name) : NULL;
}

typedef void (*dsyevd_t)(const char *, const char *, const int *, double *, const int *, double *,
                         double *, const int *, int *, const int *, int *, size_t, size_t);
typedef void (*dsyevr_t)(const char *, const char *, const char *, const int *, double *,
                         const int *, const double *, const double *, const int *, const int *,
                         const double *, int *, double *, double *, const int *, int *, double *,
                         const int *, int *, const int *, int *, size_t, size_t, size_t);

void dsyevd_(const char *jobz, const char *uplo, const int *n, double *a, const int *lda,
             double *w, double *work, const int *lwork, int *iwork, const int *liwork, int *info,
             size_t l1, size_t l2) {
  ((dsyevd_t)real("dsyevd_"))(jobz, uplo, n, a, lda, w, work, lwork, iwork, liwork, info, l1, l2);
  if (*lwork == -1 || *liwork == -1) {
    work[0] = 1;
    iwork[0] = 1;
  }
}

void dsyevr_(const char *jobz, const char *range, const char *uplo, const int *n, double *a,
             const int *lda, const double *vl, const double *vu, const int *il, const int *iu,
             const double *abstol, int *m, double *w, double *z, const int *ldz, int *isuppz,
             double *work, const int *lwork, int *iwork, const int *liwork, int *info, size_t l1,
             size_t l2, size_t l3) {
  ((dsyevr_t)real("dsyevr_"))(jobz, range, uplo, n, a, lda, vl, vu, il, iu, abstol, m, w, z, ldz,
                              isuppz, work, lwork, iwork, liwork, info, l1, l2, l3);
  if (*lwork == -1 || *liwork == -1) {
    work[0] = 1;
    iwork[0] = 1;
  }
}
