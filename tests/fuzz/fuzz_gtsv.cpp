// gpu_gtsv_pcr(n, nrhs, dl, d, du, b, ldb): DL (N-1), D (N), DU (N-1), B (LDB, NRHS).
// Properties: INFO is the documented argument check (-1, -2, -7) with nothing written, or DGTSV's
// INFO exactly (0 .. N, compared with DGTSV itself on copies), or a library code; DL, D and DU are
// never changed (documented deviation from DGTSV); with INFO = 0 B is finite wherever DGTSV's is.
#include "fuzz_common.hpp"

using namespace fuzz;

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  set_up_environment();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Input in(data, size);
  const char *policy = choose_policy(in);
  const int n = in.size(), nrhs = in.size(8), ldb = in.ld(n);

  Buf<double> dl("DL", elems_m1(n)), d("D", elems(n)), du("DU", elems_m1(n)),
      b("B", elems(ldb, nrhs));
  fill(in, dl), fill(in, d), fill(in, du), fill(in, b);
  const auto dl0 = dl.snapshot(), d0 = d.snapshot(), du0 = du.snapshot(), b0 = b.snapshot();

  int expected = 0;
  if (n < 0) expected = -1;
  else if (nrhs < 0) expected = -2;
  else if (ldb < max1(n)) expected = -7;

  reset_xerbla();
  const int info = gpu_gtsv_pcr(n, nrhs, dl.data(), d.data(), du.data(), b.data(), ldb);
  check_no_xerbla("gpu_gtsv_pcr");
  check_info("gpu_gtsv_pcr", info, expected, 0, n, policy);
  check_backend("gpu_gtsv_pcr", info, n == 0, policy);
  dl.check(), d.check(), du.check(), b.check();
  FUZZ_CHECK(dl.same_as(dl0) && d.same_as(d0) && du.same_as(du0), "gpu_gtsv_pcr changed DL, D or DU (INFO %d)", info);
  if (expected < 0 || n == 0) {
    FUZZ_CHECK(b.same_as(b0), "gpu_gtsv_pcr wrote B with INFO %d (n=%d nrhs=%d ldb=%d)", info, n, nrhs, ldb);
    return 0;
  }
  if (info < 0) return 0;  // a library code

  // DGTSV itself on copies: the same INFO (gpueig.h: "INFO i > 0: U(i,i) is exactly zero in
  // DGTSV's elimination with partial pivoting").
  using dgtsv_t = void (*)(const int *, const int *, double *, double *, double *, double *,
                           const int *, int *);
  static const auto dgtsv = reinterpret_cast<dgtsv_t>(real_lapack("dgtsv_"));
  Buf<double> rdl("ref DL", dl.size()), rd("ref D", d.size()), rdu("ref DU", du.size()),
      rb("ref B", nrhs > 0 ? b.size() : elems(n));
  std::copy(dl0.begin(), dl0.end(), rdl.data());
  std::copy(d0.begin(), d0.end(), rd.data());
  std::copy(du0.begin(), du0.end(), rdu.data());
  std::copy(b0.begin(), b0.end(), rb.data());
  int rinfo = 0;
  dgtsv(&n, &nrhs, rdl.data(), rd.data(), rdu.data(), rb.data(), &ldb, &rinfo);
  FUZZ_CHECK(info == rinfo, "gpu_gtsv_pcr INFO %d, DGTSV's %d (n=%d nrhs=%d policy %s)", info, rinfo,
             n, nrhs, policy);
  if (info > 0 && nrhs == 0) FUZZ_CHECK(b.same_as(b0), "gpu_gtsv_pcr wrote B with NRHS = 0");
  return 0;
}
