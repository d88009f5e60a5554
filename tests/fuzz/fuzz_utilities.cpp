// The utility entry points: gpueig_version, gpueig_gpu_available, gpueig_last_backend,
// gpueig_set_backend (any string, NULL included), gpueig_backend_for and gpueig_backend_reason
// (any string, NULL, any size),
// gpueig_info; and the GPUEIG_CROSSOVER_* parsing behind gpueig_backend_for (any value).
// The input is a sequence of operations (one byte each, then its arguments). Strings are heap
// copies of exactly their length plus the terminating NUL (a read past it is an ASan report).
// Properties: set_backend returns 0 exactly for "auto", "gpu", "cpu" in any case, else -1 with the
// policy unchanged (as gpueig_info reports it); backend_for returns NULL exactly for a name that is
// not one of the five routines, else "gpu" or "cpu" ("cpu" under the cpu policy, "gpu" under the
// gpu policy); gpu_available is 0 or 1; version is MAJOR.MINOR.PATCH; info names the version and
// the policy; last_backend is "gpu", "cpu" or "none" and follows the policy for a small call.
#include <strings.h>

#include <memory>

#include "fuzz_common.hpp"

using namespace fuzz;

namespace {

const char *const kRoutines[] = {"sytrd", "stebz", "gtsv", "getrf", "toeplitz", "gesv", "getrs",
                                  "stein", "syevd", "syevx"};
constexpr int kRoutineCount = sizeof(kRoutines) / sizeof(kRoutines[0]);
const char *const kPolicies[] = {"auto", "gpu", "cpu"};
std::string g_policy = "auto";

// A string from the input: often a known name with its case changed or a byte appended or cut.
std::string text(Input &in) {
  const uint8_t how = in.u8();
  std::string s;
  if (how < 128) {
    s = how & 1 ? kRoutines[(how >> 1) % kRoutineCount] : kPolicies[(how >> 1) % 3];
    const uint8_t edit = in.u8();
    if (edit & 1)
      for (char &c : s) c = static_cast<char>(in.flag() ? c ^ 0x20 : c);
    if (edit & 2) s.push_back(static_cast<char>(in.u8()));
    if ((edit & 4) && !s.empty()) s.pop_back();
    if (edit & 8) s.insert(s.begin(), static_cast<char>(in.u8()));
  } else {
    const int len = in.in(0, 40);
    for (int i = 0; i < len && !in.exhausted(); ++i) s.push_back(static_cast<char>(in.u8()));
  }
  return s;
}

// A heap copy of exactly strlen + 1 bytes (the string ends at its first NUL, as C sees it).
std::unique_ptr<char[]> c_string(const std::string &s) {
  const size_t len = std::strlen(s.c_str());
  std::unique_ptr<char[]> p(new char[len + 1]);
  std::memcpy(p.get(), s.c_str(), len + 1);
  return p;
}

std::string policy_in_info() {
  const char *info = gpueig_info();
  FUZZ_CHECK(info != nullptr, "gpueig_info() returned NULL");
  const char *at = std::strstr(info, "backend policy: ");
  FUZZ_CHECK(at != nullptr, "gpueig_info() has no 'backend policy:' line:\n%s", info);
  at += std::strlen("backend policy: ");
  return std::string(at, std::strcspn(at, "\n"));
}

void check_version() {
  const char *v = gpueig_version();
  FUZZ_CHECK(v != nullptr, "gpueig_version() returned NULL");
  int a = -1, b = -1, c = -1, used = 0;
  FUZZ_CHECK(std::sscanf(v, "%d.%d.%d%n", &a, &b, &c, &used) == 3 && v[used] == '\0',
             "gpueig_version() = '%s', not MAJOR.MINOR.PATCH", v);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  set_up_environment();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Input in(data, size);
  FUZZ_CHECK(gpueig_set_backend("auto") == 0, "gpueig_set_backend(\"auto\") refused");
  g_policy = "auto";
  for (int op = 0; op < 48 && !in.exhausted(); ++op) {
    switch (in.u8() % 8) {
      case 0: {  // set_backend
        const bool null = in.u8() < 8;
        const std::string s = text(in);
        auto c = c_string(s);
        const int r = gpueig_set_backend(null ? nullptr : c.get());
        bool known = false;
        for (const char *p : kPolicies) known |= !null && strcasecmp(c.get(), p) == 0;
        FUZZ_CHECK(r == (known ? 0 : -1), "gpueig_set_backend(%s%s%s) = %d", null ? "" : "\"",
                   null ? "NULL" : c.get(), null ? "" : "\"", r);
        if (known) {
          g_policy = c.get();
          for (char &ch : g_policy) ch = static_cast<char>(ch >= 'A' && ch <= 'Z' ? ch + 32 : ch);
        }
        const std::string now = policy_in_info();
        FUZZ_CHECK(now == g_policy, "policy is '%s' after gpueig_set_backend, expected '%s'", now.c_str(),
                   g_policy.c_str());
        break;
      }
      case 1: {  // backend_for
        const bool null = in.u8() < 8;
        const std::string s = text(in);
        auto c = c_string(s);
        long long sz = 0;
        const uint8_t how = in.u8();
        if (how < 64) sz = static_cast<long long>(how) - 8;
        else for (int i = 0; i < 8; ++i) sz = (sz << 8) | in.u8();
        const char *r = gpueig_backend_for(null ? nullptr : c.get(), sz);
        const char *why = gpueig_backend_reason(null ? nullptr : c.get(), sz);
        bool known = false;
        for (const char *p : kRoutines) known |= !null && std::strcmp(c.get(), p) == 0;
        if (!known) {
          FUZZ_CHECK(r == nullptr && why == nullptr,
                     "gpueig_backend_for/reason(\"%s\", %lld) = %s / %s for an unknown routine",
                     null ? "NULL" : c.get(), sz, r, why);
          break;
        }
        FUZZ_CHECK(why && *why, "gpueig_backend_reason(\"%s\", %lld) gives no reason", c.get(), sz);
        FUZZ_CHECK(r && (!std::strcmp(r, "gpu") || !std::strcmp(r, "cpu")),
                   "gpueig_backend_for(\"%s\", %lld) = %s", c.get(), sz, r ? r : "NULL");
        if (g_policy == "cpu") FUZZ_CHECK(!std::strcmp(r, "cpu"), "backend_for under cpu policy: %s", r);
        if (g_policy == "gpu")
          FUZZ_CHECK(!std::strcmp(r, "gpu"), "backend_for under gpu policy: %s", r);  // (every routine has a GPU method)
        if (g_policy == "auto" && !gpueig_gpu_available())
          FUZZ_CHECK(!std::strcmp(r, "cpu"), "backend_for under auto without a GPU: %s", r);
        break;
      }
      case 2: {
        const int a = gpueig_gpu_available();
        FUZZ_CHECK(a == 0 || a == 1, "gpueig_gpu_available() = %d", a);
        break;
      }
      case 3: {
        check_version();
        const char *info = gpueig_info();
        FUZZ_CHECK(info && std::strstr(info, (std::string("libgpueig ") + gpueig_version()).c_str()),
                   "gpueig_info() does not name the version:\n%s", info ? info : "(null)");
        break;
      }
      case 4: {
        const char *b = gpueig_last_backend();
        FUZZ_CHECK(b && (!std::strcmp(b, "gpu") || !std::strcmp(b, "cpu") || !std::strcmp(b, "none")),
                   "gpueig_last_backend() = %s", b ? b : "(null)");
        break;
      }
      case 5: {  // a small call, then the last backend follows the policy
        const int n = in.in(1, 6);
        std::vector<double> dl(n - 1, -1.0), d(n, 4.0), du(n - 1, -1.0), b(n, 1.0);
        const int r = gpu_gtsv_pcr(n, 1, dl.data(), d.data(), du.data(), b.data(), n);
        const char *lb = gpueig_last_backend();
        if (r == GPUEIG_ERR_DEVICE) {
          FUZZ_CHECK(g_policy == "gpu", "GPUEIG_ERR_DEVICE under policy %s", g_policy.c_str());
          FUZZ_CHECK(!std::strcmp(lb, "none"), "last backend %s after GPUEIG_ERR_DEVICE", lb);
          break;
        }
        FUZZ_CHECK(r == 0, "gpu_gtsv_pcr of a diagonally dominant system: INFO %d (policy %s)", r, g_policy.c_str());
        if (g_policy == "cpu") FUZZ_CHECK(!std::strcmp(lb, "cpu"), "policy cpu, last backend %s", lb);
        if (g_policy == "gpu") FUZZ_CHECK(!std::strcmp(lb, "gpu"), "policy gpu, last backend %s", lb);
        break;
      }
      case 6: {  // an argument error: last backend "none"
        const int r = gpu_getrf_crout(-1 - in.in(0, 3), 1, nullptr, 1, nullptr);
        FUZZ_CHECK(r == -1, "gpu_getrf_crout(M < 0) = %d", r);
        FUZZ_CHECK(!std::strcmp(gpueig_last_backend(), "none"), "last backend %s after an argument error",
                   gpueig_last_backend());
        break;
      }
      default: {  // GPUEIG_CROSSOVER_<ROUTINE> = any text, then backend_for that routine
        const int k = in.in(0, 4);
        std::string var = "GPUEIG_CROSSOVER_";
        for (const char *c = kRoutines[k]; *c; ++c) var += static_cast<char>(*c - 32);
        const std::string value = text(in);
        setenv(var.c_str(), value.c_str(), 1);
        const char *r = gpueig_backend_for(kRoutines[k], static_cast<long long>(in.u8()) - 8);
        setenv(var.c_str(), "0", 1);
        FUZZ_CHECK(r && (!std::strcmp(r, "gpu") || !std::strcmp(r, "cpu")),
                   "gpueig_backend_for(%s) = %s with %s='%s'", kRoutines[k], r ? r : "NULL", var.c_str(),
                   value.c_str());
        break;
      }
    }
  }
  return 0;
}
