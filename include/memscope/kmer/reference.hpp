#pragma once
// The host reference of k-mer counting: every canonical k-mer of every read, counted in a hash
// map. Pure C++; its counts are checked against Jellyfish's (`jellyfish count -C`).

#include "memscope/kmer/kmer.hpp"
#include "memscope/kmer/reads.hpp"

#include <cstdint>
#include <stdexcept>
#include <unordered_map>

namespace memscope::kmer {

struct kmer_counts {
  std::unordered_map<std::uint64_t, std::uint32_t> counts;  // canonical code -> occurrences
  std::uint64_t counted = 0;                                // k-mers counted (the sum of counts)
  std::uint64_t skipped = 0;                                // windows of k bases holding a byte other than A, C, G, T
  std::uint64_t short_reads = 0;                            // reads shorter than k (empty ones included)
};

inline kmer_counts count_reference(const read_set& reads, int k) {
  if (k < 1 || k > max_k) throw std::invalid_argument("k must be 1 to " + std::to_string(max_k));
  kmer_counts out;
  for (std::size_t r = 0; r < reads.reads(); ++r) {
    const auto read = reads.read(r);
    if (read.size() < static_cast<std::size_t>(k)) {
      ++out.short_reads;
      continue;
    }
    out.skipped += for_each_canonical(read.data(), read.size(), k, [&](std::uint64_t code) {
      ++out.counts[code];
      ++out.counted;
    });
  }
  return out;
}

}  // namespace memscope::kmer
