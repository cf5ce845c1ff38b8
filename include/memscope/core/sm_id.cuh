#pragma once
// The SM a thread runs on (%smid): where a measurement landed. Ids need not be contiguous:
// they may run past the SM count (up to %nsmid), so they name SMs, they do not index them.
//
// A one-block measurement can be aimed at an SM (sm_target): the launcher fills the GPU with
// blocks and the first to find itself on that SM claims it and runs, the rest exit at once.
// Latency that depends on where the SM sits (an L2 slice's distance, the far L2 partition)
// is then measured from SMs chosen across the GPU, not from wherever one block lands.

#include "memscope/core/cuda_check.hpp"
#include "memscope/core/launch.cuh"

#include <cstddef>

namespace memscope {

__device__ __forceinline__ unsigned sm_id() {
  unsigned sm = 0;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
  return sm;
}

/// No particular SM: one block, wherever it lands.
inline constexpr unsigned any_sm = ~0u;

/// Where a one-block measurement runs. For a given `id`, `claim` points at a word zeroed before
/// the launch; the block that runs stores id + 1 there. A launch in which no block reached
/// that SM (no such id, or other work held it) leaves the word 0 and measures nothing.
struct sm_target {
  unsigned id = any_sm;
  unsigned long long* claim = nullptr;
};

/// Whether this block is the one to run. Call it from every thread of the block before any of
/// them returns: for a given SM it synchronises the block.
__device__ __forceinline__ bool claim_sm(const sm_target& t) {
  if (t.id == any_sm) return true;
  __shared__ int mine;
  if (threadIdx.x == 0) mine = sm_id() == t.id && atomicCAS(t.claim, 0ull, t.id + 1ull) == 0ull;
  __syncthreads();
  return mine != 0;
}

/// Blocks of `kernel` a launch aimed at `t` needs: one for any SM, else as many as the GPU
/// holds at once, so that every free SM receives some.
template <class Kernel>
unsigned target_grid(const sm_target& t, Kernel kernel, int block_threads, std::size_t dynamic_smem) {
  return t.id == any_sm ? 1u : resident_blocks(kernel, block_threads, dynamic_smem);
}

}  // namespace memscope
