#include "fault.hpp"

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

#include "env.hpp"

namespace gpueig::fault {
namespace {

constexpr const char *kNames[] = {"none",      "alloc",    "launch",    "blas",     "no_device",
                                  "lost",      "download", "gpu_throw", "cpu_throw"};
constexpr int kKinds = sizeof kNames / sizeof kNames[0];

struct Spec {
  Kind kind = Kind::none;
  long at = 1;
};

// The parsed value, kept with the text it came from: parsed once per value (tests change it
// between calls with setenv).
Spec parse(const char *v) {
  static std::mutex m;
  static std::string last;
  static Spec spec;
  std::lock_guard<std::mutex> lock(m);
  const std::string text = v ? v : "";
  if (text == last) return spec;
  last = text;
  spec = Spec{};
  if (text.empty()) return spec;
  const size_t at = text.find('@');
  const std::string kind = text.substr(0, at);
  long k = 1;
  bool ok = true;
  if (at != std::string::npos) {
    char *end = nullptr;
    k = std::strtol(text.c_str() + at + 1, &end, 10);
    ok = end != text.c_str() + at + 1 && *end == '\0' && k >= 1;
  }
  int found = 0;
  for (int i = 1; i < kKinds && ok; ++i)
    if (kind == kNames[i]) found = i;
  if (!found) {
    env::warn_once("GPUEIG_FAULT_INJECT", v,
                   "alloc, launch, blas, no_device, lost, download, gpu_throw or cpu_throw, "
                   "optionally followed by @k (k >= 1)",
                   "no fault injected");
    return spec;
  }
  spec = {static_cast<Kind>(found), k};
  return spec;
}

thread_local long t_count[kKinds] = {};

}  // namespace

Kind armed() {
  const char *v = env::raw("GPUEIG_FAULT_INJECT");
  if (!v) return Kind::none;  // the common case: no lock, nothing parsed
  return parse(v).kind;
}

const char *name(Kind k) { return kNames[static_cast<int>(k)]; }

bool fires(Kind k) {
  const char *v = env::raw("GPUEIG_FAULT_INJECT");
  if (!v) return false;
  const Spec s = parse(v);
  if (s.kind != k) return false;
  return ++t_count[static_cast<int>(k)] == s.at;
}

void begin_call() {
  for (long &c : t_count) c = 0;
}

}  // namespace gpueig::fault
