#pragma once
// The per-sample loop every histogram kernel shares (CUB's "agent" layer): 16-byte vector
// loads, the bin of each sample by any rule (even bins, level ranges), runs held back per
// thread, warp aggregation, and the shared-memory window's placement. Kernels supply where a
// count goes (`add`) and which bins they count locally.

#include "memscope/dsmem/histogram_plan.hpp"

#include <cooperative_groups.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace memscope::histogram {

namespace cg = cooperative_groups;

/// 16 bytes of samples, loaded with one instruction.
template <class SampleT>
struct alignas(16) sample_vector {
  static_assert(16 % sizeof(SampleT) == 0, "sample types of 1, 2, 4, 8 or 16 bytes");
  static constexpr int size = 16 / static_cast<int>(sizeof(SampleT));
  SampleT v[size];
};

/// Counts a thread holds back for one bin while whole warps keep landing in it: under total
/// contention (every sample in one bin) a warp then issues one atomic per run, not one per
/// vector, and L2 stops serialising on one address (global atomics: 0.58x -> 4.1x CUB at 2^18
/// bins). Shared-memory strategies skip it: there it cost 10% on uniform data.
struct pending_run {
  int bin = -1;
  std::uint32_t count = 0;

  template <class Add>
  __device__ __forceinline__ void add(int b, std::uint32_t c, Add& sink) {
    if (b != bin) {
      flush(sink);
      bin = b;
    }
    count += c;
  }
  template <class Add>
  __device__ __forceinline__ void flush(Add& sink) {
    if (count != 0) sink(bin, count);
    count = 0;
  }
};

/// Says no bin is counted locally: every bin is worth aggregating.
struct nothing_local {
  __device__ bool operator()(int) const { return false; }
};

/// Bins one vector and hands add(bin, count) the counts. A warp whose samples all fall in one
/// bin (the all-in-one-bin worst case, where every atomic contends) adds once (through `run`
/// when HoldRuns). With Aggregate, lanes of the warp whose bins agree add once, except where
/// every lane's bin is `local` (counted in shared memory) or none.
template <bool HoldRuns, bool Aggregate, class SampleT, class Rule, class Add, class Local>
__device__ __forceinline__ void bin_vector(const sample_vector<SampleT>& in, const Rule& rule, Add& add, pending_run& run,
                                           const Local& local) {
  constexpr int k_size = sample_vector<SampleT>::size;
  int bins[k_size];
#pragma unroll
  for (int k = 0; k < k_size; ++k) bins[k] = rule(in.v[k]);
  bool one_bin = bins[0] >= 0;
#pragma unroll
  for (int k = 1; k < k_size; ++k) one_bin = one_bin && bins[k] == bins[0];
  const auto warp = cg::coalesced_threads();
  const int lead_bin = warp.shfl(bins[0], 0);
  if (warp.all(one_bin && bins[0] == lead_bin)) {
    if (warp.thread_rank() == 0) {
      const auto count = static_cast<std::uint32_t>(warp.size() * k_size);
      if constexpr (HoldRuns) run.add(lead_bin, count, add);
      else add(lead_bin, count);
    }
    return;
  }
  if constexpr (Aggregate) {
    // Lanes whose samples share a bin add once, the lowest of them for all: a few hot bins
    // then cost one atomic per bin per warp step, not one per sample. Where every lane's bin
    // is counted locally (a shared-memory window) or nowhere, the match would cost more than
    // it saves: those add directly (normal_0.1pct at 2^18 bins: 2.5x -> 14x CUB).
    const unsigned lane = threadIdx.x & 31u;
    const unsigned active = __activemask();
#pragma unroll
    for (int k = 0; k < k_size; ++k) {
      if (__all_sync(active, bins[k] < 0 || local(bins[k]))) {
        if (bins[k] >= 0) add(bins[k], 1u);
        continue;
      }
      const unsigned peers = __match_any_sync(active, bins[k]);
      if (bins[k] >= 0 && lane == static_cast<unsigned>(__ffs(peers) - 1)) add(bins[k], static_cast<std::uint32_t>(__popc(peers)));
    }
  } else {
    // No merging of equal neighbours within a thread (CUB does it): on the H200 the extra
    // compares cost more than the atomics they save (1.05-1.1x faster without, docs/dsmem.md).
#pragma unroll
    for (int k = 0; k < k_size; ++k)
      if (bins[k] >= 0) add(bins[k], 1u);
  }
}

/// Every sample of [0, n) is binned by exactly one of `threads` threads (this one is `rank`):
/// a scalar head up to the first 16-byte boundary, 16-byte vectors with
/// policy::vectors_per_thread loads in flight, a scalar tail.
template <bool HoldRuns = false, bool Aggregate = false, class SampleT, class Rule, class Add, class Local = nothing_local>
__device__ __forceinline__ void for_each_bin(const SampleT* __restrict__ samples, std::size_t n, const Rule& rule,
                                             std::size_t rank, std::size_t threads, Add& add, const Local& local = {}) {
  using vec = sample_vector<SampleT>;
  constexpr int k_vectors = policy::vectors_per_thread;
  const auto address = reinterpret_cast<std::uintptr_t>(samples);
  std::size_t head = ((16 - address % 16) % 16) / sizeof(SampleT);
  if (head > n) head = n;
  if (rank < head) {
    const int bin = rule(samples[rank]);
    if (bin >= 0) add(bin, 1u);
  }
  const auto* vectors = reinterpret_cast<const vec*>(samples + head);
  pending_run run;
  const std::size_t num_vectors = (n - head) / vec::size;
  for (std::size_t base = rank; base < num_vectors; base += threads * k_vectors) {
    vec v[k_vectors];
#pragma unroll
    for (int u = 0; u < k_vectors; ++u) {
      const std::size_t i = base + u * threads;
      // Read-once samples are marked evict-first, so they do not push counters out of L2.
      if (i < num_vectors) {
        const uint4 raw = __ldcs(reinterpret_cast<const uint4*>(vectors + i));
        std::memcpy(&v[u], &raw, sizeof(raw));
      }
    }
#pragma unroll
    for (int u = 0; u < k_vectors; ++u)
      if (base + u * threads < num_vectors) bin_vector<HoldRuns, Aggregate>(v[u], rule, add, run, local);
  }
  if constexpr (HoldRuns) run.flush(add);
  for (std::size_t i = head + num_vectors * vec::size + rank; i < n; i += threads) {
    const int bin = rule(samples[i]);
    if (bin >= 0) add(bin, 1u);
  }
}

__device__ __forceinline__ std::size_t global_thread_rank() {
  return static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ __forceinline__ std::size_t global_thread_count() {
  return static_cast<std::size_t>(gridDim.x) * blockDim.x;
}

/// One dynamic shared-memory declaration for every kernel of this header (extern __shared__
/// arrays of one name must agree in type across a translation unit).
__device__ __forceinline__ std::uint32_t* shared_counters() {
  extern __shared__ __align__(16) std::uint32_t memscope_histogram_smem[];
  return memscope_histogram_smem;
}

/// The first bin of a block's shared-memory window: the window of `width` bins centred on the
/// median bin of 32 samples spread over the block's share of the input (a bell's mass, wherever
/// the block's samples start; a skew's hot region). Warp 0 finds it; the block reads it after
/// the barrier that follows.
template <class SampleT, class Rule>
__device__ __forceinline__ void window_start(const SampleT* __restrict__ samples, std::size_t n, const Rule& rule, int width,
                                             int* shared_start) {
  if (threadIdx.x < 32) {
    const unsigned lane = threadIdx.x;
    const std::size_t probes = static_cast<std::size_t>(gridDim.x) * 32;
    const std::size_t i = ((static_cast<std::size_t>(blockIdx.x) * 32 + lane) * (n / probes) + lane) % n;
    const int bin = rule(samples[i]);
    const unsigned valid = __ballot_sync(~0u, bin >= 0);
    // The median of the valid bins: the one with as many valid bins below it as half of them
    // (ties by lane), found with 32 shuffles.
    int below = 0;
    for (int l = 0; l < 32; ++l) {
      const int other = __shfl_sync(~0u, bin, l);
      below += ((valid >> l) & 1u) && (other < bin || (other == bin && l < static_cast<int>(lane)));
    }
    const unsigned is_median = __ballot_sync(~0u, bin >= 0 && below == __popc(valid) / 2);
    const int median = __shfl_sync(~0u, bin, is_median ? __ffs(is_median) - 1 : 0);
    if (lane == 0) *shared_start = valid ? max(0, min(median - width / 2, rule.num_bins - width)) : 0;
  }
}

/// Adds a block's or thread's count to a counter of the output type (32- or 64-bit, signed
/// or not: two's complement makes the unsigned add the same).
template <class CounterT>
__device__ __forceinline__ void add_count(CounterT* counter, std::uint32_t count) {
  static_assert(std::is_integral_v<CounterT> && (sizeof(CounterT) == 4 || sizeof(CounterT) == 8),
                "histogram counters are 32- or 64-bit integers");
  if constexpr (sizeof(CounterT) == 8)
    atomicAdd(reinterpret_cast<unsigned long long*>(counter), static_cast<unsigned long long>(count));
  else
    atomicAdd(reinterpret_cast<unsigned int*>(counter), count);
}

}  // namespace memscope::histogram
