#include "env.hpp"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <set>
#include <string>

namespace gpueig::env {
namespace {

std::string lower(const char *s) {
  std::string out;
  for (; *s; ++s) out += static_cast<char>(*s >= 'A' && *s <= 'Z' ? *s + 32 : *s);
  return out;
}

constexpr Variable kVariables[] = {
    {"GPUEIG_BACKEND", "auto|gpu|cpu", "initial backend policy (gpueig_set_backend changes it)",
     false},
    {"GPUEIG_DEVICE", "a device ordinal", "the CUDA device the library uses (default 0)", false},
    {"GPUEIG_VERBOSE", "0|1", "one line per call on stderr: routine, sizes, backend, time, why",
     false},
    {"GPUEIG_CROSSOVER_SYTRD", "an integer >= 0", "auto's crossover for sytrd (n)", false},
    {"GPUEIG_CROSSOVER_STEBZ", "an integer >= 0", "auto's crossover for stebz (n)", false},
    {"GPUEIG_CROSSOVER_GTSV", "an integer >= 0", "auto's crossover for gtsv (n, or n x batch)",
     false},
    {"GPUEIG_CROSSOVER_GETRF", "an integer >= 0", "auto's crossover for getrf (the order of a square LU of as many flops)", false},
    {"GPUEIG_CROSSOVER_GESV", "an integer >= 0", "auto's crossover for gesv (n)", false},
    {"GPUEIG_CROSSOVER_GETRS", "an integer >= 0", "auto's crossover for getrs (n)", false},
    {"GPUEIG_CROSSOVER_TOEPLITZ", "an integer >= 0", "auto's crossover for toeplitz (n)", false},
    {"GPUEIG_CROSSOVER_SYEVD", "an integer >= 0", "auto's crossover for syevd (n)", false},
    {"GPUEIG_CROSSOVER_STEIN", "an integer >= 0", "auto's crossover for stein (m, the eigenvectors wanted)", false},
    {"GPUEIG_LAPACK", "a library path", "the LAPACK of the CPU backend and of the shim's forwarding",
     false},
    {"GPUEIG_SHIM", "auto|serve", "LD_PRELOAD shim: serve by auto's crossovers, or serve always",
     false},
    {"GPUEIG_SHIM_CROSSOVER_STERF", "an integer >= 0",
     "LD_PRELOAD shim: dsterf_ (and dsyev(d)_'s eigenvalues) by GPU bisection from this n", false},
    {"GPUEIG_SYTRD_METHOD", "two-stage|tree", "sytrd's GPU method (tree: the seed's, slower)",
     false},
    {"GPUEIG_SYTRD_STAGE1", "auto|householder|givens",
     "sytrd's dense-to-band stage: by order (auto), Householder panels with cuBLAS updates, or Givens rotation blocks",
     false},
    {"GPUEIG_SYTRD_PANEL", "auto|levels",
     "sytrd: each panel's tree in one wavefront kernel where it fits (auto) or level by level",
     false},
    {"GPUEIG_SYTRD_APPLY", "auto|levels",
     "sytrd: a panel's levels applied by one kernel where the rows fit (auto) or a kernel a level",
     false},
    {"GPUEIG_GETRF_PANEL", "auto|stream",
     "getrf: sub-panels in registers where they fit (auto), or all by the streaming kernel",
     false},
    {"GPUEIG_GETRF_LOOKAHEAD", "auto|on|off",
     "getrf: the next panel factored on a second stream beside the current block row where that "
     "pays (auto), at every shape (on), or every step in order on one stream (off)", false},
    {"GPUEIG_GETRF_ROW_STRIP", "an integer >= 1",
     "getrf host call: the least rows a download strip of the factors takes (the bench's sweep)", true},
    {"GPUEIG_GETRF_FEED", "auto|lazy",
     "getrf host call: a chunk of the matrix taken in once it has landed (auto) or only once a step needs it (lazy: the tests' way to that path)", true},
    {"GPUEIG_GETRF_SIDE_BLOCKS", "an integer >= 0",
     "getrf look-ahead: blocks of a side-stream panel launch, at most (0: getrf_side_blocks's choice; the bench's sweep)", true},
    {"GPUEIG_SYTRD_CHUNK", "an integer >= 1", "sytrd: sweeps of bulge chasing per chunk", false},
    {"GPUEIG_SYTRD_ZROWS", "auto|32|64", "sytrd: rows of Q per block when Q's rotations are applied",
     false},
    {"GPUEIG_SYTRD_LEVEL_Y", "an integer >= 1",
     "sytrd: at most this many blocks share a level's strips (tests: 1 makes each loop over all)", false},
    {"GPUEIG_FAULT_INJECT", "alloc|launch|blas|no_device|lost|download|gpu_throw|cpu_throw[@k]",
     "fails the k-th such event of every call (src/fault.hpp)", true},
    {"GPUEIG_TOEPLITZ_METHOD", "auto|dense|structured",
     "toeplitz eigenvalues (RANGE 'I'/'V'): the dense half blocks, the structured method (T never "
     "formed), or auto's choice by n and the number wanted", false},
    {"GPUEIG_TOEPLITZ_CLUSTER", "auto|1..16|off",
     "toeplitz structured method on Hopper: the blocks of the thread-block cluster that holds a half "
     "block (auto: of those that hold it, the size that runs the most side by side), or off (one "
     "block a half, no cluster)", true},
    {"GPUEIG_TOEPLITZ_ORTHO_LIMIT", "an integer >= 0",
     "toeplitz vectors: a half's DSYEVR subset above this orthogonality ratio is recomputed by "
     "DSYEVD (default 15; 0: every subset)", true},
    {"GPUEIG_FAKE_DEVICE", "0|1", "GPU halves run by LAPACK on the host (src/fake_device.cpp)",
     true},
};

}  // namespace

const Variable *variables(int *count) {
  *count = static_cast<int>(sizeof kVariables / sizeof kVariables[0]);
  return kVariables;
}

std::string describe() {
  std::string out;
  for (const Variable &v : kVariables) {
    const char *value = raw(v.name);
    out += std::string("  ") + v.name + (value ? std::string("=") + value : " (unset)") + ": " +
           v.values + " -- " + v.meaning + (v.test_only ? " [test-only hook]" : "") + "\n";
  }
  return out;
}

const char *raw(const char *name) {
  const char *v = std::getenv(name);
  return (v && *v) ? v : nullptr;
}

void warn_once(const char *name, const char *value, const std::string &expected,
               const std::string &using_what) {
  // Never throws: a warning that cannot be recorded is printed again next time instead.
  static std::mutex m;
  static std::set<std::string> warned;
  try {
    std::lock_guard<std::mutex> lock(m);
    if (!warned.insert(name).second) return;
  } catch (...) {
  }
  std::fprintf(stderr, "gpueig: ignoring %s=%s (expected %s); %s\n", name, value,
               expected.c_str(), using_what.c_str());
}

bool read_integer(const char *name, int64_t *out, int64_t lo, int64_t hi,
                  const std::string &consequence) {
  const char *v = raw(name);
  if (!v) return true;
  char *end = nullptr;
  errno = 0;
  const long long x = std::strtoll(v, &end, 10);
  if (end != v && *end == '\0' && errno == 0 && x >= lo && x <= hi) {
    *out = x;
    return true;
  }
  std::string expected = "an integer";
  if (lo == 0 && hi == INT64_MAX) expected = "a non-negative integer";
  else if (hi == INT64_MAX) expected += " >= " + std::to_string(lo);
  else expected += " from " + std::to_string(lo) + " to " + std::to_string(hi);
  warn_once(name, v, expected, consequence);
  return false;
}

int64_t integer(const char *name, int64_t fallback, int64_t lo, int64_t hi) {
  int64_t x = fallback;
  return read_integer(name, &x, lo, hi, "using " + std::to_string(fallback)) ? x : fallback;
}

bool flag(const char *name) {
  const char *v = raw(name);
  if (!v) return false;
  const std::string s = lower(v);
  if (s == "1" || s == "yes" || s == "on" || s == "true") return true;
  if (s == "0" || s == "no" || s == "off" || s == "false") return false;
  warn_once(name, v, "0 or 1", "using 0");
  return false;
}

int choice(const char *name, std::initializer_list<const char *> choices, int fallback) {
  const char *v = raw(name);
  if (!v) return fallback;
  const std::string s = lower(v);
  int i = 0;
  std::string expected;
  for (const char *c : choices) {
    if (s == c) return i;
    expected += (i ? i + 1 == static_cast<int>(choices.size()) ? " or " : ", " : "") +
                std::string(c);
    ++i;
  }
  warn_once(name, v, expected, std::string("using ") + choices.begin()[fallback]);
  return fallback;
}

}  // namespace gpueig::env
