#pragma once
// CPU reference for histogram_even: the same even_bins rule, per-thread private counts summed
// at the end, so a 2^28-sample check takes a fraction of a second. Pure C++.

#include "memscope/core/parallel.hpp"
#include "memscope/dsmem/histogram_plan.hpp"

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

namespace memscope::histogram {

template <class SampleT>
std::vector<std::uint32_t> histogram_reference(const SampleT* samples, std::size_t n, const even_bins<SampleT>& rule) {
  std::vector<std::uint32_t> total(static_cast<std::size_t>(rule.num_bins), 0);
  std::mutex merge;
  parallel_chunks(n, [&](std::size_t, std::size_t begin, std::size_t end) {
    std::vector<std::uint32_t> local(total.size(), 0);
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
