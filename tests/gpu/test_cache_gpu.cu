// The latency ring, the texture fetch reference and the cache-setting guards on the GPU.

#include "gpu_test.hpp"

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

TEST(LatencyGpu, TheRingIsOneCycleAndEveryPathEndsWhereTheHostSays) {
  MEMSCOPE_REQUIRE_GPU();
  for (std::uint64_t slots : {2ull, 3ull, 31ull, 1000ull, 65537ull}) {
    const std::uint64_t seed = memscope::testing::fresh_seed();
    device_buffer<std::uint32_t> ring(slots * lt::policy::slot_words);
    ring.poison();
    lt::build_ring(ring.data(), slots, seed, nullptr);
    const auto h = ring.to_host();
    // Following the ring from its start visits every slot once, then returns to the start.
    std::vector<bool> seen(slots, false);
    std::uint32_t at = lt::ring_start(slots, seed);
    for (std::uint64_t k = 0; k < slots; ++k) {
      ASSERT_EQ(at % lt::policy::slot_words, 0u);
      ASSERT_FALSE(seen[at / lt::policy::slot_words]) << "slot revisited, slots=" << slots;
      seen[at / lt::policy::slot_words] = true;
      at = h[at];
    }
    EXPECT_EQ(at, lt::ring_start(slots, seed));
    const auto lim = tx::limits::query(0);
    auto tex = tx::linear_texture(ring.data(), ring.size(), {}, lim);
    device_buffer<unsigned long long> out(3);
    const unsigned iters = 777;
    const auto want = static_cast<unsigned long long>(lt::ring_position(slots, seed, iters));
    auto check = [&](const char* name) {
      MEMSCOPE_CUDA_CALL(cudaDeviceSynchronize());
      EXPECT_EQ(out.to_host()[1], want) << name << " slots=" << slots;
    };
    const std::uint32_t start = lt::ring_start(slots, seed);
    lt::chase<lt::load_path::global_default>(ring.data(), 0, slots, start, iters, true, out.data(), nullptr);
    check("default");
    lt::chase<lt::load_path::global_cg>(ring.data(), 0, slots, start, iters, true, out.data(), nullptr);
    check("cg");
    lt::chase<lt::load_path::ldg>(ring.data(), 0, slots, start, iters, false, out.data(), nullptr);
    check("ldg");
    lt::chase<lt::load_path::texture>(ring.data(), tex.get(), slots, start, iters, true, out.data(), nullptr);
    check("texture");
    if (ring.bytes() <= 48 * 1024) {  // shared memory holds the small rings only
      lt::shared_chase(ring.data(), static_cast<std::uint32_t>(ring.size()), start, iters, out.data(), nullptr);
      check("shared");
    }
  }
}

TEST(TextureGpu, ArrayBilinearWrapMatchesTheReferenceWithinNineBitWeights) {
  MEMSCOPE_REQUIRE_GPU();
  const long long w = 13, h = 7;
  const std::uint64_t seed = memscope::testing::fresh_seed();
  tx::image img;
  img.width = w;
  img.height = h;
  for (long long i = 0; i < w * h; ++i) img.texels.push_back(memscope::hash_uniform(seed, i));
  for (auto mode : {tx::address_mode::wrap, tx::address_mode::clamp, tx::address_mode::mirror, tx::address_mode::border}) {
    tx::cuda_array<float> array(w, h);
    array.upload(img.texels.data());
    tx::sampler smp;
    smp.address = mode;
    smp.linear_filter = true;
    smp.normalized_coords = true;
    auto t = tx::array_texture(array, smp);
    std::vector<float2> uv;
    for (int i = 0; i < 2000; ++i)
      uv.push_back({memscope::hash_uniform(seed ^ 1, i) * 2.0f, memscope::hash_uniform(seed ^ 2, i) * 2.0f});
    device_buffer<float2> d_uv(uv.size());
    d_uv.from_host(uv);
    device_buffer<float> out(uv.size());
    out.poison();
    tx::fetch2d(t.get(), d_uv.data(), out.data(), uv.size(), nullptr);
    MEMSCOPE_CUDA_CALL(cudaDeviceSynchronize());
    const auto got = out.to_host();
    for (std::size_t i = 0; i < uv.size(); ++i) {
      const auto want = img.linear(static_cast<double>(uv[i].x) * w, static_cast<double>(uv[i].y) * h, mode);
      ASSERT_NEAR(got[i], want.value, want.tolerance + 1e-7) << "mode " << static_cast<int>(mode) << " at (" << uv[i].x << ", " << uv[i].y << ")";
    }
  }
}

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
