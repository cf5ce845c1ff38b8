#pragma once
// Kernels that make every warp of a block hammer shared memory with one access pattern, and
// count the cycles: under conflicts the shared-memory pipe serialises, so cycles per warp-access
// track the wavefronts of bank_model.hpp.
//
// The compiler must neither hoist nor delete the accesses: loads form a dependency chain
// through the loaded value (0 when timed, which the compiler cannot know); stores go through a
// volatile store instruction. For the check, the table holds each word's own index instead, so
// the chain's sum depends on every address a lane visited (expected_load_sum mirrors it).

#include "memscope/core/cuda_check.hpp"
#include "memscope/shared/bank_model.hpp"

#include <cstddef>
#include <cstdint>

namespace memscope::banks {

struct policy {
  static constexpr int block_threads = 1024;  // loads: 32 warps keep the shared-memory pipe busy
  static constexpr int store_warps = 4;       // stores: 4 warps, each in a region of its own
  static constexpr int words = 2048;          // words per region: lane * stride < 2048 for stride <= 64
};

/// Dynamic shared memory the kernel needs: one region for loads (all warps read it), one per
/// warp for stores, so no two warps ever write the same word (racecheck stays clean) while
/// every region has the same bank layout.
template <int Bytes, bool Store>
constexpr std::size_t smem_bytes() {
  return static_cast<std::size_t>(policy::words) * Bytes * (Store ? policy::store_warps : 1);
}
template <bool Store>
constexpr int threads() {
  return Store ? policy::store_warps * 32 : policy::block_threads;
}

template <int Bytes>
struct word;
template <>
struct word<4> {
  using type = unsigned;
  __device__ static unsigned make(unsigned v) { return v; }
  __device__ static unsigned first(unsigned w) { return w; }
};
template <>
struct word<8> {
  using type = uint2;
  __device__ static uint2 make(unsigned v) { return make_uint2(v, v); }
  __device__ static unsigned first(uint2 w) { return w.x; }
};
template <>
struct word<16> {
  using type = uint4;
  __device__ static uint4 make(unsigned v) { return make_uint4(v, v, v, v); }
  __device__ static unsigned first(uint4 w) { return w.x; }
};

/// How lane `lane` picks its word at iteration `it`; the pick repeats every `period` iterations
/// (pattern(lane, it) == pattern(lane, it % period)).
struct strided_pattern {
  static constexpr unsigned period = 1;
  unsigned stride;
  MEMSCOPE_HD unsigned operator()(unsigned lane, unsigned) const { return (lane * stride) % policy::words; }
};
/// Column it % 32 of a 32x32 tile, lane = row. The layout is a template argument: held at run
/// time, the store loop re-evaluated tile_index's switch at every store (three branches and
/// about ten instructions, SASS in docs/global-and-shared.md), and the suite's four store
/// warps, one per scheduler, could not hide that chain: padded and swizzled stores measured
/// several times the cycles that 1 predicted wavefront costs.
template <tile_layout Layout>
struct column_pattern {
  static constexpr unsigned period = 32;
  MEMSCOPE_HD unsigned operator()(unsigned lane, unsigned it) const { return tile_index(Layout, lane, it & 31u); }
};

/// fn(column_pattern<L>{}) for the layout `l` named at run time.
template <class Fn>
decltype(auto) with_column_pattern(tile_layout l, Fn&& fn) {
  switch (l) {
    case tile_layout::padded:
      return fn(column_pattern<tile_layout::padded>{});
    case tile_layout::swizzled:
      return fn(column_pattern<tile_layout::swizzled>{});
    case tile_layout::naive:
      break;
  }
  return fn(column_pattern<tile_layout::naive>{});
}

/// cycles[blockIdx.x] = clock64 cycles for `iters` accesses by every warp of the block.
/// sink[global thread]: for loads the sum of what the lane read (0 on the zero table;
/// expected_load_sum on the index table), for stores what the last iteration left at the
/// lane's word (iters - 1), so the host can check which accesses happened.
template <int Bytes, bool Store, class Pattern>
__global__ void __launch_bounds__(policy::block_threads)
    smem_pattern_kernel(Pattern pattern, unsigned iters, unsigned long long* __restrict__ cycles,
                        unsigned* __restrict__ sink, bool index_table = false) {
  using W = typename word<Bytes>::type;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  W* const all = reinterpret_cast<W*>(smem_raw);
  constexpr int regions = Store ? policy::store_warps : 1;
  for (int i = threadIdx.x; i < policy::words * regions; i += blockDim.x)
    all[i] = word<Bytes>::make(index_table ? static_cast<unsigned>(i % policy::words) : 0u);
  __syncthreads();
  W* const s = Store ? all + (threadIdx.x >> 5) * policy::words : all;
  const unsigned lane = threadIdx.x & 31u;
  unsigned zero = 0, acc = 0;
  const long long t0 = clock64();
  if constexpr (Store) {
    // st.volatile: one store of the full word width per access. A plain st.shared in asm volatile
    // is not enough: ptxas deletes stores that a later store to the same address overwrites
    // (the loop then times almost nothing). A volatile vector lvalue would split into 4-byte stores.
    // Whole periods unrolled, so every address is a constant offset or one logic op from the
    // lane's (pattern(lane, it0 + j) == pattern(lane, j)): the loop issues little beyond its
    // stores. .volatile also keeps ptxas from merging a naive column's 4-byte stores into
    // 16-byte ones (a constant value let it, and the column then took a fraction of the cycles
    // its predicted wavefronts cost).
    const auto store = [&](unsigned word, unsigned value) {
      const auto addr = static_cast<unsigned>(__cvta_generic_to_shared(&s[word]));
      if constexpr (Bytes == 4) asm volatile("st.volatile.shared.u32 [%0], %1;" ::"r"(addr), "r"(value) : "memory");
      else if constexpr (Bytes == 8)
        asm volatile("st.volatile.shared.v2.u32 [%0], {%1, %1};" ::"r"(addr), "r"(value) : "memory");
      else asm volatile("st.volatile.shared.v4.u32 [%0], {%1, %1, %1, %1};" ::"r"(addr), "r"(value) : "memory");
    };
    constexpr unsigned period = Pattern::period;
    const unsigned whole = iters / period * period;
    for (unsigned it0 = 0; it0 < whole; it0 += period) {
#pragma unroll
      for (unsigned j = 0; j < period; ++j) store(pattern(lane, j), it0 + j);
    }
    for (unsigned it = whole; it < iters; ++it) store(pattern(lane, it), it);
  } else {
    for (unsigned it = 0; it < iters; ++it) {
      // `zero` is 0 when timed (the array holds zeros) but comes from the previous load, so
      // each load waits for the last and none can be hoisted out of the loop.
      const W w = s[(pattern(lane, it) + zero) % policy::words];
      zero = word<Bytes>::first(w);
      acc += zero;
    }
  }
  __syncthreads();
  const long long t1 = clock64();
  if constexpr (Store) acc = word<Bytes>::first(s[pattern(lane, iters - 1)]);  // == iters - 1: the stores landed
  if (threadIdx.x == 0) cycles[blockIdx.x] = static_cast<unsigned long long>(t1 - t0);
  sink[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

/// What smem_pattern_kernel's load chain sums for `lane` over the index table: the host side
/// of the check, so a wrong address anywhere in the chain changes the answer.
template <class Pattern>
unsigned expected_load_sum(const Pattern& pattern, unsigned lane, unsigned iters) {
  unsigned zero = 0, acc = 0;
  for (unsigned it = 0; it < iters; ++it) {
    zero = (pattern(lane, it) + zero) % policy::words;  // the word at index i holds i
    acc += zero;
  }
  return acc;
}

}  // namespace memscope::banks
