// The layout of a call's device workspace: parts reserved one after the other, each aligned to
// kWorkspaceAlign, their offsets computed once by the function that both sizes the allocation and
// carves it. CUDA-free, so host-side phases (src/stebz_phases.cpp) plan with it too; the
// allocation itself is cuda/workspace.hpp's.
#pragma once
#include <cstddef>

namespace gpueig {

// 256 bytes: cudaMalloc's own alignment, which the tensor-core DGEMMs and vector loads expect.
constexpr size_t kWorkspaceAlign = 256;
constexpr size_t align_up(size_t bytes) {
  return (bytes + kWorkspaceAlign - 1) / kWorkspaceAlign * kWorkspaceAlign;
}

class WorkspacePlan {
 public:
  // Reserves `bytes` (rounded up to the alignment); returns the part's offset.
  size_t add(size_t bytes) {
    const size_t at = total_;
    total_ += align_up(bytes);
    return at;
  }
  template <class T>
  size_t add_array(size_t count) {
    return add(count * sizeof(T));
  }
  size_t bytes() const { return total_; }

 private:
  size_t total_ = 0;
};

// The part of a workspace at `offset` (from a WorkspacePlan) as a T array.
template <class T>
T *part(void *base, size_t offset) {
  return reinterpret_cast<T *>(static_cast<char *>(base) + offset);
}

}  // namespace gpueig
