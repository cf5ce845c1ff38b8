// transpose_cluster.cuh: the DSMEM transpose against the definition.

#include "gpu/gpu_test.hpp"

#include "memscope/core/device_buffer.hpp"
#include "memscope/core/random.hpp"
#include "memscope/dsmem/transpose_cluster.cuh"

#include <cmath>
#include <string>
#include <vector>

using memscope::device_buffer;

TEST(DsmemTransposeGpu, MatchesTheDefinition) {
  MEMSCOPE_REQUIRE_GPU();
  if (!memscope::testing::has_clusters())
    GTEST_SKIP() << "no usable thread-block clusters (the GPU has none, or this build's code is older than sm_90)";
  const std::uint64_t seed = memscope::testing::fresh_seed();
  for (int cluster : {1, 2, 4, 8})
    for (auto [rows, cols] : {std::pair{1, 1}, std::pair{33, 31}, std::pair{257, 1023}, std::pair{1000, 64}}) {
      const std::size_t n = static_cast<std::size_t>(rows) * cols;
      std::vector<float> h(n);
      for (std::size_t i = 0; i < n; ++i) h[i] = memscope::hash_uniform(seed, i);
      device_buffer<float> in(n), out(n);
      in.from_host(h);
      out.poison();
      memscope::dsmem::transpose_cluster(in.data(), out.data(), rows, cols, cluster, nullptr);
      MEMSCOPE_CUDA_CALL(cudaDeviceSynchronize());
      const auto got = out.to_host();
      std::size_t bad = 0;
      for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c)
          bad += got[static_cast<std::size_t>(c) * rows + r] != h[static_cast<std::size_t>(r) * cols + c];
      EXPECT_EQ(bad, 0u) << "cluster " << cluster << " shape " << rows << "x" << cols;
    }
}
