#pragma once
// One-thread pointer chases for the latency ladder. A ring of `slots` 32-byte slots (one per
// L1/L2 sector, so every step touches a new sector) visits the slots in the order of
// permute_index: one cycle through all of them, no stride a prefetcher or the address
// hashing could exploit. The ring is built on the GPU (it may span gigabytes); the host knows
// where any chase ends from the permutation alone.
//
// chase_kernel<P>: the whole block first reads every slot through the same path (so a working
// set that fits a cache is resident in the caches of the chasing SM before timing), then
// thread 0 runs `iters` dependent loads between two clock64 reads. Each chase runs on one SM,
// any or a chosen one (sm_target, core/sm_id.cuh).

#include "memscope/cache/permutation.hpp"
#include "memscope/core/cuda_check.hpp"
#include "memscope/core/launch.cuh"
#include "memscope/core/sm_id.cuh"

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace memscope::latency {

struct policy {
  static constexpr unsigned slot_words = 8;  // 32 bytes: one sector
  static constexpr int chase_threads = 1024;
  static constexpr int build_threads = 256;
};

/// How the chasing thread loads: plain ld.global (cached in L1), ld.global.cg (L2 only),
/// ld.global.nc (__ldg, the read-only path) or a texture fetch (tex1Dfetch on linear memory).
enum class load_path { global_default, global_cg, ldg, texture };

template <load_path P>
__device__ __forceinline__ std::uint32_t load_word(const std::uint32_t* ring, cudaTextureObject_t tex,
                                                   std::uint32_t i) {
  if constexpr (P == load_path::global_default) return ring[i];
  else if constexpr (P == load_path::global_cg) return __ldcg(ring + i);
  else if constexpr (P == load_path::ldg) return __ldg(ring + i);
  else return tex1Dfetch<std::uint32_t>(tex, static_cast<int>(i));
}

/// Word index where the chase stands after `steps` loads from ring_start().
MEMSCOPE_HD std::uint32_t ring_position(std::uint64_t slots, std::uint64_t seed, std::uint64_t steps) {
  return static_cast<std::uint32_t>(permute_index(steps % slots, slots, seed) * policy::slot_words);
}
MEMSCOPE_HD std::uint32_t ring_start(std::uint64_t slots, std::uint64_t seed) { return ring_position(slots, seed, 0); }

template <int = 0>
__global__ void __launch_bounds__(policy::build_threads)
    build_ring_kernel(std::uint32_t* ring, std::uint64_t slots, std::uint64_t seed) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t k = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < slots; k += stride) {
    const std::uint64_t here = permute_index(k, slots, seed) * policy::slot_words;
    ring[here] = ring_position(slots, seed, k + 1);
#pragma unroll
    for (unsigned w = 1; w < policy::slot_words; ++w) ring[here + w] = 0;
  }
}

/// Writes the ring of `slots` slots (slots * 8 words) for `seed`.
inline void build_ring(std::uint32_t* ring, std::uint64_t slots, std::uint64_t seed, cudaStream_t s) {
  if (slots == 0) return;
  const auto blocks = static_cast<unsigned>(std::min<std::size_t>(ceil_div(slots, policy::build_threads), 65536));
  build_ring_kernel<><<<blocks, policy::build_threads, 0, s>>>(ring, slots, seed);
  MEMSCOPE_CHECK_LAUNCH("build_ring_kernel");
}

/// out[0] = cycles for `iters` loads, out[1] = where the chase ended, out[2] = the warm-up's
/// checksum (stored so the warm-up loads cannot be removed).
template <load_path P>
__global__ void __launch_bounds__(policy::chase_threads)
    chase_kernel(const std::uint32_t* ring, cudaTextureObject_t tex, std::uint64_t slots, std::uint32_t start,
                 unsigned iters, bool warm, unsigned long long* out, sm_target on) {
  if (!claim_sm(on)) return;
  if (warm) {
    std::uint32_t sum = 0;
    for (std::uint64_t k = threadIdx.x; k < slots; k += blockDim.x)
      sum += load_word<P>(ring, tex, static_cast<std::uint32_t>(k * policy::slot_words));
    atomicAdd(out + 2, static_cast<unsigned long long>(sum));
    __syncthreads();
  }
  if (threadIdx.x != 0) return;
  std::uint32_t at = start;
  const long long t0 = clock64();
  for (unsigned i = 0; i < iters; ++i) at = load_word<P>(ring, tex, at);
  const long long t1 = clock64();
  out[0] = static_cast<unsigned long long>(t1 - t0);
  out[1] = at;
}

template <load_path P>
void chase(const std::uint32_t* ring, cudaTextureObject_t tex, std::uint64_t slots, std::uint32_t start, unsigned iters,
           bool warm, unsigned long long* out, cudaStream_t s, sm_target on = {}) {
  const unsigned grid = target_grid(on, chase_kernel<P>, policy::chase_threads, 0);
  chase_kernel<P><<<grid, policy::chase_threads, 0, s>>>(ring, tex, slots, start, iters, warm, out, on);
  MEMSCOPE_CHECK_LAUNCH("chase_kernel");
}

/// The same chase in shared memory: the block copies the ring in, thread 0 chases it.
template <int = 0>
__global__ void __launch_bounds__(policy::chase_threads)
    shared_chase_kernel(const std::uint32_t* ring, std::uint32_t words, std::uint32_t start, unsigned iters,
                        unsigned long long* out, sm_target on) {
  extern __shared__ std::uint32_t smem_ring[];
  if (!claim_sm(on)) return;
  for (std::uint32_t i = threadIdx.x; i < words; i += blockDim.x) smem_ring[i] = ring[i];
  __syncthreads();
  if (threadIdx.x != 0) return;
  std::uint32_t at = start;
  const long long t0 = clock64();
  for (unsigned i = 0; i < iters; ++i) at = smem_ring[at];
  const long long t1 = clock64();
  out[0] = static_cast<unsigned long long>(t1 - t0);
  out[1] = at;
}

inline void shared_chase(const std::uint32_t* ring, std::uint32_t words, std::uint32_t start, unsigned iters,
                         unsigned long long* out, cudaStream_t s, sm_target on = {}) {
  const std::size_t bytes = std::size_t{words} * 4;
  prepare_dynamic_smem(shared_chase_kernel<>, bytes);
  const unsigned grid = target_grid(on, shared_chase_kernel<>, policy::chase_threads, bytes);
  shared_chase_kernel<><<<grid, policy::chase_threads, bytes, s>>>(ring, words, start, iters, out, on);
  MEMSCOPE_CHECK_LAUNCH("shared_chase_kernel");
}

}  // namespace memscope::latency
