#include "present/findings.hpp"

#include "harness/text_output.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace memscope::present {

std::int64_t size_for_fact(const row_list& rows, const std::string& axis_name, std::optional<double> at,
                           std::string& note) {
  if (!at) return largest(rows, axis_name);
  const auto* r = nearest(rows, axis_name, *at);
  if (!r) return largest(rows, axis_name);
  const auto b = r->int_axis(axis_name).value_or(0);
  if (static_cast<double>(b) != *at)
    note = "nearest measured size to " + format_bytes(*at) + ": " + format_bytes(static_cast<double>(b));
  return b;
}

finding_rule spread_vs_baseline(std::string metric, std::string what) {
  return [metric, what](const suite_view& v, std::vector<std::string>& out) {
    const auto rows = v.rows([&](const case_result& r) { return std::isfinite(r.metric(metric)); });
    if (rows.empty()) return;
    double lo = 1e300, hi = -1e300;
    for (const auto* r : rows) {
      lo = std::min(lo, r->metric(metric));
      hi = std::max(hi, r->metric(metric));
    }
    out.push_back(fmt::format("{}: {:.3f}x to {:.3f}x over {} points", what, lo, hi, rows.size()));
  };
}

double l1_capacity(const device_info& d) {
  return d.shared_per_sm > 0 ? static_cast<double>(d.shared_per_sm) + 32 * 1024 : 256.0 * 1024;
}

std::string level_name(const latency_level& l, const device_info& d, bool per_sm) {
  const double l1 = l1_capacity(d);
  const double l2 = d.l2_bytes > 0 ? static_cast<double>(d.l2_bytes) : 50.0 * (1 << 20);
  const double x = l.last_bytes;
  if (x <= l1) return "L1";
  if (per_sm) return x * d.sm_count <= 1.5 * l2 ? "L2" : "DRAM";
  return x <= 1.5 * l2 ? "L2" : "DRAM";
}

std::string describe_levels(const std::vector<latency_level>& levels, const device_info& d,
                            const std::function<std::string(double)>& value, double largest_x,
                            const level_text_options& opt) {
  const auto name = [&](const latency_level& l) { return level_name(l, d, opt.per_sm); };
  std::vector<latency_level> merged;
  for (const auto& l : levels) {
    const bool same = !merged.empty() && name(merged.back()) == name(l);
    if (same && (opt.bandwidth || std::fabs(l.cycles - merged.back().cycles) < 0.1 * merged.back().cycles)) {
      merged.back().last_bytes = l.last_bytes;
      merged.back().points += l.points;
      if (opt.bandwidth) merged.back().cycles = std::max(merged.back().cycles, l.cycles);
    } else {
      merged.push_back(l);
    }
  }
  std::string text;
  for (const auto& l : merged) {
    const bool open_end = l.last_bytes >= largest_x;
    text += fmt::format("{}{} {} {} {}", text.empty() ? "" : "; ", name(l), value(l.cycles),
                        open_end ? "from" : "up to", format_bytes(open_end ? l.first_bytes : l.last_bytes));
  }
  return text;
}

}  // namespace memscope::present
