#include "report/charts.hpp"

#include "harness/text_output.hpp"
#include "memscope/core/levels.hpp"
#include "report/svg_chart.hpp"

#include <fmt/format.h>

#include <cmath>
#include <map>

namespace memscope::report {
namespace {

using present::chart_kind;
using present::chart_spec;
using present::row_list;

axis_scale to_axis(present::scale s) {
  switch (s) {
    case present::scale::linear:
      return axis_scale::linear;
    case present::scale::log10:
      return axis_scale::log10;
    case present::scale::log2:
      return axis_scale::log2;
    case present::scale::log2_bytes:
      return axis_scale::log2_bytes;
  }
  return axis_scale::linear;
}

/// The copy ceiling a chart draws: its rows' run's (0: none). A chart's rows are one case of
/// one suite, measured in one run.
double chart_ceiling(const chart_spec& spec, const row_list& rows, const results_doc& doc) {
  if (!spec.copy_ceiling) return 0;
  return rows.empty() ? doc.copy_ceiling_gbps : copy_ceiling_of(doc, *rows.front());
}

spread spread_of(const chart_spec& spec, const case_result& r) {
  if (!spec.spread_from_samples && !spec.y_spread) return {};
  const auto [lo, hi] = spec.spread_from_samples ? present::sample_range(r, spec.y(r)) : spec.y_spread(r);
  return {lo, hi};
}

std::vector<std::pair<double, double>> xy_of(const std::vector<point>& points) {
  std::vector<std::pair<double, double>> out;
  for (const auto& p : points) out.push_back({p.x, p.y});
  return out;
}

std::string render_one(const chart_spec& spec, const row_list& rows, const std::string& title, const results_doc& doc) {
  if (spec.kind == chart_kind::bars) {
    bar_chart c;
    c.title = title;
    c.value_label = spec.y_label;
    c.peer_key = spec.peer_key;
    c.range_key = spec.spread_key;
    for (const auto* r : rows) {
      const double v = spec.y(*r);
      if (std::isfinite(v)) c.bars.push_back({spec.label(*r), v, spec.peer && spec.peer(*r), spread_of(spec, *r)});
    }
    if (const double ceiling = chart_ceiling(spec, rows, doc); ceiling > 0)
      c.reference_lines.push_back({"copy ceiling", ceiling});
    return render(c);
  }
  line_chart c;
  c.title = title;
  c.x_label = spec.x_label;
  c.y_label = spec.y_label;
  c.x_scale = to_axis(spec.x_scale);
  c.y_scale = to_axis(spec.y_scale);
  c.range_key = spec.spread_key;
  std::map<std::string, std::size_t> index;
  const auto add = [&](const std::string& name, bool dashed, double x, double y, spread range) {
    if (!index.count(name)) {
      index[name] = c.lines.size();
      c.lines.push_back({name, {}, dashed});
    }
    if (std::isfinite(x) && std::isfinite(y)) c.lines[index[name]].points.push_back({x, y, range});
  };
  for (const auto* r : rows) add(spec.label(*r), false, spec.x(*r), spec.y(*r), spread_of(spec, *r));
  for (const auto& m : spec.models)
    for (const auto* r : rows)
      if (!m.keep || m.keep(*r)) add(m.name(*r), true, spec.x(*r), m.y(*r), {});
  if (spec.level_marks && !c.lines.empty())
    for (double edge : level_edges(xy_of(c.lines.front().points)))
      c.x_marks.push_back({edge, "level ends " + format_bytes(edge)});
  if (const double ceiling = chart_ceiling(spec, rows, doc); ceiling > 0) c.y_refs.push_back({"copy ceiling", ceiling});
  return render(c);
}

std::string fixed_text(const chart_spec& spec, std::int64_t v) {
  return spec.fixed_is_bytes ? format_bytes(static_cast<double>(v)) : std::to_string(v);
}

std::string with_token(std::string title, const std::string& token, const std::string& value) {
  const auto p = title.find(token);
  if (p != std::string::npos) title.replace(p, token.size(), value);
  return title;
}

std::vector<std::string> generic_charts(const present::suite_view& v) {
  const auto rows = v.rows();
  bool any_bytes = false;
  for (const auto* r : rows) any_bytes |= r->gbps > 0;
  bar_chart c;
  c.title = v.suite;
  c.value_label = any_bytes ? "GB/s (bytes read + written / median time)" : "elements per second";
  c.range_key = present::sample_spread_key;
  for (const auto* r : rows) {
    const double v = any_bytes ? r->gbps : r->elements_per_s;
    const auto [lo, hi] = present::sample_range(*r, v);
    c.bars.push_back({r->name + " " + r->axes_label, v, false, {lo, hi}});
  }
  const auto svg = render(c);
  return svg.empty() ? std::vector<std::string>{} : std::vector<std::string>{svg};
}

}  // namespace

std::vector<std::string> charts_for(const suite_info* info, const present::suite_view& view) {
  if (!info || info->charts.empty()) return generic_charts(view);
  std::vector<std::string> out;
  for (const auto& spec : info->charts) {
    auto rows = view.rows(spec.keep);
    std::string title = spec.title;
    if (!spec.fixed_axis.empty()) {
      const auto n = present::largest(rows, spec.fixed_axis);
      rows = present::filter(rows, [&](const case_result& r) { return r.int_axis(spec.fixed_axis) == n; });
      title = with_token(title, "{fixed}", fixed_text(spec, n));
    }
    if (rows.empty()) continue;
    std::vector<std::pair<std::string, row_list>> panels;
    if (spec.panel_axis.empty()) {
      panels.push_back({title, rows});
    } else {
      for (const auto& s : present::string_values(rows, spec.panel_axis))
        panels.push_back({with_token(title, "{panel}", s), present::filter(rows, [&](const case_result& r) {
                            return r.string_axis(spec.panel_axis) == s;
                          })});
      for (const auto n : present::int_values(rows, spec.panel_axis))
        panels.push_back(
            {with_token(title, "{panel}",
                        spec.panel_is_bytes ? format_bytes(static_cast<double>(n)) : std::to_string(n)),
             present::filter(rows, [&](const case_result& r) { return r.int_axis(spec.panel_axis) == n; })});
    }
    for (const auto& [t, p] : panels) {
      const auto svg = render_one(spec, p, t, view.doc);
      if (!svg.empty()) out.push_back(svg);
    }
  }
  return out;
}

}  // namespace memscope::report
