#pragma once
// Plateaus of a latency curve (working-set bytes -> cycles per load): each cache level shows as
// a run of points at about one latency, and the level's capacity is the largest working set
// still on it. Pure C++, so the detection is unit-tested on synthetic curves.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <utility>
#include <vector>

namespace memscope {

struct latency_level {
  double first_bytes = 0;  // smallest working set on the plateau
  double last_bytes = 0;   // largest: the level's measured capacity bound
  double cycles = 0;       // median latency on the plateau
  std::size_t points = 0;
};

namespace detail {
/// The median of curve[begin, end)'s values (the mean of the middle two for an even count).
inline double run_median(const std::vector<std::pair<double, double>>& curve, std::size_t begin, std::size_t end) {
  std::vector<double> ys;
  for (std::size_t i = begin; i < end; ++i) ys.push_back(curve[i].second);
  std::sort(ys.begin(), ys.end());
  const std::size_t m = ys.size() / 2;
  return ys.size() % 2 ? ys[m] : (ys[m - 1] + ys[m]) / 2;
}
}  // namespace detail

/// Splits the curve (sorted by working set) into runs whose values stay within `tolerance`
/// (relative) of the median of the run so far; runs of fewer than `min_points` are transitions
/// between levels, not levels, and are dropped. The median, not the run's first point: a
/// point on the way down from one level (an L2 edge half missed) would otherwise set the next
/// level's value and split its plateau.
inline std::vector<latency_level> detect_levels(std::vector<std::pair<double, double>> curve, double tolerance = 0.12,
                                                std::size_t min_points = 2) {
  std::sort(curve.begin(), curve.end());
  std::vector<latency_level> out;
  std::size_t begin = 0;
  for (std::size_t i = 1; i <= curve.size(); ++i) {
    const double base = detail::run_median(curve, begin, i);
    if (i == curve.size() || !(base > 0) || std::fabs(curve[i].second - base) > tolerance * base) {
      if (i - begin >= min_points) out.push_back({curve[begin].first, curve[i - 1].first, base, i - begin});
      begin = i;
    }
  }
  return out;
}

/// Where a sorted (x, y) curve jumps by more than `factor` between neighbours: the x just
/// before each jump, i.e. the last working set that still fits a level.
inline std::vector<double> level_edges(std::vector<std::pair<double, double>> curve, double factor = 1.5) {
  std::sort(curve.begin(), curve.end());
  std::vector<double> edges;
  for (std::size_t i = 1; i < curve.size(); ++i)
    if (curve[i - 1].second > 0 && curve[i].second > factor * curve[i - 1].second) edges.push_back(curve[i - 1].first);
  return edges;
}

}  // namespace memscope
