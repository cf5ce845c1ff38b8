// remote_access.cuh: the chase kernel, from every cluster at once, ends every chase (each
// cluster's own start, each peer) where the host's walk of the ring ends; blocks padded to one
// per SM land on distinct SMs.

#include "gpu/gpu_test.hpp"

#include "memscope/cache/chase_ring.hpp"
#include "memscope/core/device_buffer.hpp"
#include "memscope/core/placement.hpp"
#include "memscope/dsmem/remote_access.cuh"

#include <algorithm>
#include <vector>

namespace ds = memscope::dsmem;
using memscope::device_buffer;

namespace {

template <ds::path P>
void check_chases(int cluster, std::size_t bytes, bool sole, unsigned iters) {
  const auto dev = memscope::query_device_info(0);
  const auto kernel = ds::chase_kernel<P>;
  const std::size_t smem =
      sole ? memscope::sole_block_smem(bytes, dev.shared_per_sm, dev.reserved_shared_per_block) : bytes;
  int clusters = memscope::max_active_clusters(kernel, ds::policy::chase_threads, cluster, smem);
  ASSERT_GT(clusters, 0) << "cluster " << cluster << ", " << smem << " bytes";
  const std::size_t slots = bytes / 32;
  if (P == ds::path::l2) clusters = std::min(clusters, static_cast<int>(slots));
  const auto ring = memscope::chase_ring(slots, 8, memscope::testing::fresh_seed());
  const auto starts = memscope::chase_starts(ring, slots, static_cast<std::size_t>(clusters));
  const std::size_t targets = P == ds::path::dsmem_peer ? static_cast<std::size_t>(cluster - 1) : 1;
  const std::size_t chases = static_cast<std::size_t>(clusters) * targets;
  const unsigned blocks = static_cast<unsigned>(clusters * cluster);
  device_buffer<std::uint32_t> d_ring(ring.size()), d_starts(starts.size()), last(chases);
  device_buffer<unsigned long long> cycles(chases);
  device_buffer<unsigned> sms(blocks);
  d_ring.from_host(ring);
  d_starts.from_host(starts);
  last.poison();
  sms.poison();
  memscope::launch_cluster(kernel, dim3(blocks), dim3(ds::policy::chase_threads), cluster, smem, nullptr, d_ring.data(),
                           static_cast<int>(bytes / 4), iters, d_starts.data(), cycles.data(), last.data(), sms.data());
  MEMSCOPE_CUDA_CALL(cudaDeviceSynchronize());
  const auto got = last.to_host();
  std::size_t bad = 0;
  for (std::size_t i = 0; i < chases; ++i) bad += got[i] != memscope::chase_position(ring, starts[i / targets], iters);
  EXPECT_EQ(bad, 0u) << "of " << chases << " chases; cluster " << cluster << ", " << bytes << " bytes, " << iters
                     << " loads";
  const auto on = sms.to_host();
  EXPECT_EQ(std::count(on.begin(), on.end(), ~0u), 0) << "every block wrote its SM";
  if (sole)
    EXPECT_EQ(memscope::distinct_sms(on), std::size_t{blocks}) << "each block alone on its SM; cluster " << cluster;
}

}  // namespace

TEST(DsmemChaseGpu, EveryClusterEndsWhereTheHostSays) {
  MEMSCOPE_REQUIRE_GPU();
  if (!memscope::testing::has_clusters())
    GTEST_SKIP() << "no usable thread-block clusters (the GPU has none, or this build's code is older than sm_90)";
  for (unsigned iters : {1u, 257u}) {
    for (int cluster : {2, 4, 8})
      for (bool sole : {true, false}) check_chases<ds::path::dsmem_peer>(cluster, 1024, sole, iters);
    check_chases<ds::path::dsmem_peer>(2, 128 * 1024, true, iters);
    check_chases<ds::path::shared>(1, 16384, true, iters);
    check_chases<ds::path::dsmem_self>(1, 1024, false, iters);
    check_chases<ds::path::l2>(1, 1024, true, iters);  // 32 slots: fewer chasers than SMs
    check_chases<ds::path::l2>(1, 16384, true, iters);
  }
}
