#include "harness/stats.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace memscope {

double median_of(std::vector<double> v) {
  if (v.empty()) throw std::invalid_argument("median of an empty sample set");
  const std::size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  const double upper = v[mid];
  if (v.size() % 2 == 1) return upper;
  const double lower = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid));
  return 0.5 * (lower + upper);
}

sample_stats summarize(std::vector<double> samples) {
  if (samples.empty()) throw std::invalid_argument("no samples to summarize");
  for (double s : samples)
    if (!std::isfinite(s)) throw std::invalid_argument("non-finite timing sample");
  sample_stats st;
  st.count = samples.size();
  const auto [lo, hi] = std::minmax_element(samples.begin(), samples.end());
  st.min = *lo;
  st.max = *hi;
  st.mean = std::accumulate(samples.begin(), samples.end(), 0.0) / static_cast<double>(st.count);
  double ss = 0;
  for (double s : samples) ss += (s - st.mean) * (s - st.mean);
  st.stdev = st.count > 1 ? std::sqrt(ss / static_cast<double>(st.count - 1)) : 0.0;
  st.noise = st.mean > 0 ? st.stdev / st.mean : 0.0;
  st.median = median_of(std::move(samples));
  return st;
}

}  // namespace memscope
