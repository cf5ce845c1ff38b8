// Histogram binning rule and strategy choice, without a GPU.

#include "memscope/histogram/plan.hpp"
#include "memscope/histogram/reference.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <algorithm>
#include <limits>
#include <random>
#include <vector>

namespace hg = memscope::histogram;

namespace {

hg::device_limits h200() { return {227 * 1024, true, 16}; }
hg::device_limits no_clusters() { return {99 * 1024, false, 0}; }
const auto always = [](int, std::size_t) { return true; };
const auto upto8 = [](int c, std::size_t) { return c <= 8; };

}  // namespace

TEST(HistogramBins, FloatRuleMatchesCubScaleTransform) {
  const auto b = hg::even_bins<float>::make(5, 0.0f, 1.0f);  // 4 bins
  EXPECT_EQ(b.num_bins, 4);
  EXPECT_EQ(b(0.0f), 0);
  EXPECT_EQ(b(0.2499999f), 0);
  EXPECT_EQ(b(0.25f), 1);
  EXPECT_EQ(b(0.9999999f), 3);
  EXPECT_EQ(b(1.0f), -1);  // upper level is exclusive
  EXPECT_EQ(b(-0.0f), 0);
  EXPECT_EQ(b(-1e-9f), -1);
  EXPECT_EQ(b(std::numeric_limits<float>::quiet_NaN()), -1);
  EXPECT_EQ(b(std::numeric_limits<float>::infinity()), -1);
  EXPECT_EQ(b(-std::numeric_limits<float>::infinity()), -1);
}

TEST(HistogramBins, ProductRoundingUpToNumBinsFallsInNoBin) {
  // Over [0, 0.7f) the largest float below 0.7f scales to exactly num_bins for these bin
  // counts (found by searching offline): it lies in the range yet must fall in no bin. The
  // sample below it must land in the last bin.
  const float upper = 0.7f;
  const float edge = std::nextafter(upper, 0.0f);
  int hits = 0;
  for (int bins : {65, 69, 95, 130, 138, 145, 183, 190, 260, 267, 269, 276}) {
    const auto b = hg::even_bins<float>::make(bins + 1, 0.0f, upper);
    const float scaled = (edge - 0.0f) * b.reciprocal;
    ASSERT_GE(static_cast<int>(scaled), bins) << "bins=" << bins << ": the edge no longer rounds up; search again";
    EXPECT_EQ(b(edge), -1) << "bins=" << bins;
    ++hits;
    // Below the edge: the last bin, never past it.
    float s = std::nextafter(edge, 0.0f);
    while (static_cast<int>((s - 0.0f) * b.reciprocal) >= bins) s = std::nextafter(s, 0.0f);
    EXPECT_EQ(b(s), bins - 1) << "bins=" << bins;
  }
  EXPECT_EQ(hits, 12);
}

TEST(HistogramBins, IntegerRuleIsExactFraction) {
  const auto b = hg::even_bins<int>::make(4, 0, 10);  // 3 bins over [0, 10)
  EXPECT_EQ(b(0), 0);
  EXPECT_EQ(b(3), 0);  // 3 * 3 / 10 = 0
  EXPECT_EQ(b(4), 1);
  EXPECT_EQ(b(6), 1);
  EXPECT_EQ(b(7), 2);
  EXPECT_EQ(b(9), 2);
  EXPECT_EQ(b(10), -1);
  EXPECT_EQ(b(-1), -1);
  const auto wide = hg::even_bins<int>::make(3, -2147483647 - 1, 2147483647);
  EXPECT_EQ(wide(-2147483647 - 1), 0);
  EXPECT_EQ(wide(2147483646), 1);
}

/// The division-free integer rule against the plain 64-bit quotient, on random levels of every
/// width (ranges of 1 to 2^62, bin counts 1 to 2^28) and the samples next to every bin edge.
template <class T>
void expect_exact_quotients(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (int trial = 0; trial < 2000; ++trial) {
    const int shift = static_cast<int>(rng() % (8 * sizeof(T)));
    const auto lo_bits = static_cast<std::int64_t>(rng() >> (64 - 8 * sizeof(T)));
    T lower = static_cast<T>(lo_bits);
    const std::uint64_t span = std::max<std::uint64_t>(1, rng() >> (64 - std::max(1, shift)));
    const std::uint64_t room = static_cast<std::uint64_t>(std::numeric_limits<T>::max()) -
                               static_cast<std::uint64_t>(static_cast<std::int64_t>(lower));
    if (lower > 0 && static_cast<std::uint64_t>(lower) > static_cast<std::uint64_t>(std::numeric_limits<T>::max()))
      continue;
    const T upper = static_cast<T>(static_cast<std::int64_t>(lower) + static_cast<std::int64_t>(std::min(span, room)));
    if (!(lower < upper)) continue;
    const int bins = 1 + static_cast<int>(rng() % (trial % 3 == 0 ? (1u << 28) : 1000u));
    hg::even_bins<T> b;
    if (!hg::even_bins<T>::try_make(bins + 1, lower, upper, b).ok()) continue;
    const std::uint64_t range = b.wide(upper) - b.wide(lower);
    for (int k = 0; k < 64; ++k) {
      // Samples at the edges of random bins (and one below, one above), and random ones.
      const std::uint64_t edge_bin = rng() % static_cast<std::uint64_t>(bins);
      const auto edge =
          static_cast<std::uint64_t>((static_cast<unsigned __int128>(edge_bin) * range + bins - 1) / bins);
      for (std::uint64_t off : {edge, edge - 1, edge + 1, rng() % range}) {
        if (off >= range) continue;
        const T s = static_cast<T>(static_cast<std::int64_t>(lower) + static_cast<std::int64_t>(off));
        const auto want = static_cast<int>(static_cast<unsigned __int128>(off) * static_cast<unsigned>(bins) / range);
        ASSERT_EQ(b(s), want) << "lower " << +lower << " upper " << +upper << " bins " << bins << " offset " << off;
      }
    }
  }
}

TEST(HistogramBins, IntegerRuleIsTheExactQuotientForEveryWidth) {
  expect_exact_quotients<std::int8_t>(1);
  expect_exact_quotients<std::uint8_t>(2);
  expect_exact_quotients<std::int16_t>(3);
  expect_exact_quotients<std::int32_t>(4);
  expect_exact_quotients<std::uint32_t>(5);
  expect_exact_quotients<std::int64_t>(6);
}

TEST(HistogramBins, RuleFactoriesBinAsCubDoes) {
  // 8-bit samples with int levels 0..256: one bin per value, computed in int.
  const auto even = hg::make_even_rule<std::uint8_t>(257, 0, 256);
  EXPECT_EQ(even.num_bins, 256);
  EXPECT_EQ(even(std::uint8_t{0}), 0);
  EXPECT_EQ(even(std::uint8_t{255}), 255);
  // Ranges: the upper bound among the levels, minus one; the last level is excluded.
  const float levels[] = {0.0f, 0.5f, 0.75f, 1.0f};
  const auto range = hg::make_range_rule<double>(4, levels);
  EXPECT_EQ(range.num_bins, 3);
  EXPECT_EQ(range(0.6), 1);
  EXPECT_EQ(range(0.75), 2);
  EXPECT_EQ(range(1.0), -1);
  EXPECT_EQ(range(-0.1), -1);
  EXPECT_EQ(range(std::nan("")), -1);
  EXPECT_THROW(hg::make_range_rule<float>(1, levels), std::invalid_argument);
  EXPECT_THROW(hg::make_range_rule<float>(4, static_cast<const float*>(nullptr)), std::invalid_argument);
  EXPECT_THROW(hg::make_even_rule<int>(3, 5, 5), std::invalid_argument);
  EXPECT_TRUE(hg::try_check_copies(64).ok());
  for (int bad : {0, -2, 3, 128}) EXPECT_FALSE(hg::try_check_copies(bad).ok()) << bad;
}

TEST(HistogramBins, BadLevelsAreRejected) {
  EXPECT_THROW(hg::even_bins<float>::make(1, 0.0f, 1.0f), std::invalid_argument);
  EXPECT_THROW(hg::even_bins<float>::make(0, 0.0f, 1.0f), std::invalid_argument);
  EXPECT_THROW(hg::even_bins<float>::make(10, 1.0f, 1.0f), std::invalid_argument);
  EXPECT_THROW(hg::even_bins<float>::make(10, 2.0f, 1.0f), std::invalid_argument);
  EXPECT_THROW(hg::even_bins<float>::make(10, std::nanf(""), 1.0f), std::invalid_argument);
  EXPECT_THROW(hg::even_bins<long long>::make(1 << 20, -(1ll << 62), 1ll << 62), std::invalid_argument);
  // The full int64 range: its width overflows a signed subtraction, not the unsigned one used.
  const auto full =
      hg::even_bins<long long>::make(2, std::numeric_limits<long long>::min(), std::numeric_limits<long long>::max());
  EXPECT_EQ(full(std::numeric_limits<long long>::min()), 0);
  EXPECT_EQ(full(std::numeric_limits<long long>::max() - 1), 0);
  EXPECT_EQ(full(std::numeric_limits<long long>::max()), -1);  // upper is exclusive
  // Two bins over it: offset x 2 would wrap 64 bits, so the levels are refused, as CUB does.
  EXPECT_THROW(
      hg::even_bins<long long>::make(3, std::numeric_limits<long long>::min(), std::numeric_limits<long long>::max()),
      std::invalid_argument);
}

TEST(HistogramReference, CountsEverySampleOnceAndDropsOutliers) {
  std::vector<float> s = {0.0f, 0.5f, 0.5f, 0.99f, 1.0f, -0.1f, std::nanf("")};
  const auto h = hg::histogram_reference(s.data(), s.size(), hg::even_bins<float>::make(3, 0.0f, 1.0f));
  ASSERT_EQ(h.size(), 2u);
  EXPECT_EQ(h[0], 1u);
  EXPECT_EQ(h[1], 3u);
}

TEST(HistogramPlan, AutomaticChoiceFollowsCapacity) {
  using hg::strategy;
  auto pick = [](std::int64_t bins) { return hg::plan_histogram(bins, h200(), strategy::automatic, 0, always); };
  EXPECT_EQ(pick(256).kind, strategy::block_smem);
  EXPECT_EQ(pick(16384).kind, strategy::block_smem);
  EXPECT_EQ(pick(58112).kind, strategy::block_smem);  // 227 KiB: one block per SM still wins
  const auto p65k = pick(65536);
  EXPECT_EQ(p65k.kind, strategy::cluster_split);
  EXPECT_EQ(p65k.cluster_size, 2);
  EXPECT_EQ(p65k.smem_bytes, 128u * 1024);
  EXPECT_EQ(pick(116224).kind, strategy::cluster_split);  // two full blocks
  // Level ranges search each sample's bin: never twice, so no split cluster.
  const auto searched = [](std::int64_t bins) {
    return hg::plan_histogram(bins, h200(), strategy::automatic, 0, always, true);
  };
  EXPECT_EQ(searched(58112).kind, strategy::block_smem);
  EXPECT_EQ(searched(65536).kind, strategy::global_private);
  // Past two blocks' shared memory: copies in global memory, sized once the samples are known.
  EXPECT_EQ(pick(116225).kind, strategy::global_private);
  EXPECT_EQ(pick(232449).kind, strategy::global_private);
  EXPECT_EQ(pick(262144).kind, strategy::global_private);
  EXPECT_EQ(pick(1 << 20).kind, strategy::global_private);
  EXPECT_EQ(pick(1 << 20).copies, 0);
}

TEST(HistogramPlan, PrivateCopiesFitL2AndPayForThemselves) {
  using hg::strategy;
  auto dev = h200();
  dev.l2_bytes = 60u << 20;
  // 2^18 bins are 1 MiB a copy: 30 MiB of L2 share holds 16 (a power of two), and 2^28 float
  // samples (1 GiB) pay for far more.
  EXPECT_EQ(hg::private_copies(1 << 18, 1ll << 28, 4, dev), 16);
  EXPECT_EQ(hg::private_copies(1 << 20, 1ll << 28, 4, dev), 4);
  EXPECT_EQ(hg::private_copies(1 << 20, 1ll << 10, 4, dev), 1);  // a tiny input: zeroing copies would dominate
  EXPECT_EQ(hg::private_copies(256, 1ll << 30, 4, dev), hg::policy::max_private_copies);
  dev.l2_bytes = 0;
  EXPECT_EQ(hg::private_copies(1 << 18, 1ll << 28, 4, dev), 1);
  auto p = hg::plan_histogram(1 << 20, h200(), strategy::automatic, 0, always);
  ASSERT_TRUE(hg::try_resolve_global(p, true, {}, 1 << 20, 1 << 10, 4, dev).ok());
  EXPECT_EQ(p.kind, strategy::global_atomics);  // one copy: nothing to fold
  EXPECT_TRUE(p.warp_aggregate);                // the automatic choice aggregates and windows
  EXPECT_EQ(p.window_bins, hg::policy::window_bins);
  EXPECT_EQ(hg::scratch_bytes(p, 1 << 20), 0u);
  p = hg::plan_histogram(1 << 20, h200(), strategy::global_private, 0, always);
  ASSERT_TRUE(hg::try_resolve_global(p, false, {8, false, false}, 1 << 20, 1 << 10, 4, dev).ok());
  EXPECT_EQ(p.copies, 8);
  EXPECT_FALSE(p.warp_aggregate);
  EXPECT_EQ(p.window_bins, 0);
  EXPECT_EQ(hg::scratch_bytes(p, 1 << 20), 7u * 4 * (1 << 20));
  p = hg::plan_histogram(100, h200(), strategy::global_atomics, 0, always);
  ASSERT_TRUE(hg::try_resolve_global(p, false, {0, true, true}, 100, 1 << 20, 4, dev).ok());
  EXPECT_EQ(p.window_bins, 100);  // never wider than the bins
  for (int bad : {-1, 3, 128}) {
    const auto s = hg::try_resolve_global(p, false, {bad, false, false}, 1 << 20, 1 << 10, 4, dev);
    EXPECT_EQ(s.what, memscope::status::kind::invalid_argument) << bad;
  }
}

TEST(HistogramPlan, RespectsClusterOccupancyAndMissingClusters) {
  using hg::strategy;
  const auto none = [](int, std::size_t) { return false; };
  EXPECT_EQ(hg::plan_histogram(65536, h200(), strategy::automatic, 0, none).kind, strategy::global_private);
  EXPECT_EQ(hg::plan_histogram(262144, h200(), strategy::cluster_dsmem, 0, upto8).cluster_size, 8);
  EXPECT_THROW(hg::plan_histogram(524288, h200(), strategy::cluster_dsmem, 0, upto8), hg::unsupported);
  EXPECT_EQ(hg::plan_histogram(524288, h200(), strategy::cluster_dsmem, 0, always).cluster_size, 16);
  EXPECT_EQ(hg::plan_histogram(65536, h200(), strategy::cluster_split, 0, always).cluster_size, 4);  // 64 KB each
  // Without clusters: a block's shared memory while it fits, then global atomics.
  EXPECT_EQ(hg::plan_histogram(16384, no_clusters(), strategy::automatic, 0, always).kind, strategy::block_smem);
  EXPECT_EQ(hg::plan_histogram(20000, no_clusters(), strategy::automatic, 0, always).kind, strategy::block_smem);
  EXPECT_EQ(hg::plan_histogram(65536, no_clusters(), strategy::automatic, 0, always).kind, strategy::global_private);
  EXPECT_THROW(hg::plan_histogram(256, no_clusters(), strategy::cluster_dsmem, 2, always), hg::unsupported);
  EXPECT_THROW(hg::plan_histogram(256, no_clusters(), strategy::cluster_split, 2, always), hg::unsupported);
}

TEST(HistogramPlan, ForcedStrategiesThatCannotRunSayWhy) {
  using hg::strategy;
  try {
    hg::plan_histogram(65536, h200(), strategy::block_smem, 0, always);
    FAIL() << "256 KB of bins accepted in one block";
  } catch (const hg::unsupported& e) {
    EXPECT_NE(std::string(e.what()).find("256 KiB"), std::string::npos) << e.what();
  }
  EXPECT_THROW(hg::plan_histogram(524288, h200(), strategy::cluster_dsmem, 8, always), hg::unsupported);
  EXPECT_THROW(hg::plan_histogram(256, h200(), strategy::cluster_dsmem, 16, upto8), hg::unsupported);
  EXPECT_THROW(hg::plan_histogram(256, h200(), strategy::cluster_dsmem, 3, always), std::invalid_argument);
  EXPECT_THROW(hg::plan_histogram(256, h200(), strategy::cluster_dsmem, 32, always), std::invalid_argument);
  EXPECT_THROW(hg::plan_histogram(0, h200(), strategy::automatic, 0, always), std::invalid_argument);
  EXPECT_THROW(hg::plan_histogram((1ll << 28) + 1, h200(), strategy::global_atomics, 0, always), std::invalid_argument);
  EXPECT_EQ(hg::plan_histogram(1 << 27, h200(), strategy::global_atomics, 0, always).kind, strategy::global_atomics);
  const auto c1 = hg::plan_histogram(1000, h200(), strategy::cluster_dsmem, 1, always);
  EXPECT_EQ(c1.bins_per_block, 1000);
  const auto c8 = hg::plan_histogram(1001, h200(), strategy::cluster_dsmem, 8, always);
  EXPECT_EQ(c8.bins_per_block, 126);  // ceil(1001 / 8)
}

TEST(HistogramPlan, StatusFormsCarryTheKindCodeAndMessage) {
  using hg::strategy;
  hg::plan p;
  auto s = hg::try_plan_histogram(65536, h200(), strategy::block_smem, 0, always, p);
  EXPECT_EQ(s.what, memscope::status::kind::unsupported);
  EXPECT_EQ(s.code, cudaErrorNotSupported);
  EXPECT_NE(s.message.find("256 KiB"), std::string::npos) << s.message;
  s = hg::try_plan_histogram(256, h200(), strategy::cluster_dsmem, 3, always, p);
  EXPECT_EQ(s.what, memscope::status::kind::invalid_argument);
  EXPECT_EQ(s.code, cudaErrorInvalidValue);
  s = hg::try_plan_histogram(256, h200(), strategy::automatic, 0, always, p);
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(p.kind, strategy::block_smem);
  hg::even_bins<int> b;
  EXPECT_EQ(hg::even_bins<int>::try_make(11, 5, 5, b).code, cudaErrorInvalidValue);
  // The throwing form raises the type the status names.
  EXPECT_THROW(memscope::throw_if_error(memscope::status::not_supported("x")), memscope::unsupported);
  EXPECT_THROW(memscope::throw_if_error(memscope::status::invalid("x")), std::invalid_argument);
  EXPECT_THROW(memscope::throw_if_error({memscope::status::kind::cuda, cudaErrorMemoryAllocation, "x"}),
               memscope::cuda_error);
  EXPECT_NO_THROW(memscope::throw_if_error({}));
}

TEST(HistogramPlan, SharedKernelsRunTheBuildForTheBlocksTheirSharedMemoryLetsAnSmHold) {
  hg::device_limits h200_sm = h200();  // 228 KiB and 2048 threads per SM, 1 KiB reserved per block
  h200_sm.smem_per_sm = 228 * 1024;
  h200_sm.smem_reserved_per_block = 1024;
  h200_sm.threads_per_sm = 2048;
  EXPECT_EQ(hg::shared_blocks_per_sm(h200_sm, 113 * 1024), 2);  // 2 x (113 + 1) KiB = 228 KiB
  EXPECT_EQ(hg::shared_blocks_per_sm(h200_sm, 113 * 1024 + 4), 1);
  EXPECT_EQ(hg::shared_blocks_per_sm(h200_sm, 0), 2);
  const auto plan_of = [&](int bins, hg::strategy kind, int cluster = 0) {
    hg::plan p;
    EXPECT_TRUE(hg::try_plan_histogram(bins, h200_sm, kind, cluster, always, p).ok());
    return p;
  };
  EXPECT_EQ(plan_of(16384, hg::strategy::automatic).blocks_per_sm, 2);  // block_smem, 64 KiB
  EXPECT_EQ(plan_of(32768, hg::strategy::automatic).blocks_per_sm, 1);  // block_smem, 128 KiB
  const hg::plan split = plan_of(65536, hg::strategy::automatic);       // two 128 KiB halves
  EXPECT_EQ(split.kind, hg::strategy::cluster_split);
  EXPECT_EQ(split.blocks_per_sm, 1);
  EXPECT_EQ(plan_of(4096, hg::strategy::cluster_split, 2).blocks_per_sm, 2);
  EXPECT_EQ(plan_of(131072, hg::strategy::cluster_dsmem, 4).blocks_per_sm, 1);
  // 1536 threads per SM (sm_86, sm_89): never two 1024-thread blocks, whatever the memory.
  hg::device_limits ada = h200_sm;
  ada.threads_per_sm = 1536;
  EXPECT_EQ(hg::shared_blocks_per_sm(ada, 1024), 1);
  // Limits not read (a hand-made device_limits): the one-block build, correct anywhere.
  EXPECT_EQ(hg::shared_blocks_per_sm(h200(), 1024), 1);
}

TEST(HistogramPlan, PitchedRowsGoToTheGroupWhoseBusiestWarpMakesFewestTrips) {
  constexpr std::size_t h200_grid = 132 * 1024;  // one 1024-thread block per SM
  const auto rows_of = [](std::size_t pixels, std::size_t width) { return (pixels + width - 1) / width; };
  // 3001 floats (750 vectors and a scalar) at a 12288-byte pitch, 2^26 pixels: 64 threads take a
  // row in three trips of 256 vectors (750 of 768 loads used), where 128 took two of 512 (750 of 1024).
  EXPECT_EQ(hg::row_group_log2(3001 * 4, 12288, rows_of(1u << 26, 3001), h200_grid, 1), 6);
  // Rows of whole 512-vector trips keep them whole: 4096 floats, 256 threads, one trip a row.
  EXPECT_EQ(hg::row_group_log2(4096 * 4, 4096 * 4, rows_of(1u << 26, 4096), h200_grid, 1), 8);
  // Rows shorter than a vector: the most groups, one warp each.
  EXPECT_EQ(hg::row_group_log2(7, 512, 1u << 20, h200_grid, 1), 5);
  // Fewer rows than warps: the largest group that still gives each row its own group.
  EXPECT_EQ(hg::row_group_log2(100000 * 4, 400384, 42, h200_grid, 1), 10);
  // A row longer than every group's trips together: the whole grid takes each row.
  EXPECT_EQ(hg::row_group_log2(std::size_t{1} << 26, std::size_t{1} << 26, 1, h200_grid, 1), hg::row_group_whole_grid);
  // No rows, or a grid smaller than a warp: nothing to balance, the whole grid.
  EXPECT_EQ(hg::row_group_log2(3001 * 4, 12288, 0, h200_grid, 1), hg::row_group_whole_grid);
  EXPECT_EQ(hg::row_group_log2(3001 * 4, 12288, 100, 16, 1), hg::row_group_whole_grid);
  // A misaligned stride adds a scalar head to every row: still a valid group.
  const int odd = hg::row_group_log2(3001 * 4, 12292, rows_of(1u << 26, 3001), h200_grid, 1);
  EXPECT_GE(odd, 5);
  EXPECT_LE(odd, 10);
  // Rows walked as one run (RGB floats, pixel groups of 3 vectors) keep the largest group with
  // two trips a row where the rows spread evenly over the groups (22363 over 264: 85 against 84.7)...
  EXPECT_EQ(hg::row_group_log2(3001 * 12, 36352, rows_of(1u << 26, 3001), h200_grid, 3), 9);
  // ... and go to the whole grid where the busiest group would take a sixteenth more (671 rows
  // over 132 groups: 6 against 5.1), or rows are fewer than groups.
  EXPECT_EQ(hg::row_group_log2(100000 * 12, 1200128, rows_of(1u << 26, 100000), h200_grid, 3),
            hg::row_group_whole_grid_run);
  EXPECT_EQ(hg::row_group_log2(std::size_t{1} << 26, std::size_t{1} << 26, 1, h200_grid, 3),
            hg::row_group_whole_grid_run);
  // Units longer than a trip's vectors (5 float channels) keep the walk whose share is bounded.
  EXPECT_EQ(hg::row_group_log2(100000 * 20, 2000384, 671, h200_grid, 5), 10);
  EXPECT_EQ(hg::row_group_log2(std::size_t{1} << 26, std::size_t{1} << 26, 1, h200_grid, 5), hg::row_group_whole_grid);
}
