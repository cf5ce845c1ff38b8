#pragma once
// Shared-memory bank conflicts, predicted on the CPU. Pure C++.
//
// 32 banks of 4 bytes. A warp's request is served in phases of 128 bytes: 32 threads for 4-byte
// words, 16 for 8-byte, 8 for 16-byte. Within a phase, a bank serving k distinct 4-byte words
// needs k wavefronts (threads reading the same word share one: broadcast). The request costs
// the sum over phases of the worst bank's count.

#include "memscope/core/host_device.hpp"

#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <vector>

namespace memscope::banks {

/// word_index[lane] is each thread's index into an array of `word_bytes`-byte words.
inline int predicted_wavefronts(const std::vector<std::uint64_t>& word_index, std::size_t word_bytes) {
  const std::size_t per_phase = 128 / word_bytes;
  int total = 0;
  for (std::size_t first = 0; first < word_index.size(); first += per_phase) {
    std::map<int, std::set<std::uint64_t>> bank_words;
    for (std::size_t t = first; t < first + per_phase && t < word_index.size(); ++t) {
      const std::uint64_t byte = word_index[t] * word_bytes;
      for (std::size_t w = 0; w < word_bytes / 4; ++w) {
        const std::uint64_t word4 = byte / 4 + w;
        bank_words[static_cast<int>(word4 % 32)].insert(word4);
      }
    }
    std::size_t worst = 0;
    for (const auto& [bank, words] : bank_words) worst = std::max(worst, words.size());
    total += static_cast<int>(worst);
  }
  return total;
}

/// Lane t accesses word t * stride.
inline int predicted_wavefronts_strided(std::size_t stride, std::size_t word_bytes) {
  std::vector<std::uint64_t> idx(32);
  for (std::size_t t = 0; t < 32; ++t) idx[t] = t * stride;
  return predicted_wavefronts(idx, word_bytes);
}

/// Column c of a 32x32 tile of 4-byte words, lane t = row t: naive row pitch 32, padded 33,
/// or swizzled (column c ^ t in a pitch-32 row).
enum class tile_layout { naive, padded, swizzled };

/// Word offset of (row, col) in a Tile x Tile tile: pitch Tile, pitch Tile + 1 (padded), or
/// pitch Tile with the column's low five bits XORed by the row's (a permutation within each
/// 32-word group, so a column read hits 32 different banks). Shared with the kernels
/// (transpose, bank_conflicts), so model and code cannot drift apart.
template <unsigned Tile = 32>
MEMSCOPE_HD unsigned tile_index(tile_layout l, unsigned row, unsigned col) {
  switch (l) {
    case tile_layout::naive:
      return row * Tile + col;
    case tile_layout::padded:
      return row * (Tile + 1) + col;
    case tile_layout::swizzled:
      return row * Tile + (col ^ (row & 31u));
  }
  return 0;
}

inline int predicted_wavefronts_column(tile_layout l, unsigned col) {
  std::vector<std::uint64_t> idx(32);
  for (unsigned t = 0; t < 32; ++t) idx[t] = tile_index(l, t, col);
  return predicted_wavefronts(idx, 4);
}

}  // namespace memscope::banks
