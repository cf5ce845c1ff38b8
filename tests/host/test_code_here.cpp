// What `memscope info` says about the code that runs on a GPU: machine code for it, machine code
// for an earlier revision of its major architecture, JIT-compiled PTX, or none.

#include "core/code_here.hpp"

#include <gtest/gtest.h>

using namespace memscope;

TEST(CodeHere, NamesTheMachineCodeAndWhereItCameFrom) {
  EXPECT_EQ(describe_code_here({90, 90}, 90), "sm_90");
  // An 80-virtual build on an H200: the driver compiled the PTX for sm_90.
  EXPECT_EQ(describe_code_here({80, 90}, 90), "sm_90 (JIT-compiled from compute_80 PTX)");
  // The fat build on a GB300 (sm_103) runs its sm_100 machine code: no JIT.
  EXPECT_EQ(describe_code_here({100, 100}, 103),
            "sm_100 (machine code for an earlier revision; runs unchanged on sm_103)");
  EXPECT_EQ(describe_code_here({0, 0}, 90), "none: rebuild for this GPU");
}
