// Sturm counts of a symmetric tridiagonal matrix, shared by the GPU kernels, the host side of the
// GPU path and the CPU tests, so that all of them count with the same arithmetic.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>

#include "host_device.hpp"

namespace gpueig {

// Row j of T as the count reads it: d(j) and e(j-1)^2 (0 for j = 0 and where T splits), side by
// side so that a GPU thread fetches both with one 16-byte load.
struct alignas(16) SturmRow {
  double d, e2;
};

// Calls step(row) for rows 1..n-1 in order. On the GPU the rows come in chunks of 8 held in
// registers, the next chunk's loads issued before the current chunk is used: the dependency
// chain of the count then never waits on memory, where a plain loop (with a branch in its body
// that the compiler cannot move loads across) waits one load latency per row.
template <class Step>
GPUEIG_HD inline void for_each_row(const SturmRow *t, int64_t n, Step &&step) {
#ifdef __CUDA_ARCH__
  constexpr int kChunk = 8;
  int64_t j = 1;
  if (j + kChunk <= n) {
    SturmRow cur[kChunk];
#pragma unroll
    for (int u = 0; u < kChunk; ++u) cur[u] = t[j + u];
    for (; j + 2 * kChunk <= n; j += kChunk) {
      SturmRow next[kChunk];
#pragma unroll
      for (int u = 0; u < kChunk; ++u) next[u] = t[j + kChunk + u];
#pragma unroll
      for (int u = 0; u < kChunk; ++u) step(cur[u]);
#pragma unroll
      for (int u = 0; u < kChunk; ++u) cur[u] = next[u];
    }
#pragma unroll
    for (int u = 0; u < kChunk; ++u) step(cur[u]);
    j += kChunk;
  }
  for (; j < n; ++j) step(t[j]);
#else
  for (int64_t j = 1; j < n; ++j) step(t[j]);
#endif
}

// For each shift x[k]: the number of eigenvalues of T that are <= x[k], i.e. the number of
// non-positive pivots of T - x[k] I = L D L^T. Exactly LAPACK DLAEBZ's count, operation for
// operation: a pivot smaller than pivmin in magnitude is replaced by -pivmin, so a zero pivot never
// produces Inf or NaN. The K shifts run interleaved (K independent chains per thread).
template <int K>
GPUEIG_HD inline void sturm_counts(const SturmRow *t, int64_t n, const double (&x)[K],
                                   double pivmin, int (&count)[K]) {
  double q[K];
  for (int k = 0; k < K; ++k) {
    q[k] = t[0].d - x[k];
    if (std::fabs(q[k]) < pivmin) q[k] = -pivmin;
    count[k] = q[k] <= 0.0;
  }
  for_each_row(t, n, [&](const SturmRow &r) {
    for (int k = 0; k < K; ++k) {
      q[k] = r.d - r.e2 / q[k] - x[k];
      if (std::fabs(q[k]) < pivmin) q[k] = -pivmin;
      count[k] += q[k] <= 0.0;
    }
  });
}

GPUEIG_HD inline int sturm_count(const SturmRow *t, int64_t n, double x, double pivmin) {
  const double xs[1] = {x};
  int c[1];
  sturm_counts<1>(t, n, xs, pivmin, c);
  return c[0];
}

// 2^-(exponent of p) for a normal p: multiplying by it is exact and brings |p| into [1, 2).
GPUEIG_HD inline double inverse_scale(double p) {
  uint64_t bits;
  std::memcpy(&bits, &p, sizeof bits);
  const uint64_t s = (uint64_t{2046} << 52) - (bits & (uint64_t{0x7ff} << 52));
  double r;
  std::memcpy(&r, &s, sizeof r);
  return r;
}

// The high 32 bits of x: sign, exponent and top of the mantissa, for integer tests that keep
// work off the (scarcer) FP64 units.
GPUEIG_HD inline int32_t high_word(double x) {
  uint64_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  return static_cast<int32_t>(bits >> 32);
}

// Exact rescaling of T by a power of two c, so that its entries are at most about 1 in magnitude:
// Sturm counts are invariant (T - xI and c(T - xI) have the same pivot signs) and the
// division-free count below needs that range. pivmin scales with T, but never below DBL_MIN.
struct SturmScale {
  double c;       // multiply d, e, shifts and tolerances by c (and e^2 by c^2)
  double pivmin;  // the pivmin to use with the scaled rows
};
inline SturmScale sturm_scale(const SturmRow *t, int64_t n, double pivmin) {
  double big = 0;
  for (int64_t j = 0; j < n; ++j) big = std::fmax(big, std::fabs(t[j].d) + std::sqrt(t[j].e2));
  if (!(big > 0)) return {1.0, pivmin};
  const double c = inverse_scale(big);
  return {c, std::fmax(pivmin * c, 2.2250738585072014e-308)};
}

// The same count without divisions, for rows scaled by sturm_scale: the pivots
// q(j) = p(j)/p(j-1) are carried as the ratio of the three-term recurrence
// p(j) = (d(j) - x) p(j-1) - e(j-1)^2 p(j-2), so each step puts one fused multiply-add on the
// dependency chain instead of a division. The pivmin rule is the same (|p(j)| < pivmin |p(j-1)|
// means |q(j)| < pivmin, and p(j) becomes -pivmin p(j-1)); a pivot is non-positive when p(j) and
// p(j-1) differ in sign. Both are rescaled together by a power of two (exact) whenever |p(j)|
// leaves [2^-32, 2^33): with |d|, |e| <= ~1 neither overflows in between, and right after a tiny
// pivot the rescaling keeps |e^2 p(j-2)| below about 1/pivmin. The counts equal DLAEBZ's up to
// rounding: they can differ only for shifts within rounding of an eigenvalue.
template <int K, bool IntegerTests = false>
GPUEIG_HD inline void sturm_counts_scaled(const SturmRow *t, int64_t n, const double (&x)[K],
                                          double pivmin, int (&count)[K]) {
  double a[K], b[K];  // p(j-1) and p(j-2), scaled alike
  int32_t ha[K];      // high word of a (IntegerTests): its sign for the count
  for (int k = 0; k < K; ++k) {
    double q = t[0].d - x[k];
    if (std::fabs(q) < pivmin) q = -pivmin;
    count[k] = q <= 0.0;
    const double s = inverse_scale(q);
    a[k] = q * s;
    b[k] = s;  // p(-1) = 1
    ha[k] = high_word(a[k]);
  }
  for_each_row(t, n, [&](const SturmRow &r) {
    for (int k = 0; k < K; ++k) {
      double p = std::fma(r.d - x[k], a[k], -(r.e2 * b[k]));
      if (std::fabs(p) < pivmin * std::fabs(a[k])) p = -pivmin * a[k];
      bool rescale;
      if constexpr (IntegerTests) {
        // Sign and exponent from the high word, in integer units: fewer FP64 operations, which
        // pays where the FP64 units are the bottleneck (many eigenvalues), and costs latency
        // where the dependency chain is (few).
        const int32_t hp = high_word(p);
        count[k] += (hp ^ ha[k]) < 0;
        ha[k] = hp;
        const uint32_t biased = (static_cast<uint32_t>(hp) >> 20) & 0x7ffu;
        rescale = biased - (1023u - 32u) > 64u;  // |p| outside [2^-32, 2^33)
      } else {
        count[k] += std::signbit(p) != std::signbit(a[k]);
        rescale = !(std::fabs(p) <= 0x1p32 && std::fabs(p) >= 0x1p-32);
      }
      b[k] = a[k];
      a[k] = p;
      if (rescale) {
        const double s = inverse_scale(p);
        a[k] = p * s;
        b[k] *= s;
        ha[k] = high_word(a[k]);
      }
    }
  });
}

}  // namespace gpueig
