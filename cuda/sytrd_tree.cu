// The `tree` method (GPUEIG_SYTRD_METHOD=tree): the seed's parallel Givens scheme (000), kept as
// the reference the two-stage method is measured against. Column j is cleared below its
// subdiagonal in ceil(log2(n-j-1)) levels; level h pairs row j+1+2hq with row j+1+2hq+h and
// zeroes the second's entry in column j. A level is two kernels: the rotations applied to the
// row pairs (one block per pair), then to the column pairs and to z's columns.
//
// Corrected from the seed: rotations by hypot (the seed's sqrt(a*a + b*b) overflows and
// underflows), any n (not only what the seed's power-of-two level count reaches), column-major
// storage with a leading dimension, 64-bit indices, pair counts beyond a grid dimension's limit
// (grid-stride loops), and the accumulated Q written as z := z Q for VECT = 'V' and 'U'.
#include <algorithm>

#include "context.hpp"
#include "sytrd.hpp"
#include "workspace.hpp"

namespace gpueig::gpu {
namespace {

constexpr int kThreads = 256;

// Row pairs of level h in column j: pair q is (j+1 + 2hq, j+1 + 2hq + h).
__device__ inline bool pair_rows(int64_t n, int64_t j, int64_t h, int64_t q, int64_t &r1,
                                 int64_t &r2) {
  r1 = j + 1 + 2 * h * q;
  r2 = r1 + h;
  return r2 < n;
}

// Rotation of pair q from A(r1, j) and A(r2, j) (saved in cs for the column kernel), applied to
// rows r1 and r2 over columns j .. n-1 (left of j both rows are already zero).
__global__ void __launch_bounds__(kThreads)
    tree_rows_kernel(double *a, int64_t lda, int64_t n, int64_t j, int64_t h, int64_t pairs,
                     double2 *cs) {
  __shared__ double2 g;
  for (int64_t q = blockIdx.x; q < pairs; q += gridDim.x) {
    int64_t r1, r2;
    pair_rows(n, j, h, q, r1, r2);
    if (threadIdx.x == 0) {
      double x = a[r1 + j * lda], y = a[r2 + j * lda];
      double c = 1, s = 0;
      if (y != 0) {
        // Entries below 2^-600 (KMS 0.1^|i-j| from n of a few hundred) are scaled up by a power
        // of two first (exactly): a subnormal hypot keeps a few bits, and (c, s) formed from it
        // is not a rotation (A's norm and trace drift and the invariant check sends the call to
        // LAPACK).
        if (fmax(fabs(x), fabs(y)) < 0x1p-600) {
          x *= 0x1p600;
          y *= 0x1p600;
        }
        const double r = hypot(x, y);
        c = x / r;
        s = y / r;
      }
      g = make_double2(c, s);
      cs[q] = g;
    }
    __syncthreads();
    const double c = g.x, s = g.y;
    if (s != 0)
      for (int64_t col = j + threadIdx.x; col < n; col += kThreads) {
        const double x = a[r1 + col * lda], y = a[r2 + col * lda];
        a[r1 + col * lda] = c * x + s * y;
        a[r2 + col * lda] = col == j ? 0.0 : c * y - s * x;
      }
    __syncthreads();
  }
}

// The same rotations on columns r1 and r2 of A (rows j .. n-1) and of z (all rows).
__global__ void __launch_bounds__(kThreads)
    tree_cols_kernel(double *a, int64_t lda, int64_t n, int64_t j, int64_t h, int64_t pairs,
                     const double2 *cs, double *z, int64_t ldz) {
  for (int64_t q = blockIdx.x; q < pairs; q += gridDim.x) {
    int64_t r1, r2;
    pair_rows(n, j, h, q, r1, r2);
    const double2 g = cs[q];
    if (g.y == 0) continue;
    for (int64_t i = j + threadIdx.x; i < n; i += kThreads) {
      const double x = a[i + r1 * lda], y = a[i + r2 * lda];
      a[i + r1 * lda] = g.x * x + g.y * y;
      a[i + r2 * lda] = i == j ? 0.0 : g.x * y - g.y * x;
    }
    if (z)
      for (int64_t i = threadIdx.x; i < n; i += kThreads) {
        const double x = z[i + r1 * ldz], y = z[i + r2 * ldz];
        z[i + r1 * ldz] = g.x * x + g.y * y;
        z[i + r2 * ldz] = g.x * y - g.y * x;
      }
  }
}

}  // namespace

Status sytrd_tree(cudaStream_t st, int64_t n, double *a, int64_t lda, double *d, double *e,
                  double *z, int64_t ldz) {
  Workspace buf(st);
  Status s = buf.allocate(std::max<int64_t>(1, n / 2) * sizeof(double2));
  if (!s) return s;
  double2 *cs = buf.at<double2>(0);
  for (int64_t j = 0; j + 2 < n && s; ++j) {
    // Rows j+1 .. n-1 take part; the level of pair distance h has ceil((n-1-j-h) / 2h) pairs.
    for (int64_t h = 1; j + 1 + h < n && s; h *= 2) {
      const int64_t pairs = (n - 1 - j - h + 2 * h - 1) / (2 * h);
      const unsigned grid = static_cast<unsigned>(std::min<int64_t>(pairs, 65535));
      tree_rows_kernel<<<grid, kThreads, 0, st>>>(a, lda, n, j, h, pairs, cs);
      s = check_launch("sytrd tree_rows_kernel");
      if (!s) break;
      tree_cols_kernel<<<grid, kThreads, 0, st>>>(a, lda, n, j, h, pairs, cs, z, ldz);
      s = check_launch("sytrd tree_cols_kernel");
    }
  }
  if (s) s = sytrd_take_tridiagonal(st, n, a, lda + 1, d, e);
  return s;
}

}  // namespace gpueig::gpu
