// rules.hpp: the rules the kernels, the CPU reference and CUB agree on, beyond the
// even and range rules test_histogram_plan.cpp covers: __half in half precision, interleaved
// channels, 8-bit raw values.

#include "memscope/histogram/rules.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <tuple>

namespace hg = memscope::histogram;

namespace {
__half from_bits(std::uint16_t bits) {
  __half_raw raw;
  raw.x = bits;
  return __half(raw);
}
}  // namespace

// CUB's half rule: bin = int((s - lower) * reciprocal) with each operation rounded to half and
// the reciprocal rounded from float. Checked against that recipe computed in double with
// explicit rounding to half after every step (double rounding through float is exact for
// half: 24 >= 2 x 11 + 2 bits).
TEST(HistogramRules, HalfBinsRoundEveryStepToHalf) {
  for (const auto& [levels, lo, hi] :
       {std::tuple{101, -0.3f, 1.3f}, std::tuple{1001, 0.0f, 1.0f}, std::tuple{70002, -1000.0f, 60000.0f}}) {
    const __half lower = __float2half(lo), upper = __float2half(hi);
    const auto rule = hg::make_even_rule<__half>(levels, lower, upper);
    const float recip =
        __half2float(__float2half(static_cast<float>(levels - 1) / (__half2float(upper) - __half2float(lower))));
    for (unsigned bits = 0; bits < 65536; ++bits) {
      const __half s = from_bits(static_cast<std::uint16_t>(bits));
      const float f = __half2float(s);
      int want = -1;
      if (f >= __half2float(lower) && f < __half2float(upper)) {
        const float diff = __half2float(__double2half(static_cast<double>(f) - __half2float(lower)));
        const float prod = __half2float(__double2half(static_cast<double>(diff) * recip));
        // A product past the last bin (or past half's range: infinity) falls in no bin.
        want = prod < static_cast<float>(levels - 1) ? static_cast<int>(prod) : -1;
      }
      ASSERT_EQ(rule(s), want) << "bits " << bits << " levels " << levels;
    }
  }
}

TEST(HistogramRules, HalfSamplesNeedHalfLevelsAndValidLevels) {
  hg::even_rule<__half, __half> rule;
  EXPECT_EQ(hg::try_make_even_rule<__half>(1, __float2half(0.0f), __float2half(1.0f), rule).code,
            cudaErrorInvalidValue);
  EXPECT_EQ(hg::try_make_even_rule<__half>(5, __float2half(1.0f), __float2half(1.0f), rule).code,
            cudaErrorInvalidValue);
  EXPECT_EQ(hg::try_make_even_rule<__half>(5, from_bits(0x7e00), __float2half(1.0f), rule).code,
            cudaErrorInvalidValue);  // NaN
}

TEST(HistogramRules, ChannelsHaveTheirOwnRulesAndBinRanges) {
  using rule_t = hg::even_rule<float, float>;
  const rule_t per[3] = {hg::make_even_rule<float>(5, 0.0f, 1.0f), hg::make_even_rule<float>(3, 0.0f, 1.0f),
                         hg::make_even_rule<float>(9, -1.0f, 1.0f)};
  hg::multi_rule<rule_t, 4, 3> m;
  ASSERT_TRUE((hg::multi_rule<rule_t, 4, 3>::try_make(per, m).ok()));
  EXPECT_EQ(m.num_bins, 4 + 2 + 8);
  EXPECT_EQ(m(0.5f, 0), 2);
  EXPECT_EQ(m(0.5f, 1), 4 + 1);
  EXPECT_EQ(m(0.5f, 2), 6 + 6);
  EXPECT_EQ(m(2.0f, 0), -1);  // out of channel 0's range: no bin, not channel 1's first
  EXPECT_EQ(m(-0.5f, 1), -1);
  EXPECT_EQ(m(-0.5f, 2), 6 + 2);
  EXPECT_EQ(m(0.5f, 3), -1);  // the inactive channel
  // Positions pick the channel: sample i of a row is channel i % 4.
  EXPECT_EQ(hg::bin_of(m, 0.5f, std::size_t{9}), 5);
  EXPECT_EQ(hg::bin_of(m, 0.5f, std::size_t{11}), -1);
  EXPECT_EQ(hg::bin_of(per[0], 0.5f, std::size_t{11}), 2);  // one channel: position ignored
}

TEST(HistogramRules, ChannelsTogetherStayWithinTheBinLimit) {
  using rule_t = hg::even_rule<float, float>;
  const rule_t big = hg::make_even_rule<float>(static_cast<int>(hg::max_bins) + 1, 0.0f, 1.0f);
  const rule_t per[2] = {big, big};
  hg::multi_rule<rule_t, 2, 2> m;
  EXPECT_EQ((hg::multi_rule<rule_t, 2, 2>::try_make(per, m).code), cudaErrorInvalidValue);
}

TEST(HistogramRules, RawByteValuesMapToTheBinsOfEveryChannel) {
  using rule_t = hg::even_rule<std::uint8_t, int>;
  const rule_t per[2] = {hg::make_even_rule<std::uint8_t>(257, 0, 256), hg::make_even_rule<std::uint8_t>(5, 100, 200)};
  hg::multi_rule<rule_t, 3, 2> m;
  ASSERT_TRUE((hg::multi_rule<rule_t, 3, 2>::try_make(per, m).ok()));
  using raw = hg::raw_values<std::uint8_t, hg::multi_rule<rule_t, 3, 2>>;
  EXPECT_EQ(raw::counters, 512);
  const raw::type values{};
  EXPECT_EQ(values(std::uint8_t{7}, 0), 7);
  EXPECT_EQ(values(std::uint8_t{7}, 1), 256 + 7);
  EXPECT_EQ(values(std::uint8_t{7}, 2), -1);
  for (int i = 0; i < raw::counters; ++i) EXPECT_EQ(raw::bin(m, i), m(static_cast<std::uint8_t>(i & 255), i >> 8)) << i;
  using one = hg::raw_values<std::uint8_t, rule_t>;
  EXPECT_EQ(one::counters, 256);
  EXPECT_EQ(one::bin(per[1], 150), per[1](std::uint8_t{150}));
}

TEST(HistogramRules, LevelRangesAreCostlyToBinEvenBinsAreNot) {
  EXPECT_FALSE((hg::rule_searches<hg::even_rule<float, float>>::value));
  EXPECT_TRUE((hg::rule_searches<hg::range_rule<float, float>>::value));
  EXPECT_TRUE((hg::rule_searches<hg::multi_rule<hg::range_rule<std::uint8_t, int>, 4, 3>>::value));
  EXPECT_FALSE((hg::rule_searches<hg::multi_rule<hg::even_rule<std::uint8_t, int>, 4, 3>>::value));
}
