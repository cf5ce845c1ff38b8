#pragma once
// Suites register their cases here; the CLI selects them by pattern. Pure C++.

#include "harness/axis.hpp"
#include "memscope/core/device_info.hpp"
#include "present/chart_spec.hpp"
#include "present/fact.hpp"
#include "present/figure.hpp"
#include "present/findings.hpp"
#include "present/hierarchy.hpp"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace memscope {

class case_state;
struct case_result;

/// A same-run comparison: every row of the case gets metric `metric` = ratio(row, base), where
/// base is the row with the same axes except `axis` = `value` (CUB, stride 1, offset 0...).
struct baseline_rule {
  std::string axis;
  axis_value value;
  std::string metric;
  std::function<double(const case_result& row, const case_result& base)> ratio;
};

/// base median / row median: above 1 means the row is faster than the baseline.
double speedup(const case_result& row, const case_result& base);

/// row GB/s / base GB/s (0 when the baseline has none): for rows that move different bytes,
/// such as a transpose against a copy of its padded buffer.
double throughput_ratio(const case_result& row, const case_result& base);

/// row.metrics[name] / base.metrics[name] (0 when the baseline lacks it): for costs measured
/// inside the kernel, such as cycles per access.
std::function<double(const case_result&, const case_result&)> metric_ratio(std::string name);

struct case_def {
  std::string suite;
  std::string name;
  std::string summary;
  std::vector<axis> axes;
  std::function<void(case_state&)> body;
  /// Device memory one point needs on this GPU, checked before anything runs; may be empty.
  std::function<std::uint64_t(const axis_point&, const device_info&)> footprint;
  std::vector<baseline_rule> baselines;
  /// Where set, compare and the fleet table judge rows on this figure, not on the launch time.
  std::optional<present::figure_def> figure;

  std::string id() const { return suite + "/" + name; }
};

/// A point the one-minute map measures (`memscope map`): a case of the suite and its axis values
/// as --axis takes them ("ws_bytes=1K,2K"), which may depend on the GPU (sizes around its L2).
/// Axes it does not name take their quick values.
struct map_point {
  std::string case_name;
  std::function<std::vector<std::string>(const device_info&)> axes;
};

/// What a suite says about its own rows: its charts, its finding rules, the facts the advisor
/// may ask for, the map's points and what it reads from them, and how rows of older results
/// formats are read (declared in src/suites/).
struct suite_info {
  std::string name;
  std::string summary;
  std::vector<present::chart_spec> charts;
  std::vector<present::finding_rule> findings;
  std::vector<present::fact_def> facts;
  std::vector<map_point> map_points;
  std::vector<present::map_reader> map_readers;
  /// Brings a row of an older results format up to the current one (enum ordinals to labels).
  std::function<void(case_result&, int from_version)> upgrade;
};

class registry {
 public:
  /// Throws std::logic_error on a duplicate id or a case without body.
  void add(case_def c);
  const std::vector<case_def>& cases() const { return cases_; }
  /// The case of that suite and name, or null (rows of another memscope, say).
  const case_def* find_case(const std::string& suite, const std::string& name) const;
  /// The figure a row is judged on, where its case declares one (null: the launch time).
  const present::figure_def* figure_for(const case_result& r) const;
  case_def& case_at(std::size_t i) { return cases_.at(i); }
  std::vector<std::string> suites() const;

  /// The suite's presentation, created empty on first use. Throws std::logic_error on an empty name.
  suite_info& suite(const std::string& name);
  /// Null for a suite this registry does not know (rows of a newer memscope, say).
  const suite_info* find_suite(const std::string& name) const;
  const std::vector<suite_info>& suite_infos() const { return suite_infos_; }
  /// The fact of that name, or null. Fact names are unique across suites.
  const present::fact_def* find_fact(const std::string& name) const;

  /// Cases matching any pattern, in registration order. A pattern is a glob over the suite
  /// name or over "suite/case"; an empty list selects `defaults` (or everything when that is empty).
  /// Throws usage_error for a pattern that matches nothing.
  std::vector<const case_def*> select(const std::vector<std::string>& patterns,
                                      const std::vector<std::string>& defaults = {}) const;

 private:
  std::vector<case_def> cases_;
  std::vector<suite_info> suite_infos_;
};

/// Brings the rows of an older results format up to the current one through each suite's
/// upgrade hook, and marks the document current. A no-op for current documents.
void upgrade(results_doc& doc, const registry& reg);

/// Checks that every --axis names an axis of at least one selected case.
void check_overrides(const std::vector<const case_def*>& cases, const std::vector<axis_override>& overrides);

/// Every suite memscope ships: each suite's file registers itself (MEMSCOPE_REGISTER_SUITE), and
/// the suites are added in the order they give, whatever order the linker put their files in.
const registry& builtin_registry();

/// Adds a suite's registration function to builtin_registry(). `order` places the suite in
/// `memscope list`, in `run '*'` and in the report; two suites may not share one.
struct suite_registrar {
  suite_registrar(int order, void (*add)(registry&));
};

/// At namespace scope in the suite's own file, after its registration function: adding a suite
/// edits no list. The tool links the suites' library whole, so no registrar is dropped.
#define MEMSCOPE_REGISTER_SUITE(order, add) \
  [[maybe_unused]] static const ::memscope::suite_registrar memscope_suite_registrar_##add { order, add }

/// The suites `memscope run` runs when no pattern is given.
std::vector<std::string> default_suites();

}  // namespace memscope
