// Tests of include/memscope/core/device_info on the GPU.

#include "gpu/gpu_test.hpp"

#include "memscope/core/cuda_check.hpp"
#include "memscope/core/device_buffer.hpp"
#include "memscope/core/fill.cuh"
#include "memscope/core/random.hpp"
#include "probes/sm_clock.cuh"
#include "memscope/core/verify.hpp"

using namespace memscope;

TEST(CoreGpu, DeviceDescriptionMatchesTheDriver) {
  MEMSCOPE_REQUIRE_GPU();
  const device_info d = query_device_info(0);
  // Every field against what the runtime reports by another route.
  cudaDeviceProp p{};
  MEMSCOPE_CUDA_CALL(cudaGetDeviceProperties(&p, 0));
  EXPECT_EQ(d.name, std::string(p.name));
  EXPECT_EQ(d.cc_major, p.major);
  EXPECT_EQ(d.cc_minor, p.minor);
  EXPECT_EQ(d.sm_count, p.multiProcessorCount);
  EXPECT_EQ(d.l2_bytes, p.l2CacheSize);
  EXPECT_EQ(d.total_global_mem, p.totalGlobalMem);
  EXPECT_EQ(d.memory_bus_width_bits, p.memoryBusWidth);
  EXPECT_EQ(d.shared_per_block_optin, p.sharedMemPerBlockOptin);
  EXPECT_EQ(d.shared_per_sm, p.sharedMemPerMultiprocessor);
  EXPECT_EQ(d.total_const_mem, 64u * 1024u);
  EXPECT_NEAR(d.theoretical_dram_gbps, 2.0 * d.memory_clock_khz * 1e3 * (p.memoryBusWidth / 8.0) / 1e9, 1e-6);
  int driver = 0, runtime = 0;
  MEMSCOPE_CUDA_CALL(cudaDriverGetVersion(&driver));
  MEMSCOPE_CUDA_CALL(cudaRuntimeGetVersion(&runtime));
  EXPECT_EQ(d.driver_version, driver);
  EXPECT_EQ(d.runtime_version, runtime);
  // The peak SM clock is a ceiling the running clock (measured) does not pass by more than 5%.
  cuda_stream s;
  const double mhz = measure_sm_clock_mhz(s.get());
  EXPECT_GT(mhz, 0.0);
  EXPECT_LE(mhz, 1.05 * d.sm_clock_khz / 1000.0) << "measured " << mhz << " MHz";
  // Clusters count where the GPU has them and this binary's code can use them (a build for
  // sm_80 JIT-compiled on Hopper cannot).
  if (d.cc_major >= 9 && binary_arch() >= 90) {
    EXPECT_TRUE(d.cluster_launch);
    EXPECT_GE(d.max_cluster_size_portable, 8);
    EXPECT_GE(d.max_cluster_size_nonportable, d.max_cluster_size_portable);
  } else {
    EXPECT_FALSE(d.cluster_launch);
    EXPECT_EQ(d.max_cluster_size_portable, 0);
  }
  EXPECT_GT(binary_arch(), 0);  // this test runs, so the binary has code for this GPU
  // The machine code is the cubin's (an earlier or the same revision) or, JIT-compiled, the GPU's own.
  const auto code = binary_code();
  EXPECT_EQ(code.ptx, binary_arch());
  EXPECT_GE(code.binary, code.ptx);
  EXPECT_LE(code.binary, d.compute_capability());
  if (code.binary != code.ptx) EXPECT_EQ(code.binary, d.compute_capability());
}
