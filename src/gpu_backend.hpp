// The GPU backend as the host side sees it: plain C++ types only, so src/ compiles without CUDA
// and dependencies run one way (cuda/ -> src/ -> include/). The device behind it is the hardware
// (cuda/hardware.cu; src/gpu_absent.cpp in a build without CUDA) or, for the tests, the fake
// device of src/fake_device.cpp.
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

// A system the fast solve could not be trusted on (see Device::gtsv_batch).
struct BatchOutcome {
  int64_t system;
  int info;
};

// One array of a packed transfer (Device::download_arrays, upload_arrays).
struct ToHost {
  void *host;
  const void *dev;
  size_t bytes;
};
struct ToDevice {
  void *dev;
  const void *host;
  size_t bytes;
};

// The tridiagonal forms of the two half blocks of a symmetric Toeplitz matrix (Device::
// toeplitz_tridiagonals).
struct ToeplitzHalves {
  int64_t size = 0;
  std::vector<double> d, e;  // d: size entries (at least 1), e: size - 1 (at least 1)
};

// One evaluation of the structured Toeplitz method (src/toeplitz_structured.hpp): half block
// `half` (0: T's symmetric eigenvectors, 1: the skew-symmetric ones) at a shift sigma. T's
// eigenvalues are the two halves' together, so a search may follow each half on its own.
struct InertiaTask {
  double sigma = 0;
  int half = 0;
};
// Its result: the number of the half's eigenvalues below sigma, and log|det(H - sigma I)| of the
// half H up to a constant the same for every shift of a call (NaN where not known): the search's
// interpolation between counts.
struct ToeplitzInertia {
  int64_t below = 0;
  int trusted = 0;  // 0: an overflow or a growth the count cannot be trusted after
  double logdet = __builtin_nan("");
};
// Evaluates every task into `out` (same length), side by side where it can.
using InertiaBatch =
    std::function<Status(const std::vector<InertiaTask> &tasks, std::vector<ToeplitzInertia> &out)>;
// A basis task of the structured eigenvectors (structured::eigenvectors): half block `half` of
// T - sigma I eliminated until at most want + 1 elements remain; its result, the near-null
// basis [F; I] (size x count, column-major, in the half's places), `trusted` as an inertia's.
struct BasisTask {
  double sigma = 0;
  int half = 0;
  int64_t want = 1;
  // The elimination also stops where the candidate's |d| and its row's entries are all <= floor
  // (a near-null space wider than `want`: its elements all go to the tail, up to
  // structured::kTailCap of them). In T's units, as sigma.
  double floor = 0;
};
struct HalfBasis {
  int trusted = 0;
  int64_t count = 0;
  std::vector<double> x;
};
using BasisBatch = std::function<Status(const std::vector<BasisTask> &tasks, std::vector<HalfBasis> &out)>;
// What a structured call offers its search: the batch, the number of tasks that run side by side,
// and the diagonals of T's two half blocks in the sine basis (T's units; structured::Guide); and
// the basis tasks for the eigenvectors.
struct InertiaSource {
  InertiaBatch batch;
  BasisBatch basis;
  int slots = 1;
  std::vector<double> diagonal[2];
};
using InertiaUse = std::function<Status(const InertiaSource &)>;

// The device the routines' GPU halves run on. Every method keeps the contract stated here; none
// throws on purpose (run_dispatched catches what does).
class Device {
 public:
  virtual ~Device() = default;

  virtual bool available() = 0;
  virtual std::string unavailable_reason() = 0;
  // One line per visible device, for `gpueig info`; empty when there is none.
  virtual std::string describe_devices() = 0;

  // A * X = B for tridiagonal A (host pointers; B is LDB x NRHS). DL, D, DU are not modified.
  // Returns `unsafe` when PCR hit a zero pivot, a non-finite value, or failed its residual
  // check; `output_lost` when B was partly overwritten before a device failure.
  virtual Status gtsv(int64_t n, int64_t nrhs, const double *dl, const double *d,
                      const double *du, double *b, int64_t ldb) = 0;

  // `batch` systems of order n, system k's arrays at offset k*stride (B overwritten by X).
  // Systems the fast solve could not be trusted on are solved again on the device with partial
  // pivoting (in parallel inside chunks, kept where that passes the check: not listed), or listed
  // in *redo: re-solved on the device by DGTSV's algorithm (info = DGTSV's INFO for it), or left
  // untouched for the caller (info = -1). Systems are processed in groups; on failure, *done says how many leading
  // systems are final (the others still hold their B), unless the code is `output_lost`.
  virtual Status gtsv_batch(int64_t n, int64_t batch, const double *dl, const double *d,
                            const double *du, double *b, int64_t stride,
                            std::vector<BatchOutcome> *redo, int64_t *done) = 0;

  // DSYTRD + DORGTR by Givens rotations (arguments already checked, n >= 1; vect 'N', 'V' or
  // 'U' and uplo 'U' or 'L', upper case): d, e and, for 'V' / 'U', q (ldq) are written only on
  // ok (q partly, for 'U', on `output_lost`); a is read (triangle uplo) and left as it was.
  // `unsafe` for a matrix with NaN or Inf entries, or a T that fails the invariant check.
  virtual Status sytrd(char vect, char uplo, int64_t n, double *a, int64_t lda, double *d,
                       double *e, double *q, int64_t ldq) = 0;

  // DGETRF (arguments already checked, m, n >= 1): A (lda x n, host) overwritten by L and U,
  // ipiv (min(m, n) entries, 1-based), *info DGETRF's INFO. Outputs are written only on ok (A
  // partly on `output_lost`); `unsafe` for matrices with NaN or Inf entries (LAPACK's INFO
  // there depends on its BLAS).
  virtual Status getrf(int64_t m, int64_t n, double *a, int64_t lda, int *ipiv, int *info) = 0;

  // DGESV (arguments already checked, n >= 1, nrhs >= 0): A, ipiv and *info as getrf (m = n);
  // then, for INFO = 0 and nrhs > 0, B (ldb x nrhs, host) overwritten by X = A^-1 B on the
  // device (*solved = true). *solved = false with ok: B untouched (INFO > 0, or the device solve
  // failed after the factors were written), the caller solves with the factors on the host.
  // `output_lost` as getrf's, or with B partly overwritten by X.
  virtual Status gesv(int64_t n, int64_t nrhs, double *a, int64_t lda, int *ipiv, double *b,
                      int64_t ldb, int *info, bool *solved) = 0;

  // DGETRS (arguments already checked, n, nrhs >= 1, trans 'N', 'T' or 'C', ipiv in 1..n):
  // B (ldb x nrhs, host) overwritten by X with A's factors (lda, host, read only) and IPIV as
  // DGETRF left them. B is written only on ok (partly on `output_lost`).
  virtual Status getrs(char trans, int64_t n, int64_t nrhs, const double *a, int64_t lda,
                       const int *ipiv, double *b, int64_t ldb) = 0;

  // DSTEBZ (arguments already checked, N >= 1, D and E finite). Outputs are written only on ok;
  // *info is DSTEBZ's INFO (0..4).
  virtual Status stebz(char range, char order, int n, double vl, double vu, int il, int iu,
                       double abstol, const double *d, const double *e, int *m, int *nsplit,
                       double *w, int *iblock, int *isplit, int *info) = 0;

  // DSTEIN (arguments already checked, n, m >= 1, T and W scaled as gpu_stein scales them, W
  // ascending within each block): Z (ldz, m columns), IFAIL and *info (the count of vectors that
  // did not converge) as DSTEIN's, written only on ok.
  virtual Status stein(int n, const double *d, const double *e, int m, const double *w,
                       const int *iblock, const int *isplit, double *z, int ldz, int *ifail,
                       int *info) = 0;

  // DSYEVD (arguments already checked, n >= 1; jobz 'N' or 'V' and uplo 'U' or 'L', upper case):
  // w (n) the eigenvalues, ascending, and for 'V' A's columns the orthonormal eigenvectors
  // (A (lda), triangle uplo, is read; for 'N' left as it was). Written only on ok (A partly on
  // `output_lost`). `unsafe` for
  // a matrix with NaN or Inf entries, a reduction that fails its check, or eigenvectors that fail
  // theirs (the CPU recomputes): the GPU half reports no INFO > 0.
  virtual Status syevd(char jobz, char uplo, int64_t n, double *a, int64_t lda, double *w) = 0;

  // DSYEVX for a subset (arguments already checked, n >= 1; jobz 'N' or 'V', range 'V' or 'I',
  // uplo 'U' or 'L', upper case; VL, VU, IL, IU, ABSTOL as the caller gave them): *m, w (*m
  // eigenvalues, ascending) and for 'V' z (ldz, *m columns), written only on ok; A (lda, triangle
  // uplo) only read. `unsafe` for a matrix with NaN or Inf entries, a reduction that fails its
  // check, bisection that fails, and vectors that do not converge or fail their check (the CPU
  // recomputes the call): the GPU half reports no INFO > 0.
  virtual Status syevx(char jobz, char range, char uplo, int64_t n, const double *a, int64_t lda,
                       double vl, double vu, int il, int iu, double abstol, int *m, double *w,
                       double *z, int64_t ldz) = 0;

  // The tridiagonal forms of the two half blocks of the symmetric Toeplitz matrix T(i,j) =
  // t(|i-j|) (t on the host: n >= 1 finite entries, already scaled so that the blocks cannot
  // overflow): halves[0] of the symmetric eigenvectors (order n - n/2, with the middle row for
  // odd n), halves[1] of the skew-symmetric ones (order n/2). then(h), when given, runs right
  // after half h is reduced, in the same host thread (so the two halves' next steps overlap
  // too); its failure is the call's.
  virtual Status toeplitz_tridiagonals(int64_t n, const double *t, ToeplitzHalves *halves,
                                       const std::function<Status(int)> &then) = 0;

  // The structured Toeplitz method's evaluations (src/toeplitz_structured.hpp): the Cauchy-like
  // form of T(i,j) = t(|i-j|) (t on the host: n >= 1 finite entries, scaled) set up on the device,
  // then use(source) runs on the calling thread with source.batch evaluating (shift, half) tasks
  // there (each call one batch, waited for). The call's status is use's, or the setup's failure.
  // *bytes: the most device memory the call held.
  virtual Status toeplitz_inertia(int64_t n, const double *t, const InertiaUse &use, int64_t *bytes) = 0;

  // ---- The device-pointer API (include/gpueig.h): arrays and INFO in the device's memory, the
  // work queued on `stream` (a cudaStream_t). Arguments already checked, pointers included; the
  // sizes are >= 1 unless stated. A failure leaves the outputs unspecified (no CPU fallback).

  // Whether p is memory the device's kernels may use (device memory of the library's device, or
  // managed memory).
  virtual bool device_memory(const void *p) = 0;
  // Whether `stream` (a cudaStream_t, NULL the legacy default stream) is one of that device's.
  virtual bool device_stream(void *stream) = 0;
  // DGETRF: A (lda x n), ipiv (min(m, n)), *info DGETRF's INFO.
  virtual Status getrf_dev(int64_t m, int64_t n, double *a, int64_t lda, int *ipiv, int *info,
                           void *stream) = 0;
  // DGETRS (trans 'N' or 'T'; nrhs >= 1): B := X; *info 0, or -6 for an IPIV entry outside 1..n
  // (B untouched).
  virtual Status getrs_dev(char trans, int64_t n, int64_t nrhs, const double *a, int64_t lda,
                           const int *ipiv, double *b, int64_t ldb, int *info, void *stream) = 0;
  // DGESV (nrhs >= 0): A, ipiv, *info as getrf_dev; B := X where *info = 0, untouched otherwise.
  virtual Status gesv_dev(int64_t n, int64_t nrhs, double *a, int64_t lda, int *ipiv, double *b,
                          int64_t ldb, int *info, void *stream) = 0;
  // *info := 0 on `stream` (the quick returns).
  // gtsv_dev and gtsv_batch_dev: ncol tridiagonal systems, column c's matrix at c*ms (ms = 0:
  // one shared matrix, the columns its right-hand sides), its B at c*ldb; n >= 1, ncol >= 0
  // (0 only with ms = 0: DGTSV's INFO alone). B := X; *info: DGTSV's INFO for a shared matrix,
  // else the batch's first-singular-system code (gpueig.h).
  virtual Status gtsv_dev(int64_t n, int64_t ncol, const double *dl, const double *d, const double *du,
                          int64_t ms, double *b, int64_t ldb, int *info, void *stream) = 0;
  virtual Status zero_info(int *info, void *stream) = 0;
  // DSYTRD (+ DORGTR) by Givens rotations on device arrays (n >= 1; vect 'N', 'V' or 'U' and
  // uplo 'U' or 'L', upper case): a (triangle uplo) is only read; d, e (n - 1 entries), q (ldq,
  // for 'V' / 'U') are written and *info := 0 only on ok. `unsafe` (outputs untouched) for a
  // triangle with NaN or Inf entries, or a T that fails the invariant check. Waits for `stream`:
  // the checks' verdicts are read on the host.
  virtual Status sytrd_dev(char vect, char uplo, int64_t n, const double *a, int64_t lda, double *d,
                           double *e, double *q, int64_t ldq, int *info, void *stream) = 0;
  // DSYEVD (as syevd; jobz 'N' or 'V', uplo 'U' or 'L', upper case) on device arrays: a
  // (triangle uplo) read, and for 'V' overwritten by the eigenvectors; w (n) and *info := 0
  // written only on ok. `unsafe` (a, w untouched) as syevd. Waits for `stream` (the checks'
  // verdicts are read on the host).
  virtual Status syevd_dev(char jobz, char uplo, int64_t n, double *a, int64_t lda, double *w, int *info,
                           void *stream) = 0;
  // DSYEVX (as syevx, n >= 2, A finite not required: `unsafe` there) on device arrays, the
  // whole spectrum (RANGE 'A', or 'I' with IL = 1, IU = n) by syevd_dev's method (A then holds
  // the vectors too): *m (host), w (device, *m entries), for JOBZ 'V' z (ldz, *m columns) and
  // ifail (*m zeros), *info := 0, all only on ok. Waits for `stream`.
  virtual Status syevx_dev(char jobz, char range, char uplo, int64_t n, double *a, int64_t lda, double vl,
                           double vu, int il, int iu, double abstol, int *m, double *w, double *z, int64_t ldz,
                           int *ifail, int *info, void *stream) = 0;
  // DSTEBZ (as stebz) on D and E the caller copied down (host, finite, n >= 1): the searches
  // queued on `stream`, W (*m entries), IBLOCK (*m), ISPLIT (*nsplit) and *info (DSTEBZ's INFO)
  // device arrays written on `stream`, *m and *nsplit on the host, all only on ok. `unsafe` as
  // stebz. Waits for `stream` (the bookkeeping is the host's).
  virtual Status stebz_dev(char range, char order, int n, double vl, double vu, int il, int iu,
                           double abstol, const double *d, const double *e, int *m, int *nsplit,
                           double *w, int *iblock, int *isplit, int *info, void *stream) = 0;
  // DSTEIN (as stein) on D, E, W, IBLOCK, ISPLIT the caller copied down, checked and scaled
  // (host; n, m >= 1): Z (device, ldz, m columns), IFAIL (device, m) and *info (device) written on
  // `stream` only on ok.
  virtual Status stein_dev(int n, const double *d, const double *e, int m, const double *w,
                           const int *iblock, const int *isplit, double *z, int64_t ldz, int *ifail,
                           int *info, void *stream) = 0;
  // Small arrays (bytes a multiple of 4) between device memory and the host in one transfer, in
  // order on `stream`: download waits for it; upload returns once the host data is taken.
  virtual Status download_arrays(const std::vector<ToHost> &pieces, void *stream) = 0;
  virtual Status upload_arrays(const std::vector<ToDevice> &pieces, void *stream) = 0;
  // rows x cols doubles between device memory (leading dimension ldd) and the host (ldh), in
  // order on `stream` and waited for (the host recompute of a device call).
  virtual Status download_matrix(double *host, int64_t ldh, const double *dev, int64_t ldd,
                                 int64_t rows, int64_t cols, void *stream) = 0;
  virtual Status upload_matrix(double *dev, int64_t ldd, const double *host, int64_t ldh,
                               int64_t rows, int64_t cols, void *stream) = 0;
};

// The device calls go to: the fake device while GPUEIG_FAKE_DEVICE=1 (a test-only hook), else
// the hardware.
Device &device();
// The hardware: cuda/hardware.cu, or src/gpu_absent.cpp in a build without CUDA.
Device &hardware();
// A device that runs each GPU half's contract with LAPACK on the host (src/fake_device.cpp): it
// lets CPU-only CI drive the dispatch paths the hardware takes, fault injection included.
Device &fake_device();

// Shorthands for the device in use.
inline bool available() { return device().available(); }
inline std::string unavailable_reason() { return device().unavailable_reason(); }

}  // namespace gpueig::gpu
