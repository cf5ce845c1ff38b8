#pragma once
// Pointer-chase rings for latency measurements: a random cyclic permutation (one cycle through
// every slot, so no load can be predicted or skipped), stored as "next index" words. Pure C++.

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace memscope {

/// A table of `slots * stride` words in which word order[i] * stride holds
/// order[i + 1] * stride, for a random order of the slots (Fisher-Yates with a xorshift seeded
/// by `seed`); words between slots are 0. Consecutive loads land `stride` words apart or more,
/// so with a stride of one cache line every load touches a new line.
inline std::vector<std::uint32_t> chase_ring(std::size_t slots, std::size_t stride, std::uint64_t seed) {
  std::vector<std::uint32_t> order(slots);
  for (std::size_t i = 0; i < slots; ++i) order[i] = static_cast<std::uint32_t>(i);
  std::uint64_t x = seed | 1;
  for (std::size_t i = slots > 0 ? slots - 1 : 0; i > 0; --i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    std::swap(order[i], order[x % (i + 1)]);
  }
  std::vector<std::uint32_t> table(slots * stride, 0);
  for (std::size_t i = 0; i < slots; ++i)
    table[order[i] * stride] = static_cast<std::uint32_t>(order[(i + 1) % slots] * stride);
  return table;
}

/// Where a chase through `table` stands after `steps` loads from word `start`.
inline std::uint32_t chase_position(const std::vector<std::uint32_t>& table, std::uint32_t start, std::uint64_t steps) {
  for (std::uint64_t s = 0; s < steps; ++s) start = table[start];
  return start;
}

/// Start words for `chasers` concurrent chases through `table` (a ring of `slots` slots): evenly
/// spaced along its cycle, so that chases of one ring in global memory at one pace never load
/// the same line at once (where chasers <= slots; beyond that, some start together).
inline std::vector<std::uint32_t> chase_starts(const std::vector<std::uint32_t>& table, std::size_t slots,
                                               std::size_t chasers) {
  std::vector<std::uint32_t> starts(chasers, 0);
  std::uint32_t at = 0;
  std::uint64_t walked = 0;
  for (std::size_t c = 0; c < chasers && slots > 0; ++c) {
    const std::uint64_t target = c * slots / chasers;
    at = chase_position(table, at, target - walked);
    walked = target;
    starts[c] = at;
  }
  return starts;
}

}  // namespace memscope
