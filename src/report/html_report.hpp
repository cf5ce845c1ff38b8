#pragma once
// `memscope report`: one self-contained HTML page (inline CSS and SVG, no network, no external
// scripts) with the device card, the ceilings, and for each suite its table and the chart that
// fits it.

#include "harness/registry.hpp"
#include "harness/results.hpp"

#include <string>
#include <utility>
#include <vector>

namespace memscope::report {

/// Each suite's findings and charts come from what `reg` declares for it.
std::string render_html(const results_doc& doc, const registry& reg);

}  // namespace memscope::report
