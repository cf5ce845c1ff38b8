#pragma once
// The hash table's sizing and hash, in plain C++ so that they are tested without a GPU
// (table.cuh counts with them).

#include "memscope/core/host_device.hpp"

#include <cstddef>
#include <cstdint>

namespace memscope::kmer {

struct table_policy {
  static constexpr int block_threads = 256;
  /// Slots per window at least, rounded up to a power of two: a text cannot hold more distinct
  /// k-mers than windows, so the table never fills, and at most 4/5 of its slots are taken
  /// (short probe runs even where every k-mer is new, as in an assembly).
  static constexpr int slots_num = 5, slots_den = 4;
};

/// Where a code starts probing: murmur3's 64-bit finaliser, so that neighbouring codes (which
/// share all but their last bases) land far apart.
MEMSCOPE_HD std::uint64_t slot_hash(std::uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  x ^= x >> 33;
  return x;
}

/// Slots for a text of `windows` windows (table_policy): a power of two, at least 1.
inline std::size_t table_slots_for(std::size_t windows) {
  const std::size_t want = windows / table_policy::slots_den * table_policy::slots_num +
                           (windows % table_policy::slots_den) * table_policy::slots_num / table_policy::slots_den + 1;
  std::size_t slots = 1;
  while (slots < want) slots <<= 1;
  return slots;
}

}  // namespace memscope::kmer
