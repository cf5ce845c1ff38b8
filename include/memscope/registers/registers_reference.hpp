#pragma once
// The arithmetic the register kernels run, shared with their CPU reference: 32-bit unsigned
// wrap-around, so GPU and CPU agree bit for bit. Pure C++ (host and device).

#include "memscope/core/host_device.hpp"
#include "memscope/core/random.hpp"

#include <cstdint>

namespace memscope::registers::reference {

MEMSCOPE_HD std::uint32_t initial_word(std::uint64_t seed, std::uint64_t thread, int k) {
  return hash_u32(seed, thread * 1024 + static_cast<std::uint64_t>(k));
}
/// One read-modify-write of word k, reading its neighbour k + 1 as well.
MEMSCOPE_HD std::uint32_t update(std::uint32_t x, std::uint32_t next, std::uint32_t it) {
  return x * 1664525u + (next ^ it) + 1013904223u;
}
MEMSCOPE_HD std::uint32_t fold(std::uint32_t acc, std::uint32_t w) { return acc * 31u + w; }

/// Word i of a chase ring over W words: one step is 33 words on (132 bytes: a new cache line
/// each step), which visits every word since 33 and W (a power of two) share no factor.
MEMSCOPE_HD std::uint32_t chase_next(std::uint32_t i, int w) { return (i + 33u) & static_cast<std::uint32_t>(w - 1); }

/// What thread `thread` writes after `iters` rounds over N words.
template <int N>
std::uint32_t array_result(std::uint64_t seed, std::uint64_t thread, int iters) {
  std::uint32_t a[N];
  for (int k = 0; k < N; ++k) a[k] = initial_word(seed, thread, k);
  for (int it = 0; it < iters; ++it)
    for (int k = 0; k < N; ++k) a[k] = update(a[k], a[(k + 1) & (N - 1)], static_cast<std::uint32_t>(it));
  std::uint32_t acc = 0;
  for (int k = 0; k < N; ++k) acc = fold(acc, a[k]);
  return acc;
}

/// Where a chase of `steps` loads from 0 ends (after the warm-up walk of W loads).
inline std::uint32_t chase_end(int w, long long steps) {
  std::uint32_t p = 0;
  for (long long i = 0; i < w + steps; ++i) p = chase_next(p, w);
  return p;
}

}  // namespace memscope::registers::reference
