#include "harness/stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <utility>

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
  st.rse = st.noise / std::sqrt(static_cast<double>(st.count));
  st.median = median_of(std::move(samples));
  return st;
}

void running_stats::add(double x) {
  ++n_;
  sum_ += x;
  const double d = x - mean_;
  mean_ += d / static_cast<double>(n_);
  m2_ += d * (x - mean_);
}

double running_stats::rse() const {
  if (n_ < 2 || !(mean_ > 0)) return std::numeric_limits<double>::infinity();
  const double sd = std::sqrt(m2_ / static_cast<double>(n_ - 1));
  return sd / mean_ / std::sqrt(static_cast<double>(n_));
}

double mann_whitney_p(const std::vector<double>& a, const std::vector<double>& b) {
  const std::size_t n1 = a.size(), n2 = b.size();
  if (n1 == 0 || n2 == 0) return 1.0;
  std::vector<std::pair<double, int>> all;
  all.reserve(n1 + n2);
  for (double x : a) all.emplace_back(x, 0);
  for (double x : b) all.emplace_back(x, 1);
  std::sort(all.begin(), all.end(), [](const auto& l, const auto& r) { return l.first < r.first; });
  // Midranks for ties; the tie term corrects the variance.
  double rank_sum_a = 0, tie_term = 0;
  for (std::size_t i = 0; i < all.size();) {
    std::size_t j = i;
    while (j < all.size() && all[j].first == all[i].first) ++j;
    const double rank = 0.5 * static_cast<double>(i + 1 + j);  // mean of ranks i+1 .. j
    for (std::size_t k = i; k < j; ++k)
      if (all[k].second == 0) rank_sum_a += rank;
    const double t = static_cast<double>(j - i);
    tie_term += t * t * t - t;
    i = j;
  }
  const double N1 = static_cast<double>(n1), N2 = static_cast<double>(n2), N = N1 + N2;
  const double u = rank_sum_a - N1 * (N1 + 1) / 2;
  const double mean_u = N1 * N2 / 2;
  const double var_u = N1 * N2 / 12 * ((N + 1) - tie_term / (N * (N - 1)));
  if (!(var_u > 0)) return 1.0;  // every value equal
  const double z = std::max(0.0, std::fabs(u - mean_u) - 0.5) / std::sqrt(var_u);
  return std::erfc(z / std::sqrt(2.0));
}

}  // namespace memscope
