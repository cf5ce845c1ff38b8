// Tests of include/memscope/shared/transpose on the GPU.

#include "gpu/gpu_test.hpp"

#include "memscope/core/device_buffer.hpp"
#include "memscope/core/fill.cuh"
#include "memscope/core/random.hpp"
#include "memscope/core/verify.hpp"
#include "memscope/shared/bank_conflicts.cuh"
#include "memscope/shared/reduce.cuh"
#include "memscope/shared/transpose.cuh"

#include <random>

using namespace memscope;

namespace {
using memscope::testing::fresh_seed;


}  // namespace

TEST(TransposeGpu, EveryVariantOnAwkwardShapes) {
  MEMSCOPE_REQUIRE_GPU();
  const std::pair<int, int> shapes[] = {{1, 1}, {1, 77}, {77, 1}, {31, 33}, {32, 32}, {1000, 999}, {4099, 257}};
  for (const auto& shape : shapes) {
    const int rows = shape.first, cols = shape.second;
    const std::size_t n = static_cast<std::size_t>(rows) * cols;
    const std::uint64_t seed = fresh_seed();
    device_buffer<float> in(n), out(n);
    fill_hash(in.data(), n, seed, fill_kind::uniform);
    for (auto v : {transpose::variant::naive, transpose::variant::tiled, transpose::variant::padded,
                   transpose::variant::swizzled, transpose::variant::padded64, transpose::variant::swizzled64}) {
      out.poison();
      transpose::transpose(v, in.data(), out.data(), rows, cols, nullptr);
      MEMSCOPE_CUDA_CALL(cudaDeviceSynchronize());
      const auto h = out.to_host();
      const auto r = compare_exact(h.data(), n, [&](std::size_t k) {
        return hash_uniform(seed, (k % rows) * static_cast<std::size_t>(cols) + k / rows);
      });
      EXPECT_TRUE(r.passed) << rows << "x" << cols << " variant " << static_cast<int>(v) << ": " << r.detail;
    }
  }
}
