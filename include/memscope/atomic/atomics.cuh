#pragma once
// Atomics on their own: add, a compare-and-swap loop and max on 32/64-bit integers and floats,
// into global memory, the block's shared memory or a peer block's (DSMEM, clusters of two),
// at a chosen number of threads per address; scope variants; warp aggregation; the latency of
// a dependent chain of atomics, and of one through lines homed in the chasing SM's own L2
// partition or the other one. Counts are exact and atomics_reference.hpp predicts them.
//
// 64-bit max, min and or (the forms tested; add and CAS are exact) on a peer block's shared
// memory are not atomic as compiled for sm_90 by CUDA 13.0: the hardware lacks them for
// DSMEM, and ptxas's fallback sorts the address into global (native), the block's own shared
// window (a CAS loop) or anything else, which it treats as thread-local: a plain load and
// store. cas_max is the exact replacement; dsmem_max64_probe tells whether a binary needs it.

#include "memscope/atomic/atomics_reference.hpp"
#include "memscope/core/cuda_check.hpp"
#include "memscope/core/device_buffer.hpp"
#include "memscope/core/sm_id.cuh"
#include "memscope/dsmem/cluster_launch.cuh"

#include <cooperative_groups.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace memscope::atomic {

enum class op { add, cas, max, cas_max };  // cas_max: max built from atomicCAS

/// Whether the op offers reference::max_value rather than adding.
constexpr bool offers_max(op o) { return o == op::max || o == op::cas_max; }
enum class target { global, shared, dsmem };
enum class scope { device, block, system };

struct policy {
  static constexpr int block_threads = 256;
  static constexpr int blocks_per_sm = 4;
  static constexpr int cluster = 2;         // DSMEM: each block of a pair updates the other's counters
  static constexpr int chain_words = 1024;  // the latency chase's ring
  static constexpr int line_words = 32;     // 128 bytes: one L2 line per step of the home chase
};

/// Words between the latency ring's entries. Global: one entry per 128-byte line, 1024 lines
/// (128 KiB) that fall on both of the L2's home partitions (atomics/l2_home), so the chain
/// costs their mean wherever the allocator put the ring; a packed 4 KiB ring falls wholly on one
/// side, near or far by the luck of the allocation, and changes from run to run. Shared and
/// DSMEM: packed.
constexpr std::uint32_t chain_stride(target t) { return t == target::global ? policy::line_words : 1u; }

/// Where the reference looks for a target's counters.
constexpr reference::counters_in counters_of(target t) {
  return t == target::global   ? reference::counters_in::global
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

}  // namespace detail

/// atomicMax built from compare-and-swap: exact wherever atomicCAS is, a peer block's shared
/// memory included (where this toolchain's 64-bit atomicMax is not; see the file's head).
/// Integers only. Returns the value it replaced.
template <class T>
__device__ __forceinline__ T cas_max(T* p, T v) {
  static_assert(std::is_integral_v<T> && (sizeof(T) == 4 || sizeof(T) == 8), "32- or 64-bit integers");
  using word = std::conditional_t<sizeof(T) == 4, unsigned int, unsigned long long>;
  word* w = reinterpret_cast<word*>(p);
  word old = *w;
  while (static_cast<T>(old) < v) {
    const word seen = old;
    old = atomicCAS(w, seen, static_cast<word>(v));
    if (old == seen) break;
  }
  return static_cast<T>(old);
}

namespace detail {

template <op O, scope Sc, class T>
__device__ __forceinline__ void apply(T* p, T v) {
  if constexpr (O == op::cas) {
    cas_add(p, v);
  } else if constexpr (O == op::cas_max) {
    cas_max(p, v);
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
    if constexpr (Aggregate && !offers_max(O)) {
      const unsigned group =
          __match_any_sync(__activemask(), static_cast<unsigned long long>(reinterpret_cast<std::uintptr_t>(p)));
      if ((threadIdx.x & 31) == static_cast<unsigned>(__ffs(group) - 1))
        detail::apply<O, Sc>(p, static_cast<T>(__popc(group)));
    } else if constexpr (offers_max(O)) {
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
    for (unsigned i = threadIdx.x; i < per_block; i += blockDim.x)
      counters[static_cast<std::size_t>(blockIdx.x) * per_block + i] = own[i];
  }
}

/// One thread per chain follows idx = atomicAdd(&ring[idx], 0) for `steps` dependent atomics;
/// cycles[k] = chain k's clock64 cycles, last[k] = the entry where it ended; sms[block] = the
/// block's SM. Global: one block, chain 0 through ring_global, laid out by
/// reference::chain_ring(chain_stride(target::global)) (L2); shared: one block, its own ring;
/// dsmem: every pair k of a grid of clusters of two, block 0 walks block 1's ring.
template <target Tg>
__global__ void atomic_chain_kernel(std::uint32_t* ring_global, int steps, unsigned long long* cycles,
                                    std::uint32_t* last, unsigned* sms) {
  __shared__ std::uint32_t ring_shared[policy::chain_words];
  std::uint32_t* ring = ring_global;
  if constexpr (Tg != target::global) {
    for (int i = threadIdx.x; i < policy::chain_words; i += blockDim.x)
      ring_shared[i] = reference::chain_next(static_cast<std::uint32_t>(i));
    ring = ring_shared;
  }
  if (threadIdx.x == 0) sms[blockIdx.x] = sm_id();
  bool chaser = blockIdx.x == 0;
  unsigned chain = 0;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  namespace cg = cooperative_groups;
  if constexpr (Tg == target::dsmem) {
    cg::cluster_group cluster = cg::this_cluster();
    cluster.sync();
    ring = cluster.map_shared_rank(ring_shared, 1u);
    chaser = cluster.block_rank() == 0;
    chain = blockIdx.x / policy::cluster;
  } else {
    __syncthreads();
  }
#else
  __syncthreads();
#endif
  if (threadIdx.x == 0 && chaser) {
    std::uint32_t p = 0;
    for (int i = 0; i < policy::chain_words; ++i) p = atomicAdd(ring + p, 0u);  // warm
    const long long c0 = clock64();
    for (int i = 0; i < steps; ++i) p = atomicAdd(ring + p, 0u);
    const long long c1 = clock64();
    cycles[chain] = static_cast<unsigned long long>(c1 - c0);
    last[chain] = p / chain_stride(Tg);
  }
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if constexpr (Tg == target::dsmem) cg::this_cluster().sync();  // block 1 stays until its ring was read
#endif
}

/// The L2 home chase, all in one thread so that one SM probes and chases: every line of
/// `n_lines` (policy::line_words apart) gets a short chain of atomics, probe[j] = its cycles
/// per atomic; the lines on side `s` of reference::split_of form a ring in index order; after
/// a warm lap, `steps` dependent atomicAdd(p, 0) (Atomic) or ld.global.cg loads run between
/// two clock64 reads. out = {cycles, lines on the side, SM}; last[0] = the line it ended on.
template <bool Atomic>
__global__ void l2_home_chain_kernel(std::uint32_t* lines, int n_lines, reference::side s, int steps,
                                     std::uint32_t* probe, unsigned long long* out, std::uint32_t* last) {
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
  constexpr std::uint32_t lw = policy::line_words;
  for (int j = 0; j < n_lines; ++j) lines[j * lw] = j * lw;  // each line points at itself
  __threadfence();
  for (int j = 0; j < n_lines; ++j) {
    std::uint32_t p = j * lw, best = ~0u;
    for (int rep = 0; rep < 2; ++rep) {  // the first brings the line into the L2
      const long long c0 = clock64();
      for (int k = 0; k < 8; ++k) p = atomicAdd(lines + p, 0u);
      const long long c1 = clock64();
      best = min(best, static_cast<std::uint32_t>((c1 - c0) / 8));
    }
    probe[j] = best;
  }
  const reference::home_split h = reference::split_of(probe, n_lines);
  int first = -1, prev = -1;
  unsigned long long count = 0;
  for (int j = 0; j < n_lines; ++j) {
    if (!reference::on_side(probe[j], h, s)) continue;
    if (prev < 0) first = j;
    else lines[prev * lw] = j * lw;
    prev = j;
    ++count;
  }
  out[1] = count;
  out[2] = sm_id();
  if (count == 0) {
    out[0] = 0;
    last[0] = static_cast<std::uint32_t>(n_lines);
    return;
  }
  lines[prev * lw] = first * lw;
  __threadfence();
  const auto step = [&](std::uint32_t p) {
    if constexpr (Atomic) return atomicAdd(lines + p, 0u);
    else return __ldcg(lines + p);
  };
  std::uint32_t p = first * lw;
  for (unsigned long long i = 0; i < count; ++i) p = step(p);
  const long long c0 = clock64();
  for (int i = 0; i < steps; ++i) p = step(p);
  const long long c1 = clock64();
  out[0] = static_cast<unsigned long long>(c1 - c0);
  last[0] = p / lw;
}

/// Enqueues the home chase with atomics or with ld.global.cg loads (one thread of one block).
inline void l2_home_chain(bool atomic, std::uint32_t* lines, int n_lines, reference::side s, int steps,
                          std::uint32_t* probe, unsigned long long* out, std::uint32_t* last, cudaStream_t stream) {
  if (atomic) l2_home_chain_kernel<true><<<1, 32, 0, stream>>>(lines, n_lines, s, steps, probe, out, last);
  else l2_home_chain_kernel<false><<<1, 32, 0, stream>>>(lines, n_lines, s, steps, probe, out, last);
  MEMSCOPE_CHECK_LAUNCH("l2_home_chain_kernel");
}

/// The probe of this binary's native 64-bit atomicMax into a peer block's shared memory: a
/// warp on each address. usable() is false where its clusters cannot run (a GPU without
/// clusters, or a build below sm_90); launch() enqueues it; count() reads its counters.
struct dsmem_max64_probe {
  using T = unsigned long long;
  static constexpr unsigned blocks = 8;
  static constexpr std::uint64_t sharers = 32;
  static constexpr int iters = 16;

  static unsigned per_block() { return reference::counters_per_block(policy::block_threads, sharers); }
  static std::size_t counters() { return std::size_t{blocks} * per_block(); }
  static std::size_t atomics() { return std::size_t{blocks} * policy::block_threads * iters; }
  static std::size_t smem() { return std::size_t{per_block()} * sizeof(T); }
  static auto kernel() { return atomic_kernel<T, op::max, target::dsmem>; }

  static bool usable() {
    return clusters_usable(kernel()) &&
           max_active_clusters(kernel(), policy::block_threads, policy::cluster, smem()) > 0;
  }
  static void launch(T* out, cudaStream_t stream) {
    launch_cluster(kernel(), dim3(blocks), dim3(policy::block_threads), policy::cluster, smem(), stream, out, sharers,
                   iters);
  }
  /// wrong: counters below the true maximum (lost updates); out_of_range: counters outside
  /// what their threads offered (poison, a torn value): a probe that did not run.
  struct tally {
    std::size_t wrong = 0, checked = 0, out_of_range = 0;
  };
  static tally count(const std::vector<T>& got) {
    tally r{0, got.size(), 0};
    for (std::size_t i = 0; i < got.size(); ++i) {
      const T want = reference::expected_counter(i, true, reference::counters_in::peer_block, blocks,
                                                 policy::block_threads, sharers, iters);
      const std::uint64_t issuer = (i / per_block()) ^ 1u,
                          first = issuer * policy::block_threads + (i % per_block()) * sharers;
      r.wrong += got[i] != want;
      r.out_of_range += got[i] > want || got[i] < reference::max_value(first, 0, iters);
    }
    return r;
  }
  /// One probe, synchronously; {0, 0, 0} where !usable().
  static tally run(cudaStream_t stream) {
    if (!usable()) return {};
    device_buffer<T> out(counters());
    out.poison(stream);
    launch(out.data(), stream);
    MEMSCOPE_CUDA_CALL(cudaStreamSynchronize(stream));
    return count(out.to_host());
  }
};

}  // namespace memscope::atomic
