#pragma once
// One kernel per histogram strategy (CUB's kernel layer), over any bin rule and counter type:
// global atomics with copies, aggregation and a window; one block's shared memory; a DSMEM
// cluster; a split cluster; and the fold that sums global copies.

#include "memscope/histogram/agent.cuh"

#include <cooperative_groups.h>

#include <cstddef>
#include <cstdint>

namespace memscope::histogram {

// The shared-memory kernels (block, DSMEM cluster, split cluster) come built twice, for the
// blocks of their shared memory one SM holds (plan::blocks_per_sm). Where two fit, the build
// ptxas sizes itself (launch bounds of 1024 threads and no minimum): 32 registers where the
// loop fits them, so two blocks share the SM; a heavier loop keeps what it needs rather than
// spill. Where the shared memory admits only one block, a build promised one (minimum 1) may
// take up to 64 registers, which is faster (docs/tuning.md, "Histogram register builds").

/// The launch bounds' minimum blocks per SM of the build for BlocksPerSM: 1, or none (0).
template <int BlocksPerSM>
constexpr int min_blocks_per_sm() {
  return BlocksPerSM == 1 ? 1 : 0;
}

/// global_atomics (copies == 1) and global_private: block b adds to copy b % copies, copy 0
/// being the output and copy c > 0 scratch + (c - 1) * num_bins; histogram_fold_kernel sums
/// the copies afterwards. With Window, bins in the block's window count in shared memory and
/// are flushed to the output at the end.
template <class Source, class Rule, class CounterT, bool Aggregate, bool Window>
__global__ void __launch_bounds__(policy::block_threads)
    histogram_global_kernel(const typename Source::value_type* __restrict__ samples, Source src, Rule rule, int copies,
                            int window_bins, CounterT* __restrict__ scratch, CounterT* __restrict__ histogram) {
  const int copy = static_cast<int>(blockIdx.x % static_cast<unsigned>(copies));
  CounterT* counters = copy == 0 ? histogram : scratch + static_cast<std::size_t>(copy - 1) * rule.num_bins;
  if constexpr (Window) {
    __shared__ int start_shared;
    std::uint32_t* window = shared_counters();
    window_start(samples, src, rule, window_bins, &start_shared);
    for (int i = threadIdx.x; i < window_bins; i += blockDim.x) window[i] = 0;
    __syncthreads();
    const int start = start_shared;
    const auto in_window = [=](int bin) {
      return static_cast<unsigned>(bin - start) < static_cast<unsigned>(window_bins);
    };
    auto add = [&](int bin, std::uint32_t count) {
      if (in_window(bin)) atomicAdd(window + (bin - start), count);
      else add_count(counters + bin, count);
    };
    for_each_source_bin<true, Aggregate>(samples, src, rule, global_thread_rank(), global_thread_count(), add,
                                         in_window);
    __syncthreads();
    for (int i = threadIdx.x; i < window_bins; i += blockDim.x)
      if (const std::uint32_t c = window[i]) add_count(histogram + start + i, c);
  } else {
    auto add = [&](int bin, std::uint32_t count) { add_count(counters + bin, count); };
    for_each_source_bin<true, Aggregate>(samples, src, rule, global_thread_rank(), global_thread_count(), add);
  }
}

/// histogram[b] += the scratch copies' counts of bin b.
template <class CounterT>
__global__ void histogram_fold_kernel(const CounterT* __restrict__ scratch, int extra_copies, int num_bins,
                                      CounterT* __restrict__ histogram) {
  const auto bins = static_cast<std::size_t>(num_bins);
  for (std::size_t b = global_thread_rank(); b < bins; b += global_thread_count()) {
    CounterT sum = 0;
    for (int c = 0; c < extra_copies; ++c) sum += scratch[static_cast<std::size_t>(c) * bins + b];
    if (sum != 0) histogram[b] += sum;
  }
}

template <class Source, class Rule, class CounterT, int BlocksPerSM>
__global__ void __launch_bounds__(policy::block_threads, min_blocks_per_sm<BlocksPerSM>())
    histogram_block_smem_kernel(const typename Source::value_type* __restrict__ samples, Source src, Rule rule,
                                CounterT* __restrict__ histogram) {
  std::uint32_t* counters = shared_counters();
  for (int i = threadIdx.x; i < rule.num_bins; i += blockDim.x) counters[i] = 0;
  __syncthreads();
  auto add = [&](int bin, std::uint32_t count) { atomicAdd(counters + bin, count); };
  for_each_source_bin(samples, src, rule, global_thread_rank(), global_thread_count(), add);
  __syncthreads();
  for (int i = threadIdx.x; i < rule.num_bins; i += blockDim.x)
    if (const std::uint32_t c = counters[i]) add_count(histogram + i, c);
}

/// 8-bit samples: every block counts the 256 raw values (per active channel) in shared memory,
/// with no binning per sample, and adds each value's count to its bin once at the end.
template <class Source, class Rule, class CounterT>
__global__ void __launch_bounds__(policy::block_threads)
    histogram_byte_kernel(const typename Source::value_type* __restrict__ samples, Source src, Rule rule,
                          CounterT* __restrict__ histogram) {
  using raw = raw_values<typename Source::value_type, Rule>;
  std::uint32_t* counters = shared_counters();
  for (int i = threadIdx.x; i < raw::counters; i += blockDim.x) counters[i] = 0;
  __syncthreads();
  auto add = [&](int value, std::uint32_t count) { atomicAdd(counters + value, count); };
  for_each_source_bin(samples, src, typename raw::type{}, global_thread_rank(), global_thread_count(), add);
  __syncthreads();
  for (int i = threadIdx.x; i < raw::counters; i += blockDim.x)
    if (const std::uint32_t c = counters[i]) {
      const int bin = raw::bin(rule, i);
      if (bin >= 0) add_count(histogram + bin, c);
    }
}

/// Copies channel a's bins of a multi-channel histogram's combined counters to its output.
template <class CounterT, int ActiveChannels>
struct channel_outputs {
  CounterT* out[ActiveChannels];
  int first_bin[ActiveChannels];
  int num_bins[ActiveChannels];
};

template <class CounterT, int ActiveChannels>
__global__ void histogram_scatter_kernel(const CounterT* __restrict__ combined,
                                         channel_outputs<CounterT, ActiveChannels> to) {
  for (int a = 0; a < ActiveChannels; ++a)
    for (std::size_t b = global_thread_rank(); b < static_cast<std::size_t>(to.num_bins[a]); b += global_thread_count())
      to.out[a][b] = combined[to.first_bin[a] + b];
}

/// Bins are interleaved over the cluster: bin b lives in block b % C at b / C. C is a power of
/// two, so owner and slot are a mask and a shift (the seed's contiguous split divides), and a
/// skewed distribution's hot neighbouring bins land in different blocks.
template <class Source, class Rule, class CounterT, int BlocksPerSM>
__global__ void __launch_bounds__(policy::block_threads, min_blocks_per_sm<BlocksPerSM>())
    histogram_cluster_kernel(const typename Source::value_type* __restrict__ samples, Source src, Rule rule,
                             int log2_cluster, int bins_per_block, CounterT* __restrict__ histogram) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  std::uint32_t* counters = shared_counters();
  cg::cluster_group cluster = cg::this_cluster();
  const int rank = static_cast<int>(cluster.block_rank());
  for (int i = threadIdx.x; i < bins_per_block; i += blockDim.x) counters[i] = 0;
  // Rule 1: a block may touch a peer's shared memory only after the peer has started and
  // zeroed it. Blocks of a cluster are co-scheduled but not in lockstep; cluster.sync() (a
  // release/acquire barrier over the cluster) is what guarantees both.
  cluster.sync();
  const unsigned owner_mask = (1u << log2_cluster) - 1u;
  auto add = [&](int bin, std::uint32_t count) {
    std::uint32_t* owner = cluster.map_shared_rank(counters, static_cast<unsigned>(bin) & owner_mask);
    atomicAdd(owner + (bin >> log2_cluster), count);
  };
  for_each_source_bin(samples, src, rule, global_thread_rank(), global_thread_count(), add);
  // Rule 2: a block's shared memory ends with the block. Until every peer has finished adding
  // into it, no block may exit, and none may read its own totals (they are still changing).
  cluster.sync();
  for (int i = threadIdx.x; i < bins_per_block; i += blockDim.x) {
    const int bin = (i << log2_cluster) | rank;
    if (bin < rule.num_bins)
      if (const std::uint32_t c = counters[i]) add_count(histogram + bin, c);
  }
#else
  __trap();  // the launcher never runs this below sm_90 (no clusters)
#endif
}

/// Bins split into C contiguous ranges, one per block of the cluster; every block of a cluster
/// walks the same samples (the cluster, not the block, is the unit of the grid-stride loop) and
/// counts only those in its own range. The C reads of a sample come close together from
/// co-scheduled blocks, so L2 serves all but the first; nothing crosses to another SM's
/// shared memory. The cluster launch is what guarantees the blocks run together.
template <class Source, class Rule, class CounterT, int BlocksPerSM>
__global__ void __launch_bounds__(policy::block_threads, min_blocks_per_sm<BlocksPerSM>())
    histogram_split_kernel(const typename Source::value_type* __restrict__ samples, Source src, Rule rule,
                           int log2_cluster, int bins_per_block, CounterT* __restrict__ histogram) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  std::uint32_t* counters = shared_counters();
  const int rank = static_cast<int>(cg::this_cluster().block_rank());
  const int first = rank * bins_per_block;
  const int owned = max(0, min(bins_per_block, rule.num_bins - first));
  for (int i = threadIdx.x; i < owned; i += blockDim.x) counters[i] = 0;
  __syncthreads();
  auto add = [&](int bin, std::uint32_t count) {
    const unsigned local = static_cast<unsigned>(bin - first);
    if (local < static_cast<unsigned>(owned)) atomicAdd(counters + local, count);
  };
  const std::size_t cluster_id = blockIdx.x >> log2_cluster;
  const std::size_t clusters = gridDim.x >> log2_cluster;
  for_each_source_bin(samples, src, rule, cluster_id * blockDim.x + threadIdx.x, clusters * blockDim.x, add);
  __syncthreads();
  for (int i = threadIdx.x; i < owned; i += blockDim.x)
    if (const std::uint32_t c = counters[i]) add_count(histogram + first + i, c);
#else
  __trap();
#endif
}

/// The build of each shared-memory kernel for `blocks_per_sm` (plan::blocks_per_sm).
template <class Source, class Rule, class CounterT>
auto block_kernel_for(int blocks_per_sm) {
  return blocks_per_sm >= 2 ? histogram_block_smem_kernel<Source, Rule, CounterT, 2>
                            : histogram_block_smem_kernel<Source, Rule, CounterT, 1>;
}
template <class Source, class Rule, class CounterT>
auto cluster_kernel_for(int blocks_per_sm) {
  return blocks_per_sm >= 2 ? histogram_cluster_kernel<Source, Rule, CounterT, 2>
                            : histogram_cluster_kernel<Source, Rule, CounterT, 1>;
}
template <class Source, class Rule, class CounterT>
auto split_kernel_for(int blocks_per_sm) {
  return blocks_per_sm >= 2 ? histogram_split_kernel<Source, Rule, CounterT, 2>
                            : histogram_split_kernel<Source, Rule, CounterT, 1>;
}

}  // namespace memscope::histogram
