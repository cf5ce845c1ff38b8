#pragma once
// `memscope report`: one self-contained HTML page (inline CSS and SVG, no network, no external
// scripts) with the device card, the ceilings, and for each suite its table and the chart that
// fits it.

#include "harness/results.hpp"

#include <string>
#include <utility>
#include <vector>

namespace memscope::report {

std::string render_html(const results_doc& doc);

/// Where a sorted (x, y) curve jumps by more than `factor` between neighbours: the x just
/// before each jump, i.e. the last working set that still fits a level. For latency plateaus.
std::vector<double> level_edges(std::vector<std::pair<double, double>> curve, double factor = 1.5);

}  // namespace memscope::report
