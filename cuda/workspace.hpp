// Device memory of one call, planned once and allocated once.
//
// Every routine lays its device arrays out with a WorkspacePlan (src/workspace_plan.hpp: each
// part aligned to kWorkspaceAlign, offsets computed in one function that both the size and the
// carving use), then takes one Workspace: a stream-ordered allocation from the library's memory pool, returned
// to the pool on the call's stream when the call ends, so two calls on two streams never wait
// for each other and no call frees memory a queued kernel may still use. The pool keeps up to
// kPoolKeepBytes between calls and gives the rest back to the driver (cuda/context.cu).
// GPUEIG_FAULT_INJECT=alloc fails the allocation as an out-of-memory cudaMallocAsync would.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "gpu_backend.hpp"
#include "workspace_plan.hpp"

namespace gpueig::gpu {

class Workspace {
 public:
  explicit Workspace(cudaStream_t st) : st_(st) {}
  ~Workspace() { release(); }
  Workspace(const Workspace &) = delete;
  Workspace &operator=(const Workspace &) = delete;

  // One allocation of `bytes` (at least 1), ordered on the stream; replaces an earlier one.
  Status allocate(size_t bytes);
  Status allocate(const WorkspacePlan &plan) { return allocate(plan.bytes()); }
  void release();

  char *get() const { return static_cast<char *>(p_); }
  template <class T>
  T *at(size_t offset) const {
    return part<T>(p_, offset);
  }

 private:
  cudaStream_t st_;
  void *p_ = nullptr;
};

}  // namespace gpueig::gpu
