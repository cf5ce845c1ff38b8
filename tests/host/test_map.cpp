// The one-minute map: its plan on a GPU's sizes, and the hierarchy derived from the reference
// profiles' rows (src/harness/map_plan, src/present/hierarchy, src/report/map).
#include "harness/map_plan.hpp"
#include "harness/registry.hpp"
#include "harness/results.hpp"
#include "present/findings.hpp"
#include "report/map.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>

namespace {

using memscope::present::level_id;

memscope::results_doc profile(const char* gpu) {
  auto doc = memscope::load_results(std::string(MEMSCOPE_SOURCE_DIR) + "/results/" + gpu + "/profile.json.gz");
  memscope::upgrade(doc, memscope::builtin_registry());
  return doc;
}

TEST(MapPlan, FollowsTheGpusCachesAndMeasuresEachPointOnce) {
  const auto doc = profile("h100");
  const auto plan = memscope::plan_map(memscope::builtin_registry(), doc.device);
  std::set<std::string> keys;
  for (const auto& p : plan) EXPECT_TRUE(keys.insert(memscope::planned_key(p)).second) << memscope::planned_key(p);
  // Few enough to take about a minute; the chase reaches 8x the L2.
  EXPECT_GT(plan.size(), 30u);
  EXPECT_LT(plan.size(), 120u);
  std::int64_t largest_chase = 0;
  for (const auto& p : plan)
    if (p.def->id() == "latency/global") largest_chase = std::max(largest_chase, p.point.get_int("ws_bytes"));
  EXPECT_GE(largest_chase, 8 * static_cast<std::int64_t>(doc.device.l2_bytes) / 2);

  // A GPU that reports no L2 still gets a plan.
  memscope::device_info bare = doc.device;
  bare.l2_bytes = 0;
  EXPECT_FALSE(memscope::plan_map(memscope::builtin_registry(), bare).empty());
}

TEST(Map, TheReferenceProfilesDrawEveryLevelTheyMeasured) {
  for (const char* gpu : {"h100", "h200"}) {
    SCOPED_TRACE(gpu);
    const auto doc = profile(gpu);
    const auto h = memscope::report::derive_hierarchy(doc, memscope::builtin_registry());
    const auto& l1 = h.at(level_id::l1);
    const auto& l2 = h.at(level_id::l2);
    const auto& dram = h.at(level_id::dram);
    ASSERT_TRUE(l1.latency_cycles.known() && l2.latency_cycles.known() && dram.latency_cycles.known());
    EXPECT_LT(l1.latency_cycles.value, l2.latency_cycles.value);
    EXPECT_LT(l2.latency_cycles.value, dram.latency_cycles.value);
    EXPECT_LT(h.at(level_id::shared).latency_cycles.value, l1.latency_cycles.value);
    // The L1 edge brackets what the SM's unified array can hold for it.
    ASSERT_TRUE(std::isfinite(l1.detected_lo) && std::isfinite(l1.detected_hi));
    EXPECT_LE(l1.detected_lo, memscope::present::l1_capacity(doc.device));
    // The L2's edge, where read bandwidth falls, brackets the driver's figure (the profiles'
    // octave steps are coarser than the map's own points).
    ASSERT_TRUE(std::isfinite(l2.detected_lo)) << (l2.missing.empty() ? "" : l2.missing.front());
    EXPECT_LE(l2.detected_lo, 1.1 * l2.driver_bytes);
    EXPECT_GE(l2.detected_hi, 0.9 * l2.driver_bytes);
    EXPECT_GT(l1.bandwidth_gbps.value, l2.bandwidth_gbps.value);
    EXPECT_GT(l2.bandwidth_gbps.value, dram.bandwidth_gbps.value);
    EXPECT_TRUE(h.at(level_id::dsmem).latency_cycles.known());
    EXPECT_TRUE(h.at(level_id::constant).latency_cycles.known());
    EXPECT_FALSE(h.at(level_id::registers).missing.empty());  // says why it has no latency
    int levels_measured = 0;
    for (const auto& l : h.levels) levels_measured += l.latency_cycles.known() && l.bandwidth_gbps.known();
    EXPECT_GE(levels_measured, 4);
    EXPECT_NEAR(h.latency_ns(l1), l1.latency_cycles.value / h.sm_clock_mhz * 1e3, 1e-9);
    EXPECT_NE(l1.latency_cycles.source.find("latency/global path=default"), std::string::npos);

    const auto lines = memscope::report::map_lines(h, doc.device);
    ASSERT_FALSE(lines.empty());
    EXPECT_NE(lines.front().find(doc.device.name), std::string::npos);
    for (const auto& line : lines) EXPECT_LE(line.size(), 240u) << line;
    const auto j = memscope::report::map_json(h);
    EXPECT_EQ(j.at("levels").size(), h.levels.size());
    const std::string svg = memscope::report::map_svg(h, doc.device);
    EXPECT_EQ(svg.rfind("<svg", 0), 0u);
    EXPECT_EQ(svg.find("<script"), std::string::npos);
    EXPECT_NE(svg.find("href=\"#suite-latency\""), std::string::npos);
  }
}

TEST(Map, RowsThatDoNotDescribeALevelLeaveItUnmeasuredWithAReason) {
  memscope::results_doc doc;
  doc.device.name = "Test GPU";
  const auto h = memscope::report::derive_hierarchy(doc, memscope::builtin_registry());
  for (const auto& l : h.levels) {
    EXPECT_FALSE(l.measured()) << l.name;
    EXPECT_TRUE(!l.missing.empty() || std::isfinite(l.driver_bytes)) << l.name;
  }
  EXPECT_TRUE(memscope::report::map_svg(h, doc.device).empty());
  EXPECT_FALSE(memscope::report::map_lines(h, doc.device).empty());

  // A skipped row names its reason at the level it would have measured.
  memscope::case_result r;
  r.suite = "dsmem";
  r.name = "latency";
  r.status = memscope::case_status::skipped;
  r.message = "thread block clusters need sm_90 or later";
  doc.results.push_back(r);
  const auto s = memscope::report::derive_hierarchy(doc, memscope::builtin_registry());
  ASSERT_FALSE(s.at(level_id::dsmem).missing.empty());
  EXPECT_NE(s.at(level_id::dsmem).missing.front().find("clusters need sm_90"), std::string::npos);
}

TEST(Map, FirstBelowFindsTheEdge) {
  using memscope::present::first_below;
  const std::vector<std::pair<double, double>> curve{{1, 100}, {2, 98}, {4, 30}, {8, 29}};
  EXPECT_EQ(first_below(curve, 100, 0.5).lo, 2);
  EXPECT_EQ(first_below(curve, 100, 0.5).hi, 4);
  EXPECT_NEAR(first_below(curve, 100, 0.5).at, 2 + 2 * 48.0 / 68.0, 1e-12);
  EXPECT_TRUE(std::isnan(first_below(curve, 100, 0.5, 3).lo));
  EXPECT_TRUE(std::isnan(first_below({}, 100, 0.5).lo));
}

}  // namespace
