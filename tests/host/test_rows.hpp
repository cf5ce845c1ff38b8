#pragma once
// Verified, timed result rows, and a document to hold them, for host tests of report, findings,
// compare and advise.

#include "harness/results.hpp"

#include <string>
#include <utility>
#include <vector>

namespace memscope::testing {

/// A passed, timed row with its axes label built as the harness builds it.
inline case_result timed_row(const std::string& suite, const std::string& name,
                             std::vector<std::pair<std::string, axis_value>> axes, double median,
                             double noise = 0.005) {
  case_result r;
  r.suite = suite;
  r.name = name;
  r.axes = std::move(axes);
  for (const auto& [k, v] : r.axes)
    r.axes_label +=
        (r.axes_label.empty() ? "" : " ") + k + "=" +
        (std::holds_alternative<std::string>(v) ? std::get<std::string>(v) : std::to_string(std::get<std::int64_t>(v)));
  r.status = case_status::ok;
  r.verification = verification_status::passed;
  r.timed = true;
  r.stats.count = 100;
  r.stats.median = r.stats.min = r.stats.max = r.stats.mean = median;
  r.stats.noise = noise;
  return r;
}

/// A results document with the header every reader checks (tool, commit, mode, command, device
/// name, copy ceiling) and these rows.
inline results_doc doc_of(std::vector<case_result> rows = {}) {
  results_doc d;
  d.tool_version = "0.1.0";
  d.commit = "abc";
  d.mode = "run";
  d.command = "memscope run";
  d.device.name = "Test GPU";
  d.copy_ceiling_gbps = 4000;
  d.results = std::move(rows);
  return d;
}

}  // namespace memscope::testing
