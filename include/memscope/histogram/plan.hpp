#pragma once
// The histogram's strategy choice, in plain C++, so that it is tested without a GPU (the bin
// rules it plans for are in rules.hpp).

#include "memscope/core/cuda_check.hpp"
#include "memscope/core/host_device.hpp"
#include "memscope/histogram/rules.hpp"

#include <cstddef>
#include <cstdint>
#include <algorithm>
#include <functional>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace memscope::histogram {

/// Where the counters live while the samples are binned.
enum class strategy {
  automatic,       // chosen from the bin count and the device (plan_histogram)
  global_atomics,  // every sample adds to the output in global memory (L2 atomics)
  block_smem,      // each block keeps all bins in its shared memory, flushed once at the end
  cluster_dsmem,   // a thread-block cluster spreads the bins over its blocks' shared memory
  cluster_split,   // a cluster splits the bin range; every block reads all of the cluster's
                   // samples (L2 serves the repeats) and counts its own range: no remote atomics
  global_private,  // G copies of the counters in global memory, block b adding to copy b % G,
                   // folded at the end: G times less contention on a hot counter than
                   // global_atomics, while all G copies stay in L2
};

struct policy {
  /// 1024 rather than 512: at one block per SM (large histograms) twice the warps hide the
  /// atomics' latency (docs/tuning.md, "Histogram block size").
  static constexpr int block_threads = 1024;
  /// 16-byte loads each thread has in flight per loop trip: 1024 threads x 64 bytes keep
  /// 64 KB per SM on the way, more than DRAM latency needs.
  static constexpr int vectors_per_thread = 4;
  /// A forced cluster strategy given no size takes the smallest cluster whose per-block share
  /// stays within this (so several blocks fit an SM), else the smallest that fits at all. The
  /// automatic choice does not use it: there one 227 KB block per SM measured fastest.
  static constexpr std::size_t preferred_smem_per_block = 64 * 1024;
  static constexpr int max_cluster_size = 16;
  /// The largest split cluster the automatic choice takes: each block reads and bins every
  /// sample, so larger splits lose their lead on inputs CUB bins fast (sorted, one bin, out of
  /// range) to copies in global memory, and at 8 the repeated reads cost what global atomics do
  /// (docs/tuning.md, "Histogram strategy choice").
  static constexpr int max_auto_split = 2;
  static constexpr std::int64_t max_bins = histogram::max_bins;
  /// With 32-bit counters more samples than this could wrap a bin (max_samples_for: the
  /// limit of each counter type).
  static constexpr std::int64_t max_samples = std::numeric_limits<std::uint32_t>::max();
  /// With 64-bit counters: blocks still count in 32-bit shared-memory counters, and no block's
  /// share of 2^40 samples can reach 2^32 on a GPU whose grid is at least 256 blocks; the
  /// launcher checks the share on smaller ones.
  static constexpr std::int64_t max_samples_64 = std::int64_t{1} << 40;
  /// global_private: the copies together take at most this share of L2, so that uniform data
  /// (every counter touched) keeps them resident as global_atomics keeps its one copy.
  static constexpr int private_l2_share_divisor = 2;
  static constexpr int max_private_copies = 64;
  /// ... and zeroing plus folding them costs at most 1/this of reading the samples.
  static constexpr int private_overhead_divisor = 4;
  /// Global strategies: each block counts a window of this many bins, centred on the median of
  /// a few of its samples, in shared memory (32 KiB: two 1024-thread blocks still fit an SM).
  /// A bell a few thousand bins wide then never reaches L2, where its few hot counters would
  /// serialise every SM's atomics.
  static constexpr int window_bins = 8192;
  /// ... where every block has this many samples per window counter to amortise zeroing and
  /// flushing its window (else no window).
  static constexpr int window_min_samples_per_counter = 16;
};

/// Device figures the choice depends on (from device_info or the driver).
struct device_limits {
  std::size_t smem_per_block_optin = 0;
  bool cluster_launch = false;  // clusters usable: the device launches them and the code has them
  int max_cluster_size = 0;     // non-portable maximum where allowed, else the portable one
  /// The architecture the cluster kernels' code was compiled for (0: unknown). Below 90 the
  /// device may launch clusters but this code cannot use them.
  int cluster_code_arch = 0;
  std::size_t l2_bytes = 0;                 // global_private sizes its copies to fit (0: one copy)
  std::size_t smem_per_sm = 0;              // shared memory one SM holds for its blocks
  std::size_t smem_reserved_per_block = 0;  // what the system takes of it per block
  int threads_per_sm = 0;                   // resident threads one SM holds
};

/// Blocks of policy::block_threads threads with `smem` bytes of dynamic shared memory each that
/// the shared memory and threads of one SM of `dev` admit, counting only 1 or 2: which build of
/// a shared-memory kernel runs (kernels.cuh: where 2, the build ptxas sizes itself,
/// two blocks per SM where its registers allow; where 1, the build for one block, with more
/// registers).
inline int shared_blocks_per_sm(const device_limits& dev, std::size_t smem) {
  const bool two =
      dev.threads_per_sm >= 2 * policy::block_threads && 2 * (smem + dev.smem_reserved_per_block) <= dev.smem_per_sm;
  return two ? 2 : 1;
}

/// Thrown when the GPU cannot run the requested strategy (no clusters, too little shared
/// memory, a cluster that cannot be co-scheduled): a suite skips the point with this reason.
using memscope::unsupported;

struct plan {
  strategy kind = strategy::global_atomics;
  int cluster_size = 1;         // cluster_dsmem only
  int bins_per_block = 0;       // counters one block holds (all bins for block_smem)
  std::size_t smem_bytes = 0;   // dynamic shared memory per block
  int copies = 1;               // global_private: copies of the counters (the output is copy 0)
  bool warp_aggregate = false;  // global strategies: lanes with equal bins add once
  int window_bins = 0;          // global strategies: bins each block counts in shared memory
  bool byte_values = false;     // block_smem over 8-bit samples: counts the 256 raw values, binned once per block
  /// block_smem, cluster_dsmem, cluster_split: which build of the kernel runs
  /// (shared_blocks_per_sm): 2 where two blocks of smem_bytes fit an SM, 1 where they do not
  /// (the build for one block per SM, with more registers).
  int blocks_per_sm = 2;
};

inline const char* to_string(strategy s) {
  switch (s) {
    case strategy::automatic:
      return "automatic";
    case strategy::global_atomics:
      return "global_atomics";
    case strategy::block_smem:
      return "block_smem";
    case strategy::cluster_dsmem:
      return "cluster_dsmem";
    case strategy::cluster_split:
      return "cluster_split";
    case strategy::global_private:
      return "global_private";
  }
  return "?";
}

namespace detail {
inline bool is_power_of_two(int v) { return v > 0 && (v & (v - 1)) == 0; }
inline std::size_t cluster_smem(std::int64_t num_bins, int c) {
  return static_cast<std::size_t>((num_bins + c - 1) / c) * sizeof(std::uint32_t);
}
inline std::string kib(std::size_t bytes) { return std::to_string(bytes / 1024) + " KiB"; }
}  // namespace detail

/// Pitched rows (pitched_samples): each row goes to a group of 2^log2 threads (32 to 1024, so a
/// warp's loads stay in one row), or to every thread of the grid where this is returned.
inline constexpr int row_group_whole_grid = 62;
/// ... or every thread of the grid walks all rows as one run (rows of pixel groups).
inline constexpr int row_group_whole_grid_run = 63;

/// The group that takes a row of row_bytes bytes, rows row_stride_bytes apart, for a grid of
/// `threads` threads. Rows walked one by one: the group whose busiest warp makes the fewest
/// loop trips, ties to the larger group. A trip waits for DRAM however few of its loads are
/// used, so a row that leaves a trip mostly empty costs a whole trip. A trip is
/// policy::vectors_per_thread 16-byte loads a thread, or a row's scalar head or tail; those fall
/// to the lanes that follow the row's last vector (for_each_source_bin starts each row where the
/// last ended), so they move between the group's warps only where the vectors a row do not step
/// over whole warps. `unit_vectors` > 1: each group walks its rows as one run of units of that
/// many vectors (pixel groups), where the size only balances the rows over the groups: the
/// largest group with two trips a row, as tuned, unless the whole grid walking every row as one
/// run gives the busiest thread a sixteenth less (few long rows, docs/tuning.md, "Histogram
/// pitched rows"). That walk's share of a block is bounded for units of up to a trip's vectors
/// (block_share).
inline int row_group_log2(std::size_t row_bytes, std::size_t row_stride_bytes, std::size_t rows, std::size_t threads,
                          int unit_vectors) {
  constexpr std::size_t per_thread = policy::vectors_per_thread;
  const std::size_t vectors = row_bytes / 16;
  if (unit_vectors > 1) {
    int g = 5;
    while (g < 10 && (std::size_t{2} << g) * per_thread <= vectors) ++g;
    // The busiest group walks ceil(rows / groups) rows where the whole grid would walk
    // rows / groups' worth: the whole grid where that is a sixteenth less, or rows are fewer
    // than groups of a block.
    const std::size_t groups = std::max<std::size_t>(1, threads >> g);
    const bool few_rows = g == 10 && rows * 1024 < threads;
    const bool unbalanced = vectors > 0 && 16 * rows < 15 * ((rows + groups - 1) / groups) * groups;
    if (static_cast<std::size_t>(unit_vectors) > per_thread) return few_rows ? row_group_whole_grid : g;
    return few_rows || unbalanced ? row_group_whole_grid_run : g;
  }
  const std::size_t scalar_trips = std::size_t{row_bytes % 16 != 0} + std::size_t{row_stride_bytes % 16 != 0};
  // In 32nds of a trip of the busiest warp; the whole grid starts every row at lane 0.
  const auto cost = [&](std::size_t group, bool whole) {
    const std::size_t groups = std::max<std::size_t>(1, threads / group);
    const std::size_t vector_trips = (vectors + group * per_thread - 1) / (group * per_thread);
    const std::size_t warps_taking_scalars = whole ? 1 : group / std::max<std::size_t>(32, std::gcd(vectors, group));
    return (rows + groups - 1) / groups *
           (32 * vector_trips + (32 * scalar_trips + warps_taking_scalars - 1) / warps_taking_scalars);
  };
  int best = row_group_whole_grid;
  std::size_t lowest = cost(std::max<std::size_t>(1, threads), true);
  for (int g = 10; g >= 5; --g) {
    if ((std::size_t{1} << g) > threads) continue;
    const std::size_t c = cost(std::size_t{1} << g, false);
    if (c < lowest) best = g, lowest = c;
  }
  return best;
}

/// The most samples one call takes with counters of type CounterT (a bin must not wrap).
template <class CounterT>
constexpr std::int64_t max_samples_for() {
  static_assert(std::is_integral_v<CounterT> && (sizeof(CounterT) == 4 || sizeof(CounterT) == 8),
                "histogram counters are 32- or 64-bit integers");
  if constexpr (sizeof(CounterT) == 8) return policy::max_samples_64;
  else return static_cast<std::int64_t>(std::numeric_limits<CounterT>::max());
}

/// How many copies global_private keeps for num_bins bins over num_samples samples of
/// sample_bytes each: as many as fit the L2 share and cost little next to the samples' read,
/// a power of two, at least 1 (1 is plain global atomics).
inline int private_copies(std::int64_t num_bins, std::int64_t num_samples, std::size_t sample_bytes,
                          const device_limits& dev, std::size_t counter_bytes = sizeof(std::uint32_t)) {
  const double copy_bytes = static_cast<double>(num_bins) * static_cast<double>(counter_bytes);
  const double by_l2 = static_cast<double>(dev.l2_bytes) / policy::private_l2_share_divisor / copy_bytes;
  // Each copy is zeroed and read once more (2 x its bytes) besides the samples' one read.
  const double by_cost = static_cast<double>(num_samples) * static_cast<double>(sample_bytes) /
                         (2.0 * copy_bytes * policy::private_overhead_divisor);
  int g = 1;
  while (g * 2 <= policy::max_private_copies && g * 2 <= by_l2 && g * 2 <= by_cost) g *= 2;
  return g;
}

/// Which strategy runs: `requested` as given (checked against the device), or for `automatic`
/// the cheapest that fits. `cluster_size` 0 lets the choice pick it. `cluster_runs(c, smem)`
/// answers whether a cluster of c blocks with that much shared memory each can be co-scheduled
/// (cudaOccupancyMaxActiveClusters > 0 on a GPU). `costly_bins`: binning a sample costs more
/// than reading it (a binary search over level ranges), so the automatic choice never bins a
/// sample twice (no split cluster). Fails with an invalid argument for bad parameters and
/// `unsupported` for a strategy this device cannot run.
inline status try_plan_histogram(std::int64_t num_bins, const device_limits& dev, strategy requested, int cluster_size,
                                 const std::function<bool(int, std::size_t)>& cluster_runs, plan& out,
                                 bool costly_bins = false) {
  if (num_bins < 1 || num_bins > policy::max_bins)
    return status::invalid(std::to_string(num_bins) + " bins: a histogram takes 1 to 2^28 bins");
  if (cluster_size != 0 && (cluster_size > policy::max_cluster_size || !detail::is_power_of_two(cluster_size)))
    return status::invalid("cluster size " + std::to_string(cluster_size) + ": must be 1, 2, 4, 8 or 16");
  const std::size_t whole = static_cast<std::size_t>(num_bins) * sizeof(std::uint32_t);
  const auto chose = [&](const plan& p) {
    out = p;
    if (p.kind == strategy::block_smem || p.kind == strategy::cluster_dsmem || p.kind == strategy::cluster_split)
      out.blocks_per_sm = shared_blocks_per_sm(dev, p.smem_bytes);
    return status{};
  };
  const auto block_plan = [&] { return plan{strategy::block_smem, 1, static_cast<int>(num_bins), whole}; };
  const auto cluster_plan = [&](int c, strategy kind) {
    return plan{kind, c, static_cast<int>((num_bins + c - 1) / c), detail::cluster_smem(num_bins, c)};
  };
  const auto cluster_fits = [&](int c, std::size_t limit) {
    const std::size_t smem = detail::cluster_smem(num_bins, c);
    return c <= dev.max_cluster_size && smem <= limit && smem <= dev.smem_per_block_optin && cluster_runs(c, smem);
  };

  switch (requested) {
    case strategy::global_atomics:
      return chose(plan{strategy::global_atomics, 1, 0, 0});
    case strategy::global_private:  // copies 0: try_resolve_global picks them once the sample count is known
      return chose(plan{strategy::global_private, 1, 0, 0, 0});
    case strategy::block_smem:
      if (whole > dev.smem_per_block_optin)
        return status::not_supported("block_smem needs " + detail::kib(whole) + " of shared memory per block for " +
                                     std::to_string(num_bins) + " bins; this GPU allows " +
                                     detail::kib(dev.smem_per_block_optin));
      return chose(block_plan());
    case strategy::cluster_dsmem:
    case strategy::cluster_split: {
      if (!dev.cluster_launch)
        return status::not_supported(
            dev.cluster_code_arch > 0 && dev.cluster_code_arch < 90
                ? "the histogram's cluster kernels in this binary were compiled for sm_" +
                      std::to_string(dev.cluster_code_arch) +
                      ", which has no thread-block clusters: rebuild for sm_90 or newer to use them"
                : std::string("this GPU has no thread-block clusters (compute capability 9.0 or newer)"));
      if (cluster_size == 0) {
        for (int c = 1; c <= policy::max_cluster_size; c *= 2)
          if (cluster_fits(c, policy::preferred_smem_per_block)) return chose(cluster_plan(c, requested));
        for (int c = 1; c <= policy::max_cluster_size; c *= 2)
          if (cluster_fits(c, dev.smem_per_block_optin)) return chose(cluster_plan(c, requested));
        return status::not_supported(std::to_string(num_bins) +
                                     " bins do not fit in the shared memory of any cluster this GPU runs");
      }
      if (cluster_size > dev.max_cluster_size)
        return status::not_supported("cluster size " + std::to_string(cluster_size) +
                                     " exceeds this GPU's maximum of " + std::to_string(dev.max_cluster_size));
      const std::size_t smem = detail::cluster_smem(num_bins, cluster_size);
      if (smem > dev.smem_per_block_optin)
        return status::not_supported("a cluster of " + std::to_string(cluster_size) + " needs " + detail::kib(smem) +
                                     " of shared memory per block for " + std::to_string(num_bins) +
                                     " bins; this GPU allows " + detail::kib(dev.smem_per_block_optin));
      if (!cluster_runs(cluster_size, smem))
        return status::not_supported(
            "a cluster of " + std::to_string(cluster_size) + " blocks with " + detail::kib(smem) +
            " of shared memory each cannot be co-scheduled on this GPU (cudaOccupancyMaxActiveClusters = 0)");
      return chose(cluster_plan(cluster_size, requested));
    }
    case strategy::automatic:
      break;
  }
  // Automatic, from measurements (docs/tuning.md, "Histogram strategy choice"): one block's
  // private copy while it fits at all (even one block per SM beats every alternative); then a
  // split cluster of 2 blocks (each counts its half of the range, L2 serves the repeated
  // reads); past that, global atomics: with the counters resident in L2 they match split
  // clusters of 8 and beat every DSMEM remote-atomic cluster. There, copies of the counters
  // (global_private), warp aggregation and a shared-memory window keep skewed, sorted and
  // hot-bin data, whose samples crowd a few counters, from serialising on them;
  // try_resolve_global falls back to one copy and no window where they would not pay. Level
  // ranges skip the split cluster: each block would search every sample's bin.
  if (whole <= dev.smem_per_block_optin) return chose(block_plan());
  if (dev.cluster_launch && !costly_bins)
    for (int c = 2; c <= policy::max_auto_split; c *= 2)
      if (cluster_fits(c, dev.smem_per_block_optin)) return chose(cluster_plan(c, strategy::cluster_split));
  return chose(plan{strategy::global_private, 1, 0, 0, 0});
}

/// How a global plan counts, beyond where: `copies` for global_private (0: private_copies()),
/// warp aggregation and a shared-memory window. The automatic choice takes all three, measured
/// to keep skewed, sorted and hot-bin inputs at CUB's speed or better (docs/dsmem.md).
struct global_options {
  int copies = 0;
  bool warp_aggregate = false;
  bool window = false;
};

/// Settles a global plan for num_samples samples: a global_private plan's copies (`requested`
/// 1 to policy::max_private_copies, a power of two, or 0 to choose), left with one copy it is
/// global_atomics (nothing to fold); aggregation and the window as asked, or for a plan the
/// automatic choice made, always.
/// A copy count global_private can keep: a power of two from 1 to policy::max_private_copies.
inline status try_check_copies(int copies) {
  if (copies > policy::max_private_copies || !detail::is_power_of_two(copies))
    return status::invalid("global_private copies " + std::to_string(copies) + ": must be a power of two from 1 to " +
                           std::to_string(policy::max_private_copies));
  return {};
}

inline status try_resolve_global(plan& p, bool automatic, global_options g, std::int64_t num_bins,
                                 std::int64_t num_samples, std::size_t sample_bytes, const device_limits& dev,
                                 std::size_t counter_bytes = sizeof(std::uint32_t)) {
  if (g.copies != 0) MEMSCOPE_RETURN_IF_ERROR(try_check_copies(g.copies));
  if (p.kind != strategy::global_private && p.kind != strategy::global_atomics) return {};
  if (automatic) g = {0, true, true};
  if (p.kind == strategy::global_private) {
    p.copies = g.copies != 0 ? g.copies : private_copies(num_bins, num_samples, sample_bytes, dev, counter_bytes);
    if (p.copies == 1) p.kind = strategy::global_atomics;
  }
  p.warp_aggregate = g.warp_aggregate;
  p.window_bins = g.window ? static_cast<int>(std::min<std::int64_t>(num_bins, policy::window_bins)) : 0;
  return {};
}

/// Scratch bytes a plan needs beyond the output: copies 1 .. G-1 of global_private.
inline std::size_t scratch_bytes(const plan& p, std::int64_t num_bins,
                                 std::size_t counter_bytes = sizeof(std::uint32_t)) {
  return p.kind == strategy::global_private
             ? static_cast<std::size_t>(p.copies - 1) * static_cast<std::size_t>(num_bins) * counter_bytes
             : 0;
}

inline plan plan_histogram(std::int64_t num_bins, const device_limits& dev, strategy requested, int cluster_size,
                           const std::function<bool(int, std::size_t)>& cluster_runs, bool costly_bins = false) {
  plan p;
  throw_if_error(try_plan_histogram(num_bins, dev, requested, cluster_size, cluster_runs, p, costly_bins));
  return p;
}

}  // namespace memscope::histogram
