#pragma once
// memscope::histogram: the counts of cub::DeviceHistogram's HistogramEven and HistogramRange
// (same levels, same bin rules, 32- or 64-bit counters, levels of their own type), with the
// counters kept where they fit best:
//   block_smem      every block privatises all bins in its shared memory;
//   cluster_split   a thread-block cluster splits the bin range, each block reading every sample;
//   cluster_dsmem   a cluster spreads the bins over its blocks' shared memory (remote atomics);
//   global_private  copies of the counters in global memory (L2), warp aggregation and a
//                   per-block shared-memory window, for any bin count and any skew;
//   global_atomics  every sample adds to the output (one copy).
// Layers as in CUB: the per-sample loop (histogram_agent.cuh), one kernel per strategy
// (histogram_kernels.cuh), the choice in plain C++ (histogram_plan.hpp), this dispatch.

#include "memscope/core/cuda_check.hpp"
#include "memscope/core/launch.cuh"
#include "memscope/dsmem/cluster_launch.cuh"
#include "memscope/dsmem/histogram_kernels.cuh"
#include "memscope/dsmem/histogram_plan.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace memscope::histogram {

/// What plan_histogram needs to know about the current device (cached per device and kernel
/// set): clusters count only where both cluster kernels were compiled for sm_90 or newer (a
/// build for an older architecture JIT-compiled on Hopper has the device's clusters but not
/// the code).
template <class SampleT, class Rule = even_rule<SampleT>, class CounterT = std::uint32_t>
status try_current_device_limits(device_limits& d) {
  static thread_local std::vector<std::pair<int, device_limits>> cache;
  int device = 0;
  MEMSCOPE_RETURN_IF_CUDA_ERROR(cudaGetDevice(&device));
  for (const auto& e : cache)
    if (e.first == device) {
      d = e.second;
      return {};
    }
  const auto cluster = histogram_cluster_kernel<SampleT, Rule, CounterT>;
  const auto split = histogram_split_kernel<SampleT, Rule, CounterT>;
  int optin = 0, arch_cluster = 0, arch_split = 0, l2 = 0;
  bool usable_cluster = false, usable_split = false;
  MEMSCOPE_RETURN_IF_CUDA_ERROR(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  MEMSCOPE_RETURN_IF_CUDA_ERROR(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
  MEMSCOPE_RETURN_IF_ERROR(try_compiled_arch(cluster, arch_cluster));
  MEMSCOPE_RETURN_IF_ERROR(try_compiled_arch(split, arch_split));
  MEMSCOPE_RETURN_IF_ERROR(try_clusters_usable(cluster, usable_cluster));
  MEMSCOPE_RETURN_IF_ERROR(try_clusters_usable(split, usable_split));
  d = {};
  d.smem_per_block_optin = static_cast<std::size_t>(optin);
  d.cluster_code_arch = std::min(arch_cluster, arch_split);
  d.cluster_launch = usable_cluster && usable_split;
  d.max_cluster_size = d.cluster_launch ? policy::max_cluster_size : 0;  // occupancy decides per shape
  d.l2_bytes = static_cast<std::size_t>(l2);
  cache.emplace_back(device, d);
  return {};
}

template <class SampleT, class Rule = even_rule<SampleT>, class CounterT = std::uint32_t>
device_limits current_device_limits() {
  device_limits d;
  throw_if_error(try_current_device_limits<SampleT, Rule, CounterT>(d));
  return d;
}

struct options {
  strategy kind = strategy::automatic;
  int cluster_size = 0;  // cluster_dsmem: 1, 2, 4, 8 or 16; 0 = choose
  int copies = 0;        // global_private: 1 to policy::max_private_copies, a power of two; 0 = choose
  bool warp_aggregate = false;  // global strategies: lanes with equal bins add once (__match_any_sync)
  bool window = false;          // global strategies: each block counts policy::window_bins bins in shared memory
};

/// The plan a histogram of num_bins bins over num_samples samples would run on the current
/// device, for samples of SampleT binned by Rule into counters of CounterT.
template <class SampleT, class Rule = even_rule<SampleT>, class CounterT = std::uint32_t>
status try_plan_for(int num_bins, std::int64_t num_samples, const options& opt, plan& out) {
  device_limits dev;
  MEMSCOPE_RETURN_IF_ERROR((try_current_device_limits<SampleT, Rule, CounterT>(dev)));
  // A cluster shape counts as runnable only where both cluster kernels co-schedule it: the
  // automatic choice may hand it to either. A failed query ends the planning with its error.
  status query;
  const auto runs = [&query](int c, std::size_t smem) {
    int a = 0, b = 0;
    if (query.ok())
      query = try_max_active_clusters(histogram_cluster_kernel<SampleT, Rule, CounterT>, policy::block_threads, c, smem, a);
    if (query.ok())
      query = try_max_active_clusters(histogram_split_kernel<SampleT, Rule, CounterT>, policy::block_threads, c, smem, b);
    return query.ok() && a > 0 && b > 0;
  };
  const status planned = try_plan_histogram(num_bins, dev, opt.kind, opt.cluster_size, runs, out);
  if (!query.ok()) return query;
  MEMSCOPE_RETURN_IF_ERROR(planned);
  return try_resolve_global(out, opt.kind == strategy::automatic, {opt.copies, opt.warp_aggregate, opt.window}, num_bins,
                            num_samples, sizeof(SampleT), dev, sizeof(CounterT));
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

template <class SampleT, class Rule, class CounterT, bool Aggregate, bool Window>
status launch_global_as(const SampleT* d_samples, std::size_t n, const Rule& rule, int copies, CounterT* scratch,
                        CounterT* d_histogram, cudaStream_t stream, unsigned grid, std::size_t smem) {
  histogram_global_kernel<SampleT, Rule, CounterT, Aggregate, Window><<<grid, policy::block_threads, smem, stream>>>(
      d_samples, n, rule, copies, Window ? static_cast<int>(smem / sizeof(std::uint32_t)) : 0, scratch, d_histogram);
  MEMSCOPE_RETURN_IF_LAUNCH_ERROR("histogram_global_kernel");
  return {};
}

/// Blocks count in 32-bit shared-memory counters and threads hold 32-bit runs: with 64-bit
/// output counters no block may see 2^32 samples (only a GPU of few SMs given over 2^40
/// samples could).
inline status check_block_share(std::size_t n, unsigned grid, std::size_t samples_per_trip) {
  const std::size_t share = ceil_div(n, std::size_t{grid}) + samples_per_trip;
  if (share >= (std::size_t{1} << 32))
    return status::invalid("histogram of " + std::to_string(n) + " samples: " + std::to_string(share) +
                           " per block on this GPU would overflow the blocks' 32-bit counters; split the input");
  return {};
}

/// Runs a global plan. The automatic choice drops the window where the blocks would have too
/// few samples to amortise it (the plan then says so); a window asked for runs regardless.
template <class SampleT, class Rule, class CounterT>
status launch_global(const SampleT* d_samples, std::size_t n, const Rule& rule, plan& p, bool automatic,
                     CounterT* scratch, CounterT* d_histogram, cudaStream_t stream) {
  constexpr int threads = policy::block_threads;
  const std::size_t per_block = std::size_t{threads} * policy::vectors_per_thread * sample_vector<SampleT>::size;
  const std::size_t smem = static_cast<std::size_t>(p.window_bins) * sizeof(std::uint32_t);
  unsigned grid = 1;
  MEMSCOPE_RETURN_IF_ERROR(
      try_persistent_grid(histogram_global_kernel<SampleT, Rule, CounterT, true, true>, threads, smem, n, per_block, grid));
  if (automatic && p.window_bins > 0 && n < std::size_t{grid} * static_cast<std::size_t>(p.window_bins) * policy::window_min_samples_per_counter)
    p.window_bins = 0;
  if (p.window_bins == 0)
    MEMSCOPE_RETURN_IF_ERROR(
        try_persistent_grid(histogram_global_kernel<SampleT, Rule, CounterT, true, false>, threads, 0, n, per_block, grid));
  MEMSCOPE_RETURN_IF_ERROR(check_block_share(n, grid, per_block));
  // Every copy must have blocks adding to it, or the fold would add zeros for nothing.
  const int copies = std::max(1, std::min(p.copies, static_cast<int>(grid)));
  const std::size_t used_smem = static_cast<std::size_t>(p.window_bins) * sizeof(std::uint32_t);
  status launched;
  if (p.warp_aggregate)
    launched = p.window_bins > 0
                   ? launch_global_as<SampleT, Rule, CounterT, true, true>(d_samples, n, rule, copies, scratch, d_histogram, stream, grid, used_smem)
                   : launch_global_as<SampleT, Rule, CounterT, true, false>(d_samples, n, rule, copies, scratch, d_histogram, stream, grid, 0);
  else
    launched = p.window_bins > 0
                   ? launch_global_as<SampleT, Rule, CounterT, false, true>(d_samples, n, rule, copies, scratch, d_histogram, stream, grid, used_smem)
                   : launch_global_as<SampleT, Rule, CounterT, false, false>(d_samples, n, rule, copies, scratch, d_histogram, stream, grid, 0);
  MEMSCOPE_RETURN_IF_ERROR(launched);
  if (copies > 1) {
    unsigned fold_grid = 1;
    MEMSCOPE_RETURN_IF_ERROR(
        try_persistent_grid(histogram_fold_kernel<CounterT>, 256, 0, static_cast<std::size_t>(rule.num_bins), 256, fold_grid));
    histogram_fold_kernel<CounterT><<<fold_grid, 256, 0, stream>>>(scratch, copies - 1, rule.num_bins, d_histogram);
    MEMSCOPE_RETURN_IF_LAUNCH_ERROR("histogram_fold_kernel");
  }
  return {};
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

/// The histogram of d_samples[0, num_samples) by `rule` into d_histogram[0, rule.num_bins),
/// with `scratch` (at least scratch_bytes(p) bytes) or, where it is null and the plan needs
/// some, scratch leased for this call.
template <class SampleT, class Rule, class CounterT>
status histogram_status(void* scratch, const SampleT* d_samples, CounterT* d_histogram, const Rule& rule,
                        std::int64_t num_samples, cudaStream_t stream, const options& opt, plan& p) {
  MEMSCOPE_RETURN_IF_ERROR(check_samples<CounterT>(num_samples));
  MEMSCOPE_RETURN_IF_ERROR((try_plan_for<SampleT, Rule, CounterT>(rule.num_bins, num_samples, opt, p)));
  const std::size_t counter_bytes = static_cast<std::size_t>(rule.num_bins) * sizeof(CounterT);
  MEMSCOPE_RETURN_IF_CUDA_ERROR(cudaMemsetAsync(d_histogram, 0, counter_bytes, stream));
  if (num_samples == 0) return {};
  const auto n = static_cast<std::size_t>(num_samples);
  constexpr int threads = policy::block_threads;
  const std::size_t per_block = std::size_t{threads} * policy::vectors_per_thread * sample_vector<SampleT>::size;
  const bool automatic = opt.kind == strategy::automatic;

  switch (p.kind) {
    case strategy::global_atomics:
      return launch_global<SampleT, Rule, CounterT>(d_samples, n, rule, p, automatic, nullptr, d_histogram, stream);
    case strategy::global_private: {
      const std::size_t bytes = scratch_bytes(p, rule.num_bins, sizeof(CounterT));
      scratch_lease lease;
      if (scratch == nullptr) {
        MEMSCOPE_RETURN_IF_ERROR(lease.acquire(bytes, stream));
        scratch = lease.ptr;
      }
      auto* copies = static_cast<CounterT*>(scratch);
      MEMSCOPE_RETURN_IF_CUDA_ERROR(cudaMemsetAsync(copies, 0, bytes, stream));
      MEMSCOPE_RETURN_IF_ERROR((launch_global<SampleT, Rule, CounterT>(d_samples, n, rule, p, automatic, copies, d_histogram, stream)));
      return lease.release();
    }
    case strategy::block_smem: {
      const auto kernel = histogram_block_smem_kernel<SampleT, Rule, CounterT>;
      unsigned grid = 1;
      MEMSCOPE_RETURN_IF_ERROR(try_prepare_dynamic_smem(kernel, p.smem_bytes));
      MEMSCOPE_RETURN_IF_ERROR(try_persistent_grid(kernel, threads, p.smem_bytes, n, per_block, grid));
      MEMSCOPE_RETURN_IF_ERROR(check_block_share(n, grid, per_block));
      kernel<<<grid, threads, p.smem_bytes, stream>>>(d_samples, n, rule, d_histogram);
      MEMSCOPE_RETURN_IF_LAUNCH_ERROR("histogram_block_smem_kernel");
      return {};
    }
    case strategy::cluster_dsmem:
    case strategy::cluster_split: {
      const auto kernel = p.kind == strategy::cluster_dsmem ? histogram_cluster_kernel<SampleT, Rule, CounterT>
                                                            : histogram_split_kernel<SampleT, Rule, CounterT>;
      int clusters = 0;
      MEMSCOPE_RETURN_IF_ERROR(try_max_active_clusters(kernel, threads, p.cluster_size, p.smem_bytes, clusters));
      // A split cluster walks its samples once per block, so it covers per_block samples a trip.
      const std::size_t per_cluster = p.kind == strategy::cluster_dsmem ? per_block * static_cast<std::size_t>(p.cluster_size) : per_block;
      const std::size_t wanted = ceil_div(n, per_cluster);
      const std::size_t used = std::max<std::size_t>(1, std::min<std::size_t>(wanted, static_cast<std::size_t>(clusters)));
      MEMSCOPE_RETURN_IF_ERROR(check_block_share(n, static_cast<unsigned>(used), per_cluster));
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
template <class SampleT, class Rule, class CounterT>
status histogram_two_phase(void* d_temp_storage, std::size_t& temp_storage_bytes, const SampleT* d_samples,
                           CounterT* d_histogram, const Rule& rule, std::int64_t num_samples, cudaStream_t stream,
                           const options& opt, plan& p) {
  MEMSCOPE_RETURN_IF_ERROR(check_samples<CounterT>(num_samples));
  MEMSCOPE_RETURN_IF_ERROR((try_plan_for<SampleT, Rule, CounterT>(rule.num_bins, num_samples, opt, p)));
  const std::size_t needed = std::max<std::size_t>(1, scratch_bytes(p, rule.num_bins, sizeof(CounterT)));
  if (d_temp_storage == nullptr) {
    temp_storage_bytes = needed;
    return {};
  }
  if (temp_storage_bytes < needed)
    return status::invalid("histogram: temp_storage_bytes (" + std::to_string(temp_storage_bytes) +
                           ") smaller than the query's " + std::to_string(needed));
  return histogram_status(d_temp_storage, d_samples, d_histogram, rule, num_samples, stream, opt, p);
}

template <class SampleT, class CounterT, class LevelT>
status even_status(void* d_temp, std::size_t* temp_bytes, const SampleT* d_samples, CounterT* d_histogram, int num_levels,
                   LevelT lower, LevelT upper, std::int64_t num_samples, cudaStream_t stream, const options& opt, plan& p) {
  even_rule<SampleT, LevelT> rule;
  MEMSCOPE_RETURN_IF_ERROR(try_make_even_rule<SampleT>(num_levels, lower, upper, rule));
  if (temp_bytes == nullptr) return histogram_status(nullptr, d_samples, d_histogram, rule, num_samples, stream, opt, p);
  return histogram_two_phase(d_temp, *temp_bytes, d_samples, d_histogram, rule, num_samples, stream, opt, p);
}

template <class SampleT, class CounterT, class LevelT>
status range_status(void* d_temp, std::size_t* temp_bytes, const SampleT* d_samples, CounterT* d_histogram, int num_levels,
                    const LevelT* d_levels, std::int64_t num_samples, cudaStream_t stream, const options& opt, plan& p) {
  range_rule<SampleT, LevelT> rule;
  MEMSCOPE_RETURN_IF_ERROR(try_make_range_rule<SampleT>(num_levels, d_levels, rule));
  if (temp_bytes == nullptr) return histogram_status(nullptr, d_samples, d_histogram, rule, num_samples, stream, opt, p);
  return histogram_two_phase(d_temp, *temp_bytes, d_samples, d_histogram, rule, num_samples, stream, opt, p);
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

/// Enqueues the histogram of d_samples[0, num_samples) into d_histogram[0, num_levels - 1),
/// which it overwrites (as CUB does): num_levels - 1 equal bins over [lower_level,
/// upper_level), computed in the common type of SampleT and LevelT (so 8-bit samples take int
/// levels 0..256 for 256 bins). Counters of 32 or 64 bits, signed or not. Returns the plan it
/// ran. Throws std::invalid_argument (bad levels or sizes), memscope::unsupported (a forced
/// strategy this GPU or binary cannot run) or memscope::cuda_error (a CUDA call failed).
template <class SampleT, class CounterT, class LevelT>
plan histogram_even(const SampleT* d_samples, CounterT* d_histogram, int num_levels, LevelT lower_level,
                    LevelT upper_level, std::int64_t num_samples, cudaStream_t stream = nullptr, options opt = {}) {
  return detail::throw_or_plan([&](plan& p) {
    return detail::even_status(nullptr, nullptr, d_samples, d_histogram, num_levels, lower_level, upper_level, num_samples,
                               stream, opt, p);
  });
}

/// CUB's two-phase form of the above: with d_temp_storage == nullptr only temp_storage_bytes is
/// set (global_private's copies where the plan keeps some, else 1 byte).
template <class SampleT, class CounterT, class LevelT>
plan histogram_even(void* d_temp_storage, std::size_t& temp_storage_bytes, const SampleT* d_samples,
                    CounterT* d_histogram, int num_levels, LevelT lower_level, LevelT upper_level,
                    std::int64_t num_samples, cudaStream_t stream = nullptr, options opt = {}) {
  return detail::throw_or_plan([&](plan& p) {
    return detail::even_status(d_temp_storage, &temp_storage_bytes, d_samples, d_histogram, num_levels, lower_level,
                               upper_level, num_samples, stream, opt, p);
  });
}

/// The histogram of d_samples[0, num_samples) into num_levels - 1 bins between the sorted
/// levels d_levels[0, num_levels) (device memory, read by every thread): bin b holds
/// [d_levels[b], d_levels[b + 1]), cub::DeviceHistogram::HistogramRange's rule exactly.
template <class SampleT, class CounterT, class LevelT>
plan histogram_range(const SampleT* d_samples, CounterT* d_histogram, int num_levels, const LevelT* d_levels,
                     std::int64_t num_samples, cudaStream_t stream = nullptr, options opt = {}) {
  return detail::throw_or_plan([&](plan& p) {
    return detail::range_status(nullptr, nullptr, d_samples, d_histogram, num_levels, d_levels, num_samples, stream, opt, p);
  });
}

template <class SampleT, class CounterT, class LevelT>
plan histogram_range(void* d_temp_storage, std::size_t& temp_storage_bytes, const SampleT* d_samples,
                     CounterT* d_histogram, int num_levels, const LevelT* d_levels, std::int64_t num_samples,
                     cudaStream_t stream = nullptr, options opt = {}) {
  return detail::throw_or_plan([&](plan& p) {
    return detail::range_status(d_temp_storage, &temp_storage_bytes, d_samples, d_histogram, num_levels, d_levels,
                                num_samples, stream, opt, p);
  });
}

/// The cudaError_t forms, for code built without exceptions (as CUB's DeviceHistogram): they
/// never throw. cudaErrorInvalidValue for bad levels or sizes, cudaErrorNotSupported for a
/// forced strategy this GPU or binary cannot run, else the failing CUDA call's error. `out`,
/// where given, receives the plan that ran and the message of a failure.
template <class SampleT, class CounterT, class LevelT>
cudaError_t try_histogram_even(const SampleT* d_samples, CounterT* d_histogram, int num_levels, LevelT lower_level,
                               LevelT upper_level, std::int64_t num_samples, cudaStream_t stream = nullptr,
                               options opt = {}, outcome* out = nullptr) {
  plan p;
  return detail::to_cuda_error(detail::even_status(nullptr, nullptr, d_samples, d_histogram, num_levels, lower_level,
                                                   upper_level, num_samples, stream, opt, p),
                               p, out);
}

template <class SampleT, class CounterT, class LevelT>
cudaError_t try_histogram_even(void* d_temp_storage, std::size_t& temp_storage_bytes, const SampleT* d_samples,
                               CounterT* d_histogram, int num_levels, LevelT lower_level, LevelT upper_level,
                               std::int64_t num_samples, cudaStream_t stream = nullptr, options opt = {},
                               outcome* out = nullptr) {
  plan p;
  return detail::to_cuda_error(detail::even_status(d_temp_storage, &temp_storage_bytes, d_samples, d_histogram, num_levels,
                                                   lower_level, upper_level, num_samples, stream, opt, p),
                               p, out);
}

template <class SampleT, class CounterT, class LevelT>
cudaError_t try_histogram_range(const SampleT* d_samples, CounterT* d_histogram, int num_levels, const LevelT* d_levels,
                                std::int64_t num_samples, cudaStream_t stream = nullptr, options opt = {},
                                outcome* out = nullptr) {
  plan p;
  return detail::to_cuda_error(
      detail::range_status(nullptr, nullptr, d_samples, d_histogram, num_levels, d_levels, num_samples, stream, opt, p), p, out);
}

template <class SampleT, class CounterT, class LevelT>
cudaError_t try_histogram_range(void* d_temp_storage, std::size_t& temp_storage_bytes, const SampleT* d_samples,
                                CounterT* d_histogram, int num_levels, const LevelT* d_levels, std::int64_t num_samples,
                                cudaStream_t stream = nullptr, options opt = {}, outcome* out = nullptr) {
  plan p;
  return detail::to_cuda_error(detail::range_status(d_temp_storage, &temp_storage_bytes, d_samples, d_histogram, num_levels,
                                                    d_levels, num_samples, stream, opt, p),
                               p, out);
}

}  // namespace memscope::histogram
