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

TEST(CoreGpu, CudaCallThrowsWithLocationCallAndReason) {
  MEMSCOPE_REQUIRE_GPU();
  try {
    MEMSCOPE_CUDA_CALL(cudaSetDevice(12345));
    FAIL() << "no exception";
  } catch (const cuda_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("test_core_gpu.cu:"), std::string::npos) << what;
    EXPECT_NE(what.find("cudaSetDevice(12345)"), std::string::npos) << what;
    EXPECT_NE(what.find("cudaErrorInvalidDevice"), std::string::npos) << what;
    EXPECT_EQ(e.code(), cudaErrorInvalidDevice);
  }
  // The error was cleared: the next call succeeds.
  EXPECT_NO_THROW(MEMSCOPE_CUDA_CALL(cudaSetDevice(0)));
}

TEST(CoreGpu, OversizedAllocationNamesTheSize) {
  MEMSCOPE_REQUIRE_GPU();
  try {
    device_buffer<char> huge(std::size_t{1} << 50);
    FAIL() << "allocated a petabyte";
  } catch (const cuda_error& e) {
    EXPECT_NE(std::string(e.what()).find("1125899906842624 bytes"), std::string::npos) << e.what();
  }
}

TEST(CoreGpu, BufferRoundTripPoisonAndMove) {
  MEMSCOPE_REQUIRE_GPU();
  device_buffer<int> a(1000);
  std::vector<int> h(1000);
  for (int i = 0; i < 1000; ++i) h[i] = i * 7 - 3;
  a.from_host(h);
  EXPECT_EQ(a.to_host(), h);
  device_buffer<int> b = std::move(a);
  EXPECT_EQ(a.data(), nullptr);
  EXPECT_EQ(b.to_host(), h);
  b.poison();
  for (int v : b.to_host()) ASSERT_EQ(v, -1);
  device_buffer<int> empty(0);
  EXPECT_TRUE(empty.to_host().empty());
}

TEST(CoreGpu, FillMatchesHostBitForBit) {
  MEMSCOPE_REQUIRE_GPU();
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{257}, std::size_t{1000003}}) {
    device_buffer<float> d(n);
    d.poison();
    fill_hash(d.data(), n, 77, fill_kind::uniform);
    const auto h = d.to_host();
    EXPECT_TRUE(compare_exact(h.data(), n, [](std::size_t i) { return hash_uniform(77, i); }).passed) << n;
    fill_hash(d.data(), n, 78, fill_kind::small_int);
    const auto k = d.to_host();
    EXPECT_TRUE(compare_exact(k.data(), n, [](std::size_t i) { return hash_small_int(78, i); }).passed) << n;
  }
}

TEST(CoreGpu, EventsMeasurePositiveTime) {
  MEMSCOPE_REQUIRE_GPU();
  cuda_stream s;
  cuda_event a, b;
  device_buffer<float> d(1 << 24);
  a.record(s.get());
  fill_hash(d.data(), d.size(), 1, fill_kind::uniform, s.get());
  b.record(s.get());
  b.synchronize();
  EXPECT_GT(b.seconds_since(a), 0.0);
}
