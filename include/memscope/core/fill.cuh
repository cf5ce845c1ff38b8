#pragma once
// Fills device buffers from a counter-based generator: out[i] = gen(i). One kernel serves the
// float fills of random.hpp, the integer words of the cache kernels and the suites' own values.

#include "memscope/core/cuda_check.hpp"
#include "memscope/core/random.hpp"

#include <cstddef>
#include <cstdint>

namespace memscope {

template <class T, class Gen>
__global__ void fill_kernel(T* __restrict__ out, std::size_t count, Gen gen) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride)
    out[i] = static_cast<T>(gen(i));
}

/// out[i] = gen(i) for i < count; gen is a __device__-callable value type (a functor).
template <class T, class Gen>
void fill(T* out, std::size_t count, Gen gen, cudaStream_t stream = nullptr) {
  if (count == 0) return;
  constexpr unsigned threads = 256;
  const std::size_t want = (count + threads - 1) / threads;
  const unsigned blocks = static_cast<unsigned>(want < 65536 ? want : 65536);
  fill_kernel<T, Gen><<<blocks, threads, 0, stream>>>(out, count, gen);
  MEMSCOPE_CHECK_LAUNCH("fill_kernel");
}

/// hash_value(kind, seed, i): uniform floats in [0, 1) or small integers stored as floats.
struct hash_gen {
  std::uint64_t seed;
  fill_kind kind;
  MEMSCOPE_HD float operator()(std::size_t i) const { return hash_value(kind, seed, i); }
};

/// Writes hash_value(kind, seed, i) to out[i] for i < count floats.
inline void fill_hash(float* out, std::size_t count, std::uint64_t seed, fill_kind kind,
                      cudaStream_t stream = nullptr) {
  fill(out, count, hash_gen{seed, kind}, stream);
}

}  // namespace memscope
