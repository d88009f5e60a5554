// The environment variables libgpueig reads (GPUEIG_*), parsed in one place: a value that is set
// but not valid is never taken silently as something else; it is reported once on stderr
// ("gpueig: ignoring GPUEIG_X=value (expected ...); using ...") and the default is used.
// Compiled into libgpueig and into the LD_PRELOAD shim.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <string>

namespace gpueig::env {

// The value of `name`, or nullptr when it is unset or empty.
const char *raw(const char *name);

// An integer in [lo, hi]; unset gives `fallback`, anything else (a sign where lo >= 0, trailing
// characters, out of range) is reported and gives `fallback`.
int64_t integer(const char *name, int64_t fallback, int64_t lo = 0, int64_t hi = INT64_MAX);

// The same, for a variable whose bad value has no default to fall back on: true and *out set for
// a valid value, true and *out untouched when unset, false (reported with `consequence`) for a
// bad value.
bool read_integer(const char *name, int64_t *out, int64_t lo, int64_t hi,
                  const std::string &consequence);

// "0" or "1" (also "no"/"yes", "off"/"on", "false"/"true", any case); unset gives false.
bool flag(const char *name);

// One of `choices` (case-insensitive): its index; unset gives `fallback`, anything else is
// reported and gives `fallback`.
int choice(const char *name, std::initializer_list<const char *> choices, int fallback);

// Every variable libgpueig and its shim read: the one list (`gpueig info` prints it, a test checks
// that no other GPUEIG_ name is read anywhere in src/ and cuda/).
struct Variable {
  const char *name;
  const char *values;   // what it takes
  const char *meaning;
  bool test_only;       // a hook for the tests, not for production use
};
const Variable *variables(int *count);

// For `gpueig info`: one line per variable, with its value when set.
std::string describe();

// Reports a bad value of `name` once per process: "gpueig: ignoring NAME=value (expected
// `expected`); `using`".
void warn_once(const char *name, const char *value, const std::string &expected,
               const std::string &using_what);

}  // namespace gpueig::env
