// Tests of plan_run's order: the points of one comparison run back to back.

#include "harness/registry.hpp"
#include "harness/runner.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>

using namespace memscope;

TEST(Plan, PointsOfOneComparisonRunBackToBack) {
  run_request req;
  req.patterns = {"histogram/even"};
  req.set = axis_set::quick;
  const auto plan = plan_run(builtin_registry(), req);
  ASSERT_FALSE(plan.empty());
  // Every strategy of the first input, then the next input: the label without the strategy
  // changes only after each strategy has come once.
  const auto input_of = [](const planned_point& p) {
    const std::string label = p.point.label(p.def->axes);  // "strategy=... bins=... ..."
    return label.substr(label.find(' ') + 1);
  };
  std::set<std::string> strategies, seen_inputs;
  std::string current;
  for (const auto& p : plan) {
    const std::string in = input_of(p);
    if (in != current) {
      EXPECT_TRUE(seen_inputs.insert(in).second) << "input " << in << " comes back after another";
      current = in;
    }
    strategies.insert(p.point.get_string("strategy"));
  }
  EXPECT_EQ(plan.size(), strategies.size() * seen_inputs.size());
}
