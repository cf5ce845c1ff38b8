#pragma once
// The one-minute map's model: the GPU's memory levels, each with the figures that describe it
// (capacity as detected and as the driver reports it, latency, read bandwidth, who shares it).
// Suites fill it in from their rows (suite::map_reader); the report draws it. Pure C++; names
// no suite.

#include "memscope/core/device_info.hpp"
#include "present/rows.hpp"

#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace memscope::present {

/// The levels, fastest and smallest first: the order the map draws them in.
enum class level_id { registers, shared, l1, constant, dsmem, l2, dram, host, peer };

inline constexpr double no_figure = std::numeric_limits<double>::quiet_NaN();

/// One measured figure, its spread (over SMs, SM pairs or partitions) where the rows have one,
/// and the row it came from: what the report links to and what a user reruns.
struct map_figure {
  double value = no_figure;
  double lo = no_figure, hi = no_figure;
  std::string source;  // "latency/global path=default ws_bytes=2^10"
  bool known() const { return std::isfinite(value); }
};

struct map_level {
  level_id id = level_id::registers;
  std::string key;    // "l1": stable, for JSON and anchors
  std::string name;   // "L1 cache"
  std::string scope;  // there is one per: "SM", "cluster", "GPU"
  double driver_bytes = no_figure;
  /// Capacity as measured: the largest working set still on the level, and the smallest seen
  /// past it (the edge lies between; their ratio is the detection's resolution).
  double detected_lo = no_figure, detected_hi = no_figure;
  /// The edge itself, where the curve crosses its rule between the two (NaN: the bracket only).
  double detected_bytes = no_figure;
  std::string detected_from;
  map_figure latency_cycles;
  map_figure bandwidth_gbps;
  std::string bandwidth_what;  // "all SMs reading", "pinned host to device"
  std::vector<std::string> notes;
  /// Figures this run could not measure here, each with the reason.
  std::vector<std::string> missing;
  bool measured() const { return latency_cycles.known() || bandwidth_gbps.known() || std::isfinite(detected_lo); }
};

struct hierarchy {
  std::vector<map_level> levels;  // one per level_id, in its order
  /// The SM clock the cycle figures were counted at (MHz; the median the rows measured).
  double sm_clock_mhz = no_figure;
  /// The few findings that matter most, in the order the suites gave them.
  std::vector<std::string> findings;

  map_level& at(level_id id) { return levels.at(static_cast<std::size_t>(id)); }
  const map_level& at(level_id id) const { return levels.at(static_cast<std::size_t>(id)); }
  /// Latency in ns at the measured clock (NaN without a clock or a latency).
  double latency_ns(const map_level& l) const;
};

/// Every level named and scoped, with the driver's capacities; no measured figure yet.
hierarchy empty_hierarchy(const device_info& d);

/// What a suite contributes to the map from its rows.
using map_reader = std::function<void(const suite_view&, hierarchy&)>;

/// "latency/global path=default ws_bytes=2^10": a figure's source as a user reads it.
std::string source_of(const case_result& r);

/// A figure from a row's metric, with the row as its source (lo/hi from `lo_metric` and
/// `hi_metric` where the row has them).
map_figure figure_from(const case_result& r, const std::string& metric, const std::string& lo_metric = {},
                       const std::string& hi_metric = {});

/// A figure from a row's derived GB/s.
map_figure gbps_from(const case_result& r);

/// Why a case gave no usable row in this run: the first skipped or failed row's message, or ""
/// when the run did not measure the case at all.
std::string unmeasured_reason(const suite_view& v, const std::string& case_name);

/// Where a curve (x ascending) first drops below `fraction` of `plateau` at or past `from_x`:
/// {last x at or above it, first x below it, the crossing interpolated linearly between them};
/// NaNs when it never does.
struct crossing {
  double lo = no_figure, hi = no_figure, at = no_figure;
};
crossing first_below(const std::vector<std::pair<double, double>>& curve, double plateau, double fraction,
                     double from_x = 0);

}  // namespace memscope::present
