// The GPU interface of a build made without CUDA: there is no device, and every GPU call says
// so, which sends `auto` to the CPU and makes a forced "gpu" policy return GPUEIG_ERR_DEVICE.
#include "gpu_backend.hpp"

namespace gpueig::gpu {
namespace {
const char kWhy[] = "libgpueig was built without CUDA";
}

bool available() { return false; }
std::string unavailable_reason() { return kWhy; }
std::string describe_devices() { return ""; }
int selected_device() { return -1; }

Status gtsv(int64_t, int64_t, const double *, const double *, const double *, double *, int64_t) {
  return Status::fail(Status::unavailable, kWhy);
}

Status gtsv_batch(int64_t, int64_t, const double *, const double *, const double *, double *,
                  int64_t, std::vector<BatchOutcome> *, int64_t *) {
  return Status::fail(Status::unavailable, kWhy);
}

Status sytrd(char, char, int64_t, double *, int64_t, double *, double *, double *, int64_t) {
  return Status::fail(Status::unavailable, kWhy);
}

Status getrf(int64_t, int64_t, double *, int64_t, int *, int *) {
  return Status::fail(Status::unavailable, kWhy);
}

Status stebz(char, char, int, double, double, int, int, double, const double *, const double *,
             int *, int *, double *, int *, int *, int *) {
  return Status::fail(Status::unavailable, kWhy);
}

Status toeplitz_tridiagonals(int64_t, const double *, ToeplitzHalves *,
                             const std::function<Status(int)> &) {
  return Status::fail(Status::unavailable, kWhy);
}

}  // namespace gpueig::gpu
