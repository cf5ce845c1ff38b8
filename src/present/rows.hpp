#pragma once
// Row queries over a results document, shared by suites' findings, charts and facts: select the
// rows a statement may use, find the largest measured size, the best row by a score, the row
// nearest a requested size. Pure C++; names no suite.

#include "harness/results.hpp"

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace memscope::present {

using row_list = std::vector<const case_result*>;
using row_pred = std::function<bool(const case_result&)>;
using row_value = std::function<double(const case_result&)>;
using row_label = std::function<std::string(const case_result&)>;

/// A row figures may use: timed, verified (status ok). Failed, skipped and untimed rows never
/// feed a chart, a finding or an advice fact.
bool usable(const case_result& r);

/// The usable rows of one suite that `keep` accepts (all of them when keep is empty), in run order.
row_list select(const results_doc& doc, const std::string& suite, const row_pred& keep = {});
/// The subset of `rows` that `keep` accepts.
row_list filter(const row_list& rows, const row_pred& keep);

/// Rows of one case whose axes hold the given values (an axis=value conjunction).
using axis_filter = std::initializer_list<std::pair<const char*, axis_value>>;
row_pred where(const std::string& case_name, axis_filter axes = {});
/// True when the row's axes hold every value in `axes`.
bool matches(const case_result& r, axis_filter axes);

/// The largest value an integer axis takes among `rows` (0 when none has it).
std::int64_t largest(const row_list& rows, const std::string& axis_name);
/// The smallest value an integer axis takes among `rows` (0 when none has it).
std::int64_t smallest(const row_list& rows, const std::string& axis_name);
/// The distinct values of an integer axis, ascending.
std::vector<std::int64_t> int_values(const row_list& rows, const std::string& axis_name);
/// The distinct values of a string axis, in first-seen order.
std::vector<std::string> string_values(const row_list& rows, const std::string& axis_name);

/// The row with the highest finite score, or null.
const case_result* best_by(const row_list& rows, const row_value& score);
/// The row with the lowest finite score, or null.
const case_result* worst_by(const row_list& rows, const row_value& score);

/// The row whose integer axis is nearest `target` on a log scale (sizes, bin counts), or null.
const case_result* nearest(const row_list& rows, const std::string& axis_name, double target);

/// Least-squares line y = intercept + slope x over (x, y) pairs; nullopt for fewer than two
/// distinct x.
struct line_fit {
  double intercept = 0, slope = 0;
};
std::optional<line_fit> fit_line(const std::vector<std::pair<double, double>>& points);

/// What a suite's findings, charts and facts see: the document and the suite's name.
struct suite_view {
  const results_doc& doc;
  std::string suite;
  /// Where not empty, only these cases' rows: an advice fact sees the cases it says it reads, so
  /// the advisor can name them (`memscope run transfer/engines`) and no undeclared row feeds it.
  std::vector<std::string> cases = {};
  /// The suite's usable rows (of `cases`, where given) that `keep` accepts.
  row_list rows(const row_pred& keep = {}) const;
};

/// A label from axis values: string axes as their value, integer axes as name=value; axes the
/// row lacks are left out.
std::string axes_text(const case_result& r, const std::vector<std::string>& axis_names);

}  // namespace memscope::present
