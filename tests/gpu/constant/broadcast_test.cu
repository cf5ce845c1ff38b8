// A unit of its own: broadcast.cuh's table fills the whole 64 KB constant bank.
#include "gpu/gpu_test.hpp"

#include "memscope/constant/broadcast.cuh"
#include "memscope/core/device_buffer.hpp"

#include <random>

using namespace memscope;

namespace {
using memscope::testing::fresh_seed;
}  // namespace

TEST(BroadcastGpu, ChaseFollowsTheCycle) {
  MEMSCOPE_REQUIRE_GPU();
  device_buffer<unsigned long long> cycles(1);
  device_buffer<int> last(1);
  for (std::size_t ws : {std::size_t{1024}, std::size_t{65536}}) {
    const int want = broadcast::upload_chase(ws, fresh_seed(), 777);
    last.poison();
    broadcast::constant_chase(777, cycles.data(), last.data(), nullptr);
    EXPECT_EQ(last.to_host()[0], want) << ws;
    EXPECT_GT(cycles.to_host()[0], 777u);
  }
}


TEST(BroadcastGpu, WarpLoadsReadTheZerosFromEverySpace) {
  MEMSCOPE_REQUIRE_GPU();
  broadcast::upload_zeros();
  device_buffer<int> g(broadcast::policy::table_words);
  MEMSCOPE_CUDA_CALL(cudaMemset(g.data(), 0, g.bytes()));
  device_buffer<unsigned long long> cycles(2);
  device_buffer<int> sink(64);
  for (unsigned k : {1u, 7u, 32u}) {
    sink.poison();
    broadcast::warp_loads<broadcast::space::constant>(g.data(), k, 50, 2, cycles.data(), sink.data(), nullptr);
    broadcast::warp_loads<broadcast::space::shared>(g.data(), k, 50, 2, cycles.data(), sink.data(), nullptr);
    for (int v : sink.to_host()) ASSERT_EQ(v, 0) << k;
  }
}
