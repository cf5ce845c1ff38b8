#include "harness/map_plan.hpp"

#include <set>
#include <stdexcept>

namespace memscope {

std::vector<planned_point> plan_map(const registry& reg, const device_info& dev) {
  std::vector<planned_point> plan;
  std::set<std::string> seen;
  for (const auto& s : reg.suite_infos())
    for (const auto& mp : s.map_points) {
      const case_def* c = reg.find_case(s.name, mp.case_name);
      std::vector<axis_override> overrides;
      for (const auto& text : mp.axes(dev)) overrides.push_back(parse_axis_override(text));
      std::vector<axis_point> points;
      try {
        check_overrides({c}, overrides);
        points = expand(c->axes, axis_set::quick, overrides);
      } catch (const usage_error& e) {
        // The suite's own declaration is wrong: a defect of memscope, not of the command line.
        throw std::logic_error("map point " + c->id() + ": " + e.what());
      }
      for (auto& p : points) {
        planned_point pp{c, std::move(p)};
        if (seen.insert(planned_key(pp)).second) plan.push_back(std::move(pp));
      }
    }
  return plan;
}

}  // namespace memscope
