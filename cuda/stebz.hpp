// gpu_stebz's GPU kernels as the host orchestration (and the benchmark's tuning runs) see them.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "stebz_phases.hpp"
#include "sturm.hpp"

namespace gpueig::gpu {

// StebzBlock (one block and the eigenvalues wanted in it) and StebzBracket (a search's final
// bracket) are the host phases' (src/stebz_phases.hpp), read and written by the kernels as is.
using gpueig::StebzBlock;
using gpueig::StebzBracket;

// Search geometry: G threads per eigenvalue (1, 2, 4, 8, 16, 32 within a warp, or 64, 128, 256:
// a whole thread block), C shifts per thread (1 or 2): G*C points per pass, log2(G*C + 1)
// bisection levels gained per pass.
struct StebzGeometry {
  int g, c;
  bool integer_tests;  // sturm_counts_scaled's IntegerTests variant
};

// Optional first phase for a single block: Sturm counts at K + 1 evenly spaced points of
// (lo, hi] (one thread each), from which every search starts in its own grid cell instead of the
// whole interval, log2(K) levels further on.
struct StebzGrid {
  const int *counts;  // K + 1 counts, or nullptr for no grid
  int k;
};
cudaError_t stebz_grid_counts(cudaStream_t stream, const SturmRow *rows, int64_t n, double lo,
                              double hi, int k, double pivmin, int *counts);

// Launches the bracketing search for `ntasks` eigenvalues on `stream`, on rows scaled by
// sturm_scale (and intervals, tolerances and pivmin in the same scale). Writes w[] (midpoints) and
// conv[] (1 if converged) at each task's output position when w is non-null, and brackets[task]
// when brackets is non-null.
cudaError_t stebz_search(cudaStream_t stream, StebzGeometry geo, const SturmRow *rows,
                         const StebzBlock *blocks, int nblocks, int64_t ntasks, double pivmin,
                         double rtol, StebzGrid grid, double *w, int *conv,
                         StebzBracket *brackets);

// The geometry used for ntasks eigenvalues of blocks up to order n.
StebzGeometry stebz_geometry(int64_t ntasks, int64_t n);

}  // namespace gpueig::gpu
