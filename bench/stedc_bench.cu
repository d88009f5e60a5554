// The tridiagonal eigenvector step alone (issue 21's row): all eigenpairs of a random symmetric
// tridiagonal matrix by the library's divide and conquer on the device (cuda/stedc.hpp,
// device-resident, CUDA events) beside LAPACK's DSTEDC and DSTEMR on the host's CPU (OpenBLAS's
// threads, host wall time) in the same process.
#include <cublas_v2.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "bench.hpp"
#include "gpueig.h"
#include "lapack_ref.hpp"
#include "ratios.hpp"
#include "stedc.hpp"

extern "C" {
void dstedc_(const char *compz, const int *n, double *d, double *e, double *z, const int *ldz,
             double *work, const int *lwork, int *iwork, const int *liwork, int *info, size_t);
void dstemr_(const char *jobz, const char *range, const int *n, double *d, double *e,
             const double *vl, const double *vu, const int *il, const int *iu, int *m, double *w,
             double *z, const int *ldz, const int *nzc, int *isuppz, int *tryrac, double *work,
             const int *lwork, int *iwork, const int *liwork, int *info, size_t, size_t);
void dstein_(const int *n, const double *d, const double *e, const int *m, const double *w, const int *iblock,
             const int *isplit, double *z, const int *ldz, double *work, int *iwork, int *ifail, int *info);
}

namespace bench {
namespace {

using Vec = std::vector<double>;

// The symmetric tridiagonal (d, e) with entries uniform in [-1, 1] from `seed`.
void random_tridiagonal(int n, uint64_t seed, Vec *d, Vec *e) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  d->resize(n);
  e->resize(n - 1);
  for (auto &x : *d) x = u(g);
  for (auto &x : *e) x = u(g);
}

double lapack_stedc_ms(const Vec &d0, const Vec &e0, int n, Vec *w) {
  Vec d = d0, e = e0, z(size_t(n) * n);
  int lwork = -1, liwork = -1, iq = 0, info = 0;
  double q = 0;
  dstedc_("I", &n, d.data(), e.data(), z.data(), &n, &q, &lwork, &iq, &liwork, &info, 1);
  lwork = int(q);
  liwork = iq;
  Vec work(lwork);
  std::vector<int> iwork(liwork);
  const double ms = host_ms(0, [&] { d = d0, e = e0; }, [&] {
    dstedc_("I", &n, d.data(), e.data(), z.data(), &n, work.data(), &lwork, iwork.data(), &liwork, &info, 1);
  });
  *w = d;
  return info == 0 ? ms : -1;
}

double lapack_stemr_ms(const Vec &d0, const Vec &e0, int n) {
  Vec d = d0, e(e0), w(n), z(size_t(n) * n);
  e.push_back(0);  // DSTEMR's E has N entries
  std::vector<int> isuppz(2 * n);
  int m = 0, tryrac = 1, info = 0, lwork = -1, liwork = -1, iq = 0, zero = 0;
  double q = 0, vzero = 0;
  dstemr_("V", "A", &n, d.data(), e.data(), &vzero, &vzero, &zero, &zero, &m, w.data(), z.data(), &n, &n,
          isuppz.data(), &tryrac, &q, &lwork, &iq, &liwork, &info, 1, 1);
  lwork = int(q);
  liwork = iq;
  Vec work(lwork);
  std::vector<int> iwork(liwork);
  Vec e1 = e;
  const double ms = host_ms(0, [&] { d = d0, e1 = e, tryrac = 1; }, [&] {
    dstemr_("V", "A", &n, d.data(), e1.data(), &vzero, &vzero, &zero, &zero, &m, w.data(), z.data(), &n,
            &n, isuppz.data(), &tryrac, work.data(), &lwork, iwork.data(), &liwork, &info, 1, 1);
  });
  return info == 0 ? ms : -1;
}

}  // namespace

void bench_stedc(cudaStream_t stream, bool quick) {
  cublasHandle_t blas;
  LIB_OK(cublasCreate(&blas), CUBLAS_STATUS_SUCCESS, "cuBLAS");
  std::vector<int> sizes = {1024, 4096, 8192};
  if (quick) sizes = {1024, 4096};
  for (int n : sizes) {
    Vec d0, e0;
    random_tridiagonal(n, 4000 + n, &d0, &e0);
    double *dd, *de, *dz;
    void *work;
    CUDA_OK(cudaMalloc(&dd, n * sizeof(double)));
    CUDA_OK(cudaMalloc(&de, n * sizeof(double)));
    CUDA_OK(cudaMalloc(&dz, size_t(n) * n * sizeof(double)));
    CUDA_OK(cudaMalloc(&work, gpueig::gpu::stedc_device_bytes(n)));
    int info = 0;
    const double ours = device_ms(stream, 3, [&] {
      CUDA_OK(cudaMemcpy(dd, d0.data(), n * sizeof(double), cudaMemcpyHostToDevice));
      CUDA_OK(cudaMemcpy(de, e0.data(), (n - 1) * sizeof(double), cudaMemcpyHostToDevice));
    }, [&] {
      if (!gpueig::gpu::stedc_device(blas, stream, n, dd, de, dz, n, work, &info) || info != 0) {
        std::fprintf(stderr, "stedc_device failed (n = %d, info %d)\n", n, info);
        std::exit(2);
      }
    });
    Vec w(n), z(size_t(n) * n), wl;
    CUDA_OK(cudaMemcpy(w.data(), dd, n * sizeof(double), cudaMemcpyDeviceToHost));
    CUDA_OK(cudaMemcpy(z.data(), dz, z.size() * sizeof(double), cudaMemcpyDeviceToHost));
    const double ratio = ratios::tridiagonal_residual(n, d0.data(), e0.data(), n, w.data(), z.data(), n);
    const double stedc = lapack_stedc_ms(d0, e0, n, &wl), stemr = lapack_stemr_ms(d0, e0, n);
    double dist = 0;
    for (int i = 0; i < n; ++i) dist = std::max(dist, std::fabs(w[i] - wl[i]));
    std::printf("stedc n=%d: device %.2f ms (residual ratio %.2f, max |w - dstedc's w| %.2e); LAPACK "
                "dstedc %.2f ms, dstemr %.2f ms (CPU)\n", n, ours, ratio, dist, stedc, stemr);
    g_rows.push_back({"stedc", "random tridiagonal, all eigenpairs", "device", n, "gpu", ours,
                      "LAPACK dstedc (CPU)", stedc, ratio, 0, 0});
    g_rows.push_back({"stedc", "random tridiagonal, all eigenpairs", "device", n, "gpu", ours,
                      "LAPACK dstemr (CPU)", stemr, ratio, 0, 0});
    cudaFree(dd), cudaFree(de), cudaFree(dz), cudaFree(work);
  }
  cublasDestroy(blas);
}

void bench_stein(bool quick) {
  std::vector<int> sizes = {32, 64, 128, 256, 512, 1024, 2048, 4096, 8192};
  if (quick) sizes = {128, 512, 2048};
  for (int n : sizes) {
    Vec d, e;
    random_tridiagonal(n, 5000 + n, &d, &e);
    for (const bool all : {true, false}) {
      if (all && n > 2048) continue;  // DSTEIN chains the whole spectrum: 1.9 s at 4096
      // The eigenvalues by DSTEBZ (ORDER 'B', as DSTEIN wants them): all, or the smallest 1%.
      const int il = 1, iu = all ? n : std::max(1, n / 100);
      const double vl = 0, vu = 0, abstol = 0;
      int m = 0, nsplit = 0, info = 0;
      Vec w(n), work(4 * n);
      std::vector<int> iblock(n), isplit(n), iwork(3 * n);
      dstebz_("I", "B", &n, &vl, &vu, &il, &iu, &abstol, d.data(), e.data(), &m, &nsplit, w.data(), iblock.data(),
              isplit.data(), work.data(), iwork.data(), &info, 1, 1);
      if (info != 0) continue;
      Vec z(size_t(n) * m), wk(5 * n);
      std::vector<int> ifail(m), iw(n);
      gpueig_set_backend("gpu");
      const double ours = host_ms(3, [] {}, [&] {
        info = gpu_stein(n, d.data(), e.data(), m, w.data(), iblock.data(), isplit.data(), z.data(), n, ifail.data());
      });
      const std::string backend = info == 0 ? gpueig_last_backend() : "FAILED";
      const double ours_ratio = ratios::tridiagonal_residual(n, d.data(), e.data(), m, w.data(), z.data(), n);
      gpueig_set_backend("auto");
      const double theirs = host_ms(all && n >= 1024 ? 0 : 3, [] {}, [&] {
        dstein_(&n, d.data(), e.data(), &m, w.data(), iblock.data(), isplit.data(), z.data(), &n, wk.data(),
                iw.data(), ifail.data(), &info);
      });
      const double their_ratio = ratios::tridiagonal_residual(n, d.data(), e.data(), m, w.data(), z.data(), n);
      std::printf("  stein: n=%5d m=%5d  gpu_stein %9.3f ms  DSTEIN %9.3f ms  (GPU / DSTEIN %.2f)\n", n, m, ours,
                  theirs, ours / theirs);
      g_rows.push_back({"stein", all ? "random, all vectors" : "random, smallest 1%", "host", n, backend, ours,
                        "LAPACK dstein", theirs, ours_ratio, their_ratio, 0});
    }
  }
}

}  // namespace bench
