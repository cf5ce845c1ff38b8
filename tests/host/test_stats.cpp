#include "harness/stats.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

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

TEST(Stats, RelativeStandardErrorShrinksWithSamples) {
  const auto s = summarize({1, 2, 3, 4});
  EXPECT_NEAR(s.rse, s.noise / 2, 1e-12);
  running_stats r;
  EXPECT_TRUE(std::isinf(r.rse()));
  for (double x : {1.0, 2.0, 3.0, 4.0}) r.add(x);
  EXPECT_NEAR(r.rse(), s.rse, 1e-12);
  EXPECT_DOUBLE_EQ(r.sum(), 10);
}

TEST(Stats, MannWhitneyMatchesTheTextbook) {
  // Completely separated sets of five: U = 0, z = 12 / sqrt(25 * 11 / 12), p = 0.0122.
  EXPECT_NEAR(mann_whitney_p({1, 2, 3, 4, 5}, {6, 7, 8, 9, 10}), 0.0121858, 1e-6);
  EXPECT_NEAR(mann_whitney_p({6, 7, 8, 9, 10}, {1, 2, 3, 4, 5}), 0.0121858, 1e-6);  // two-sided
  EXPECT_DOUBLE_EQ(mann_whitney_p({}, {1.0}), 1.0);
  EXPECT_DOUBLE_EQ(mann_whitney_p({2, 2, 2}, {2, 2}), 1.0);  // all tied: no evidence
}

TEST(Stats, MannWhitneySeparatesShiftsNotSamplesOfOneDistribution) {
  std::mt19937_64 rng(7);
  std::lognormal_distribution<double> d(0.0, 0.05);
  std::vector<double> a, b, shifted;
  for (int i = 0; i < 200; ++i) {
    a.push_back(d(rng));
    b.push_back(d(rng));
    shifted.push_back(1.03 * d(rng));
  }
  EXPECT_GT(mann_whitney_p(a, b), 0.001);
  EXPECT_LT(mann_whitney_p(a, shifted), 1e-6);
}
