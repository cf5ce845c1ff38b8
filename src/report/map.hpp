#pragma once
// `memscope map`: the hierarchy derived from a results document (each suite's map readers),
// drawn for a terminal, as JSON, and as an SVG to scale for the HTML report.

#include "harness/registry.hpp"
#include "harness/results.hpp"
#include "present/hierarchy.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace memscope::report {

/// Every suite's map readers over the document's rows; levels no row describes say why.
present::hierarchy derive_hierarchy(const results_doc& doc, const registry& reg);

/// The terminal map: one line per level (capacity measured and as the driver says, latency in
/// cycles and ns, read bandwidth, each with a bar on a log scale), then what is missing and why.
std::vector<std::string> map_lines(const present::hierarchy& h, const device_info& d);

/// The levels as JSON: every figure with its source row.
nlohmann::json map_json(const present::hierarchy& h);

/// The hierarchy drawn to scale (box widths: capacity on a log scale), each box labelled with
/// its figures and linking to `#suite-<name>` of the figure's source. Empty when no level was
/// measured.
std::string map_svg(const present::hierarchy& h, const device_info& d);

}  // namespace memscope::report
