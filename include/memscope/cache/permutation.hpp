#pragma once
// A pseudo-random permutation of [0, n) that any thread can evaluate on its own: a 4-round
// Feistel network over the smallest even bit width covering n, with cycle-walking back into
// range. Pointer-chase rings of gigabytes are then built on the GPU in parallel, and the host
// still knows where a chase ends without holding the ring. Pure C++ (host and device).

#include "memscope/core/host_device.hpp"
#include "memscope/core/random.hpp"

#include <cstdint>

namespace memscope {

/// The half width h of the Feistel network for n values: 2h bits cover n (h >= 1).
MEMSCOPE_HD unsigned feistel_half_bits(std::uint64_t n) {
  unsigned bits = 2;
  while (bits < 64 && (std::uint64_t{1} << bits) < n) bits += 2;
  return bits / 2;
}

/// The k-th element (k < n) of a bijection [0, n) -> [0, n) chosen by `seed`.
MEMSCOPE_HD std::uint64_t permute_index(std::uint64_t k, std::uint64_t n, std::uint64_t seed) {
  const unsigned h = feistel_half_bits(n);
  const std::uint64_t mask = (std::uint64_t{1} << h) - 1;
  std::uint64_t x = k;
  do {  // cycle-walking: 2h bits hold fewer than 4n values, so this ends after ~2 tries on average
    std::uint64_t left = x >> h, right = x & mask;
    for (std::uint64_t round = 0; round < 4; ++round) {
      const std::uint64_t f = splitmix64(seed ^ (round << 58) ^ right) & mask;
      const std::uint64_t next = left ^ f;
      left = right;
      right = next;
    }
    x = (left << h) | right;
  } while (x >= n);
  return x;
}

}  // namespace memscope
