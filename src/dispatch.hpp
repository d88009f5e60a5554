// Backend selection for every public routine: policy (auto|gpu|cpu), per-routine crossover
// sizes, the thread's last backend, and the GPUEIG_VERBOSE call log.
#pragma once
#include <chrono>
#include <cstdint>
#include <string>
#include <utility>

#include "fault.hpp"
#include "gpu_backend.hpp"
#include "gpueig.h"

namespace gpueig {

enum class Routine { sytrd, stebz, gtsv, getrf, toeplitz, gesv, getrs, stein, syevd, syevx, count };
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
// Its environment variable, GPUEIG_CROSSOVER_<NAME>.
const char *crossover_variable(Routine r);
bool verbose();

// Where a call should run, and why (the why is logged with GPUEIG_VERBOSE; it is put in words
// only when `explain`: gpueig_backend_for and an unlogged call build no string).
struct Decision {
  Backend backend;
  bool forced;  // policy "gpu": device failures are errors instead of fallbacks
  std::string why;
};
Decision choose(Routine r, int64_t size, bool explain = true);

// One public call: times it, records the thread's last backend and prints the verbose line.
class CallRecord {
 public:
  CallRecord(Routine r, std::string sizes);
  ~CallRecord();
  void done(Backend b, const std::string &note = "");
  // Adds to the verbose line's note (the method a routine chose and what it did).
  void add_note(const std::string &more) { extra_ += (extra_.empty() ? "" : "; ") + more; }
  CallRecord(const CallRecord &) = delete;
  CallRecord &operator=(const CallRecord &) = delete;

 private:
  Routine routine_;
  std::string sizes_, extra_;
  std::chrono::steady_clock::time_point start_;
  bool done_ = false;
};

// Runs one call where choose() sends it: gpu_call(info) first when the GPU was chosen, returning a
// gpu::Status and setting the routine's INFO; cpu_call() (returning INFO) otherwise, or after the
// GPU attempt failed. A device failure is an error (GPUEIG_ERR_DEVICE, nothing written) only when
// the policy forced the GPU; an input the GPU method cannot be trusted on (Status::unsafe) is
// recomputed on the CPU whatever the policy. A GPU attempt that throws is a device failure; a CPU
// path that throws returns GPUEIG_ERR_MEMORY (host code throws only when it cannot allocate).
template <class GpuCall, class CpuCall>
int run_dispatched(CallRecord &call, Routine r, int64_t size, GpuCall &&gpu_call,
                   CpuCall &&cpu_call);

// A routine without a GPU method yet (RoutineInfo::has_gpu false): its CPU path through the same
// record, fault hook and exception barrier as every dispatched call.
template <class CpuCall>
int run_on_cpu(CallRecord &call, Routine r, int64_t size, CpuCall &&cpu_call) {
  return run_dispatched(
      call, r, size,
      [](int &) { return gpu::Status::fail(gpu::Status::device_error, "no GPU method"); },
      std::forward<CpuCall>(cpu_call));
}

// The barrier of every extern "C" entry point: body() runs, and no exception leaves it. One that
// escapes becomes `on_exception` (GPUEIG_ERR_MEMORY for the routines: host code throws only when
// it cannot allocate) and the thread's last backend "none".
template <class Body, class R = decltype(std::declval<Body>()())>
R guarded(Body &&body, R on_exception = R(GPUEIG_ERR_MEMORY)) noexcept;

// Test hook (GPUEIG_FAULT_INJECT=gpu_throw or cpu_throw): throws inside the GPU attempt or the CPU
// path of every dispatched call, so the tests can prove the barrier holds.
void inject_throw(fault::Kind where);

const char *backend_name(Backend b);
// The calling thread's last backend (gpueig_last_backend).
Backend last_backend();

void set_last_backend(Backend b);

// A CPU result that is a library error (no LAPACK, no memory, an inner failure) ran nowhere.
inline Backend backend_of_cpu_result(int info) {
  return info <= -1000 ? Backend::none : Backend::cpu;
}

template <class GpuCall, class CpuCall>
int run_dispatched(CallRecord &call, Routine r, int64_t size, GpuCall &&gpu_call,
                   CpuCall &&cpu_call) {
  const Decision how = choose(r, size, verbose());
  std::string note = how.why;
  if (how.backend == Backend::gpu) {
    int info = 0;
    gpu::Status st;
    try {
      inject_throw(fault::Kind::gpu_throw);
      st = gpu_call(info);
    } catch (const std::exception &e) {
      st = gpu::Status::fail(gpu::Status::device_error, std::string("exception: ") + e.what());
    } catch (...) {
      st = gpu::Status::fail(gpu::Status::device_error, "exception");
    }
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
  int info;
  try {
    inject_throw(fault::Kind::cpu_throw);
    info = cpu_call();
  } catch (...) {
    call.done(Backend::none, "host exception (out of memory)");
    return GPUEIG_ERR_MEMORY;
  }
  const Backend ran = backend_of_cpu_result(info);
  if (ran == Backend::none) note = "library error " + std::to_string(info);
  call.done(ran, note);
  return info;
}

template <class Body, class R>
R guarded(Body &&body, R on_exception) noexcept {
  try {
    return body();
  } catch (...) {
    set_last_backend(Backend::none);
    return on_exception;
  }
}

}  // namespace gpueig
