#include "harness/registry.hpp"

#include <gtest/gtest.h>

using namespace memscope;

namespace {
case_def dummy(std::string suite, std::string name, std::vector<axis> axes = {}) {
  case_def c;
  c.suite = std::move(suite);
  c.name = std::move(name);
  c.axes = std::move(axes);
  c.body = [](case_state&) {};
  return c;
}
}  // namespace

TEST(Registry, SelectBySuiteAndGlob) {
  registry r;
  r.add(dummy("bandwidth", "copy"));
  r.add(dummy("bandwidth", "triad"));
  r.add(dummy("reduce", "warp"));
  EXPECT_EQ(r.select({"bandwidth"}).size(), 2u);
  EXPECT_EQ(r.select({"bandwidth/t*"}).size(), 1u);
  EXPECT_EQ(r.select({"*/warp", "bandwidth/copy"}).size(), 2u);
  EXPECT_EQ(r.select({}).size(), 3u);
  EXPECT_EQ(r.select({}, {"reduce"}).size(), 1u);
  // A case selected twice is run once, in registration order.
  const auto twice = r.select({"reduce", "*"});
  ASSERT_EQ(twice.size(), 3u);
  EXPECT_EQ(twice[0]->id(), "bandwidth/copy");
}

TEST(Registry, UnknownPatternIsUsageError) {
  registry r;
  r.add(dummy("bandwidth", "copy"));
  EXPECT_THROW(r.select({"nosuch"}), usage_error);
  EXPECT_THROW(r.select({"bandwidth/nosuch"}), usage_error);
}

TEST(Registry, DuplicateAndBodylessCasesRejected) {
  registry r;
  r.add(dummy("s", "a"));
  EXPECT_THROW(r.add(dummy("s", "a")), std::logic_error);
  case_def empty;
  empty.suite = "s";
  empty.name = "b";
  EXPECT_THROW(r.add(empty), std::logic_error);
}

TEST(Registry, OverridesMustNameASelectedAxis) {
  registry r;
  r.add(dummy("s", "a", {axis::pow2("bytes", {10})}));
  const auto sel = r.select({"s"});
  EXPECT_NO_THROW(check_overrides(sel, {parse_axis_override("bytes=2^11")}));
  EXPECT_THROW(check_overrides(sel, {parse_axis_override("nope=1")}), usage_error);
}

TEST(Registry, BuiltinSuitesAreRegistered) {
  const auto& reg = builtin_registry();
  const auto bw = reg.select({"bandwidth"});
  EXPECT_GE(bw.size(), 7u);
  for (const auto* c : bw) {
    EXPECT_FALSE(c->summary.empty()) << c->id();
    EXPECT_TRUE(c->footprint) << c->id();
  }
  for (const auto& s : default_suites()) EXPECT_NO_THROW(reg.select({s}));
}
