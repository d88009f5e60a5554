#include "dispatch.hpp"

#include <atomic>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "gpu_backend.hpp"

namespace gpueig {
namespace {

// Defaults are measured by gpueig_bench's crossover sweeps (host call, transfers included, against
// OpenBLAS) on an H100, 2026-11-21. gtsv: GPU faster from n = 16384 on (0.108 vs 0.277 ms),
// a tie at 4096 (0.065-0.074 vs 0.069 ms). stebz (all eigenvalues): GPU faster from n = 32 on (0.048 vs
// 0.255 ms), slower at 16 (0.048 vs 0.040 ms). getrf (square): GPU faster at every size swept,
// from 128 (0.41 vs 0.58 ms) to 2048 (11.3 vs 19.0 ms); smaller sizes were not swept and stay
// on the CPU. sytrd (values only, two-stage Givens method): GPU faster from n = 1024 on (23.2 vs
// 27.3 ms), slower at 768 (16.6 vs 14.3 ms). Routines without a GPU method keep "never".
constexpr int64_t kNever = INT64_MAX;
const RoutineInfo kRoutines[] = {
    {"sytrd", true, 1024, "n"},
    {"stebz", true, 32, "n"},
    {"gtsv", true, 16384, "n"},
    {"getrf", true, 128, "min(m,n)"},
    {"toeplitz", false, kNever, "n"},
};

std::atomic<int> g_policy{-1};
thread_local Backend t_last = Backend::none;

bool parse_policy(const char *name, Policy &out) {
  if (!name) return false;
  std::string s;
  for (const char *p = name; *p; ++p) s += static_cast<char>(std::tolower(*p));
  if (s == "auto") out = Policy::automatic;
  else if (s == "gpu") out = Policy::gpu;
  else if (s == "cpu") out = Policy::cpu;
  else return false;
  return true;
}

int64_t env_int(const char *name, int64_t fallback) {
  const char *v = std::getenv(name);
  if (!v || !*v) return fallback;
  char *end = nullptr;
  long long x = std::strtoll(v, &end, 10);
  return (end && *end == '\0' && x >= 0) ? x : fallback;
}

}  // namespace

const RoutineInfo &routine_info(Routine r) { return kRoutines[static_cast<int>(r)]; }

Policy policy() {
  int p = g_policy.load(std::memory_order_relaxed);
  if (p < 0) {
    Policy env = Policy::automatic;
    const char *v = std::getenv("GPUEIG_BACKEND");
    if (v && *v && !parse_policy(v, env))
      std::fprintf(stderr, "gpueig: ignoring unknown GPUEIG_BACKEND=%s (using auto)\n", v);
    int expected = -1;
    g_policy.compare_exchange_strong(expected, static_cast<int>(env));
    p = g_policy.load();
  }
  return static_cast<Policy>(p);
}

bool set_policy_by_name(const char *name) {
  Policy p;
  if (!parse_policy(name, p)) return false;
  g_policy.store(static_cast<int>(p));
  return true;
}

const char *policy_name(Policy p) {
  switch (p) {
    case Policy::gpu: return "gpu";
    case Policy::cpu: return "cpu";
    default: return "auto";
  }
}

int64_t crossover(Routine r) {
  const RoutineInfo &info = routine_info(r);
  std::string var = "GPUEIG_CROSSOVER_";
  for (const char *c = info.name; *c; ++c) var += static_cast<char>(std::toupper(*c));
  return env_int(var.c_str(), info.default_crossover);
}

bool verbose() {
  static const bool v = [] {
    const char *s = std::getenv("GPUEIG_VERBOSE");
    return s && *s && std::strcmp(s, "0") != 0;
  }();
  return v;
}

Decision choose(Routine r, int64_t size) {
  const RoutineInfo &info = routine_info(r);
  Policy p = policy();
  if (p == Policy::cpu) return {Backend::cpu, false, "policy cpu"};
  if (!info.has_gpu) return {Backend::cpu, false, "no GPU method for this routine yet"};
  if (p == Policy::gpu) return {Backend::gpu, true, "policy gpu"};
  if (size < crossover(r))
    return {Backend::cpu, false, "below crossover " + std::to_string(crossover(r))};
  if (!gpu::available()) return {Backend::cpu, false, "no usable GPU: " + gpu::unavailable_reason()};
  return {Backend::gpu, false, "auto"};
}

const char *backend_name(Backend b) {
  switch (b) {
    case Backend::gpu: return "gpu";
    case Backend::cpu: return "cpu";
    default: return "none";
  }
}

CallRecord::CallRecord(Routine r, std::string sizes)
    : routine_(r), sizes_(std::move(sizes)), start_(std::chrono::steady_clock::now()) {}

CallRecord::~CallRecord() {
  if (!done_) t_last = Backend::none;
}

void CallRecord::done(Backend b, const std::string &note) {
  done_ = true;
  t_last = b;
  if (!verbose()) return;
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_)
                  .count();
  std::fprintf(stderr, "gpueig: %s %s -> %s %.3f ms%s%s%s\n", routine_info(routine_).name,
               sizes_.c_str(), backend_name(b), ms, note.empty() ? "" : " (", note.c_str(),
               note.empty() ? "" : ")");
}

Backend last_backend() { return t_last; }

}  // namespace gpueig
