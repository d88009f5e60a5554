// The phases gpu_syevd and gpu_syevx share on the device (cuda/syevd_host.cu): A up, scaled and
// reduced to T = Q^T A Q (Q formed or not), and the check of computed eigenpairs of T.
#pragma once
#include <cublas_v2.h>

#include <cstdint>
#include <vector>

#include "context.hpp"
#include "gpu_backend.hpp"
#include "sytrd.hpp"

namespace gpueig::gpu {

// The largest N of gpu_syevd's method with vectors and of gpu_syevx's: the products of N x N
// matrices are int-indexed cuBLAS calls, blocks are launched a column each on a grid dimension,
// and the divide and conquer's merges put columns on one too (stedc_device). (N^2 doubles are
// 32 GiB there.)
constexpr int64_t kDenseEigenMaxOrder = 65535;

// The scaling ranges' RMAX: DSYEVD's sqrt(BIGNUM) and DSYEVX's min(sqrt(BIGNUM), SAFMIN^(-1/4))
// (BIGNUM = EPS / SAFMIN); RMIN = sqrt(SAFMIN / EPS) for both.
double dsyevd_rmax();
double dsyevx_rmax();

// The device arrays of reduce_symmetric, laid out by its caller: a (n x n, ld n), q (n x n, ld n;
// null: Q not formed), d (n), e (n), flag, inv, work (sytrd_two_stage_bytes of the Q mode). With
// keep_q (q null), Q is kept in work as its blocks (SytrdZ::apply) for sytrd_apply_q.
struct ReductionArrays {
  double *a, *q, *d, *e;
  int *flag;
  SimilarityInvariants *inv;
  void *work;
  bool keep_q = false;
};

// T on the host, with the scale factor A was multiplied by, A's largest |entry| before it and
// ||T||_1.
struct HostTridiagonal {
  double sigma = 1, amax = 0, norm = 0;
  std::vector<double> d, e;
};

// The triangle uplo of A (lda; the host's, or device memory with a_on_device) copied in and
// mirrored, checked (NaN or Inf: unsafe), scaled by a power of two into [RMIN, rmax] where it lies
// outside, and reduced by the two-stage Givens method (r.q := Q where given); T checked against
// A's invariants (unsafe if it fails), then copied into *t. T stays in r.d, r.e on the device.
// All of it on `st`, which the call waits for (the checks' verdicts).
Status reduce_symmetric(Context &ctx, cudaStream_t st, char uplo, int64_t n, const double *a, int64_t lda,
                        bool a_on_device, double rmax, const ReductionArrays &r, HostTridiagonal *t);

// LAPACK's two test ratios of m eigenpairs (lam, z: device, ld ldz) of T = tridiag(de, dd, de)
// (device, order n): max_j ||T z_j - lam_j z_j||_1 / (n ||T|| ulp) and ||Z^T Z - I||_1 / (n ulp),
// *ok when both are within 30. g: m x m device scratch, ratio: 2 device doubles. Waits for st.
Status certify_pairs(cudaStream_t st, cublasHandle_t blas, int64_t n, int64_t m, const double *dd,
                     const double *de, const double *lam, const double *z, int64_t ldz, double *g,
                     double *ratio, double tnorm, bool *ok);

}  // namespace gpueig::gpu
