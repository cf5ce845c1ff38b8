// The atomics reference against counts worked out by hand: the suite and the GPU test both
// check kernels against it, so it must be right on its own.
#include "memscope/atomic/atomics_reference.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace ref = memscope::atomic::reference;
using ref::counters_in;

TEST(AtomicsReference, AddCountsPerCounter) {
  // 4 blocks of 256 threads, 3 rounds. One address per warp: 32 threads x 3.
  EXPECT_EQ(ref::expected_counter(0, false, counters_in::global, 4, 256, 32, 3), 96u);
  // Three threads per address: the last of 1024 / 3 groups holds the one thread left over.
  EXPECT_EQ(ref::expected_counter(341, false, counters_in::global, 4, 256, 3, 3), 3u);
  EXPECT_EQ(ref::expected_counter(340, false, counters_in::global, 4, 256, 3, 3), 9u);
  // The whole grid on one address.
  EXPECT_EQ(ref::expected_counter(0, false, counters_in::global, 4, 256, 1024, 3), 3072u);
  // Per block: counter 1 of block 2 with a warp per address.
  EXPECT_EQ(ref::expected_counter(2 * 8 + 1, false, counters_in::own_block, 4, 256, 32, 3), 96u);
}

TEST(AtomicsReference, MaxIsTheLastThreadsLastValue) {
  // Global, a warp per address: counter 1's last thread is 63; its last value 63*3 + 2.
  EXPECT_EQ(ref::expected_counter(1, true, counters_in::global, 4, 256, 32, 3), 191u);
  // Own block 2, counter 0: thread 2*256 + 31.
  EXPECT_EQ(ref::expected_counter(2 * 8, true, counters_in::own_block, 4, 256, 32, 3), (512u + 31u) * 3u + 2u);
  // Peer block: block 2's counters receive block 3's values.
  EXPECT_EQ(ref::expected_counter(2 * 8, true, counters_in::peer_block, 4, 256, 32, 3), (768u + 31u) * 3u + 2u);
}

// The L2 home split, on probes shaped like an H200's (half the lines ~270 cycles, half ~470)
// and on the shapes that must not split: one level, too few slow lines, no lines.
TEST(AtomicsReference, HomeSplitFindsTwoLevelsOnlyWhereThereAreTwo) {
  std::vector<std::uint32_t> two(1024);
  for (std::size_t j = 0; j < two.size(); ++j) two[j] = (j / 4) % 2 ? 470 + j % 40 : 260 + j % 40;
  const auto h = ref::split_of(two.data(), 1024);
  EXPECT_TRUE(h.two_levels);
  EXPECT_GT(h.threshold, 300u);
  EXPECT_LT(h.threshold, 470u);
  int near = 0;
  for (auto c : two) near += ref::on_side(c, h, ref::side::near);
  EXPECT_EQ(near, 512);

  std::vector<std::uint32_t> one(1024, 300);
  one[7] = 900;  // one slow outlier is not a second level
  const auto h1 = ref::split_of(one.data(), 1024);
  EXPECT_FALSE(h1.two_levels);
  EXPECT_TRUE(ref::on_side(900, h1, ref::side::near));
  EXPECT_FALSE(ref::on_side(300, h1, ref::side::far));
  EXPECT_EQ(ref::home_chain_end(one.data(), 1024, ref::side::far, 5), 1024u);

  EXPECT_FALSE(ref::split_of(two.data(), 0).two_levels);
  std::vector<std::uint32_t> huge(16, 100000);  // slower than the histogram's range
  EXPECT_FALSE(ref::split_of(huge.data(), 16).two_levels);
}

TEST(AtomicsReference, HomeChainEndsOnTheRingOfItsSide) {
  // Lines 1, 4, 5, 8, 9 are slow: the far ring is 1 -> 4 -> 5 -> 8 -> 9 -> 1, the near one
  // 0 -> 2 -> 3 -> 6 -> 7 -> 10 -> ...
  std::vector<std::uint32_t> c(20, 250);
  for (int j = 6; j < 20; ++j) c[j] = j % 2 ? 255 : 245;
  c[1] = c[4] = c[5] = c[8] = c[9] = 500;
  EXPECT_TRUE(ref::split_of(c.data(), 20).two_levels);
  EXPECT_EQ(ref::home_chain_end(c.data(), 20, ref::side::far, 0), 1u);
  EXPECT_EQ(ref::home_chain_end(c.data(), 20, ref::side::far, 2), 5u);
  EXPECT_EQ(ref::home_chain_end(c.data(), 20, ref::side::far, 5), 1u);
  EXPECT_EQ(ref::home_chain_end(c.data(), 20, ref::side::near, 1), 2u);
}

TEST(AtomicsReference, ChainRingVisitsEveryEntryOnceAtItsStride) {
  for (std::uint32_t stride : {1u, 32u}) {
    const auto r = ref::chain_ring(stride);
    ASSERT_EQ(r.size(), 1024u * stride);
    std::vector<int> seen(1024, 0);
    std::uint32_t p = 0;
    for (int i = 0; i < 1024; ++i) {
      ASSERT_EQ(p % stride, 0u);
      ++seen[p / stride];
      p = r[p];  // what the kernel's atomicAdd(ring + p, 0) returns
    }
    EXPECT_EQ(p, 0u) << "one lap returns to the start";
    for (int s : seen) EXPECT_EQ(s, 1);
    for (std::size_t w = 0; w < r.size(); ++w)
      if (w % stride) EXPECT_EQ(r[w], 0u);
  }
  // The entry where the kernel's p / stride stands: the same for every stride.
  const auto r = ref::chain_ring(32);
  std::uint32_t p = 0;
  for (int i = 0; i < 1024 + 7; ++i) p = r[p];
  EXPECT_EQ(p / 32, ref::chain_end(7));
}
