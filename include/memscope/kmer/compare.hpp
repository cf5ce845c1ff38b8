#pragma once
// A GPU counter's k-mers and counts against the host reference, exactly. Pure C++.

#include "memscope/kmer/kmer.hpp"
#include "memscope/kmer/reference.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace memscope::kmer {

/// "" where got[i] occurrences of codes[i], for every i, are exactly the reference's counts
/// (each of its k-mers once, none besides), else the first difference, spelled out.
template <class Count>
std::string counts_difference(const kmer_counts& want, const std::vector<std::uint64_t>& codes,
                              const std::vector<Count>& got, int k) {
  if (codes.size() != want.counts.size())
    return std::to_string(codes.size()) + " distinct k-mers, the reference has " + std::to_string(want.counts.size());
  for (std::size_t i = 0; i < codes.size(); ++i) {
    const auto it = want.counts.find(codes[i]);
    const std::uint64_t expected = it == want.counts.end() ? 0 : it->second;
    if (static_cast<std::uint64_t>(got[i]) != expected)
      return kmer_string(codes[i], k) + " counted " + std::to_string(static_cast<std::uint64_t>(got[i])) +
             " times, the reference counts " + std::to_string(expected);
  }
  return {};
}

/// The non-zero entries of a dense table (counts of codes 0 to 4^k - 1) as codes and counts,
/// codes ascending.
template <class Count, class Out>
void dense_entries(const std::vector<Count>& dense, std::vector<std::uint64_t>& codes, std::vector<Out>& counts) {
  codes.clear();
  counts.clear();
  for (std::size_t c = 0; c < dense.size(); ++c)
    if (dense[c]) {
      codes.push_back(c);
      counts.push_back(dense[c]);
    }
}

}  // namespace memscope::kmer
