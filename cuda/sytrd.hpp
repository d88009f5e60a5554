// gpu_sytrd_givens on the device: the two methods, on a full symmetric matrix already in device
// memory. Both reduce A to T = tridiag(d, e) and, when z is given, accumulate z := z * Q (z = I
// on entry gives Q, z = Q_in gives Q_in * Q).
//
//  two-stage (default): dense -> band of width kSytrdBand (stage 1: Householder panels with
//    cuBLAS updates, cuda/sytrd_householder.cu, or rotations accumulated into 64 x 64 blocks and
//    applied with FP64 tensor-core products, cuda/sytrd_band.cu; GPUEIG_SYTRD_STAGE1), then
//    band -> tridiagonal by pipelined rotation bulge chasing, sweeps running concurrently
//    (cuda/sytrd_chase.cu);
//  tree: the seed's scheme (one column at a time, rotations in a binary tree of row pairs, a
//    kernel pair per tree level), corrected; the reference the fast method is measured against.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "gpu_backend.hpp"

namespace gpueig::gpu {

class Context;

enum class SytrdMethod { two_stage, tree };
// GPUEIG_SYTRD_METHOD = two_stage (default) | tree.
SytrdMethod sytrd_method();

// Band width of the two-stage method's intermediate band matrix: a warp's lanes in stage 2.
constexpr int kSytrdBand = 32;

// What sytrd_two_stage does with z: nothing (z null), z := Q (z is the identity on entry: Q1 is
// then formed from its right end, concurrently with the bulge chasing, where memory allows),
// z := z * Q (any z), or apply: z null, and everything Q is made of (stage 1's blocks, the
// chase's window blocks) kept in the workspace for sytrd_apply_q, which applies Q to a few
// vectors for a fraction of the cost of forming it (gpu_syevx's subsets).
enum class SytrdZ { none, form, update, apply };

// Device workspace of sytrd_two_stage (bytes).
size_t sytrd_two_stage_bytes(int64_t n, SytrdZ zmode);

// Whether SytrdZ::apply's workspace for order n is within tuning::kSytrdApplyBytes.
bool sytrd_can_apply(int64_t n);

// y (n x cols, ldy) := Q y, Q the orthogonal factor of the sytrd_two_stage call (SytrdZ::apply)
// whose workspace `work` holds: first the chase's rotations (Q2, the window blocks of its chunks
// from the last, each chunk's groups in the reverse of the order z := z Q2 takes them, blocks
// transposed), then stage 1's (Q1: its Householder V and T, or its rotation blocks as
// sytrd_band_form_q1 applies them, on y's columns).
Status sytrd_apply_q(cudaStream_t stream, int64_t n, const void *work, double *y, int64_t ldy, int64_t cols);

// a: n x n (leading dimension lda), both triangles set, destroyed. d (n), e (n - 1) on the device.
// z: n x n (ldz), null for SytrdZ::none. Everything is ordered on `stream` (side streams of its
// own join it). Returns device_error when a pipeline wait of stage 2 timed out (it never should)
// or a launch failed.
Status sytrd_two_stage(cudaStream_t stream, int64_t n, double *a, int64_t lda, double *d,
                       double *e, double *z, int64_t ldz, SytrdZ zmode, void *work);
Status sytrd_tree(cudaStream_t stream, int64_t n, double *a, int64_t lda, double *d, double *e,
                  double *z, int64_t ldz);

// Stage 1's method for order n (GPUEIG_SYTRD_STAGE1 = auto: Householder from
// tuning::kSytrdHouseholderMin on where cuBLAS loads, Givens below; householder | givens):
// Householder reflectors in panels of kSytrdBand columns, the trailing matrix updated by cuBLAS
// DSYMM and DSYR2K (cuda/sytrd_householder.cu, 4/3 n^3 flops), or rotations only, accumulated
// into 64 x 64 blocks (cuda/sytrd_band.cu, 16/3 n^3 flops on the tensor cores). Both leave the
// same band for stage 2; sytrd_two_stage's workspace and Q1 follow the method.
enum class SytrdStage1 { householder, givens };
SytrdStage1 sytrd_stage1(int64_t n);

// Householder stage 1: a (full, lda) becomes a band matrix of bandwidth kSytrdBand held in its
// upper triangle, as sytrd_to_band leaves it; z := z Q1 when z is given. `work` holds
// sytrd_hh_bytes(n, keep_all); with keep_all (z null) every panel's V and T stay there for
// sytrd_hh_apply_q1 (y := Q1 y on y's cols columns) and sytrd_hh_form_q1 (z, the identity on
// entry, := Q1, formed from its right end).
size_t sytrd_hh_bytes(int64_t n, bool keep_all);
Status sytrd_hh_to_band(cudaStream_t stream, int64_t n, double *a, int64_t lda, double *z, int64_t ldz,
                        void *work, bool keep_all);
Status sytrd_hh_apply_q1(cudaStream_t stream, int64_t n, double *y, int64_t ldy, int64_t cols,
                         const void *work);
Status sytrd_hh_form_q1(cudaStream_t stream, int64_t n, double *z, int64_t ldz, const void *work);

// Givens stage 1 alone: a (full, lda) becomes a band matrix of bandwidth kSytrdBand, held in its upper
// triangle (the entries outside the band are not zeroed; the lower triangle is stale), and
// z := z * Q1 when z is given. `blocks` holds sytrd_band_blocks_bytes(n, keep_all); with
// keep_all (z must be null) every panel's rotation blocks are kept there for
// sytrd_band_form_q1. Work is queued on `stream` and on streams of its own that `stream` waits for.
// A wait of the panels' wavefront that timed out (it never should) sets *failed (device memory,
// zero on entry; null: a flag of `blocks`' own, not reported).
size_t sytrd_band_blocks_bytes(int64_t n, bool keep_all);
Status sytrd_to_band(cudaStream_t stream, int64_t n, double *a, int64_t lda, double *z,
                     int64_t ldz, double *blocks, bool keep_all, int *failed = nullptr);
// z (the identity on entry) := Q1, from the blocks sytrd_to_band kept (keep_all).
Status sytrd_band_form_q1(cudaStream_t stream, int64_t n, double *z, int64_t ldz,
                          const double *blocks);
// y (n x cols, ldy) := Q1 y, from the same blocks.
Status sytrd_band_apply_q1(cudaStream_t stream, int64_t n, double *y, int64_t ldy, int64_t cols,
                           const double *blocks);

// d[i] = base[i * stride], e[i] = base[1 + i * stride]: the diagonal and subdiagonal of a full
// matrix (stride lda + 1) or of lower band storage (stride ldab).
Status sytrd_take_tridiagonal(cudaStream_t stream, int64_t n, const double *base, int64_t stride,
                              double *d, double *e);

// What an orthogonal similarity A -> T keeps, checked after every reduction on the GPU so that
// a wrong tridiagonal form is never returned (it is recomputed by LAPACK instead): ||A||_F and
// trace(A), of A / amax (no overflow). It caught the two-stage method's rotations formed from
// a subnormal scale (Kac-Murdock-Szego matrices 0.5^|i-j|, fixed; README "Fixed defects worth
// knowing"). It costs two passes over A.
struct SimilarityInvariants {
  double amax, sumsq, trace;  // max |a|; sum of (a / amax)^2; sum of a(i,i) / amax
};
// Queued on `stream`, into *inv (device memory), from the full symmetric n x n matrix a.
Status similarity_invariants(cudaStream_t stream, const double *a, int64_t lda, int64_t n,
                             SimilarityInvariants *inv);
// Whether T = tridiag(e, d, e) (host, n >= 1) has A's Frobenius norm and trace, to within
// 30 n ulp of ||A||_F (a correct reduction is within about 2 n ulp).
bool keeps_invariants(const SimilarityInvariants &inv, int64_t n, const double *d, const double *e);

// The drivers' common steps (cuda/sytrd_host.cu), on `st` (ctx's pinned ring stages the host
// transfers); flag is a device int of scratch.
// The triangle uplo of a (the host's, or device memory with a_on_device) copied into da (leading
// dimension n) and mirrored into the full symmetric matrix, its scan for NaN or Inf queued into
// *flag (cleared first; nonzero: found) and *inv (device) queued: nothing waits for `st`.
Status queue_symmetric(Context &ctx, cudaStream_t st, char uplo, int64_t n, const double *a, int64_t lda,
                       bool a_on_device, double *da, int *flag, SimilarityInvariants *inv);
// queue_symmetric, then its verdict read (the call waits for `st`): `unsafe` when the triangle
// holds NaN or Inf entries.
Status load_symmetric(Context &ctx, cudaStream_t st, char uplo, int64_t n, const double *a, int64_t lda,
                      bool a_on_device, double *da, int *flag, SimilarityInvariants *inv);
// z (n x n, ldz) := I.
Status set_identity(cudaStream_t stream, double *z, int64_t ldz, int64_t n);
// After a reduction: dd, de (and dz, when not null) finite, then d, e downloaded to the host and
// checked to keep *dinv's invariants; `unsafe` where either fails (d, e may then be written).
Status check_reduction(Context &ctx, cudaStream_t st, int64_t n, const double *dd, const double *de,
                       const double *dz, int *flag, const SimilarityInvariants *dinv, double *d,
                       double *e);

}  // namespace gpueig::gpu
