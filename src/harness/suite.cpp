#include "harness/suite.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace memscope {

case_builder& case_builder::summary(std::string text) {
  def().summary = std::move(text);
  return *this;
}

case_builder& case_builder::axis(memscope::axis a) {
  for (const auto& e : def().axes)
    if (e.name == a.name) throw std::logic_error("case " + def().id() + ": axis " + a.name + " declared twice");
  def().axes.push_back(std::move(a));
  return *this;
}

case_builder& case_builder::footprint(std::function<std::uint64_t(const axis_point&)> f) {
  def().footprint = [f = std::move(f)](const axis_point& p, const device_info&) { return f(p); };
  return *this;
}

case_builder& case_builder::footprint(std::function<std::uint64_t(const axis_point&, const device_info&)> f) {
  def().footprint = std::move(f);
  return *this;
}

case_builder& case_builder::baseline(std::string axis_name, axis_value value, std::string metric,
                                     std::function<double(const case_result&, const case_result&)> ratio) {
  def().baselines.push_back({std::move(axis_name), std::move(value), std::move(metric), std::move(ratio)});
  return *this;
}

case_builder& case_builder::figure(present::figure_def f) {
  if (f.metric.empty()) throw std::logic_error(def().id() + ": a figure needs a metric");
  def().figure = std::move(f);
  return *this;
}

suite::suite(registry& reg, std::string name, std::string summary) : reg_(reg), name_(std::move(name)) {
  auto& info = reg_.suite(name_);
  if (!summary.empty()) info.summary = std::move(summary);
}

case_builder suite::add(std::string case_name, std::function<void(case_state&)> body) {
  case_def c;
  c.suite = name_;
  c.name = std::move(case_name);
  c.body = std::move(body);
  reg_.add(std::move(c));
  return case_builder(reg_, reg_.cases().size() - 1);
}

suite& suite::chart(present::chart_spec c) {
  reg_.suite(name_).charts.push_back(std::move(c));
  return *this;
}

suite& suite::finding(present::finding_rule r) {
  reg_.suite(name_).findings.push_back(std::move(r));
  return *this;
}

suite& suite::map_point(std::string case_name, std::vector<std::string> axes) {
  return map_point(std::move(case_name), [axes](const device_info&) { return axes; });
}

suite& suite::map_point(std::string case_name, std::function<std::vector<std::string>(const device_info&)> axes) {
  if (!reg_.find_case(name_, case_name))
    throw std::logic_error("map point of suite " + name_ + " names an unknown case: " + case_name);
  reg_.suite(name_).map_points.push_back({std::move(case_name), std::move(axes)});
  return *this;
}

suite& suite::map_reader(present::map_reader r) {
  reg_.suite(name_).map_readers.push_back(std::move(r));
  return *this;
}

suite& suite::fact(
    std::string name, std::vector<std::string> cases, std::string description,
    std::function<std::optional<present::fact_value>(const present::suite_view&, std::optional<double>)> eval) {
  if (reg_.find_fact(name)) throw std::logic_error("fact " + name + " declared twice");
  if (cases.empty()) throw std::logic_error("fact " + name + " names no case it reads");
  for (const auto& c : cases) {
    const auto& all = reg_.cases();
    if (std::none_of(all.begin(), all.end(), [&](const case_def& d) { return d.suite == name_ && d.name == c; }))
      throw std::logic_error("fact " + name + " reads " + name_ + "/" + c + ", which is not a case of the suite");
  }
  present::fact_def f;
  f.name = std::move(name);
  f.suite = name_;
  f.cases = std::move(cases);
  f.description = std::move(description);
  f.eval = std::move(eval);
  reg_.suite(name_).facts.push_back(std::move(f));
  return *this;
}

suite& suite::upgrade(std::function<void(case_result&, int)> f) {
  reg_.suite(name_).upgrade = std::move(f);
  return *this;
}

}  // namespace memscope
