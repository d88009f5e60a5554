// Backend selection for every public routine: policy (auto|gpu|cpu), per-routine crossover
// sizes, the thread's last backend, and the GPUEIG_VERBOSE call log.
#pragma once
#include <chrono>
#include <cstdint>
#include <string>

namespace gpueig {

enum class Routine { sytrd, stebz, gtsv, getrf, toeplitz, count };
enum class Policy { automatic, gpu, cpu };
enum class Backend { none, cpu, gpu };

struct RoutineInfo {
  const char *name;          // short name used in logs and environment variables
  bool has_gpu;              // whether a GPU method exists yet
  int64_t default_crossover; // smallest problem size `auto` sends to the GPU (measured)
  const char *size_meaning;  // what "size" is for this routine
};
const RoutineInfo &routine_info(Routine r);

Policy policy();
bool set_policy_by_name(const char *name);
const char *policy_name(Policy p);

// Crossover in force: GPUEIG_CROSSOVER_<NAME> (e.g. GPUEIG_CROSSOVER_GTSV=65536) or the default.
int64_t crossover(Routine r);
bool verbose();

// Where a call should run, and why (the why is logged with GPUEIG_VERBOSE).
struct Decision {
  Backend backend;
  bool forced;  // policy "gpu": device failures are errors instead of fallbacks
  std::string why;
};
Decision choose(Routine r, int64_t size);

// One public call: times it, records the thread's last backend and prints the verbose line.
class CallRecord {
 public:
  CallRecord(Routine r, std::string sizes);
  ~CallRecord();
  void done(Backend b, const std::string &note = "");
  CallRecord(const CallRecord &) = delete;
  CallRecord &operator=(const CallRecord &) = delete;

 private:
  Routine routine_;
  std::string sizes_;
  std::chrono::steady_clock::time_point start_;
  bool done_ = false;
};

const char *backend_name(Backend b);
// The calling thread's last backend (gpueig_last_backend).
Backend last_backend();

}  // namespace gpueig
