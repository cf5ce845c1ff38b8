#pragma once
// What the atomic kernels must leave behind. Pure C++ (host and device).

#include "memscope/core/host_device.hpp"

#include <cstdint>

namespace memscope::atomic::reference {

/// The counter a thread (global or block-local id) updates when `sharers` threads share one.
MEMSCOPE_HD std::uint64_t counter_of(std::uint64_t thread, std::uint64_t sharers) { return thread / sharers; }

/// Counters one block owns in shared memory.
MEMSCOPE_HD unsigned counters_per_block(unsigned block_threads, std::uint64_t sharers) {
  return static_cast<unsigned>((block_threads + sharers - 1) / (sharers < block_threads ? sharers : block_threads));
}

/// The value thread t offers in round i of a max: distinct and increasing in t and i.
MEMSCOPE_HD std::uint64_t max_value(std::uint64_t t, int i, int iters) { return t * static_cast<std::uint64_t>(iters) + static_cast<std::uint64_t>(i); }

/// The latency ring: one step is 33 words (a new 128-byte line), visiting all 1024 words.
MEMSCOPE_HD std::uint32_t chain_next(std::uint32_t i) { return (i + 33u) & 1023u; }

inline std::uint32_t chain_end(long long steps) {
  std::uint32_t p = 0;
  for (long long i = 0; i < 1024 + steps; ++i) p = chain_next(p);
  return p;
}

}  // namespace memscope::atomic::reference
