#pragma once
// The bytes every transfer test moves: byte i of a buffer is a pure function of (seed, i), so
// host and device fill and check buffers in place, with no reference copy of gigabytes.

#include "memscope/core/host_device.hpp"
#include "memscope/core/parallel.hpp"
#include "memscope/core/random.hpp"
#include "memscope/core/verify.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace memscope::transfer {

/// Four bytes at a time: byte i is byte (i % 4) of word i / 4, little-endian.
MEMSCOPE_HD std::uint32_t pattern_word(std::uint64_t seed, std::uint64_t word) { return hash_u32(seed, word); }
MEMSCOPE_HD std::uint8_t pattern_byte(std::uint64_t seed, std::uint64_t i) {
  return static_cast<std::uint8_t>(pattern_word(seed, i / 4) >> (8 * (i % 4)));
}

/// Fills host memory with the pattern, over the host's cores.
inline void fill_pattern_host(void* dst, std::size_t bytes, std::uint64_t seed) {
  auto* p = static_cast<std::uint8_t*>(dst);
  parallel_chunks(bytes / 4, [&](std::size_t, std::size_t begin, std::size_t end) {
    for (std::size_t w = begin; w < end; ++w) {
      const std::uint32_t v = pattern_word(seed, w);
      std::memcpy(p + 4 * w, &v, 4);
    }
  });
  for (std::size_t i = bytes / 4 * 4; i < bytes; ++i) p[i] = pattern_byte(seed, i);
}

/// Bytes of host memory that differ from bytes [offset, offset + bytes) of the pattern; `first`
/// gets the lowest such index into `src` (bytes when none). A word at a time over the host's
/// cores: a buffer may be gigabytes.
inline std::size_t count_pattern_mismatches_host(const void* src, std::size_t bytes, std::uint64_t seed,
                                                 std::size_t& first, std::size_t offset = 0) {
  const auto* p = static_cast<const std::uint8_t*>(src);
  // Bytes before the pattern's first whole word, and after its last, go to the last slot.
  const std::size_t head = std::min(bytes, (4 - offset % 4) % 4), words = (bytes - head) / 4, edge = 64;
  std::vector<std::size_t> bad(edge + 1, 0), first_bad(edge + 1, bytes);
  const auto wrong = [&](std::size_t slot, std::size_t i) {
    if (bad[slot]++ == 0) first_bad[slot] = i;
  };
  parallel_chunks(words, [&](std::size_t c, std::size_t begin, std::size_t end) {
    for (std::size_t w = begin; w < end; ++w) {
      const std::size_t i = head + 4 * w;
      std::uint32_t got = 0;
      std::memcpy(&got, p + i, 4);
      const std::uint32_t want = pattern_word(seed, (offset + i) / 4);
      if (got != want)
        for (std::size_t b = 0; b < 4; ++b)
          if (((got ^ want) >> (8 * b)) & 0xFFu) wrong(c, i + b);
    }
  });
  for (std::size_t i = 0; i < head; ++i)
    if (p[i] != pattern_byte(seed, offset + i)) wrong(edge, i);
  for (std::size_t i = head + 4 * words; i < bytes; ++i)
    if (p[i] != pattern_byte(seed, offset + i)) wrong(edge, i);
  std::size_t total = 0;
  first = bytes;
  for (std::size_t c = 0; c < bad.size(); ++c) {
    total += bad[c];
    if (bad[c]) first = std::min(first, first_bad[c]);
  }
  return total;
}

/// A check's verdict from a mismatch count: "WHAT: N of M bytes wrong, first at F".
inline verify_result pattern_verdict(std::size_t bad, std::size_t first, std::size_t bytes, const std::string& what) {
  if (bad == 0) return verify_result::pass();
  return verify_result::fail(what + ": " + std::to_string(bad) + " of " + std::to_string(bytes) +
                             " bytes wrong, first at " + std::to_string(first));
}

/// Checks host memory against bytes [offset, offset + bytes) of the pattern, over the host's cores.
inline verify_result verify_pattern_host(const void* src, std::size_t bytes, std::uint64_t seed,
                                         const std::string& what, std::size_t offset = 0) {
  std::size_t first = 0;
  const std::size_t bad = count_pattern_mismatches_host(src, bytes, seed, first, offset);
  return pattern_verdict(bad, first, bytes, what);
}

}  // namespace memscope::transfer
