/* A wrapper of dgtsv_ and dsterf_ placed in front of the shim (LD_PRELOAD="wrapper shim"), as a
 * tracer or a user's own interposer is: it counts the calls and passes each on with
 * dlsym(RTLD_NEXT), which is the shim. The shim must then forward what it does not serve to
 * LAPACK, not back to this wrapper (that recursed until the stack overflowed). */
#define _GNU_SOURCE
#include <dlfcn.h>

static int calls;
int lapack_wrapper_calls(void) { return calls; }

typedef void (*gtsv_fn)(const int *, const int *, double *, double *, double *, double *, const int *, int *);
void dgtsv_(const int *n, const int *nrhs, double *dl, double *d, double *du, double *b, const int *ldb,
            int *info) {
  gtsv_fn next = (gtsv_fn)dlsym(RTLD_NEXT, "dgtsv_");
  if (!next) {
    *info = -9999;
    return;
  }
  next(n, nrhs, dl, d, du, b, ldb, info);
  ++calls; /* after the call: not a tail call, so the shim sees this function as its caller */
}

typedef void (*sterf_fn)(const int *, double *, double *, int *);
void dsterf_(const int *n, double *d, double *e, int *info) {
  sterf_fn next = (sterf_fn)dlsym(RTLD_NEXT, "dsterf_");
  if (!next) {
    *info = -9999;
    return;
  }
  next(n, d, e, info);
  ++calls;
}
