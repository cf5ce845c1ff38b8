#pragma once
// Counter-based random numbers: element i of a buffer is a pure function of (seed, i), so the
// GPU fills inputs in place and the CPU reference regenerates them without a transfer.
// Every float produced is exact (no rounding, no contraction), so host and device agree bit for bit.

#include "memscope/core/host_device.hpp"

#include <cstdint>

namespace memscope {

MEMSCOPE_HD std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

MEMSCOPE_HD std::uint32_t hash_u32(std::uint64_t seed, std::uint64_t i) {
  return static_cast<std::uint32_t>(splitmix64(seed ^ splitmix64(i)) >> 32);
}

/// Uniform in [-1, 1) on a 2^-23 grid: k * 2^-23 - 1 is exact for k < 2^24.
MEMSCOPE_HD float hash_uniform(std::uint64_t seed, std::uint64_t i) {
  return static_cast<float>(hash_u32(seed, i) >> 8) * (1.0f / 8388608.0f) - 1.0f;
}

/// Small integers in [-8, 8] as floats: sums of up to 2^20 of them stay exact in float,
/// so reductions over them can be checked for exact equality.
MEMSCOPE_HD float hash_small_int(std::uint64_t seed, std::uint64_t i) {
  return static_cast<float>(static_cast<int>(hash_u32(seed, i) % 17u) - 8);
}

/// Integers in [-8, -1] and [1, 8], mean 0: float sums of up to ~2^30 of them stay exact (every
/// partial sum is a whole number far below 2^24 in magnitude), and dropping any one element
/// changes the sum. For checks of float reductions by equality.
MEMSCOPE_HD float hash_nonzero_int(std::uint64_t seed, std::uint64_t i) {
  const int v = static_cast<int>(hash_u32(seed, i) % 16u);
  return static_cast<float>(v < 8 ? v - 8 : v - 7);
}

enum class fill_kind { uniform, small_int, nonzero_int };

MEMSCOPE_HD float hash_value(fill_kind kind, std::uint64_t seed, std::uint64_t i) {
  switch (kind) {
    case fill_kind::uniform:
      return hash_uniform(seed, i);
    case fill_kind::small_int:
      return hash_small_int(seed, i);
    case fill_kind::nonzero_int:
      return hash_nonzero_int(seed, i);
  }
  return 0.0f;
}

}  // namespace memscope
