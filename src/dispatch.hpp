// Backend selection for every public routine: policy (auto|gpu|cpu), per-routine crossover
// sizes, the thread's last backend, and the GPUEIG_VERBOSE call log.
#pragma once
#include <chrono>
#include <cstdint>
#include <string>

#include "gpu_backend.hpp"
#include "gpueig.h"

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

// Runs one call where choose() sends it: gpu_call(info) first when the GPU was chosen, returning a
// gpu::Status and setting the routine's INFO; cpu_call() (returning INFO) otherwise, or after the
// GPU attempt failed. A device failure is an error (GPUEIG_ERR_DEVICE, nothing written) only when
// the policy forced the GPU; an input the GPU method cannot be trusted on (Status::unsafe) is
// recomputed on the CPU whatever the policy.
template <class GpuCall, class CpuCall>
int run_dispatched(CallRecord &call, Routine r, int64_t size, GpuCall &&gpu_call,
                   CpuCall &&cpu_call);

const char *backend_name(Backend b);
// The calling thread's last backend (gpueig_last_backend).
Backend last_backend();

template <class GpuCall, class CpuCall>
int run_dispatched(CallRecord &call, Routine r, int64_t size, GpuCall &&gpu_call,
                   CpuCall &&cpu_call) {
  const Decision how = choose(r, size);
  std::string note = how.why;
  if (how.backend == Backend::gpu) {
    int info = 0;
    const gpu::Status st = gpu_call(info);
    if (st) {
      call.done(Backend::gpu, note);
      return info;
    }
    if (st.code == gpu::Status::output_lost || (how.forced && st.code != gpu::Status::unsafe)) {
      call.done(Backend::none, "device failure: " + st.reason);
      return GPUEIG_ERR_DEVICE;
    }
    note = "fallback: " + st.reason;
  }
  const int info = cpu_call();
  call.done(Backend::cpu, note);
  return info;
}

}  // namespace gpueig
