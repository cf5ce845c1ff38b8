#pragma once
// Summary statistics of timing samples. Pure C++.

#include <cstddef>
#include <vector>

namespace memscope {

struct sample_stats {
  std::size_t count = 0;
  double median = 0, min = 0, max = 0, mean = 0, stdev = 0;
  double noise = 0;  // relative standard deviation, stdev / mean
};

/// Throws std::invalid_argument on an empty set or on non-finite samples.
sample_stats summarize(std::vector<double> samples);

/// Median of a copy of `v`; the mean of the two middle values for an even count.
double median_of(std::vector<double> v);

}  // namespace memscope
