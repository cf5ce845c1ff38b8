// Tests of include/memscope/core/device_buffer on the GPU.

#include "gpu/gpu_test.hpp"

#include "memscope/core/cuda_check.hpp"
#include "memscope/core/device_buffer.hpp"
#include "memscope/core/fill.cuh"
#include "memscope/core/random.hpp"
#include "probes/sm_clock.cuh"
#include "memscope/core/verify.hpp"

using namespace memscope;

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

TEST(CoreGpu, EventsMeasureAKnownDuration) {
  MEMSCOPE_REQUIRE_GPU();
  // A kernel that spins for 2 ms of %globaltimer: the events around it must say about 2 ms.
  cuda_stream s;
  cuda_event a, b;
  device_buffer<unsigned long long> out(2);
  sm_clock_kernel<><<<1, 1, 0, s.get()>>>(100000ull, out.data());  // warm-up: module load
  MEMSCOPE_CHECK_LAUNCH("sm_clock_kernel");
  s.synchronize();
  a.record(s.get());
  sm_clock_kernel<><<<1, 1, 0, s.get()>>>(2000000ull, out.data());
  MEMSCOPE_CHECK_LAUNCH("sm_clock_kernel");
  b.record(s.get());
  b.synchronize();
  const double t = b.seconds_since(a);
  EXPECT_GE(t, 1.98e-3);
  EXPECT_LT(t, 20e-3);
  EXPECT_GE(out.to_host()[1], 2000000ull);
}
