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

using namespace memscope;


TEST(TransformGpu, EveryMatrixSourceOnFloat3AndFloat4) {
  MEMSCOPE_REQUIRE_GPU();
  transform::mat4 m;
  for (int k = 0; k < 16; ++k) m.m[k] = static_cast<float>(k % 5) - 2.0f;  // small integers: exact results
  transform::upload_matrix(m);
  device_buffer<float> dm(16);
  MEMSCOPE_CUDA_CALL(cudaMemcpy(dm.data(), m.m, sizeof m.m, cudaMemcpyHostToDevice));
  const std::size_t n = 100003;
  std::vector<float4> h4(n);
  for (std::size_t i = 0; i < n; ++i) h4[i] = make_float4(float(i % 7), float(i % 11) - 5, float(i % 3), float(i % 2));
  device_buffer<float4> in4(n), out4(n);
  in4.from_host(h4);
  for (auto src : {transform::matrix_source::constant, transform::matrix_source::global, transform::matrix_source::param}) {
    out4.poison();
    transform::apply(src, in4.data(), out4.data(), n, m, dm.data(), nullptr);
    const auto r = out4.to_host();
    for (std::size_t i = 0; i < n; i += 997) {
      const float p[4] = {h4[i].x, h4[i].y, h4[i].z, h4[i].w};
      const float got[4] = {r[i].x, r[i].y, r[i].z, r[i].w};
      for (int row = 0; row < 4; ++row) {
        float want = 0;
        for (int c = 0; c < 4; ++c) want += m.m[c * 4 + row] * p[c];
        ASSERT_EQ(got[row], want) << "source " << static_cast<int>(src) << " point " << i;
      }
    }
  }
}
