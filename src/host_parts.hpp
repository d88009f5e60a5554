// Host work shared out over threads, written once: memory-bound loops over large host arrays
// (a triangle's max, the Toeplitz half blocks and their lifted vectors).
#pragma once
#include <algorithm>
#include <cstdint>
#include <new>
#include <thread>
#include <utility>
#include <vector>

namespace gpueig {

// How many parts `work` entries are cut into: 1 below `threshold`, else up to 8 (the hardware's
// threads allowing).
inline int host_parts(int64_t work, int64_t threshold) {
  if (work < threshold) return 1;
  return static_cast<int>(std::clamp(std::thread::hardware_concurrency(), 1u, 8u));
}

// f(0) .. f(parts - 1): part 0 on the calling thread, the others on threads of their own; a part
// whose thread cannot be started runs on the calling thread. f must not throw.
template <class F>
void run_parts(int parts, F &&f) {
  std::vector<std::thread> threads;
  int started = 1;
  try {
    threads.reserve(std::max(parts - 1, 0));  // (a reallocation must not throw with a thread started)
    for (; started < parts; ++started) threads.emplace_back([&f, started] { f(started); });
  } catch (...) {  // fewer threads: the calling thread takes the parts that found none
  }
  for (int p = started; p < parts; ++p) f(p);
  if (parts > 0) f(0);
  for (std::thread &t : threads) t.join();
}

// A std::vector element type's allocator that leaves new elements uninitialized: a large host
// array filled by run_parts' threads is then first touched (its pages faulted in) by those
// threads, in parallel, instead of by a zero fill on one.
template <class T>
struct UninitializedAllocator : std::allocator<T> {
  template <class U>
  struct rebind {
    using other = UninitializedAllocator<U>;
  };
  UninitializedAllocator() = default;
  template <class U>
  UninitializedAllocator(const UninitializedAllocator<U> &) noexcept {}
  template <class U>
  void construct(U *p) noexcept {
    ::new (static_cast<void *>(p)) U;
  }
  template <class U, class... A>
  void construct(U *p, A &&...a) {
    ::new (static_cast<void *>(p)) U(std::forward<A>(a)...);
  }
};
using HostArray = std::vector<double, UninitializedAllocator<double>>;

}  // namespace gpueig
