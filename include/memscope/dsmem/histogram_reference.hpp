#pragma once
// CPU reference for histogram_even and histogram_range: the same bin rules, per-thread private counts summed
// at the end, so a 2^28-sample check takes a fraction of a second. Pure C++.

#include "memscope/core/parallel.hpp"
#include "memscope/dsmem/histogram_plan.hpp"

#include <cstddef>
#include <cstdint>
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

}  // namespace memscope::histogram
