/* A LAPACK client run as LD_PRELOAD="lapack_wrapper shim" (run_wrapped.sh): small dgtsv_ and
 * dsterf_ calls, which the shim forwards to LAPACK, through a wrapper in front of the shim. Exits
 * 0 when both answers are right and each call passed the wrapper once. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>

void dgtsv_(const int *n, const int *nrhs, double *dl, double *d, double *du, double *b, const int *ldb,
            int *info);
void dsterf_(const int *n, double *d, double *e, int *info);

int main(void) {
  int n = 4, nrhs = 1, info = -1, bad = 0;
  /* tridiag(-1, 2, -1) x = b with x = (1, 2, 3, 4): b = (0, 0, 0, 5) */
  double dl[3] = {-1, -1, -1}, d[4] = {2, 2, 2, 2}, du[3] = {-1, -1, -1}, b[4] = {0, 0, 0, 5};
  dgtsv_(&n, &nrhs, dl, d, du, b, &n, &info);
  for (int i = 0; i < 4; ++i) bad |= fabs(b[i] - (i + 1)) > 1e-12;
  printf("dgtsv_: info %d, x = %g %g %g %g\n", info, b[0], b[1], b[2], b[3]);
  bad |= info != 0;
  /* eigenvalues of tridiag(1, 0, 1) of order 3: -sqrt(2), 0, sqrt(2) */
  int m = 3;
  double w[3] = {0, 0, 0}, e[2] = {1, 1};
  dsterf_(&m, w, e, &info);
  printf("dsterf_: info %d, w = %g %g %g\n", info, w[0], w[1], w[2]);
  bad |= info != 0 || fabs(w[0] + sqrt(2.0)) > 1e-14 || fabs(w[1]) > 1e-14 || fabs(w[2] - sqrt(2.0)) > 1e-14;
  int (*counted)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "lapack_wrapper_calls");
  const int calls = counted ? counted() : -1;
  printf("calls through the wrapper: %d\n", calls);
  bad |= calls != 2;
  return bad;
}
