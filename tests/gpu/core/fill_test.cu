// Tests of include/memscope/core/fill on the GPU.

#include "gpu/gpu_test.hpp"

#include "memscope/core/cuda_check.hpp"
#include "memscope/core/device_buffer.hpp"
#include "memscope/core/fill.cuh"
#include "memscope/core/random.hpp"
#include "memscope/core/verify.hpp"

using namespace memscope;

TEST(CoreGpu, FillMatchesHostBitForBit) {
  MEMSCOPE_REQUIRE_GPU();
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{257}, std::size_t{1000003}}) {
    device_buffer<float> d(n);
    d.poison();
    fill_hash(d.data(), n, 77, fill_kind::uniform);
    const auto h = d.to_host();
    EXPECT_TRUE(compare_exact(h.data(), n, [](std::size_t i) { return hash_uniform(77, i); }).passed) << n;
    fill_hash(d.data(), n, 78, fill_kind::small_int);
    const auto k = d.to_host();
    EXPECT_TRUE(compare_exact(k.data(), n, [](std::size_t i) { return hash_small_int(78, i); }).passed) << n;
    fill_hash(d.data(), n, 79, fill_kind::nonzero_int);
    const auto z = d.to_host();
    EXPECT_TRUE(compare_exact(z.data(), n, [](std::size_t i) { return hash_nonzero_int(79, i); }).passed) << n;
    for (float v : z)
      ASSERT_TRUE(v != 0.0f && v >= -8.0f && v <= 8.0f && v == static_cast<float>(static_cast<int>(v))) << v;
  }
}
