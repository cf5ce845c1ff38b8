#pragma once
// What the atomic kernels must leave behind. Pure C++ (host and device).

#include "memscope/core/host_device.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace memscope::atomic::reference {

/// The counter a thread (global or block-local id) updates when `sharers` threads share one.
MEMSCOPE_HD std::uint64_t counter_of(std::uint64_t thread, std::uint64_t sharers) { return thread / sharers; }

/// Counters one block owns in shared memory.
MEMSCOPE_HD unsigned counters_per_block(unsigned block_threads, std::uint64_t sharers) {
  return static_cast<unsigned>((block_threads + sharers - 1) / (sharers < block_threads ? sharers : block_threads));
}

/// The value thread t offers in round i of a max: distinct and increasing in t and i.
MEMSCOPE_HD std::uint64_t max_value(std::uint64_t t, int i, int iters) {
  return t * static_cast<std::uint64_t>(iters) + static_cast<std::uint64_t>(i);
}

/// Where a kernel's counters live, as the reference needs to know it.
enum class counters_in { global, own_block, peer_block };

/// What counter i holds after `blocks` blocks of `block_threads` threads each did `iters`
/// atomics with `sharers` threads per address: the updates it received (add, CAS add, or
/// aggregated add), or for max the largest value offered. Global counters are indexed by
/// global thread; per-block counters (own_block: the block's threads; peer_block: the other
/// block of its pair, DSMEM) by block * counters_per_block + local counter.
inline std::uint64_t expected_counter(std::uint64_t i, bool max, counters_in where, std::uint64_t blocks,
                                      unsigned block_threads, std::uint64_t sharers, int iters) {
  const std::uint64_t span = where == counters_in::global ? blocks * block_threads : block_threads;
  const unsigned per_block = counters_per_block(block_threads, sharers);
  const std::uint64_t c = where == counters_in::global ? i : i % per_block;
  const std::uint64_t b = where == counters_in::global ? 0 : i / per_block;
  const std::uint64_t issuer_block = where == counters_in::peer_block ? (b ^ 1u) : b;
  const std::uint64_t first = where == counters_in::global ? 0 : issuer_block * block_threads;
  const std::uint64_t end = (c + 1) * sharers < span ? (c + 1) * sharers : span;  // one past the group's last thread
  return max ? max_value(first + end - 1, iters - 1, iters) : (end - c * sharers) * static_cast<std::uint64_t>(iters);
}

/// The latency ring: one step is 33 words (a new 128-byte line), visiting all 1024 words.
MEMSCOPE_HD std::uint32_t chain_next(std::uint32_t i) { return (i + 33u) & 1023u; }

/// The ring in memory: entry i at word i * stride holds chain_next(i) * stride (the word of the
/// next entry), every other word 0.
inline std::vector<std::uint32_t> chain_ring(std::uint32_t stride) {
  std::vector<std::uint32_t> r(std::size_t{1024} * stride, 0u);
  for (std::uint32_t i = 0; i < 1024; ++i) r[std::size_t{i} * stride] = chain_next(i) * stride;
  return r;
}

/// The entry where the chase stands after its warm lap and `steps` timed steps.
inline std::uint32_t chain_end(long long steps) {
  std::uint32_t p = 0;
  for (long long i = 0; i < 1024 + steps; ++i) p = chain_next(p);
  return p;
}

/// The L2 home chase: which side of the L2 a line's home is on, seen from the SM that probes it.
enum class side { near, far };

/// Two latency levels among the probed lines, or one. low and high: the 5th and 95th
/// percentile of the lines' cycles (bins of 8); two levels where high >= 1.25 low, split at
/// their midpoint. The kernel and the host both call this on the same cycles.
struct home_split {
  std::uint32_t low = 0, high = 0, threshold = 0;
  bool two_levels = false;
};

MEMSCOPE_HD home_split split_of(const std::uint32_t* cycles, int n) {
  constexpr int bin = 8, bins = 512;  // up to 4096 cycles; slower lines count in the last bin
  std::uint16_t hist[bins] = {};
  for (int j = 0; j < n; ++j) ++hist[cycles[j] / bin < bins ? cycles[j] / bin : bins - 1];
  const auto percentile = [&](int rank) {
    int seen = 0;
    for (int b = 0; b < bins; ++b)
      if ((seen += hist[b]) > rank) return static_cast<std::uint32_t>(b * bin + bin / 2);
    return static_cast<std::uint32_t>(bins * bin);
  };
  home_split h;
  if (n == 0) return h;
  h.low = percentile(n * 5 / 100);
  h.high = percentile(n * 95 / 100);
  h.two_levels = std::uint64_t{h.high} * 4 >= std::uint64_t{h.low} * 5;
  h.threshold = h.low + (h.high - h.low) / 2;
  return h;
}

/// Whether a line of `cycles` lies on side s. With one level every line is near.
MEMSCOPE_HD bool on_side(std::uint32_t cycles, const home_split& h, side s) {
  return !h.two_levels ? s == side::near : (cycles <= h.threshold) == (s == side::near);
}

/// The line where the home chase stands after its warm lap and `steps` timed steps: the lines
/// on side s, in index order, make the ring; n where no line is on that side. n <= 4096.
inline std::uint32_t home_chain_end(const std::uint32_t* cycles, int n, side s, long long steps) {
  const home_split h = split_of(cycles, n);
  std::uint32_t ring[4096];
  int count = 0;
  for (int j = 0; j < n && j < 4096; ++j)
    if (on_side(cycles[j], h, s)) ring[count++] = static_cast<std::uint32_t>(j);
  return count == 0 ? static_cast<std::uint32_t>(n) : ring[steps % count];
}

}  // namespace memscope::atomic::reference
