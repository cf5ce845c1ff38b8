// histogram.cuh, CUB's whole interface: histogram_even with levels of their own type (8-bit
// samples, int levels 0..256), histogram_range, 32- and 64-bit counters, signed or not, every
// sample type CUB bins, __half included. Counts must equal CUB's and the CPU reference's exactly, on awkward
// sizes and misaligned pointers, for the automatic choice and for forced strategies.

#include "gpu/histogram/checks.hpp"
#include "gpu/gpu_test.hpp"

#include "memscope/core/device_buffer.hpp"
#include "memscope/histogram/histogram.cuh"
#include "memscope/histogram/reference.hpp"

#include <cub/device/device_histogram.cuh>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <tuple>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

namespace hg = memscope::histogram;
using memscope::device_buffer;

namespace {

template <class T>
std::string type_name() {
  if constexpr (std::is_same_v<T, float>) return "float";
  else if constexpr (std::is_same_v<T, double>) return "double";
  else return std::string(std::is_signed_v<T> ? "int" : "uint") + std::to_string(8 * sizeof(T));
}

/// Samples a little beyond [lo, hi) on both sides (out-of-range ones fall in no bin), the
/// levels themselves (the edges), and for floating point 1% NaN.
template <class SampleT, class LevelT>
std::vector<SampleT> make_samples(std::size_t n, LevelT lo, LevelT hi, const std::vector<LevelT>& edges,
                                  std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<SampleT> v(n);
  const double span = static_cast<double>(hi) - static_cast<double>(lo);
  const double from =
      std::max(static_cast<double>(lo) - span / 8, static_cast<double>(std::numeric_limits<SampleT>::lowest()));
  const double to =
      std::min(static_cast<double>(hi) + span / 8, static_cast<double>(std::numeric_limits<SampleT>::max()));
  std::uniform_real_distribution<double> pick(from, to);
  for (std::size_t i = 0; i < n; ++i) {
    const auto r = rng() % 100;
    if (std::is_floating_point_v<SampleT> && r == 0) v[i] = std::numeric_limits<SampleT>::quiet_NaN();
    else if (r < 10 && !edges.empty()) v[i] = static_cast<SampleT>(edges[rng() % edges.size()]);
    else v[i] = static_cast<SampleT>(std::floor(pick(rng)));
    if constexpr (std::is_floating_point_v<SampleT>)
      if (r >= 10 && r < 60) v[i] = static_cast<SampleT>(pick(rng));  // fractions too
  }
  return v;
}

std::vector<hg::options> strategies() { return memscope::testing::histogram_strategies(); }

template <class CounterT>
void expect_same(const std::vector<CounterT>& got, const std::vector<CounterT>& want, const std::string& what) {
  memscope::testing::expect_same_counts(got, want, what);
}

/// One rule (even or range) for one (sample, level, counter) type triple: every size, offset
/// and strategy against CUB and the reference.
template <class SampleT, class LevelT, class CounterT, class Ours, class Cub, class Reference>
void check(const std::string& what, int bins, LevelT lo, LevelT hi, const std::vector<LevelT>& edges, Ours ours,
           Cub cub, Reference reference, bool against_cub = true) {
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{31}, std::size_t{1000003}})
    for (int offset : {0, 1, 3}) {
      const auto h = make_samples<SampleT>(n + 3, lo, hi, edges, memscope::testing::fresh_seed());
      device_buffer<SampleT> d(h.size());
      MEMSCOPE_CUDA_CALL(cudaMemcpy(d.data(), h.data(), h.size() * sizeof(SampleT), cudaMemcpyHostToDevice));
      const SampleT* samples = d.data() + offset;
      const auto want = reference(h.data() + offset, n);
      const std::string at =
          what + " bins=" + std::to_string(bins) + " n=" + std::to_string(n) + " offset=" + std::to_string(offset);
      if (against_cub) {
        device_buffer<CounterT> theirs(static_cast<std::size_t>(bins));
        theirs.poison();
        cub(samples, theirs.data(), static_cast<std::int64_t>(n));
        MEMSCOPE_CUDA_CALL(cudaDeviceSynchronize());
        expect_same(theirs.to_host(), want, at + " (CUB against the reference)");
      }
      device_buffer<CounterT> mine(static_cast<std::size_t>(bins));
      for (const auto& o : strategies()) {
        mine.poison();
        try {
          ours(samples, mine.data(), static_cast<std::int64_t>(n), o);
        } catch (const hg::unsupported&) {
          EXPECT_NE(o.kind, hg::strategy::automatic) << at;
          continue;
        }
        MEMSCOPE_CUDA_CALL(cudaDeviceSynchronize());
        expect_same(mine.to_host(), want, at + " " + hg::to_string(o.kind));
      }
    }
}

template <class SampleT, class LevelT, class CounterT>
void check_even(int bins, LevelT lo, LevelT hi, bool against_cub = true) {
  const std::string what = "even " + type_name<SampleT>() + " samples, " + type_name<LevelT>() + " levels, " +
                           type_name<CounterT>() + " counters";
  SCOPED_TRACE(what);
  std::vector<LevelT> edges;
  for (int b = 0; b <= bins; b += std::max(1, bins / 16))
    edges.push_back(
        static_cast<LevelT>(static_cast<double>(lo) + (static_cast<double>(hi) - static_cast<double>(lo)) * b / bins));
  const auto rule = hg::make_even_rule<SampleT>(bins + 1, lo, hi);
  check<SampleT, LevelT, CounterT>(
      what, bins, lo, hi, edges,
      [&](const SampleT* s, CounterT* out, std::int64_t n, const hg::options& o) {
        hg::histogram_even(s, out, bins + 1, lo, hi, n, nullptr, o);
      },
      [&](const SampleT* s, CounterT* out, std::int64_t n) {
        std::size_t bytes = 0;
        MEMSCOPE_CUDA_CALL(cub::DeviceHistogram::HistogramEven(nullptr, bytes, s, out, bins + 1, lo, hi, n));
        device_buffer<unsigned char> temp(bytes);
        MEMSCOPE_CUDA_CALL(cub::DeviceHistogram::HistogramEven(temp.data(), bytes, s, out, bins + 1, lo, hi, n));
      },
      [&](const SampleT* h, std::size_t n) { return hg::histogram_reference<CounterT>(h, n, rule); }, against_cub);
}

template <class SampleT, class LevelT, class CounterT>
void check_range(int bins, LevelT lo, LevelT hi) {
  const std::string what = "range " + type_name<SampleT>() + " samples, " + type_name<LevelT>() + " levels, " +
                           type_name<CounterT>() + " counters";
  SCOPED_TRACE(what);
  // Sorted random levels over [lo, hi], the ends included, uneven widths.
  std::mt19937_64 rng(memscope::testing::fresh_seed());
  std::uniform_real_distribution<double> pick(static_cast<double>(lo), static_cast<double>(hi));
  std::vector<LevelT> levels = {lo, hi};
  while (static_cast<int>(levels.size()) < bins + 1) levels.push_back(static_cast<LevelT>(pick(rng)));
  std::sort(levels.begin(), levels.end());
  device_buffer<LevelT> d_levels(levels.size());
  MEMSCOPE_CUDA_CALL(
      cudaMemcpy(d_levels.data(), levels.data(), levels.size() * sizeof(LevelT), cudaMemcpyHostToDevice));
  const auto rule = hg::make_range_rule<SampleT>(bins + 1, levels.data());
  check<SampleT, LevelT, CounterT>(
      what, bins, lo, hi, levels,
      [&](const SampleT* s, CounterT* out, std::int64_t n, const hg::options& o) {
        hg::histogram_range(s, out, bins + 1, d_levels.data(), n, nullptr, o);
      },
      [&](const SampleT* s, CounterT* out, std::int64_t n) {
        std::size_t bytes = 0;
        MEMSCOPE_CUDA_CALL(cub::DeviceHistogram::HistogramRange(nullptr, bytes, s, out, bins + 1, d_levels.data(), n));
        device_buffer<unsigned char> temp(bytes);
        MEMSCOPE_CUDA_CALL(
            cub::DeviceHistogram::HistogramRange(temp.data(), bytes, s, out, bins + 1, d_levels.data(), n));
      },
      [&](const SampleT* h, std::size_t n) { return hg::histogram_reference<CounterT>(h, n, rule); });
}

}  // namespace

TEST(HistogramTypes, EightBitSamplesWithIntLevelsHave256Bins) {
  MEMSCOPE_REQUIRE_GPU();
  check_even<std::uint8_t, int, unsigned>(256, 0, 256);  // what CUB users write for images
  check_even<std::int8_t, std::int8_t, int>(7, 0, 101);
}

// CUB keeps upper - lower in the level type: int8 levels -100..101 make 201, which wraps to
// -55, and int16 levels -30000..30001 wrap too, so CUB's counts are wrong there (on the H200 at
// ce2f3f6); int levels -2^30..2^30 wrap to a negative range and CUB refuses them with
// cudaErrorInvalidValue. And CUB's 8-bit path (256 raw values, each binned once) loses negative
// int8 samples: with int8 levels -60..61 the bins below 0 count nothing (on the H200 at this
// commit's parent, 0 where 119816 belong). memscope takes the difference in 64 bits and bins
// raw 8-bit values as their own type; its counts are checked against the reference alone.
TEST(HistogramTypes, LevelRangesWiderThanTheLevelTypeStayExact) {
  MEMSCOPE_REQUIRE_GPU();
  check_even<std::int8_t, std::int8_t, int>(7, -60, 61, false);
  check_even<std::int8_t, std::int8_t, int>(7, -100, 101, false);
  check_even<std::int16_t, std::int16_t, unsigned>(4099, -30000, 30001, false);
  check_even<int, int, unsigned>(70001, -(1 << 30), 1 << 30, false);
}

TEST(HistogramTypes, EvenBinsForEverySampleType) {
  MEMSCOPE_REQUIRE_GPU();
  check_even<std::int16_t, std::int16_t, int>(4099, -16000, 16001);
  check_even<std::uint16_t, std::uint16_t, unsigned long long>(1000, 17, 65000);
  check_even<int, int, unsigned>(70001, -(1 << 30), (1 << 30) - 1);
  check_even<unsigned, unsigned, unsigned long long>(262147, 5, 4000000000u);
  check_even<long long, long long, unsigned>(4099, -(1ll << 40), 1ll << 41);
  check_even<float, float, unsigned long long>(262147, -0.3f, 0.7f);
  check_even<double, double, int>(4099, -1.0, 3.5);
  check_even<float, double, unsigned>(1000, 0.0, 1.0);  // levels wider than the samples: binned in double
}

TEST(HistogramTypes, RangeBinsMatchCubsUpperBound) {
  MEMSCOPE_REQUIRE_GPU();
  check_range<std::uint8_t, int, unsigned>(40, 0, 256);
  check_range<std::int16_t, std::int16_t, unsigned>(1000, -30000, 30000);
  check_range<int, int, unsigned long long>(70001, -(1 << 30), 1 << 30);
  check_range<float, float, unsigned>(4099, -0.3f, 0.7f);
  check_range<double, double, int>(262147, 0.0, 1.0);
}

TEST(HistogramTypes, CounterLimitsAndBadLevels) {
  MEMSCOPE_REQUIRE_GPU();
  device_buffer<float> samples(16);
  device_buffer<int> as_int(4);
  device_buffer<unsigned long long> as_u64(4);
  // int counters hold 2^31 - 1 samples; 64-bit ones 2^40 (blocks count in 32 bits).
  hg::outcome why;
  EXPECT_EQ(
      hg::try_histogram_even(samples.data(), as_int.data(), 5, 0.0f, 1.0f, std::int64_t{1} << 31, nullptr, {}, &why),
      cudaErrorInvalidValue);
  EXPECT_NE(why.message.find("32-bit signed counters"), std::string::npos) << why.message;
  EXPECT_EQ(hg::try_histogram_even(samples.data(), as_u64.data(), 5, 0.0f, 1.0f, (std::int64_t{1} << 40) + 1, nullptr,
                                   {}, &why),
            cudaErrorInvalidValue);
  EXPECT_EQ(hg::try_histogram_range(samples.data(), as_u64.data(), 5, static_cast<const float*>(nullptr), 16, nullptr,
                                    {}, &why),
            cudaErrorInvalidValue);
  EXPECT_NE(why.message.find("level array is null"), std::string::npos) << why.message;
  EXPECT_EQ(hg::try_histogram_range(samples.data(), as_u64.data(), 1, samples.data(), 16, nullptr, {}, &why),
            cudaErrorInvalidValue);
  // The two-phase forms report the scratch global_private keeps: none below the cost rule.
  std::size_t bytes = 0;
  hg::histogram_range(nullptr, bytes, samples.data(), as_u64.data(), 5, samples.data(), 16);
  EXPECT_EQ(bytes, 1u);
  const auto p = hg::histogram_even(nullptr, bytes, static_cast<const float*>(nullptr), as_u64.data(), (1 << 18) + 1,
                                    0.0f, 1.0f, std::int64_t{1} << 28);
  EXPECT_EQ(p.kind, hg::strategy::global_private);
  EXPECT_EQ(bytes, static_cast<std::size_t>(p.copies - 1) * (1u << 18) * sizeof(unsigned long long));
}

// __half samples: CUB bins them in half precision (__hsub, __hmul by a reciprocal rounded to
// half), so a half product can land a sample one bin off from its exact place, and memscope
// must land it in the same bin. memscope bins every one of the 65536 half values, NaN and
// infinities included, in random order. CUB faults (illegal address, on the H200) on that set:
// a sample inside [lower, upper) whose half product rounds up to num_bins is counted past its
// output; memscope drops it, as CUB's float path and its own reference do. CUB is compared on
// the set without those samples.
TEST(HistogramTypes, HalfSamplesBinInHalfPrecisionAsCubDoes) {
  MEMSCOPE_REQUIRE_GPU();
  std::vector<__half> all;
  for (unsigned bits = 0; bits < 65536; ++bits) {
    __half_raw raw;
    raw.x = static_cast<unsigned short>(bits);
    all.push_back(__half(raw));
  }
  std::mt19937_64 rng(memscope::testing::fresh_seed());
  std::shuffle(all.begin(), all.end(), rng);
  for (const auto& [bins, lo, hi] :
       {std::tuple{100, -0.3f, 1.3f}, std::tuple{1000, 0.0f, 1.0f}, std::tuple{70001, -1000.0f, 60000.0f}}) {
    const __half lower = __float2half(lo), upper = __float2half(hi);
    const auto rule = hg::make_even_rule<__half>(bins + 1, lower, upper);
    std::vector<__half> safe;  // without the samples CUB counts past its output
    for (const auto v : all)
      if (!(__hge(v, lower) && __hlt(v, upper)) || rule(v) >= 0) safe.push_back(v);
    for (const auto* set : {&all, &safe}) {
      std::vector<__half> h = *set;
      for (int i = 0; i < 3; ++i) h.insert(h.end(), set->begin(), set->end());
      device_buffer<__half> d(h.size());
      MEMSCOPE_CUDA_CALL(cudaMemcpy(d.data(), h.data(), h.size() * sizeof(__half), cudaMemcpyHostToDevice));
      for (std::size_t offset : {std::size_t{0}, std::size_t{3}}) {
        const std::size_t n = h.size() - offset;
        const auto want = hg::histogram_reference<unsigned>(h.data() + offset, n, rule);
        const std::string at = "half bins=" + std::to_string(bins) +
                               (set == &all ? " every value" : " CUB-safe values") +
                               " offset=" + std::to_string(offset);
        device_buffer<unsigned> out(static_cast<std::size_t>(bins));
        if (set == &safe) {
          out.poison();
          std::size_t bytes = 0;
          MEMSCOPE_CUDA_CALL(cub::DeviceHistogram::HistogramEven(nullptr, bytes, d.data() + offset, out.data(),
                                                                 bins + 1, lower, upper, static_cast<int>(n)));
          device_buffer<unsigned char> temp(bytes);
          MEMSCOPE_CUDA_CALL(cub::DeviceHistogram::HistogramEven(temp.data(), bytes, d.data() + offset, out.data(),
                                                                 bins + 1, lower, upper, static_cast<int>(n)));
          MEMSCOPE_CUDA_CALL(cudaDeviceSynchronize());
          expect_same(out.to_host(), want, at + " (CUB against the reference)");
        }
        for (const auto& o : strategies()) {
          out.poison();
          try {
            hg::histogram_even(d.data() + offset, out.data(), bins + 1, lower, upper, static_cast<std::int64_t>(n),
                               nullptr, o);
          } catch (const hg::unsupported&) {
            EXPECT_NE(o.kind, hg::strategy::automatic) << at;
            continue;
          }
          MEMSCOPE_CUDA_CALL(cudaDeviceSynchronize());
          expect_same(out.to_host(), want, at + " " + hg::to_string(o.kind));
        }
      }
    }
  }
}
