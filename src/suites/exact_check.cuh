#pragma once
// The exact check of a case's device output against an expectation per index: on the host in
// `memscope verify` (its inputs are small, and the CPU is an independent path), on the GPU in
// a run, where a gigabyte costs more to copy out and compare than to measure. `want` is a
// __host__ __device__ callable of the index, independent of the kernel under test.

#include "harness/state.hpp"

#include "memscope/core/cuda_check.hpp"
#include "memscope/core/device_check.cuh"
#include "memscope/core/verify.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <vector>

namespace memscope::suites {

template <class T, class Want>
verify_result check_exact(const case_state& st, const T* d_out, std::size_t n, const Want& want, cudaStream_t s) {
  if (!st.verify_only()) return compare_exact_on_device(d_out, n, want, s);
  MEMSCOPE_CUDA_CALL(cudaStreamSynchronize(s));  // the case stream does not order with cudaMemcpy
  std::vector<T> h(n);
  if (n) MEMSCOPE_CUDA_CALL(cudaMemcpy(h.data(), d_out, n * sizeof(T), cudaMemcpyDeviceToHost));
  return compare_exact(h.data(), n, want);
}

}  // namespace memscope::suites
