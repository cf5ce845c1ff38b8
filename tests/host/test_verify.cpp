#include "memscope/core/random.hpp"
#include "memscope/core/verify.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <vector>

using namespace memscope;

TEST(Verify, NearPassesWithinToleranceAndReportsFirstMismatch) {
  std::vector<float> got(1000);
  for (std::size_t i = 0; i < got.size(); ++i) got[i] = static_cast<float>(i) * 0.5f;
  auto want = [](std::size_t i) { return static_cast<double>(i) * 0.5; };
  EXPECT_TRUE(compare_near(got.data(), got.size(), want, 0, 0).passed);
  got[700] += 1.0f;
  got[300] += 1.0f;
  const auto r = compare_near(got.data(), got.size(), want, 1e-6, 0);
  EXPECT_FALSE(r.passed);
  EXPECT_NE(r.detail.find("2 of 1000"), std::string::npos) << r.detail;
  EXPECT_NE(r.detail.find("index 300"), std::string::npos) << r.detail;
}

TEST(Verify, PoisonNeverPasses) {
  std::vector<float> got(10, std::numeric_limits<float>::quiet_NaN());
  EXPECT_FALSE(compare_near(
                   got.data(), got.size(), [](std::size_t) { return 0.0; }, 1.0, 1.0)
                   .passed);
  EXPECT_FALSE(compare_exact(got.data(), got.size(), [](std::size_t) { return 0.0f; }).passed);
}

TEST(Verify, LargeInputsSplitAcrossThreadsFindTheFirstBadIndex) {
  std::vector<int> got(3'000'017, 7);
  got[2'999'999] = 8;
  got[1'500'001] = 9;
  const auto r = compare_exact(got.data(), got.size(), [](std::size_t) { return 7; });
  EXPECT_FALSE(r.passed);
  EXPECT_NE(r.detail.find("index 1500001"), std::string::npos) << r.detail;
  EXPECT_DOUBLE_EQ(parallel_sum(got.size(), [](std::size_t) { return 1.0; }), 3'000'017.0);
}

TEST(Verify, EmptyInputPasses) {
  EXPECT_TRUE(compare_exact(static_cast<const int*>(nullptr), 0, [](std::size_t) { return 0; }).passed);
}

TEST(Random, ValuesAreExactAndInRange) {
  for (std::uint64_t i = 0; i < 100000; ++i) {
    const float u = hash_uniform(42, i);
    EXPECT_GE(u, -1.0f);
    EXPECT_LT(u, 1.0f);
    const float k = hash_small_int(42, i);
    EXPECT_EQ(k, static_cast<float>(static_cast<int>(k)));
    EXPECT_GE(k, -8.0f);
    EXPECT_LE(k, 8.0f);
  }
  EXPECT_NE(hash_uniform(1, 0), hash_uniform(2, 0));
}
