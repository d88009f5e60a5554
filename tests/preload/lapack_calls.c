/* An ordinary LAPACK program, linked against the system LAPACK only: it knows nothing of
 * libgpueig. The LD_PRELOAD test runs it with and without libgpueig_lapack.so and compares the
 * output. Values are printed to 8 significant digits: the GPU computes the same answers in a
 * different order, so their last bits may differ.
 * Argument: the size of the dgtsv system (large enough to reach the GPU in `auto`). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

void dgetrf_(const int *m, const int *n, double *a, const int *lda, int *ipiv, int *info);
void dgetrs_(const char *trans, const int *n, const int *nrhs, const double *a, const int *lda,
             const int *ipiv, double *b, const int *ldb, int *info, size_t);
void dgesv_(const int *n, const int *nrhs, double *a, const int *lda, int *ipiv, double *b,
            const int *ldb, int *info);
void dgtsv_(const int *n, const int *nrhs, double *dl, double *d, double *du, double *b,
            const int *ldb, int *info);
void dstebz_(const char *range, const char *order, const int *n, const double *vl,
             const double *vu, const int *il, const int *iu, const double *abstol, const double *d,
             const double *e, int *m, int *nsplit, double *w, int *iblock, int *isplit,
             double *work, int *iwork, int *info, size_t, size_t);
void dsterf_(const int *n, double *d, double *e, int *info);
void dstein_(const int *n, const double *d, const double *e, const int *m, const double *w,
             const int *iblock, const int *isplit, double *z, const int *ldz, double *work,
             int *iwork, int *ifail, int *info);
void dsyev_(const char *jobz, const char *uplo, const int *n, double *a, const int *lda, double *w,
            double *work, const int *lwork, int *info, size_t, size_t);
void dsyevx_(const char *jobz, const char *range, const char *uplo, const int *n, double *a,
             const int *lda, const double *vl, const double *vu, const int *il, const int *iu,
             const double *abstol, int *m, double *w, double *z, const int *ldz, double *work,
             const int *lwork, int *iwork, int *ifail, int *info, size_t, size_t, size_t);
void dsyevr_(const char *jobz, const char *range, const char *uplo, const int *n, double *a,
             const int *lda, const double *vl, const double *vu, const int *il, const int *iu,
             const double *abstol, int *m, double *w, double *z, const int *ldz, int *isuppz,
             double *work, const int *lwork, int *iwork, const int *liwork, int *info, size_t,
             size_t, size_t);
void dsyevd_(const char *jobz, const char *uplo, const int *n, double *a, const int *lda,
             double *w, double *work, const int *lwork, int *iwork, const int *liwork, int *info,
             size_t, size_t);

static unsigned long long state = 12345;
static double next(void) { /* uniform in [-1, 1), the same sequence everywhere */
  state = state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(state >> 11) / 4503599627370496.0 - 1.0;
}

static void print_values(const char *what, const double *x, int count) {
  printf("%s:", what);
  for (int i = 0; i < count; ++i) printf(" %.8e", x[i]);
  printf("\n");
}

static double *symmetric(int n) {
  double *a = malloc(sizeof(double) * n * n);
  for (int j = 0; j < n; ++j)
    for (int i = j; i < n; ++i) a[i + j * n] = a[j + i * n] = next();
  return a;
}

int main(int argc, char **argv) {
  int info = 0, n, one = 1;

  /* dgetrf */
  n = 40;
  double *a = malloc(sizeof(double) * n * n);
  int *ipiv = malloc(sizeof(int) * n);
  for (int k = 0; k < n * n; ++k) a[k] = next();
  dgetrf_(&n, &n, a, &n, ipiv, &info);
  double logdet = 0;
  for (int i = 0; i < n; ++i) logdet += log(fabs(a[i + i * n]));
  printf("dgetrf info=%d ipiv[0..4]=%d %d %d %d %d log|det|=%.8e\n", info, ipiv[0], ipiv[1],
         ipiv[2], ipiv[3], ipiv[4], logdet);

  /* dgetrs with those factors, A x = b and A**T x = b, two right-hand sides each */
  double *rhs = malloc(sizeof(double) * n * 2);
  for (const char *t = "NT"; *t; ++t) {
    for (int k = 0; k < 2 * n; ++k) rhs[k] = next();
    int two = 2;
    dgetrs_(t, &n, &two, a, &n, ipiv, rhs, &n, &info, 1);
    printf("dgetrs TRANS=%c info=%d ", *t, info);
    print_values("x[0..3]", rhs, 4);
  }

  /* dgesv: n = 600 (above auto's crossover: the GPU factors it where there is one), 3 rhs */
  {
    int ns = 600, three = 3;
    double *g = malloc(sizeof(double) * ns * ns), *x = malloc(sizeof(double) * ns * 3);
    int *p = malloc(sizeof(int) * ns);
    for (int k = 0; k < ns * ns; ++k) g[k] = next();
    for (int k = 0; k < ns * 3; ++k) x[k] = next();
    dgesv_(&ns, &three, g, &ns, p, x, &ns, &info);
    double sx = 0;
    for (int k = 0; k < ns * 3; ++k) sx += x[k];
    printf("dgesv info=%d ipiv[0..2]=%d %d %d sum(x)=%.8e ", info, p[0], p[1], p[2], sx);
    print_values("x[0..3]", x, 4);
    free(g);
    free(x);
    free(p);
  }

  /* dgtsv, diagonally dominant */
  n = argc > 1 ? atoi(argv[1]) : 1000;
  double *dl = malloc(sizeof(double) * n), *d = malloc(sizeof(double) * n);
  double *du = malloc(sizeof(double) * n), *b = malloc(sizeof(double) * n);
  for (int i = 0; i < n; ++i) {
    dl[i] = next();
    du[i] = next();
    d[i] = 3.0 + next();
    b[i] = next();
  }
  dgtsv_(&n, &one, dl, d, du, b, &n, &info);
  double sum = 0;
  for (int i = 0; i < n; ++i) sum += b[i];
  printf("dgtsv n=%d info=%d sum(x)=%.8e ", n, info, sum);
  print_values("x[0..3]", b, 4);

  /* dstebz, the 10 smallest of a random tridiagonal, and dsterf, all of another */
  n = 200;
  double *td = malloc(sizeof(double) * n), *te = malloc(sizeof(double) * n);
  for (int i = 0; i < n; ++i) {
    td[i] = next();
    te[i] = next();
  }
  double vl = 0, vu = 0, abstol = 0, *w = malloc(sizeof(double) * n);
  double *work = malloc(sizeof(double) * 4 * n);
  int il = 1, iu = 10, m = 0, nsplit = 0, *iblock = malloc(sizeof(int) * n);
  int *isplit = malloc(sizeof(int) * n), *iwork = malloc(sizeof(int) * 3 * n);
  dstebz_("I", "E", &n, &vl, &vu, &il, &iu, &abstol, td, te, &m, &nsplit, w, iblock, isplit, work,
          iwork, &info, 1, 1);
  printf("dstebz info=%d m=%d nsplit=%d ", info, m, nsplit);
  print_values("w", w, m);
  /* dstein: their eigenvectors */
  double *zv = malloc(sizeof(double) * n * m), *work5 = malloc(sizeof(double) * 5 * n);
  int *iwn = malloc(sizeof(int) * n), *ifail = malloc(sizeof(int) * m);
  dstein_(&n, td, te, &m, w, iblock, isplit, zv, &n, work5, iwn, ifail, &info);
  printf("dstein info=%d ", info);
  print_values("z[0..3, 0]", zv, 4);
  free(zv), free(work5), free(iwn), free(ifail);
  dsterf_(&n, td, te, &info);
  printf("dsterf info=%d ", info);
  print_values("w[0..4]", td, 5);
  print_values("dsterf w[n-3..n-1]", td + n - 3, 3);

  /* dsyevd and dsyev, values only (served by libgpueig) and with vectors (forwarded) */
  n = 60;
  int lwork = 1 + 6 * n + 2 * n * n, liwork = 3 + 5 * n;
  double *big = malloc(sizeof(double) * lwork);
  int *ibig = malloc(sizeof(int) * (liwork > 10 * n ? liwork : 10 * n)); /* (dsyevr: 10 n) */
  double *s = symmetric(n);
  dsyevd_("N", "L", &n, s, &n, w, big, &lwork, ibig, &liwork, &info, 1, 1);
  printf("dsyevd JOBZ=N info=%d ", info);
  print_values("w[0..5]", w, 6);
  free(s);
  s = symmetric(n);
  dsyevd_("V", "U", &n, s, &n, w, big, &lwork, ibig, &liwork, &info, 1, 1);
  printf("dsyevd JOBZ=V info=%d |z(1,1)|=%.8e ", info, fabs(s[0]));
  print_values("w[0..5]", w, 6);
  free(s);
  s = symmetric(n);
  dsyev_("N", "U", &n, s, &n, w, big, &lwork, &info, 1, 1);
  printf("dsyev JOBZ=N info=%d ", info);
  print_values("w[n-3..n-1]", w + n - 3, 3);

  /* dsyevx, the 6 smallest eigenpairs, and dsyevr, all of them (ISUPPZ is filled) and those in
     (-1, 1] */
  {
    double *z = malloc(sizeof(double) * n * n);
    int *ifl = malloc(sizeof(int) * n), *isuppz = malloc(sizeof(int) * 2 * n), six = 6;
    int lw = 26 * n, liw = 10 * n;
    s = symmetric(n);
    dsyevx_("V", "I", "L", &n, s, &n, &vl, &vu, &one, &six, &abstol, &m, w, z, &n, big, &lw, ibig,
            ifl, &info, 1, 1, 1);
    printf("dsyevx RANGE=I info=%d m=%d ifail[0]=%d |z(1,1)|=%.8e ", info, m, ifl[0], fabs(z[0]));
    print_values("w", w, m);
    free(s);
    s = symmetric(n);
    dsyevr_("V", "A", "U", &n, s, &n, &vl, &vu, &one, &six, &abstol, &m, w, z, &n, isuppz, big, &lw,
            ibig, &liw, &info, 1, 1, 1);
    printf("dsyevr RANGE=A info=%d m=%d isuppz[0..1]=%d %d |z(1,1)|=%.8e ", info, m, isuppz[0],
           isuppz[1], fabs(z[0]));
    print_values("w[0..5]", w, 6);
    free(s);
    s = symmetric(n);
    double lo = -1, hi = 1;
    dsyevr_("N", "V", "L", &n, s, &n, &lo, &hi, &one, &six, &abstol, &m, w, z, &n, isuppz, big, &lw,
            ibig, &liw, &info, 1, 1, 1);
    printf("dsyevr RANGE=V info=%d m=%d ", info, m);
    print_values("w[0..2]", w, 3);
    free(s), free(z), free(ifl), free(isuppz);
  }

  /* An illegal argument reaches LAPACK's own XERBLA, as it would without the shim. */
  int bad = -1;
  dgetrf_(&bad, &one, a, &one, ipiv, &info);
  printf("dgetrf(m=-1) info=%d\n", info);
  return 0;
}
