// A unit of its own: broadcast.cuh's table fills the whole 64 KB constant bank.
#include "gpu/gpu_test.hpp"

#include "memscope/constant/broadcast.cuh"
#include "memscope/core/device_buffer.hpp"
#include "probes/sm_census.cuh"

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

// Warmed and aimed at an SM, the chase runs there and still ends where the host says (the
// untimed lap does not move its start).
TEST(BroadcastGpu, AWarmChaseAimedAtAnSmRunsThere) {
  MEMSCOPE_REQUIRE_GPU();
  const auto ids = sm_census(nullptr);
  ASSERT_FALSE(ids.empty());
  device_buffer<unsigned long long> words(2);  // {cycles, claim}
  device_buffer<int> last(1);
  const int want = broadcast::upload_chase(4096, fresh_seed(), 501);
  for (unsigned id : {ids.front(), ids.back()}) {
    words.poison();
    last.poison();
    MEMSCOPE_CUDA_CALL(cudaMemset(words.data() + 1, 0, sizeof(unsigned long long)));
    broadcast::constant_chase(501, words.data(), last.data(), nullptr, true, sm_target{id, words.data() + 1});
    MEMSCOPE_CUDA_CALL(cudaDeviceSynchronize());
    EXPECT_EQ(last.to_host()[0], want) << "SM " << id;
    EXPECT_EQ(words.to_host()[1], id + 1ull) << "SM " << id;
    EXPECT_GT(words.to_host()[0], 501u);
  }
}

TEST(BroadcastGpu, WarpLoadsVisitLaneModKInEverySpace) {
  MEMSCOPE_REQUIRE_GPU();
  device_buffer<int> g(broadcast::policy::table_words);
  broadcast::upload_index_table(g.data());
  device_buffer<unsigned long long> cycles(2);
  device_buffer<int> sink(64);
  const unsigned iters = broadcast::max_index_iters;
  auto check = [&](const char* space, unsigned k, auto&& run) {
    sink.poison();
    run();
    MEMSCOPE_CUDA_CALL(cudaDeviceSynchronize());
    const auto got = sink.to_host();
    for (std::size_t t = 0; t < got.size(); ++t)
      ASSERT_EQ(got[t], broadcast::expected_warp_load_sum(static_cast<unsigned>(t % 32), k, iters))
          << space << " k=" << k << " thread " << t;
  };
  for (unsigned k : {1u, 2u, 7u, 31u, 32u}) {
    check("constant", k, [&] {
      broadcast::warp_loads<broadcast::space::constant>(g.data(), k, iters, 2, cycles.data(), sink.data(), nullptr);
    });
    check("ldg", k, [&] {
      broadcast::warp_loads<broadcast::space::ldg>(g.data(), k, iters, 2, cycles.data(), sink.data(), nullptr);
    });
    check("shared", k, [&] {
      broadcast::warp_loads<broadcast::space::shared>(g.data(), k, iters, 2, cycles.data(), sink.data(), nullptr);
    });
    check("global", k, [&] {
      broadcast::warp_loads<broadcast::space::global>(g.data(), k, iters, 2, cycles.data(), sink.data(), nullptr);
    });
  }
  // The sums tell neighbouring k apart, so reading the wrong word could not pass.
  EXPECT_NE(broadcast::expected_warp_load_sum(9, 7, iters), broadcast::expected_warp_load_sum(9, 8, iters));
}
