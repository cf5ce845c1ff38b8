// local_array.cuh: every storage and size, the spill kernels and the local chase against the CPU
// reference, outputs poisoned first.

#include "gpu/gpu_test.hpp"

#include "memscope/core/device_buffer.hpp"
#include "probes/sm_census.cuh"
#include "memscope/registers/local_array.cuh"

namespace rg = memscope::registers;
using memscope::device_buffer;
using memscope::sm_target;

namespace {

template <int N, rg::storage S>
void check_array(unsigned blocks, int iters) {
  const std::size_t threads = std::size_t{blocks} * rg::policy::block_threads;
  const std::size_t smem = S == rg::storage::shared ? std::size_t{N} * rg::policy::block_threads * 4 : 0;
  memscope::prepare_dynamic_smem(rg::array_update_kernel<N, S>, smem);
  device_buffer<std::uint32_t> out(threads);
  out.poison();
  const auto seed = memscope::testing::fresh_seed();
  rg::array_update_kernel<N, S><<<blocks, rg::policy::block_threads, smem>>>(out.data(), seed, iters, 0);
  MEMSCOPE_CHECK_LAUNCH("array_update_kernel");
  const auto got = out.to_host();
  for (std::size_t t = 0; t < threads; ++t)
    ASSERT_EQ(got[t], rg::reference::array_result<N>(seed, t, iters))
        << "N=" << N << " storage=" << static_cast<int>(S) << " t=" << t;
}

template <int N>
void check_all_storages() {
  check_array<N, rg::storage::registers>(2, 7);
  check_array<N, rg::storage::local>(3, 1);
  check_array<N, rg::storage::shared>(1, 0);  // zero rounds: the initial words, folded
}

}  // namespace

TEST(RegistersGpu, EveryStorageAndSizeMatchesTheReference) {
  MEMSCOPE_REQUIRE_GPU();
  check_all_storages<4>();
  check_all_storages<16>();
  check_all_storages<64>();
  check_all_storages<256>();
}

TEST(RegistersGpu, SpilledBuildsComputeTheSameAndReportTheirLocalMemory) {
  MEMSCOPE_REQUIRE_GPU();
  const auto seed = memscope::testing::fresh_seed();
  device_buffer<std::uint32_t> out(2 * rg::policy::spill_threads);
  for (int pass = 0; pass < 2; ++pass) {
    out.poison();
    if (pass == 0) rg::spill_update_kernel<1><<<2, rg::policy::spill_threads>>>(out.data(), seed, 9);
    else rg::spill_update_kernel<8><<<2, rg::policy::spill_threads>>>(out.data(), seed, 9);
    MEMSCOPE_CHECK_LAUNCH("spill_update_kernel");
    const auto got = out.to_host();
    for (std::size_t t = 0; t < got.size(); ++t)
      ASSERT_EQ(got[t], rg::reference::array_result<rg::policy::spill_words>(seed, t, 9))
          << "pass " << pass << " t=" << t;
  }
  const auto capped = rg::resources_of(rg::spill_update_kernel<8>, rg::policy::spill_threads, 0);
  EXPECT_LE(capped.registers, 32);
  EXPECT_GT(capped.local_bytes, 0u);  // 64 words cannot live in 32 registers
  EXPECT_GE(capped.blocks_per_sm, 8);
}

TEST(RegistersGpu, LocalChaseEndsWhereTheHostSays) {
  MEMSCOPE_REQUIRE_GPU();
  device_buffer<unsigned long long> cycles(rg::policy::chase_threads);
  device_buffer<std::uint32_t> last(rg::policy::chase_threads);
  for (int steps : {1, 33, 1000}) {
    last.poison();
    rg::local_chase_kernel<1024><<<1, rg::policy::chase_threads>>>(steps, 0, cycles.data(), last.data(), sm_target{});
    MEMSCOPE_CHECK_LAUNCH("local_chase_kernel");
    for (auto p : last.to_host()) ASSERT_EQ(p, rg::reference::chase_end(1024, steps)) << steps;
  }
}

// Aimed at an SM, one warp chases there (the claim names it) and ends where the host says; the
// rest of the grid's blocks exit without writing.
TEST(RegistersGpu, LocalChaseAimedAtAnSmRunsThere) {
  MEMSCOPE_REQUIRE_GPU();
  const auto ids = memscope::sm_census(nullptr);
  ASSERT_FALSE(ids.empty());
  auto kernel = rg::local_chase_kernel<256>;
  device_buffer<unsigned long long> cycles(rg::policy::chase_threads);
  device_buffer<std::uint32_t> last(rg::policy::chase_threads);
  device_buffer<unsigned long long> claim(1);
  const int steps = 257;
  for (unsigned id : {ids.front(), ids.back()}) {
    last.poison();
    claim.poison();
    MEMSCOPE_CUDA_CALL(cudaMemset(claim.data(), 0, claim.bytes()));
    const sm_target on{id, claim.data()};
    kernel<<<memscope::target_grid(on, kernel, rg::policy::chase_threads, 0), rg::policy::chase_threads>>>(
        steps, 0, cycles.data(), last.data(), on);
    MEMSCOPE_CHECK_LAUNCH("local_chase_kernel");
    ASSERT_EQ(claim.to_host()[0], id + 1ull) << "SM " << id;
    for (auto p : last.to_host()) ASSERT_EQ(p, rg::reference::chase_end(256, steps)) << "SM " << id;
  }
}
