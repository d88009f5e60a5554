// gpu_gtsv_pcr_batch(n, batch, dl, d, du, b, stride): DL, D, DU, B of (BATCH-1)*STRIDE + N
// elements each (the header's contract; 0 when BATCH = 0 or N = 0 and the call returns at once).
// Properties: the argument check (-1, -2, -7) with nothing written; INFO = k*N + i for the first
// singular system k with DGTSV's INFO i (compared with DGTSV on every system), or 0; DL, D, DU
// unchanged; bytes between systems (stride > n) never written.
#include <climits>

#include "fuzz_common.hpp"

using namespace fuzz;

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  set_up_environment();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Input in(data, size);
  const char *policy = choose_policy(in);
  const int n = in.size(24), batch = in.size(12);
  const uint8_t sb = in.u8();
  const int stride = sb < 16 ? (n > 0 ? n : 0) + (sb % 3) - 2 : max1(n) + sb % 5;  // sometimes < max(1, n)

  // (BATCH-1)*STRIDE + N, for arguments that could be valid; 0 where nothing is promised.
  size_t len = 0;
  if (n > 0 && batch > 0 && stride > 0) len = size_t(batch - 1) * size_t(stride) + size_t(n);
  Buf<double> dl("DL", len), d("D", len), du("DU", len), b("B", len);
  fill(in, dl), fill(in, d), fill(in, du), fill(in, b);
  const auto dl0 = dl.snapshot(), d0 = d.snapshot(), du0 = du.snapshot(), b0 = b.snapshot();

  int expected = 0;
  if (n < 0) expected = -1;
  else if (batch < 0) expected = -2;
  else if (stride < max1(n)) expected = -7;

  reset_xerbla();
  const int info = gpu_gtsv_pcr_batch(n, batch, dl.data(), d.data(), du.data(), b.data(), stride);
  check_no_xerbla("gpu_gtsv_pcr_batch");
  check_info("gpu_gtsv_pcr_batch", info, expected, 0, INT_MAX, policy);
  check_backend("gpu_gtsv_pcr_batch", info, n == 0 || batch == 0, policy);
  dl.check(), d.check(), du.check(), b.check();
  FUZZ_CHECK(dl.same_as(dl0) && d.same_as(d0) && du.same_as(du0), "gpu_gtsv_pcr_batch changed DL, D or DU");
  if (expected < 0 || n == 0 || batch == 0) {
    FUZZ_CHECK(b.same_as(b0), "gpu_gtsv_pcr_batch wrote B with INFO %d", info);
    return 0;
  }
  // Gaps between systems (stride > n) are not the routine's.
  for (int k = 0; k + 1 < batch; ++k)
    for (int i = n; i < stride; ++i) {
      const size_t at = size_t(k) * stride + i;
      FUZZ_CHECK(std::memcmp(&b[at], &b0[at], sizeof(double)) == 0,
                 "gpu_gtsv_pcr_batch wrote B[%zu], between systems %d and %d (n=%d stride=%d)", at,
                 k, k + 1, n, stride);
    }
  if (info < 0) return 0;

  using dgtsv_t = void (*)(const int *, const int *, double *, double *, double *, double *,
                           const int *, int *);
  static const auto dgtsv = reinterpret_cast<dgtsv_t>(real_lapack("dgtsv_"));
  long long first = 0;
  for (int k = 0; k < batch && first == 0; ++k) {
    const size_t off = size_t(k) * stride;
    std::vector<double> rdl(dl0.begin() + off, dl0.begin() + off + (n - 1)),
        rd(d0.begin() + off, d0.begin() + off + n), rdu(du0.begin() + off, du0.begin() + off + (n - 1)),
        rb(b0.begin() + off, b0.begin() + off + n);
    const int one = 1;
    int rinfo = 0;
    dgtsv(&n, &one, rdl.data(), rd.data(), rdu.data(), rb.data(), &n, &rinfo);
    if (rinfo > 0) first = static_cast<long long>(k) * n + rinfo;
  }
  const int want = first > INT_MAX ? INT_MAX : static_cast<int>(first);
  FUZZ_CHECK(info == want, "gpu_gtsv_pcr_batch INFO %d, DGTSV per system gives %d (n=%d batch=%d stride=%d policy %s)",
             info, want, n, batch, stride, policy);
  return 0;
}
