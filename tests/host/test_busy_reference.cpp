// busy_reference.hpp on its own: the closed form against the loop a kernel runs, and the
// pattern's checksum against one worked out word by word.
#include "memscope/transfer/busy_reference.hpp"

#include <gtest/gtest.h>

#include <random>

namespace tr = memscope::transfer;

TEST(BusyReference, PowerIsTheLoop) {
  std::mt19937 gen(std::random_device{}());
  for (std::uint64_t rounds : {0, 1, 2, 3, 7, 64, 255, 256, 1000, 4097}) {
    const auto f = tr::busy_power(rounds);
    for (int t = 0; t < 20; ++t) {
      const std::uint32_t x = gen();
      EXPECT_EQ(f(x), tr::busy_rounds_loop(x, rounds)) << "rounds=" << rounds << " x=" << x;
    }
  }
  EXPECT_EQ(tr::busy_power(0)(12345u), 12345u);
  EXPECT_EQ(tr::busy_power(1)(0u), tr::busy_add);
}

TEST(BusyReference, ChecksumOfThePatternFoldsEveryWholeWord) {
  const std::uint64_t seed = std::random_device{}();
  for (std::size_t bytes : {0, 1, 3, 4, 7, 17, 4099, 1000003}) {
    for (std::uint64_t rounds : {0, 5}) {
      std::uint32_t want = 0;
      for (std::size_t w = 0; w < bytes / 4; ++w) want ^= tr::busy_rounds_loop(tr::pattern_word(seed, w), rounds);
      EXPECT_EQ(tr::busy_checksum_of_pattern(bytes, seed, rounds), want) << "bytes=" << bytes << " rounds=" << rounds;
    }
  }
  // Large enough that the host's cores split it.
  const std::size_t big = (std::size_t{1} << 22) + 12;
  std::uint32_t want = 0;
  const auto f = tr::busy_power(9);
  for (std::size_t w = 0; w < big / 4; ++w) want ^= f(tr::pattern_word(seed, w));
  EXPECT_EQ(tr::busy_checksum_of_pattern(big, seed, 9), want);
}
