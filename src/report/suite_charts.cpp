#include "report/suite_charts.hpp"

#include "report/html_report.hpp"
#include "report/svg_chart.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <optional>

namespace memscope::report {
namespace {

/// The largest value an integer axis takes among timed rows: charts show the biggest problem.
std::int64_t largest(const suite_rows& rows, const std::string& axis_name) {
  std::int64_t m = 0;
  for (const auto* r : rows)
    if (r->timed)
      if (auto v = r->int_axis(axis_name)) m = std::max(m, *v);
  return m;
}

bar_chart gbps_bars(const std::string& title, const suite_rows& rows, const results_doc& doc,
                    const std::function<bool(const case_result&)>& keep,
                    const std::function<std::string(const case_result&)>& label,
                    const std::function<bool(const case_result&)>& peer) {
  bar_chart c;
  c.title = title;
  c.value_label = "GB/s (bytes read + written / median time)";
  for (const auto* r : rows)
    if (r->timed && keep(*r)) c.bars.push_back({label(*r), r->gbps, peer(*r)});
  if (doc.copy_ceiling_gbps > 0) c.reference_lines.push_back({"copy ceiling", doc.copy_ceiling_gbps});
  return c;
}

/// One line per distinct value of `series_of`, x from `x_of`, y from `y_of`.
line_chart lines(const std::string& title, const std::string& xl, const std::string& yl, const suite_rows& rows,
                 const std::function<bool(const case_result&)>& keep,
                 const std::function<std::string(const case_result&)>& series_of,
                 const std::function<double(const case_result&)>& x_of,
                 const std::function<double(const case_result&)>& y_of) {
  line_chart c;
  c.title = title;
  c.x_label = xl;
  c.y_label = yl;
  std::map<std::string, std::size_t> index;
  for (const auto* r : rows) {
    if (!r->timed || !keep(*r)) continue;
    const auto name = series_of(*r);
    if (!index.count(name)) {
      index[name] = c.lines.size();
      c.lines.push_back({name, {}, false});
    }
    const double y = y_of(*r);
    if (std::isfinite(y)) c.lines[index[name]].points.push_back({x_of(*r), y});
  }
  return c;
}

auto always = [](const case_result&) { return true; };
auto never = [](const case_result&) { return false; };

std::vector<std::string> bandwidth_charts(const suite_rows& rows, const results_doc& doc) {
  const auto size = largest(rows, "bytes");
  return {render(gbps_bars(
      fmt::format("STREAM-like kernels at {} MiB per array", size >> 20), rows, doc,
      [&](const case_result& r) { return r.int_axis("bytes") == size; },
      [](const case_result& r) { return r.name + (r.variant.empty() ? "" : " " + r.variant); },
      [](const case_result& r) { return r.name == "memcpy"; }))};
}

std::vector<std::string> reduce_charts(const suite_rows& rows, const results_doc& doc) {
  const auto n = largest(rows, "elements");
  return {render(gbps_bars(
      fmt::format("Sum of {} values: memscope variants against CUB", n), rows, doc,
      [&](const case_result& r) { return r.int_axis("elements") == n; },
      [](const case_result& r) { return r.string_axis("kernel") + " " + r.string_axis("type"); },
      [](const case_result& r) { return r.string_axis("kernel") == "cub"; }))};
}

std::vector<std::string> coalescing_charts(const suite_rows& rows, const results_doc&) {
  auto series_name = [](const case_result& r) {
    return fmt::format("{} B {}", r.int_axis("elem_bytes").value_or(0), r.string_axis("direction"));
  };
  auto gb = [](const case_result& r) { return r.gbps; };
  auto offset = lines("Bandwidth vs start offset (useful bytes)", "offset (elements)", "GB/s", rows,
                      [](const case_result& r) { return r.name == "offset"; }, series_name,
                      [](const case_result& r) { return static_cast<double>(r.int_axis("offset").value_or(0)); }, gb);
  auto stride = lines("Bandwidth vs stride (useful bytes)", "stride (elements)", "GB/s", rows,
                      [](const case_result& r) { return r.name == "stride"; }, series_name,
                      [](const case_result& r) { return static_cast<double>(r.int_axis("stride").value_or(1)); }, gb);
  stride.log_x = stride.log_y = true;
  // The sector model, scaled to the measured unit-stride 4-byte read.
  series model{"sector model (4 B read)", {}, true};
  double base = 0;
  for (const auto* r : rows)
    if (r->timed && r->name == "stride" && r->int_axis("elem_bytes") == 4 && r->string_axis("direction") == "read") {
      if (r->int_axis("stride") == 1) base = r->gbps;
    }
  for (const auto* r : rows)
    if (r->timed && r->name == "stride" && r->int_axis("elem_bytes") == 4 && r->string_axis("direction") == "read")
      model.points.push_back({static_cast<double>(r->int_axis("stride").value_or(1)), base * r->metric("predicted_efficiency")});
  if (base > 0) stride.lines.push_back(model);
  return {render(offset), render(stride)};
}

std::vector<std::string> bank_charts(const suite_rows& rows, const results_doc&) {
  std::vector<std::string> out;
  for (const std::string op : {"load", "store"}) {
    auto chart = lines(
        "Shared memory " + op + "s: cycles per warp-access vs stride", "stride (words)", "cycles per warp-access", rows,
        [&](const case_result& r) { return r.name == "stride" && r.string_axis("op") == op; },
        [](const case_result& r) { return fmt::format("{} B measured", r.int_axis("word_bytes").value_or(0)); },
        [](const case_result& r) { return static_cast<double>(r.int_axis("stride").value_or(1)); },
        [](const case_result& r) { return r.metric("cycles_per_access"); });
    std::map<std::int64_t, series> predicted;
    for (const auto* r : rows)
      if (r->timed && r->name == "stride" && r->string_axis("op") == op) {
        const auto w = r->int_axis("word_bytes").value_or(0);
        auto& s = predicted[w];
        s.name = fmt::format("{} B predicted", w);
        s.dashed = true;
        s.points.push_back({static_cast<double>(r->int_axis("stride").value_or(1)), r->metric("predicted_wavefronts")});
      }
    for (auto& [w, s] : predicted) chart.lines.push_back(s);
    chart.log_x = true;
    if (!chart.lines.empty()) out.push_back(render(chart));
  }
  bar_chart col;
  col.title = "Column access of a 32x32 tile: the fixes";
  col.value_label = "cycles per warp-access (lower is better)";
  for (const auto* r : rows)
    if (r->timed && r->name == "column")
      col.bars.push_back({r->string_axis("layout") + " " + r->string_axis("op"), r->metric("cycles_per_access"),
                          r->string_axis("layout") == "naive"});
  if (!col.bars.empty()) out.push_back(render(col));
  return out;
}

std::vector<std::string> grouped_gbps(const std::string& title, const suite_rows& rows, const results_doc& doc,
                                      const std::string& size_axis, const std::vector<std::string>& label_axes,
                                      const std::string& peer_axis = {}, const std::string& peer_value = {}) {
  const auto n = size_axis.empty() ? 0 : largest(rows, size_axis);
  return {render(gbps_bars(
      n ? fmt::format("{} ({} = {})", title, size_axis, n) : title, rows, doc,
      [&](const case_result& r) { return size_axis.empty() || r.int_axis(size_axis) == n; },
      [&](const case_result& r) {
        std::string l;
        for (const auto& a : label_axes) {
          const auto s = r.string_axis(a);
          l += (l.empty() ? "" : " ") + (s.empty() ? a + "=" + std::to_string(r.int_axis(a).value_or(0)) : s);
        }
        return l;
      },
      [&](const case_result& r) { return !peer_axis.empty() && r.string_axis(peer_axis) == peer_value; }))};
}

std::vector<std::string> constant_charts(const suite_rows& rows, const results_doc&) {
  auto bc = lines(
      "Warp-load cost vs distinct addresses per warp", "distinct addresses k", "cycles per warp-load", rows,
      [](const case_result& r) { return r.name == "broadcast"; }, [](const case_result& r) { return r.string_axis("space"); },
      [](const case_result& r) { return static_cast<double>(r.int_axis("distinct").value_or(1)); },
      [](const case_result& r) { return r.metric("cycles_per_load"); });
  bc.log_x = true;
  auto ws = lines(
      "Constant-memory latency vs working set", "working set (bytes)", "cycles per load", rows,
      [](const case_result& r) { return r.name == "working_set"; }, [](const case_result&) { return std::string("__constant__ chase"); },
      [](const case_result& r) { return static_cast<double>(r.int_axis("ws_bytes").value_or(0)); },
      [](const case_result& r) { return r.metric("cycles_per_load"); });
  ws.log_x = true;
  if (!ws.lines.empty())
    for (double edge : level_edges(ws.lines.front().points)) ws.x_marks.push_back({edge, fmt::format("level ends {:.0f} B", edge)});
  std::vector<std::string> out;
  for (const auto* c : {&bc, &ws})
    if (!c->lines.empty()) out.push_back(render(*c));
  return out;
}

/// Ratio to CUB against the bin count, one line per strategy (uniform samples, largest n):
/// where each cluster size wins and where global atomics take over.
std::vector<std::string> histogram_charts(const suite_rows& rows, const results_doc&) {
  const auto n = largest(rows, "samples");
  std::vector<std::string> out;
  for (const std::string dist : {"uniform", "one_bin"}) {
    auto c = lines(fmt::format("Histogram of {} {} samples: speed relative to CUB HistogramEven", n, dist), "bins",
                   "x CUB (higher is better)", rows,
                   [&](const case_result& r) {
                     return r.name == "even" && r.int_axis("samples") == n && r.string_axis("distribution") == dist &&
                            r.string_axis("strategy") != "cub";
                   },
                   [](const case_result& r) { return r.string_axis("strategy"); },
                   [](const case_result& r) { return static_cast<double>(r.int_axis("bins").value_or(1)); },
                   [](const case_result& r) { return r.metric("speedup_vs_cub"); });
    c.log_x = c.log_y = true;
    if (!c.lines.empty()) out.push_back(render(c));
  }
  bar_chart seed;
  seed.title = "The seed's table on this GPU: 10M floats, 2048 bins";
  seed.value_label = "microseconds per histogram (lower is better)";
  for (const auto* r : rows)
    if (r->timed && r->name == "seed_table")
      seed.bars.push_back({r->string_axis("strategy"), r->stats.median * 1e6, r->string_axis("strategy") == "cub"});
  if (!seed.bars.empty()) out.push_back(render(seed));
  return out;
}

std::vector<std::string> dsmem_charts(const suite_rows& rows, const results_doc& doc) {
  std::vector<std::string> out;
  bar_chart lat;
  lat.title = "Dependent-load latency: own shared memory, a peer's (DSMEM), L2";
  lat.value_label = "cycles per load";
  for (const auto* r : rows)
    if (r->timed && r->name == "latency")
      lat.bars.push_back({r->string_axis("target"), r->metric("cycles_per_load"), r->string_axis("target") == "shared"});
  if (!lat.bars.empty()) out.push_back(render(lat));
  for (const std::string op : {"read", "write"}) {
    bar_chart bw = gbps_bars("Shared-memory " + op + " bandwidth, all SMs: own vs the neighbour block's", rows, doc,
                             [&](const case_result& r) { return r.name == "bandwidth" && r.string_axis("op") == op; },
                             [](const case_result& r) {
                               return fmt::format("{} {} B", r.string_axis("target"), r.int_axis("width").value_or(0));
                             },
                             [](const case_result& r) { return r.string_axis("target") == "shared"; });
    if (!bw.bars.empty()) out.push_back(render(bw));
  }
  bar_chart tp = gbps_bars("Transpose: DSMEM super-tiles vs naive and padded 64x64 tiles", rows, doc,
                           [](const case_result& r) { return r.name == "transpose"; },
                           [](const case_result& r) { return r.string_axis("kernel") + " " + r.string_axis("shape"); },
                           [](const case_result& r) { return r.string_axis("kernel") == "padded64"; });
  if (!tp.bars.empty()) out.push_back(render(tp));
  return out;
}

/// Latency against working set, one line per path (log x): the plateaus are the cache levels.
std::vector<std::string> latency_charts(const suite_rows& rows, const results_doc&) {
  auto c = lines("Pointer-chase latency vs working set", "working set (bytes)", "cycles per load", rows, always,
                 [](const case_result& r) { return r.name == "global" ? r.string_axis("path") + " loads" : r.name; },
                 [](const case_result& r) { return static_cast<double>(r.int_axis("ws_bytes").value_or(0)); },
                 [](const case_result& r) { return r.metric("cycles_per_load"); });
  c.log_x = true;
  if (c.lines.empty()) return {};
  return {render(c)};
}

/// Read bandwidth against working set, one line per sharing mode (log-log).
std::vector<std::string> cache_bandwidth_charts(const suite_rows& rows, const results_doc&) {
  auto c = lines("Read bandwidth vs working set (L1, L2, DRAM)", "buffer (bytes)", "GB/s", rows, always,
                 [](const case_result& r) { return r.string_axis("sharing"); },
                 [](const case_result& r) { return static_cast<double>(r.int_axis("ws_bytes").value_or(0)); },
                 [](const case_result& r) { return r.gbps; });
  c.log_x = c.log_y = true;
  if (c.lines.empty()) return {};
  return {render(c)};
}

std::vector<std::string> texture_charts(const suite_rows& rows, const results_doc& doc) {
  std::vector<std::string> out;
  const auto table = largest(rows, "table_bytes");
  bar_chart acc = gbps_bars(fmt::format("Gather by pattern: global vs __ldg vs texture ({} MiB table)", table >> 20), rows, doc,
                            [&](const case_result& r) { return r.name == "access" && r.int_axis("table_bytes") == table; },
                            [](const case_result& r) { return r.string_axis("pattern") + " " + r.string_axis("source"); },
                            [](const case_result& r) { return r.string_axis("source") == "global"; });
  if (!acc.bars.empty()) out.push_back(render(acc));
  bar_chart lat;
  lat.title = "One warp of dependent loads by pattern (the seed's ns-per-access table)";
  lat.value_label = "ns per load (lower is better)";
  for (const auto* r : rows)
    if (r->timed && r->name == "latency")
      lat.bars.push_back({r->string_axis("pattern") + " " + r->string_axis("source"), r->metric("ns_per_load"),
                          r->string_axis("source") == "global"});
  if (!lat.bars.empty()) out.push_back(render(lat));
  bar_chart box = gbps_bars("3x3 box filter: row-major global / __ldg vs a cudaArray texture", rows, doc,
                            [](const case_result& r) { return r.name == "box3x3"; },
                            [](const case_result& r) { return r.string_axis("source") + " " + r.string_axis("shape"); },
                            [](const case_result& r) { return r.string_axis("source") == "global"; });
  if (!box.bars.empty()) out.push_back(render(box));
  return out;
}

std::vector<std::string> cache_config_charts(const suite_rows& rows, const results_doc&) {
  std::vector<std::string> out;
  for (const std::int64_t smem : {std::int64_t{0}, std::int64_t{100 * 1024}}) {
    auto c = lines(fmt::format("Re-reading a per-SM window, {} KiB of shared memory allocated: GB/s by cache setting", smem / 1024),
                   "window per SM (bytes)", "GB/s", rows,
                   [&](const case_result& r) { return r.name == "reuse" && r.int_axis("smem_bytes") == smem; },
                   [](const case_result& r) { return r.string_axis("setting"); },
                   [](const case_result& r) { return static_cast<double>(r.int_axis("window_bytes").value_or(0)); },
                   [](const case_result& r) { return r.gbps; });
    if (!c.lines.empty()) out.push_back(render(c));
  }
  auto mm = lines("Tiled matmul: speed relative to PreferNone (the seed claims 5-20%)", "n", "x PreferNone", rows,
                  [](const case_result& r) { return r.name == "matmul"; }, [](const case_result& r) { return r.string_axis("setting"); },
                  [](const case_result& r) { return static_cast<double>(r.int_axis("n").value_or(0)); },
                  [](const case_result& r) { return r.metric("speedup_vs_none"); });
  mm.log_x = true;
  if (!mm.lines.empty()) out.push_back(render(mm));
  return out;
}

std::vector<std::string> cache_control_charts(const suite_rows& rows, const results_doc&) {
  std::vector<std::string> out;
  const auto ratio_bars = [&](const std::string& title, const std::string& name, const std::string& metric_name,
                              const std::function<std::string(const case_result&)>& label,
                              const std::function<bool(const case_result&)>& peer) {
    bar_chart c;
    c.title = title;
    c.value_label = "speed relative to the baseline (higher is better)";
    for (const auto* r : rows)
      if (r->timed && r->name == name) c.bars.push_back({label(*r), r->metric(metric_name), peer(*r)});
    if (!c.bars.empty()) out.push_back(render(c));
  };
  ratio_bars("L2 persistence: hot table beside a 1 GiB stream", "persistence", "speedup_vs_normal",
             [](const case_result& r) { return fmt::format("{} {} MiB", r.string_axis("policy"), r.int_axis("hot_bytes").value_or(0) >> 20); },
             [](const case_result& r) { return r.string_axis("policy") == "normal"; });
  ratio_bars("Load hints on a window re-read through L1", "l1_hints", "speedup_vs_plain",
             [](const case_result& r) { return r.string_axis("hint"); }, [](const case_result& r) { return r.string_axis("hint") == "plain"; });
  ratio_bars("Load and store hints on a stream beside an L2-resident table", "hints", "speedup_vs_default",
             [](const case_result& r) { return fmt::format("{} {} MiB", r.string_axis("hint"), r.int_axis("reused_bytes").value_or(0) >> 20); },
             [](const case_result& r) { return r.string_axis("hint") == "load_ca"; });
  ratio_bars("prefetch.global.L2 ahead of a latency-bound walk", "prefetch", "speedup_vs_none",
             [](const case_result& r) { return fmt::format("prefetch {} d={}", r.string_axis("prefetch"), r.int_axis("distance").value_or(0)); },
             [](const case_result& r) { return r.string_axis("prefetch") == "none"; });
  ratio_bars("Packed 120-byte vs __align__(128) records", "alignment", "speedup_vs_packed",
             [](const case_result& r) { return fmt::format("{} {} records", r.string_axis("layout"), r.int_axis("records").value_or(0)); },
             [](const case_result& r) { return r.string_axis("layout") == "packed120"; });
  return out;
}

std::vector<std::string> generic_charts(const std::string& suite, const suite_rows& rows, const results_doc& doc) {
  bool any_bytes = false;
  for (const auto* r : rows) any_bytes |= r->timed && r->gbps > 0;
  if (any_bytes)
    return {render(gbps_bars(suite, rows, doc, always, [](const case_result& r) { return r.name + " " + r.axes_label; }, never))};
  bar_chart c;
  c.title = suite;
  c.value_label = "elements per second";
  for (const auto* r : rows)
    if (r->timed) c.bars.push_back({r->name + " " + r->axes_label, r->elements_per_s, false});
  return {render(c)};
}

}  // namespace

std::vector<std::string> charts_for(const std::string& suite, const suite_rows& rows, const results_doc& doc) {
  if (suite == "bandwidth") return bandwidth_charts(rows, doc);
  if (suite == "reduce") return reduce_charts(rows, doc);
  if (suite == "coalescing") return coalescing_charts(rows, doc);
  if (suite == "bank_conflicts") return bank_charts(rows, doc);
  if (suite == "transpose") {
    bar_chart c = gbps_bars("Transpose: kernels by shape", rows, doc, always,
                            [](const case_result& r) { return r.string_axis("kernel") + " " + r.string_axis("shape"); },
                            [](const case_result& r) { return r.string_axis("kernel") == "naive"; });
    return {render(c)};
  }
  if (suite == "stencil") return grouped_gbps("Stencil by coefficient source and radius", rows, doc, "elements", {"source", "radius"});
  if (suite == "transform") return grouped_gbps("4x4 transform by matrix source", rows, doc, "elements", {"matrix", "point"}, "matrix", "constant");
  if (suite == "constant") return constant_charts(rows, doc);
  if (suite == "latency") return latency_charts(rows, doc);
  if (suite == "cache_bandwidth") return cache_bandwidth_charts(rows, doc);
  if (suite == "texture") return texture_charts(rows, doc);
  if (suite == "cache_config") return cache_config_charts(rows, doc);
  if (suite == "cache_control") return cache_control_charts(rows, doc);
  if (suite == "readonly") {
    bar_chart c;
    c.title = "Random gather: lookups per second by path and table size";
    c.value_label = "G lookups/s";
    for (const auto* r : rows)
      if (r->timed)
        c.bars.push_back({r->string_axis("path") + " " + std::to_string(r->int_axis("table_bytes").value_or(0) >> 20) + " MiB",
                          r->elements_per_s / 1e9, r->string_axis("path") == "plain"});
    return {render(c)};
  }
  if (suite == "histogram") return histogram_charts(rows, doc);
  if (suite == "dsmem") return dsmem_charts(rows, doc);
  return generic_charts(suite, rows, doc);
}

}  // namespace memscope::report
