// gpu_stebz's GPU kernels as the host orchestration (and the benchmark's tuning runs) see them.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "sturm.hpp"

namespace gpueig::gpu {

// One split-off block of T and the eigenvalues wanted in it: local indices first_k+1..last_k,
// searched in (lo, hi], written from position `out` on.
struct StebzBlock {
  int64_t begin, len;  // rows of the block
  int first_k, last_k;
  int64_t out;         // position in the output of eigenvalue first_k + 1
  int64_t task0;       // global task index of eigenvalue first_k + 1
  double lo, hi, atol;
  int itmax;           // cap on bisection levels, as DSTEBZ's ITMAX for the block
  int locate;          // 1: DLAEBZ's IJOB = 3, stop at a point w with N(w) = k - 1 if one is met
};

// Final bracket of one search: N(lo) = nlo < k <= nhi = N(hi) (-1 / n+1 while a side is unknown).
struct StebzBracket {
  double lo, hi;
  int nlo, nhi;
  int converged;
};

// Search geometry: G threads per eigenvalue (1, 2, 4, 8 or 32), C shifts per thread (1, 2 or 4):
// G*C points per pass, log2(G*C + 1) bisection levels gained per pass; `scaled` picks the
// division-free count (sturm_counts_scaled) over DLAEBZ's.
struct StebzGeometry {
  int g, c;
  bool scaled;
};

// Launches the bracketing search for `ntasks` eigenvalues on `stream`. Writes w[] (midpoints) and
// conv[] (1 if converged) at each task's output position when w is non-null, and brackets[task]
// when brackets is non-null.
cudaError_t stebz_search(cudaStream_t stream, StebzGeometry geo, const SturmRow *rows,
                         const StebzBlock *blocks, int nblocks, int64_t ntasks, double pivmin,
                         double rtol, double *w, int *conv, StebzBracket *brackets);

// The geometry used for ntasks eigenvalues of blocks up to order n.
StebzGeometry stebz_geometry(int64_t ntasks, int64_t n);

}  // namespace gpueig::gpu
