#include "harness/registry.hpp"

#include "harness/results.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace memscope {

double speedup(const case_result& row, const case_result& base) {
  return row.stats.median > 0 ? base.stats.median / row.stats.median : 0.0;
}

double throughput_ratio(const case_result& row, const case_result& base) {
  return base.gbps > 0 ? row.gbps / base.gbps : 0.0;
}

std::function<double(const case_result&, const case_result&)> metric_ratio(std::string name) {
  return [name](const case_result& row, const case_result& base) {
    const auto b = base.metrics.find(name), r = row.metrics.find(name);
    return b != base.metrics.end() && r != row.metrics.end() && b->second > 0 ? r->second / b->second : 0.0;
  };
}

void registry::add(case_def c) {
  if (!c.body) throw std::logic_error("case " + c.id() + " has no body");
  for (const auto& e : cases_)
    if (e.id() == c.id()) throw std::logic_error("case " + c.id() + " registered twice");
  cases_.push_back(std::move(c));
}

suite_info& registry::suite(const std::string& name) {
  if (name.empty()) throw std::logic_error("a suite needs a name");
  for (auto& s : suite_infos_)
    if (s.name == name) return s;
  suite_infos_.push_back({});
  suite_infos_.back().name = name;
  return suite_infos_.back();
}

const suite_info* registry::find_suite(const std::string& name) const {
  for (const auto& s : suite_infos_)
    if (s.name == name) return &s;
  return nullptr;
}

const case_def* registry::find_case(const std::string& suite, const std::string& name) const {
  for (const auto& c : cases_)
    if (c.suite == suite && c.name == name) return &c;
  return nullptr;
}

const present::figure_def* registry::figure_for(const case_result& r) const {
  const auto* c = find_case(r.suite, r.name);
  return c && c->figure ? &*c->figure : nullptr;
}

const present::fact_def* registry::find_fact(const std::string& name) const {
  for (const auto& s : suite_infos_)
    for (const auto& f : s.facts)
      if (f.name == name) return &f;
  return nullptr;
}

std::vector<std::string> registry::suites() const {
  std::vector<std::string> out;
  for (const auto& c : cases_)
    if (std::find(out.begin(), out.end(), c.suite) == out.end()) out.push_back(c.suite);
  return out;
}

namespace {
bool glob(const std::string& pattern, const std::string& text) {
  return fnmatch(pattern.c_str(), text.c_str(), 0) == 0;
}
}  // namespace

std::vector<const case_def*> registry::select(const std::vector<std::string>& patterns,
                                              const std::vector<std::string>& defaults) const {
  const std::vector<std::string>& use = patterns.empty() ? defaults : patterns;
  std::vector<const case_def*> out;
  if (use.empty()) {
    for (const auto& c : cases_) out.push_back(&c);
    return out;
  }
  std::vector<bool> taken(cases_.size(), false);
  for (const auto& p : use) {
    bool any = false;
    for (std::size_t i = 0; i < cases_.size(); ++i) {
      const auto& c = cases_[i];
      const bool hit = p.find('/') == std::string::npos ? glob(p, c.suite) : glob(p, c.id());
      if (hit) {
        any = true;
        taken[i] = true;
      }
    }
    if (!any) throw usage_error("no suite or case matches '" + p + "' (memscope list shows them)");
  }
  for (std::size_t i = 0; i < cases_.size(); ++i)
    if (taken[i]) out.push_back(&cases_[i]);
  return out;
}

void upgrade(results_doc& doc, const registry& reg) {
  if (doc.format_version >= results_format_version) return;
  for (auto& r : doc.results)
    if (const auto* s = reg.find_suite(r.suite); s && s->upgrade) s->upgrade(r, doc.format_version);
  doc.format_version = results_format_version;
}

void check_overrides(const std::vector<const case_def*>& cases, const std::vector<axis_override>& overrides) {
  for (const auto& o : overrides) {
    const bool known = std::any_of(cases.begin(), cases.end(), [&](const case_def* c) {
      return std::any_of(c->axes.begin(), c->axes.end(), [&](const axis& a) { return a.name == o.name; });
    });
    if (!known) throw usage_error("--axis " + o.name + ": no selected case has an axis of that name");
  }
}

namespace {

/// Filled by the registrars during static initialisation: a function-local static, so that it
/// exists before the first registrar of any file runs.
std::vector<std::pair<int, void (*)(registry&)>>& registrations() {
  static std::vector<std::pair<int, void (*)(registry&)>> all;
  return all;
}

}  // namespace

suite_registrar::suite_registrar(int order, void (*add)(registry&)) { registrations().emplace_back(order, add); }

const registry& builtin_registry() {
  static const registry reg = [] {
    auto all = registrations();
    std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (std::size_t i = 1; i < all.size(); ++i)
      if (all[i].first == all[i - 1].first)
        throw std::logic_error("two suites registered with order " + std::to_string(all[i].first) +
                               "; each MEMSCOPE_REGISTER_SUITE needs its own");
    registry r;
    for (const auto& [order, add] : all) add(r);
    return r;
  }();
  return reg;
}

std::vector<std::string> default_suites() { return {"bandwidth"}; }

}  // namespace memscope
