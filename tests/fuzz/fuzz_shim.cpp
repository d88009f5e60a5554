// The names libgpueig_lapack.so exports (src/lapack_shim.map): dgtsv_, dgetrf_, dgesv_, dgetrs_,
// dstebz_, dsterf_, dsyev_, dsyevd_, dsyevx_, dsyevr_, and for the ILP64 family (64-bit INTEGER, the same template
// code as every other family) scipy_dgesv_64_, called with LAPACK's Fortran ABI (everything by reference, hidden CHARACTER
// lengths as size_t, as src/lapack_shim.cpp declares them). The first input byte picks the name.
// This executable links libgpueig_lapack.so directly, so these names resolve to the shim; the
// real LAPACK's definitions (from GPUEIG_LAPACK_SONAME by dlsym on its handle) give the reference.
// GPUEIG_SHIM=serve (set in LLVMFuzzerInitialize unless the environment says otherwise) makes the
// shim serve every call it can through libgpueig.
//
// Arrays per LAPACK's documentation: dgtsv DL (N-1), D (N), DU (N-1), B (LDB, NRHS); dgetrf
// A (LDA, N), IPIV (min(M,N)); dstebz D (N), E (N-1), W, IBLOCK, ISPLIT (N), WORK (4N),
// IWORK (3N); dsterf D (N), E (N-1); dsyev A (LDA, N), W (N), WORK (max(1, LWORK)); dsyevd also
// IWORK (max(1, LIWORK)). Scalars and CHARACTER arguments are single-element heap cells.
// dgesv A (LDA, N), IPIV (N), B (LDB, NRHS); dgetrs the same with IPIV valid (1..N: DGETRS
// itself reads and writes outside B with others, with or without the shim).
// Properties: INFO < 0 from the shim exactly when LAPACK gives INFO < 0, with the same value, the
// call reported through XERBLA once with that argument, and no array written; dgtsv_ and (finite
// A) dgetrf_ return LAPACK's INFO exactly, and dgetrf_ its IPIV; dstebz_ LAPACK's INFO, M, NSPLIT
// and ISPLIT; dsyev_/dsyevd_ with JOBZ = 'N' and INFO = 0: W within 64 N eps max|W| of LAPACK's,
// WORK(1) (and IWORK(1)) as LAPACK reports them; dgesv_ (finite A with finite factors, NRHS > 0:
// OpenBLAS's DGESV does not factor for NRHS = 0, Reference LAPACK's does) LAPACK's INFO and IPIV;
// dgetrs_ DGETRS's X bit for bit; scipy_dgesv_64_ either dgesv_'s answer or, where it forwards
// (no LAPACK here defines that name), GPUEIG_ERR_LAPACK with nothing written.
#include <dlfcn.h>

#include <cstdint>

#include <algorithm>

#include <climits>

#include "fuzz_common.hpp"

extern "C" {
void dgtsv_(const int *, const int *, double *, double *, double *, double *, const int *, int *);
void dgetrf_(const int *, const int *, double *, const int *, int *, int *);
void dstebz_(const char *, const char *, const int *, const double *, const double *, const int *,
             const int *, const double *, const double *, const double *, int *, int *, double *,
             int *, int *, double *, int *, int *, size_t, size_t);
void dsterf_(const int *, double *, double *, int *);
void dgesv_(const int *, const int *, double *, const int *, int *, double *, const int *, int *);
void dgetrs_(const char *, const int *, const int *, const double *, const int *, const int *,
             double *, const int *, int *, size_t);
void scipy_dgesv_64_(const int64_t *, const int64_t *, double *, const int64_t *, int64_t *,
                     double *, const int64_t *, int64_t *);
void dsyev_(const char *, const char *, const int *, double *, const int *, double *, double *,
            const int *, int *, size_t, size_t);
void dsyevd_(const char *, const char *, const int *, double *, const int *, double *, double *,
             const int *, int *, const int *, int *, size_t, size_t);
void dsyevx_(const char *, const char *, const char *, const int *, double *, const int *, const double *,
             const double *, const int *, const int *, const double *, int *, double *, double *, const int *,
             double *, const int *, int *, int *, int *, size_t, size_t, size_t);
void dsyevr_(const char *, const char *, const char *, const int *, double *, const int *, const double *,
             const double *, const int *, const int *, const double *, int *, double *, double *, const int *,
             int *, double *, const int *, int *, const int *, int *, size_t, size_t, size_t);
}

using namespace fuzz;

namespace {

template <class F>
F real(const char *name) {
  return reinterpret_cast<F>(real_lapack(name));
}

// A heap cell holding one scalar argument.
template <class T>
struct Cell {
  Buf<T> b;
  Cell(const char *name, T v) : b(name, 1) { b[0] = v; }
  T *p() { return b.data(); }
  T v() const { return b[0]; }
};

// The shim's INFO against LAPACK's: argument errors identical (and reported by XERBLA once),
// neither side an argument error where the other is. `xerbla` is the shim call's record.
void compare_info(const char *name, int info, int rinfo, const XerblaRecord &x) {
  FUZZ_CHECK(info != GPUEIG_ERR_INTERNAL && info != GPUEIG_ERR_LAPACK && info != GPUEIG_ERR_MEMORY &&
                 info != GPUEIG_ERR_DEVICE,
             "%s returned library code %d", name, info);
  FUZZ_CHECK((info < 0) == (rinfo < 0) && (info >= 0 || info == rinfo),
             "%s INFO %d, LAPACK's %d", name, info, rinfo);
  if (info < 0)
    FUZZ_CHECK(x.calls == 1 && x.info == -info, "%s INFO %d: XERBLA called %d times (last with %d, %s)",
               name, info, x.calls, x.info, x.name);
  else
    FUZZ_CHECK(x.calls == 0, "%s INFO %d: XERBLA called for %s argument %d", name, info, x.name, x.info);
}

void copy_into(Buf<double> &dst, const std::vector<double> &src) { std::copy(src.begin(), src.end(), dst.data()); }

int lwork_for(Input &in, long long minimum) {
  const uint8_t b = in.u8();
  switch (b % 8) {
    case 0: return -1;  // workspace query
    case 1: return static_cast<int>(minimum) - 1;
    case 2: return static_cast<int>(minimum) - 1 - in.in(0, 40);
    case 3: return 0;
    case 4: return static_cast<int>(minimum) + 64 * 48;
    default: return static_cast<int>(minimum) + in.in(0, 5);
  }
}

void fuzz_dgtsv(Input &in) {
  const int n = in.size(), nrhs = in.size(6), ldb = in.ld(n);
  Cell<int> cn("N", n), cnrhs("NRHS", nrhs), cldb("LDB", ldb), cinfo("INFO", kUnwritten);
  Buf<double> dl("DL", elems_m1(n)), d("D", elems(n)), du("DU", elems_m1(n)), b("B", elems(ldb, nrhs));
  fill(in, dl), fill(in, d), fill(in, du), fill(in, b);
  const auto dl0 = dl.snapshot(), d0 = d.snapshot(), du0 = du.snapshot(), b0 = b.snapshot();
  reset_xerbla();
  dgtsv_(cn.p(), cnrhs.p(), dl.data(), d.data(), du.data(), b.data(), cldb.p(), cinfo.p());
  const XerblaRecord x = xerbla_record();
  Buf<double> rdl("ref DL", dl.size()), rd("ref D", d.size()), rdu("ref DU", du.size()),
      rb("ref B", nrhs == 0 && n > 0 ? elems(n) : b.size());  // DGTSV writes B(1:N,1) even for NRHS = 0
  copy_into(rdl, dl0), copy_into(rd, d0), copy_into(rdu, du0), copy_into(rb, b0);
  int rinfo = 0;
  reset_xerbla();
  real<decltype(&dgtsv_)>("dgtsv_")(&n, &nrhs, rdl.data(), rd.data(), rdu.data(), rb.data(), &ldb, &rinfo);
  compare_info("dgtsv_", cinfo.v(), rinfo, x);
  FUZZ_CHECK(cinfo.v() == rinfo, "dgtsv_ INFO %d, LAPACK's %d (n=%d nrhs=%d)", cinfo.v(), rinfo, n, nrhs);
  if (rinfo < 0)
    FUZZ_CHECK(dl.same_as(dl0) && d.same_as(d0) && du.same_as(du0) && b.same_as(b0), "dgtsv_ wrote with INFO %d", rinfo);
}

void fuzz_dgetrf(Input &in) {
  const int m = in.size(), n = in.size(), lda = in.ld(m), k = std::min(m, n);
  Cell<int> cm("M", m), cn("N", n), clda("LDA", lda), cinfo("INFO", kUnwritten);
  Buf<double> a("A", elems(lda, n));
  Buf<int> ipiv("IPIV", elems(k));
  fill(in, a), fill(in, ipiv);
  const auto a0 = a.snapshot();
  const auto ipiv0 = ipiv.snapshot();
  reset_xerbla();
  dgetrf_(cm.p(), cn.p(), a.data(), clda.p(), ipiv.data(), cinfo.p());
  const XerblaRecord x = xerbla_record();
  Buf<double> ra("ref A", a.size());
  Buf<int> ripiv("ref IPIV", ipiv.size());
  copy_into(ra, a0);
  int rinfo = 0;
  reset_xerbla();
  real<decltype(&dgetrf_)>("dgetrf_")(&m, &n, ra.data(), &lda, ripiv.data(), &rinfo);
  compare_info("dgetrf_", cinfo.v(), rinfo, x);
  if (rinfo < 0) {
    FUZZ_CHECK(a.same_as(a0) && ipiv.same_as(ipiv0), "dgetrf_ wrote with INFO %d", rinfo);
    return;
  }
  // A finite A whose factors are finite too (OpenBLAS's DGETRF turns a subnormal pivot into NaN
  // factors, and its pivots then depend on LDA): INFO and IPIV as LAPACK's.
  if (!all_finite(a0.data(), static_cast<long long>(a0.size())) ||
      !all_finite(ra.data(), static_cast<long long>(ra.size())))
    return;
  FUZZ_CHECK(cinfo.v() == rinfo, "dgetrf_ INFO %d, LAPACK's %d (m=%d n=%d)", cinfo.v(), rinfo, m, n);
  for (int i = 0; i < k; ++i)
    FUZZ_CHECK(ipiv[i] == ripiv[i], "dgetrf_ IPIV(%d) = %d, LAPACK's %d", i + 1, ipiv[i], ripiv[i]);
}

// dgesv_, or (ilp64) scipy_dgesv_64_ with the same values as 64-bit INTEGERs.
void fuzz_dgesv(Input &in, bool ilp64) {
  const int n = in.size(), nrhs = in.size(6), lda = in.ld(n), ldb = in.ld(n);
  Buf<double> a("A", elems(lda, n)), b("B", elems(ldb, nrhs));
  Buf<int> ipiv("IPIV", elems(n));
  Buf<int64_t> ipiv64("IPIV", elems(n));
  fill(in, a), fill(in, b), fill(in, ipiv);
  for (size_t i = 0; i < ipiv.size(); ++i) ipiv64[i] = ipiv[i];
  const auto a0 = a.snapshot(), b0 = b.snapshot();
  const auto ipiv0 = ipiv.snapshot();
  const auto ipiv640 = ipiv64.snapshot();
  reset_xerbla();
  int info = kUnwritten;
  if (ilp64) {
    Cell<int64_t> cn("N", n), cnrhs("NRHS", nrhs), clda("LDA", lda), cldb("LDB", ldb),
        cinfo("INFO", kUnwritten);
    scipy_dgesv_64_(cn.p(), cnrhs.p(), a.data(), clda.p(), ipiv64.data(), b.data(), cldb.p(),
                    cinfo.p());
    info = static_cast<int>(cinfo.v());
    FUZZ_CHECK(cinfo.v() == info, "scipy_dgesv_64_ INFO %lld", static_cast<long long>(cinfo.v()));
    for (size_t i = 0; i < ipiv.size(); ++i) ipiv[i] = static_cast<int>(ipiv64[i]);
    if (info == GPUEIG_ERR_LAPACK) {  // forwarded to a name no LAPACK here defines
      FUZZ_CHECK(a.same_as(a0) && b.same_as(b0) && ipiv64.same_as(ipiv640),
                 "scipy_dgesv_64_ wrote before it forwarded");
      return;
    }
  } else {
    Cell<int> cn("N", n), cnrhs("NRHS", nrhs), clda("LDA", lda), cldb("LDB", ldb),
        cinfo("INFO", kUnwritten);
    dgesv_(cn.p(), cnrhs.p(), a.data(), clda.p(), ipiv.data(), b.data(), cldb.p(), cinfo.p());
    info = cinfo.v();
  }
  const XerblaRecord x = xerbla_record();
  const char *name = ilp64 ? "scipy_dgesv_64_" : "dgesv_";
  Buf<double> ra("ref A", a.size()), rb("ref B", b.size());
  Buf<int> ripiv("ref IPIV", ipiv.size());
  copy_into(ra, a0), copy_into(rb, b0);
  int rinfo = 0;
  reset_xerbla();
  real<decltype(&dgesv_)>("dgesv_")(&n, &nrhs, ra.data(), &lda, ripiv.data(), rb.data(), &ldb, &rinfo);
  if (ilp64) {  // served: no argument error (it would have been forwarded), nothing for XERBLA
    FUZZ_CHECK(rinfo >= 0, "%s INFO %d where LAPACK reports argument %d", name, info, -rinfo);
  } else {
    compare_info(name, info, rinfo, x);
  }
  if (rinfo < 0) {
    FUZZ_CHECK(a.same_as(a0) && b.same_as(b0) && ipiv.same_as(ipiv0), "%s wrote with INFO %d", name, rinfo);
    return;
  }
  if (nrhs == 0 || !all_finite(a0.data(), static_cast<long long>(a0.size())) ||
      !all_finite(ra.data(), static_cast<long long>(ra.size())))
    return;
  FUZZ_CHECK(info == rinfo, "%s INFO %d, LAPACK's %d (n=%d nrhs=%d)", name, info, rinfo, n, nrhs);
  for (int i = 0; i < n; ++i)
    FUZZ_CHECK(ipiv[i] == ripiv[i], "%s IPIV(%d) = %d, LAPACK's %d", name, i + 1, ipiv[i], ripiv[i]);
}

void fuzz_dgetrs(Input &in) {
  const char trans = in.option("NTC");
  const int n = in.size(), nrhs = in.size(6), lda = in.ld(n), ldb = in.ld(n);
  Cell<char> ctrans("TRANS", trans);
  Cell<int> cn("N", n), cnrhs("NRHS", nrhs), clda("LDA", lda), cldb("LDB", ldb), cinfo("INFO", kUnwritten);
  Buf<double> a("A", elems(lda, n)), b("B", elems(ldb, nrhs));
  Buf<int> ipiv("IPIV", elems(n));
  fill(in, a), fill(in, b);
  for (size_t i = 0; i < ipiv.size(); ++i) ipiv[i] = int(i) + 1 + in.in(0, 255) % (n - int(i));
  const auto a0 = a.snapshot(), b0 = b.snapshot();
  if (verbose()) std::fprintf(stderr, "dgetrs_(TRANS=%d N=%d NRHS=%d LDA=%d LDB=%d)\n", trans, n, nrhs, lda, ldb);
  reset_xerbla();
  dgetrs_(ctrans.p(), cn.p(), cnrhs.p(), a.data(), clda.p(), ipiv.data(), b.data(), cldb.p(), cinfo.p(), 1);
  const XerblaRecord x = xerbla_record();
  Buf<double> rb("ref B", b.size());
  copy_into(rb, b0);
  int rinfo = kUnwritten;
  reset_xerbla();
  real<decltype(&dgetrs_)>("dgetrs_")(&trans, &n, &nrhs, a0.data(), &lda, ipiv.data(), rb.data(), &ldb, &rinfo, 1);
  if (rinfo == kUnwritten) {
    // OpenBLAS's DGETRS reports an illegal argument through XERBLA without writing INFO (the
    // Reference writes INFO first): the forwarded call must do exactly the same.
    FUZZ_CHECK(cinfo.v() == kUnwritten && x.calls == 1 && xerbla_record().calls == 1 &&
                   x.info == xerbla_record().info,
               "dgetrs_ INFO %d, XERBLA %d (argument %d); LAPACK left INFO, XERBLA argument %d",
               cinfo.v(), x.calls, x.info, xerbla_record().info);
    FUZZ_CHECK(b.same_as(b0) && a.same_as(a0), "dgetrs_ wrote with an illegal argument");
    return;
  }
  compare_info("dgetrs_", cinfo.v(), rinfo, x);
  FUZZ_CHECK(a.same_as(a0), "dgetrs_ wrote A");
  FUZZ_CHECK(std::memcmp(rb.data(), b.data(), b.size() * sizeof(double)) == 0,
             "dgetrs_ X differs from DGETRS's (n=%d nrhs=%d TRANS=%c INFO %d)", n, nrhs, trans, rinfo);
}

void fuzz_dstebz(Input &in) {
  const char range = in.option("AVI"), order = in.option("BE");
  const int n = in.size(), il = in.index(n), iu = in.index(n);
  const double vl = in.dbl(), vu = in.dbl(), abstol = in.dbl();
  Cell<char> crange("RANGE", range), corder("ORDER", order);
  Cell<int> cn("N", n), cil("IL", il), ciu("IU", iu), cm("M", kUnwritten), cns("NSPLIT", kUnwritten),
      cinfo("INFO", kUnwritten);
  Cell<double> cvl("VL", vl), cvu("VU", vu), cabstol("ABSTOL", abstol);
  Buf<double> d("D", elems(n)), e("E", elems_m1(n)), w("W", elems(n)), work("WORK", 4 * elems(n));
  Buf<int> iblock("IBLOCK", elems(n)), isplit("ISPLIT", elems(n)), iwork("IWORK", 3 * elems(n));
  fill(in, d), fill(in, e);
  const auto d0 = d.snapshot(), e0 = e.snapshot(), w0 = w.snapshot();
  if (verbose()) {
    std::fprintf(stderr, "dstebz_('%c', '%c', n=%d, vl=%.17g, vu=%.17g, il=%d, iu=%d, abstol=%.17g)\n", range,
                 order, n, vl, vu, il, iu, abstol);
    dump("D", d.data(), d.size()), dump("E", e.data(), e.size());
  }
  if (n > 0 && known_stebz_iblock0(range, n, d.data(), e.data())) return;  // K1
  reset_xerbla();
  dstebz_(crange.p(), corder.p(), cn.p(), cvl.p(), cvu.p(), cil.p(), ciu.p(), cabstol.p(), d.data(),
          e.data(), cm.p(), cns.p(), w.data(), iblock.data(), isplit.data(), work.data(), iwork.data(),
          cinfo.p(), 1, 1);
  const XerblaRecord x = xerbla_record();
  FUZZ_CHECK(d.same_as(d0) && e.same_as(e0), "dstebz_ changed D or E");
  int rm = kUnwritten, rns = kUnwritten, rinfo = 0;
  Buf<double> rw("ref W", w.size()), rwork("ref WORK", work.size());
  Buf<int> rib("ref IBLOCK", iblock.size()), ris("ref ISPLIT", isplit.size()), riwork("ref IWORK", iwork.size());
  reset_xerbla();
  real<decltype(&dstebz_)>("dstebz_")(&range, &order, &n, &vl, &vu, &il, &iu, &abstol, d0.data(),
                                      e0.data(), &rm, &rns, rw.data(), rib.data(), ris.data(),
                                      rwork.data(), riwork.data(), &rinfo, 1, 1);
  compare_info("dstebz_", cinfo.v(), rinfo, x);
  if (rinfo < 0) {
    FUZZ_CHECK(cm.v() == kUnwritten && cns.v() == kUnwritten && w.same_as(w0), "dstebz_ wrote with INFO %d", rinfo);
    return;
  }
  FUZZ_CHECK(cinfo.v() == rinfo && cm.v() == rm && cns.v() == rns,
             "dstebz_ INFO %d M %d NSPLIT %d, LAPACK's %d %d %d (n=%d RANGE=%c ORDER=%c)", cinfo.v(),
             cm.v(), cns.v(), rinfo, rm, rns, n, range, order);
  for (int i = 0; i < rns && i < n; ++i)
    FUZZ_CHECK(isplit[i] == ris[i], "dstebz_ ISPLIT(%d) = %d, LAPACK's %d", i + 1, isplit[i], ris[i]);
}

void fuzz_dsterf(Input &in) {
  const int n = in.size();
  Cell<int> cn("N", n), cinfo("INFO", kUnwritten);
  Buf<double> d("D", elems(n)), e("E", elems_m1(n));
  fill(in, d), fill(in, e);
  const auto d0 = d.snapshot(), e0 = e.snapshot();
  if (verbose()) std::fprintf(stderr, "dsterf_(n=%d)\n", n);
  dump("D", d.data(), d.size()), dump("E", e.data(), e.size());
  reset_xerbla();
  dsterf_(cn.p(), d.data(), e.data(), cinfo.p());
  const XerblaRecord x = xerbla_record();
  Buf<double> rd("ref D", d.size()), re("ref E", e.size());
  copy_into(rd, d0), copy_into(re, e0);
  int rinfo = 0;
  reset_xerbla();
  real<decltype(&dsterf_)>("dsterf_")(&n, rd.data(), re.data(), &rinfo);
  compare_info("dsterf_", cinfo.v(), rinfo, x);
  if (rinfo < 0) {
    FUZZ_CHECK(d.same_as(d0) && e.same_as(e0), "dsterf_ wrote with INFO %d", rinfo);
    return;
  }
  // Served by bisection: the eigenvalues, ascending, as DSTERF's (moderate finite T, both INFO 0).
  if (cinfo.v() != 0 || rinfo != 0 || n <= 0) return;
  double big = 0;
  for (double v : d0) big = std::max(big, std::fabs(v));
  for (double v : e0) big = std::max(big, std::fabs(v));
  // Not beyond DSTERF's own safe range (SSFMAX ~ 4.5e153): there OpenBLAS 0.3.21's DSTERF itself
  // can be off by 1e-3 relative where bisection is right (e.g. D = (0, -7.75, -1e-310, 8.5),
  // E = (1, 1, -1.42118955e162): DSTERF -1.42378e162, exact -1.42119e162).
  if (!(big <= 1e150) || !all_finite(d0.data(), n) || !all_finite(e0.data(), n - 1)) return;
  double wmax = 0;
  for (int i = 0; i < n; ++i) wmax = std::max(wmax, std::fabs(rd[i]));
  for (int i = 0; i < n; ++i)
    // DSTERF itself is not always right (OpenBLAS 0.3.21: D = 0 0 0, E = -9.5e-162 -0.59973:
    // DSTERF gives -0.6, the exact and the served value is -0.59973; graded matrices lose 5e-10
    // relative): a disagreement is a failure only if DSTEQR (DSTEV, JOBZ = 'V') disagrees too.
    if (std::fabs(d[i] - rd[i]) > 64.0 * n * DBL_EPSILON * wmax + 1e-300) {
      using dstev_t = void (*)(const char *, const int *, double *, double *, double *, const int *,
                               double *, int *, size_t);
      static const auto dstev = real<dstev_t>("dstev_");
      std::vector<double> qd(d0), qe(e0.begin(), e0.end()), z(size_t(n) * n), work(2 * size_t(n));
      qe.resize(std::max(n, 1));
      int qinfo = 0;
      dstev("V", &n, qd.data(), qe.data(), z.data(), &n, work.data(), &qinfo, 1);
      FUZZ_CHECK(qinfo != 0 || std::fabs(d[i] - qd[i]) <= 64.0 * n * DBL_EPSILON * wmax + 1e-300,
                 "dsterf_ D(%d) = %.17g, LAPACK's DSTERF %.17g, DSTEQR %.17g (n=%d)", i + 1, d[i], rd[i],
                 qd[i], n);
    }
}

template <bool kDivideAndConquer>
void fuzz_dsyev(Input &in) {
  const char jobz = in.option("NV"), uplo = in.option("UL");
  const int n = in.size(), lda = in.ld(n);
  const bool wantz = lsame(jobz, 'V');
  long long lmin, limin = 1;
  if (kDivideAndConquer) {
    lmin = n <= 1 ? 1 : wantz ? 1 + 6LL * n + 2LL * n * n : 2LL * n + 1;
    limin = n <= 1 || !wantz ? 1 : 3 + 5LL * n;
  } else {
    lmin = std::max(1LL, 3LL * n - 1);
  }
  const int lwork = lwork_for(in, lmin), liwork = lwork_for(in, limin);
  Cell<char> cjobz("JOBZ", jobz), cuplo("UPLO", uplo);
  Cell<int> cn("N", n), clda("LDA", lda), clwork("LWORK", lwork), cliwork("LIWORK", liwork),
      cinfo("INFO", kUnwritten);
  Buf<double> a("A", elems(lda, n)), w("W", elems(n)), work("WORK", std::max(1, lwork));
  Buf<int> iwork("IWORK", std::max(1, liwork));
  fill(in, a);
  const auto a0 = a.snapshot(), w0 = w.snapshot();
  const char *name = kDivideAndConquer ? "dsyevd_" : "dsyev_";
  reset_xerbla();
  if (kDivideAndConquer)
    dsyevd_(cjobz.p(), cuplo.p(), cn.p(), a.data(), clda.p(), w.data(), work.data(), clwork.p(),
            iwork.data(), cliwork.p(), cinfo.p(), 1, 1);
  else
    dsyev_(cjobz.p(), cuplo.p(), cn.p(), a.data(), clda.p(), w.data(), work.data(), clwork.p(),
           cinfo.p(), 1, 1);
  const XerblaRecord x = xerbla_record();
  Buf<double> ra("ref A", a.size()), rw("ref W", w.size()), rwork("ref WORK", work.size());
  Buf<int> riwork("ref IWORK", iwork.size());
  copy_into(ra, a0);
  int rinfo = 0;
  reset_xerbla();
  if (kDivideAndConquer)
    real<decltype(&dsyevd_)>("dsyevd_")(&jobz, &uplo, &n, ra.data(), &lda, rw.data(), rwork.data(),
                                        &lwork, riwork.data(), &liwork, &rinfo, 1, 1);
  else
    real<decltype(&dsyev_)>("dsyev_")(&jobz, &uplo, &n, ra.data(), &lda, rw.data(), rwork.data(),
                                      &lwork, &rinfo, 1, 1);
  compare_info(name, cinfo.v(), rinfo, x);
  if (rinfo < 0) {
    FUZZ_CHECK(a.same_as(a0) && w.same_as(w0), "%s wrote A or W with INFO %d", name, rinfo);
    return;
  }
  if (cinfo.v() != 0 || rinfo != 0 || wantz || n <= 0 || lwork == -1 || liwork == -1) return;
  // WORK(1): the optimal LWORK, which the shim takes from LAPACK's workspace query. For N = 1
  // DSYEV itself returns WORK(1) = 2 after the computation but (NB+2)*N from the query: not
  // compared there (a harmless difference, noted in the report).
  if (kDivideAndConquer || n > 1)
    FUZZ_CHECK(work[0] == rwork[0], "%s WORK(1) = %.17g, LAPACK's %.17g (n=%d)", name, work[0], rwork[0], n);
  if (kDivideAndConquer) FUZZ_CHECK(iwork[0] == riwork[0], "%s IWORK(1) = %d, LAPACK's %d", name, iwork[0], riwork[0]);
  double big = 0;
  for (double v : a0) big = std::max(big, std::fabs(v));
  if (!(big <= 1e290) || !all_finite(a0.data(), static_cast<long long>(a0.size())))
    return;  // NaN, Inf, or near overflow: INFO only
  double wmax = 0;
  for (int i = 0; i < n; ++i) wmax = std::max(wmax, std::fabs(rw[i]));
  // LAPACK's JOBZ = 'N' ends in DSTERF, not always right (see fuzz_dsterf): a disagreement is a
  // failure only if JOBZ = 'V' (DSTEQR) disagrees too.
  std::vector<double> qw;
  for (int i = 0; i < n; ++i) {
    if (std::fabs(w[i] - rw[i]) <= 64.0 * n * DBL_EPSILON * wmax + 1e-300) continue;
    if (qw.empty()) {
      std::vector<double> qa(a0), work(size_t(3) * n + 64 * size_t(n));
      qw.resize(n);
      int lw = static_cast<int>(work.size()), qinfo = 0;
      real<decltype(&dsyev_)>("dsyev_")("V", &uplo, &n, qa.data(), &lda, qw.data(), work.data(), &lw,
                                        &qinfo, 1, 1);
      if (qinfo != 0) return;
    }
    FUZZ_CHECK(std::fabs(w[i] - qw[i]) <= 64.0 * n * DBL_EPSILON * wmax + 1e-300,
               "%s W(%d) = %.17g, LAPACK's %.17g, with JOBZ = 'V' %.17g (n=%d UPLO=%c)", name, i + 1,
               w[i], rw[i], qw[i], n, uplo);
  }
}

// dsyevx_ (IFAIL) or dsyevr_ (`kMrrr`: ISUPPZ, IWORK's LIWORK): INFO against LAPACK's as for
// every name; on an argument error nothing written; with INFO 0 on both sides, a finite and
// moderately scaled A and a small finite ABSTOL: M as LAPACK's where the selection is unambiguous
// (RANGE 'V': no eigenvalue within 1e-8 ||A|| of VL or VU), and W within 64 N eps max|A| of
// LAPACK's or of DSYEV's.
template <bool kMrrr>
void fuzz_dsyevx(Input &in) {
  const char jobz = in.option("NV"), range = in.option("AVI"), uplo = in.option("UL");
  const int n = in.size(), lda = in.ld(n), ldz = in.ld(n);
  const double vl = in.dbl(), vu = in.flag() ? vl + in.in(0, 40) / 4.0 : in.dbl(), abstol = in.flag() ? 0 : in.dbl();
  const int il = in.index(n);
  const int iu = in.flag() ? static_cast<int>(std::min<long long>(INT_MAX, std::max<long long>(INT_MIN, 1LL * il + in.in(-1, 8))))
                           : in.index(n);
  const bool wantz = lsame(jobz, 'V');
  const long long nn = std::max(1, n);
  const int lwork = lwork_for(in, kMrrr ? 26 * nn : (n <= 1 ? 1 : 8LL * n));
  const int liwork = kMrrr ? lwork_for(in, 10 * nn) : 5 * static_cast<int>(nn);
  // K3: LAPACK's DSYEVX and DSYEVR take a NaN VL or VU for RANGE 'V' (VU <= VL is false) and pass
  // it to DSTEBZ, which rejects it through XERBLA, and then call DSTEIN and DORMTR with the
  // garbage M it left: XERBLA three times, INFO from the last. gpu_syevx rejects such bounds, so
  // the shim forwards them and the program's LAPACK does exactly that. Not run unless FUZZ_STRICT.
  if (!strict() && lsame(range, 'V') && (std::isnan(vl) || std::isnan(vu))) return;
  Cell<char> cjobz("JOBZ", jobz), crange("RANGE", range), cuplo("UPLO", uplo);
  Cell<int> cn("N", n), clda("LDA", lda), cldz("LDZ", ldz), cil("IL", il), ciu("IU", iu), cm("M", kUnwritten),
      clwork("LWORK", lwork), cliwork("LIWORK", liwork), cinfo("INFO", kUnwritten);
  Cell<double> cvl("VL", vl), cvu("VU", vu), cabstol("ABSTOL", abstol);
  Buf<double> a("A", elems(lda, n)), w("W", elems(n)), z("Z", wantz ? elems(ldz, nn) : 0);
  Buf<double> work("WORK", std::max(1, lwork));
  Buf<int> iwork("IWORK", std::max(1, liwork)), aux(kMrrr ? "ISUPPZ" : "IFAIL", kMrrr ? 2 * nn : elems(n));
  fill(in, a);
  // K4: LAPACK's DSYEVR (MRRR) on a matrix with NaN or Inf entries can run for many seconds (the
  // fuzzer's timeout): such input is not given to the reference, nor to the shim (which serves
  // dsyevr_ by gpu_syevx, LAPACK's DSYEVX on the CPU for non-finite A), unless FUZZ_STRICT.
  if (kMrrr && !strict() && !all_finite(a.data(), static_cast<long long>(a.size()))) return;
  const auto a0 = a.snapshot(), w0 = w.snapshot(), z0 = z.snapshot();
  const char *name = kMrrr ? "dsyevr_" : "dsyevx_";
  reset_xerbla();
  if (kMrrr)
    dsyevr_(cjobz.p(), crange.p(), cuplo.p(), cn.p(), a.data(), clda.p(), cvl.p(), cvu.p(), cil.p(), ciu.p(),
            cabstol.p(), cm.p(), w.data(), z.data(), cldz.p(), aux.data(), work.data(), clwork.p(), iwork.data(),
            cliwork.p(), cinfo.p(), 1, 1, 1);
  else
    dsyevx_(cjobz.p(), crange.p(), cuplo.p(), cn.p(), a.data(), clda.p(), cvl.p(), cvu.p(), cil.p(), ciu.p(),
            cabstol.p(), cm.p(), w.data(), z.data(), cldz.p(), work.data(), clwork.p(), iwork.data(), aux.data(),
            cinfo.p(), 1, 1, 1);
  const XerblaRecord x = xerbla_record();
  Buf<double> ra("ref A", a.size()), rw("ref W", w.size()), rz("ref Z", z.size()), rwork("ref WORK", work.size());
  Buf<int> riwork("ref IWORK", iwork.size()), raux("ref AUX", aux.size());
  copy_into(ra, a0);
  int rinfo = 0, rm = kUnwritten;
  reset_xerbla();
  if (kMrrr)
    real<decltype(&dsyevr_)>("dsyevr_")(&jobz, &range, &uplo, &n, ra.data(), &lda, &vl, &vu, &il, &iu, &abstol, &rm,
                                        rw.data(), rz.data(), &ldz, raux.data(), rwork.data(), &lwork,
                                        riwork.data(), &liwork, &rinfo, 1, 1, 1);
  else
    real<decltype(&dsyevx_)>("dsyevx_")(&jobz, &range, &uplo, &n, ra.data(), &lda, &vl, &vu, &il, &iu, &abstol, &rm,
                                        rw.data(), rz.data(), &ldz, rwork.data(), &lwork, riwork.data(),
                                        raux.data(), &rinfo, 1, 1, 1);
  // K5: where DSYEVX's or DSYEVR's scaling of A collapses (VL, VU] (VL*SIGMA < VU*SIGMA false; an
  // infinite A gives SIGMA = 0), LAPACK's own DSTEBZ rejects it through XERBLA and the driver
  // returns its -5. gpu_syevx answers M = 0 there (include/gpueig.h); not compared unless
  // FUZZ_STRICT.
  if (!strict() && rinfo < 0 && std::strncmp(xerbla_record().name, "DSTEBZ", 6) == 0) return;
  // K6: DSYEVX on an A with a NaN or Inf entry: DSTEQR fails, and the bisection it falls back to
  // leaves DSTEIN an M or IBLOCK it rejects through XERBLA (INFO then DSTEIN's -4 or -6, and
  // DORMTR may reject the same M after it). gpu_syevx answers NaN eigenvalues there
  // (include/gpueig.h); not compared unless FUZZ_STRICT.
  if (!strict() && rinfo < 0 && !all_finite(a0.data(), static_cast<long long>(a0.size())) &&
      std::strncmp(xerbla_record().name, kMrrr ? "DSYEVR" : "DSYEVX", 6) != 0)
    return;
  compare_info(name, cinfo.v(), rinfo, x);
  if (rinfo < 0) {
    FUZZ_CHECK(a.same_as(a0) && w.same_as(w0) && z.same_as(z0) && cm.v() == kUnwritten,
               "%s wrote A, W, Z or M with INFO %d", name, rinfo);
    return;
  }
  if (cinfo.v() != 0 || rinfo != 0 || n <= 0 || lwork == -1 || liwork == -1 || !std::isfinite(abstol)) return;
  double big = 0;  // max |a| over the triangle referenced
  for (int j = 0; j < n; ++j)
    for (int i = lsame(uplo, 'U') ? 0 : j; i <= (lsame(uplo, 'U') ? j : n - 1); ++i)
      big = std::max(big, std::fabs(a0[size_t(j) * lda + i]));
  if (!(big <= 1e150 && big >= 1e-150) || !all_finite(a0.data(), static_cast<long long>(a0.size()))) return;
  if (abstol > DBL_EPSILON * big) return;  // (eigenvalues only to ABSTOL: methods may differ that much)
  if (lsame(range, 'V') && !(std::isfinite(vl) && std::isfinite(vu))) return;  // (LAPACK's own answer)
  if (lsame(range, 'V')) {
    // All of A's eigenvalues, to see whether VL or VU sits on one (then either count is right).
    std::vector<double> qa(a0), qw(n), qwork(size_t(3) * n + 64 * size_t(n));
    int lw = static_cast<int>(qwork.size()), qinfo = 0;
    real<decltype(&dsyev_)>("dsyev_")("N", &uplo, &n, qa.data(), &lda, qw.data(), qwork.data(), &lw, &qinfo, 1, 1);
    if (qinfo != 0) return;
    for (double e : qw)
      if (std::fabs(e - vl) <= 1e-8 * n * big || std::fabs(e - vu) <= 1e-8 * n * big) return;
  }
  FUZZ_CHECK(cm.v() == rm, "%s M = %d, LAPACK's %d (n=%d RANGE=%c)", name, cm.v(), rm, n, range);
  double wmax = big;  // (an eigenvalue's error bound is eps ||A||, not eps |W|)
  for (int i = 0; i < rm; ++i) wmax = std::max(wmax, std::fabs(rw[i]));
  // A disagreement with LAPACK's bisection is a failure only if DSYEV's QR disagrees too (as for
  // dsyev_: LAPACK's own answer is not always right).
  std::vector<double> qw;
  for (int i = 0; i < rm; ++i) {
    if (std::fabs(w[i] - rw[i]) <= 64.0 * n * DBL_EPSILON * wmax + 1e-300) continue;
    if (qw.empty()) {
      std::vector<double> qa(a0), qwork(size_t(3) * n + 64 * size_t(n));
      qw.resize(n);
      int lw = static_cast<int>(qwork.size()), qinfo = 0;
      real<decltype(&dsyev_)>("dsyev_")("V", &uplo, &n, qa.data(), &lda, qw.data(), qwork.data(), &lw, &qinfo, 1, 1);
      if (qinfo != 0) return;
    }
    const int k = lsame(range, 'I') ? il - 1 + i : -1;
    FUZZ_CHECK(k >= 0 && std::fabs(w[i] - qw[k]) <= 64.0 * n * DBL_EPSILON * wmax + 1e-300,
               "%s W(%d) = %.17g, LAPACK's %.17g, DSYEV's %.17g (n=%d RANGE=%c)", name, i + 1, w[i], rw[i],
               k >= 0 ? qw[k] : 0.0, n, range);
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  set_up_environment(/*serve_shim=*/true);
  // The names called here must be the shim's, not LAPACK's.
  for (void *f : {reinterpret_cast<void *>(&dgtsv_), reinterpret_cast<void *>(&dgetrf_),
                  reinterpret_cast<void *>(&dstebz_), reinterpret_cast<void *>(&dsterf_),
                  reinterpret_cast<void *>(&dsyev_), reinterpret_cast<void *>(&dsyevd_),
                  reinterpret_cast<void *>(&dgesv_), reinterpret_cast<void *>(&dgetrs_),
                  reinterpret_cast<void *>(&dsyevx_), reinterpret_cast<void *>(&dsyevr_),
                  reinterpret_cast<void *>(&scipy_dgesv_64_)}) {
    Dl_info info{};
    if (!dladdr(f, &info) || !info.dli_fname || !std::strstr(info.dli_fname, "libgpueig_lapack")) {
      std::fprintf(stderr, "fuzz_shim: a LAPACK name resolves to %s, not libgpueig_lapack.so\n",
                   info.dli_fname ? info.dli_fname : "?");
      std::abort();
    }
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Input in(data, size);
  const uint8_t which = in.u8();
  choose_policy(in);
  switch (which % 11) {
    case 0: fuzz_dgtsv(in); break;
    case 1: fuzz_dgetrf(in); break;
    case 2: fuzz_dstebz(in); break;
    case 3: fuzz_dsterf(in); break;
    case 4: fuzz_dsyev<false>(in); break;
    case 5: fuzz_dsyev<true>(in); break;
    case 6: fuzz_dgesv(in, false); break;
    case 7: fuzz_dgesv(in, true); break;
    case 8: fuzz_dsyevx<false>(in); break;
    case 9: fuzz_dsyevx<true>(in); break;
    default: fuzz_dgetrs(in); break;
  }
  return 0;
}
