#pragma once
// One SM's L1 cleared of what earlier kernels left in it, before a measurement of that L1 by a
// block on that SM. Lines that a kernel's local memory dirtied stay in its SM's L1 after the
// kernel ends, and the next warp there gets another warp slot, whose local memory lies
// elsewhere: a local-memory chase then shares the L1 with the last one's lines and reads
// slower in every launch after the first on that SM (docs/tuning.md, "L1 sweep"). One block
// on the aimed SM reads a buffer several times the L1 through it, so that clean lines of its
// own replace everything there.

#include "memscope/core/cuda_check.hpp"
#include "memscope/core/device_buffer.hpp"
#include "memscope/core/launch.cuh"
#include "memscope/core/sm_id.cuh"

#include <cstddef>
#include <cstdint>

namespace memscope {

struct l1_sweep_policy {
  static constexpr int block_threads = 1024;
  static constexpr int passes = 2;
  /// The buffer against the SM's unified L1/shared array, which is at most its shared memory
  /// plus 32 KiB on every GPU since Volta (128 KiB there, 256 KiB on Hopper).
  static constexpr std::size_t l1_multiple = 4;
  static constexpr std::size_t l1_beyond_shared = 32 * 1024;
  static constexpr std::uint32_t fill_byte = 0x5A;
};

/// The block that claims `on` reads words[0 .. n) `passes` times through L1 (ld.global.ca).
template <int = 0>
__global__ void __launch_bounds__(l1_sweep_policy::block_threads)
    l1_sweep_kernel(const std::uint32_t* __restrict__ words, std::size_t n, std::uint32_t* sink, sm_target on) {
  if (!claim_sm(on)) return;
  std::uint32_t acc = 0;
  for (int pass = 0; pass < l1_sweep_policy::passes; ++pass)
    for (std::size_t i = threadIdx.x; i < n; i += blockDim.x) acc ^= __ldca(words + i);
  // Every word holds the fill byte four times, so this never writes: the loads stay live.
  if (acc == 0x9E3779B9u) *sink = acc;
}

/// A sweep buffer sized for a GPU with `shared_per_sm` bytes of shared memory per SM.
class l1_sweep {
 public:
  explicit l1_sweep(std::size_t shared_per_sm)
      : words_(l1_sweep_policy::l1_multiple * (shared_per_sm + l1_sweep_policy::l1_beyond_shared) /
               sizeof(std::uint32_t)),
        sink_(1) {
    MEMSCOPE_CUDA_CALL(cudaMemset(words_.data(), static_cast<int>(l1_sweep_policy::fill_byte), words_.bytes()));
  }

  /// Sweeps the L1 of the SM `on` aims at, on `s`; on.claim (zeroed before) says whether it ran there.
  void run(const sm_target& on, cudaStream_t s) {
    auto kernel = l1_sweep_kernel<>;
    kernel<<<target_grid(on, kernel, l1_sweep_policy::block_threads, 0), l1_sweep_policy::block_threads, 0, s>>>(
        words_.data(), words_.size(), sink_.data(), on);
    MEMSCOPE_CHECK_LAUNCH("l1_sweep_kernel");
  }

  std::size_t bytes() const { return words_.bytes(); }

 private:
  device_buffer<std::uint32_t> words_;
  device_buffer<std::uint32_t> sink_;
};

}  // namespace memscope
