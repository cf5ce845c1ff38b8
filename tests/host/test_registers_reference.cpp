// The register suite's reference: the chase ring visits every word; the update is a bijection
// of each word given its neighbour, so a wrong index changes the result.
#include "memscope/registers/registers_reference.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace ref = memscope::registers::reference;

TEST(RegistersReference, ChaseRingVisitsEveryWordOnce) {
  for (int w : {256, 1024, 4096}) {
    std::vector<int> seen(static_cast<std::size_t>(w), 0);
    std::uint32_t p = 0;
    for (int i = 0; i < w; ++i) {
      ++seen[p];
      p = ref::chase_next(p, w);
    }
    EXPECT_EQ(p, 0u) << w;
    for (int s : seen) ASSERT_EQ(s, 1) << w;
  }
}

TEST(RegistersReference, ResultsDependOnEveryWordAndRound) {
  EXPECT_NE(ref::array_result<16>(1, 0, 3), ref::array_result<16>(1, 1, 3));  // another thread
  EXPECT_NE(ref::array_result<16>(1, 0, 3), ref::array_result<16>(1, 0, 4));  // another round
  EXPECT_NE(ref::array_result<16>(1, 0, 3), ref::array_result<16>(2, 0, 3));  // another seed
  EXPECT_EQ(ref::array_result<16>(5, 7, 3), ref::array_result<16>(5, 7, 3));
}
