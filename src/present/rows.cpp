#include "present/rows.hpp"

#include <algorithm>
#include <cmath>

namespace memscope::present {

bool usable(const case_result& r) { return r.timed && r.status == case_status::ok; }

row_list select(const results_doc& doc, const std::string& suite, const row_pred& keep) {
  row_list out;
  for (const auto& r : doc.results)
    if (r.suite == suite && usable(r) && (!keep || keep(r))) out.push_back(&r);
  return out;
}

row_list suite_view::rows(const row_pred& keep) const {
  if (cases.empty()) return select(doc, suite, keep);
  return select(doc, suite, [&](const case_result& r) {
    return std::find(cases.begin(), cases.end(), r.name) != cases.end() && (!keep || keep(r));
  });
}

row_list filter(const row_list& rows, const row_pred& keep) {
  row_list out;
  for (const auto* r : rows)
    if (!keep || keep(*r)) out.push_back(r);
  return out;
}

bool matches(const case_result& r, axis_filter axes) {
  for (const auto& [k, v] : axes) {
    bool hit = false;
    for (const auto& [rk, rv] : r.axes) hit |= rk == k && rv == v;
    if (!hit) return false;
  }
  return true;
}

row_pred where(const std::string& case_name, axis_filter axes) {
  std::vector<std::pair<std::string, axis_value>> copy;
  for (const auto& [k, v] : axes) copy.emplace_back(k, v);
  return [case_name, copy](const case_result& r) {
    if (!case_name.empty() && r.name != case_name) return false;
    for (const auto& [k, v] : copy) {
      bool hit = false;
      for (const auto& [rk, rv] : r.axes) hit |= rk == k && rv == v;
      if (!hit) return false;
    }
    return true;
  };
}

std::int64_t largest(const row_list& rows, const std::string& axis_name) {
  std::int64_t m = 0;
  for (const auto* r : rows) m = std::max(m, r->int_axis(axis_name).value_or(0));
  return m;
}

std::int64_t smallest(const row_list& rows, const std::string& axis_name) {
  const auto values = int_values(rows, axis_name);
  return values.empty() ? 0 : values.front();
}

std::vector<std::int64_t> int_values(const row_list& rows, const std::string& axis_name) {
  std::vector<std::int64_t> out;
  for (const auto* r : rows)
    if (auto v = r->int_axis(axis_name); v && std::find(out.begin(), out.end(), *v) == out.end()) out.push_back(*v);
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> string_values(const row_list& rows, const std::string& axis_name) {
  std::vector<std::string> out;
  for (const auto* r : rows) {
    const auto v = r->string_axis(axis_name);
    if (!v.empty() && std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
  }
  return out;
}

const case_result* best_by(const row_list& rows, const row_value& score) {
  const case_result* best = nullptr;
  for (const auto* r : rows)
    if (std::isfinite(score(*r)) && (!best || score(*r) > score(*best))) best = r;
  return best;
}

const case_result* worst_by(const row_list& rows, const row_value& score) {
  return best_by(rows, [&](const case_result& r) { return -score(r); });
}

const case_result* nearest(const row_list& rows, const std::string& axis_name, double target) {
  const case_result* best = nullptr;
  double best_d = 0;
  const double t = std::log2(std::max(target, 1e-300));
  for (const auto* r : rows) {
    const auto v = r->int_axis(axis_name);
    if (!v || *v <= 0) continue;
    const double d = std::fabs(std::log2(static_cast<double>(*v)) - t);
    if (!best || d < best_d) {
      best = r;
      best_d = d;
    }
  }
  return best;
}

std::optional<line_fit> fit_line(const std::vector<std::pair<double, double>>& points) {
  if (points.size() < 2) return std::nullopt;
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (const auto& [x, y] : points) {
    sx += x;
    sy += y;
    sxx += x * x;
    sxy += x * y;
  }
  const double m = static_cast<double>(points.size()), den = m * sxx - sx * sx;
  if (!(std::fabs(den) > 0)) return std::nullopt;
  const double slope = (m * sxy - sx * sy) / den;
  return line_fit{(sy - slope * sx) / m, slope};
}

std::string axes_text(const case_result& r, const std::vector<std::string>& axis_names) {
  std::string l;
  for (const auto& a : axis_names) {
    auto s = r.string_axis(a);
    // An axis the row lacks (a file from before the axis existed) is left out, not shown as 0.
    if (s.empty()) {
      const auto i = r.int_axis(a);
      if (!i) continue;
      s = a + "=" + std::to_string(*i);
    }
    l += (l.empty() ? "" : " ") + s;
  }
  return l;
}

}  // namespace memscope::present
