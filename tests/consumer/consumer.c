/* Solves a 3 x 3 tridiagonal system through the installed library. */
#include <math.h>
#include <stdio.h>

#include <gpueig.h>

int main(void) {
  double dl[2] = {-1, -1}, d[3] = {2, 2, 2}, du[2] = {-1, -1}, b[3] = {1, 0, 1};
  int info = gpu_gtsv_pcr(3, 1, dl, d, du, b, 3);
  /* The solution of tridiag(-1, 2, -1) x = (1, 0, 1) is (1, 1, 1). */
  int ok = info == 0 && fabs(b[0] - 1) < 1e-14 && fabs(b[1] - 1) < 1e-14 && fabs(b[2] - 1) < 1e-14;
  printf("libgpueig %s: info=%d x=(%g, %g, %g) backend=%s %s\n", gpueig_version(), info, b[0], b[1],
         b[2], gpueig_last_backend(), ok ? "OK" : "FAIL");
  return ok ? 0 : 1;
}
