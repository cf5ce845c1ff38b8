#pragma once
// A gather out[i] = table[idx[i]] from a table larger than L1, through the three ways of
// reading global memory: plain pointers (coherent loads: the compiler cannot rule out that
// `out` aliases the table), `const __restrict__` (the compiler may prove the data read-only
// and use the non-coherent read-only path), and explicit __ldg. In SASS the read-only path is
// LDG.E.CONSTANT (checked by tests/gpu/test_constant_gpu.cu with cuobjdump).
// The kernels are templates only so that every .cu may include this header.

#include "memscope/core/cuda_check.hpp"
#include "memscope/core/launch.cuh"

#include <cstddef>

namespace memscope::gather {

struct policy {
  static constexpr int block_threads = 256;
};

enum class path { plain, restrict_ptr, ldg };

template <int = 0>
__global__ void __launch_bounds__(policy::block_threads)
    gather_plain_kernel(const float* table, const unsigned* idx, float* out, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = table[idx[i]];
}

template <int = 0>
__global__ void __launch_bounds__(policy::block_threads)
    gather_restrict_kernel(const float* __restrict__ table, const unsigned* __restrict__ idx, float* __restrict__ out,
                           std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = table[idx[i]];
}

template <int = 0>
__global__ void __launch_bounds__(policy::block_threads)
    gather_ldg_kernel(const float* table, const unsigned* idx, float* out, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = __ldg(table + __ldg(idx + i));
}

inline void gather(path p, const float* table, const unsigned* idx, float* out, std::size_t n, cudaStream_t s) {
  if (n == 0) return;
  const auto grid = static_cast<unsigned>(ceil_div(n, policy::block_threads));
  constexpr int b = policy::block_threads;
  switch (p) {
    case path::plain:
      gather_plain_kernel<><<<grid, b, 0, s>>>(table, idx, out, n);
      break;
    case path::restrict_ptr:
      gather_restrict_kernel<><<<grid, b, 0, s>>>(table, idx, out, n);
      break;
    case path::ldg:
      gather_ldg_kernel<><<<grid, b, 0, s>>>(table, idx, out, n);
      break;
  }
  MEMSCOPE_CHECK_LAUNCH("gather kernel");
}

}  // namespace memscope::gather
