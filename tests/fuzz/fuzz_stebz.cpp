// gpu_stebz(range, order, n, vl, vu, il, iu, abstol, d, e, m, nsplit, w, iblock, isplit):
// D (N), E (N-1), W (N), IBLOCK (N), ISPLIT (N); M, NSPLIT scalars.
// Properties: the documented argument check (-1 RANGE, -2 ORDER, -3 N, -5 VL < VU (NaN rejected),
// -6 IL, -7 IU, -9 non-finite D, -10 non-finite E) with nothing written (M and NSPLIT included);
// D and E never written; INFO in 0..4; M in [0, N]; and M, NSPLIT, ISPLIT, IBLOCK and INFO equal to
// DSTEBZ's on the same input (gpueig.h: "M, NSPLIT, ISPLIT and IBLOCK are DSTEBZ's").
#include "fuzz_common.hpp"

using namespace fuzz;

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  set_up_environment();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Input in(data, size);
  const char *policy = choose_policy(in);
  const char range = in.option("AVI"), order = in.option("BE");
  const int n = in.size();
  const double vl = in.dbl(), vu = in.dbl(), abstol = in.dbl();
  const int il = in.index(n), iu = in.index(n);

  Buf<double> d("D", elems(n)), e("E", elems_m1(n)), w("W", elems(n));
  Buf<int> iblock("IBLOCK", elems(n)), isplit("ISPLIT", elems(n));
  // Either the input's own values or a smoother matrix (more interesting spectra from fewer bytes).
  fill(in, d), fill(in, e), fill(in, w), fill(in, iblock), fill(in, isplit);
  const auto d0 = d.snapshot(), e0 = e.snapshot(), w0 = w.snapshot();
  const auto ib0 = iblock.snapshot(), is0 = isplit.snapshot();

  const bool all = lsame(range, 'A'), byval = lsame(range, 'V'), byidx = lsame(range, 'I');
  int expected = 0;
  if (!all && !byval && !byidx) expected = -1;
  else if (!lsame(order, 'B') && !lsame(order, 'E')) expected = -2;
  else if (n < 0) expected = -3;
  else if (byval && !(vl < vu)) expected = -5;
  else if (byidx && (il < 1 || il > max1(n))) expected = -6;
  else if (byidx && (iu < std::min(n, il) || iu > n)) expected = -7;
  else if (!all_finite(d.data(), n)) expected = -9;
  else if (n > 1 && !all_finite(e.data(), n - 1)) expected = -10;

  if (verbose()) {
    std::fprintf(stderr, "gpu_stebz('%c', '%c', n=%d, vl=%.17g, vu=%.17g, il=%d, iu=%d, abstol=%.17g) policy %s\n",
                 range, order, n, vl, vu, il, iu, abstol, policy);
    dump("D", d.data(), d.size()), dump("E", e.data(), e.size());
  }
  int m = kUnwritten, nsplit = kUnwritten;
  reset_xerbla();
  const int info = gpu_stebz(range, order, n, vl, vu, il, iu, abstol, d.data(), e.data(), &m,
                             &nsplit, w.data(), iblock.data(), isplit.data());
  check_no_xerbla("gpu_stebz");
  check_info("gpu_stebz", info, expected, 0, 4, policy);
  check_backend("gpu_stebz", info, n == 0, policy);
  d.check(), e.check(), w.check(), iblock.check(), isplit.check();
  FUZZ_CHECK(d.same_as(d0) && e.same_as(e0), "gpu_stebz changed D or E");
  if (expected < 0) {
    FUZZ_CHECK(m == kUnwritten && nsplit == kUnwritten && w.same_as(w0) && iblock.same_as(ib0) &&
                   isplit.same_as(is0),
               "gpu_stebz wrote an output with INFO %d", info);
    return 0;
  }
  if (info < 0) return 0;
  FUZZ_CHECK(m >= 0 && m <= n, "gpu_stebz M = %d outside [0, %d]", m, n);
  if (n == 0) return 0;

  using dstebz_t = void (*)(const char *, const char *, const int *, const double *, const double *,
                            const int *, const int *, const double *, const double *, const double *,
                            int *, int *, double *, int *, int *, double *, int *, int *, size_t, size_t);
  static const auto dstebz = reinterpret_cast<dstebz_t>(real_lapack("dstebz_"));
  int rm = 0, rnsplit = 0, rinfo = 0;
  std::vector<double> rw(n), work(4 * size_t(n));
  std::vector<int> rib(n), ris(n), iwork(3 * size_t(n));
  dstebz(&range, &order, &n, &vl, &vu, &il, &iu, &abstol, d0.data(), e0.data(), &rm, &rnsplit,
         rw.data(), rib.data(), ris.data(), work.data(), iwork.data(), &rinfo, 1, 1);
  FUZZ_CHECK(rinfo >= 0, "DSTEBZ rejected arguments gpu_stebz accepted (INFO %d)", rinfo);
  FUZZ_CHECK(info == rinfo && m == rm && nsplit == rnsplit,
             "gpu_stebz INFO %d M %d NSPLIT %d, DSTEBZ's %d %d %d (n=%d RANGE=%c ORDER=%c policy %s)",
             info, m, nsplit, rinfo, rm, rnsplit, n, range, order, policy);
  for (int i = 0; i < nsplit; ++i)
    FUZZ_CHECK(isplit[i] == ris[i], "ISPLIT(%d) = %d, DSTEBZ's %d", i + 1, isplit[i], ris[i]);
  for (int i = 0; i < m; ++i)
    FUZZ_CHECK(iblock[i] == rib[i], "IBLOCK(%d) = %d, DSTEBZ's %d", i + 1, iblock[i], rib[i]);
  return 0;
}
