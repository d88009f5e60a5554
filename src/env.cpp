#include "env.hpp"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <set>

namespace gpueig::env {
namespace {

std::string lower(const char *s) {
  std::string out;
  for (; *s; ++s) out += static_cast<char>(*s >= 'A' && *s <= 'Z' ? *s + 32 : *s);
  return out;
}

}  // namespace

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
