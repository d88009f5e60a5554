// The fake device (GPUEIG_FAKE_DEVICE=1, a test-only hook): each GPU half's contract (src/
// gpu_backend.hpp) carried out with LAPACK on the host, on copies, and the faults of
// GPUEIG_FAULT_INJECT met where the hardware meets them (before the work: allocation, cuBLAS
// handle, kernel launch, a lost device; after it: the download of results). It lets CPU-only CI
// drive every dispatch path the hardware takes: fallback in `auto`, the error when the GPU is
// forced, outputs untouched or (in getrf's and gtsv's streamed paths, sytrd's VECT = 'U')
// partly written, a device lost for the rest of the process.
#include <algorithm>
#include <atomic>
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstring>
#include <mutex>
#include <numeric>
#include <vector>

#include "cpu_paths.hpp"
#include "fault.hpp"
#include "gpu_backend.hpp"
#include "gpueig.h"
#include "scaling.hpp"
#include "stedc_phases.hpp"
#include "stein_phases.hpp"
#include "toeplitz_structured.hpp"

namespace gpueig::gpu {
namespace {

// Systems per group of the fake gtsv_batch: small, so that faults between groups are reachable.
constexpr int64_t kFakeGroup = 4;

// Triangle `uplo` of a (n x n, lda) mirrored into a full symmetric matrix, as the device does.
std::vector<double> mirrored(char uplo, int64_t n, const double *a, int64_t lda) {
  std::vector<double> full(n * n);
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < n; ++i) {
      const bool mine = uplo == 'U' ? i <= j : i >= j;
      full[i + j * n] = mine ? a[i + j * lda] : a[j + i * lda];
    }
  return full;
}

bool finite(const double *a, int64_t lda, int64_t m, int64_t n) {
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < m; ++i)
      if (!std::isfinite(a[i + j * lda])) return false;
  return true;
}

// LAPACK's two test ratios of m eigenpairs of T = tridiag(e, d, e) as the device's check computes
// them (cuda/symmetric_eigen.hpp): max_j ||T z_j - w_j z_j||_1 / (n ||T||_1 ulp), and
// ||Z^T Z - I||_1 / (n ulp).
double pairs_residual(int64_t n, const double *d, const double *e, int64_t m, const double *w,
                      const double *z) {
  double tnorm = 0, worst = 0;
  for (int64_t i = 0; i < n; ++i)
    tnorm = std::max(tnorm, std::fabs(d[i]) + (i > 0 ? std::fabs(e[i - 1]) : 0) + (i + 1 < n ? std::fabs(e[i]) : 0));
  for (int64_t j = 0; j < m; ++j) {
    const double *x = z + j * n;
    double s = 0;
    for (int64_t i = 0; i < n; ++i)
      s += std::fabs((d[i] - w[j]) * x[i] + (i > 0 ? e[i - 1] * x[i - 1] : 0) + (i + 1 < n ? e[i] * x[i + 1] : 0));
    worst = std::max(worst, s);
  }
  return worst == 0 ? 0 : worst / (double(n) * (tnorm > 0 ? tnorm : 1) * DBL_EPSILON);
}
double pairs_orthogonality(int64_t n, int64_t m, const double *z) {
  double worst = 0;
  for (int64_t j = 0; j < m; ++j) {
    double s = 0;
    for (int64_t i = 0; i < m; ++i) {
      double g = 0;
      for (int64_t k = 0; k < n; ++k) g += z[k + i * n] * z[k + j * n];
      s += std::fabs(g - (i == j ? 1.0 : 0.0));
    }
    worst = std::max(worst, s);
  }
  return worst / (double(n) * DBL_EPSILON);
}

// Copies columns [0, cols) of an m-row matrix.
void copy_columns(int64_t m, int64_t cols, const double *src, int64_t lds, double *dst,
                  int64_t ldd) {
  for (int64_t j = 0; j < cols; ++j) std::copy(src + j * lds, src + j * lds + m, dst + j * ldd);
}

class Fake final : public Device {
 public:
  bool available() override { return !lost_.load() && fault::armed() != fault::Kind::no_device; }

  std::string unavailable_reason() override {
    if (fault::armed() == fault::Kind::no_device)
      return "no CUDA device (injected: GPUEIG_FAULT_INJECT=no_device)";
    if (lost_.load()) {
      std::lock_guard<std::mutex> lock(m_);
      return "device lost earlier: " + lost_why_;
    }
    return "";
  }

  std::string describe_devices() override {
    return "0: fake device (GPUEIG_FAKE_DEVICE=1: LAPACK on the host, for the tests) (selected)\n";
  }

  Status gtsv(int64_t n, int64_t nrhs, const double *dl, const double *d, const double *du,
              double *b, int64_t ldb) override {
    Status s = start(false);
    if (!s) return s;
    std::vector<double> x(n * nrhs);
    copy_columns(n, nrhs, b, ldb, x.data(), n);
    const int info = cpu::gtsv(int(n), int(nrhs), dl, d, du, x.data(), int(n));
    if (info < 0) return Status::fail(Status::device_error, "fake device: LAPACK unavailable");
    if (info > 0 || !finite(x.data(), n, n, nrhs))
      return Status::fail(Status::unsafe, "the solve without pivoting failed its check");
    if (download_fails()) {  // B goes back column by column: the first half arrived
      copy_columns(n, nrhs / 2, x.data(), n, b, ldb);
      return Status::fail(Status::output_lost, why_lost());
    }
    copy_columns(n, nrhs, x.data(), n, b, ldb);
    return Status::success();
  }

  Status gtsv_batch(int64_t n, int64_t batch, const double *dl, const double *d, const double *du,
                    double *b, int64_t stride, std::vector<BatchOutcome> *redo,
                    int64_t *done) override {
    redo->clear();
    *done = 0;
    for (int64_t c0 = 0; c0 < batch; c0 += kFakeGroup) {
      Status s = start(false);
      if (!s) return s;
      const int64_t g = std::min(kFakeGroup, batch - c0);
      std::vector<std::vector<double>> x(g);
      std::vector<BatchOutcome> failed;
      for (int64_t k = 0; k < g; ++k) {
        const int64_t off = (c0 + k) * stride;
        x[k].assign(b + off, b + off + n);
        const int info = cpu::gtsv(int(n), 1, dl + off, d + off, du + off, x[k].data(), int(n));
        if (info < 0) return Status::fail(Status::device_error, "fake device: LAPACK unavailable");
        if (info > 0) {  // left to the caller, its B untouched
          x[k].assign(b + off, b + off + n);
          failed.push_back({c0 + k, -1});
        }
      }
      const bool lost = download_fails();
      for (int64_t k = 0; k < (lost ? g / 2 : g); ++k)
        std::copy(x[k].begin(), x[k].end(), b + (c0 + k) * stride);
      if (lost) return Status::fail(Status::output_lost, why_lost());
      redo->insert(redo->end(), failed.begin(), failed.end());
      *done = c0 + g;
    }
    return Status::success();
  }

  Status sytrd(char vect, char uplo, int64_t n, double *a, int64_t lda, double *d, double *e,
               double *q, int64_t ldq) override {
    Status s = start(false);
    if (!s) return s;
    std::vector<double> full = mirrored(uplo, n, a, lda);
    if (!finite(full.data(), n, n, n))
      return Status::fail(Status::unsafe, "A holds NaN or Inf entries: reduced by LAPACK");
    const bool wantz = vect != 'N';
    std::vector<double> dd(n), ee(std::max<int64_t>(n - 1, 1)), qq(wantz ? n * n : 1);
    if (vect == 'U') copy_columns(n, n, q, ldq, qq.data(), n);
    const int info = cpu::sytrd(vect, uplo, int(n), full.data(), int(n), dd.data(), ee.data(),
                                qq.data(), int(wantz ? n : 1));
    if (info != 0) return Status::fail(Status::device_error, "fake device: LAPACK failed");
    if (download_fails()) {
      if (vect != 'U') return Status::fail(Status::device_error, why_lost());
      copy_columns(n, n / 2, qq.data(), n, q, ldq);  // Q_in already partly overwritten
      return Status::fail(Status::output_lost, why_lost());
    }
    std::copy(dd.begin(), dd.end(), d);
    std::copy(ee.begin(), ee.begin() + (n - 1), e);
    if (wantz) copy_columns(n, n, qq.data(), n, q, ldq);
    return Status::success();
  }

  // The device's method on the host (src/stein_phases.hpp).
  Status stein(int n, const double *d, const double *e, int m, const double *w, const int *iblock,
               const int *isplit, double *z, int ldz, int *ifail, int *info) override {
    Status s = start(true);
    if (!s) return s;
    std::vector<double> zz(size_t(n) * m);
    std::vector<int> ff(m);
    const int r = stein_phases::solve(n, d, e, m, w, iblock, isplit, zz.data(), n, ff.data(), cpu::gemm);
    if (r < 0) return Status::fail(Status::device_error, "fake device: out of memory");
    if (download_fails()) return Status::fail(Status::device_error, why_lost());
    copy_columns(n, m, zz.data(), n, z, ldz);
    std::copy(ff.begin(), ff.end(), ifail);
    *info = r;
    return Status::success();
  }

  // The device's method on the host: the reduction with Q (LAPACK here), the tridiagonal's
  // eigenpairs by the divide-and-conquer phases the device runs (src/stedc_phases.hpp), Q Z.
  Status syevd(char jobz, char uplo, int64_t n, double *a, int64_t lda, double *w) override {
    Status s = start(jobz == 'V');
    if (!s) return s;
    std::vector<double> full = mirrored(uplo, n, a, lda);
    if (!finite(full.data(), n, n, n))
      return Status::fail(Status::unsafe, "A holds NaN or Inf entries: solved by LAPACK");
    std::vector<double> vals(n), vecs;
    if (jobz == 'N') {
      if (cpu::syevd('N', uplo, int(n), full.data(), int(n), vals.data()) != 0)
        return Status::fail(Status::unsafe, "fake device: LAPACK did not converge");
    } else {
      std::vector<double> e(std::max<int64_t>(1, n - 1)), q(n * n), z(n * n);
      if (cpu::sytrd('V', uplo, int(n), full.data(), int(n), vals.data(), e.data(), q.data(), int(n)) != 0)
        return Status::fail(Status::device_error, "fake device: LAPACK failed");
      const std::vector<double> d(vals);
      if (stedc_phases::solve(n, vals.data(), e.data(), z.data(), n, cpu::gemm) != 0)
        return Status::fail(Status::unsafe, "the tridiagonal's eigenpairs did not converge");
      // The pairs of T checked as the device checks them (LAPACK's two ratios within 30).
      if (!(pairs_residual(n, d.data(), e.data(), n, vals.data(), z.data()) <= 30 &&
            pairs_orthogonality(n, n, z.data()) <= 30))
        return Status::fail(Status::unsafe, "the tridiagonal's eigenpairs failed their check");
      vecs.resize(n * n);
      cpu::gemm(n, n, n, q.data(), n, z.data(), n, vecs.data(), n);
    }
    if (download_fails()) return Status::fail(Status::device_error, why_lost());
    std::copy(vals.begin(), vals.end(), w);
    if (jobz == 'V') copy_columns(n, n, vecs.data(), n, a, lda);
    return Status::success();
  }

  // The device's method on the host: A scaled where DSYEVX scales it, the reduction with Q
  // (LAPACK here), bisection, the inverse iteration the device runs (src/stein_phases.hpp), Q Z,
  // the pairs of T checked as the device checks them, the columns sorted.
  Status syevx(char jobz, char range, char uplo, int64_t n, const double *a, int64_t lda, double vl,
               double vu, int il, int iu, double abstol, int *m, double *w, double *z,
               int64_t ldz) override {
    const bool wantz = jobz == 'V';
    Status s = start(wantz);
    if (!s) return s;
    std::vector<double> full = mirrored(uplo, n, a, lda);
    if (!finite(full.data(), n, n, n))
      return Status::fail(Status::unsafe, "A holds NaN or Inf entries: solved by LAPACK");
    double amax = 0;
    for (double x : full) amax = std::max(amax, std::fabs(x));
    const double smlnum = DBL_MIN / DBL_EPSILON;
    const double sigma = scaling::power_of_two_into(
        amax, std::sqrt(smlnum), std::min(std::sqrt(1 / smlnum), 1 / std::sqrt(std::sqrt(DBL_MIN))));
    for (double &x : full) x *= sigma;
    std::vector<double> d(n), e(std::max<int64_t>(1, n - 1)), q(wantz ? n * n : 1);
    if (cpu::sytrd(wantz ? 'V' : 'N', uplo, int(n), full.data(), int(n), d.data(), e.data(), q.data(),
                   int(wantz ? n : 1)) != 0)
      return Status::fail(Status::device_error, "fake device: LAPACK failed");
    const bool byval = range == 'V';
    if (byval && !(vl * sigma < vu * sigma)) {  // (as the hardware: nothing in a collapsed interval)
      *m = 0;
      return Status::success();
    }
    std::vector<double> vals(n);
    std::vector<int> iblock(n), isplit(n);
    int mm = 0, nsplit = 0;
    const int bz = cpu::stebz(range, wantz ? 'B' : 'E', int(n), byval ? vl * sigma : vl,
                              byval ? vu * sigma : vu, il, iu, abstol > 0 ? abstol * sigma : abstol,
                              d.data(), e.data(), &mm, &nsplit, vals.data(), iblock.data(), isplit.data());
    if (bz < 0) return Status::fail(Status::device_error, "fake device: LAPACK unavailable");
    if (bz > 0) return Status::fail(Status::unsafe, "bisection did not converge");
    std::vector<int> perm(mm);
    std::iota(perm.begin(), perm.end(), 0);
    std::vector<double> vecs;
    if (wantz && mm > 0) {
      std::vector<double> zz(size_t(n) * mm);
      std::vector<int> ff(mm);
      const int r = stein_phases::solve(int(n), d.data(), e.data(), mm, vals.data(), iblock.data(),
                                        isplit.data(), zz.data(), int(n), ff.data(), cpu::gemm);
      if (r < 0) return Status::fail(Status::device_error, "fake device: out of memory");
      if (r > 0) return Status::fail(Status::unsafe, "inverse iteration did not converge");
      if (!(pairs_residual(n, d.data(), e.data(), mm, vals.data(), zz.data()) <= 30 &&
            pairs_orthogonality(n, mm, zz.data()) <= 30))
        return Status::fail(Status::unsafe, "T's eigenpairs failed their check");
      vecs.resize(size_t(n) * mm);
      cpu::gemm(n, mm, n, q.data(), n, zz.data(), n, vecs.data(), n);
      std::stable_sort(perm.begin(), perm.end(), [&](int i, int j) { return vals[i] < vals[j]; });
    }
    if (download_fails()) return Status::fail(Status::device_error, why_lost());
    for (int j = 0; j < mm; ++j) {
      w[j] = vals[perm[j]] / sigma;
      if (wantz) std::copy_n(vecs.data() + int64_t(perm[j]) * n, n, z + j * ldz);
    }
    *m = mm;
    return Status::success();
  }

  Status getrf(int64_t m, int64_t n, double *a, int64_t lda, int *ipiv, int *info) override {
    Status s = start(true);
    if (!s) return s;
    if (!finite(a, lda, m, n))
      return Status::fail(Status::unsafe, "A holds NaN or Inf entries: factored by LAPACK");
    std::vector<double> lu(m * n);
    std::vector<int> piv(std::min(m, n));
    copy_columns(m, n, a, lda, lu.data(), m);
    const int i = cpu::getrf(int(m), int(n), lu.data(), int(m), piv.data());
    if (i < 0) return Status::fail(Status::device_error, "fake device: LAPACK unavailable");
    if (download_fails()) {  // the factors stream back as they become final
      copy_columns(m, n / 2, lu.data(), m, a, lda);
      return Status::fail(Status::output_lost, why_lost());
    }
    copy_columns(m, n, lu.data(), m, a, lda);
    std::copy(piv.begin(), piv.end(), ipiv);
    *info = i;
    return Status::success();
  }

  // The factorization as getrf's (its faults included), then DGETRS for X, as the device's
  // solve on the factors it holds.
  Status gesv(int64_t n, int64_t nrhs, double *a, int64_t lda, int *ipiv, double *b, int64_t ldb,
              int *info, bool *solved) override {
    *solved = false;
    Status s = getrf(n, n, a, lda, ipiv, info);
    if (!s || *info != 0 || nrhs == 0) return s;
    std::vector<double> x(n * nrhs);
    copy_columns(n, nrhs, b, ldb, x.data(), n);
    if (cpu::getrs('N', int(n), int(nrhs), a, int(lda), ipiv, x.data(), int(n)) != 0)
      return s;  // (no LAPACK: the caller's solve says so)
    // X's download failing at its first piece: B untouched, the caller solves on the host (a
    // later event of GPUEIG_FAULT_INJECT=download@2 lands here).
    if (download_fails()) return s;
    copy_columns(n, nrhs, x.data(), n, b, ldb);
    *solved = true;
    return s;
  }

  // DGETRS on a copy of B; X comes back as the hardware's download would (a download fault fails
  // it at its first piece: B untouched).
  Status getrs(char trans, int64_t n, int64_t nrhs, const double *a, int64_t lda, const int *ipiv,
               double *b, int64_t ldb) override {
    Status s = start(true);
    if (!s) return s;
    std::vector<double> x(n * nrhs);
    copy_columns(n, nrhs, b, ldb, x.data(), n);
    if (cpu::getrs(trans, int(n), int(nrhs), a, int(lda), ipiv, x.data(), int(n)) != 0)
      return Status::fail(Status::device_error, "fake device: LAPACK unavailable");
    if (download_fails()) return Status::fail(Status::device_error, why_lost());
    copy_columns(n, nrhs, x.data(), n, b, ldb);
    return s;
  }

  // The device-pointer API: the fake device's memory is the host's, so any non-null pointer is
  // its "device memory" and the work runs in place (the stream is not used).
  bool device_memory(const void *p) override { return p != nullptr; }
  bool device_stream(void *) override { return true; }

  Status getrf_dev(int64_t m, int64_t n, double *a, int64_t lda, int *ipiv, int *info, void *) override {
    Status s = start(true);
    if (!s) return s;
    const int i = cpu::getrf(int(m), int(n), a, int(lda), ipiv);
    if (i < 0) return Status::fail(Status::device_error, "fake device: LAPACK unavailable");
    *info = i;
    return s;
  }

  Status getrs_dev(char trans, int64_t n, int64_t nrhs, const double *a, int64_t lda, const int *ipiv,
                   double *b, int64_t ldb, int *info, void *) override {
    Status s = start(true);
    if (!s) return s;
    for (int64_t i = 0; i < n; ++i)
      if (ipiv[i] < 1 || ipiv[i] > n) return *info = -6, s;
    if (cpu::getrs(trans, int(n), int(nrhs), a, int(lda), ipiv, b, int(ldb)) != 0)
      return Status::fail(Status::device_error, "fake device: LAPACK unavailable");
    *info = 0;
    return s;
  }

  Status gesv_dev(int64_t n, int64_t nrhs, double *a, int64_t lda, int *ipiv, double *b, int64_t ldb,
                  int *info, void *stream) override {
    Status s = getrf_dev(n, n, a, lda, ipiv, info, stream);
    if (!s || *info != 0 || nrhs == 0) return s;
    return getrs_dev('N', n, nrhs, a, lda, ipiv, b, ldb, info, stream);
  }

  // DGTSV itself on each system (the device's answer where the check fails, and LAPACK's
  // everywhere else up to rounding), in place; INFO coded as the device codes it.
  Status gtsv_dev(int64_t n, int64_t ncol, const double *dl, const double *d, const double *du, int64_t ms,
                  double *b, int64_t ldb, int *info, void *) override {
    Status s = start(true);
    if (!s) return s;
    if (ms == 0) {
      std::vector<double> scratch(ncol == 0 ? n : 0);
      const int i = cpu::gtsv(int(n), int(ncol), dl, d, du, ncol == 0 ? scratch.data() : b, int(ldb));
      if (i < 0) return Status::fail(Status::device_error, "fake device: LAPACK unavailable");
      *info = i;
      return s;
    }
    int64_t first = 0;
    for (int64_t k = 0; k < ncol; ++k) {
      const int64_t off = k * ms;
      const int i = cpu::gtsv(int(n), 1, dl + off, d + off, du + off, b + k * ldb, int(n));
      if (i < 0) return Status::fail(Status::device_error, "fake device: LAPACK unavailable");
      if (i > 0 && first == 0) first = k * n + i;
    }
    *info = first <= INT_MAX ? int(first) : INT_MAX;
    return s;
  }

  // The host path's syevd on the caller's (host) arrays (A left as it leaves it; JOBZ 'N' leaves
  // it untouched, as the device's method does).
  Status syevd_dev(char jobz, char uplo, int64_t n, double *a, int64_t lda, double *w, int *info,
                   void *) override {
    Status s = syevd(jobz, uplo, n, a, lda, w);
    if (s) *info = 0;
    return s;
  }
  // The host path's syevx on the caller's (host) arrays: the whole spectrum by syevd (A then
  // holds the vectors, copied into Z), a subset by syevx. A NaN or Inf in A: `unsafe`, as the
  // device's reduction finds it.
  Status syevx_dev(char jobz, char range, char uplo, int64_t n, double *a, int64_t lda, double vl, double vu,
                   int il, int iu, double abstol, int *m, double *w, double *z, int64_t ldz, int *ifail, int *info,
                   void *) override {
    const double amax = scaling::triangle_max(uplo, int(n), a, lda);
    if (!std::isfinite(amax)) return Status::fail(Status::unsafe, "A holds NaN or Inf entries: solved by LAPACK");
    const bool wantz = jobz == 'V';
    Status s;
    if (range == 'V' && scaling::dsyevx_collapses(amax, vl, vu)) {
      *m = 0;
    } else if (range == 'A' || (range == 'I' && il == 1 && iu == n)) {
      if (!(s = syevd(jobz, uplo, n, a, lda, w))) return s;
      if (wantz) copy_columns(n, n, a, lda, z, ldz);
      *m = int(n);
    } else if (!(s = syevx(jobz, range, uplo, n, a, lda, vl, vu, il, iu, abstol, m, w, z, ldz))) {
      return s;
    }
    if (wantz) std::fill_n(ifail, *m, 0);
    *info = 0;
    return s;
  }
  // The host path's sytrd on the caller's (host) arrays: A is only read there too.
  Status sytrd_dev(char vect, char uplo, int64_t n, const double *a, int64_t lda, double *d,
                   double *e, double *q, int64_t ldq, int *info, void *) override {
    Status s = sytrd(vect, uplo, n, const_cast<double *>(a), lda, d, e, q, ldq);
    if (s) *info = 0;
    return s;
  }
  Status download_matrix(double *host, int64_t ldh, const double *dev, int64_t ldd, int64_t rows,
                         int64_t cols, void *) override {
    Status s = start(false);
    if (s) copy_columns(rows, cols, dev, ldd, host, ldh);
    return s;
  }
  Status upload_matrix(double *dev, int64_t ldd, const double *host, int64_t ldh, int64_t rows,
                       int64_t cols, void *) override {
    Status s = start(false);
    if (s) copy_columns(rows, cols, host, ldh, dev, ldd);
    return s;
  }

  // The host calls' contracts, in place (stebz and stein write their outputs only on success).
  Status stebz_dev(char range, char order, int n, double vl, double vu, int il, int iu, double abstol,
                   const double *d, const double *e, int *m, int *nsplit, double *w, int *iblock, int *isplit,
                   int *info, void *) override {
    return stebz(range, order, n, vl, vu, il, iu, abstol, d, e, m, nsplit, w, iblock, isplit, info);
  }
  Status stein_dev(int n, const double *d, const double *e, int m, const double *w, const int *iblock,
                   const int *isplit, double *z, int64_t ldz, int *ifail, int *info, void *) override {
    return stein(n, d, e, m, w, iblock, isplit, z, int(ldz), ifail, info);
  }
  Status download_arrays(const std::vector<ToHost> &pieces, void *) override {
    Status s = start(false);
    if (s)
      for (const ToHost &p : pieces) std::memcpy(p.host, p.dev, p.bytes);
    return s;
  }
  Status upload_arrays(const std::vector<ToDevice> &pieces, void *) override {
    Status s = start(false);
    if (s)
      for (const ToDevice &p : pieces) std::memcpy(p.dev, p.host, p.bytes);
    return s;
  }

  Status zero_info(int *info, void *) override {
    Status s = start(false);
    if (s) *info = 0;
    return s;
  }

  Status stebz(char range, char order, int n, double vl, double vu, int il, int iu, double abstol,
               const double *d, const double *e, int *m, int *nsplit, double *w, int *iblock,
               int *isplit, int *info) override {
    Status s = start(false);
    if (!s) return s;
    int mm = 0, ns = 0;
    std::vector<double> ww(n);
    std::vector<int> ib(n), is(n);
    const int i = cpu::stebz(range, order, n, vl, vu, il, iu, abstol, d, e, &mm, &ns, ww.data(),
                             ib.data(), is.data());
    if (i < 0) return Status::fail(Status::device_error, "fake device: LAPACK unavailable");
    if (download_fails()) return Status::fail(Status::device_error, why_lost());
    *m = mm;
    *nsplit = ns;
    std::copy(ww.begin(), ww.begin() + mm, w);
    std::copy(ib.begin(), ib.begin() + mm, iblock);
    std::copy(is.begin(), is.begin() + ns, isplit);
    *info = i;
    return Status::success();
  }

  // The structured method's evaluations on the host (the same elimination as the CPU path's).
  Status toeplitz_inertia(int64_t n, const double *t, const InertiaUse &use, int64_t *bytes) override {
    Status s = start(false);
    if (!s) return s;
    *bytes = 0;
    const structured::CauchyForm form = structured::cauchy_form(n, t);
    const structured::Evaluate host = structured::host_evaluator(form);
    InertiaSource source;
    source.batch = [&](const std::vector<InertiaTask> &tasks, std::vector<ToeplitzInertia> &out) {
      if (download_fails()) return Status::fail(Status::device_error, why_lost());
      return host(tasks, out);
    };
    const gpu::BasisBatch bases = structured::host_basis(form);
    source.basis = [&](const std::vector<BasisTask> &tasks, std::vector<HalfBasis> &out) {
      if (download_fails()) return Status::fail(Status::device_error, why_lost());
      return bases(tasks, out);
    };
    source.slots = structured::host_slots();
    for (int h = 0; h < 2; ++h) source.diagonal[h] = structured::diagonal_of(form, h);
    return use(source);
  }

  Status toeplitz_tridiagonals(int64_t n, const double *t, ToeplitzHalves *halves,
                               const std::function<Status(int)> &then) override {
    Status s = start(false);
    if (!s) return s;
    ToeplitzHalves h[2];
    const int i = cpu::toeplitz_tridiagonals(int(n), t, h);
    if (i != 0) return Status::fail(Status::device_error, "fake device: LAPACK failed");
    if (download_fails()) return Status::fail(Status::device_error, why_lost());
    for (int k = 0; k < 2; ++k) {
      halves[k] = std::move(h[k]);
      if (then && !(s = then(k))) return s;
    }
    return Status::success();
  }

 private:
  // The faults a device call meets before its results come back, in the hardware's order.
  Status start(bool uses_blas) {
    if (!available()) return Status::fail(Status::unavailable, unavailable_reason());
    if (fault::fires(fault::Kind::alloc))
      return Status::fail(Status::device_error, "cudaMallocAsync: out of memory (injected)");
    if (uses_blas && fault::fires(fault::Kind::blas))
      return Status::fail(Status::device_error,
                          "cublasCreate: CUBLAS_STATUS_NOT_INITIALIZED (injected)");
    if (fault::fires(fault::Kind::launch))
      return Status::fail(Status::device_error,
                          "kernel launch: too many resources requested for launch (injected)");
    if (fault::fires(fault::Kind::lost)) {
      lose("kernel launch: an illegal memory access was encountered (injected)");
      return Status::fail(Status::device_error, why_lost());
    }
    return Status::success();
  }

  bool download_fails() {
    if (!fault::fires(fault::Kind::download)) return false;
    lose("download: unspecified launch failure (injected)");
    return true;
  }

  void lose(const char *why) {
    std::lock_guard<std::mutex> lock(m_);
    if (!lost_.exchange(true)) lost_why_ = why;
  }
  std::string why_lost() {
    std::lock_guard<std::mutex> lock(m_);
    return lost_why_;
  }

  std::atomic<bool> lost_{false};
  std::mutex m_;
  std::string lost_why_;
};

}  // namespace

Device &fake_device() {
  static Fake f;
  return f;
}

}  // namespace gpueig::gpu
