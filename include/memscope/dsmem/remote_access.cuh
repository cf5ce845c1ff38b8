#pragma once
// Distributed shared memory, measured: a one-thread pointer chase into a peer block's shared
// memory (latency), and every block of a cluster streaming through its neighbour's shared
// memory (bandwidth). Baselines in the same kernels: the block's own shared memory through
// ld.shared, its own through the cluster window (map_shared_rank to itself), and L2.
// Everything here needs sm_90; the kernels trap below it and the host skips them.

#include "memscope/core/cuda_check.hpp"
#include "memscope/core/host_device.hpp"
#include "memscope/core/random.hpp"
#include "memscope/core/sm_id.cuh"
#include "memscope/dsmem/cluster_launch.cuh"

#include <cooperative_groups.h>

#include <cstddef>
#include <cstdint>

namespace memscope::dsmem {

namespace cg = cooperative_groups;

/// Where the chased or streamed words live, seen from the measuring block.
enum class path {
  shared,      // its own shared memory, plain ld.shared / st.shared
  dsmem_self,  // its own shared memory through the cluster window (mapa + ld.shared::cluster)
  dsmem_peer,  // another block's shared memory in the same cluster
  l2,          // global memory that stays in L2 (ld.global.cg: no L1)
};

struct policy {
  static constexpr int chase_threads = 128;
  static constexpr int stream_threads = 512;
  static constexpr std::size_t stream_bytes_per_block = 32 * 1024;
};

__device__ __forceinline__ std::uint32_t* dsmem_words() {
  extern __shared__ __align__(16) std::uint32_t memscope_dsmem_smem[];
  return memscope_dsmem_smem;
}

/// Every block copies the ring into its shared memory and writes its SM to sms[block]; thread 0
/// of rank 0 of every cluster c then chases it `iters` loads deep from word starts[c] in each
/// target: its own copy (shared, dsmem_self), each peer 1..C-1 in turn (dsmem_peer), or the
/// global ring (l2, after a warming pass). With T targets, cycles[c * T + t] is target t's
/// total and last[c * T + t] where its chase ended (checked against the host). The clusters
/// chase at once: one load in flight per SM, which no shared path notices.
template <path P>
__global__ void chase_kernel(const std::uint32_t* __restrict__ ring, int words, unsigned iters,
                             const std::uint32_t* __restrict__ starts, unsigned long long* cycles, std::uint32_t* last,
                             unsigned* sms) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  std::uint32_t* own = dsmem_words();
  cg::cluster_group cluster = cg::this_cluster();
  for (int i = threadIdx.x; i < words; i += blockDim.x) own[i] = ring[i];
  if (threadIdx.x == 0) sms[blockIdx.x] = sm_id();
  cluster.sync();  // every peer's copy is complete before anyone reads it
  if (cluster.block_rank() == 0 && threadIdx.x == 0) {
    const unsigned targets = P == path::dsmem_peer ? cluster.num_blocks() - 1 : 1;
    const unsigned c = blockIdx.x / cluster.num_blocks();
    for (unsigned t = 0; t < targets; ++t) {
      const std::uint32_t* p = own;
      if (P == path::dsmem_self) p = cluster.map_shared_rank(own, 0u);
      if (P == path::dsmem_peer) p = cluster.map_shared_rank(own, t + 1);
      std::uint32_t at = 0;
      if (P == path::l2)
        for (int i = 0; i < words; ++i) at = __ldcg(ring + at);  // bring the ring into L2
      at = starts[c];
      const long long t0 = clock64();
      if (P == path::l2) {
        for (unsigned i = 0; i < iters; ++i) at = __ldcg(ring + at);
      } else {
        for (unsigned i = 0; i < iters; ++i) at = p[at];
      }
      const long long t1 = clock64();
      cycles[c * targets + t] = static_cast<unsigned long long>(t1 - t0);
      last[c * targets + t] = at;
    }
  }
  cluster.sync();  // no block exits while rank 0 may still read its shared memory
#else
  __trap();
#endif
}

/// The words block `rank` keeps (or is sent) in round `round`: a pure function, so the host
/// checks every read sum and every written word.
MEMSCOPE_HD std::uint32_t stream_word(std::uint64_t seed, unsigned rank, std::uint64_t word) {
  return hash_u32(seed, (static_cast<std::uint64_t>(rank) << 32) | word);
}

/// What round `round` writes to word `word` of block `rank`: a few integer operations, so the
/// write loop measures the stores, not a hash.
MEMSCOPE_HD std::uint32_t written_word(std::uint64_t seed, unsigned round, unsigned rank, std::uint32_t word) {
  return static_cast<std::uint32_t>(seed) ^ (round * 0x9E3779B1u) ^ (rank << 24) ^ word;
}

// By member, not through a uint32_t* to the vector: taking the vector's address made nvcc
// split the generic-pointer load of a uint2/uint4 into 4-byte ld.u32 (seen in the PTX).
__device__ __forceinline__ std::uint32_t sum_words(std::uint32_t v) { return v; }
__device__ __forceinline__ std::uint32_t sum_words(const uint2& v) { return v.x + v.y; }
__device__ __forceinline__ std::uint32_t sum_words(const uint4& v) { return v.x + v.y + v.z + v.w; }

/// Each block fills its buffer, then for `rounds` rounds reads (or overwrites) the whole
/// buffer of the next block in the cluster (its own for path::shared / dsmem_self) with
/// V-wide accesses. Reads: sums[block] = the sum of every word read. Writes: `dump`, when
/// given, receives each block's buffer as its neighbour left it.
template <class V, bool Write, path P>
__global__ void __launch_bounds__(policy::stream_threads)
    stream_kernel(unsigned rounds, std::uint64_t seed, std::uint32_t* sums, std::uint32_t* dump) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  constexpr int vectors = static_cast<int>(policy::stream_bytes_per_block / sizeof(V));
  constexpr int words = static_cast<int>(policy::stream_bytes_per_block / 4);
  std::uint32_t* own = dsmem_words();
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned rank = cluster.block_rank();
  const unsigned next = (rank + 1) % cluster.num_blocks();
  for (int i = threadIdx.x; i < words; i += blockDim.x) own[i] = stream_word(seed, rank, static_cast<unsigned>(i));
  cluster.sync();  // the neighbour's buffer is filled before we touch it
  V* target = reinterpret_cast<V*>(own);
  if (P == path::dsmem_self) target = cluster.map_shared_rank(target, rank);
  if (P == path::dsmem_peer) target = cluster.map_shared_rank(target, next);
  const unsigned target_rank = P == path::dsmem_peer ? next : rank;
  if (!Write) {
    std::uint32_t acc = 0;
    for (unsigned r = 0; r < rounds; ++r) {
      for (int i = threadIdx.x; i < vectors; i += blockDim.x) acc += sum_words(target[i]);
      asm volatile("" ::: "memory");  // each round must load again, not reuse the last sum
    }
    atomicAdd(sums + blockIdx.x, acc);
  } else {
    for (unsigned r = 0; r < rounds; ++r) {
      for (int i = threadIdx.x; i < vectors; i += blockDim.x) {
        V v;
        auto* w = reinterpret_cast<std::uint32_t*>(&v);
#pragma unroll
        for (unsigned k = 0; k < sizeof(V) / 4; ++k)
          w[k] = written_word(seed, r, target_rank, static_cast<std::uint32_t>(i * (sizeof(V) / 4) + k));
        target[i] = v;
      }
      asm volatile("" ::: "memory");  // every round's stores happen, not just the last
    }
  }
  cluster.sync();  // the neighbour is done with our buffer (and we with theirs) before anyone exits
  if (Write && dump != nullptr)
    for (int i = threadIdx.x; i < words; i += blockDim.x)
      dump[static_cast<std::size_t>(blockIdx.x) * words + i] = own[i];
#else
  __trap();
#endif
}

}  // namespace memscope::dsmem
