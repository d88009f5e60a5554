#include "dispatch.hpp"

#include <atomic>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <strings.h>

#include <string>
#include <vector>

#include "env.hpp"
#include "fault.hpp"
#include "tuning.hpp"
#include "gpu_backend.hpp"

namespace gpueig {
namespace {

// Default crossovers: src/tuning.hpp (with the measurements that chose them).
const RoutineInfo kRoutines[] = {
    {"sytrd", true, tuning::kCrossoverSytrd, "n"},
    {"stebz", true, tuning::kCrossoverStebz, "n"},
    {"gtsv", true, tuning::kCrossoverGtsv, "n"},
    {"getrf", true, tuning::kCrossoverGetrf, "work-equivalent order"},
    {"toeplitz", true, tuning::kCrossoverToeplitz, "n"},
    {"gesv", true, tuning::kCrossoverGesv, "n"},
    {"getrs", true, tuning::kCrossoverGetrs, "n"},
    {"stein", true, tuning::kCrossoverStein, "m"},
    {"syevd", true, tuning::kCrossoverSyevd, "n"},
    {"syevx", true, tuning::kCrossoverSyevx, "n"},
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

const char *crossover_variable(Routine r) {
  // GPUEIG_CROSSOVER_<NAME>, spelled once.
  static const std::vector<std::string> vars = [] {
    std::vector<std::string> v;
    for (int i = 0; i < static_cast<int>(Routine::count); ++i) {
      std::string var = "GPUEIG_CROSSOVER_";
      for (const char *c = routine_info(static_cast<Routine>(i)).name; *c; ++c)
        var += static_cast<char>(std::toupper(static_cast<unsigned char>(*c)));
      v.push_back(var);
    }
    return v;
  }();
  return vars[static_cast<int>(r)].c_str();
}

int64_t crossover(Routine r) {
  // (read at every call: the variable may change)
  return env::integer(crossover_variable(r), routine_info(r).default_crossover);
}

bool verbose() {
  static const bool v = env::flag("GPUEIG_VERBOSE");
  return v;
}

void inject_throw(fault::Kind where) {
  if (fault::fires(where)) throw std::runtime_error("injected fault (GPUEIG_FAULT_INJECT)");
}

Decision choose(Routine r, int64_t size, bool explain) {
  const RoutineInfo &info = routine_info(r);
  Policy p = policy();
  if (p == Policy::cpu) return {Backend::cpu, false, "policy cpu"};
  if (!info.has_gpu) return {Backend::cpu, false, "no GPU method for this routine yet"};
  if (p == Policy::gpu) return {Backend::gpu, true, "policy gpu"};
  const int64_t x = crossover(r);
  if (size < x)
    return {Backend::cpu, false,
            !explain ? ""
            : x >= tuning::kNotTimed
                ? std::string("GPU method not timed yet (") + crossover_variable(r) + " sets a size)"
                : "below crossover " + std::to_string(x)};
  if (!gpu::available())
    return {Backend::cpu, false, explain ? "no usable GPU: " + gpu::unavailable_reason() : ""};
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
    : routine_(r), sizes_(std::move(sizes)), start_(std::chrono::steady_clock::now()) {
  fault::begin_call();
}

CallRecord::~CallRecord() {
  if (!done_) t_last = Backend::none;
}

void CallRecord::done(Backend b, const std::string &given) {
  done_ = true;
  t_last = b;
  if (!verbose()) return;
  const std::string note = given.empty() ? extra_ : extra_.empty() ? given : given + "; " + extra_;
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_)
                  .count();
  std::fprintf(stderr, "gpueig: %s %s -> %s %.3f ms%s%s%s\n", routine_info(routine_).name,
               sizes_.c_str(), backend_name(b), ms, note.empty() ? "" : " (", note.c_str(),
               note.empty() ? "" : ")");
}

Backend last_backend() { return t_last; }

namespace gpu {
Device &device() { return env::flag("GPUEIG_FAKE_DEVICE") ? fake_device() : hardware(); }
}  // namespace gpu
void set_last_backend(Backend b) { t_last = b; }

}  // namespace gpueig
