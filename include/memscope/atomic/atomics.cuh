#pragma once
// Atomics on their own: add, a compare-and-swap loop and max on 32/64-bit integers and floats,
// into global memory, the block's shared memory or a peer block's (DSMEM, clusters of two),
// at a chosen number of threads per address; scope variants; warp aggregation; the latency of
// a dependent chain of atomics. Counts are exact and atomics_reference.hpp predicts them.

#include "memscope/atomic/atomics_reference.hpp"
#include "memscope/core/cuda_check.hpp"
#include "memscope/dsmem/cluster_launch.cuh"

#include <cooperative_groups.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace memscope::atomic {

enum class op { add, cas, max };
enum class target { global, shared, dsmem };
enum class scope { device, block, system };

struct policy {
  static constexpr int block_threads = 256;
  static constexpr int blocks_per_sm = 4;
  static constexpr int cluster = 2;        // DSMEM: each block of a pair updates the other's counters
  static constexpr int chain_words = 1024;  // the latency chase's ring
};

/// Where the reference looks for a target's counters.
constexpr reference::counters_in counters_of(target t) {
  return t == target::global ? reference::counters_in::global
         : t == target::shared ? reference::counters_in::own_block
                               : reference::counters_in::peer_block;
}

namespace detail {

/// An add built from compare-and-swap on the value's bits: what code does for an operation
/// the hardware lacks.
template <class T>
__device__ __forceinline__ void cas_add(T* p, T v) {
  using word = std::conditional_t<sizeof(T) == 4, unsigned int, unsigned long long>;
  static_assert(sizeof(T) == sizeof(word), "32- or 64-bit values");
  word* w = reinterpret_cast<word*>(p);
  word old = *w, seen;
  do {
    seen = old;
    T cur;
    memcpy(&cur, &seen, sizeof(T));
    const T next = cur + v;
    word bits;
    memcpy(&bits, &next, sizeof(T));
    old = atomicCAS(w, seen, bits);
  } while (old != seen);
}

template <op O, scope Sc, class T>
__device__ __forceinline__ void apply(T* p, T v) {
  if constexpr (O == op::cas) {
    cas_add(p, v);
  } else if constexpr (O == op::max) {
    atomicMax(p, v);
  } else if constexpr (Sc == scope::block) {
    atomicAdd_block(p, v);
  } else if constexpr (Sc == scope::system) {
    atomicAdd_system(p, v);
  } else {
    atomicAdd(p, v);
  }
}

}  // namespace detail

/// Every thread performs `iters` atomics on counter reference::counter_of(local id, sharers):
/// add and cas add 1 (aggregated: one add of the group's size per warp group on one address),
/// max offers reference::max_value. Global: counters[c]; shared: the block's own counters,
/// flushed to counters[block * per_block + c]; dsmem: the pair's other block's counters.
template <class T, op O, target Tg, scope Sc = scope::device, bool Aggregate = false>
__global__ void __launch_bounds__(policy::block_threads)
    atomic_kernel(T* __restrict__ counters, std::uint64_t sharers, int iters) {
  extern __shared__ __align__(16) unsigned char memscope_atomic_smem[];
  T* own = reinterpret_cast<T*>(memscope_atomic_smem);
  const std::uint64_t t = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const unsigned per_block = reference::counters_per_block(blockDim.x, sharers);
  T* base = counters;
  std::uint64_t index = reference::counter_of(t, sharers);
  if constexpr (Tg != target::global) {
    for (unsigned i = threadIdx.x; i < per_block; i += blockDim.x) own[i] = T(0);
    index = reference::counter_of(threadIdx.x, sharers);
    base = own;
  }
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  namespace cg = cooperative_groups;
  if constexpr (Tg == target::dsmem) {
    cg::cluster_group cluster = cg::this_cluster();
    cluster.sync();  // the peer's counters are zero before anyone adds to them
    base = cluster.map_shared_rank(own, cluster.block_rank() ^ 1u);
  } else if constexpr (Tg == target::shared) {
    __syncthreads();
  }
#else
  if constexpr (Tg == target::shared) __syncthreads();
#endif
  T* const p = base + index;
  for (int i = 0; i < iters; ++i) {
    if constexpr (Aggregate && O != op::max) {
      const unsigned group = __match_any_sync(__activemask(), static_cast<unsigned long long>(reinterpret_cast<std::uintptr_t>(p)));
      if ((threadIdx.x & 31) == static_cast<unsigned>(__ffs(group) - 1)) detail::apply<O, Sc>(p, static_cast<T>(__popc(group)));
    } else if constexpr (O == op::max) {
      detail::apply<O, Sc>(p, static_cast<T>(reference::max_value(t, i, iters)));
    } else {
      detail::apply<O, Sc>(p, T(1));
    }
  }
  if constexpr (Tg != target::global) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    if constexpr (Tg == target::dsmem) cg::this_cluster().sync();  // every peer's atomics landed
    else __syncthreads();
#else
    __syncthreads();
#endif
    for (unsigned i = threadIdx.x; i < per_block; i += blockDim.x) counters[static_cast<std::size_t>(blockIdx.x) * per_block + i] = own[i];
  }
}

/// One thread follows idx = atomicAdd(&ring[idx], 0) for `steps` dependent atomics; cycles[0]
/// = their clock64 cycles, last[0] = where it ended. Global: ring in device memory (L2);
/// shared: the block's; dsmem: block 0 of a pair walks block 1's ring.
template <target Tg>
__global__ void atomic_chain_kernel(std::uint32_t* ring_global, int steps, unsigned long long* cycles, std::uint32_t* last) {
  __shared__ std::uint32_t ring_shared[policy::chain_words];
  std::uint32_t* ring = ring_global;
  if constexpr (Tg != target::global) {
    for (int i = threadIdx.x; i < policy::chain_words; i += blockDim.x) ring_shared[i] = reference::chain_next(static_cast<std::uint32_t>(i));
    ring = ring_shared;
  }
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  namespace cg = cooperative_groups;
  if constexpr (Tg == target::dsmem) {
    cg::cluster_group cluster = cg::this_cluster();
    cluster.sync();
    ring = cluster.map_shared_rank(ring_shared, 1u);
  } else {
    __syncthreads();
  }
#else
  __syncthreads();
#endif
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    std::uint32_t p = 0;
    for (int i = 0; i < policy::chain_words; ++i) p = atomicAdd(ring + p, 0u);  // warm
    const long long c0 = clock64();
    for (int i = 0; i < steps; ++i) p = atomicAdd(ring + p, 0u);
    const long long c1 = clock64();
    cycles[0] = static_cast<unsigned long long>(c1 - c0);
    last[0] = p;
  }
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if constexpr (Tg == target::dsmem) cg::this_cluster().sync();  // block 1 stays until its ring was read
#endif
}

}  // namespace memscope::atomic
