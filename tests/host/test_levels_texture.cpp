// Latency plateaus and the texture reference (groundwork for the cache and texture suites).

#include "memscope/cache/permutation.hpp"
#include "memscope/core/levels.hpp"
#include "memscope/texture/texture_reference.hpp"

#include <gtest/gtest.h>

#include <cmath>

using namespace memscope;

TEST(LatencyLevels, FindsL1NearFarL2AndDram) {
  // A Hopper-like curve: L1 ~40 cycles to 192 KB, a transition, L2 near ~260 to 24 MB, far
  // ~330 to 48 MB, then DRAM ~620 rising slowly (TLB).
  std::vector<std::pair<double, double>> curve;
  for (double kb = 1; kb <= 192; kb *= 2) curve.push_back({kb * 1024, 40 + 0.1 * std::log2(kb)});
  curve.push_back({256 * 1024, 150});
  for (double mb = 0.5; mb <= 24; mb *= 2) curve.push_back({mb * 1048576, 258 + mb * 0.2});
  for (double mb : {32.0, 40.0, 48.0}) curve.push_back({mb * 1048576, 330});
  for (double gb = 0.125; gb <= 4; gb *= 2) curve.push_back({gb * 1073741824, 610 + 10 * std::log2(gb * 8)});
  const auto levels = detect_levels(curve);
  ASSERT_EQ(levels.size(), 4u);
  EXPECT_EQ(levels[0].last_bytes, 128 * 1024);  // the 2^k points below 192 KB
  EXPECT_NEAR(levels[0].cycles, 40, 1);
  EXPECT_EQ(levels[1].last_bytes, 16 * 1048576);
  EXPECT_NEAR(levels[1].cycles, 259, 3);
  EXPECT_EQ(levels[2].last_bytes, 48 * 1048576);
  EXPECT_EQ(levels[2].cycles, 330);
  EXPECT_GT(levels[3].cycles, 600);
  EXPECT_TRUE(detect_levels({}).empty());
  EXPECT_TRUE(detect_levels({{1024, 40}}).empty());  // one point is no plateau
}

// A point on the way down from one level must not set the next level's value: the H200's
// own-slice read (MiB of the whole buffer -> GB/s, cache_bandwidth, 2026-12-02) falls from L2
// to DRAM through 5855 GB/s at 64 MiB, and a run anchored on that point split the DRAM plateau
// and reported DRAM at 5855 GB/s, 1.4x the copy ceiling.
TEST(LatencyLevels, ATransitionPointDoesNotSetTheNextLevel) {
  const std::vector<std::pair<double, double>> curve = {
      {24, 28439}, {32, 25353}, {48, 18777}, {64, 5855},   {96, 5113},   {128, 4824},  {192, 4632},  {256, 4531},
      {384, 4477}, {512, 4437}, {768, 4428}, {1024, 4414}, {1536, 4452}, {2048, 4414}, {3072, 4482}, {4096, 4469}};
  const auto levels = detect_levels(curve, 0.15);
  ASSERT_EQ(levels.size(), 2u);
  EXPECT_EQ(levels[0].last_bytes, 32);
  EXPECT_EQ(levels[1].first_bytes, 64);
  EXPECT_EQ(levels[1].last_bytes, 4096);
  EXPECT_NEAR(levels[1].cycles, 4477, 1);  // the plateau's median
}

// A plateau that rises slowly stays one level while each point is near the median so far; the
// first point of the climb past it does not join (the H200's default-load L2, cycles by KiB).
TEST(LatencyLevels, ASlowlyRisingPlateauEndsWhereTheClimbStarts) {
  const std::vector<std::pair<double, double>> curve = {
      {768, 265.7},   {1024, 273.3},  {1536, 278.7},  {2048, 280.9},   {3072, 283.4},   {4096, 284.2},
      {6144, 285.4},  {8192, 285.9},  {12288, 286.1}, {16384, 286.5},  {24576, 286.8},  {32768, 306.9},
      {49152, 382.1}, {65536, 433.4}, {98304, 517.8}, {131072, 684.9}, {196608, 687.8}, {262144, 687.2}};
  const auto levels = detect_levels(curve, 0.06, 3);
  ASSERT_EQ(levels.size(), 2u);
  EXPECT_EQ(levels[0].first_bytes, 768);
  EXPECT_EQ(levels[0].last_bytes, 24576);
  EXPECT_NEAR(levels[0].cycles, 284.2, 0.1);
  EXPECT_EQ(levels[1].first_bytes, 131072);
  EXPECT_NEAR(levels[1].cycles, 687.2, 0.1);
}

TEST(TextureReference, AddressModesFollowTheProgrammingGuide) {
  using texture::address_mode;
  using texture::resolve_index;
  EXPECT_EQ(resolve_index(-1, 4, address_mode::clamp), 0);
  EXPECT_EQ(resolve_index(9, 4, address_mode::clamp), 3);
  EXPECT_EQ(resolve_index(-1, 4, address_mode::border), -1);
  EXPECT_EQ(resolve_index(4, 4, address_mode::border), -1);
  EXPECT_EQ(resolve_index(5, 4, address_mode::wrap), 1);
  EXPECT_EQ(resolve_index(-1, 4, address_mode::wrap), 3);
  // Mirror: 0 1 2 3 | 3 2 1 0 | 0 1 ...
  EXPECT_EQ(resolve_index(4, 4, address_mode::mirror), 3);
  EXPECT_EQ(resolve_index(7, 4, address_mode::mirror), 0);
  EXPECT_EQ(resolve_index(8, 4, address_mode::mirror), 0);
  EXPECT_EQ(resolve_index(-1, 4, address_mode::mirror), 0);
  EXPECT_EQ(resolve_index(-5, 4, address_mode::mirror), 3);
}

TEST(TextureReference, PointAndLinearFetches) {
  using texture::address_mode;
  texture::image line{{0.f, 10.f, 20.f, 30.f}, 4, 1, true};
  EXPECT_EQ(line.point(1.7, 0, address_mode::clamp).value, 10.0);
  EXPECT_EQ(line.point(-3, 0, address_mode::border).value, 0.0);
  // At a texel centre linear filtering returns the texel; halfway between two, their mean.
  EXPECT_DOUBLE_EQ(line.linear(2.5, 0, address_mode::clamp).value, 20.0);
  EXPECT_DOUBLE_EQ(line.linear(2.0, 0, address_mode::clamp).value, 15.0);
  EXPECT_DOUBLE_EQ(line.linear(0.25, 0, address_mode::clamp).value, 0.0);           // clamped to texel 0 on both sides
  EXPECT_DOUBLE_EQ(line.linear(0.25, 0, address_mode::border).value, 0.0);          // 0.75 * border 0 + 0.25 * 0
  EXPECT_DOUBLE_EQ(line.linear(4.25, 0, address_mode::border).value, 0.25 * 30.0);  // 0.25 * texel 3 + 0.75 * border
  EXPECT_NEAR(line.linear(1.3, 0, address_mode::clamp).tolerance, 10.0 / 256, 1e-4);
  texture::image square{{0.f, 1.f, 2.f, 3.f}, 2, 2};
  EXPECT_DOUBLE_EQ(square.linear(1.0, 1.0, address_mode::clamp).value, 1.5);  // the centre blends all four
  EXPECT_DOUBLE_EQ(square.point(1.2, 1.9, address_mode::clamp).value, 3.0);
}

TEST(Permutation, IsABijectionForAwkwardSizes) {
  for (std::uint64_t n : {1ull, 2ull, 3ull, 5ull, 64ull, 1000ull, 65537ull}) {
    std::vector<bool> seen(n, false);
    for (std::uint64_t k = 0; k < n; ++k) {
      const std::uint64_t p = memscope::permute_index(k, n, 0xC0FFEEull + n);
      ASSERT_LT(p, n);
      ASSERT_FALSE(seen[p]) << "n=" << n << " k=" << k;
      seen[p] = true;
    }
  }
}

TEST(Permutation, DependsOnTheSeed) {
  int same = 0;
  for (std::uint64_t k = 0; k < 1000; ++k)
    same += memscope::permute_index(k, 1000, 1) == memscope::permute_index(k, 1000, 2);
  EXPECT_LT(same, 20);
}

TEST(TextureReference, ATwoDimensionalTextureOfHeightOneStillBlendsWithTheBorderRows) {
  // Found on the H200: a 1x1 2D texture in border mode, bilinear at (0.29, 0.26) texels, blends
  // its texel with the zero border in x and in y.
  texture::image tex{{2.0f}, 1, 1};
  const auto f = tex.linear(0.29, 0.26, texture::address_mode::border);
  EXPECT_NEAR(f.value, 2.0 * 0.79 * 0.76, 1e-12);
  texture::image line{{2.0f}, 1, 1, true};
  EXPECT_NEAR(line.linear(0.29, 0.26, texture::address_mode::border).value, 2.0 * 0.79, 1e-12);
}
