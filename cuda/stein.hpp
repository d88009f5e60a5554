// gpu_stein's method on arrays already on the device (cuda/stein.cu), for the drivers that find
// T's eigenvalues there (gpu_syevx).
#pragma once
#include <cstdint>

#include "gpu_backend.hpp"

namespace gpueig::gpu {

class Context;
class CallerStream;

// The eigenvectors of T = tridiag(e, d, e) (n >= 1; W: m eigenvalues as DSTEIN takes them, T and
// W scaled as gpu_stein scales them) into dz (ldz, m columns), conv[j] = 1 where vector j
// converged, 0 where not (DSTEIN's IFAIL). T and W both on the host (d, e, w: the clusters are
// planned there; iblock, isplit host too) and on the device (dd, de, dw). Queued on ctx's stream,
// or on the caller's where `caller` is given (the device-pointer call; ctx is then its context).
Status stein_device(Context &ctx, CallerStream *caller, int n, const double *d, const double *e, const double *dd,
                    const double *de, int m, const double *w, const double *dw, const int *iblock,
                    const int *isplit, double *dz, int64_t ldz, int *conv);

}  // namespace gpueig::gpu
