#pragma once
// Counting k-mers of small k with memscope::histogram: every one of the 4^k canonical codes
// has its own bin (the dense table), so the count is a histogram of the window codes over the
// levels 0 to 4^k, and windows that are no k-mer (no_kmer, past the last level) fall in none.
// Where the 4^k counters fit one block's shared memory or a cluster's distributed shared
// memory the histogram keeps them there (the seeds' application of clusters).

#include "memscope/histogram/histogram.cuh"
#include "memscope/kmer/encode.cuh"

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace memscope::kmer {

/// The largest k with a dense table: 4^k bins within the histogram's bin limit.
inline constexpr int max_dense_k = 14;

inline std::int64_t dense_bins(int k) {
  if (k < 1 || k > max_dense_k)
    throw std::invalid_argument("a dense k-mer table takes k from 1 to " + std::to_string(max_dense_k) + ", not " +
                                std::to_string(k));
  return std::int64_t{1} << (2 * k);
}

/// d_counts[0, 4^k) = occurrences of each canonical code among d_codes[0, windows) (32-bit
/// codes from encode_kmers); returns the histogram's plan (where the counters lived).
inline histogram::plan count_kmers_dense(const std::uint32_t* d_codes, std::size_t windows, int k,
                                         std::uint32_t* d_counts, cudaStream_t stream, histogram::options opt = {}) {
  const std::int64_t bins = dense_bins(k);
  return histogram::histogram_even(d_codes, d_counts, static_cast<int>(bins + 1), std::int64_t{0}, bins,
                                   static_cast<std::int64_t>(windows), stream, opt);
}

}  // namespace memscope::kmer
