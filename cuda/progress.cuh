// Progress counters between thread blocks of one kernel (a pipeline whose stages wait on each
// other's published progress): the capped wait and the publication, written once.
#pragma once
#include <cuda/atomic>

namespace gpueig::gpu {

// A wait longer than this means a bug: the waiter gives up and reports it, never hangs.
constexpr unsigned long long kProgressWaitLimitNs = 20ull * 1000 * 1000 * 1000;

// The GPU's global nanosecond clock: the capped waits measure their time on it.
__device__ __forceinline__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// The calling thread spins until *counter (device scope, acquire) >= need. False, and *failed
// set, after kProgressWaitLimitNs; false as well once another waiter has set *failed.
__device__ inline bool spin_until(int *counter, int need, int *failed) {
  cuda::atomic_ref<int, cuda::thread_scope_device> flag(*counter), bad(*failed);
  const unsigned long long t0 = global_ns();
  for (unsigned spins = 0; flag.load(cuda::memory_order_acquire) < need; ++spins) {
    // Another waiter's failure is looked for now and then: it costs a load the counter's does not.
    if (spins % 16 == 15 && bad.load(cuda::memory_order_relaxed)) return false;
    if (global_ns() - t0 > kProgressWaitLimitNs) {
      bad.store(1, cuda::memory_order_relaxed);
      return false;
    }
    // A wait sits on a pipeline's critical path: spin without sleeping first, then back off.
    if (spins >= 256) __nanosleep(64);
  }
  return true;
}

// The calling thread publishes `value` (device scope, release): every store the thread made, and
// every store ordered before it by a barrier of its block, is visible to a thread that sees the
// value (the pattern of a grid-wide barrier: block barrier, then one thread's release).
__device__ inline void publish_progress(int *counter, int value) {
  cuda::atomic_ref<int, cuda::thread_scope_device>(*counter).store(value, cuda::memory_order_release);
}

}  // namespace gpueig::gpu
