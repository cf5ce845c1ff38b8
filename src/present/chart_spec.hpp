#pragma once
// A chart as a suite declares it, beside its cases: which rows, what goes on each axis, what is
// highlighted and which reference line applies. The report turns specs into SVG without knowing
// any suite. Pure C++.

#include "present/rows.hpp"

#include <cmath>
#include <string>
#include <utility>
#include <vector>

namespace memscope::present {

/// The range behind a plotted figure, (lo, hi); NaN where the row has none.
using row_spread = std::function<std::pair<double, double>(const case_result&)>;

enum class chart_kind { bars, lines };

/// How an axis of numbers is ticked and labelled.
enum class scale { linear, log10, log2, log2_bytes };

struct chart_spec {
  chart_kind kind = chart_kind::bars;
  /// "{fixed}" is replaced by the value `fixed_axis` was held at ("1.0 GiB", "268435456"),
  /// "{panel}" by the panel's value of `panel_axis`.
  std::string title;
  row_pred keep;  // which usable rows of the suite (all when empty)
  /// An integer axis held at its largest measured value: charts show the biggest problem.
  std::string fixed_axis;
  bool fixed_is_bytes = false;
  /// One small chart per value of this axis (empty: one chart).
  std::string panel_axis;
  bool panel_is_bytes = false;
  row_label label;  // a bar's label, or the series a point belongs to
  row_value x;      // lines only
  row_value y;
  /// The spread behind y, drawn as a whisker, and what it spans, said once on the chart.
  row_spread y_spread;
  std::string spread_key;
  /// Instead of y_spread: y at the slowest and the fastest sample (sample_range), for a y
  /// inversely proportional to the median time. Derived from y when drawn, so it follows y.
  bool spread_from_samples = false;
  std::string x_label, y_label;
  scale x_scale = scale::linear, y_scale = scale::linear;
  /// Bars: the reference the others are read against (CUB, cudaMemcpy, the naive kernel),
  /// drawn in the one highlight colour and named in the key.
  row_pred peer;
  std::string peer_key;
  /// Draw the same run's device-to-device copy ceiling: only where DRAM bounds the figure.
  bool copy_ceiling = false;
  /// Lines: a dashed companion series per row group, from a model metric (predictions).
  struct model_series {
    row_pred keep;
    row_label name;
    row_value y;
  };
  std::vector<model_series> models;
  /// Lines: vertical marks where the first series jumps by more than 1.5x (a level ends).
  bool level_marks = false;

  chart_spec& with_spread(row_spread s, std::string key) {
    y_spread = std::move(s);
    spread_key = std::move(key);
    spread_from_samples = false;
    return *this;
  }
  chart_spec& with_sample_spread();
};

/// Builders for the common cases, so declarations read like the chart.
inline row_value gbps() {
  return [](const case_result& r) { return r.gbps; };
}
inline row_value metric_of(std::string name) {
  return [name](const case_result& r) { return r.metric(name); };
}
inline row_value int_axis_of(std::string name) {
  return [name](const case_result& r) { return static_cast<double>(r.int_axis(name).value_or(0)); };
}
/// For a figure `v` of row `r` inversely proportional to the median time (GB/s, operations per
/// second): the figure at the slowest and at the fastest timed sample. NaN for a row of fewer
/// than two.
inline std::pair<double, double> sample_range(const case_result& r, double v) {
  const auto& t = r.stats;
  if (!r.timed || t.count < 2 || !(t.min > 0) || !(t.max >= t.min)) return {NAN, NAN};
  return {v * t.median / t.max, v * t.median / t.min};
}
inline constexpr const char* sample_spread_key = "the slowest to the fastest sample";
inline chart_spec& chart_spec::with_sample_spread() {
  y_spread = {};
  spread_key = sample_spread_key;
  spread_from_samples = true;
  return *this;
}
/// For a figure that is the median time times `scale` (microseconds): the fastest and the
/// slowest sample.
inline row_spread time_spread(double scale) {
  return [scale](const case_result& r) -> std::pair<double, double> {
    if (!r.timed || r.stats.count < 2) return {NAN, NAN};
    return {r.stats.min * scale, r.stats.max * scale};
  };
}
/// Two metrics the row records beside its figure (the fastest and the slowest chase).
inline row_spread metric_spread(std::string lo, std::string hi) {
  return [lo = std::move(lo), hi = std::move(hi)](const case_result& r) {
    return std::pair<double, double>{r.metric(lo), r.metric(hi)};
  };
}
inline row_label label_axes(std::vector<std::string> names) {
  return [names](const case_result& r) { return axes_text(r, names); };
}
inline row_pred axis_is(std::string name, std::string value) {
  return [name, value](const case_result& r) { return r.string_axis(name) == value; };
}
inline row_pred case_is(std::string name) {
  return [name](const case_result& r) { return r.name == name; };
}

/// Bars of GB/s against the same run's copy ceiling, the reference highlighted.
inline chart_spec gbps_bars(std::string title, row_label label, row_pred peer, std::string peer_key) {
  chart_spec c;
  c.title = std::move(title);
  c.label = std::move(label);
  c.y = gbps();
  c.y_label = "GB/s (bytes read + written / median time)";
  c.peer = std::move(peer);
  c.peer_key = std::move(peer_key);
  c.copy_ceiling = true;
  c.with_sample_spread();
  return c;
}

/// Bars of one case's GB/s over a link (PCIe, NVLink, page migration) at its largest `bytes`:
/// no DRAM copy ceiling, which does not bound them.
inline chart_spec link_bars(std::string title, row_label label, row_pred peer, std::string peer_key,
                            std::string case_name, std::string y_label) {
  chart_spec c = gbps_bars(std::move(title), std::move(label), std::move(peer), std::move(peer_key));
  c.keep = case_is(std::move(case_name));
  c.fixed_axis = "bytes";
  c.fixed_is_bytes = true;
  c.copy_ceiling = false;
  c.y_label = std::move(y_label);
  return c;
}

/// One line per series over an integer axis.
inline chart_spec line_plot(std::string title, row_label series, const std::string& x_axis, row_value y,
                            std::string x_label, std::string y_label, scale x_scale) {
  chart_spec c;
  c.kind = chart_kind::lines;
  c.title = std::move(title);
  c.label = std::move(series);
  c.x = int_axis_of(x_axis);
  c.y = std::move(y);
  c.x_label = std::move(x_label);
  c.y_label = std::move(y_label);
  c.x_scale = x_scale;
  return c;
}

}  // namespace memscope::present
