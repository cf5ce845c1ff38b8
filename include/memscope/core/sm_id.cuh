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
#include <string>
#include <vector>

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

/// Launches aimed at one SM that may miss it (other work held it) before it is left out.
inline constexpr int sm_target_tries = 4;

/// Calls attempt(r, sms[r]) for each SM until it returns true (its launch reached that SM), at
/// most sm_target_tries times each. Returns how many SMs were reached.
template <class Attempt>
std::size_t aim_each(const std::vector<unsigned>& sms, Attempt&& attempt) {
  std::size_t reached = 0;
  for (std::size_t r = 0; r < sms.size(); ++r)
    for (int t = 0; t < sm_target_tries; ++t)
      if (attempt(r, sms[r])) {
        ++reached;
        break;
      }
  return reached;
}

/// Why a measurement aimed at `sms` SMs has nothing to report when none was reached.
inline std::string no_sm_reached(std::size_t sms) {
  return "no launch reached any of the " + std::to_string(sms) + " SMs it was aimed at (other work held them)";
}

}  // namespace memscope
