// texture_object.cuh: a cudaArray texture fetched bilinearly matches the CPU reference.

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

TEST(TextureGpu, ArrayBilinearWrapMatchesTheReferenceWithinNineBitWeights) {
  MEMSCOPE_REQUIRE_GPU();
  const long long w = 13, h = 7;
  const std::uint64_t seed = memscope::testing::fresh_seed();
  tx::image img;
  img.width = w;
  img.height = h;
  for (long long i = 0; i < w * h; ++i) img.texels.push_back(memscope::hash_uniform(seed, i));
  for (auto mode :
       {tx::address_mode::wrap, tx::address_mode::clamp, tx::address_mode::mirror, tx::address_mode::border}) {
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
      ASSERT_NEAR(got[i], want.value, want.tolerance + 1e-7)
          << "mode " << static_cast<int>(mode) << " at (" << uv[i].x << ", " << uv[i].y << ")";
    }
  }
}
