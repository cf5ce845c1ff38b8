#pragma once
// CPU reference for histogram_even and histogram_range: the same bin rules, per-thread private counts summed
// at the end, so a 2^28-sample check takes a fraction of a second. Pure C++.

#include "memscope/core/parallel.hpp"
#include "memscope/histogram/plan.hpp"

#include <cstddef>
#include <cstdint>
#include <array>
#include <mutex>
#include <vector>

namespace memscope::histogram {

/// `rule`: even_bins, range_bins (with host levels) or a converting_rule around either.
template <class CountT = std::uint32_t, class SampleT, class Rule>
std::vector<CountT> histogram_reference(const SampleT* samples, std::size_t n, const Rule& rule) {
  std::vector<CountT> total(static_cast<std::size_t>(rule.num_bins), 0);
  std::mutex merge;
  parallel_chunks(n, [&](std::size_t, std::size_t begin, std::size_t end) {
    std::vector<CountT> local(total.size(), 0);
    for (std::size_t i = begin; i < end; ++i) {
      const int bin = rule(samples[i]);
      if (bin >= 0) ++local[static_cast<std::size_t>(bin)];
    }
    const std::lock_guard<std::mutex> lock(merge);
    for (std::size_t b = 0; b < total.size(); ++b) total[b] += local[b];
  });
  return total;
}

/// CUB's multi-channel forms: rows of row_pixels pixels of Channels interleaved samples, row r
/// starting r * row_stride samples in; channel a of every pixel by rules[a].
template <class CountT = std::uint32_t, int Channels, int Active, class SampleT, class Rule>
std::array<std::vector<CountT>, Active> multi_histogram_reference(const SampleT* samples, std::size_t rows,
                                                                  std::size_t row_pixels, std::size_t row_stride,
                                                                  const Rule (&rules)[Active]) {
  std::array<std::vector<CountT>, Active> out;
  std::vector<SampleT> channel(rows * row_pixels);
  for (int a = 0; a < Active; ++a) {
    for (std::size_t r = 0; r < rows; ++r)
      for (std::size_t p = 0; p < row_pixels; ++p)
        channel[r * row_pixels + p] = samples[r * row_stride + p * Channels + a];
    out[a] = histogram_reference<CountT>(channel.data(), channel.size(), rules[a]);
  }
  return out;
}

}  // namespace memscope::histogram
