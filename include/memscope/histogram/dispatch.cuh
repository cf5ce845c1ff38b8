#pragma once
// The histogram dispatch (CUB's dispatch layer): plans a call for the device, leases scratch,
// launches the strategy's kernel over a sample layout (one run, pitched rows) and any bin rule.
// The public forms are in histogram.cuh and multi.cuh. Counters are kept where they
// fit best:
//   block_smem      every block privatises all bins in its shared memory;
//   cluster_split   a thread-block cluster splits the bin range, each block reading every sample;
//   cluster_dsmem   a cluster spreads the bins over its blocks' shared memory (remote atomics);
//   global_private  copies of the counters in global memory (L2), warp aggregation and a
//                   per-block shared-memory window, for any bin count and any skew;
//   global_atomics  every sample adds to the output (one copy).
// Layers as in CUB: the bin rules (rules.hpp), the per-sample loop
// (agent.cuh), one kernel per strategy (kernels.cuh), the choice in plain
// C++ (plan.hpp), this dispatch.

#include "memscope/core/cuda_check.hpp"
#include "memscope/core/launch.cuh"
#include "memscope/core/memo.hpp"
#include "memscope/dsmem/cluster_launch.cuh"
#include "memscope/histogram/kernels.cuh"
#include "memscope/histogram/plan.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace memscope::histogram {

/// What plan_histogram needs to know about the current device (cached per device and kernel
/// set): clusters count only where both cluster kernels were compiled for sm_90 or newer (a
/// build for an older architecture JIT-compiled on Hopper has the device's clusters but not
/// the code).
template <class Source, class Rule, class CounterT>
status try_source_device_limits(device_limits& d) {
  static thread_local memo<int, device_limits> cache;
  int device = 0;
  MEMSCOPE_RETURN_IF_CUDA_ERROR(cudaGetDevice(&device));
  return cache.try_get(device, d, [&](device_limits& v) -> status {
    // Both builds of a kernel come from one module: asking one of them answers for both.
    const auto cluster = histogram_cluster_kernel<Source, Rule, CounterT, 1>;
    const auto split = histogram_split_kernel<Source, Rule, CounterT, 1>;
    int optin = 0, arch_cluster = 0, arch_split = 0, l2 = 0, per_sm = 0, reserved = 0, threads = 0;
    bool usable_cluster = false, usable_split = false;
    MEMSCOPE_RETURN_IF_CUDA_ERROR(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    MEMSCOPE_RETURN_IF_CUDA_ERROR(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
    MEMSCOPE_RETURN_IF_CUDA_ERROR(cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device));
    MEMSCOPE_RETURN_IF_CUDA_ERROR(cudaDeviceGetAttribute(&reserved, cudaDevAttrReservedSharedMemoryPerBlock, device));
    MEMSCOPE_RETURN_IF_CUDA_ERROR(cudaDeviceGetAttribute(&threads, cudaDevAttrMaxThreadsPerMultiProcessor, device));
    MEMSCOPE_RETURN_IF_ERROR(try_compiled_arch(cluster, arch_cluster));
    MEMSCOPE_RETURN_IF_ERROR(try_compiled_arch(split, arch_split));
    MEMSCOPE_RETURN_IF_ERROR(try_clusters_usable(cluster, usable_cluster));
    MEMSCOPE_RETURN_IF_ERROR(try_clusters_usable(split, usable_split));
    v.smem_per_block_optin = static_cast<std::size_t>(optin);
    v.cluster_code_arch = std::min(arch_cluster, arch_split);
    v.cluster_launch = usable_cluster && usable_split;
    v.max_cluster_size = v.cluster_launch ? policy::max_cluster_size : 0;  // occupancy decides per shape
    v.l2_bytes = static_cast<std::size_t>(l2);
    v.smem_per_sm = static_cast<std::size_t>(per_sm);
    v.smem_reserved_per_block = static_cast<std::size_t>(reserved);
    v.threads_per_sm = threads;
    return {};
  });
}

template <class SampleT, class Rule = even_rule<SampleT>, class CounterT = std::uint32_t>
status try_current_device_limits(device_limits& d) {
  return try_source_device_limits<linear_samples<SampleT>, Rule, CounterT>(d);
}

template <class SampleT, class Rule = even_rule<SampleT>, class CounterT = std::uint32_t>
device_limits current_device_limits() {
  device_limits d;
  throw_if_error(try_current_device_limits<SampleT, Rule, CounterT>(d));
  return d;
}

struct options {
  strategy kind = strategy::automatic;
  int cluster_size = 0;         // cluster_dsmem: 1, 2, 4, 8 or 16; 0 = choose
  int copies = 0;               // global_private: 1 to policy::max_private_copies, a power of two; 0 = choose
  bool warp_aggregate = false;  // global strategies: lanes with equal bins add once (__match_any_sync)
  bool window = false;          // global strategies: each block counts policy::window_bins bins in shared memory
};

/// The plan a histogram of num_bins bins over num_samples samples laid out as Source would run
/// on the current device, binned by Rule into counters of CounterT.
template <class Source, class Rule, class CounterT>
status try_plan_for_source(int num_bins, std::int64_t num_samples, const options& opt, plan& out) {
  using SampleT = typename Source::value_type;
  device_limits dev;
  MEMSCOPE_RETURN_IF_ERROR((try_source_device_limits<Source, Rule, CounterT>(dev)));
  // A cluster shape counts as runnable only where both cluster kernels co-schedule it: the
  // automatic choice may hand it to either. A failed query ends the planning with its error.
  status query;
  const auto runs = [&query, &dev](int c, std::size_t smem) {
    const int blocks = shared_blocks_per_sm(dev, smem);
    int a = 0, b = 0;
    if (query.ok())
      query = try_max_active_clusters(cluster_kernel_for<Source, Rule, CounterT>(blocks), policy::block_threads, c,
                                      smem, a);
    if (query.ok())
      query =
          try_max_active_clusters(split_kernel_for<Source, Rule, CounterT>(blocks), policy::block_threads, c, smem, b);
    return query.ok() && a > 0 && b > 0;
  };
  const status planned =
      try_plan_histogram(num_bins, dev, opt.kind, opt.cluster_size, runs, out, rule_searches<Rule>::value);
  if (!query.ok()) return query;
  MEMSCOPE_RETURN_IF_ERROR(planned);
  if constexpr (sizeof(SampleT) == 1)
    if (opt.kind == strategy::automatic) {  // 256 raw values (per channel) in every block, whatever the bins
      constexpr int counters = raw_values<SampleT, Rule>::counters;
      out = plan{strategy::block_smem, 1, counters, counters * sizeof(std::uint32_t)};
      out.byte_values = true;
      return {};
    }
  return try_resolve_global(out, opt.kind == strategy::automatic, {opt.copies, opt.warp_aggregate, opt.window},
                            num_bins, num_samples, sizeof(SampleT), dev, sizeof(CounterT));
}

/// The plan of a one-channel histogram over contiguous samples of SampleT.
template <class SampleT, class Rule = even_rule<SampleT>, class CounterT = std::uint32_t>
status try_plan_for(int num_bins, std::int64_t num_samples, const options& opt, plan& out) {
  return try_plan_for_source<linear_samples<SampleT>, Rule, CounterT>(num_bins, num_samples, opt, out);
}

template <class SampleT, class Rule = even_rule<SampleT>, class CounterT = std::uint32_t>
plan plan_for(int num_bins, std::int64_t num_samples, const options& opt) {
  plan p;
  throw_if_error(try_plan_for<SampleT, Rule, CounterT>(num_bins, num_samples, opt, p));
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

template <class Source, class Rule, class CounterT, bool Aggregate, bool Window>
status launch_global_as(const typename Source::value_type* d_samples, const Source& src, const Rule& rule, int copies,
                        CounterT* scratch, CounterT* d_histogram, cudaStream_t stream, unsigned grid,
                        std::size_t smem) {
  histogram_global_kernel<Source, Rule, CounterT, Aggregate, Window><<<grid, policy::block_threads, smem, stream>>>(
      d_samples, src, rule, copies, Window ? static_cast<int>(smem / sizeof(std::uint32_t)) : 0, scratch, d_histogram);
  MEMSCOPE_RETURN_IF_LAUNCH_ERROR("histogram_global_kernel");
  return {};
}

/// Blocks count in 32-bit shared-memory counters and threads hold 32-bit runs: with 64-bit
/// output counters no block may see 2^32 samples (only a GPU of few SMs given over 2^40
/// samples could).
template <class Source>
status check_block_share(const Source& src, unsigned grid, std::size_t samples_per_trip) {
  const std::size_t share = src.block_share(grid, samples_per_trip);
  if (share >= (std::size_t{1} << 32))
    return status::invalid("histogram of " + std::to_string(src.size()) + " samples: " + std::to_string(share) +
                           " per block on this GPU would overflow the blocks' 32-bit counters; split the input");
  return {};
}

/// Runs a global plan. The automatic choice drops the window where the blocks would have too
/// few samples to amortise it (the plan then says so); a window asked for runs regardless.
template <class Source, class Rule, class CounterT>
status launch_global(const typename Source::value_type* d_samples, Source src, const Rule& rule, plan& p,
                     bool automatic, CounterT* scratch, CounterT* d_histogram, cudaStream_t stream) {
  using SampleT = typename Source::value_type;
  constexpr int threads = policy::block_threads;
  const std::size_t n = src.size();
  const std::size_t per_block = std::size_t{threads} * policy::vectors_per_thread * sample_vector<SampleT>::size;
  const std::size_t smem = static_cast<std::size_t>(p.window_bins) * sizeof(std::uint32_t);
  unsigned grid = 1;
  MEMSCOPE_RETURN_IF_ERROR(try_persistent_grid(histogram_global_kernel<Source, Rule, CounterT, true, true>, threads,
                                               smem, n, per_block, grid));
  if (automatic && p.window_bins > 0 &&
      n < std::size_t{grid} * static_cast<std::size_t>(p.window_bins) * policy::window_min_samples_per_counter)
    p.window_bins = 0;
  if (p.window_bins == 0)
    MEMSCOPE_RETURN_IF_ERROR(try_persistent_grid(histogram_global_kernel<Source, Rule, CounterT, true, false>, threads,
                                                 0, n, per_block, grid));
  src.fit_to(std::size_t{grid} * threads, unit_vectors<Rule, typename Source::value_type>());
  MEMSCOPE_RETURN_IF_ERROR(check_block_share(src, grid, per_block));
  // Every copy must have blocks adding to it, or the fold would add zeros for nothing.
  const int copies = std::max(1, std::min(p.copies, static_cast<int>(grid)));
  const std::size_t used_smem = static_cast<std::size_t>(p.window_bins) * sizeof(std::uint32_t);
  status launched;
  if (p.warp_aggregate)
    launched = p.window_bins > 0 ? launch_global_as<Source, Rule, CounterT, true, true>(
                                       d_samples, src, rule, copies, scratch, d_histogram, stream, grid, used_smem)
                                 : launch_global_as<Source, Rule, CounterT, true, false>(
                                       d_samples, src, rule, copies, scratch, d_histogram, stream, grid, 0);
  else
    launched = p.window_bins > 0 ? launch_global_as<Source, Rule, CounterT, false, true>(
                                       d_samples, src, rule, copies, scratch, d_histogram, stream, grid, used_smem)
                                 : launch_global_as<Source, Rule, CounterT, false, false>(
                                       d_samples, src, rule, copies, scratch, d_histogram, stream, grid, 0);
  MEMSCOPE_RETURN_IF_ERROR(launched);
  if (copies > 1) {
    unsigned fold_grid = 1;
    MEMSCOPE_RETURN_IF_ERROR(try_persistent_grid(histogram_fold_kernel<CounterT>, 256, 0,
                                                 static_cast<std::size_t>(rule.num_bins), 256, fold_grid));
    histogram_fold_kernel<CounterT><<<fold_grid, 256, 0, stream>>>(scratch, copies - 1, rule.num_bins, d_histogram);
    MEMSCOPE_RETURN_IF_LAUNCH_ERROR("histogram_fold_kernel");
  }
  return {};
}

/// The raw-value kernel where samples are 8-bit (the only plans that name it), else the block
/// kernel, so that no other instantiation carries a kernel it cannot use.
template <class Source, class Rule, class CounterT>
constexpr auto byte_kernel() {
  if constexpr (sizeof(typename Source::value_type) == 1) return histogram_byte_kernel<Source, Rule, CounterT>;
  else return histogram_block_smem_kernel<Source, Rule, CounterT, 2>;
}

template <class CounterT>
status check_samples(std::int64_t num_samples) {
  if (num_samples < 0 || num_samples > max_samples_for<CounterT>())
    return status::invalid("histogram of " + std::to_string(num_samples) + " samples: 0 to " +
                           std::to_string(max_samples_for<CounterT>()) + " are supported with " +
                           std::to_string(8 * sizeof(CounterT)) + "-bit " +
                           (std::is_signed_v<CounterT> ? "signed" : "unsigned") + " counters");
  return {};
}

/// Checks the count and plans the call, once: the launch and the temp-storage size take the plan.
/// `counted` is what the counters must hold per bin (the samples, or the pixels of a
/// multi-channel call).
template <class Source, class Rule, class CounterT>
status prepare(const Source& src, const Rule& rule, std::int64_t counted, const options& opt, plan& p) {
  MEMSCOPE_RETURN_IF_ERROR(check_samples<CounterT>(counted));
  return try_plan_for_source<Source, Rule, CounterT>(rule.num_bins, static_cast<std::int64_t>(src.size()), opt, p);
}

/// CUB's two-phase protocol for `needed` bytes (at least 1, so code written against CUB's
/// pattern works unchanged): a query (d_temp null) sets temp_bytes and says so; a run checks
/// that the storage given is large enough.
inline status two_phase_bytes(const char* who, const void* d_temp, std::size_t& temp_bytes, std::size_t needed,
                              bool& query) {
  needed = std::max<std::size_t>(1, needed);
  query = d_temp == nullptr;
  if (query) {
    temp_bytes = needed;
    return {};
  }
  if (temp_bytes < needed)
    return status::invalid(std::string(who) + ": temp_storage_bytes (" + std::to_string(temp_bytes) +
                           ") smaller than the query's " + std::to_string(needed));
  return {};
}

/// The histogram of the samples of `src` by `rule` into d_histogram[0, rule.num_bins) as `p`
/// (from prepare) says, with `scratch` (at least scratch_bytes(p) bytes) or, where it is null
/// and the plan needs some, scratch leased for this call. A global plan may drop its window
/// here (launch_global), and `p` then says so.
template <class Source, class Rule, class CounterT>
status launch_histogram(void* scratch, const typename Source::value_type* d_samples, Source src, CounterT* d_histogram,
                        const Rule& rule, cudaStream_t stream, const options& opt, plan& p) {
  using SampleT = typename Source::value_type;
  const std::size_t n = src.size();
  const std::size_t counter_bytes = static_cast<std::size_t>(rule.num_bins) * sizeof(CounterT);
  MEMSCOPE_RETURN_IF_CUDA_ERROR(cudaMemsetAsync(d_histogram, 0, counter_bytes, stream));
  if (n == 0) return {};
  constexpr int threads = policy::block_threads;
  const std::size_t per_block = std::size_t{threads} * policy::vectors_per_thread * sample_vector<SampleT>::size;
  const bool automatic = opt.kind == strategy::automatic;

  switch (p.kind) {
    case strategy::global_atomics:
      return launch_global<Source, Rule, CounterT>(d_samples, src, rule, p, automatic, nullptr, d_histogram, stream);
    case strategy::global_private: {
      const std::size_t bytes = scratch_bytes(p, rule.num_bins, sizeof(CounterT));
      scratch_lease lease;
      if (scratch == nullptr) {
        MEMSCOPE_RETURN_IF_ERROR(lease.acquire(bytes, stream));
        scratch = lease.ptr;
      }
      auto* copies = static_cast<CounterT*>(scratch);
      MEMSCOPE_RETURN_IF_CUDA_ERROR(cudaMemsetAsync(copies, 0, bytes, stream));
      MEMSCOPE_RETURN_IF_ERROR(
          (launch_global<Source, Rule, CounterT>(d_samples, src, rule, p, automatic, copies, d_histogram, stream)));
      return lease.release();
    }
    case strategy::block_smem: {
      const auto kernel = p.byte_values ? byte_kernel<Source, Rule, CounterT>()
                                        : block_kernel_for<Source, Rule, CounterT>(p.blocks_per_sm);
      unsigned grid = 1;
      MEMSCOPE_RETURN_IF_ERROR(try_prepare_dynamic_smem(kernel, p.smem_bytes));
      MEMSCOPE_RETURN_IF_ERROR(try_persistent_grid(kernel, threads, p.smem_bytes, n, per_block, grid));
      src.fit_to(std::size_t{grid} * threads, unit_vectors<Rule, typename Source::value_type>());
      MEMSCOPE_RETURN_IF_ERROR(check_block_share(src, grid, per_block));
      kernel<<<grid, threads, p.smem_bytes, stream>>>(d_samples, src, rule, d_histogram);
      MEMSCOPE_RETURN_IF_LAUNCH_ERROR(p.byte_values ? "histogram_byte_kernel" : "histogram_block_smem_kernel");
      return {};
    }
    case strategy::cluster_dsmem:
    case strategy::cluster_split: {
      const auto kernel = p.kind == strategy::cluster_dsmem
                              ? cluster_kernel_for<Source, Rule, CounterT>(p.blocks_per_sm)
                              : split_kernel_for<Source, Rule, CounterT>(p.blocks_per_sm);
      int clusters = 0;
      MEMSCOPE_RETURN_IF_ERROR(try_max_active_clusters(kernel, threads, p.cluster_size, p.smem_bytes, clusters));
      // A split cluster walks its samples once per block, so it covers per_block samples a trip.
      const std::size_t per_cluster =
          p.kind == strategy::cluster_dsmem ? per_block * static_cast<std::size_t>(p.cluster_size) : per_block;
      const std::size_t wanted = ceil_div(n, per_cluster);
      const std::size_t used =
          std::max<std::size_t>(1, std::min<std::size_t>(wanted, static_cast<std::size_t>(clusters)));
      // The threads that share the samples: the whole grid, or one block per cluster (split).
      src.fit_to(used * threads * (p.kind == strategy::cluster_dsmem ? static_cast<std::size_t>(p.cluster_size) : 1),
                 unit_vectors<Rule, typename Source::value_type>());
      MEMSCOPE_RETURN_IF_ERROR(check_block_share(src, static_cast<unsigned>(used), per_cluster));
      int log2_cluster = 0;
      while ((1 << log2_cluster) < p.cluster_size) ++log2_cluster;
      return try_launch_cluster(kernel, dim3(static_cast<unsigned>(used * p.cluster_size)), dim3(threads),
                                p.cluster_size, p.smem_bytes, stream, d_samples, src, rule, log2_cluster,
                                p.bins_per_block, d_histogram);
    }
    case strategy::automatic:
      break;
  }
  return status::invalid("plan_histogram returned no concrete strategy");
}

/// num_samples contiguous samples.
template <class SampleT>
status try_linear(std::int64_t num_samples, linear_samples<SampleT>& src) {
  if (num_samples < 0)
    return status::invalid("histogram of " + std::to_string(num_samples) + " samples: a count is >= 0");
  src = {static_cast<std::size_t>(num_samples)};
  return {};
}

/// num_rows rows of num_row_samples samples, row r starting r * row_stride_bytes bytes after row 0.
template <class SampleT>
status try_pitched(std::int64_t num_row_samples, std::int64_t num_rows, std::size_t row_stride_bytes,
                   pitched_samples<SampleT>& src) {
  if (num_row_samples < 0 || num_rows < 0)
    return status::invalid("histogram of " + std::to_string(num_rows) + " rows of " + std::to_string(num_row_samples) +
                           " samples: counts are >= 0");
  if (row_stride_bytes % sizeof(SampleT) != 0)
    return status::invalid("histogram row_stride_bytes " + std::to_string(row_stride_bytes) +
                           " is not a multiple of the " + std::to_string(sizeof(SampleT)) +
                           "-byte sample (CUB requires the same)");
  if (num_row_samples > 0 && num_rows > std::numeric_limits<std::int64_t>::max() / num_row_samples)
    return status::invalid("histogram of " + std::to_string(num_rows) + " rows of " + std::to_string(num_row_samples) +
                           " samples: more samples than 64 bits count");
  src = {};
  src.row_samples = static_cast<std::size_t>(num_row_samples);
  src.rows = static_cast<std::size_t>(num_rows);
  src.row_stride = row_stride_bytes / sizeof(SampleT);
  return {};
}

/// One call over `src`: direct (temp_bytes null: scratch leased) or CUB's two-phase form, where
/// global_private's extra copies are the temp storage (the other strategies need none).
template <class Source, class Rule, class CounterT>
status run(void* d_temp, std::size_t* temp_bytes, const typename Source::value_type* d_samples, const Source& src,
           CounterT* d_histogram, const Rule& rule, std::int64_t counted, cudaStream_t stream, const options& opt,
           plan& p) {
  MEMSCOPE_RETURN_IF_ERROR((prepare<Source, Rule, CounterT>(src, rule, counted, opt, p)));
  if (temp_bytes != nullptr) {
    bool query = false;
    MEMSCOPE_RETURN_IF_ERROR(
        two_phase_bytes("histogram", d_temp, *temp_bytes, scratch_bytes(p, rule.num_bins, sizeof(CounterT)), query));
    if (query) return {};
  }
  return launch_histogram(temp_bytes != nullptr ? d_temp : nullptr, d_samples, src, d_histogram, rule, stream, opt, p);
}

template <class Source, class CounterT, class LevelT>
status even_status(void* d_temp, std::size_t* temp_bytes, const typename Source::value_type* d_samples,
                   const Source& src, CounterT* d_histogram, int num_levels, LevelT lower, LevelT upper,
                   cudaStream_t stream, const options& opt, plan& p) {
  using SampleT = typename Source::value_type;
  even_rule<SampleT, LevelT> rule;
  MEMSCOPE_RETURN_IF_ERROR(try_make_even_rule<SampleT>(num_levels, lower, upper, rule));
  return run(d_temp, temp_bytes, d_samples, src, d_histogram, rule, static_cast<std::int64_t>(src.size()), stream, opt,
             p);
}

template <class Source, class CounterT, class LevelT>
status range_status(void* d_temp, std::size_t* temp_bytes, const typename Source::value_type* d_samples,
                    const Source& src, CounterT* d_histogram, int num_levels, const LevelT* d_levels,
                    cudaStream_t stream, const options& opt, plan& p) {
  using SampleT = typename Source::value_type;
  range_rule<SampleT, LevelT> rule;
  MEMSCOPE_RETURN_IF_ERROR(try_make_range_rule<SampleT>(num_levels, d_levels, rule));
  return run(d_temp, temp_bytes, d_samples, src, d_histogram, rule, static_cast<std::int64_t>(src.size()), stream, opt,
             p);
}

// The four layouts x rules the public forms name.
template <class SampleT, class CounterT, class LevelT>
status even_1d(void* d_temp, std::size_t* temp_bytes, const SampleT* d_samples, CounterT* d_histogram, int num_levels,
               LevelT lower, LevelT upper, std::int64_t num_samples, cudaStream_t stream, const options& opt, plan& p) {
  linear_samples<SampleT> src;
  MEMSCOPE_RETURN_IF_ERROR(try_linear(num_samples, src));
  return even_status(d_temp, temp_bytes, d_samples, src, d_histogram, num_levels, lower, upper, stream, opt, p);
}

template <class SampleT, class CounterT, class LevelT>
status even_2d(void* d_temp, std::size_t* temp_bytes, const SampleT* d_samples, CounterT* d_histogram, int num_levels,
               LevelT lower, LevelT upper, std::int64_t num_row_samples, std::int64_t num_rows,
               std::size_t row_stride_bytes, cudaStream_t stream, const options& opt, plan& p) {
  pitched_samples<SampleT> src;
  MEMSCOPE_RETURN_IF_ERROR(try_pitched(num_row_samples, num_rows, row_stride_bytes, src));
  if (src.gapless())
    return even_status(d_temp, temp_bytes, d_samples, linear_samples<SampleT>{src.size()}, d_histogram, num_levels,
                       lower, upper, stream, opt, p);
  return even_status(d_temp, temp_bytes, d_samples, src, d_histogram, num_levels, lower, upper, stream, opt, p);
}

template <class SampleT, class CounterT, class LevelT>
status range_1d(void* d_temp, std::size_t* temp_bytes, const SampleT* d_samples, CounterT* d_histogram, int num_levels,
                const LevelT* d_levels, std::int64_t num_samples, cudaStream_t stream, const options& opt, plan& p) {
  linear_samples<SampleT> src;
  MEMSCOPE_RETURN_IF_ERROR(try_linear(num_samples, src));
  return range_status(d_temp, temp_bytes, d_samples, src, d_histogram, num_levels, d_levels, stream, opt, p);
}

template <class SampleT, class CounterT, class LevelT>
status range_2d(void* d_temp, std::size_t* temp_bytes, const SampleT* d_samples, CounterT* d_histogram, int num_levels,
                const LevelT* d_levels, std::int64_t num_row_samples, std::int64_t num_rows,
                std::size_t row_stride_bytes, cudaStream_t stream, const options& opt, plan& p) {
  pitched_samples<SampleT> src;
  MEMSCOPE_RETURN_IF_ERROR(try_pitched(num_row_samples, num_rows, row_stride_bytes, src));
  if (src.gapless())
    return range_status(d_temp, temp_bytes, d_samples, linear_samples<SampleT>{src.size()}, d_histogram, num_levels,
                        d_levels, stream, opt, p);
  return range_status(d_temp, temp_bytes, d_samples, src, d_histogram, num_levels, d_levels, stream, opt, p);
}

inline cudaError_t to_cuda_error(status s, const plan& p, outcome* out) {
  if (out != nullptr) {
    out->ran = p;
    out->message = std::move(s.message);
  }
  return s.code;
}

template <class Status>
plan throw_or_plan(Status&& call) {
  plan p;
  throw_if_error(call(p));
  return p;
}

}  // namespace detail

}  // namespace memscope::histogram
