#pragma once
// The one-minute map's plan (`memscope map`, and `memscope run` with no suite named): the
// points every suite declares for the map, sized for the GPU at hand.

#include "harness/registry.hpp"
#include "harness/runner.hpp"

#include <vector>

namespace memscope {

/// Every suite's map points in suite order, each case at the axis values its map point gives
/// and its quick values elsewhere; a point declared twice is measured once. Throws
/// std::logic_error where a suite's map point names an axis value its case refuses.
std::vector<planned_point> plan_map(const registry& reg, const device_info& dev);

}  // namespace memscope
