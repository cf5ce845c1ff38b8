#pragma once
// A suite declared in one place (nvbench style): its cases with their axes and baselines, and
// beside them its charts, finding rules and advice facts.
//
//   suite s{reg, "stencil", "the seed's 1D stencil"};
//   s.add("central_difference", stencil_case)
//       .summary("...")
//       .axis(axis::strings("source", {...}))
//       .baseline("source", "constant", "speedup_vs_constant");
//   s.chart(...).finding(...).fact(...);
//
// Pure C++: the report and the advisor read what is declared here and know no suite by name.

#include "harness/registry.hpp"

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace memscope {

/// Fluent view of one registered case; stays valid while the registry lives.
class case_builder {
 public:
  case_builder(registry& reg, std::size_t index) : reg_(reg), index_(index) {}
  case_builder& summary(std::string text);
  case_builder& axis(memscope::axis a);
  case_builder& footprint(std::function<std::uint64_t(const axis_point&)> f);
  /// For footprints that scale with the GPU (a multiple of its L2, say).
  case_builder& footprint(std::function<std::uint64_t(const axis_point&, const device_info&)> f);
  /// Every row gets `metric` = ratio(row, row with `axis` = `value` and the same other axes).
  case_builder& baseline(std::string axis_name, axis_value value, std::string metric,
                         std::function<double(const case_result&, const case_result&)> ratio = speedup);
  /// The case's own figure (cycles from clock64), where its timed launch does not measure it.
  case_builder& figure(present::figure_def f);

 private:
  case_def& def() { return reg_.case_at(index_); }
  registry& reg_;
  std::size_t index_;
};

class suite {
 public:
  suite(registry& reg, std::string name, std::string summary = {});
  /// Registers a case of this suite; throws std::logic_error on a duplicate or a missing body.
  case_builder add(std::string case_name, std::function<void(case_state&)> body);
  suite& chart(present::chart_spec c);
  suite& finding(present::finding_rule r);
  /// An advice fact computed from the rows of `cases` (cases of this suite, registered before;
  /// the eval sees no other rows). Throws std::logic_error on a duplicate name or an unknown case.
  suite& fact(
      std::string name, std::vector<std::string> cases, std::string description,
      std::function<std::optional<present::fact_value>(const present::suite_view&, std::optional<double>)> eval);
  /// A point of the one-minute map: a case of this suite (registered before) at these axis
  /// values (NAME=V1,V2 each); throws std::logic_error on an unknown case.
  suite& map_point(std::string case_name, std::vector<std::string> axes);
  suite& map_point(std::string case_name, std::function<std::vector<std::string>(const device_info&)> axes);
  /// What the map reads from this suite's rows.
  suite& map_reader(present::map_reader r);
  suite& upgrade(std::function<void(case_result&, int from_version)> f);
  const std::string& name() const { return name_; }

 private:
  registry& reg_;
  std::string name_;
};

}  // namespace memscope
