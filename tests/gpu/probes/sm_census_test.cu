// sm_census.cuh: the SM ids a full grid reaches, and sm_id.cuh's aim at one of them.

#include "gpu/gpu_test.hpp"

#include "memscope/core/device_buffer.hpp"
#include "probes/sm_census.cuh"
#include "memscope/core/sm_id.cuh"

#include <vector>

using namespace memscope;

namespace {

__global__ void where_kernel(unsigned long long* ran, sm_target on) {
  if (!claim_sm(on)) return;
  if (threadIdx.x == 0) atomicAdd(ran, 1ull);
}

}  // namespace

TEST(SmCensusGpu, EverySmOfTheGpuIsCountedOnce) {
  MEMSCOPE_REQUIRE_GPU();
  int sms = 0;
  MEMSCOPE_CUDA_CALL(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const auto ids = sm_census(nullptr);
  EXPECT_EQ(ids.size(), static_cast<std::size_t>(sms)) << "an idle GPU: a full grid reaches every SM";
  for (std::size_t i = 1; i < ids.size(); ++i) EXPECT_LT(ids[i - 1], ids[i]);
  EXPECT_EQ(sm_census(nullptr), ids) << "the cached answer";
}

// One block runs on the SM it was aimed at, whichever SM that is; aimed at an id no SM has,
// none runs and the claim says so; aimed nowhere, the one block runs.
TEST(SmCensusGpu, ABlockAimedAtAnSmRunsThereOnly) {
  MEMSCOPE_REQUIRE_GPU();
  const auto ids = sm_census(nullptr);
  ASSERT_FALSE(ids.empty());
  device_buffer<unsigned long long> words(2);  // {blocks that ran, claim}
  auto run = [&](unsigned id) {
    words.poison();
    MEMSCOPE_CUDA_CALL(cudaMemset(words.data(), 0, words.bytes()));
    const sm_target on{id, words.data() + 1};
    where_kernel<<<target_grid(on, where_kernel, 256, 0), 256>>>(words.data(), on);
    MEMSCOPE_CHECK_LAUNCH("where_kernel");
    MEMSCOPE_CUDA_CALL(cudaDeviceSynchronize());
    return words.to_host();
  };
  for (unsigned id : {ids.front(), ids[ids.size() / 2], ids.back()}) {
    const auto h = run(id);
    EXPECT_EQ(h[0], 1u) << "SM " << id;
    EXPECT_EQ(h[1], id + 1ull) << "SM " << id;
  }
  const auto none = run(ids.back() + 4096);
  EXPECT_EQ(none[0], 0u);
  EXPECT_EQ(none[1], 0u);
  const auto any = run(any_sm);
  EXPECT_EQ(any[0], 1u);
  EXPECT_EQ(any[1], 0u) << "no claim without an aim";
}

// aim_each: an SM whose launches keep missing is tried sm_target_tries times, then left out;
// one reached stops there. Host logic only.
TEST(SmCensusGpu, AimEachTriesAnSmAFixedNumberOfTimes) {
  std::vector<int> tries(3, 0);
  const std::vector<unsigned> sms{4, 9, 17};
  const auto reached = aim_each(sms, [&](std::size_t r, unsigned sm) {
    EXPECT_EQ(sm, sms[r]);
    ++tries[r];
    return r == 0 || (r == 2 && tries[r] == 2);  // SM 4 at once, SM 9 never, SM 17 at the second launch
  });
  EXPECT_EQ(reached, 2u);
  EXPECT_EQ(tries, (std::vector<int>{1, sm_target_tries, 2}));
  EXPECT_NE(no_sm_reached(16).find("16 SMs"), std::string::npos);
}
