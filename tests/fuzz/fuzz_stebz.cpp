// gpu_stebz(range, order, n, vl, vu, il, iu, abstol, d, e, m, nsplit, w, iblock, isplit):
// D (N), E (N-1), W (N), IBLOCK (N), ISPLIT (N); M, NSPLIT scalars.
// Properties: the documented argument check (-1 RANGE, -2 ORDER, -3 N, -5 VL < VU (NaN rejected),
// -6 IL, -7 IU, -9 non-finite D, -10 non-finite E) with nothing written (M and NSPLIT included);
// D and E never written; INFO in 0..4; M in [0, N]; and M, NSPLIT, ISPLIT, IBLOCK and INFO equal to
// DSTEBZ's on the same input (gpueig.h: "M, NSPLIT, ISPLIT and IBLOCK are DSTEBZ's").
// The same input then goes to gpu_stebz_dev on the fake device (whose memory is the host's): the
// scalar checks synchronously with nothing written, the data checks as the device INFO (-9, -10:
// M = NSPLIT = 0, no array written), else DSTEBZ's INFO, M, NSPLIT, ISPLIT and IBLOCK; D and E
// never written, nothing past M (NSPLIT) in W and IBLOCK (ISPLIT).
#include "fuzz_common.hpp"

using namespace fuzz;

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  set_up_environment();
  return 0;
}

namespace {

using dstebz_t = void (*)(const char *, const char *, const int *, const double *, const double *,
                          const int *, const int *, const double *, const double *, const double *,
                          int *, int *, double *, int *, int *, double *, int *, int *, size_t, size_t);

struct Reference {
  int m = 0, nsplit = 0, info = 0;
  std::vector<int> iblock, isplit;
};

Reference run_dstebz(char range, char order, int n, double vl, double vu, int il, int iu, double abstol,
                     const double *d, const double *e) {
  static const auto dstebz = reinterpret_cast<dstebz_t>(real_lapack("dstebz_"));
  Reference r;
  std::vector<double> w(n), work(4 * size_t(n));
  std::vector<int> iwork(3 * size_t(n));
  r.iblock.resize(n), r.isplit.resize(n);
  dstebz(&range, &order, &n, &vl, &vu, &il, &iu, &abstol, d, e, &r.m, &r.nsplit, w.data(), r.iblock.data(),
         r.isplit.data(), work.data(), iwork.data(), &r.info, 1, 1);
  return r;
}

// gpu_stebz_dev on copies of the input (`scalar_check`: the synchronous INFO the scalars give).
void fuzz_device(char range, char order, int n, double vl, double vu, int il, int iu, double abstol,
                 const std::vector<double> &d0, const std::vector<double> &e0, int scalar_check) {
  Buf<double> d("D", elems(n)), e("E", elems_m1(n)), w("W", elems(n));
  Buf<int> iblock("IBLOCK", elems(n)), isplit("ISPLIT", elems(n)), dinfo("INFO", 1);
  std::copy(d0.begin(), d0.end(), d.data());
  std::copy(e0.begin(), e0.end(), e.data());
  const auto w0 = w.snapshot();
  const auto ib0 = iblock.snapshot(), is0 = isplit.snapshot();
  dinfo[0] = kUnwritten;
  int m = kUnwritten, nsplit = kUnwritten;
  reset_xerbla();
  const int r = gpu_stebz_dev(range, order, n, vl, vu, il, iu, abstol, d.data(), e.data(), &m, &nsplit, w.data(),
                              iblock.data(), isplit.data(), dinfo.data(), nullptr);
  check_no_xerbla("gpu_stebz_dev");
  d.check(), e.check(), w.check(), iblock.check(), isplit.check(), dinfo.check();
  FUZZ_CHECK(d.same_as(d0) && e.same_as(e0), "gpu_stebz_dev changed D or E");
  FUZZ_CHECK(r == scalar_check, "gpu_stebz_dev returned %d, the scalar checks give %d", r, scalar_check);
  if (r < 0) {
    FUZZ_CHECK(m == kUnwritten && nsplit == kUnwritten && dinfo[0] == kUnwritten && w.same_as(w0) &&
                   iblock.same_as(ib0) && isplit.same_as(is0),
               "gpu_stebz_dev wrote an output with INFO %d", r);
    return;
  }
  const int info = dinfo[0];
  const int data_check = !all_finite(d0.data(), n) ? -9 : n > 1 && !all_finite(e0.data(), n - 1) ? -10 : 0;
  if (n == 0 || data_check) {
    FUZZ_CHECK(info == (n == 0 ? 0 : data_check) && m == 0 && nsplit == 0,
               "gpu_stebz_dev device INFO %d M %d NSPLIT %d, expected %d 0 0", info, m, nsplit, data_check);
    FUZZ_CHECK(w.same_as(w0) && iblock.same_as(ib0) && isplit.same_as(is0), "gpu_stebz_dev wrote an array");
    return;
  }
  const Reference ref = run_dstebz(range, order, n, vl, vu, il, iu, abstol, d0.data(), e0.data());
  FUZZ_CHECK(info == ref.info && m == ref.m && nsplit == ref.nsplit,
             "gpu_stebz_dev INFO %d M %d NSPLIT %d, DSTEBZ's %d %d %d", info, m, nsplit, ref.info, ref.m, ref.nsplit);
  for (int i = 0; i < n; ++i) {
    if (i < nsplit) FUZZ_CHECK(isplit[i] == ref.isplit[i], "gpu_stebz_dev ISPLIT(%d) differs", i + 1);
    else FUZZ_CHECK(isplit[i] == is0[i], "gpu_stebz_dev wrote ISPLIT(%d) past NSPLIT", i + 1);
    if (i < m) FUZZ_CHECK(iblock[i] == ref.iblock[i], "gpu_stebz_dev IBLOCK(%d) differs", i + 1);
    else FUZZ_CHECK(iblock[i] == ib0[i] && std::memcmp(&w[i], &w0[i], sizeof(double)) == 0,
                    "gpu_stebz_dev wrote W or IBLOCK(%d) past M", i + 1);
  }
}

}  // namespace

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

  const int scalar_check = expected == -9 || expected == -10 ? 0 : expected;
  fuzz_device(range, order, n, vl, vu, il, iu, abstol, d0, e0, scalar_check);

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

  const Reference ref = run_dstebz(range, order, n, vl, vu, il, iu, abstol, d0.data(), e0.data());
  const int rm = ref.m, rnsplit = ref.nsplit, rinfo = ref.info;
  const std::vector<int> &rib = ref.iblock, &ris = ref.isplit;
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
