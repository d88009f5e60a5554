// The library's tuning constants, in one place, each with the measurement that chose it.
//
// Values that trade speed for memory or pick between methods are here; the shapes of individual
// kernels (threads per block, tile sizes) stay next to the kernels whose code they shape. All
// were measured on an NVIDIA H100 80GB HBM3 (sm_90, 132 SMs) with OpenBLAS on the host;
// `measured_on` says so, and `gpueig info` and GPUEIG_VERBOSE say when the device in use differs
// (the constants stay valid there, only not chosen for it).
#pragma once
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>

namespace gpueig::tuning {

// The device class the constants below were measured on.
struct DeviceClass {
  int major, minor;  // compute capability
  int sms;
  const char *name;
};
constexpr DeviceClass measured_on{9, 0, 132, "NVIDIA H100 80GB HBM3"};

// --- auto's crossovers (smallest problem size sent to the GPU), GPUEIG_CROSSOVER_<NAME> ---------
// gpueig_bench's crossover sweeps (host call, transfers included, against OpenBLAS), H100.
// gtsv, 2026-11-21: GPU faster from n = 16384 on (0.108 vs 0.277 ms), a tie at 4096 (0.065-0.074
// vs 0.069 ms).
constexpr int64_t kCrossoverGtsv = 16384;
// stebz (all eigenvalues), 2026-11-21: GPU faster from n = 32 on (0.048 vs 0.255 ms), slower at
// 16 (0.048 vs 0.040 ms).
constexpr int64_t kCrossoverStebz = 32;
// getrf (square), 2026-11-21: GPU faster at every size swept, from 128 (0.41 vs 0.58 ms) to 2048
// (11.3 vs 19.0 ms); smaller sizes were not swept and stay on the CPU. The size compared with it
// is getrf_work_size's (the same as n for a square matrix of n >= 128).
constexpr int64_t kCrossoverGetrf = 128;
// A narrow matrix (not square, min(m, n) below this) moves m n entries both ways for fewer flops
// each, so it needs more work than a square one to gain on the GPU: its size is discounted by
// kGetrfNarrowDiscount (a square matrix's size stays n, whatever the crossover is set to). Host call, GPU / OpenBLAS DGETRF with 16 threads (gpueig_bench
// --getrf-tall, H100, 2026-11-27, medians of 3 interleaved runs), with the work-equivalent order:
// 4096 x 32 (184) 1.21, 16384 x 16 (185) 0.95, 65536 x 8 (185) 0.96, 262144 x 4 (185) 0.80,
// 65536 x 4 (116) 1.49, 16384 x 4 (73) 3.49 tie or lose; from 293 on the GPU gains at every
// shape swept: 4096 x 64 (293) 0.77, 2048 x 96 (303) 0.68, 65536 x 16 (293) 0.73, 1048576 x 4
// (293) 0.47, 16 x 65536 (293) 0.20, 16384 x 64 (465) 0.58, 1048576 x 16 (737) 0.19. So a narrow
// shape goes to the GPU from a work-equivalent order of 128 / 0.64 = 200.
constexpr int64_t kGetrfNarrow = 128;
constexpr double kGetrfNarrowDiscount = 0.64;
// auto's size of an m x n getrf: the order of the square matrix whose LU takes as many flops,
// (3 (m n k - (m + n) k^2 / 2 + k^3 / 3))^(1/3) with k = min(m, n) (n when square), discounted
// for narrow shapes.
// min(m, n) alone would call 2^20 x 32 small; its flops are those of n = 1170.
inline int64_t getrf_work_size(int64_t m, int64_t n) {
  const double k = static_cast<double>(m < n ? m : n);
  if (k <= 0) return 0;
  const double flops = double(m) * double(n) * k - (double(m) + double(n)) * k * k / 2 + k * k * k / 3;
  double order = std::cbrt(3 * flops);
  if (k < kGetrfNarrow && m != n) order *= kGetrfNarrowDiscount;
  // (rounded, so that a square n gives n whatever the cube root's last bit)
  return std::max<int64_t>(1, static_cast<int64_t>(order + 0.5));
}
// gesv (host call, NRHS = 1, against OpenBLAS DGESV with 16 threads; tools/shim-bench.sh, H100,
// 2026-11-25): the program's DGESV is much faster than its DGETRF at small n (0.21 vs 0.70 ms at
// n = 128), so getrf's crossover does not hold. With the solve on the device (7 interleaved
// runs): GPU 0.104 vs 0.099 ms at n = 128, 0.50 vs 0.52 at 256, 1.42 vs 1.44 at 384 (even),
// 2.02 vs 3.41 at 512, 3.05 vs 9.95 at 768. Kept at 512, where the GPU starts to gain.
constexpr int64_t kCrossoverGesv = 512;
// getrs (host call, TRANS 'N' on DGETRF's factors, against OpenBLAS DGETRS with 16 threads;
// tools/shim-bench.sh, H100, 2026-11-25, 5-7 interleaved runs): the whole LU goes up for
// O(n^2 NRHS) work, so the crossover barely moves with NRHS. GPU / DGETRS at n = 1024: 1.23-1.70
// (NRHS 1), 1.02 (8), 1.23 (16), 0.90 (32), 0.73 (64); at 1536: 1.31, 0.82, 1.38, 1.03; at 2048:
// 0.83-0.97, 0.98, 1.05, 0.98, 0.60; at 4096: 0.53 (1), 0.43 (64); 8192: 0.45, 0.43. A third
// run (NRHS 1, after other routines in the same process) gave 1.11 at 2048, 1.26 at 4096 and
// 0.48 at 8192: with NRHS small both sides are bound by reading the LU from host memory, and
// the GPU's side varies with what the host is doing. One threshold on n, where every run gained:
// 8192 (many right-hand sides gain from about 1024, left to GPUEIG_CROSSOVER_GETRS).
constexpr int64_t kCrossoverGetrs = 8192;
// sytrd (values only, two-stage Givens method; the public host call with the GPU forced against
// the CPU backend, OpenBLAS DSYTRD with 16 threads, gpueig_bench --sytrd's sweep, H100), 2026-11-28
// after stage 1's fused update: GPU / CPU 0.54 / 0.07 ms at n = 64, 1.18 / 0.32 at 128, 2.54 /
// 1.56 at 256, 3.97 / 3.69 at 384, 5.47 / 7.07 at 512, 8.76 / 15.68 at 768, 12.57 / 28.41 at
// 1024, 20.61 / 64.65 at 1536. 512, where the GPU starts to gain (2026-11-21, before the chase's
// and stage 1's later changes, it lost at 768: 16.6 vs 14.3 ms, and the crossover was 1024).
constexpr int64_t kCrossoverSytrd = 512;
// toeplitz (all eigenvalues, GPU method against the CPU method, both host calls), 2026-11-24:
// GPU faster from n = 1024 on (17.5-20.2 vs 28.0-29.7 ms, two runs), slower at 512 (8.2-8.3 vs
// 6.3-7.9 ms).
constexpr int64_t kCrossoverToeplitz = 1024;
// toeplitz's structured method (eigenvalues, RANGE 'I' or 'V', never forming T): auto chooses it
// from a tier's order on when at most its count of eigenvalues are wanted, and from
// kToeplitzStructuredAlways on whatever the count (src/toeplitz.cpp); the dense method keeps all
// of them below 65536 (its half blocks of 32768 take 17 GB).
// GPU: H100, 2026-11-27, host calls, structured / dense half blocks, 1-2-1 / KMS 0.5 / random
// decaying t, the smallest and a middle slice (direct gpu_toeplitz_eig calls, median of 3 after a
// warm-up, the search by half blocks with the push exchange): n = 8192, 16 eigenvalues 0.37-0.77,
// 64 eigenvalues 0.50-0.63 but 1.08-1.10 for the random t; n = 16384, 16 eigenvalues 0.24-0.46,
// 64 eigenvalues 0.24-0.70 (at 32768 the previous kernel and search already took 0.22-0.38).
// CPU (host threads): not measured below 32768, where the GPU's measurement of an earlier kernel
// set the crossover; kept there.
struct ToeplitzStructuredTier {
  int64_t order, count;
};
constexpr ToeplitzStructuredTier kToeplitzStructuredGpu[] = {{8192, 16}, {16384, 64}};
constexpr ToeplitzStructuredTier kToeplitzStructuredCpu[] = {{32768, 64}};
constexpr int64_t kToeplitzStructuredAlways = 65536;
// ... and never beyond this order (forced or not): its O(n) arrays (about 100 bytes an element
// with the host's tables) stay under 2 GB and an evaluation under 3e14 operations; a larger T goes
// to the dense method, which reports GPUEIG_ERR_MEMORY where its half blocks cannot exist (n =
// INT_MAX had the structured method allocate 32 GB of tables, then face 2^62 operations a shift).
constexpr int64_t kToeplitzStructuredMaxOrder = int64_t(1) << 24;
// A crossover no GPU timing has set yet: auto keeps every size on the CPU, `gpueig info` and
// GPUEIG_VERBOSE say "not timed on a GPU yet", and GPUEIG_BACKEND=gpu or the routine's
// GPUEIG_CROSSOVER_<NAME> sends calls to the GPU method.
constexpr int64_t kNotTimed = int64_t(1) << 40;
// syevd (all eigenpairs, JOBZ 'V'; gpu_syevd host call through the shim against OpenBLAS DSYEVD
// with 16 threads, tools/shim-bench.sh dsyevd_v, H100, 2026-11-26, 5 interleaved runs): GPU /
// DSYEVD 10.1 at n = 32, 4.5 at 64, 1.38 at 128 (2.58 vs 1.87 ms), 0.73 at 256 (4.88 vs 6.67 ms),
// 0.32 at 512, 0.22 at 1024, 0.13 at 2048, 0.05 at 4096, 0.04 at 8192. DSYEV (QR) is slower: GPU
// / DSYEV 2.45 at 64, 0.46 at 128; 256 serves both. JOBZ 'N' is the reduction's and bisection's
// work and goes by the reduction's crossover (kCrossoverSytrd).
constexpr int64_t kCrossoverSyevd = 256;
// stein (DSTEIN's contract), by M, the eigenvectors wanted: gpu_stein's host call against LAPACK's
// DSTEIN (OpenBLAS, 16 threads) on a random tridiagonal's eigenvalues from DSTEBZ, H100,
// 2026-11-26, gpueig_bench --stein. All vectors (M = N): GPU / DSTEIN 0.97 at 32, 0.63 at 64, 0.24
// at 128, 0.14 at 256 and 512, 0.06 at 1024, 0.03 at 2048 (12.2 vs 351 ms). The smallest 1%: 26.7
// at N = 32 (M = 1), 6.2 at 256 (M = 2), 1.85 at 512 (M = 5), 0.87 at 1024 (M = 10), 1.21 at 2048
// (M = 20), 1.46 at 4096 (M = 40), 0.80 at 8192 (M = 81): a few vectors cost the GPU's warps about
// what they cost one core (each vector's sweeps over the N rows are sequential either way), many
// are where it gains. So the count is by M, and 64 is the first M measured where the GPU wins in
// both series.
constexpr int64_t kCrossoverStein = 64;
// syevx (a subset: the whole spectrum goes by syevd's crossover; gpu_syevx host call through the
// shim against OpenBLAS DSYEVX / DSYEVR with 16 threads, the smallest 1% with vectors,
// tools/shim-bench.sh dsyevx_1pct / dsyevr_1pct, H100, 2026-11-26): GPU / DSYEVX 1.56 at n = 256
// (3.99 vs 2.55 ms), 1.00 at 512 (8.86 vs 8.85 ms), 0.58-0.61 at 1024, 0.33 at 2048, 0.13 at 4096,
// 0.07 at 8192; GPU / DSYEVR 0.57 at 1024. 1024, where it gains.
constexpr int64_t kCrossoverSyevx = 1024;

// --- the LD_PRELOAD shim's own crossovers (against the routine the call replaces) --------------
// dsterf_ (and dsyev(d)_'s eigenvalues) by GPU bisection instead of the program's DSTERF.
// tools/shim-bench.sh on the H100 with OpenBLAS DSTERF (16 threads), 2026-11-25: GPU bisection
// (dstebz_ served, all eigenvalues) 0.087 ms at n = 64 against DSTERF's 0.106 ms; 0.066 against
// 0.034 ms at n = 32; at n = 128 dsterf_ served 0.106 against 0.374 ms.
constexpr int64_t kShimCrossoverSterf = 64;

// --- device memory -------------------------------------------------------------------------
// The library's memory pool keeps this much between calls (cudaMemPoolAttrReleaseThreshold):
// the workspace of every call up to about n = 4000 (sytrd with Q, getrf) is then reused instead
// of mapped again, while a large call's gigabytes go back to the driver when it ends.
constexpr size_t kPoolKeepBytes = size_t(256) << 20;

// --- transfers (cuda/staging.cu) -------------------------------------------------------------
// Below 4 MiB a transfer goes straight through cudaMemcpy: the pinned pipeline did not pay
// (2026-11-19, H100 over PCIe Gen5).
constexpr size_t kStagingMinBytes = size_t(4) << 20;
// Three pinned buffers of 16 MiB per thread: 8 MiB pieces left the DMA engine idle between
// pieces; three buffers let one fill, one transfer and one drain at a time.
constexpr int kRingBuffers = 3;
constexpr size_t kRingChunkBytes = size_t(16) << 20;
// Host threads that copy between the caller's arrays and the ring: all but one of the machine's
// (the one left is the caller's, which queues the GPU work meanwhile), at most this many. An
// emulation of the ring's pipeline (2 GiB through 16 MiB x 3 buffers, a barrier per piece;
// H200 machine, 16 logical CPUs, PCIe DMA alone 54.9 GB/s each way, 2026-11-28, best of 3,
// two runs) moved 35.8-39.0 GB/s down and 44.7-46.8 up with 8 threads, 39.4-43.6 / 52.5-53.2
// with 12 and 50.3-53.9 / 54.1-54.3 with 16: one memcpy thread reaches about 9 GB/s. Larger
// pieces did worse (32 MiB: 30.9-31.3 GB/s down with 8 threads; the ring then outgrows the
// cache that the DMA writes into), and so did smaller ones (4 MiB: 29.1-29.2).
constexpr int kCopyThreadsMax = 16;

// --- gtsv ----------------------------------------------------------------------------------
// From this many failed systems on, a batch's failed systems are re-solved on the device (one
// thread each); fewer go back to the host, where one DGTSV call is faster than a lone GPU thread.
constexpr size_t kGtsvDevicePivotMin = 32;
// A lone system (one right-hand side) of the host call that failed its check is solved again on
// the device with pivoting inside chunks from this order on; below, DGTSV on the host is faster.
// `gpueig_bench --gtsv` re-solve sweep (zero diagonal; the device's launch, solve and wait against
// OpenBLAS dgtsv), H200, 2026-11-30, two runs: n = 2048 0.079-0.081 vs 0.037-0.038 ms, 4096
// 0.120-0.121 vs 0.074-0.077, 8192 0.178 vs 0.147, 16384 0.219 vs 0.297-0.317, 32768 0.227-0.228
// vs 0.621-0.623, 65536 0.358 vs 1.188-1.238.
constexpr int64_t kGtsvHostPivotMin = 16384;
// With several right-hand sides (one matrix), DGTSV on the host pays its factorization once and
// about 40% of a one-column solve for each further column (H200, 2026-11-30, zero diagonal, OpenBLAS:
// 1.19 -> 1.66 ms for 1 -> 2 columns at 65536, 18.0 -> 26.7 ms at 2^20), while the device
// re-solves column by column (0.36 ms a column at 65536, about 1 at 2^20; 0.22 at 16384, where
// the host's further column costs about 0.12): so from this order on.
constexpr int64_t kGtsvHostPivotRhsMin = 65536;
// Device bytes per batch group; larger batches are processed group by group.
constexpr size_t kGtsvGroupBytes = size_t(1) << 30;
// Scratch of the device-pointer calls' re-solve (3n doubles a column solved at once): failed
// columns beyond what this holds wait for a slot (the re-solve is the rare path; this bounds the
// pool memory it can take, not its speed in the common case).
constexpr size_t kGtsvResolveBytes = size_t(64) << 20;

// --- sytrd (two-stage method) ----------------------------------------------------------------
// Q1's blocks are all kept (Q1 formed from its right end, next to the chase) up to this much.
constexpr size_t kSytrdKeepBytes = size_t(2048) << 20;
// SytrdZ::apply (Q kept as its blocks, applied to gpu_syevx's vectors) up to this much workspace:
// about 3.3 GB at n = 8192, growing as n^2 (n up to about 12700); larger orders form Q.
constexpr size_t kSytrdApplyBytes = size_t(8) << 30;
// Stage 1 by Householder panels (cuBLAS updates) from this order on, by Givens rotation blocks
// below (GPUEIG_SYTRD_STAGE1 overrides). `gpueig_bench --sytrd-values`, stage 1 alone, H200,
// 2026-11-28, Householder / Givens ms: 2.98 / 1.69 at n = 512, 6.95 / 4.17 at 1024, 16.0 / 13.2
// at 2048, 38.2 / 46.5 at 4096, 121 / 232 at 8192 (the panels' fixed cost per column decides
// small orders, the 4x fewer flops large ones): the crossover lies near 3000.
constexpr int64_t kSytrdHouseholderMin = 3072;
// Rotations of the bulge chase kept for z's update at once (the chase is cut into chunks of
// sweeps beyond it).
constexpr size_t kSytrdRotBytes = size_t(2560) << 20;

}  // namespace gpueig::tuning
