#pragma once
// Fills device buffers with the counter-based random values of random.hpp.

#include "memscope/core/cuda_check.hpp"
#include "memscope/core/random.hpp"

#include <cstddef>
#include <cstdint>

namespace memscope {

// A template so that every .cu including this header may define it (no ODR clash).
template <class F = float>
__global__ void fill_hash_kernel(F* __restrict__ out, std::size_t count, std::uint64_t seed, fill_kind kind) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride)
    out[i] = hash_value(kind, seed, i);
}

/// Writes hash_value(kind, seed, i) to out[i] for i < count floats.
inline void fill_hash(float* out, std::size_t count, std::uint64_t seed, fill_kind kind, cudaStream_t stream = nullptr) {
  if (count == 0) return;
  constexpr unsigned threads = 256;
  const std::size_t want = (count + threads - 1) / threads;
  const unsigned blocks = static_cast<unsigned>(want < 65536 ? want : 65536);
  fill_hash_kernel<float><<<blocks, threads, 0, stream>>>(out, count, seed, kind);
  MEMSCOPE_CHECK_LAUNCH("fill_hash_kernel");
}

}  // namespace memscope
