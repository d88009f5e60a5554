// gpu_gesv_crout(n, nrhs, a, lda, ipiv, b, ldb): A (LDA, N), IPIV (N), B (LDB, NRHS); and
// gpu_getrs_crout(trans, n, nrhs, a, lda, ipiv, b, ldb) on the same arrays, IPIV arbitrary. The
// first byte picks the routine.
// Properties: the argument checks (gesv -1, -2, -4, -7; getrs -1, -2, -3, -5, -8, then -6 for a
// pivot outside 1..N) with nothing written; otherwise, for gesv, INFO in [0, N], IPIV(i) in
// [1, N], the padding rows of A and B never written, B untouched when INFO > 0, and for a finite
// A with finite DGETRF factors DGETRF's INFO and IPIV; for getrs, A and IPIV never written and B
// as DGETRS leaves it, bit for bit (it is DGETRS, on valid pivots). A third of the inputs go to
// the device-pointer twins on the fake device (fuzz_device).
#include <algorithm>

#include "fuzz_common.hpp"

using namespace fuzz;

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  set_up_environment();
  return 0;
}

namespace {

void check_padding(const char *name, const Buf<double> &x, const std::vector<double> &x0, int rows,
                   int ld, int cols) {
  for (int j = 0; j < cols; ++j)
    for (int i = rows; i < ld; ++i) {
      const size_t at = size_t(j) * ld + i;
      FUZZ_CHECK(std::memcmp(&x[at], &x0[at], sizeof(double)) == 0,
                 "%s(%d,%d) written, below row N = %d (LD = %d)", name, i + 1, j + 1, rows, ld);
    }
}

// DGETRS's X for B0 (the real LAPACK's), for getrs's bit-for-bit comparisons.
std::vector<double> dgetrs_solution(char trans, int n, int nrhs, const std::vector<double> &a0, int lda,
                                    const std::vector<int> &ipiv0, const std::vector<double> &b0, int ldb) {
  using dgetrs_t = void (*)(const char *, const int *, const int *, const double *, const int *,
                            const int *, double *, const int *, int *, size_t);
  static const auto dgetrs = reinterpret_cast<dgetrs_t>(real_lapack("dgetrs_"));
  std::vector<double> rb(b0);
  int rinfo = 0;
  dgetrs(&trans, &n, &nrhs, a0.data(), &lda, ipiv0.data(), rb.data(), &ldb, &rinfo, 1);
  FUZZ_CHECK(rinfo == 0, "DGETRS INFO %d", rinfo);
  return rb;
}

// A call's INFO and IPIV against the real DGETRF on the same A0 (rows x n). Nothing is compared
// where DGETRF's factors are not all finite: its INFO then depends on its BLAS's NaN rules (see
// fuzz_getrf).
void check_against_dgetrf(const char *name, int info, const Buf<int> &ipiv, int rows, int n,
                          const std::vector<double> &a0, int lda, const char *policy) {
  using dgetrf_t = void (*)(const int *, const int *, double *, const int *, int *, int *);
  static const auto dgetrf = reinterpret_cast<dgetrf_t>(real_lapack("dgetrf_"));
  std::vector<double> ra(a0);
  std::vector<int> ripiv(std::max(0, std::min(rows, n)));
  int rinfo = 0;
  dgetrf(&rows, &n, ra.data(), &lda, ripiv.data(), &rinfo);
  if (!all_finite(ra.data(), static_cast<long long>(ra.size()))) return;
  FUZZ_CHECK(info == rinfo, "%s INFO %d, DGETRF's %d (n=%d policy %s)", name, info, rinfo, n, policy);
  for (size_t i = 0; i < ripiv.size(); ++i)
    FUZZ_CHECK(ipiv[i] == ripiv[i], "%s IPIV(%d) = %d, DGETRF's %d", name, int(i) + 1, ipiv[i], ripiv[i]);
}

void fuzz_gesv(Input &in, const char *policy) {
  const int n = in.size(), nrhs = in.size(6), lda = in.ld(n), ldb = in.ld(n);
  Buf<double> a("A", elems(lda, n)), b("B", elems(ldb, nrhs));
  Buf<int> ipiv("IPIV", elems(n));
  fill(in, a), fill(in, b), fill(in, ipiv);
  const auto a0 = a.snapshot(), b0 = b.snapshot();
  const auto ipiv0 = ipiv.snapshot();
  int expected = 0;
  if (n < 0) expected = -1;
  else if (nrhs < 0) expected = -2;
  else if (lda < max1(n)) expected = -4;
  else if (ldb < max1(n)) expected = -7;

  reset_xerbla();
  const int info = gpu_gesv_crout(n, nrhs, a.data(), lda, ipiv.data(), b.data(), ldb);
  check_no_xerbla("gpu_gesv_crout");
  check_info("gpu_gesv_crout", info, expected, 0, n > 0 ? n : 0, policy);
  check_backend("gpu_gesv_crout", info, n == 0, policy);
  a.check(), b.check(), ipiv.check();
  if (expected < 0 || n == 0) {
    FUZZ_CHECK(a.same_as(a0) && b.same_as(b0) && ipiv.same_as(ipiv0),
               "gpu_gesv_crout wrote with INFO %d", info);
    return;
  }
  if (info < 0) return;
  check_padding("A", a, a0, n, lda, n);
  check_padding("B", b, b0, n, ldb, nrhs);
  for (int i = 0; i < n; ++i)
    FUZZ_CHECK(ipiv[i] >= 1 && ipiv[i] <= n, "IPIV(%d) = %d outside [1, %d]", i + 1, ipiv[i], n);
  if (info > 0) FUZZ_CHECK(b.same_as(b0), "gpu_gesv_crout wrote B with INFO %d > 0", info);
  if (!all_finite(a0.data(), static_cast<long long>(a0.size()))) return;
  check_against_dgetrf("gpu_gesv_crout", info, ipiv, n, n, a0, lda, policy);
}

void fuzz_getrs(Input &in, const char *policy) {
  const char trans = in.option("NTC");
  const int n = in.size(), nrhs = in.size(6), lda = in.ld(n), ldb = in.ld(n);
  Buf<double> a("A", elems(lda, n)), b("B", elems(ldb, nrhs));
  Buf<int> ipiv("IPIV", elems(n));
  fill(in, a), fill(in, b);
  // Mostly valid pivots (i..N, as DGETRF makes them), sometimes anything.
  const bool any_pivots = in.u8() % 4 == 0;
  for (size_t i = 0; i < ipiv.size(); ++i)
    ipiv[i] = any_pivots ? static_cast<int>(in.u8()) - 128 : int(i) + 1 + in.in(0, 255) % (n - int(i));
  const auto a0 = a.snapshot(), b0 = b.snapshot();
  const auto ipiv0 = ipiv.snapshot();
  int expected = 0;
  const char t = static_cast<char>(trans & ~0x20);
  if (t != 'N' && t != 'T' && t != 'C') expected = -1;
  else if (n < 0) expected = -2;
  else if (nrhs < 0) expected = -3;
  else if (lda < max1(n)) expected = -5;
  else if (ldb < max1(n)) expected = -8;
  else if (n > 0 && nrhs > 0)
    for (int i = 0; i < n; ++i)
      if (ipiv0[i] < 1 || ipiv0[i] > n) expected = -6;

  reset_xerbla();
  const int info = gpu_getrs_crout(trans, n, nrhs, a.data(), lda, ipiv.data(), b.data(), ldb);
  check_no_xerbla("gpu_getrs_crout");
  check_info("gpu_getrs_crout", info, expected, 0, 0, policy);
  check_backend("gpu_getrs_crout", info, n == 0 || nrhs == 0, policy);
  a.check(), b.check(), ipiv.check();
  FUZZ_CHECK(a.same_as(a0) && ipiv.same_as(ipiv0), "gpu_getrs_crout wrote A or IPIV");
  if (expected < 0 || n == 0 || nrhs == 0) {
    FUZZ_CHECK(b.same_as(b0), "gpu_getrs_crout wrote B with INFO %d", info);
    return;
  }
  const std::vector<double> rb = dgetrs_solution(trans, n, nrhs, a0, lda, ipiv0, b0, ldb);
  FUZZ_CHECK(std::memcmp(rb.data(), b.data(), rb.size() * sizeof(double)) == 0,
             "gpu_getrs_crout's X differs from DGETRS's (n=%d nrhs=%d TRANS=%c)", n, nrhs, trans);
}

// The device-pointer twins (gpu_getrf_dev, gpu_getrs_dev, gpu_gesv_dev) on the fake device, whose
// memory is the host's: the scalar checks in order with nothing written, a NULL INFO rejected
// (its position), then the device INFO: for getrf and gesv in [0, min(M, N)] with IPIV in range,
// DGETRF's INFO and IPIV for a finite A, gesv's B untouched when INFO > 0; for getrs -6 for a
// pivot outside 1..N with B untouched, else DGETRS's B bit for bit. A never written by getrs.
void fuzz_device(Input &in) {
  const int which = in.in(0, 2);  // getrf_dev, getrs_dev, gesv_dev
  const char trans = which == 1 ? in.option("NTC") : 'N';
  const int m = which == 0 ? in.size() : 0, n = in.size(), nrhs = which == 0 ? 0 : in.size(6);
  const int rows = which == 0 ? m : n;
  const int lda = in.ld(rows), ldb = in.ld(n);
  const bool null_info = in.u8() % 16 == 0;
  const int kpiv = which == 0 ? std::min(m, n) : n;
  Buf<double> a("A", elems(lda, n)), b("B", which == 0 ? 0 : elems(ldb, nrhs));
  Buf<int> ipiv("IPIV", elems(kpiv)), dinfo("INFO", 1);
  fill(in, a), fill(in, b);
  const bool any_pivots = in.u8() % 4 == 0;
  for (size_t i = 0; i < ipiv.size(); ++i)
    ipiv[i] = any_pivots || which != 1 ? static_cast<int>(in.u8()) - 128 : int(i) + 1 + in.in(0, 255) % (n - int(i));
  dinfo[0] = kUnwritten;
  const auto a0 = a.snapshot(), b0 = b.snapshot();
  const auto ipiv0 = ipiv.snapshot();
  const char t = static_cast<char>(trans & ~0x20);
  int expected = 0;
  if (which == 0) {
    if (m < 0) expected = -1;
    else if (n < 0) expected = -2;
    else if (lda < max1(m)) expected = -4;
    else if (null_info) expected = -6;
  } else if (which == 1) {
    if (t != 'N' && t != 'T' && t != 'C') expected = -1;
    else if (n < 0) expected = -2;
    else if (nrhs < 0) expected = -3;
    else if (lda < max1(n)) expected = -5;
    else if (ldb < max1(n)) expected = -8;
    else if (null_info) expected = -9;
  } else {
    if (n < 0) expected = -1;
    else if (nrhs < 0) expected = -2;
    else if (lda < max1(n)) expected = -4;
    else if (ldb < max1(n)) expected = -7;
    else if (null_info) expected = -8;
  }
  static const char *const kNames[] = {"gpu_getrf_dev", "gpu_getrs_dev", "gpu_gesv_dev"};
  const char *name = kNames[which];
  int *info_p = null_info ? nullptr : dinfo.data();
  reset_xerbla();
  const int r = which == 0 ? gpu_getrf_dev(m, n, a.data(), lda, ipiv.data(), info_p, nullptr)
                : which == 1 ? gpu_getrs_dev(trans, n, nrhs, a.data(), lda, ipiv.data(), b.data(), ldb, info_p, nullptr)
                             : gpu_gesv_dev(n, nrhs, a.data(), lda, ipiv.data(), b.data(), ldb, info_p, nullptr);
  check_no_xerbla(name);
  a.check(), b.check(), ipiv.check(), dinfo.check();
  FUZZ_CHECK(r == expected, "%s returned %d, the checks documented in gpueig.h give %d", name, r, expected);
  if (expected < 0) {
    FUZZ_CHECK(a.same_as(a0) && b.same_as(b0) && ipiv.same_as(ipiv0) && dinfo[0] == kUnwritten,
               "%s wrote with INFO %d", name, r);
    return;
  }
  const int info = dinfo[0];
  const bool empty = which == 0 ? (m == 0 || n == 0) : which == 1 ? (n == 0 || nrhs == 0) : n == 0;
  if (empty) {
    FUZZ_CHECK(info == 0 && a.same_as(a0) && b.same_as(b0), "%s quick return: INFO %d or arrays written", name, info);
    return;
  }
  if (which == 1) {
    FUZZ_CHECK(a.same_as(a0) && ipiv.same_as(ipiv0), "gpu_getrs_dev wrote A or IPIV");
    bool bad = false;
    for (int i = 0; i < n; ++i) bad = bad || ipiv0[i] < 1 || ipiv0[i] > n;
    if (bad) {
      FUZZ_CHECK(info == -6 && b.same_as(b0), "gpu_getrs_dev: pivot out of range, INFO %d, B %s", info,
                 b.same_as(b0) ? "untouched" : "written");
      return;
    }
    FUZZ_CHECK(info == 0, "gpu_getrs_dev INFO %d with valid pivots", info);
    const std::vector<double> rb = dgetrs_solution(trans, n, nrhs, a0, lda, ipiv0, b0, ldb);
    FUZZ_CHECK(std::memcmp(rb.data(), b.data(), rb.size() * sizeof(double)) == 0,
               "gpu_getrs_dev's X differs from DGETRS's (n=%d nrhs=%d TRANS=%c)", n, nrhs, trans);
    return;
  }
  FUZZ_CHECK(info >= 0 && info <= kpiv, "%s INFO %d outside [0, %d]", name, info, kpiv);
  check_padding("A", a, a0, rows, lda, n);
  for (int i = 0; i < kpiv; ++i)
    FUZZ_CHECK(ipiv[i] >= 1 && ipiv[i] <= rows, "%s IPIV(%d) = %d outside [1, %d]", name, i + 1, ipiv[i], rows);
  if (which == 2) {
    check_padding("B", b, b0, n, ldb, nrhs);
    if (info > 0) FUZZ_CHECK(b.same_as(b0), "gpu_gesv_dev wrote B with INFO %d > 0", info);
  }
  if (!all_finite(a0.data(), static_cast<long long>(a0.size()))) return;
  check_against_dgetrf(name, info, ipiv, rows, n, a0, lda, "fake device");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Input in(data, size);
  const uint8_t which = in.u8();
  const char *policy = choose_policy(in);
  if (which % 3 == 2)
    fuzz_device(in);
  else if (which % 3 == 0)
    fuzz_gesv(in, policy);
  else
    fuzz_getrs(in, policy);
  return 0;
}
