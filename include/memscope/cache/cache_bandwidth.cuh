#pragma once
// Read bandwidth against working-set size: which level of the hierarchy serves a stream.
//
// read_ws_kernel<shared_lines>: every block reads the whole buffer `passes` times. A buffer that
// fits L1 is served by each SM's L1; past it, the SMs ask for the same lines at about the same
// time, so one fetch serves many of them: the figure is how fast the fabric hands out shared
// lines, and it stays high far past the L2's capacity (it is not an L2 level).
// read_ws_kernel<own_slice>: the buffer is cut into one slice per block and each block reads
// its own slice `passes` times: the slice stays in that SM's L1 while it fits (cache_config
// uses this one to see what the L1/shared split changes).
// read_ws_kernel<spread>: the buffer is cut into one slice per block and every pass each block
// moves on to the next block's slice, so no SM reads the same bytes twice in a row: L1 never
// serves a repeat, and the levels seen are L2 and DRAM with the whole GPU reading distinct data.
// One block of 1024 threads per SM; 16-byte loads, unrolled; every block writes its 32-bit
// wrapping sum so the host checks the loads exactly and the compiler keeps them.

#include "memscope/cache/bandwidth_reference.hpp"
#include "memscope/cache/hints.cuh"
#include "memscope/core/cuda_check.hpp"
#include "memscope/core/fill.cuh"
#include "memscope/core/launch.cuh"
#include "memscope/core/random.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace memscope::cache {

enum class sharing { shared_lines, own_slice, spread };

struct bandwidth_policy {
  static constexpr int block_threads = 1024;
  static constexpr int unroll = 4;
};

struct buffer_word_gen {
  std::uint64_t seed;
  MEMSCOPE_HD std::uint32_t operator()(std::size_t i) const { return buffer_word(seed, i); }
};

/// out[i] = buffer_word(seed, i): the words the bandwidth reference sums.
inline void fill_words(std::uint32_t* out, std::size_t count, std::uint64_t seed, cudaStream_t s) {
  fill(out, count, buffer_word_gen{seed}, s);
}

__device__ __forceinline__ std::uint32_t sum4(const uint4& v) { return v.x + v.y + v.z + v.w; }

/// H: the load instruction (plain by default; cache_control/l1_hints sweeps the hints).
template <sharing S, load_hint H = load_hint::plain>
__global__ void __launch_bounds__(bandwidth_policy::block_threads)
    read_ws_kernel(const uint4* buf, std::size_t vecs, unsigned passes, std::uint32_t* sums) {
  std::uint32_t acc = 0;
  for (unsigned p = 0; p < passes; ++p) {
    std::size_t begin = 0, end = vecs;
    if (S == sharing::spread) slice_bounds(vecs, gridDim.x, (blockIdx.x + p) % gridDim.x, begin, end);
    if (S == sharing::own_slice) slice_bounds(vecs, gridDim.x, blockIdx.x, begin, end);
    std::size_t i = begin + threadIdx.x;
    constexpr int u = bandwidth_policy::unroll;
    const std::size_t step = blockDim.x;
    for (; i + (u - 1) * step < end; i += u * step) {
      uint4 v[u];
#pragma unroll
      for (int k = 0; k < u; ++k) v[k] = load_hinted<H>(buf + i + k * step);
#pragma unroll
      for (int k = 0; k < u; ++k) acc += sum4(v[k]);
    }
    for (; i < end; i += step) acc += sum4(load_hinted<H>(buf + i));
  }
  // Block sum (wrapping): warp shuffles, then one atomic per warp.
  for (int o = 16; o > 0; o /= 2) acc += __shfl_xor_sync(0xffffffffu, acc, o);
  if ((threadIdx.x & 31u) == 0) atomicAdd(sums + blockIdx.x, acc);
}

template <sharing S, load_hint H = load_hint::plain>
void read_ws(const uint4* buf, std::size_t vecs, unsigned passes, unsigned blocks, std::uint32_t* sums, cudaStream_t s,
             std::size_t dynamic_smem = 0) {
  read_ws_kernel<S, H><<<blocks, bandwidth_policy::block_threads, dynamic_smem, s>>>(buf, vecs, passes, sums);
  MEMSCOPE_CHECK_LAUNCH("read_ws_kernel");
}

}  // namespace memscope::cache
