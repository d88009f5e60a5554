// The GPU backend as the host side sees it: plain C++ types only, so src/ compiles without CUDA.
// Implemented by the .cu files of this folder, or by src/gpu_absent.cpp in a CPU-only build.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace gpueig::gpu {

// Outcome of a GPU attempt. Anything but `ok` leaves the caller's outputs untouched.
struct Status {
  enum Code {
    ok,
    unavailable,   // no CUDA build, no device, or the device was lost earlier
    device_error,  // allocation, launch or transfer failure
    unsafe,        // the method cannot be trusted on this input: recompute on the CPU
    output_lost,   // a device failure after outputs were partly written: no recompute possible
  } code = ok;
  std::string reason;

  static Status success() { return {}; }
  static Status fail(Code c, std::string why) { return {c, std::move(why)}; }
  explicit operator bool() const { return code == ok; }
};

bool available();
std::string unavailable_reason();
// One line per visible device, for `gpueig info`; empty when there is none.
std::string describe_devices();
int selected_device();

// A * X = B for tridiagonal A (host pointers; B is LDB x NRHS). DL, D, DU are not modified.
// Returns `unsafe` when PCR hit a zero pivot, a non-finite value, or failed its residual check.
Status gtsv(int64_t n, int64_t nrhs, const double *dl, const double *d, const double *du,
            double *b, int64_t ldb);

// `batch` systems of order n, system k's arrays at offset k*stride (B overwritten by X). Systems
// the fast solve could not be trusted on are listed in *redo: re-solved on the device with
// partial pivoting (info = DGTSV's INFO for it), or left untouched for the caller (info = -1).
// Systems are processed in groups; on failure, *done says how many leading systems are final
// (the others still hold their B).
struct BatchOutcome {
  int64_t system;
  int info;
};
Status gtsv_batch(int64_t n, int64_t batch, const double *dl, const double *d, const double *du,
                  double *b, int64_t stride, std::vector<BatchOutcome> *redo, int64_t *done);

// DSYTRD + DORGTR by Givens rotations (arguments already checked, n >= 1; vect 'N', 'V' or 'U'
// and uplo 'U' or 'L', upper case): d, e and, for 'V' / 'U', q (ldq) are written only on ok; a is
// read (triangle uplo) and left as it was. `unsafe` for a matrix with NaN or Inf entries.
Status sytrd(char vect, char uplo, int64_t n, double *a, int64_t lda, double *d, double *e,
             double *q, int64_t ldq);

// DGETRF (arguments already checked, m, n >= 1): A (lda x n, host) overwritten by L and U, ipiv
// (min(m, n) entries, 1-based), *info DGETRF's INFO. Outputs are written only on ok; `unsafe`
// for matrices with NaN or Inf entries (LAPACK's INFO there depends on its BLAS).
Status getrf(int64_t m, int64_t n, double *a, int64_t lda, int *ipiv, int *info);

// DSTEBZ (arguments already checked, N >= 1, D and E finite). Outputs are written only on ok;
// *info is DSTEBZ's INFO (0..4).
Status stebz(char range, char order, int n, double vl, double vu, int il, int iu, double abstol,
             const double *d, const double *e, int *m, int *nsplit, double *w, int *iblock,
             int *isplit, int *info);

// The tridiagonal forms of the two half blocks of the symmetric Toeplitz matrix T(i,j) =
// t(|i-j|) (t on the host: n >= 1 finite entries, already scaled so that the blocks cannot
// overflow): halves[0] of the symmetric eigenvectors (order n - n/2, with the middle row for odd
// n), halves[1] of the skew-symmetric ones (order n/2). Both are formed on the device from t and
// reduced there at once; d and e come back to the host.
struct ToeplitzHalves {
  int64_t size = 0;
  std::vector<double> d, e;  // d: size entries (at least 1), e: size - 1 (at least 1)
};
// then(h), when given, runs right after half h is reduced, in the same host thread (so the two
// halves' next steps overlap too); its failure is the call's.
Status toeplitz_tridiagonals(int64_t n, const double *t, ToeplitzHalves *halves,
                             const std::function<Status(int)> &then = {});

}  // namespace gpueig::gpu
