#pragma once
// Turns the chart specs a suite declares into SVG; a suite without specs gets one generic bar
// chart. Knows no suite by name.

#include "harness/registry.hpp"
#include "present/rows.hpp"

#include <string>
#include <vector>

namespace memscope::report {

/// Rendered <svg> charts for one suite of the document (`info` may be null).
std::vector<std::string> charts_for(const suite_info* info, const present::suite_view& view);

}  // namespace memscope::report
