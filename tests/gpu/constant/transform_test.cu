// Tests of include/memscope/constant/transform on the GPU.

#include "gpu/gpu_test.hpp"

#include "memscope/constant/stencil.cuh"
#include "memscope/constant/stencil_reference.hpp"
#include "memscope/constant/transform.cuh"
#include "memscope/core/device_buffer.hpp"
#include "memscope/core/fill.cuh"
#include "memscope/core/random.hpp"
#include "memscope/core/verify.hpp"
#include "memscope/global/readonly_gather.cuh"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>
#include <sstream>
#include <algorithm>
#include <vector>

using namespace memscope;

namespace {

float4 widen(float3 p) { return make_float4(p.x, p.y, p.z, 1.0f); }
float4 widen(float4 p) { return p; }
std::vector<float> lanes_of(const float3& p) { return {p.x, p.y, p.z}; }
std::vector<float> lanes_of(const float4& p) { return {p.x, p.y, p.z, p.w}; }

/// Every point and every component, tail included, on fresh small-integer inputs (so the
/// products are exact and equality is the test), output poisoned first.
template <class P>
void check_every_point(std::size_t n, const transform::mat4& m, const float* d_matrix, std::mt19937_64& rng) {
  constexpr int lanes = sizeof(P) / sizeof(float);
  std::uniform_int_distribution<int> small(-8, 8);
  std::vector<P> h(n);
  for (auto& p : h) {
    float v[4];
    for (float& x : v) x = static_cast<float>(small(rng));
    if constexpr (lanes == 3) p = make_float3(v[0], v[1], v[2]);
    else p = make_float4(v[0], v[1], v[2], v[3]);
  }
  device_buffer<P> in(n), out(n);
  if (n) in.from_host(h);
  for (auto src :
       {transform::matrix_source::constant, transform::matrix_source::global, transform::matrix_source::param}) {
    out.poison();
    transform::apply(src, in.data(), out.data(), n, m, d_matrix, nullptr);
    MEMSCOPE_CUDA_CALL(cudaDeviceSynchronize());
    const auto r = out.to_host();
    std::size_t bad = 0, first_bad = n;
    for (std::size_t i = 0; i < n; ++i) {
      const float4 p = widen(h[i]);
      const float pc[4] = {p.x, p.y, p.z, p.w};
      const auto got = lanes_of(r[i]);
      for (int row = 0; row < lanes; ++row) {
        float want = 0;
        for (int c = 0; c < 4; ++c) want += m.m[c * 4 + row] * pc[c];
        if (got[static_cast<std::size_t>(row)] != want) {
          ++bad;
          first_bad = std::min(first_bad, i);
        }
      }
    }
    EXPECT_EQ(bad, 0u) << lanes << "-float points, n=" << n << ", source " << static_cast<int>(src)
                       << ", first wrong point " << first_bad;
  }
}

}  // namespace

TEST(TransformGpu, EveryMatrixSourceOnFloat3AndFloat4) {
  MEMSCOPE_REQUIRE_GPU();
  std::mt19937_64 rng(memscope::testing::fresh_seed());
  transform::mat4 m;
  std::uniform_int_distribution<int> small(-4, 4);
  for (float& x : m.m) x = static_cast<float>(small(rng));  // small integers: exact results
  transform::upload_matrix(m);
  device_buffer<float> dm(16);
  MEMSCOPE_CUDA_CALL(cudaMemcpy(dm.data(), m.m, sizeof m.m, cudaMemcpyHostToDevice));
  // 0, 1, a prime, not a multiple of the block, and past one block per SM many times over.
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{257}, std::size_t{100003}, std::size_t{3000017}}) {
    check_every_point<float3>(n, m, dm.data(), rng);
    check_every_point<float4>(n, m, dm.data(), rng);
  }
}
