// Shared pieces of the libFuzzer targets (tests/fuzz/fuzz_*.cpp).
//
// Input decoding (Input): the fuzz input is read front to back, one byte per decision. Sizes come
// from one byte each (bounded: |n| <= 48 so that one execution stays well under a millisecond or
// two), characters are any byte, doubles are chosen by a selector byte among special values (NaN,
// +-Inf, +-0, subnormals, DBL_MIN, DBL_MAX, 1e+-300, the 1e+-154 limits of DSTEBZ), small
// multiples of 1/8 (exact zeros and repeated values: singular and tied cases) or 8 raw bytes (any
// bit pattern). When the input is exhausted, the remaining values come from a PRNG seeded by the
// input (deterministic), so a short input still fills a 48 x 48 matrix.
//
// Arrays (Buf): every array argument is its own heap allocation holding EXACTLY the number of
// elements the routine's documented contract promises (0 included: then the pointer points at a
// poisoned byte, as a malloc(0) would, and any access is reported). Each side of the array carries
// a 64-byte guard that is ASan-poisoned (an access by instrumented code, i.e. libgpueig, is an
// ASan report) and filled with a canary checked after the call (a write by uninstrumented code,
// i.e. OpenBLAS called with a wrong size by libgpueig, is caught there). Arrays a routine
// documents as "not referenced" are passed as nullptr, as a C caller legitimately may.
//
// Checks (FUZZ_CHECK): a violated property prints what and aborts, which libFuzzer reports as a
// crash and saves the reproducer.
#pragma once

#include <sanitizer/asan_interface.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "gpueig.h"

#define FUZZ_CHECK(cond, ...)                                                          \
  do {                                                                                 \
    if (!(cond)) {                                                                     \
      std::fprintf(stderr, "FUZZ CHECK FAILED at %s:%d: %s\n  ", __FILE__, __LINE__, #cond); \
      std::fprintf(stderr, __VA_ARGS__);                                               \
      std::fprintf(stderr, "\n");                                                      \
      std::abort();                                                                    \
    }                                                                                  \
  } while (0)

namespace fuzz {

inline bool all_finite(const double *x, long long n);
inline bool lsame_upper(char a, char b) { return (a >= 'a' && a <= 'z' ? a - 32 : a) == b; }

// ---- input decoding --------------------------------------------------------------------------

class Input {
 public:
  Input(const uint8_t *data, size_t size) : p_(data), n_(size) {
    uint64_t h = 0x9E3779B97F4A7C15ull ^ size;
    for (size_t i = 0; i < size; ++i) h = (h ^ data[i]) * 0x100000001B3ull;
    rng_ = h | 1;
  }
  bool exhausted() const { return i_ >= n_; }
  uint8_t u8() { return i_ < n_ ? p_[i_++] : static_cast<uint8_t>(next() >> 56); }
  bool flag() { return u8() & 1; }
  // Uniform in [lo, hi] from one byte (hi - lo < 256).
  int in(int lo, int hi) { return lo + static_cast<int>(u8() % static_cast<unsigned>(hi - lo + 1)); }
  char character() { return static_cast<char>(u8()); }
  // An option character: mostly one of `valid` in either case, else any byte.
  char option(const char *valid) {
    const uint8_t b = u8();
    const size_t k = std::strlen(valid);
    if (b < 200) {
      const char c = valid[b % k];
      return (b / k) & 1 ? static_cast<char>(c | 0x20) : c;  // lower case half the time
    }
    return static_cast<char>(u8());
  }
  // An order: mostly 0..kMax, sometimes negative (argument errors), rarely extreme.
  int size(int max = kMax) {
    const uint8_t b = u8();
    if (b < 8) return b < 4 ? -1 - b : (b == 4 ? std::numeric_limits<int>::min() : b == 5 ? -1000 : 0);
    if (b < 40) return b % 4;  // tiny sizes often
    return b % (max + 1);
  }
  // A leading dimension for `rows` rows: usually max(1, rows) + 0..3, sometimes too small.
  int ld(int rows) {
    const uint8_t b = u8();
    const int base = rows > 1 ? rows : 1;
    if (b < 12) {
      switch (b % 6) {
        case 0: return rows > std::numeric_limits<int>::min() ? rows - 1 : rows;
        case 1: return 0;
        case 2: return -1;
        case 3: return std::numeric_limits<int>::min();
        case 4: return rows;  // 0 when rows == 0 (illegal: LDA >= 1)
        default: return base - 2;
      }
    }
    return base + b % 4;
  }
  // An index such as IL, IU: mostly within [-1, n + 2], rarely extreme.
  int index(int n) {
    const uint8_t b = u8();
    if (b == 255) return std::numeric_limits<int>::max();
    if (b == 254) return std::numeric_limits<int>::min();
    return -1 + static_cast<int>(b % static_cast<unsigned>((n > 0 ? n : 0) + 4));
  }
  double dbl() {
    if (exhausted()) return static_cast<double>(static_cast<int64_t>(next() >> 11) - (1ll << 52)) / (1ll << 52);
    const uint8_t s = u8();
    if (s < 40) return special(s);
    if (s < 200) return (static_cast<int>(s) - 120) / 8.0;  // -10 .. 10 in steps of 1/8
    double x = 0;
    uint8_t bytes[8];
    for (uint8_t &b : bytes) b = u8();
    std::memcpy(&x, bytes, 8);
    return x;
  }
  static double special(unsigned s) {
    static const double kSpecial[20] = {
        0.0, -0.0, 1.0, -1.0,
        std::numeric_limits<double>::quiet_NaN(), -std::numeric_limits<double>::quiet_NaN(),
        std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
        DBL_MIN, std::numeric_limits<double>::denorm_min(), -1e-310, DBL_MAX, -DBL_MAX,
        1e300, 1e-300, 1.3e154, 1.5e-154, 1e-200, DBL_EPSILON, 1e100};
    return kSpecial[s % 20];
  }
  static constexpr int kMax = 48;

 private:
  uint64_t next() {
    rng_ ^= rng_ << 13;
    rng_ ^= rng_ >> 7;
    rng_ ^= rng_ << 17;
    return rng_;
  }
  const uint8_t *p_;
  size_t n_, i_ = 0;
  uint64_t rng_;
};

// Elements an (ld x cols) array holds, 0 for a negative dimension (the arguments promise nothing).
inline size_t elems(long long ld, long long cols) { return ld > 0 && cols > 0 ? size_t(ld) * size_t(cols) : 0; }
inline size_t elems(long long n) { return n > 0 ? size_t(n) : 0; }
// N-1 elements (an off-diagonal), without overflow for N = INT_MIN.
inline size_t elems_m1(int n) { return n > 1 ? size_t(n) - 1 : 0; }

// ---- guarded arrays --------------------------------------------------------------------------

template <class T>
class Buf {
 public:
  static constexpr size_t kGuard = 64;  // bytes on each side
  static constexpr unsigned char kCanary = 0xA5;

  Buf(const char *name, size_t n) : name_(name), n_(n) {
    bytes_ = n * sizeof(T);
    base_ = static_cast<unsigned char *>(std::malloc(2 * kGuard + bytes_));
    if (!base_) std::abort();
    std::memset(base_, kCanary, kGuard);
    std::memset(base_ + kGuard + bytes_, kCanary, kGuard);
    std::memset(base_ + kGuard, 0, bytes_);
    poison();
  }
  ~Buf() {
    check();
    ASAN_UNPOISON_MEMORY_REGION(base_, 2 * kGuard + bytes_);
    std::free(base_);
  }
  Buf(const Buf &) = delete;
  Buf &operator=(const Buf &) = delete;

  T *data() { return reinterpret_cast<T *>(base_ + kGuard); }
  const T *data() const { return reinterpret_cast<const T *>(base_ + kGuard); }
  size_t size() const { return n_; }
  T &operator[](size_t i) { return data()[i]; }
  const T &operator[](size_t i) const { return data()[i]; }
  std::vector<T> snapshot() const { return std::vector<T>(data(), data() + n_); }
  bool same_as(const std::vector<T> &s) const {
    return s.size() == n_ && (n_ == 0 || std::memcmp(s.data(), data(), bytes_) == 0);
  }
  // The canaries on both sides are intact (nothing wrote outside the array).
  void check() const {
    ASAN_UNPOISON_MEMORY_REGION(base_, kGuard);
    ASAN_UNPOISON_MEMORY_REGION(base_ + kGuard + bytes_, kGuard);
    for (size_t i = 0; i < kGuard; ++i) {
      FUZZ_CHECK(base_[i] == kCanary, "write before the start of %s (%zu elements): byte %zu of the front guard changed",
                 name_, n_, kGuard - i);
      FUZZ_CHECK(base_[kGuard + bytes_ + i] == kCanary,
                 "write past the end of %s (%zu elements): guard byte %zu changed", name_, n_, i);
    }
    const_cast<Buf *>(this)->poison();
  }

 private:
  void poison() {
    ASAN_POISON_MEMORY_REGION(base_, kGuard);
    ASAN_POISON_MEMORY_REGION(base_ + kGuard + bytes_, kGuard);
  }
  const char *name_;
  size_t n_, bytes_;
  unsigned char *base_;
};

template <class T>
void fill(Input &in, Buf<T> &b) {
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<T>(in.dbl());
}
template <>
inline void fill<int>(Input &in, Buf<int> &b) {
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<int>(in.u8()) - 128;
}

// Sentinels for scalar outputs: a routine that must not write them leaves these.
constexpr int kUnwritten = -777777;

// FUZZ_VERBOSE=1: the targets print the decoded call (to read a reproducer).
inline bool verbose() {
  static const bool v = std::getenv("FUZZ_VERBOSE") != nullptr;
  return v;
}
inline void dump(const char *what, const double *x, size_t n) {
  if (!verbose()) return;
  std::fprintf(stderr, "  %s[%zu] =", what, n);
  for (size_t i = 0; i < n; ++i) std::fprintf(stderr, " %.17g", x[i]);
  std::fprintf(stderr, "\n");
}

// ---- LAPACK's own defects --------------------------------------------------------------------
// Defects of LAPACK itself that the shim's forwarded calls reach exactly as the program would
// without the shim. libgpueig's own calls are protected from them (K1: cpu::stebz gives DSTEBZ an
// IBLOCK with a spare leading entry; the defect K2 these targets also found, a DSTEBZ XERBLA
// inside gpu_toeplitz_eig's DSYEVR, is fixed in src/toeplitz.cpp). FUZZ_STRICT=1 runs them anyway.
inline bool strict() {
  static const bool s = std::getenv("FUZZ_STRICT") != nullptr;
  return s;
}
// K1: LAPACK's DSTEBZ (reference 3.11 code, in OpenBLAS 0.3.21) writes IBLOCK(0), one element
// before the caller's array, for RANGE = 'I' when its Gershgorin interval overflows (entries near
// DBL_MAX, or NaN/Inf): IDISCU > 0 with no eigenvalue left to discard sets IBLOCK(IW) = 0 with
// IW = 0; and for RANGE = 'V' with an infinite D (found 2026-11-25: D(1) = D(2) = Inf,
// VU = ABSTOL = Inf writes IBLOCK(0) = 3; with another D it returned M = -10). The shim's dstebz_
// forwards such input (non-finite: gpu_stebz rejects it; below the crossover) to LAPACK
// unchanged. Such inputs are not run through the shim.
inline bool known_stebz_iblock0(char range, int n, const double *d, const double *e) {
  if (strict()) return false;
  if (!all_finite(d, n) || !all_finite(e, n - 1)) return true;
  if (!lsame_upper(range, 'I')) return false;
  double dmax = 0, emax = 0;
  for (int i = 0; i < n; ++i) dmax = std::max(dmax, std::fabs(d[i]));
  for (int i = 0; i + 1 < n; ++i) emax = std::max(emax, std::fabs(e[i]));
  return dmax / 4 + emax / 2 >= DBL_MAX / 16;
}

// ---- library checks --------------------------------------------------------------------------

inline bool is_lib_error(int info) {
  return info == GPUEIG_ERR_DEVICE || info == GPUEIG_ERR_LAPACK || info == GPUEIG_ERR_MEMORY ||
         info == GPUEIG_ERR_INTERNAL;
}

// One of the backend policies, chosen by the input, set for this call. "gpu" and "auto" reach the
// GPU dispatch paths when the fake device is on (see set_up_environment). Returns the policy.
inline const char *choose_policy(Input &in) {
  static const char *const kPolicies[] = {"cpu", "auto", "gpu", "AUTO"};
  const char *p = kPolicies[in.u8() % 4];
  FUZZ_CHECK(gpueig_set_backend(p) == 0, "gpueig_set_backend(\"%s\") refused", p);
  return p;
}

// INFO of a library routine: the argument check the header documents (`expected` < 0: exactly that
// value, and nothing written: the caller compares), or a result in [lo, hi], or a library code.
// GPUEIG_ERR_INTERNAL is a defect of libgpueig by its own documentation: reported. A CPU policy
// cannot produce GPUEIG_ERR_DEVICE.
inline void check_info(const char *routine, int info, int expected, long long lo, long long hi,
                       const char *policy) {
  if (expected < 0) {
    FUZZ_CHECK(info == expected, "%s returned INFO = %d, the argument check documented in gpueig.h gives %d",
               routine, info, expected);
    return;
  }
  FUZZ_CHECK(info != GPUEIG_ERR_INTERNAL, "%s returned GPUEIG_ERR_INTERNAL (a libgpueig defect)", routine);
  if (is_lib_error(info)) {
    FUZZ_CHECK(!(info == GPUEIG_ERR_DEVICE && std::strcmp(policy, "cpu") == 0),
               "%s returned GPUEIG_ERR_DEVICE under the cpu policy", routine);
    return;
  }
  FUZZ_CHECK(info >= lo && info <= hi, "%s returned INFO = %d for valid arguments, outside [%lld, %lld]",
             routine, info, lo, hi);
}

// gpueig_last_backend after a call: "none" after an argument error or a quick return, "cpu" after
// a computing call under the cpu policy; always one of the three names.
inline void check_backend(const char *routine, int info, bool quick, const char *policy) {
  const char *b = gpueig_last_backend();
  FUZZ_CHECK(b && (!std::strcmp(b, "gpu") || !std::strcmp(b, "cpu") || !std::strcmp(b, "none")),
             "gpueig_last_backend() = %s", b ? b : "(null)");
  if (info < 0 && !is_lib_error(info))
    FUZZ_CHECK(!std::strcmp(b, "none"), "%s: argument error %d but last backend %s", routine, info, b);
  else if (quick && info == 0)
    FUZZ_CHECK(!std::strcmp(b, "none"), "%s: quick return but last backend %s", routine, b);
  else if (info >= 0 && !std::strcmp(policy, "cpu"))
    FUZZ_CHECK(!std::strcmp(b, "cpu"), "%s: policy cpu, INFO %d, but last backend %s", routine, info, b);
}

inline bool lsame(char a, char b) {
  auto up = [](char c) { return (c >= 'a' && c <= 'z') ? static_cast<char>(c - 32) : c; };
  return up(a) == up(b);
}
inline int max1(int n) { return n > 1 ? n : 1; }
inline bool all_finite(const double *x, long long n) {
  for (long long i = 0; i < n; ++i)
    if (!std::isfinite(x[i])) return false;
  return true;
}

// ---- the real LAPACK (for reference answers) and XERBLA --------------------------------------

// A symbol of the LAPACK libgpueig binds to (GPUEIG_LAPACK_SONAME), never an interposed one.
void *real_lapack(const char *name);

// XERBLA is replaced in every fuzz target (exported from the executable, it takes precedence over
// OpenBLAS's): it records the call instead of printing. In the library targets any call is a
// defect (libgpueig must never pass LAPACK an illegal argument); the shim target expects it
// exactly when it forwards an illegal argument.
struct XerblaRecord {
  int calls = 0;
  int info = 0;
  char name[8] = {0};
};
XerblaRecord &xerbla_record();
inline void reset_xerbla() { xerbla_record() = XerblaRecord{}; }
inline void check_no_xerbla(const char *routine) {
  const XerblaRecord &x = xerbla_record();
  FUZZ_CHECK(x.calls == 0, "%s: libgpueig called LAPACK's %s with illegal argument %d (XERBLA)",
             routine, x.name, x.info);
}

// Called once from LLVMFuzzerInitialize: fake device on and crossovers 0 (so that "auto" and "gpu"
// take the GPU dispatch paths, carried out by LAPACK on the host), unless the caller's environment
// says otherwise; one OpenBLAS thread.
void set_up_environment(bool serve_shim = false);

}  // namespace fuzz
