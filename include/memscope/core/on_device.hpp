#pragma once
// A scope in which another GPU is current: allocations and launches on the legacy default
// stream go there, and the GPU that was current before comes back when the scope ends.

#include "memscope/core/cuda_check.hpp"

#include <cuda_runtime_api.h>

namespace memscope {

class on_device {
 public:
  explicit on_device(int device) {
    MEMSCOPE_CUDA_CALL(cudaGetDevice(&previous_));
    MEMSCOPE_CUDA_CALL(cudaSetDevice(device));
  }
  ~on_device() { MEMSCOPE_CUDA_CALL_NOEXCEPT(cudaSetDevice(previous_)); }
  on_device(const on_device&) = delete;
  on_device& operator=(const on_device&) = delete;

 private:
  int previous_ = 0;
};

}  // namespace memscope
