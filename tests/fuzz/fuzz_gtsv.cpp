// gpu_gtsv_pcr(n, nrhs, dl, d, du, b, ldb): DL (N-1), D (N), DU (N-1), B (LDB, NRHS).
// Properties: INFO is the documented argument check (-1, -2, -7) with nothing written, or DGTSV's
// INFO exactly (0 .. N, compared with DGTSV itself on copies), or a library code; DL, D and DU are
// never changed (documented deviation from DGTSV); with INFO = 0 B is finite wherever DGTSV's is.
// The same input then goes to the device-pointer twin, gpu_gtsv_dev, on the fake device (whose
// memory is the host's): its checks in order (a NULL INFO is -8) with nothing written, DGTSV's
// INFO on the device, DL, D, DU and B's padding never written, B untouched for N = 0 or NRHS = 0,
// and with INFO = 0 B finite wherever DGTSV's is.
#include "fuzz_common.hpp"

using namespace fuzz;

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  set_up_environment();
  return 0;
}

namespace {

// The input: the sizes and the arrays as generated.
struct System {
  int n, nrhs, ldb;
  std::vector<double> dl, d, du, b;
};

// DGTSV's INFO on copies of the system (the real LAPACK's), and its B in *x if asked.
int dgtsv_info(const System &s, std::vector<double> *x = nullptr) {
  using dgtsv_t = void (*)(const int *, const int *, double *, double *, double *, double *,
                           const int *, int *);
  static const auto dgtsv = reinterpret_cast<dgtsv_t>(real_lapack("dgtsv_"));
  std::vector<double> dl(s.dl), d(s.d), du(s.du), b(s.nrhs > 0 ? s.b : std::vector<double>(elems(s.n)));
  int info = 0;
  dgtsv(&s.n, &s.nrhs, dl.data(), d.data(), du.data(), b.data(), &s.ldb, &info);
  if (x) *x = std::move(b);
  return info;
}

// With INFO = 0, B(i, j) is finite wherever DGTSV's is (rows 1 .. N of every column).
void check_finite_where_dgtsv_is(const System &s, const double *b, const std::vector<double> &ref,
                                 const char *name) {
  for (int j = 0; j < s.nrhs; ++j)
    for (int i = 0; i < s.n; ++i) {
      const size_t at = size_t(j) * s.ldb + i;
      FUZZ_CHECK(!std::isfinite(ref[at]) || std::isfinite(b[at]), "%s: B(%d,%d) = %g where DGTSV's is %g", name,
                 i + 1, j + 1, b[at], ref[at]);
    }
}

int checks(const System &s) {
  if (s.n < 0) return -1;
  if (s.nrhs < 0) return -2;
  if (s.ldb < max1(s.n)) return -7;
  return 0;
}

// Arrays of the call, guarded, holding the system's values.
struct Arrays {
  Buf<double> dl, d, du, b;
  explicit Arrays(const System &s)
      : dl("DL", s.dl.size()), d("D", s.d.size()), du("DU", s.du.size()), b("B", s.b.size()) {
    std::copy(s.dl.begin(), s.dl.end(), dl.data());
    std::copy(s.d.begin(), s.d.end(), d.data());
    std::copy(s.du.begin(), s.du.end(), du.data());
    std::copy(s.b.begin(), s.b.end(), b.data());
  }
  void check(const System &s, const char *name) {
    dl.check(), d.check(), du.check(), b.check();
    FUZZ_CHECK(dl.same_as(s.dl) && d.same_as(s.d) && du.same_as(s.du), "%s changed DL, D or DU", name);
  }
};

void fuzz_host(const System &s, const char *policy) {
  Arrays x(s);
  const int expected = checks(s);
  reset_xerbla();
  const int info = gpu_gtsv_pcr(s.n, s.nrhs, x.dl.data(), x.d.data(), x.du.data(), x.b.data(), s.ldb);
  check_no_xerbla("gpu_gtsv_pcr");
  check_info("gpu_gtsv_pcr", info, expected, 0, s.n, policy);
  check_backend("gpu_gtsv_pcr", info, s.n == 0, policy);
  x.check(s, "gpu_gtsv_pcr");
  if (expected < 0 || s.n == 0) {
    FUZZ_CHECK(x.b.same_as(s.b), "gpu_gtsv_pcr wrote B with INFO %d (n=%d nrhs=%d ldb=%d)", info, s.n, s.nrhs,
               s.ldb);
    return;
  }
  if (info < 0) return;  // a library code
  // gpueig.h: "INFO i > 0: U(i,i) is exactly zero in DGTSV's elimination with partial pivoting".
  std::vector<double> ref;
  const int rinfo = dgtsv_info(s, &ref);
  FUZZ_CHECK(info == rinfo, "gpu_gtsv_pcr INFO %d, DGTSV's %d (n=%d nrhs=%d policy %s)", info, rinfo, s.n, s.nrhs,
             policy);
  if (info > 0 && s.nrhs == 0) FUZZ_CHECK(x.b.same_as(s.b), "gpu_gtsv_pcr wrote B with NRHS = 0");
  if (info == 0) check_finite_where_dgtsv_is(s, x.b.data(), ref, "gpu_gtsv_pcr");
}

void fuzz_device(const System &s, bool null_info) {
  Arrays x(s);
  Buf<int> dinfo("INFO", 1);
  dinfo[0] = kUnwritten;
  const int expected = checks(s) != 0 ? checks(s) : null_info ? -8 : 0;
  reset_xerbla();
  const int r = gpu_gtsv_dev(s.n, s.nrhs, x.dl.data(), x.d.data(), x.du.data(), x.b.data(), s.ldb,
                             null_info ? nullptr : dinfo.data(), nullptr);
  check_no_xerbla("gpu_gtsv_dev");
  x.check(s, "gpu_gtsv_dev");
  dinfo.check();
  FUZZ_CHECK(r == expected, "gpu_gtsv_dev returned %d, the checks documented in gpueig.h give %d", r, expected);
  if (expected < 0) {
    FUZZ_CHECK(x.b.same_as(s.b) && dinfo[0] == kUnwritten, "gpu_gtsv_dev wrote with INFO %d", r);
    return;
  }
  const int info = dinfo[0];
  if (s.n == 0 || s.nrhs == 0) FUZZ_CHECK(x.b.same_as(s.b), "gpu_gtsv_dev wrote B with N = 0 or NRHS = 0");
  for (int j = 0; j < s.nrhs; ++j)
    for (int i = s.n; i < s.ldb; ++i) {
      const size_t at = size_t(j) * s.ldb + i;
      FUZZ_CHECK(std::memcmp(&x.b[at], &s.b[at], sizeof(double)) == 0, "gpu_gtsv_dev wrote B(%d,%d) below row N",
                 i + 1, j + 1);
    }
  std::vector<double> ref;
  const int rinfo = s.n == 0 ? 0 : dgtsv_info(s, &ref);
  FUZZ_CHECK(info == rinfo, "gpu_gtsv_dev INFO %d, DGTSV's %d (n=%d nrhs=%d)", info, rinfo, s.n, s.nrhs);
  if (info == 0 && s.n > 0) check_finite_where_dgtsv_is(s, x.b.data(), ref, "gpu_gtsv_dev");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Input in(data, size);
  const char *policy = choose_policy(in);
  System s;
  s.n = in.size(), s.nrhs = in.size(8), s.ldb = in.ld(s.n);
  Buf<double> dl("DL", elems_m1(s.n)), d("D", elems(s.n)), du("DU", elems_m1(s.n)), b("B", elems(s.ldb, s.nrhs));
  fill(in, dl), fill(in, d), fill(in, du), fill(in, b);
  s.dl = dl.snapshot(), s.d = d.snapshot(), s.du = du.snapshot(), s.b = b.snapshot();
  const bool null_info = in.u8() % 16 == 0;
  fuzz_host(s, policy);
  fuzz_device(s, null_info);
  return 0;
}
