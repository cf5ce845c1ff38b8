#pragma once
// Histogram inputs with the shapes that decide a histogram's speed: how many distinct bins the
// samples hit (the contention on each counter), whether equal bins come together (runs a
// thread or warp can merge), and how many samples fall in no bin at all. The adversarial set:
// uniform; normal bells from 10% of the range down to 0.1%; Zipf skews with exponents 0.5 to
// 2 (hot bins scattered over the range, as hashed keys are); sorted and reverse-sorted data;
// four hot bins; hot and uniform phases alternating; mostly out of range; mostly NaN; every
// sample in one bin; and "dirty" data with NaN, infinities and out-of-range values. The CPU
// reference reads the generated samples back, so the generators may use any math.

#include "memscope/core/cuda_check.hpp"
#include "memscope/core/random.hpp"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace memscope::histogram {

enum class distribution {
  uniform,
  normal,          // param: standard deviation as a fraction of the range
  zipf,            // param: exponent s; bin of rank k has weight k^-s
  sorted,          // uniform, in ascending order
  reverse_sorted,  // uniform, in descending order
  hot_bins,        // param: how many hot bins take every sample
  hot_cold,        // runs of 4096 samples alternate between one hot bin and uniform
  out_of_range,    // 90% below or above the levels, the rest uniform
  nan_heavy,       // 90% NaN (integers: 90% out of range), the rest uniform
  one_bin,         // every sample in one bin
  dirty,           // half NaN, infinities and out-of-range values, half uniform
};

/// A named input: the kind and its parameter.
struct input_shape {
  distribution kind = distribution::uniform;
  float param = 0;
  const char* name = "uniform";
};

/// Every named input, in the order the suite lists them.
inline constexpr input_shape input_shapes[] = {
    {distribution::uniform, 0, "uniform"},
    {distribution::normal, 1.0f / 16, "normal"},
    {distribution::normal, 0.10f, "normal_10pct"},
    {distribution::normal, 0.01f, "normal_1pct"},
    {distribution::normal, 0.001f, "normal_0.1pct"},
    {distribution::zipf, 0.5f, "zipf_0.5"},
    {distribution::zipf, 1.0f, "zipf_1"},
    {distribution::zipf, 1.5f, "zipf_1.5"},
    {distribution::zipf, 2.0f, "zipf_2"},
    {distribution::sorted, 0, "sorted"},
    {distribution::reverse_sorted, 0, "reverse_sorted"},
    {distribution::hot_bins, 4, "hot_4"},
    {distribution::hot_cold, 0, "hot_cold"},
    {distribution::out_of_range, 0, "out_of_range"},
    {distribution::nan_heavy, 0, "nan_heavy"},
    {distribution::one_bin, 0, "one_bin"},
    {distribution::dirty, 0, "dirty"},
};

inline std::optional<input_shape> find_input_shape(const std::string& name) {
  for (const auto& s : input_shapes)
    if (name == s.name) return s;
  return std::nullopt;
}

inline input_shape shape_of(distribution d) {
  for (const auto& s : input_shapes)
    if (s.kind == d) return s;
  return {};
}

/// Levels the generated samples are binned over: [0, 1) for floats, [0, 2^24) for integers.
template <class SampleT>
struct sample_range {
  static constexpr SampleT lower = SampleT(0);
  static constexpr SampleT upper = std::is_floating_point_v<SampleT> ? SampleT(1) : SampleT(1 << 24);
};

namespace detail {
/// [0, 1) on a 2^-24 grid.
__device__ __forceinline__ float unit(std::uint32_t bits) {
  return static_cast<float>(bits >> 8) * (1.0f / 16777216.0f);
}

/// Bin b's middle as a sample of the generated range (b < num_bins).
template <class SampleT>
__device__ SampleT bin_middle(std::uint64_t b, int num_bins) {
  const double x = (static_cast<double>(b) + 0.5) / static_cast<double>(num_bins);
  if constexpr (std::is_floating_point_v<SampleT>) return static_cast<SampleT>(x);
  else return static_cast<SampleT>(x * 16777216.0);
}

/// Spreads ranks over the range as hashed keys spread (a bijection when num_bins is not a
/// multiple of the prime).
__device__ __forceinline__ std::uint64_t scatter(std::uint64_t rank, int num_bins) {
  return rank * 2654435761ull % static_cast<std::uint64_t>(num_bins);
}

/// Rank in [0, num_bins) with weight (rank + 1)^-s, by inverting the continuous density.
__device__ __forceinline__ std::uint64_t zipf_rank(float u, float s, int num_bins) {
  const double n1 = static_cast<double>(num_bins) + 1.0, v = 1.0 - static_cast<double>(u);  // (0, 1]
  const double x = s == 1.0f ? exp(v * log(n1)) : pow((pow(n1, 1.0 - s) - 1.0) * v + 1.0, 1.0 / (1.0 - s));
  const double k = floor(x) - 1.0;
  return k < 0 ? 0 : (k >= num_bins ? static_cast<std::uint64_t>(num_bins - 1) : static_cast<std::uint64_t>(k));
}
}  // namespace detail

/// Sample i of n for `shape`, binned later over sample_range into num_bins bins.
template <class SampleT>
__device__ SampleT make_sample(input_shape shape, int num_bins, std::uint64_t seed, std::uint64_t i, std::uint64_t n) {
  constexpr bool fp = std::is_floating_point_v<SampleT>;
  const std::uint32_t h = hash_u32(seed, i);
  const auto uniform = [](std::uint32_t bits) {
    if constexpr (fp) return static_cast<SampleT>(detail::unit(bits));
    else return static_cast<SampleT>(bits >> 8);  // [0, 2^24)
  };
  const auto outside = [&](std::uint32_t bits) {
    if constexpr (fp) return static_cast<SampleT>(bits & 1 ? 1.0f + detail::unit(bits) : -detail::unit(bits) - 0.5f);
    else
      return static_cast<SampleT>(bits & 1 ? (1 << 24) + static_cast<int>(bits >> 12)
                                           : -1 - static_cast<int>(bits >> 12));
  };
  switch (shape.kind) {
    case distribution::uniform:
      return uniform(h);
    case distribution::normal: {
      // Box-Muller around the middle of the range.
      const float u1 = (static_cast<float>(h >> 8) + 1.0f) * (1.0f / 16777216.0f);
      const float u2 = detail::unit(hash_u32(seed ^ 0x5bd1e995u, i));
      const float z = sqrtf(-2.0f * logf(u1)) * cospif(2.0f * u2);
      const float x = 0.5f + z * shape.param;
      if constexpr (fp) return static_cast<SampleT>(x);
      else return static_cast<SampleT>(floorf(x * 16777216.0f));
    }
    case distribution::zipf:
      return detail::bin_middle<SampleT>(
          detail::scatter(detail::zipf_rank(detail::unit(h), shape.param, num_bins), num_bins), num_bins);
    case distribution::sorted:
    case distribution::reverse_sorted: {
      const std::uint64_t j = shape.kind == distribution::sorted ? i : n - 1 - i;
      const double x = static_cast<double>(j) / static_cast<double>(n);
      if constexpr (fp) return static_cast<SampleT>(x);
      else return static_cast<SampleT>(x * 16777216.0);
    }
    case distribution::hot_bins: {
      const auto hot = static_cast<std::uint64_t>(shape.param);
      return detail::bin_middle<SampleT>(hash_u32(seed ^ 0x7f4a7c15u, h % hot) % static_cast<std::uint32_t>(num_bins),
                                         num_bins);
    }
    case distribution::hot_cold:
      if ((i / 4096) % 2 == 0)
        return detail::bin_middle<SampleT>(hash_u32(seed ^ 0x7f4a7c15u, 0) % static_cast<std::uint32_t>(num_bins),
                                           num_bins);
      return uniform(h);
    case distribution::out_of_range:
      return h % 10 == 0 ? uniform(hash_u32(seed + 1, i)) : outside(hash_u32(seed + 2, i));
    case distribution::nan_heavy:
      if (h % 10 == 0) return uniform(hash_u32(seed + 1, i));
      if constexpr (fp) return std::numeric_limits<SampleT>::quiet_NaN();
      else return outside(hash_u32(seed + 2, i));
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
__global__ void make_samples_kernel(SampleT* out, std::size_t n, input_shape shape, int num_bins, std::uint64_t seed) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    out[i] = make_sample<SampleT>(shape, num_bins, seed, i, n);
}

/// Fills out[0, n) with `shape`'s samples for a histogram of num_bins bins over sample_range.
template <class SampleT>
void make_samples(SampleT* out, std::size_t n, input_shape shape, int num_bins, std::uint64_t seed,
                  cudaStream_t stream) {
  if (n == 0) return;
  if (num_bins < 1) throw std::invalid_argument("make_samples: num_bins must be at least 1");
  const std::size_t want = (n + 255) / 256;
  make_samples_kernel<SampleT>
      <<<static_cast<unsigned>(want < 65536 ? want : 65536), 256, 0, stream>>>(out, n, shape, num_bins, seed);
  MEMSCOPE_CHECK_LAUNCH("make_samples_kernel");
}

template <class SampleT>
void make_samples(SampleT* out, std::size_t n, distribution d, std::uint64_t seed, cudaStream_t stream,
                  int num_bins = 1024) {
  make_samples(out, n, shape_of(d), num_bins, seed, stream);
}

}  // namespace memscope::histogram
