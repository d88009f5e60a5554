// Device arithmetic shared by several kernels' files.
#pragma once

namespace gpueig::gpu {

// 1/x without IEEE division's slow-path branch: the hardware approximation refined by two
// Newton steps (error ~1 ulp, not correctly rounded). x = 0, Inf or NaN (and subnormal x, which
// the approximation flushes to 0) give NaN. Replaces divisions on kernels' critical paths: the
// tridiagonal tiles' row eliminations (a long dependent chain per row) and the Toeplitz
// structured method's entries (one quotient an entry, most of an evaluation's work).
__device__ __forceinline__ double rcp(double x) {
  double y;
  asm("rcp.approx.ftz.f64 %0, %1;" : "=d"(y) : "d"(x));
  double e = fma(-x, y, 1.0);
  y = fma(y, e, y);
  e = fma(-x, y, 1.0);
  return fma(y, e, y);
}

}  // namespace gpueig::gpu
