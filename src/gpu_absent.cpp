// The hardware of a build made without CUDA: there is no device, and every GPU call says so,
// which sends `auto` to the CPU and makes a forced "gpu" policy return GPUEIG_ERR_DEVICE.
#include "gpu_backend.hpp"

namespace gpueig::gpu {
namespace {

const char kWhy[] = "libgpueig was built without CUDA";

class Absent final : public Device {
 public:
  bool available() override { return false; }
  std::string unavailable_reason() override { return kWhy; }
  std::string describe_devices() override { return ""; }
  Status gtsv(int64_t, int64_t, const double *, const double *, const double *, double *,
              int64_t) override {
    return none();
  }
  Status gtsv_batch(int64_t, int64_t, const double *, const double *, const double *, double *,
                    int64_t, std::vector<BatchOutcome> *, int64_t *done) override {
    *done = 0;
    return none();
  }
  Status sytrd(char, char, int64_t, double *, int64_t, double *, double *, double *,
               int64_t) override {
    return none();
  }
  Status getrf(int64_t, int64_t, double *, int64_t, int *, int *) override { return none(); }
  Status syevd(char, char, int64_t, double *, int64_t, double *) override { return none(); }
  Status syevx(char, char, char, int64_t, const double *, int64_t, double, double, int, int, double,
               int *, double *, double *, int64_t) override {
    return none();
  }
  Status stein(int, const double *, const double *, int, const double *, const int *, const int *,
               double *, int, int *, int *) override {
    return none();
  }
  Status gesv(int64_t, int64_t, double *, int64_t, int *, double *, int64_t, int *, bool *) override {
    return none();
  }
  Status getrs(char, int64_t, int64_t, const double *, int64_t, const int *, double *,
               int64_t) override {
    return none();
  }
  Status stebz(char, char, int, double, double, int, int, double, const double *, const double *,
               int *, int *, double *, int *, int *, int *) override {
    return none();
  }
  Status toeplitz_tridiagonals(int64_t, const double *, ToeplitzHalves *,
                               const std::function<Status(int)> &) override {
    return none();
  }
  Status toeplitz_inertia(int64_t, const double *, const InertiaUse &, int64_t *) override {
    return none();
  }
  bool device_memory(const void *) override { return false; }
  bool device_stream(void *) override { return false; }
  Status getrf_dev(int64_t, int64_t, double *, int64_t, int *, int *, void *) override { return none(); }
  Status getrs_dev(char, int64_t, int64_t, const double *, int64_t, const int *, double *, int64_t, int *,
                   void *) override {
    return none();
  }
  Status gesv_dev(int64_t, int64_t, double *, int64_t, int *, double *, int64_t, int *, void *) override {
    return none();
  }
  Status gtsv_dev(int64_t, int64_t, const double *, const double *, const double *, int64_t, double *,
                  int64_t, int *, void *) override {
    return none();
  }
  Status zero_info(int *, void *) override { return none(); }
  Status sytrd_dev(char, char, int64_t, const double *, int64_t, double *, double *, double *, int64_t,
                   int *, void *) override {
    return none();
  }
  Status syevd_dev(char, char, int64_t, double *, int64_t, double *, int *, void *) override { return none(); }
  Status syevx_dev(char, char, char, int64_t, double *, int64_t, double, double, int, int, double, int *, double *,
                   double *, int64_t, int *, int *, void *) override {
    return none();
  }
  Status download_matrix(double *, int64_t, const double *, int64_t, int64_t, int64_t, void *) override {
    return none();
  }
  Status upload_matrix(double *, int64_t, const double *, int64_t, int64_t, int64_t, void *) override {
    return none();
  }

  Status stebz_dev(char, char, int, double, double, int, int, double, const double *, const double *, int *,
                   int *, double *, int *, int *, int *, void *) override {
    return none();
  }
  Status stein_dev(int, const double *, const double *, int, const double *, const int *, const int *, double *,
                   int64_t, int *, int *, void *) override {
    return none();
  }
  Status download_arrays(const std::vector<ToHost> &, void *) override { return none(); }
  Status upload_arrays(const std::vector<ToDevice> &, void *) override { return none(); }

 private:
  static Status none() { return Status::fail(Status::unavailable, kWhy); }
};

}  // namespace

Device &hardware() {
  static Absent a;
  return a;
}

}  // namespace gpueig::gpu
