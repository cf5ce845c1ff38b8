#include "harness/registry.hpp"
#include "harness/suite.hpp"

#include <gtest/gtest.h>

#include <algorithm>

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

// A fact names the cases it reads (what `memscope run` would measure it with): one of its suite's.
TEST(Registry, FactsMustNameCasesOfTheirSuite) {
  registry r;
  suite s{r, "s"};
  s.add("a", [](case_state&) {});
  r.add(dummy("t", "b"));
  const auto none = [](const present::suite_view&, std::optional<double>) -> std::optional<present::fact_value> {
    return std::nullopt;
  };
  EXPECT_THROW(s.fact("q0", {}, "no case", none), std::logic_error);
  EXPECT_THROW(s.fact("q1", {"b"}, "another suite's case", none), std::logic_error);
  EXPECT_THROW(s.fact("q2", {"a", "c"}, "an unknown case", none), std::logic_error);
  s.fact("q3", {"a"}, "reads s/a", none);
  ASSERT_NE(r.find_fact("q3"), nullptr);
  EXPECT_EQ(r.find_fact("q3")->run_patterns(), "s/a");
  EXPECT_THROW(s.fact("q3", {"a"}, "twice", none), std::logic_error);
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
  // Every suite the README and the docs name, no more and no fewer.
  const std::vector<std::string> want = {
      "atomics",    "bandwidth", "bank_conflicts", "cache_bandwidth", "cache_config", "cache_control",
      "coalescing", "constant",  "dsmem",          "histogram",       "kmer",         "latency",
      "managed",    "peer",      "readonly",       "reduce",          "registers",    "stencil",
      "texture",    "transfer",  "transform",      "transpose"};
  auto have = reg.suites();
  // Each file registers itself; the order the suites give, not the linker's, is the order kept.
  EXPECT_EQ(have,
            (std::vector<std::string>{"bandwidth",    "reduce",        "coalescing", "bank_conflicts",  "transpose",
                                      "stencil",      "constant",      "transform",  "readonly",        "histogram",
                                      "kmer",         "dsmem",         "latency",    "cache_bandwidth", "texture",
                                      "cache_config", "cache_control", "registers",  "atomics",         "transfer",
                                      "managed",      "peer"}));
  std::sort(have.begin(), have.end());
  EXPECT_EQ(have, want);
  // The default run, case by case.
  std::vector<std::string> bw;
  for (const auto* c : reg.select({"bandwidth"})) bw.push_back(c->name);
  EXPECT_EQ(bw, (std::vector<std::string>{"memcpy", "copy", "scale", "add", "triad", "write", "read"}));
  for (const auto& name : have) {
    const auto* info = reg.find_suite(name);
    ASSERT_NE(info, nullptr) << name;
    EXPECT_FALSE(info->summary.empty()) << name;
    for (const auto* c : reg.select({name})) {
      EXPECT_FALSE(c->summary.empty()) << c->id();
      EXPECT_TRUE(c->body) << c->id();
    }
  }
  for (const auto* c : reg.select({"bandwidth"})) EXPECT_TRUE(c->footprint) << c->id();
  for (const auto& s : default_suites()) EXPECT_FALSE(reg.select({s}).empty()) << s;
}

TEST(Registry, EveryValueACaseListsCanBeNamedWithAxis) {
  // A value of the case's own lists that --axis refuses (offset=0, the aligned baseline of
  // transfer/misaligned, once was) leaves a user unable to re-run a point the report shows.
  // Each set is checked in its own mode: verify's empty inputs (bytes=0) can be named in
  // `memscope verify`, not in `memscope run`, where an empty launch has no figure.
  for (const auto& c : builtin_registry().cases())
    for (const auto& ax : c.axes) {
      if (ax.is_string()) continue;
      for (auto set : {axis_set::full, axis_set::quick, axis_set::verify})
        for (const auto& v : ax.values(set)) {
          const auto n = std::get<std::int64_t>(v);
          if (set != axis_set::verify) {
            EXPECT_TRUE(n >= ax.min_value && n <= ax.max_value)
                << c.id() << " axis " << ax.name << " lists " << n << " outside [" << ax.min_value << ", "
                << ax.max_value << "]";
          }
          EXPECT_NO_THROW(resolve_values(ax, set, {parse_axis_override(ax.name + "=" + std::to_string(n))}))
              << c.id() << " --axis " << ax.name << "=" << n;
        }
    }
}
