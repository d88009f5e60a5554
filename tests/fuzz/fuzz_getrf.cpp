// gpu_getrf_crout(m, n, a, lda, ipiv): A (LDA, N), IPIV (min(M, N)).
// Properties: the argument check (-1, -2, -4) with nothing written; otherwise INFO in
// [0, min(M, N)] and, for a finite A, exactly DGETRF's INFO and IPIV (gpueig.h: "the same IPIV as
// DGETRF", where DGETRF's own factors are finite); IPIV(i) in [1, M] always; rows LDA > M of A (padding) never written.
#include <algorithm>

#include "fuzz_common.hpp"

using namespace fuzz;

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  set_up_environment();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Input in(data, size);
  const char *policy = choose_policy(in);
  const int m = in.size(), n = in.size(), lda = in.ld(m);
  const int k = std::min(m, n);

  Buf<double> a("A", elems(lda, n));
  Buf<int> ipiv("IPIV", elems(k));
  fill(in, a), fill(in, ipiv);
  const auto a0 = a.snapshot();
  const auto ipiv0 = ipiv.snapshot();

  int expected = 0;
  if (m < 0) expected = -1;
  else if (n < 0) expected = -2;
  else if (lda < max1(m)) expected = -4;

  reset_xerbla();
  const int info = gpu_getrf_crout(m, n, a.data(), lda, ipiv.data());
  check_no_xerbla("gpu_getrf_crout");
  check_info("gpu_getrf_crout", info, expected, 0, k > 0 ? k : 0, policy);
  check_backend("gpu_getrf_crout", info, m == 0 || n == 0, policy);
  a.check(), ipiv.check();
  if (expected < 0 || m == 0 || n == 0) {
    FUZZ_CHECK(a.same_as(a0) && ipiv.same_as(ipiv0), "gpu_getrf_crout wrote A or IPIV with INFO %d", info);
    return 0;
  }
  for (int j = 0; j < n; ++j)
    for (int i = m; i < lda; ++i) {
      const size_t at = size_t(j) * lda + i;
      FUZZ_CHECK(std::memcmp(&a[at], &a0[at], sizeof(double)) == 0,
                 "gpu_getrf_crout wrote A(%d,%d), below row M = %d (LDA = %d)", i + 1, j + 1, m, lda);
    }
  if (info < 0) return 0;
  for (int i = 0; i < k; ++i)
    FUZZ_CHECK(ipiv[i] >= 1 && ipiv[i] <= m, "IPIV(%d) = %d outside [1, %d] (INFO %d)", i + 1, ipiv[i], m, info);
  if (!all_finite(a0.data(), static_cast<long long>(a0.size()))) return 0;  // DGETRF's INFO depends on its BLAS

  using dgetrf_t = void (*)(const int *, const int *, double *, const int *, int *, int *);
  static const auto dgetrf = reinterpret_cast<dgetrf_t>(real_lapack("dgetrf_"));
  std::vector<double> ra(a0);
  std::vector<int> ripiv(k);
  int rinfo = 0;
  dgetrf(&m, &n, ra.data(), &lda, ripiv.data(), &rinfo);
  // OpenBLAS's DGETRF divides by a subnormal pivot (1/p overflows: L fills with NaN) and its
  // pivots then depend on LDA (its IDAMAX over NaN): no reference answer for such a matrix.
  if (!all_finite(ra.data(), static_cast<long long>(ra.size()))) return 0;
  FUZZ_CHECK(info == rinfo, "gpu_getrf_crout INFO %d, DGETRF's %d (m=%d n=%d policy %s)", info, rinfo, m, n, policy);
  for (int i = 0; i < k; ++i)
    FUZZ_CHECK(ipiv[i] == ripiv[i], "IPIV(%d) = %d, DGETRF's %d (m=%d n=%d policy %s)", i + 1, ipiv[i],
               ripiv[i], m, n, policy);
  return 0;
}
