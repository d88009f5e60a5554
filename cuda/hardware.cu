// The hardware as the host side's Device: each method is the routine's GPU half (cuda/*.cu).
#include "context.hpp"
#include "device_util.hpp"
#include "hardware.hpp"

namespace gpueig::gpu {
namespace {

class Hardware final : public Device {
 public:
  bool available() override { return device_available(); }
  std::string unavailable_reason() override { return device_unavailable_reason(); }
  std::string describe_devices() override { return describe_hardware(); }

  Status gtsv(int64_t n, int64_t nrhs, const double *dl, const double *d, const double *du,
              double *b, int64_t ldb) override {
    return gpu::gtsv(n, nrhs, dl, d, du, b, ldb);
  }
  Status gtsv_batch(int64_t n, int64_t batch, const double *dl, const double *d, const double *du,
                    double *b, int64_t stride, std::vector<BatchOutcome> *redo,
                    int64_t *done) override {
    return gpu::gtsv_batch(n, batch, dl, d, du, b, stride, redo, done);
  }
  Status sytrd(char vect, char uplo, int64_t n, double *a, int64_t lda, double *d, double *e,
               double *q, int64_t ldq) override {
    return gpu::sytrd(vect, uplo, n, a, lda, d, e, q, ldq);
  }
  Status stein(int n, const double *d, const double *e, int m, const double *w, const int *iblock,
               const int *isplit, double *z, int ldz, int *ifail, int *info) override {
    return gpu::stein(n, d, e, m, w, iblock, isplit, z, ldz, ifail, info);
  }
  Status syevd(char jobz, char uplo, int64_t n, double *a, int64_t lda, double *w) override {
    return gpu::syevd(jobz, uplo, n, a, lda, w);
  }
  Status syevx(char jobz, char range, char uplo, int64_t n, const double *a, int64_t lda, double vl,
               double vu, int il, int iu, double abstol, int *m, double *w, double *z,
               int64_t ldz) override {
    return gpu::syevx(jobz, range, uplo, n, a, lda, vl, vu, il, iu, abstol, m, w, z, ldz);
  }
  Status getrf(int64_t m, int64_t n, double *a, int64_t lda, int *ipiv, int *info) override {
    return gpu::getrf(m, n, a, lda, ipiv, info);
  }
  Status gesv(int64_t n, int64_t nrhs, double *a, int64_t lda, int *ipiv, double *b,
              int64_t ldb, int *info, bool *solved) override {
    return gpu::gesv(n, nrhs, a, lda, ipiv, b, ldb, info, solved);
  }
  Status getrs(char trans, int64_t n, int64_t nrhs, const double *a, int64_t lda, const int *ipiv,
               double *b, int64_t ldb) override {
    return gpu::getrs(trans, n, nrhs, a, lda, ipiv, b, ldb);
  }
  Status stebz(char range, char order, int n, double vl, double vu, int il, int iu, double abstol,
               const double *d, const double *e, int *m, int *nsplit, double *w, int *iblock,
               int *isplit, int *info) override {
    return gpu::stebz(range, order, n, vl, vu, il, iu, abstol, d, e, m, nsplit, w, iblock, isplit,
                      info);
  }
  Status toeplitz_tridiagonals(int64_t n, const double *t, ToeplitzHalves *halves,
                               const std::function<Status(int)> &then) override {
    return gpu::toeplitz_tridiagonals(n, t, halves, then);
  }
  Status toeplitz_inertia(int64_t n, const double *t, const InertiaUse &use, int64_t *bytes) override {
    return gpu::toeplitz_inertia(n, t, use, bytes);
  }
  bool device_memory(const void *p) override { return gpu::device_memory(p); }
  bool device_stream(void *stream) override { return gpu::device_stream(stream); }
  Status getrf_dev(int64_t m, int64_t n, double *a, int64_t lda, int *ipiv, int *info,
                   void *stream) override {
    return gpu::getrf_dev(m, n, a, lda, ipiv, info, stream);
  }
  Status getrs_dev(char trans, int64_t n, int64_t nrhs, const double *a, int64_t lda, const int *ipiv,
                   double *b, int64_t ldb, int *info, void *stream) override {
    return gpu::getrs_dev(trans, n, nrhs, a, lda, ipiv, b, ldb, info, stream);
  }
  Status gesv_dev(int64_t n, int64_t nrhs, double *a, int64_t lda, int *ipiv, double *b, int64_t ldb,
                  int *info, void *stream) override {
    return gpu::gesv_dev(n, nrhs, a, lda, ipiv, b, ldb, info, stream);
  }
  Status gtsv_dev(int64_t n, int64_t ncol, const double *dl, const double *d, const double *du, int64_t ms,
                  double *b, int64_t ldb, int *info, void *stream) override {
    return gpu::gtsv_dev(n, ncol, dl, d, du, ms, b, ldb, info, stream);
  }
  Status zero_info(int *info, void *stream) override { return gpu::zero_info(info, stream); }
  Status sytrd_dev(char vect, char uplo, int64_t n, const double *a, int64_t lda, double *d,
                   double *e, double *q, int64_t ldq, int *info, void *stream) override {
    return gpu::sytrd_dev(vect, uplo, n, a, lda, d, e, q, ldq, info, stream);
  }
  Status syevd_dev(char jobz, char uplo, int64_t n, double *a, int64_t lda, double *w, int *info,
                   void *stream) override {
    return gpu::syevd_dev(jobz, uplo, n, a, lda, w, info, stream);
  }
  Status syevx_dev(char jobz, char range, char uplo, int64_t n, double *a, int64_t lda, double vl, double vu,
                   int il, int iu, double abstol, int *m, double *w, double *z, int64_t ldz, int *ifail, int *info,
                   void *stream) override {
    return gpu::syevx_dev(jobz, range, uplo, n, a, lda, vl, vu, il, iu, abstol, m, w, z, ldz, ifail, info, stream);
  }
  Status stebz_dev(char range, char order, int n, double vl, double vu, int il, int iu, double abstol,
                   const double *d, const double *e, int *m, int *nsplit, double *w, int *iblock, int *isplit,
                   int *info, void *stream) override {
    return gpu::stebz_dev(range, order, n, vl, vu, il, iu, abstol, d, e, m, nsplit, w, iblock, isplit, info,
                          stream);
  }
  Status stein_dev(int n, const double *d, const double *e, int m, const double *w, const int *iblock,
                   const int *isplit, double *z, int64_t ldz, int *ifail, int *info, void *stream) override {
    return gpu::stein_dev(n, d, e, m, w, iblock, isplit, z, ldz, ifail, info, stream);
  }
  Status download_arrays(const std::vector<ToHost> &pieces, void *stream) override {
    CallerStream call(stream);
    Status s = call.enter();
    return s ? download_packed(call, pieces) : s;
  }
  Status upload_arrays(const std::vector<ToDevice> &pieces, void *stream) override {
    CallerStream call(stream);
    Status s = call.enter();
    return s ? upload_packed(call, pieces) : s;
  }
  Status download_matrix(double *host, int64_t ldh, const double *dev, int64_t ldd, int64_t rows,
                         int64_t cols, void *stream) override {
    return gpu::copy_matrix(host, ldh, dev, ldd, rows, cols, stream);
  }
  Status upload_matrix(double *dev, int64_t ldd, const double *host, int64_t ldh, int64_t rows,
                       int64_t cols, void *stream) override {
    return gpu::copy_matrix(dev, ldd, host, ldh, rows, cols, stream);
  }
};

}  // namespace

Device &hardware() {
  static Hardware h;
  return h;
}

}  // namespace gpueig::gpu
