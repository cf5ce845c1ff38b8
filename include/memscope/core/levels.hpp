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

/// Splits the curve (sorted by working set) into runs whose latencies stay within `tolerance`
/// (relative) of the run's first point; runs of fewer than `min_points` are transitions
/// between levels, not levels, and are dropped.
inline std::vector<latency_level> detect_levels(std::vector<std::pair<double, double>> curve, double tolerance = 0.12,
                                                std::size_t min_points = 2) {
  std::sort(curve.begin(), curve.end());
  std::vector<latency_level> out;
  std::size_t begin = 0;
  const auto close_run = [&](std::size_t end) {
    if (end - begin < min_points) return;
    std::vector<double> ys;
    for (std::size_t i = begin; i < end; ++i) ys.push_back(curve[i].second);
    std::nth_element(ys.begin(), ys.begin() + ys.size() / 2, ys.end());
    out.push_back({curve[begin].first, curve[end - 1].first, ys[ys.size() / 2], end - begin});
  };
  for (std::size_t i = 1; i <= curve.size(); ++i) {
    const double base = curve[begin].second;
    if (i == curve.size() || !(base > 0) || std::fabs(curve[i].second - base) > tolerance * base) {
      close_run(i);
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
