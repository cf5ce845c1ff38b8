#pragma once
// Histogram inputs with the shapes that matter for contention: uniform over the range, a
// skewed bell (most samples in a tenth of the bins), all samples in one bin (every atomic
// contends), and "dirty" data with NaN, infinities and out-of-range values (counted nowhere).
// The CPU reference reads the generated samples back, so the generators may use any math.

#include "memscope/core/cuda_check.hpp"
#include "memscope/core/random.hpp"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace memscope::histogram {

enum class distribution { uniform, normal, one_bin, dirty };

/// Levels the generated samples are binned over: [0, 1) for floats, [0, 2^24) for integers.
template <class SampleT>
struct sample_range {
  static constexpr SampleT lower = SampleT(0);
  static constexpr SampleT upper = std::is_floating_point_v<SampleT> ? SampleT(1) : SampleT(1 << 24);
};

template <class SampleT>
__device__ SampleT make_sample(distribution d, std::uint64_t seed, std::uint64_t i) {
  constexpr bool fp = std::is_floating_point_v<SampleT>;
  const std::uint32_t h = hash_u32(seed, i);
  const auto uniform = [&](std::uint32_t bits) {
    if constexpr (fp) return static_cast<SampleT>(static_cast<float>(bits >> 8) * (1.0f / 16777216.0f));
    else return static_cast<SampleT>(bits >> 8);  // [0, 2^24)
  };
  switch (d) {
    case distribution::uniform:
      return uniform(h);
    case distribution::normal: {
      // Box-Muller, mean at the middle of the range, standard deviation 1/16 of it.
      const float u1 = (static_cast<float>(h >> 8) + 1.0f) * (1.0f / 16777216.0f);
      const float u2 = static_cast<float>(hash_u32(seed ^ 0x5bd1e995u, i) >> 8) * (1.0f / 16777216.0f);
      const float z = sqrtf(-2.0f * logf(u1)) * cospif(2.0f * u2);
      const float x = 0.5f + z / 16.0f;
      if constexpr (fp) return static_cast<SampleT>(x);
      else return static_cast<SampleT>(floorf(x * 16777216.0f));
    }
    case distribution::one_bin:
      if constexpr (fp) return static_cast<SampleT>(0.3f);
      else return SampleT(5000000);
    case distribution::dirty:
      if (h % 8 >= 4) return uniform(hash_u32(seed + 1, i));
      if constexpr (fp) {
        const float special[4] = {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                                  -std::numeric_limits<float>::infinity(), 1.0f /* == upper: excluded */};
        return static_cast<SampleT>(special[h % 8]);
      } else {
        const SampleT special[4] = {SampleT(-1), SampleT(1 << 24), SampleT(-(1 << 30)), SampleT((1 << 24) + 17)};
        return special[h % 8];
      }
  }
  return SampleT(0);
}

template <class SampleT>
__global__ void make_samples_kernel(SampleT* out, std::size_t n, distribution d, std::uint64_t seed) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    out[i] = make_sample<SampleT>(d, seed, i);
}

template <class SampleT>
void make_samples(SampleT* out, std::size_t n, distribution d, std::uint64_t seed, cudaStream_t stream) {
  if (n == 0) return;
  const std::size_t want = (n + 255) / 256;
  make_samples_kernel<SampleT><<<static_cast<unsigned>(want < 65536 ? want : 65536), 256, 0, stream>>>(out, n, d, seed);
  MEMSCOPE_CHECK_LAUNCH("make_samples_kernel");
}

}  // namespace memscope::histogram
