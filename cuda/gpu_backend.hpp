// The GPU backend as the host side sees it: plain C++ types only, so src/ compiles without CUDA.
// Implemented by the .cu files of this folder, or by src/gpu_absent.cpp in a CPU-only build.
#pragma once
#include <cstdint>
#include <string>

namespace gpueig::gpu {

// Outcome of a GPU attempt. Anything but `ok` leaves the caller's outputs untouched.
struct Status {
  enum Code {
    ok,
    unavailable,   // no CUDA build, no device, or the device was lost earlier
    device_error,  // allocation, launch or transfer failure
    unsafe,        // the method cannot be trusted on this input: recompute on the CPU
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

// DSTEBZ (arguments already checked, N >= 1, D and E finite). Outputs are written only on ok;
// *info is DSTEBZ's INFO (0..4).
Status stebz(char range, char order, int n, double vl, double vu, int il, int iu, double abstol,
             const double *d, const double *e, int *m, int *nsplit, double *w, int *iblock,
             int *isplit, int *info);

}  // namespace gpueig::gpu
