#pragma once
// memscope::histogram::histogram_even: the counts of cub::DeviceHistogram::HistogramEven
// (same levels, same bin rule, 32-bit counters), with the counters kept where they fit best:
//   block_smem     every block privatises all bins in its shared memory;
//   cluster_dsmem  a thread-block cluster spreads the bins over its blocks' shared memory
//                  (distributed shared memory, sm_90+) and samples add to remote counters;
//   global_atomics every sample adds to the output (L2 atomics), for any bin count.
// Layers as in CUB: the per-sample loop, one kernel per strategy, a thin host launcher.

#include "memscope/core/cuda_check.hpp"
#include "memscope/core/launch.cuh"
#include "memscope/dsmem/cluster_launch.cuh"
#include "memscope/dsmem/histogram_plan.hpp"

#include <cooperative_groups.h>

#include <cstddef>
#include <cstdint>
#include <algorithm>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

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

/// Bins one vector and hands add(bin, count) the counts. A warp whose samples all fall in one
/// bin (the all-in-one-bin worst case, where every atomic contends) adds once (through `run`
/// when HoldRuns).
/// Says no bin is counted locally: every bin is worth aggregating.
struct nothing_local {
  __device__ bool operator()(int) const { return false; }
};

template <bool HoldRuns, bool Aggregate, class SampleT, class Add, class Local>
__device__ __forceinline__ void bin_vector(const sample_vector<SampleT>& in, const even_bins<SampleT>& rule, Add& add,
                                           pending_run& run, const Local& local) {
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
template <bool HoldRuns = false, bool Aggregate = false, class SampleT, class Add, class Local = nothing_local>
__device__ __forceinline__ void for_each_bin(const SampleT* __restrict__ samples, std::size_t n,
                                             const even_bins<SampleT>& rule, std::size_t rank, std::size_t threads,
                                             Add& add, const Local& local = {}) {
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
template <class SampleT>
__device__ __forceinline__ void window_start(const SampleT* __restrict__ samples, std::size_t n,
                                            const even_bins<SampleT>& rule, int width, int* shared_start) {
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

/// global_atomics (copies == 1) and global_private: block b adds to copy b % copies, copy 0
/// being the output and copy c > 0 scratch + (c - 1) * num_bins; histogram_fold_kernel sums
/// the copies afterwards. With Window, bins in the block's window count in shared memory and
/// are flushed to the output at the end.
template <class SampleT, bool Aggregate, bool Window>
__global__ void __launch_bounds__(policy::block_threads)
    histogram_global_kernel(const SampleT* __restrict__ samples, std::size_t n, even_bins<SampleT> rule, int copies,
                            int window_bins, std::uint32_t* __restrict__ scratch, std::uint32_t* __restrict__ histogram) {
  const int copy = static_cast<int>(blockIdx.x % static_cast<unsigned>(copies));
  std::uint32_t* counters = copy == 0 ? histogram : scratch + static_cast<std::size_t>(copy - 1) * rule.num_bins;
  if constexpr (Window) {
    __shared__ int start_shared;
    std::uint32_t* window = shared_counters();
    window_start(samples, n, rule, window_bins, &start_shared);
    for (int i = threadIdx.x; i < window_bins; i += blockDim.x) window[i] = 0;
    __syncthreads();
    const int start = start_shared;
    const auto in_window = [=](int bin) { return static_cast<unsigned>(bin - start) < static_cast<unsigned>(window_bins); };
    auto add = [&](int bin, std::uint32_t count) {
      if (in_window(bin)) atomicAdd(window + (bin - start), count);
      else atomicAdd(counters + bin, count);
    };
    for_each_bin<true, Aggregate>(samples, n, rule, global_thread_rank(), global_thread_count(), add, in_window);
    __syncthreads();
    for (int i = threadIdx.x; i < window_bins; i += blockDim.x)
      if (const std::uint32_t c = window[i]) atomicAdd(histogram + start + i, c);
  } else {
    auto add = [&](int bin, std::uint32_t count) { atomicAdd(counters + bin, count); };
    for_each_bin<true, Aggregate>(samples, n, rule, global_thread_rank(), global_thread_count(), add);
  }
}

/// histogram[b] += the scratch copies' counts of bin b.
__global__ void histogram_fold_kernel(const std::uint32_t* __restrict__ scratch, int extra_copies, int num_bins,
                                      std::uint32_t* __restrict__ histogram) {
  const auto bins = static_cast<std::size_t>(num_bins);
  for (std::size_t b = global_thread_rank(); b < bins; b += global_thread_count()) {
    std::uint32_t sum = 0;
    for (int c = 0; c < extra_copies; ++c) sum += scratch[static_cast<std::size_t>(c) * bins + b];
    if (sum != 0) histogram[b] += sum;
  }
}

template <class SampleT>
__global__ void __launch_bounds__(policy::block_threads)
    histogram_block_smem_kernel(const SampleT* __restrict__ samples, std::size_t n, even_bins<SampleT> rule,
                                std::uint32_t* __restrict__ histogram) {
  std::uint32_t* counters = shared_counters();
  for (int i = threadIdx.x; i < rule.num_bins; i += blockDim.x) counters[i] = 0;
  __syncthreads();
  auto add = [&](int bin, std::uint32_t count) { atomicAdd(counters + bin, count); };
  for_each_bin(samples, n, rule, global_thread_rank(), global_thread_count(), add);
  __syncthreads();
  for (int i = threadIdx.x; i < rule.num_bins; i += blockDim.x)
    if (const std::uint32_t c = counters[i]) atomicAdd(histogram + i, c);
}

/// Bins are interleaved over the cluster: bin b lives in block b % C at b / C. C is a power of
/// two, so owner and slot are a mask and a shift (the seed's contiguous split divides), and a
/// skewed distribution's hot neighbouring bins land in different blocks.
template <class SampleT>
__global__ void __launch_bounds__(policy::block_threads)
    histogram_cluster_kernel(const SampleT* __restrict__ samples, std::size_t n, even_bins<SampleT> rule,
                             int log2_cluster, int bins_per_block, std::uint32_t* __restrict__ histogram) {
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
  for_each_bin(samples, n, rule, global_thread_rank(), global_thread_count(), add);
  // Rule 2: a block's shared memory ends with the block. Until every peer has finished adding
  // into it, no block may exit, and none may read its own totals (they are still changing).
  cluster.sync();
  for (int i = threadIdx.x; i < bins_per_block; i += blockDim.x) {
    const int bin = (i << log2_cluster) | rank;
    if (bin < rule.num_bins)
      if (const std::uint32_t c = counters[i]) atomicAdd(histogram + bin, c);
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
template <class SampleT>
__global__ void __launch_bounds__(policy::block_threads)
    histogram_split_kernel(const SampleT* __restrict__ samples, std::size_t n, even_bins<SampleT> rule,
                           int log2_cluster, int bins_per_block, std::uint32_t* __restrict__ histogram) {
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
  for_each_bin(samples, n, rule, cluster_id * blockDim.x + threadIdx.x, clusters * blockDim.x, add);
  __syncthreads();
  for (int i = threadIdx.x; i < owned; i += blockDim.x)
    if (const std::uint32_t c = counters[i]) atomicAdd(histogram + first + i, c);
#else
  __trap();
#endif
}

/// What plan_histogram needs to know about the current device (cached per device): clusters
/// count only where both cluster kernels were compiled for sm_90 or newer (a build for an
/// older architecture JIT-compiled on Hopper has the device's clusters but not the code).
template <class SampleT>
status try_current_device_limits(device_limits& d) {
  static thread_local std::vector<std::pair<int, device_limits>> cache;
  int device = 0;
  MEMSCOPE_RETURN_IF_CUDA_ERROR(cudaGetDevice(&device));
  for (const auto& e : cache)
    if (e.first == device) {
      d = e.second;
      return {};
    }
  int optin = 0, arch_cluster = 0, arch_split = 0;
  bool usable_cluster = false, usable_split = false;
  MEMSCOPE_RETURN_IF_CUDA_ERROR(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  MEMSCOPE_RETURN_IF_ERROR(try_compiled_arch(histogram_cluster_kernel<SampleT>, arch_cluster));
  MEMSCOPE_RETURN_IF_ERROR(try_compiled_arch(histogram_split_kernel<SampleT>, arch_split));
  MEMSCOPE_RETURN_IF_ERROR(try_clusters_usable(histogram_cluster_kernel<SampleT>, usable_cluster));
  MEMSCOPE_RETURN_IF_ERROR(try_clusters_usable(histogram_split_kernel<SampleT>, usable_split));
  d = {};
  d.smem_per_block_optin = static_cast<std::size_t>(optin);
  d.cluster_code_arch = std::min(arch_cluster, arch_split);
  d.cluster_launch = usable_cluster && usable_split;
  d.max_cluster_size = d.cluster_launch ? policy::max_cluster_size : 0;  // occupancy decides per shape
  int l2 = 0;
  MEMSCOPE_RETURN_IF_CUDA_ERROR(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
  d.l2_bytes = static_cast<std::size_t>(l2);
  cache.emplace_back(device, d);
  return {};
}

template <class SampleT>
device_limits current_device_limits() {
  device_limits d;
  throw_if_error(try_current_device_limits<SampleT>(d));
  return d;
}

struct options {
  strategy kind = strategy::automatic;
  int cluster_size = 0;  // cluster_dsmem: 1, 2, 4, 8 or 16; 0 = choose
  int copies = 0;        // global_private: 1 to policy::max_private_copies, a power of two; 0 = choose
  bool warp_aggregate = false;  // global strategies: lanes with equal bins add once (__match_any_sync)
  bool window = false;          // global strategies: each block counts policy::window_bins bins in shared memory
};

/// The plan histogram_even would run for these bins and samples on the current device.
template <class SampleT>
status try_plan_for(int num_bins, std::int64_t num_samples, const options& opt, plan& out) {
  device_limits dev;
  MEMSCOPE_RETURN_IF_ERROR(try_current_device_limits<SampleT>(dev));
  // A cluster shape counts as runnable only where both cluster kernels co-schedule it: the
  // automatic choice may hand it to either. A failed query ends the planning with its error.
  status query;
  const auto runs = [&query](int c, std::size_t smem) {
    int a = 0, b = 0;
    if (query.ok()) query = try_max_active_clusters(histogram_cluster_kernel<SampleT>, policy::block_threads, c, smem, a);
    if (query.ok()) query = try_max_active_clusters(histogram_split_kernel<SampleT>, policy::block_threads, c, smem, b);
    return query.ok() && a > 0 && b > 0;
  };
  const status planned = try_plan_histogram(num_bins, dev, opt.kind, opt.cluster_size, runs, out);
  if (!query.ok()) return query;
  MEMSCOPE_RETURN_IF_ERROR(planned);
  return try_resolve_global(out, opt.kind == strategy::automatic, {opt.copies, opt.warp_aggregate, opt.window}, num_bins,
                            num_samples, sizeof(SampleT), dev);
}

template <class SampleT>
plan plan_for(int num_bins, std::int64_t num_samples, const options& opt) {
  plan p;
  throw_if_error(try_plan_for<SampleT>(num_bins, num_samples, opt, p));
  return p;
}

/// What a cudaError_t-returning call ran, or why it failed (CUB returns the code alone).
struct outcome {
  plan ran;
  std::string message;  // empty on success
};

namespace detail {

/// Scratch for a direct (one-phase) call: stream-ordered from the device's memory pool, so a
/// loop of calls reuses the pool's memory instead of allocating; plain cudaMalloc where the
/// device has no pools.
struct scratch_lease {
  void* ptr = nullptr;
  bool pooled = false;
  cudaStream_t stream = nullptr;

  status acquire(std::size_t bytes, cudaStream_t s) {
    stream = s;
    int device = 0, pools = 0;
    MEMSCOPE_RETURN_IF_CUDA_ERROR(cudaGetDevice(&device));
    MEMSCOPE_RETURN_IF_CUDA_ERROR(cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, device));
    pooled = pools != 0;
    if (pooled) MEMSCOPE_RETURN_IF_CUDA_ERROR(cudaMallocAsync(&ptr, bytes, s));
    else MEMSCOPE_RETURN_IF_CUDA_ERROR(cudaMalloc(&ptr, bytes));
    return {};
  }
  /// After the work that uses it is enqueued (or failed to be).
  status release() {
    if (ptr == nullptr) return {};
    void* p = ptr;
    ptr = nullptr;
    if (pooled) MEMSCOPE_RETURN_IF_CUDA_ERROR(cudaFreeAsync(p, stream));
    else MEMSCOPE_RETURN_IF_CUDA_ERROR(cudaFree(p));  // waits for the device
    return {};
  }
  scratch_lease() = default;
  scratch_lease(const scratch_lease&) = delete;
  scratch_lease& operator=(const scratch_lease&) = delete;
  ~scratch_lease() { (void)release(); }
};

template <class SampleT, bool Aggregate, bool Window>
status launch_global_as(const SampleT* d_samples, std::size_t n, const even_bins<SampleT>& rule, int copies,
                        std::uint32_t* scratch, std::uint32_t* d_histogram, cudaStream_t stream, unsigned grid,
                        std::size_t smem) {
  histogram_global_kernel<SampleT, Aggregate, Window><<<grid, policy::block_threads, smem, stream>>>(
      d_samples, n, rule, copies, Window ? static_cast<int>(smem / sizeof(std::uint32_t)) : 0, scratch, d_histogram);
  MEMSCOPE_RETURN_IF_LAUNCH_ERROR("histogram_global_kernel");
  return {};
}

/// Runs a global plan. The automatic choice drops the window where the blocks would have too
/// few samples to amortise it (the plan then says so); a window asked for runs regardless.
template <class SampleT>
status launch_global(const SampleT* d_samples, std::size_t n, const even_bins<SampleT>& rule, plan& p, bool automatic,
                     std::uint32_t* scratch, std::uint32_t* d_histogram, cudaStream_t stream) {
  constexpr int threads = policy::block_threads;
  const std::size_t per_block = std::size_t{threads} * policy::vectors_per_thread * sample_vector<SampleT>::size;
  const std::size_t smem = static_cast<std::size_t>(p.window_bins) * sizeof(std::uint32_t);
  unsigned grid = 1;
  MEMSCOPE_RETURN_IF_ERROR(try_persistent_grid(histogram_global_kernel<SampleT, true, true>, threads, smem, n, per_block, grid));
  if (automatic && p.window_bins > 0 && n < std::size_t{grid} * static_cast<std::size_t>(p.window_bins) * policy::window_min_samples_per_counter)
    p.window_bins = 0;
  if (p.window_bins == 0)
    MEMSCOPE_RETURN_IF_ERROR(try_persistent_grid(histogram_global_kernel<SampleT, true, false>, threads, 0, n, per_block, grid));
  // Every copy must have blocks adding to it, or the fold would add zeros for nothing.
  const int copies = std::max(1, std::min(p.copies, static_cast<int>(grid)));
  const std::size_t used_smem = static_cast<std::size_t>(p.window_bins) * sizeof(std::uint32_t);
  status launched;
  if (p.warp_aggregate)
    launched = p.window_bins > 0 ? launch_global_as<SampleT, true, true>(d_samples, n, rule, copies, scratch, d_histogram, stream, grid, used_smem)
                                 : launch_global_as<SampleT, true, false>(d_samples, n, rule, copies, scratch, d_histogram, stream, grid, 0);
  else
    launched = p.window_bins > 0 ? launch_global_as<SampleT, false, true>(d_samples, n, rule, copies, scratch, d_histogram, stream, grid, used_smem)
                                 : launch_global_as<SampleT, false, false>(d_samples, n, rule, copies, scratch, d_histogram, stream, grid, 0);
  MEMSCOPE_RETURN_IF_ERROR(launched);
  if (copies > 1) {
    unsigned fold_grid = 1;
    MEMSCOPE_RETURN_IF_ERROR(try_persistent_grid(histogram_fold_kernel, 256, 0, static_cast<std::size_t>(rule.num_bins), 256, fold_grid));
    histogram_fold_kernel<<<fold_grid, 256, 0, stream>>>(scratch, copies - 1, rule.num_bins, d_histogram);
    MEMSCOPE_RETURN_IF_LAUNCH_ERROR("histogram_fold_kernel");
  }
  return {};
}

/// The histogram, with `scratch` (at least scratch_bytes(p) bytes) or, where it is null and the
/// plan needs some, scratch leased for this call.
template <class SampleT>
status histogram_even_status(void* scratch, const SampleT* d_samples, std::uint32_t* d_histogram, int num_levels,
                             SampleT lower_level, SampleT upper_level, std::int64_t num_samples, cudaStream_t stream,
                             const options& opt, plan& p) {
  even_bins<SampleT> rule;
  MEMSCOPE_RETURN_IF_ERROR(even_bins<SampleT>::try_make(num_levels, lower_level, upper_level, rule));
  if (num_samples < 0 || num_samples > policy::max_samples)
    return status::invalid("histogram of " + std::to_string(num_samples) +
                           " samples: 0 to 2^32-1 are supported (32-bit counters)");
  MEMSCOPE_RETURN_IF_ERROR(try_plan_for<SampleT>(rule.num_bins, num_samples, opt, p));
  const std::size_t counter_bytes = static_cast<std::size_t>(rule.num_bins) * sizeof(std::uint32_t);
  MEMSCOPE_RETURN_IF_CUDA_ERROR(cudaMemsetAsync(d_histogram, 0, counter_bytes, stream));
  if (num_samples == 0) return {};
  const auto n = static_cast<std::size_t>(num_samples);
  constexpr int threads = policy::block_threads;
  const std::size_t per_block = std::size_t{threads} * policy::vectors_per_thread * sample_vector<SampleT>::size;

  switch (p.kind) {
    case strategy::global_atomics:
      return launch_global(d_samples, n, rule, p, opt.kind == strategy::automatic, nullptr, d_histogram, stream);
    case strategy::global_private: {
      const std::size_t bytes = scratch_bytes(p, rule.num_bins);
      scratch_lease lease;
      if (scratch == nullptr) {
        MEMSCOPE_RETURN_IF_ERROR(lease.acquire(bytes, stream));
        scratch = lease.ptr;
      }
      auto* copies = static_cast<std::uint32_t*>(scratch);
      MEMSCOPE_RETURN_IF_CUDA_ERROR(cudaMemsetAsync(copies, 0, bytes, stream));
      MEMSCOPE_RETURN_IF_ERROR(launch_global(d_samples, n, rule, p, opt.kind == strategy::automatic, copies, d_histogram, stream));
      return lease.release();
    }
    case strategy::block_smem: {
      unsigned grid = 1;
      MEMSCOPE_RETURN_IF_ERROR(try_prepare_dynamic_smem(histogram_block_smem_kernel<SampleT>, p.smem_bytes));
      MEMSCOPE_RETURN_IF_ERROR(try_persistent_grid(histogram_block_smem_kernel<SampleT>, threads, p.smem_bytes, n, per_block, grid));
      histogram_block_smem_kernel<SampleT><<<grid, threads, p.smem_bytes, stream>>>(d_samples, n, rule, d_histogram);
      MEMSCOPE_RETURN_IF_LAUNCH_ERROR("histogram_block_smem_kernel");
      return {};
    }
    case strategy::cluster_dsmem:
    case strategy::cluster_split: {
      const auto kernel = p.kind == strategy::cluster_dsmem ? histogram_cluster_kernel<SampleT> : histogram_split_kernel<SampleT>;
      int clusters = 0;
      MEMSCOPE_RETURN_IF_ERROR(try_max_active_clusters(kernel, threads, p.cluster_size, p.smem_bytes, clusters));
      // A split cluster walks its samples once per block, so it covers per_block samples a trip.
      const std::size_t per_cluster = p.kind == strategy::cluster_dsmem ? per_block * static_cast<std::size_t>(p.cluster_size) : per_block;
      const std::size_t wanted = ceil_div(n, per_cluster);
      const std::size_t used = std::max<std::size_t>(1, std::min<std::size_t>(wanted, static_cast<std::size_t>(clusters)));
      int log2_cluster = 0;
      while ((1 << log2_cluster) < p.cluster_size) ++log2_cluster;
      return try_launch_cluster(kernel, dim3(static_cast<unsigned>(used * p.cluster_size)), dim3(threads), p.cluster_size,
                                p.smem_bytes, stream, d_samples, n, rule, log2_cluster, p.bins_per_block, d_histogram);
    }
    case strategy::automatic:
      break;
  }
  return status::invalid("plan_histogram returned no concrete strategy");
}

/// CUB's two-phase protocol: with d_temp_storage == nullptr only temp_storage_bytes is set:
/// global_private's extra copies, else 1 byte (the other strategies need no scratch; kept so
/// code written against CUB's pattern works unchanged).
template <class SampleT>
status histogram_even_two_phase(void* d_temp_storage, std::size_t& temp_storage_bytes, const SampleT* d_samples,
                                std::uint32_t* d_histogram, int num_levels, SampleT lower_level, SampleT upper_level,
                                std::int64_t num_samples, cudaStream_t stream, const options& opt, plan& p) {
  even_bins<SampleT> rule;  // bad levels fail at the query already
  MEMSCOPE_RETURN_IF_ERROR(even_bins<SampleT>::try_make(num_levels, lower_level, upper_level, rule));
  if (num_samples < 0 || num_samples > policy::max_samples)
    return status::invalid("histogram of " + std::to_string(num_samples) +
                           " samples: 0 to 2^32-1 are supported (32-bit counters)");
  MEMSCOPE_RETURN_IF_ERROR(try_plan_for<SampleT>(rule.num_bins, num_samples, opt, p));
  const std::size_t needed = std::max<std::size_t>(1, scratch_bytes(p, rule.num_bins));
  if (d_temp_storage == nullptr) {
    temp_storage_bytes = needed;
    return {};
  }
  if (temp_storage_bytes < needed)
    return status::invalid("histogram_even: temp_storage_bytes (" + std::to_string(temp_storage_bytes) +
                           ") smaller than the query's " + std::to_string(needed));
  return histogram_even_status(d_temp_storage, d_samples, d_histogram, num_levels, lower_level, upper_level, num_samples,
                               stream, opt, p);
}

inline cudaError_t to_cuda_error(status s, const plan& p, outcome* out) {
  if (out != nullptr) {
    out->ran = p;
    out->message = std::move(s.message);
  }
  return s.code;
}

}  // namespace detail

/// Enqueues the histogram of d_samples[0, num_samples) into d_histogram[0, num_levels - 1),
/// which it overwrites (as CUB does). Returns the plan it ran. Throws std::invalid_argument
/// (bad levels or sizes), memscope::unsupported (a forced strategy this GPU or binary cannot
/// run) or memscope::cuda_error (a CUDA call failed).
template <class SampleT>
plan histogram_even(const SampleT* d_samples, std::uint32_t* d_histogram, int num_levels, SampleT lower_level,
                    SampleT upper_level, std::int64_t num_samples, cudaStream_t stream = nullptr, options opt = {}) {
  plan p;
  throw_if_error(detail::histogram_even_status(nullptr, d_samples, d_histogram, num_levels, lower_level, upper_level, num_samples,
                                               stream, opt, p));
  return p;
}

/// CUB's two-phase form of the above: with d_temp_storage == nullptr only temp_storage_bytes is
/// set (1 byte: the strategies need no scratch; kept so code written against CUB works).
template <class SampleT>
plan histogram_even(void* d_temp_storage, std::size_t& temp_storage_bytes, const SampleT* d_samples,
                    std::uint32_t* d_histogram, int num_levels, SampleT lower_level, SampleT upper_level,
                    std::int64_t num_samples, cudaStream_t stream = nullptr, options opt = {}) {
  plan p;
  throw_if_error(detail::histogram_even_two_phase(d_temp_storage, temp_storage_bytes, d_samples, d_histogram, num_levels,
                                                  lower_level, upper_level, num_samples, stream, opt, p));
  return p;
}

/// The cudaError_t forms, for code built without exceptions (as CUB's DeviceHistogram): they
/// never throw. cudaErrorInvalidValue for bad levels or sizes, cudaErrorNotSupported for a
/// forced strategy this GPU or binary cannot run, else the failing CUDA call's error. `out`,
/// where given, receives the plan that ran and the message of a failure.
template <class SampleT>
cudaError_t try_histogram_even(const SampleT* d_samples, std::uint32_t* d_histogram, int num_levels, SampleT lower_level,
                               SampleT upper_level, std::int64_t num_samples, cudaStream_t stream = nullptr,
                               options opt = {}, outcome* out = nullptr) {
  plan p;
  return detail::to_cuda_error(detail::histogram_even_status(nullptr, d_samples, d_histogram, num_levels, lower_level, upper_level,
                                                             num_samples, stream, opt, p),
                               p, out);
}

template <class SampleT>
cudaError_t try_histogram_even(void* d_temp_storage, std::size_t& temp_storage_bytes, const SampleT* d_samples,
                               std::uint32_t* d_histogram, int num_levels, SampleT lower_level, SampleT upper_level,
                               std::int64_t num_samples, cudaStream_t stream = nullptr, options opt = {},
                               outcome* out = nullptr) {
  plan p;
  return detail::to_cuda_error(detail::histogram_even_two_phase(d_temp_storage, temp_storage_bytes, d_samples, d_histogram,
                                                                num_levels, lower_level, upper_level, num_samples,
                                                                stream, opt, p),
                               p, out);
}

}  // namespace memscope::histogram
