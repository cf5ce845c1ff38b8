#pragma once
// A copy with arithmetic on what it moves: every 4-byte word also goes through `rounds`
// dependent multiply-adds (busy_reference.hpp), XOR-folded into one checksum. The work per
// byte is the knob: at 0 rounds the kernel is a copy, with enough rounds it takes as long as
// the link took to bring the bytes in. The managed suite's pipeline runs it on each chunk as it
// lands, to show when overlapping migration with compute pays.

#include "memscope/core/cuda_check.hpp"
#include "memscope/core/launch.cuh"
#include "memscope/transfer/busy_reference.hpp"

#include <cstddef>
#include <cstdint>
#include <stdexcept>

namespace memscope::transfer {

struct busy_policy {
  static constexpr int block_threads = 256;
  /// 16-byte loads a thread holds: 16 independent multiply-add chains, so the SM's integer
  /// pipes are kept full while each chain waits out its own latency.
  static constexpr int vectors_per_thread = 4;
};

namespace detail {
__device__ __forceinline__ std::uint32_t busy_fold(uint4 v) { return v.x ^ v.y ^ v.z ^ v.w; }
}  // namespace detail

/// dst[0, bytes) = src[0, bytes); *checksum ^= the XOR of busy_step^rounds over every whole
/// word. Both pointers 16-byte aligned (busy_copy checks).
template <int = 0>  // a template: the header may be included by several files of one program
__global__ void __launch_bounds__(busy_policy::block_threads)
    busy_copy_kernel(std::uint8_t* __restrict__ dst, const std::uint8_t* __restrict__ src, std::size_t bytes,
                     unsigned rounds, unsigned* __restrict__ checksum) {
  constexpr int k = busy_policy::vectors_per_thread;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t tid = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t n = bytes / 16;
  const auto* __restrict__ s = reinterpret_cast<const uint4*>(src);
  auto* __restrict__ d = reinterpret_cast<uint4*>(dst);
  std::uint32_t acc = 0;
  std::size_t i = tid;
  for (; i + (k - 1) * stride < n; i += k * stride) {
    uint4 v[k];
#pragma unroll
    for (int j = 0; j < k; ++j) v[j] = s[i + j * stride];
#pragma unroll
    for (int j = 0; j < k; ++j) d[i + j * stride] = v[j];
#pragma unroll 2
    for (unsigned r = 0; r < rounds; ++r)
#pragma unroll
      for (int j = 0; j < k; ++j)
        v[j] = make_uint4(busy_step(v[j].x), busy_step(v[j].y), busy_step(v[j].z), busy_step(v[j].w));
#pragma unroll
    for (int j = 0; j < k; ++j) acc ^= detail::busy_fold(v[j]);
  }
  for (; i < n; i += stride) {
    uint4 v = s[i];
    d[i] = v;
    for (unsigned r = 0; r < rounds; ++r)
      v = make_uint4(busy_step(v.x), busy_step(v.y), busy_step(v.z), busy_step(v.w));
    acc ^= detail::busy_fold(v);
  }
  // Whole words past the last 16 bytes, then the last bytes % 4, copied only.
  for (std::size_t w = 4 * n + tid; w < bytes / 4; w += stride) {
    std::uint32_t x = reinterpret_cast<const std::uint32_t*>(src)[w];
    reinterpret_cast<std::uint32_t*>(dst)[w] = x;
    for (unsigned r = 0; r < rounds; ++r) x = busy_step(x);
    acc ^= x;
  }
  for (std::size_t b = bytes / 4 * 4 + tid; b < bytes; b += stride) dst[b] = src[b];
  for (int o = 16; o > 0; o >>= 1) acc ^= __shfl_xor_sync(0xFFFFFFFFu, acc, o);
  if ((threadIdx.x & 31u) == 0 && acc) atomicXor(checksum, acc);
}

/// Enqueues a busy copy of `bytes`; *d_checksum (device memory) is XORed with its checksum, so
/// pieces of one buffer cut at multiples of 16 bytes add up to the whole buffer's checksum.
inline void busy_copy(void* dst, const void* src, std::size_t bytes, unsigned rounds, unsigned* d_checksum,
                      cudaStream_t stream) {
  if (bytes == 0) return;
  if ((reinterpret_cast<std::uintptr_t>(dst) | reinterpret_cast<std::uintptr_t>(src)) & 15u)
    throw std::invalid_argument("busy_copy: dst and src must be 16-byte aligned");
  const auto kernel = busy_copy_kernel<>;
  constexpr std::size_t per_block = std::size_t{busy_policy::block_threads} * busy_policy::vectors_per_thread;
  const unsigned grid = persistent_grid(kernel, busy_policy::block_threads, 0, bytes / 16 + 1, per_block);
  kernel<<<grid, busy_policy::block_threads, 0, stream>>>(
      static_cast<std::uint8_t*>(dst), static_cast<const std::uint8_t*>(src), bytes, rounds, d_checksum);
  MEMSCOPE_CHECK_LAUNCH("busy_copy_kernel");
}

}  // namespace memscope::transfer
