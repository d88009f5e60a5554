// LU factorization with partial pivoting of a device-resident matrix (blocked Crout order, LAPACK's
// SRC/VARIANTS/lu/CR), used by the host-pointer entry point (cuda/getrf_host.cu) and the benchmark.
#pragma once
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "gpu_backend.hpp"

namespace gpueig::gpu {

// Block size of the Crout loop (columns per panel) for min(m, n) = mn, tuned on the H100
// (gpueig_bench's block sweep, 2026-11-21): 64 at 8192 (43.4 ms against 45.2 with 128 and 50.8
// with 256), 128 at 16384 (156.8 ms against 160.0 with 64 and 170.0 with 256). A wider panel
// costs more columns of the latency-bound panel kernel per DGEMM; a narrower one more, smaller
// DGEMMs, which only pays while they are small anyway.
inline int getrf_block(int64_t mn) { return mn < 12288 ? 64 : 128; }

// Blocks a look-ahead panel (factored on the side stream beside the block row's and the early
// update's DGEMMs) spreads over, of the `sms` a launch may take (the SMs, at most 128): half of
// them. Fewer blocks leave SMs to the DGEMMs but give each thread more rows (or a narrower
// kernel), and the panel's per-column latency grows. Measured on the H200 (132 SMs, so 64
// blocks; gpueig_bench --getrf-sweep, 2026-11-28, runs interleaved with cuSOLVER, medians of 3,
// of 2 at 32768), ms with 88 / 77 / 66 / 64 / 60 / 55 / 44 blocks:
//   n = 8192  (nb 64):  34.93 / 34.10 / 32.97 / 32.91 / 34.47 / 36.83 / 42.20 (in order 41.60)
//   n = 16384 (nb 128): 135.71 / 135.30 / 133.97 / 133.32 / 133.92 / 133.93 / 140.32 (145.97)
//   n = 32768 (nb 128): 699.98 / 692.72 / 681.88 / 683.00 / 684.91 / 683.73 / 683.17 (714.14)
// (an earlier run with 128 blocks: 136.00 at 16384, 716.27 at 32768). Block sizes with half
// the SMs: n = 8192 33.11 / 36.13 / 38.43 ms with nb 64 / 128 / 256, n = 16384 139.07 /
// 132.97 / 143.19.
//
// Look-ahead pays at every square size measured (in the same runs, cuSOLVER 37.65 / 136.04 /
// 711.28 ms). A tall matrix has a short block row beside a tall panel, and the panel's SMs only
// slow the rest (forced on against in order, --getrf-tall, the same day, medians of 5):
// 65536 x 2048 22.91 against 21.68 ms, 2^20 x 256 14.66 against 13.96, 65536 x 128 1.057
// against 0.993, 2^20 x 32 and 2^18 x 64 within 0.5%. So it is used for square and wide shapes
// and for tall ones up to m = 4 n (between 4 and 32 not measured).
inline bool getrf_lookahead(int64_t m, int64_t n) { return m <= 4 * n; }
inline int getrf_side_blocks(int sms) { return (sms + 1) / 2; }

// Device scratch getrf_device needs (pivot candidates of the panel kernel, the flags).
size_t getrf_scratch_bytes();

// Lets the caller stream the matrix in while it is factored, and the finished parts out (the
// host-pointer path, cuda/getrf_host.cu). With a feed, getrf_device takes the columns in chunks
// [c0, c1) (getrf_chunks), in order: it calls arrive(c0) before any step touches the
// chunk's columns, and from then on expects them at `a` as the caller had them (rows not yet
// interchanged). Columns of later chunks are neither read nor written before their arrival,
// so they may be in flight meanwhile. A chunk comes in once ready(c0) says it has landed (asked
// between steps, without waiting) or once a step needs its columns, whichever is first: it
// gets the row interchanges queued so far (a gather through a permutation vector) and the rows
// of U above the current step in one DTRSM, the update Crout's block-row steps would have given
// it; from then on the block rows cover it. finished(j, cols) is called once the step that
// completes columns 0:j is queued, cols being the columns in by then: rows 0:j of columns
// 0:cols are final then (later interchanges touch rows >= j only).
struct GetrfFeed {
  virtual ~GetrfFeed() = default;
  virtual Status arrive(int64_t c0) = 0;
  virtual bool ready(int64_t c0) = 0;
  virtual Status finished(int64_t j, int64_t cols) = 0;
};

// The chunks getrf_device takes with a feed, as their first columns and then n: widths 4 nb,
// 8 nb, ... up to 4096 columns; the last one also holds the columns past min(m, n). nb = 0:
// getrf_block's.
std::vector<int64_t> getrf_chunks(int64_t m, int64_t n, int nb = 0);

// Bytes of device memory getrf_device needs with a feed (the row permutation, the gather buffer).
size_t getrf_feed_bytes(int64_t m, int64_t n);

// A = P L U in place for the m x n matrix `a` (leading dimension lda, device memory), as DGETRF:
// `ipiv` (device, min(m, n) ints) receives 1-based row interchanges, `*info` (device) DGETRF's
// INFO (first exactly zero U(i,i), factorization completed), or GPUEIG_ERR_DEVICE when a wait
// between the panel kernel's blocks timed out (a fault, never expected: the factors are garbage). `*nonfinite` (device) is set to 1 if
// A holds a NaN or an infinity; a null `nonfinite` skips that scan (the device-pointer API
// factors such an A as it is). Everything is queued on `stream` (whose work the cuBLAS handle
// must follow) or, with look-ahead, forked from it onto the calling thread's side stream
// (Context::side) and joined back to it by events before the return; nothing waits. nb = 0 takes getrf_block(min(m, n)). Sub-panels too tall for the
// register kernel (more than 262144 rows) are factored by the streaming kernel. With a feed (whose buffers are
// `feed_buffers`, getrf_feed_bytes(m, n)) `nonfinite` is left alone: the feed checks the columns
// as they arrive (check_finite, cuda/device_util.hpp).
Status getrf_device(cublasHandle_t blas, cudaStream_t stream, int64_t m, int64_t n, double *a,
                    int64_t lda, int *ipiv, int *info, int *nonfinite, void *scratch, int nb = 0,
                    GetrfFeed *feed = nullptr, void *feed_buffers = nullptr);

// The final row order of a fed getrf_device's factorization, in its feed buffers: row i of the
// factors is row order[i] of A (0-based), i.e. P^T A = L U.
const int *getrf_feed_order(const void *feed_buffers);

// DGETRS on device memory with the factors P^T A = L U (lu, n x n, leading dimension ldlu) and
// the row order `order` (n ints, as getrf_feed_order's): x (n x nrhs, leading dimension n) :=
// A^-1 B for trans 'N', A^-T B for 'T' (or 'C'), B being b (leading dimension ldb; b and x do not
// overlap). 'N': P^T B gathered into x, then L^-1 and U^-1 by two DTRSMs (b only read); 'T':
// U^-T and L^-T in place in b (b is overwritten), then P's scatter into x. Queued on `stream`.
// A singular U gives Inf/NaN in x, not an error.
Status getrs_device(cublasHandle_t blas, cudaStream_t stream, char trans, int64_t n, int64_t nrhs,
                    const double *lu, int64_t ldlu, const int *order, double *b, int64_t ldb,
                    double *x);

}  // namespace gpueig::gpu
