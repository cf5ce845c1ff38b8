#pragma once
// Registers and local memory: a per-thread array kept in registers (every index a compile-time
// constant), the same array forced into local memory (a run-time index), or a per-thread slice
// of shared memory; one kernel at several register limits (spills); and a dependent chase
// through local memory that fits L1 or does not. The CPU reference is registers_reference.hpp.

#include "memscope/core/cuda_check.hpp"
#include "memscope/core/launch.cuh"
#include "memscope/core/sm_id.cuh"
#include "memscope/registers/registers_reference.hpp"

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace memscope::registers {

enum class storage { registers, local, shared };

struct policy {
  static constexpr int block_threads = 128;
  static constexpr int blocks_per_sm = 4;
  static constexpr int spill_threads = 256;
  static constexpr int spill_words = 64;
  static constexpr int chase_threads = 32;  // one warp: each lane chases its own local array
};

/// What the compiler gave a kernel, as the driver reports it.
struct kernel_resources {
  int registers = 0;
  std::size_t local_bytes = 0;
  int blocks_per_sm = 0;  // at the launch's block size and shared memory
};

template <class Kernel>
kernel_resources resources_of(Kernel kernel, int block_threads, std::size_t smem) {
  cudaFuncAttributes a{};
  MEMSCOPE_CUDA_CALL(cudaFuncGetAttributes(&a, kernel));
  kernel_resources r;
  r.registers = a.numRegs;
  r.local_bytes = a.localSizeBytes;
  MEMSCOPE_CUDA_CALL(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&r.blocks_per_sm, kernel, block_threads, smem));
  return r;
}

/// Thread t keeps N words and updates each `iters` times (reference::update); writes the
/// fold of its words to out[t]. `offset` is 0 at run time: added to every index of the local
/// variant, it makes the indices unknown to the compiler, which moves the array to local memory.
template <int N, storage S>
__global__ void __launch_bounds__(policy::block_threads)
    array_update_kernel(std::uint32_t* __restrict__ out, std::uint64_t seed, int iters, int offset) {
  static_assert((N & (N - 1)) == 0, "array sizes are powers of two");
  extern __shared__ std::uint32_t memscope_register_slices[];
  std::uint32_t a[S == storage::shared ? 1 : N];
  const std::uint64_t t = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  // Word k of this thread: in registers, local memory (run-time index) or its shared slice,
  // laid out word-major so the lanes of a warp hit 32 different banks.
  const auto at = [&](int k) -> std::uint32_t& {
    if constexpr (S == storage::shared) return memscope_register_slices[k * blockDim.x + threadIdx.x];
    else if constexpr (S == storage::local) return a[(k + offset) & (N - 1)];
    else return a[k];
  };
#pragma unroll
  for (int k = 0; k < N; ++k) at(k) = reference::initial_word(seed, t, k);
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int k = 0; k < N; ++k) at(k) = reference::update(at(k), at((k + 1) & (N - 1)), static_cast<std::uint32_t>(it));
  }
  std::uint32_t fold = 0;
#pragma unroll
  for (int k = 0; k < N; ++k) fold = reference::fold(fold, at(k));
  out[t] = fold;
}

/// The same update over a fixed register array, compiled for `MinBlocks` resident blocks of
/// policy::spill_threads: the compiler caps registers at 64K / (256 x MinBlocks) and spills the rest.
template <int MinBlocks>
__global__ void __launch_bounds__(policy::spill_threads, MinBlocks)
    spill_update_kernel(std::uint32_t* __restrict__ out, std::uint64_t seed, int iters) {
  constexpr int N = policy::spill_words;
  std::uint32_t a[N];
  const std::uint64_t t = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
#pragma unroll
  for (int k = 0; k < N; ++k) a[k] = reference::initial_word(seed, t, k);
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int k = 0; k < N; ++k) a[k] = reference::update(a[k], a[(k + 1) & (N - 1)], static_cast<std::uint32_t>(it));
  }
  std::uint32_t fold = 0;
#pragma unroll
  for (int k = 0; k < N; ++k) fold = reference::fold(fold, a[k]);
  out[t] = fold;
}

/// Each lane of one warp chases its own local array of W words (reference::chase_next) for
/// `steps` dependent loads; cycles[lane] = clock64 cycles of the chase, last[lane] = where it
/// ended. Aimed at an SM (sm_target), only the block that claims it runs: launch it with
/// target_grid blocks.
template <int W>
__global__ void __launch_bounds__(policy::chase_threads)
    local_chase_kernel(int steps, int offset, unsigned long long* __restrict__ cycles, std::uint32_t* __restrict__ last,
                       sm_target on) {
  if (!claim_sm(on)) return;
  std::uint32_t a[W];
  for (int i = 0; i < W; ++i) a[(i + offset) & (W - 1)] = reference::chase_next(static_cast<std::uint32_t>(i), W);
  std::uint32_t p = 0;
  for (int i = 0; i < W; ++i) p = a[(p + offset) & (W - 1)];  // warm: every line once
  const long long c0 = clock64();
  for (int i = 0; i < steps; ++i) p = a[(p + offset) & (W - 1)];
  const long long c1 = clock64();
  cycles[threadIdx.x] = static_cast<unsigned long long>(c1 - c0);
  last[threadIdx.x] = p;
}

}  // namespace memscope::registers
