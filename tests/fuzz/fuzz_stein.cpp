// gpu_stein(n, d, e, m, w, iblock, isplit, z, ldz, ifail): D (N), E (N-1), W, IBLOCK (M),
// ISPLIT (N), Z (LDZ, M), IFAIL (M). W, IBLOCK and ISPLIT mostly from DSTEBZ (ORDER 'B', RANGE
// 'A' or 'I', on the input's D and E; sometimes with a wrong M), sometimes arbitrary.
// Properties: the argument checks of gpueig.h (-1, -4, -9, -2, -3, -5, -6, -7, in that order)
// with nothing written; otherwise INFO in [0, M], IFAIL(1..INFO) in [1, M] and zero after it,
// the rows LDZ > N of Z never written, and nothing read or written outside any array.
// The same input then goes to gpu_stein_dev on the fake device (whose memory is the host's): the
// scalar checks (-1, -4, -9) synchronously, the data checks (-2, -3, -5, -6, -7) as the device
// INFO with Z and IFAIL unwritten, else the same properties for the device INFO.
#include <algorithm>
#include <cmath>

#include "fuzz_common.hpp"

using namespace fuzz;

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  set_up_environment();
  return 0;
}

namespace {

int expected_info(int n, int m, int ldz, const Buf<double> &d, const Buf<double> &e,
                  const Buf<double> &w, const Buf<int> &iblock, const Buf<int> &isplit) {
  if (n < 0) return -1;
  if (m < 0 || m > n) return -4;
  if (ldz < max1(n)) return -9;
  if (!all_finite(d.data(), n)) return -2;
  if (n > 1 && !all_finite(e.data(), n - 1)) return -3;
  if (!all_finite(w.data(), m)) return -5;
  for (int j = 1; j < m; ++j) {
    if (iblock[j] < iblock[j - 1]) return -6;
    if (iblock[j] == iblock[j - 1] && w[j] < w[j - 1]) return -5;
  }
  if (m == 0) return 0;
  if (iblock[0] < 1 || iblock[m - 1] > n) return -6;
  int prev = 0;
  for (int b = 0; b < iblock[m - 1]; ++b) {
    if (isplit[b] <= prev || isplit[b] > n) return -7;
    prev = isplit[b];
  }
  return 0;
}

// INFO (host or device) in [0, M], IFAIL(1..INFO) in [1, M] and zero after it, rows LDZ > N of Z
// never written.
void check_vectors(const char *who, int n, int m, int ldz, int info, const Buf<double> &z,
                   const std::vector<double> &z0, const Buf<int> &ifail) {
  for (int j = 0; j < m; ++j)
    for (int i = n; i < ldz; ++i)
      FUZZ_CHECK(std::memcmp(&z[size_t(j) * ldz + i], &z0[size_t(j) * ldz + i], sizeof(double)) == 0,
                 "%s wrote Z(%d,%d), below row N = %d", who, i + 1, j + 1, n);
  for (int j = 0; j < m; ++j)
    FUZZ_CHECK(j < info ? (ifail[j] >= 1 && ifail[j] <= m) : ifail[j] == 0,
               "%s: IFAIL(%d) = %d with INFO %d (m=%d)", who, j + 1, ifail[j], info, m);
}

void fuzz_device(int n, int m, int ldz, const Buf<double> &d, const Buf<double> &e, const Buf<double> &w,
                 const Buf<int> &iblock, const Buf<int> &isplit, const std::vector<double> &z0,
                 const std::vector<int> &ifail0, int expected) {
  Buf<double> z("Z", z0.size());
  Buf<int> ifail("IFAIL", ifail0.size()), dinfo("INFO", 1);
  std::copy(z0.begin(), z0.end(), z.data());
  std::copy(ifail0.begin(), ifail0.end(), ifail.data());
  dinfo[0] = kUnwritten;
  const bool scalar = expected == -1 || expected == -4 || expected == -9;
  reset_xerbla();
  const int r = gpu_stein_dev(n, d.data(), e.data(), m, w.data(), iblock.data(), isplit.data(), z.data(), ldz,
                              ifail.data(), dinfo.data(), nullptr);
  check_no_xerbla("gpu_stein_dev");
  z.check(), ifail.check(), dinfo.check();
  FUZZ_CHECK(r == (scalar ? expected : 0), "gpu_stein_dev returned %d, expected %d", r, scalar ? expected : 0);
  if (scalar) {
    FUZZ_CHECK(dinfo[0] == kUnwritten && z.same_as(z0) && ifail.same_as(ifail0), "gpu_stein_dev wrote with INFO %d",
               r);
    return;
  }
  const int info = dinfo[0];
  if (expected < 0 || n == 0 || m == 0) {
    FUZZ_CHECK(info == (n == 0 || m == 0 ? 0 : expected), "gpu_stein_dev device INFO %d, expected %d", info,
               expected);
    FUZZ_CHECK(z.same_as(z0) && ifail.same_as(ifail0), "gpu_stein_dev wrote with device INFO %d", info);
    return;
  }
  FUZZ_CHECK(info >= 0 && info <= m, "gpu_stein_dev device INFO %d outside [0, %d]", info, m);
  check_vectors("gpu_stein_dev", n, m, ldz, info, z, z0, ifail);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Input in(data, size);
  const char *policy = choose_policy(in);
  const int n = in.size();
  Buf<double> d("D", elems(n)), e("E", elems_m1(n));
  fill(in, d), fill(in, e);
  // The eigenvalues: DSTEBZ's (RANGE 'A' or 'I') for most inputs, else arbitrary arrays.
  const bool from_stebz = n > 0 && in.u8() % 4 != 0 && all_finite(d.data(), n) &&
                          all_finite(e.data(), elems_m1(n));
  int m = 0;
  std::vector<double> w0(elems(n));
  std::vector<int> ib0(elems(n)), is0(elems(n));
  if (from_stebz) {
    using dstebz_t = void (*)(const char *, const char *, const int *, const double *,
                              const double *, const int *, const int *, const double *,
                              const double *, const double *, int *, int *, double *, int *,
                              int *, double *, int *, int *, size_t, size_t);
    static const auto dstebz = reinterpret_cast<dstebz_t>(real_lapack("dstebz_"));
    const bool all = in.flag();
    const int il = 1 + in.in(0, 255) % n, iu = il + in.in(0, 255) % (n - il + 1);
    std::vector<double> work(4 * size_t(n));
    std::vector<int> iwork(3 * size_t(n));
    int nsplit = 0, info = 0;
    const double zero = 0;
    dstebz(all ? "A" : "I", "B", &n, &zero, &zero, &il, &iu, &zero, d.data(), e.data(), &m, &nsplit,
           w0.data(), ib0.data(), is0.data(), work.data(), iwork.data(), &info, 1, 1);
    if (info != 0) m = 0;
    if (in.u8() % 8 == 0) m = in.size();  // sometimes a wrong M
  } else {
    m = in.size();
    for (auto &x : w0) x = in.dbl();
    for (auto &x : ib0) x = static_cast<int>(in.u8()) - 8;
    for (auto &x : is0) x = static_cast<int>(in.u8()) - 8;
  }
  const int ldz = in.ld(n);
  Buf<double> w("W", elems(m)), z("Z", elems(ldz, m));
  Buf<int> iblock("IBLOCK", elems(m)), isplit("ISPLIT", elems(n)), ifail("IFAIL", elems(m));
  for (size_t j = 0; j < w.size(); ++j) {
    w[j] = j < w0.size() ? w0[j] : in.dbl();
    iblock[j] = j < ib0.size() ? ib0[j] : 1;
  }
  for (size_t j = 0; j < isplit.size(); ++j) isplit[j] = is0[j];
  fill(in, z), fill(in, ifail);
  const auto z0 = z.snapshot();
  const auto ifail0 = ifail.snapshot();
  const int expected = expected_info(n, m, ldz, d, e, w, iblock, isplit);
  fuzz_device(n, m, ldz, d, e, w, iblock, isplit, z0, ifail0, expected);

  reset_xerbla();
  const int info = gpu_stein(n, d.data(), e.data(), m, w.data(), iblock.data(), isplit.data(),
                             z.data(), ldz, ifail.data());
  check_no_xerbla("gpu_stein");
  check_info("gpu_stein", info, expected, 0, m > 0 ? m : 0, policy);
  check_backend("gpu_stein", info, n == 0 || m == 0, policy);
  z.check(), ifail.check(), d.check(), e.check(), w.check(), iblock.check(), isplit.check();
  if (expected < 0 || n == 0 || m == 0) {
    FUZZ_CHECK(z.same_as(z0) && ifail.same_as(ifail0), "gpu_stein wrote with INFO %d", info);
    return 0;
  }
  if (info < 0) return 0;
  check_vectors("gpu_stein", n, m, ldz, info, z, z0, ifail);
  return 0;
}
