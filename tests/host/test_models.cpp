#include "memscope/cache/bandwidth_reference.hpp"
#include "memscope/cache/chase_ring.hpp"
#include "memscope/core/placement.hpp"
#include "memscope/global/coalescing_model.hpp"
#include "memscope/shared/bank_model.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

using namespace memscope;

TEST(CoalescingModel, AlignedUnitStrideIsPerfect) {
  for (std::size_t eb : {4, 8, 16}) EXPECT_DOUBLE_EQ(coalescing::sector_efficiency(eb, 0, 1), 1.0) << eb;
}

TEST(CoalescingModel, OffsetCostsOneExtraSectorPerWarp) {
  // 4-byte elements: a warp wants 128 B = 4 sectors; misaligned, it touches 5.
  EXPECT_DOUBLE_EQ(coalescing::sector_efficiency(4, 1, 1), 4.0 / 5.0);
  EXPECT_DOUBLE_EQ(coalescing::sector_efficiency(4, 8, 1), 1.0);  // 32-byte aligned again
}

TEST(CoalescingModel, StrideSpreadsOverSectors) {
  EXPECT_DOUBLE_EQ(coalescing::sector_efficiency(4, 0, 2), 0.5);
  EXPECT_DOUBLE_EQ(coalescing::sector_efficiency(4, 0, 8), 1.0 / 8.0);
  EXPECT_DOUBLE_EQ(coalescing::sector_efficiency(4, 0, 32), 1.0 / 8.0);  // one sector per lane at worst
  EXPECT_DOUBLE_EQ(coalescing::sector_efficiency(16, 0, 2), 0.5);
  EXPECT_DOUBLE_EQ(coalescing::sector_efficiency(16, 0, 4), 0.5);  // 16 of each 32-byte sector used
}

TEST(BankModel, StridedFourByteWords) {
  EXPECT_EQ(banks::predicted_wavefronts_strided(1, 4), 1);
  EXPECT_EQ(banks::predicted_wavefronts_strided(2, 4), 2);
  EXPECT_EQ(banks::predicted_wavefronts_strided(3, 4), 1);  // odd strides are conflict-free
  EXPECT_EQ(banks::predicted_wavefronts_strided(32, 4), 32);
  EXPECT_EQ(banks::predicted_wavefronts_strided(33, 4), 1);
  EXPECT_EQ(banks::predicted_wavefronts_strided(64, 4), 32);
}

TEST(BankModel, WideWordsHaveAFloorOfPhases) {
  EXPECT_EQ(banks::predicted_wavefronts_strided(1, 8), 2);
  EXPECT_EQ(banks::predicted_wavefronts_strided(1, 16), 4);
  EXPECT_EQ(banks::predicted_wavefronts_strided(2, 8), 4);
  EXPECT_EQ(banks::predicted_wavefronts_strided(2, 16), 8);
}

TEST(BankModel, BroadcastIsFree) {
  std::vector<std::uint64_t> same(32, 5);
  EXPECT_EQ(banks::predicted_wavefronts(same, 4), 1);
}

TEST(BankModel, PaddingAndSwizzleFixColumnAccess) {
  for (unsigned col : {0u, 7u, 31u}) {
    EXPECT_EQ(banks::predicted_wavefronts_column(banks::tile_layout::naive, col), 32);
    EXPECT_EQ(banks::predicted_wavefronts_column(banks::tile_layout::padded, col), 1);
    EXPECT_EQ(banks::predicted_wavefronts_column(banks::tile_layout::swizzled, col), 1);
  }
}

TEST(ChaseRing, OneCycleThroughEverySlot) {
  for (std::size_t slots : {std::size_t{1}, std::size_t{2}, std::size_t{7}, std::size_t{512}}) {
    const auto ring = memscope::chase_ring(slots, 8, 0x1234 + slots);
    ASSERT_EQ(ring.size(), slots * 8);
    std::vector<bool> seen(slots, false);
    std::uint32_t at = 0;
    for (std::size_t step = 0; step < slots; ++step) {
      ASSERT_EQ(at % 8, 0u);
      ASSERT_FALSE(seen[at / 8]) << "slot revisited before the cycle closed";
      seen[at / 8] = true;
      at = ring[at];
    }
    EXPECT_EQ(at, 0u) << "the chase returns to its start after exactly `slots` loads";
    EXPECT_EQ(memscope::chase_position(ring, 0, slots), 0u);
  }
}

// Concurrent chases of one ring start evenly spaced along its cycle: distinct words while there
// are no more chasers than slots, and chaser c stands c * slots / chasers loads from the start.
TEST(ChaseRing, StartsAreSpacedEvenlyAlongTheCycle) {
  for (std::size_t slots : {std::size_t{1}, std::size_t{7}, std::size_t{32}, std::size_t{4096}})
    for (std::size_t chasers : {std::size_t{0}, std::size_t{1}, std::size_t{5}, std::size_t{66}, std::size_t{132}}) {
      const auto ring = memscope::chase_ring(slots, 8, 0x51 + slots);
      const auto starts = memscope::chase_starts(ring, slots, chasers);
      ASSERT_EQ(starts.size(), chasers);
      for (std::size_t c = 0; c < chasers; ++c)
        EXPECT_EQ(starts[c], memscope::chase_position(ring, 0, c * slots / chasers)) << slots << " slots, chaser " << c;
      if (chasers <= slots) {
        auto sorted = starts;
        std::sort(sorted.begin(), sorted.end());
        EXPECT_EQ(std::adjacent_find(sorted.begin(), sorted.end()), sorted.end())
            << slots << " slots, " << chasers << " chasers";
      }
    }
  EXPECT_EQ(memscope::chase_starts({}, 0, 3), std::vector<std::uint32_t>(3, 0u));
}

// The padding that keeps a second block off an SM: two blocks with it exceed the SM, and a
// block never gets less than it needs. H100/H200: 228 KiB per SM, 1 KiB reserved per block.
TEST(Placement, SoleBlockSmemLeavesNoRoomForASecondBlock) {
  constexpr std::size_t per_sm = 233472, reserved = 1024;
  for (std::size_t static_bytes : {std::size_t{0}, std::size_t{4096}}) {
    const std::size_t pad = memscope::sole_block_smem(0, per_sm, reserved, static_bytes);
    EXPECT_GT(2 * (pad + reserved + static_bytes), per_sm);
    EXPECT_LE(pad + reserved + static_bytes, per_sm / 2 + 1) << "no more than it takes";
    EXPECT_TRUE(memscope::keeps_sm_alone(pad, per_sm, reserved, static_bytes));
    EXPECT_FALSE(memscope::keeps_sm_alone(pad - 1, per_sm, reserved, static_bytes));
  }
  EXPECT_EQ(memscope::sole_block_smem(128 * 1024, per_sm, reserved), std::size_t{128 * 1024});
  EXPECT_EQ(memscope::sole_block_smem(1024, 0, reserved), std::size_t{1024})
      << "an unknown SM size: what the block needs";
  EXPECT_FALSE(memscope::keeps_sm_alone(1024, 0, reserved)) << "an unknown SM size promises nothing";
  EXPECT_EQ(memscope::sole_block_smem(16, 100, 80), std::size_t{16}) << "a reservation past half the SM: no padding";
  EXPECT_EQ(memscope::distinct_sms({3, 1, 3, 2, 1}), std::size_t{3});
  EXPECT_EQ(memscope::distinct_sms({}), std::size_t{0});
}

// The SMs a latency point is chased from: spread over the ids from first to last, distinct,
// ascending, and all of them where there are no more than asked for.
TEST(Placement, SpreadPickCoversTheSmIdsEvenly) {
  std::vector<unsigned> ids(132);
  for (unsigned i = 0; i < ids.size(); ++i) ids[i] = i;
  const auto pick = memscope::spread_pick(ids, 16);
  ASSERT_EQ(pick.size(), 16u);
  EXPECT_EQ(pick.front(), 0u);
  EXPECT_EQ(pick.back(), 131u);
  for (std::size_t i = 1; i < pick.size(); ++i) {
    EXPECT_GT(pick[i], pick[i - 1]);
    EXPECT_LE(pick[i] - pick[i - 1], 9u) << "no part of the GPU skipped";
  }
  const std::vector<unsigned> holes = {0, 2, 4, 100, 140};  // ids need not be contiguous
  EXPECT_EQ(memscope::spread_pick(holes, 2), (std::vector<unsigned>{0, 140}));
  EXPECT_EQ(memscope::spread_pick(holes, 5), holes);
  EXPECT_EQ(memscope::spread_pick(holes, 16), holes) << "a small GPU: every SM";
  EXPECT_EQ(memscope::spread_pick(holes, 1), (std::vector<unsigned>{0}));
  EXPECT_TRUE(memscope::spread_pick({}, 16).empty());
}

TEST(CacheBandwidthReference, SlicesCoverTheBufferOnceAndSumItsWords) {
  for (std::size_t vecs : {std::size_t{0}, std::size_t{1}, std::size_t{131}, std::size_t{132}, std::size_t{100003}}) {
    std::size_t covered = 0, expect_begin = 0;
    for (unsigned k = 0; k < 132; ++k) {
      std::size_t begin = 0, end = 0;
      memscope::cache::slice_bounds(vecs, 132, k, begin, end);
      EXPECT_EQ(begin, expect_begin) << "vecs=" << vecs << " slice " << k;
      covered += end - begin;
      expect_begin = end;
    }
    EXPECT_EQ(covered, vecs);
    std::uint32_t total = 0, want = 0;
    for (auto s : memscope::cache::slice_sums(vecs, 132, 7)) total += s;
    for (std::size_t w = 0; w < 4 * vecs; ++w) want += memscope::cache::buffer_word(7, w);
    EXPECT_EQ(total, want) << "vecs=" << vecs;
  }
}
