#include "present/hierarchy.hpp"

#include <fmt/format.h>

namespace memscope::present {
namespace {

map_level make_level(level_id id, const char* key, const char* name, const char* scope,
                     double driver_bytes = no_figure) {
  map_level l;
  l.id = id;
  l.key = key;
  l.name = name;
  l.scope = scope;
  l.driver_bytes = driver_bytes > 0 ? driver_bytes : no_figure;
  return l;
}

}  // namespace

hierarchy empty_hierarchy(const device_info& d) {
  const auto bytes = [](auto v) { return static_cast<double>(v); };
  hierarchy h;
  h.levels = {
      make_level(level_id::registers, "registers", "registers", "SM", bytes(d.regs_per_sm) * 4),
      make_level(level_id::shared, "shared", "shared memory", "SM", bytes(d.shared_per_sm)),
      make_level(level_id::l1, "l1", "L1 cache", "SM"),
      make_level(level_id::constant, "constant", "constant cache", "SM", bytes(d.total_const_mem)),
      // What one block can reach: every block's shared memory in the largest portable cluster.
      make_level(level_id::dsmem, "dsmem", "distributed shared", "cluster",
                 d.cluster_launch ? bytes(d.max_cluster_size_portable) * bytes(d.shared_per_block_optin) : 0),
      make_level(level_id::l2, "l2", "L2 cache", "GPU", bytes(d.l2_bytes)),
      make_level(level_id::dram, "dram", "device memory", "GPU", bytes(d.total_global_mem)),
      make_level(level_id::host, "host", "host link", "GPU"),
      make_level(level_id::peer, "peer", "peer GPUs", "GPU pair"),
  };
  return h;
}

double hierarchy::latency_ns(const map_level& l) const {
  return l.latency_cycles.known() && sm_clock_mhz > 0 ? l.latency_cycles.value / sm_clock_mhz * 1e3 : no_figure;
}

std::string source_of(const case_result& r) { return r.axes_label.empty() ? r.id() : r.id() + " " + r.axes_label; }

map_figure figure_from(const case_result& r, const std::string& metric, const std::string& lo_metric,
                       const std::string& hi_metric) {
  map_figure f;
  f.value = r.metric(metric);
  if (!lo_metric.empty()) f.lo = r.metric(lo_metric);
  if (!hi_metric.empty()) f.hi = r.metric(hi_metric);
  f.source = source_of(r);
  return f;
}

map_figure gbps_from(const case_result& r) {
  map_figure f;
  if (r.gbps > 0) f.value = r.gbps;
  if (r.stats.max > 0 && r.stats.min > 0 && r.gbps > 0 && r.stats.median > 0) {
    f.lo = r.gbps * r.stats.median / r.stats.max;
    f.hi = r.gbps * r.stats.median / r.stats.min;
  }
  f.source = source_of(r);
  return f;
}

std::string unmeasured_reason(const suite_view& v, const std::string& case_name) {
  for (const auto& r : v.doc.results)
    if (r.suite == v.suite && r.name == case_name && !usable(r) && !r.message.empty())
      return (r.status == case_status::skipped ? "skipped: " : "failed: ") + r.message;
  return {};
}

crossing first_below(const std::vector<std::pair<double, double>>& curve, double plateau, double fraction,
                     double from_x) {
  const double line = fraction * plateau;
  for (std::size_t i = 1; i < curve.size(); ++i) {
    const auto& [x0, y0] = curve[i - 1];
    const auto& [x1, y1] = curve[i];
    if (x0 < from_x || !(y0 >= line) || !(y1 < line)) continue;
    return {x0, x1, x0 + (x1 - x0) * (y0 - line) / (y0 - y1)};
  }
  return {};
}

}  // namespace memscope::present
