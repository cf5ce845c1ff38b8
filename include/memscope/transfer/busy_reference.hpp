#pragma once
// The work of a busy copy (busy_copy.cuh) in pure C++: `rounds` multiply-adds on every 4-byte
// word, x -> x * mul + add (mod 2^32), the results XOR-folded into one checksum. An affine map
// composed with itself stays affine, so the CPU checks any number of rounds in one
// multiply-add a word: gigabytes of a kernel's arithmetic verified in a fraction of a second.

#include "memscope/core/host_device.hpp"
#include "memscope/core/parallel.hpp"
#include "memscope/transfer/byte_pattern.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace memscope::transfer {

/// Numerical Recipes' LCG: odd multiplier, so each round is a bijection and no word's work
/// collapses to a constant the compiler or the hardware could skip.
inline constexpr std::uint32_t busy_mul = 1664525u;
inline constexpr std::uint32_t busy_add = 1013904223u;

MEMSCOPE_HD std::uint32_t busy_step(std::uint32_t x) { return x * busy_mul + busy_add; }

/// x -> a * x + c (mod 2^32).
struct affine32 {
  std::uint32_t a = 1, c = 0;
  std::uint32_t operator()(std::uint32_t x) const { return a * x + c; }
};

/// outer(inner(x)).
inline affine32 compose(affine32 outer, affine32 inner) { return {outer.a * inner.a, outer.a * inner.c + outer.c}; }

/// busy_step applied `rounds` times, as one map (by squaring).
inline affine32 busy_power(std::uint64_t rounds) {
  affine32 result, base{busy_mul, busy_add};
  for (; rounds; rounds >>= 1) {
    if (rounds & 1) result = compose(base, result);
    base = compose(base, base);
  }
  return result;
}

/// The loop a kernel runs, for tests of busy_power.
inline std::uint32_t busy_rounds_loop(std::uint32_t x, std::uint64_t rounds) {
  for (std::uint64_t r = 0; r < rounds; ++r) x = busy_step(x);
  return x;
}

/// The checksum a busy copy of `bytes` of the byte pattern (byte_pattern.hpp) leaves: the XOR
/// of every whole word's result; the last bytes % 4 bytes are copied, not worked on. XOR does
/// not care about order, so a copy split into pieces at multiples of 4 bytes leaves the same.
inline std::uint32_t busy_checksum_of_pattern(std::size_t bytes, std::uint64_t seed, std::uint64_t rounds) {
  const affine32 f = busy_power(rounds);
  std::vector<std::uint32_t> part(64, 0);
  parallel_chunks(bytes / 4, [&](std::size_t c, std::size_t begin, std::size_t end) {
    std::uint32_t x = 0;
    for (std::size_t w = begin; w < end; ++w) x ^= f(pattern_word(seed, w));
    part[c] = x;
  });
  std::uint32_t sum = 0;
  for (const auto x : part) sum ^= x;
  return sum;
}

}  // namespace memscope::transfer
