#pragma once
// Global-memory access with a start offset and a stride, for 4-, 8- and 16-byte elements: the
// kernels behind the coalescing suite. Element i of the logical array is at in[offset + i*stride].

#include "memscope/core/cuda_check.hpp"
#include "memscope/core/read_reduce.cuh"
#include "memscope/core/launch.cuh"

#include <cub/block/block_reduce.cuh>

#include <cstddef>

namespace memscope::coalescing {

struct policy {
  static constexpr int block_threads = 256;
  static constexpr int loads_in_flight = 4;
};

template <class T>
__device__ __forceinline__ T splat(float v);
template <>
__device__ __forceinline__ float splat<float>(float v) {
  return v;
}
template <>
__device__ __forceinline__ float2 splat<float2>(float v) {
  return make_float2(v, v);
}
template <>
__device__ __forceinline__ float4 splat<float4>(float v) {
  return make_float4(v, v, v, v);
}

/// Writes `value` to n strided elements.
template <class T>
__global__ void __launch_bounds__(policy::block_threads)
    strided_write_kernel(T* __restrict__ out, std::size_t n, std::size_t offset, std::size_t stride, float value) {
  const std::size_t step = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step)
    out[offset + i * stride] = splat<T>(value);
}

template <class T>
unsigned strided_grid(std::size_t n) {
  return persistent_grid(read_reduce_kernel<policy::block_threads, policy::loads_in_flight, true, T>,
                         policy::block_threads, 0, n, std::size_t{policy::block_threads} * policy::loads_in_flight);
}

template <class T>
void strided_read(const T* in, std::size_t n, std::size_t offset, std::size_t stride, float* partials, cudaStream_t s) {
  read_reduce_kernel<policy::block_threads, policy::loads_in_flight, true, T>
      <<<strided_grid<T>(n), policy::block_threads, 0, s>>>(in, n, offset, stride, partials);
  MEMSCOPE_CHECK_LAUNCH("read_reduce_kernel");
}

template <class T>
void strided_write(T* out, std::size_t n, std::size_t offset, std::size_t stride, float value, cudaStream_t s) {
  if (n == 0) return;
  strided_write_kernel<T><<<strided_grid<T>(n), policy::block_threads, 0, s>>>(out, n, offset, stride, value);
  MEMSCOPE_CHECK_LAUNCH("strided_write_kernel");
}

}  // namespace memscope::coalescing
