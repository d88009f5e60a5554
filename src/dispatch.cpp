#include "dispatch.hpp"

#include <atomic>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <strings.h>

#include "env.hpp"
#include "gpu_backend.hpp"

namespace gpueig {
namespace {

// Defaults are measured by gpueig_bench's crossover sweeps (host call, transfers included, against
// OpenBLAS) on an H100, 2026-11-21. gtsv: GPU faster from n = 16384 on (0.108 vs 0.277 ms),
// a tie at 4096 (0.065-0.074 vs 0.069 ms). stebz (all eigenvalues): GPU faster from n = 32 on (0.048 vs
// 0.255 ms), slower at 16 (0.048 vs 0.040 ms). getrf (square): GPU faster at every size swept,
// from 128 (0.41 vs 0.58 ms) to 2048 (11.3 vs 19.0 ms); smaller sizes were not swept and stay
// on the CPU. sytrd (values only, two-stage Givens method): GPU faster from n = 1024 on (23.2 vs
// 27.3 ms), slower at 768 (16.6 vs 14.3 ms). toeplitz (all eigenvalues, GPU method against the
// CPU method, both host calls): GPU faster from n = 1024 on (17.5-20.2 vs 28.0-29.7 ms, two
// runs), slower at 512 (8.2-8.3 vs 6.3-7.9 ms); H100, 2026-11-24.
const RoutineInfo kRoutines[] = {
    {"sytrd", true, 1024, "n"},
    {"stebz", true, 32, "n"},
    {"gtsv", true, 16384, "n"},
    {"getrf", true, 128, "min(m,n)"},
    {"toeplitz", true, 1024, "n"},
};

std::atomic<int> g_policy{-1};
thread_local Backend t_last = Backend::none;

// The policies in the order of the Policy enum, as gpueig_set_backend and GPUEIG_BACKEND name them.
constexpr const char *kPolicyNames[] = {"auto", "gpu", "cpu"};

bool parse_policy(const char *name, Policy &out) {
  if (!name) return false;
  for (int i = 0; i < 3; ++i)
    if (strcasecmp(name, kPolicyNames[i]) == 0) {
      out = static_cast<Policy>(i);
      return true;
    }
  return false;
}

}  // namespace

const RoutineInfo &routine_info(Routine r) { return kRoutines[static_cast<int>(r)]; }

Policy policy() {
  int p = g_policy.load(std::memory_order_relaxed);
  if (p < 0) {
    const auto env = static_cast<Policy>(
        env::choice("GPUEIG_BACKEND", {kPolicyNames[0], kPolicyNames[1], kPolicyNames[2]}, 0));
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

const char *policy_name(Policy p) { return kPolicyNames[static_cast<int>(p)]; }

int64_t crossover(Routine r) {
  const RoutineInfo &info = routine_info(r);
  std::string var = "GPUEIG_CROSSOVER_";
  for (const char *c = info.name; *c; ++c) var += static_cast<char>(std::toupper(*c));
  return env::integer(var.c_str(), info.default_crossover);
}

bool verbose() {
  static const bool v = env::flag("GPUEIG_VERBOSE");
  return v;
}

void inject_throw(const char *where) {
  const char *f = env::raw("GPUEIG_FAULT_INJECT");
  if (f && std::strcmp(f, where) == 0) throw std::runtime_error("injected fault (GPUEIG_FAULT_INJECT)");
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
void set_last_backend(Backend b) { t_last = b; }

}  // namespace gpueig
