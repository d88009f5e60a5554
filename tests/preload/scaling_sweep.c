/* An ordinary LAPACK program that sweeps the scale of its matrices from 1e-320 (subnormal) to
 * 1e308 through dsterf_, dsyev_ and dsyevd_ (JOBZ = 'N'), and compares every answer with the real
 * LAPACK's, reached through dlopen(argv[1]) (never the shim's names). Run under
 * LD_PRELOAD=libgpueig_lapack.so where the shim serves these calls (GPUEIG_SHIM=serve on the
 * CPU, GPUEIG_BACKEND=gpu on a GPU), it proves the served paths scale as DSTERF and DSYEV do: a
 * bisection on the unscaled matrix treats every |e| below 1.5e-154 as zero and overflows e^2 above
 * 1.3e154. The matrices have norm at most 1 before scaling, so no eigenvalue overflows.
 * Pass: every eigenvalue within 30 n eps ||T|| (plus the subnormal spacing) of LAPACK's. */
#include <dlfcn.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void sterf_t(const int *, double *, double *, int *);
typedef void syev_t(const char *, const char *, const int *, double *, const int *, double *,
                    double *, const int *, int *, size_t, size_t);
typedef void syevd_t(const char *, const char *, const int *, double *, const int *, double *,
                     double *, const int *, int *, const int *, int *, size_t, size_t);
sterf_t dsterf_;
syev_t dsyev_;
syevd_t dsyevd_;

static unsigned long long state = 2718281828ULL;
static double next(void) { /* uniform in [-1, 1) */
  state = state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(state >> 11) / 4503599627370496.0 - 1.0;
}

static int cases, failures;
static double worst;

/* ref and got: n eigenvalues; norm: ||T||_1 of the scaled matrix. */
static void compare(const char *what, double s, int n, const double *got, const double *ref,
                    double norm, int info_got, int info_ref) {
  ++cases;
  double err = 0;
  for (int i = 0; i < n; ++i) err = fmax(err, fabs(got[i] - ref[i]));
  const double unit = 30.0 * n * (DBL_EPSILON / 2) * norm + 4 * DBL_TRUE_MIN;
  const double ratio = err / unit;  /* <= 1 passes */
  if (ratio > worst) worst = ratio;
  if (info_got != info_ref || !(ratio <= 1)) {
    ++failures;
    printf("FAIL %s scale %.3g n %d: info %d (LAPACK %d), max error %.3g = %.3g x the bound %.3g\n",
           what, s, n, info_got, info_ref, err, ratio, unit);
  }
}

static int ascending(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: scaling_sweep LAPACK_LIBRARY\n");
    return 2;
  }
  void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  sterf_t *ref_sterf = lib ? (sterf_t *)dlsym(lib, "dsterf_") : NULL;
  syev_t *ref_syev = lib ? (syev_t *)dlsym(lib, "dsyev_") : NULL;
  syevd_t *ref_syevd = lib ? (syevd_t *)dlsym(lib, "dsyevd_") : NULL;
  if (!ref_sterf || !ref_syev || !ref_syevd) {
    fprintf(stderr, "cannot bind the reference LAPACK %s: %s\n", argv[1], dlerror());
    return 2;
  }
  const double scales[] = {1e-320, 1e-315, 1e-310, 1e-305, 1e-300, 1e-250, 1e-200, 1e-160,
                           1e-156, 1e-154, 1e-150, 1e-140, 1e-100, 1e-50,  1.0,    1e50,
                           1e100,  1e140,  1e150,  1e154,  1e156,  1e160,  1e200,  1e250,
                           1e300,  1e305,  1e308};
  const int nscales = sizeof scales / sizeof scales[0];
  enum { NMAX = 64 };
  static double d0[NMAX], e0[NMAX], a0[NMAX * NMAX];
  static double d[NMAX], e[NMAX], w[NMAX], rd[NMAX], re[NMAX], a[NMAX * NMAX], ra[NMAX * NMAX],
      rw[NMAX], work[4 * NMAX * NMAX + 8 * NMAX];
  static int iwork[8 * NMAX];
  const int lwork = 4 * NMAX * NMAX + 8 * NMAX, liwork = 8 * NMAX;

  /* Tridiagonal: s * tridiag(-1/4, 1/2, -1/4) (eigenvalues in (0, s)) and a random one with
   * entries in [-1/4, 1/4), at n = 5, 40 and 64. */
  for (int kind = 0; kind < 2; ++kind)
    for (int sizes = 0; sizes < 3; ++sizes) {
      const int n = sizes == 0 ? 5 : sizes == 1 ? 40 : 64;
      for (int i = 0; i < n; ++i) {
        d0[i] = kind == 0 ? 0.5 : 0.25 * next();
        e0[i] = kind == 0 ? -0.25 : 0.25 * next();
      }
      for (int k = 0; k < nscales; ++k) {
        const double s = scales[k];
        double norm = 0;
        for (int i = 0; i < n; ++i) {
          d[i] = rd[i] = d0[i] * s;
          e[i] = re[i] = e0[i] * s;
        }
        for (int i = 0; i < n; ++i)
          norm = fmax(norm, fabs(d[i]) + (i > 0 ? fabs(e[i - 1]) : 0) + (i + 1 < n ? fabs(e[i]) : 0));
        int info = -99, rinfo = -99;
        dsterf_(&n, d, e, &info);
        ref_sterf(&n, rd, re, &rinfo);
        compare(kind == 0 ? "dsterf_ 1-2-1" : "dsterf_ random", s, n, d, rd, norm, info, rinfo);
      }
    }

  /* Dense symmetric, entries in [-1/n, 1/n) (norm below 1), n = 5, 40 and 64, both triangles,
   * through dsyevd_ and dsyev_. */
  for (int sizes = 0; sizes < 3; ++sizes) {
    const int n = sizes == 0 ? 5 : sizes == 1 ? 40 : 64;
    for (int j = 0; j < n; ++j)
      for (int i = j; i < n; ++i) a0[i + j * n] = a0[j + i * n] = next() / n;
    for (int k = 0; k < nscales; ++k)
      for (int variant = 0; variant < 4; ++variant) {
        const double s = scales[k];
        const char *uplo = (variant & 1) ? "U" : "L";
        double norm = 0;
        for (int j = 0; j < n; ++j) {
          double col = 0;
          for (int i = 0; i < n; ++i) {
            a[i + j * n] = ra[i + j * n] = a0[i + j * n] * s;
            col += fabs(a[i + j * n]);
          }
          norm = fmax(norm, col);
        }
        int info = -99, rinfo = -99;
        if (variant < 2) {
          dsyevd_("N", uplo, &n, a, &n, w, work, &lwork, iwork, &liwork, &info, 1, 1);
          ref_syevd("N", uplo, &n, ra, &n, rw, work, &lwork, iwork, &liwork, &rinfo, 1, 1);
        } else {
          dsyev_("N", uplo, &n, a, &n, w, work, &lwork, &info, 1, 1);
          ref_syev("N", uplo, &n, ra, &n, rw, work, &lwork, &rinfo, 1, 1);
        }
        qsort(w, n, sizeof(double), ascending);  /* both are ascending already; cheap insurance */
        qsort(rw, n, sizeof(double), ascending);
        compare(variant < 2 ? "dsyevd_" : "dsyev_", s, n, w, rw, norm, info, rinfo);
      }
  }
  /* One order whose triangle has more than 2^20 entries, where the shim's scaling check (DLANSY
   * 'M') runs on several threads: n = 1500, dsyevd_ at three scales, both triangles. */
  {
    const int n = 1500, lw = 2 * n + 1, liw = 1;
    double *big = malloc(sizeof(double) * n * n), *rbig = malloc(sizeof(double) * n * n);
    double *bw = malloc(sizeof(double) * n), *brw = malloc(sizeof(double) * n);
    double *bwork = malloc(sizeof(double) * lw);
    if (!big || !rbig || !bw || !brw || !bwork) {
      fprintf(stderr, "no memory for n = %d\n", n);
      return 2;
    }
    const double big_scales[] = {1e-200, 1.0, 1e200};
    for (int k = 0; k < 3; ++k)
      for (int variant = 0; variant < 2; ++variant) {
        const double s = big_scales[k];
        const char *uplo = variant ? "U" : "L";
        for (int j = 0; j < n; ++j)
          for (int i = j; i < n; ++i)
            big[i + j * n] = big[j + i * n] = rbig[i + j * n] = rbig[j + i * n] = s * next() / n;
        double norm = 0;
        for (int j = 0; j < n; ++j) {
          double col = 0;
          for (int i = 0; i < n; ++i) col += fabs(big[i + j * n]);
          norm = fmax(norm, col);
        }
        int info = -99, rinfo = -99, iw = 0;
        dsyevd_("N", uplo, &n, big, &n, bw, bwork, &lw, &iw, &liw, &info, 1, 1);
        ref_syevd("N", uplo, &n, rbig, &n, brw, bwork, &lw, &iw, &liw, &rinfo, 1, 1);
        compare("dsyevd_ n=1500", s, n, bw, brw, norm, info, rinfo);
      }
    free(big);
    free(rbig);
    free(bw);
    free(brw);
    free(bwork);
  }
  printf("%d passed, %d failed (scaling sweep 1e-320 .. 1e308: %d cases, worst error %.3g of the "
         "bound)\n",
         cases - failures, failures, cases, worst);
  return failures ? 1 : 0;
}
