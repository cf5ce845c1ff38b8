// cache_control.cuh and cache_config.cuh: the guards put the device defaults back.

#include "gpu/gpu_test.hpp"

#include "memscope/cache/cache_config.cuh"
#include "memscope/cache/cache_control.cuh"
#include "memscope/cache/pointer_chase.cuh"
#include "memscope/core/device_buffer.hpp"
#include "memscope/core/random.hpp"
#include "memscope/texture/texture_object.cuh"

#include <vector>

namespace lt = memscope::latency;
namespace tx = memscope::texture;
using memscope::device_buffer;

TEST(CacheGpu, GuardsPutTheDefaultsBack) {
  MEMSCOPE_REQUIRE_GPU();
  const auto kernel = memscope::cache::tiled_matmul_kernel<>;
  {
    memscope::cache::split_guard<decltype(kernel)> g(kernel, memscope::cache::parse_split("carveout_100"));
    cudaFuncAttributes a{};
    MEMSCOPE_CUDA_CALL(cudaFuncGetAttributes(&a, kernel));
    EXPECT_EQ(a.preferredShmemCarveout, 100);
  }
  cudaFuncAttributes a{};
  MEMSCOPE_CUDA_CALL(cudaFuncGetAttributes(&a, kernel));
  EXPECT_EQ(a.preferredShmemCarveout, -1);

  int max_persist = 0;
  MEMSCOPE_CUDA_CALL(cudaDeviceGetAttribute(&max_persist, cudaDevAttrMaxPersistingL2CacheSize, 0));
  if (max_persist == 0) GTEST_SKIP() << "no persisting L2 on this GPU";
  memscope::cuda_stream s;
  device_buffer<float> hot(1 << 20);
  std::size_t before = 0, after = 0;
  MEMSCOPE_CUDA_CALL(cudaDeviceGetLimit(&before, cudaLimitPersistingL2CacheSize));
  {
    memscope::cache::persistence_guard g(s.get(), hot.data(), hot.bytes(), hot.bytes(), 1.0f);
    EXPECT_GE(memscope::cache::persistence_guard::granted(), hot.bytes());
  }
  MEMSCOPE_CUDA_CALL(cudaDeviceGetLimit(&after, cudaLimitPersistingL2CacheSize));
  EXPECT_EQ(after, before);
  cudaStreamAttrValue v{};
  MEMSCOPE_CUDA_CALL(cudaStreamGetAttribute(s.get(), cudaStreamAttributeAccessPolicyWindow, &v));
  EXPECT_EQ(v.accessPolicyWindow.num_bytes, 0u);
}
