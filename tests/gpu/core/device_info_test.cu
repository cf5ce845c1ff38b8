// Tests of include/memscope/core/device_info on the GPU.

#include "gpu/gpu_test.hpp"

#include "memscope/core/cuda_check.hpp"
#include "memscope/core/device_buffer.hpp"
#include "memscope/core/fill.cuh"
#include "memscope/core/random.hpp"
#include "memscope/core/verify.hpp"

using namespace memscope;

TEST(CoreGpu, DeviceDescriptionIsComplete) {
  MEMSCOPE_REQUIRE_GPU();
  const device_info d = query_device_info(0);
  EXPECT_FALSE(d.name.empty());
  EXPECT_GT(d.cc_major, 0);
  EXPECT_GT(d.sm_count, 0);
  EXPECT_GT(d.sm_clock_khz, 0);
  EXPECT_GT(d.memory_clock_khz, 0);
  EXPECT_GT(d.memory_bus_width_bits, 0);
  EXPECT_GT(d.theoretical_dram_gbps, 0);
  EXPECT_EQ(d.total_const_mem, 64u * 1024u);
  EXPECT_GT(d.l2_bytes, 0);
  EXPECT_GE(d.shared_per_block_optin, d.shared_per_block);
  EXPECT_GE(d.shared_per_sm, d.shared_per_block_optin);
  EXPECT_GT(d.driver_version, 0);
  EXPECT_GT(d.runtime_version, 0);
  if (d.cc_major >= 9) {
    EXPECT_TRUE(d.cluster_launch);
    EXPECT_GE(d.max_cluster_size_portable, 8);
    EXPECT_GE(d.max_cluster_size_nonportable, d.max_cluster_size_portable);
  }
}
