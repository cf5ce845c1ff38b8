#pragma once
// The figures of a chase run from every SM pair at once (dsmem/latency, atomics/latency's DSMEM
// chain): what the row records beside its median, how a finding quotes the range, and the
// chart's whisker. One place, so the two suites cannot drift apart.

#include "harness/results.hpp"
#include "harness/state.hpp"
#include "harness/stats.hpp"
#include "harness/text_output.hpp"
#include "memscope/core/placement.hpp"
#include "present/chart_spec.hpp"
#include "present/figure.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

namespace memscope::suites::pair_rows {

inline constexpr const char* min_metric = "cycles_min_pair";
inline constexpr const char* max_metric = "cycles_max_pair";

/// `spread`: cycles per operation of every chase; `sms`: the SM each block ran on.
inline void record(case_state& st, const sample_stats& spread, int clusters, const std::vector<unsigned>& sms,
                   bool sole, int cluster) {
  st.add_metric(min_metric, spread.min);
  st.add_metric(max_metric, spread.max);
  st.add_metric("clusters", static_cast<double>(clusters));
  st.add_metric("sms_used", static_cast<double>(distinct_sms(sms)));
  st.add_label("placement", placement_label(sole, cluster));
}

/// " (181-215 over 66 clusters)"; empty for a row of an older file, which chased one pair.
inline std::string range_text(const case_result& r) {
  if (std::isnan(r.metric(min_metric))) return "";
  return fmt::format(" ({} over {:.0f} clusters)", figure_span(r.metric(min_metric), r.metric(max_metric)),
                     r.metric("clusters"));
}

inline present::row_spread spread() { return present::metric_spread(min_metric, max_metric); }

/// `metric`, judged on its effect: the range over SM pairs is the GPU's spread between places,
/// not the measurement's (present/figure.hpp), and overlaps between any two runs.
inline present::figure_def figure(std::string metric) { return present::cycles_figure(std::move(metric)); }

}  // namespace memscope::suites::pair_rows
