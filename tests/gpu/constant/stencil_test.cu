// Tests of include/memscope/constant/stencil on the GPU.

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

namespace {
using memscope::testing::fresh_seed;

const stencil::coef_source all_sources[] = {stencil::coef_source::global,       stencil::coef_source::constant,
                                            stencil::coef_source::restrict_ptr, stencil::coef_source::ldg,
                                            stencil::coef_source::param,        stencil::coef_source::l1};
}  // namespace

TEST(StencilGpu, EverySourceAndRadiusMatchesTheReferenceEdgesIncluded) {
  MEMSCOPE_REQUIRE_GPU();
  for (int radius = 1; radius <= 8; ++radius) {
    for (std::size_t n : {std::size_t(2 * radius + 1), std::size_t{1023}, std::size_t{1025}, std::size_t{2047},
                          std::size_t{2049}, std::size_t{1000003}}) {
      const std::uint64_t seed = fresh_seed();
      std::vector<float> c(radius);
      for (int i = 0; i < radius; ++i) c[i] = hash_uniform(seed + 1, i);
      stencil::coefficients coef(c);
      device_buffer<float> in(n), out(n);
      fill_hash(in.data(), n, seed, fill_kind::uniform);
      for (auto src : all_sources)
        for (int tile : {1024, 2048}) {
          out.poison();
          stencil::apply(src, in.data(), out.data(), n, coef, nullptr, tile);
          MEMSCOPE_CUDA_CALL(cudaDeviceSynchronize());
          const auto h = out.to_host();
          const auto r = compare_within(h.data(), n, [&](std::size_t x) {
            double v = 0, mag = 0;
            stencil::reference::point([&](long long j) { return hash_uniform(seed, j); }, n, c, x, v, mag);
            return std::pair<double, double>{v, 4e-7 * mag * radius + 1e-30};
          });
          ASSERT_TRUE(r.passed) << "R=" << radius << " n=" << n << " tile " << tile << " source "
                                << static_cast<int>(src) << ": " << r.detail;
        }
    }
  }
}

TEST(StencilGpu, BadRadiusAndTooFewPointsAreClearErrors) {
  MEMSCOPE_REQUIRE_GPU();
  EXPECT_THROW(stencil::coefficients(std::vector<float>{}), std::invalid_argument);
  EXPECT_THROW(stencil::coefficients(std::vector<float>(9, 1.0f)), std::invalid_argument);
  stencil::coefficients c4({-1, -2, 2, 1});
  device_buffer<float> in(8), out(8);
  try {
    stencil::apply(stencil::coef_source::constant, in.data(), out.data(), 8, c4, nullptr);
    FAIL() << "n = 8 < 9 accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("n >= 9"), std::string::npos) << e.what();
  }
  device_buffer<float> big(4096), big_out(4096);
  EXPECT_THROW(stencil::apply(stencil::coef_source::constant, big.data(), big_out.data(), 4096, c4, nullptr, 4096),
               std::invalid_argument);
}
