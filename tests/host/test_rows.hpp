#pragma once
// Verified, timed result rows for host tests of report, findings, compare and advise.

#include "harness/results.hpp"

#include <string>
#include <utility>
#include <vector>

namespace memscope::testing {

/// A passed, timed row with its axes label built as the harness builds it.
inline case_result timed_row(const std::string& suite, const std::string& name,
                             std::vector<std::pair<std::string, axis_value>> axes, double median, double noise = 0.005) {
  case_result r;
  r.suite = suite;
  r.name = name;
  r.axes = std::move(axes);
  for (const auto& [k, v] : r.axes)
    r.axes_label += (r.axes_label.empty() ? "" : " ") + k + "=" +
                    (std::holds_alternative<std::string>(v) ? std::get<std::string>(v) : std::to_string(std::get<std::int64_t>(v)));
  r.status = case_status::ok;
  r.verification = verification_status::passed;
  r.timed = true;
  r.stats.count = 100;
  r.stats.median = r.stats.min = r.stats.max = r.stats.mean = median;
  r.stats.noise = noise;
  return r;
}

}  // namespace memscope::testing
