// l1_sweep.cuh: the sweep runs on the SM it is aimed at, and on no other.

#include "gpu/gpu_test.hpp"

#include "memscope/core/device_buffer.hpp"
#include "memscope/core/device_info.hpp"
#include "probes/l1_sweep.cuh"
#include "probes/sm_census.cuh"

using namespace memscope;

TEST(L1SweepGpu, SweepsTheAimedSmOnlyWithABufferPastItsL1) {
  MEMSCOPE_REQUIRE_GPU();
  int shared_per_sm = 0;
  MEMSCOPE_CUDA_CALL(cudaDeviceGetAttribute(&shared_per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, 0));
  l1_sweep sweep(static_cast<std::size_t>(shared_per_sm));
  EXPECT_GE(sweep.bytes(), 4 * (static_cast<std::size_t>(shared_per_sm) + 32 * 1024));
  const auto ids = sm_census(nullptr);
  ASSERT_FALSE(ids.empty());
  device_buffer<unsigned long long> claim(1);
  const auto aim = [&](unsigned id) {
    claim.poison();
    MEMSCOPE_CUDA_CALL(cudaMemset(claim.data(), 0, claim.bytes()));
    sweep.run(sm_target{id, claim.data()}, nullptr);
    MEMSCOPE_CUDA_CALL(cudaDeviceSynchronize());
    return claim.to_host()[0];
  };
  for (unsigned id : {ids.front(), ids[ids.size() / 2], ids.back()}) EXPECT_EQ(aim(id), id + 1ull) << "SM " << id;
  EXPECT_EQ(aim(ids.back() + 4096), 0u) << "no SM has that id: nothing ran";
}
