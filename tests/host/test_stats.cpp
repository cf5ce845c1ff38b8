#include "harness/stats.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace memscope;

TEST(Stats, OddCountMedianIsMiddle) {
  const auto s = summarize({5, 1, 3});
  EXPECT_EQ(s.count, 3u);
  EXPECT_DOUBLE_EQ(s.median, 3);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 5);
  EXPECT_DOUBLE_EQ(s.mean, 3);
  EXPECT_DOUBLE_EQ(s.stdev, 2);
  EXPECT_NEAR(s.noise, 2.0 / 3.0, 1e-12);
}

TEST(Stats, EvenCountMedianIsMeanOfMiddlePair) {
  EXPECT_DOUBLE_EQ(median_of({4, 1, 3, 2}), 2.5);
  EXPECT_DOUBLE_EQ(median_of({7, 7}), 7);
}

TEST(Stats, SingleSampleHasNoSpread) {
  const auto s = summarize({1e-3});
  EXPECT_DOUBLE_EQ(s.median, 1e-3);
  EXPECT_DOUBLE_EQ(s.stdev, 0);
  EXPECT_DOUBLE_EQ(s.noise, 0);
}

TEST(Stats, RejectsEmptyAndNonFinite) {
  EXPECT_THROW(summarize({}), std::invalid_argument);
  EXPECT_THROW(summarize({1.0, std::numeric_limits<double>::quiet_NaN()}), std::invalid_argument);
  EXPECT_THROW(summarize({1.0, std::numeric_limits<double>::infinity()}), std::invalid_argument);
}
