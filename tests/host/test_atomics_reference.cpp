// The atomics reference against counts worked out by hand: the suite and the GPU test both
// check kernels against it, so it must be right on its own.
#include "memscope/atomic/atomics_reference.hpp"

#include <gtest/gtest.h>

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
