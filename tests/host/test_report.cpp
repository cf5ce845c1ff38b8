#include "advise/advisor.hpp"
#include "host/test_rows.hpp"
#include "report/compare.hpp"
#include "report/html_report.hpp"
#include "harness/registry.hpp"
#include "harness/runner.hpp"
#include "memscope/core/levels.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <random>
#include <sstream>

#include "harness/stats.hpp"

using namespace memscope;

namespace {

case_result row(const std::string& suite, const std::string& name, std::vector<std::pair<std::string, axis_value>> axes,
                double median, double noise = 0.005) {
  case_result r = memscope::testing::timed_row(suite, name, std::move(axes), median, noise);
  r.bytes_read = r.bytes_written = 1 << 20;
  r.gbps = 2.0 * (1 << 20) / median / 1e9;
  r.elements_per_s = 1e9;
  return r;
}

results_doc doc_with(std::vector<case_result> rows) {
  results_doc d = memscope::testing::doc_of(std::move(rows));
  d.device.cc_major = 9;
  d.device.sm_count = 132;
  d.device.total_const_mem = 65536;
  d.device.l2_bytes = 60 << 20;
  d.device.shared_per_block_optin = 227 * 1024;
  d.device.cluster_launch = true;
  d.device.max_cluster_size_nonportable = 16;
  return d;
}

}  // namespace

TEST(Report, SelfContainedPageWithAChartPerSuite) {
  auto d = doc_with(
      {row("bandwidth", "memcpy", {{"bytes", std::int64_t{1} << 30}}, 5e-4),
       row("bandwidth", "copy", {{"type", std::string("f32")}, {"bytes", std::int64_t{1} << 30}}, 5e-4),
       row("coalescing", "stride",
           {{"elem_bytes", std::int64_t{4}}, {"direction", std::string("read")}, {"stride", std::int64_t{1}}}, 1e-3),
       row("coalescing", "stride",
           {{"elem_bytes", std::int64_t{4}}, {"direction", std::string("read")}, {"stride", std::int64_t{2}}}, 2e-3),
       row("constant", "working_set", {{"ws_bytes", std::int64_t{1024}}}, 1e-4), row("mystery", "thing", {}, 1e-3)});
  d.results[2].metrics["predicted_efficiency"] = 1.0;
  d.results[3].metrics["predicted_efficiency"] = 0.5;
  d.results[4].metrics["cycles_per_load"] = 34;
  const std::string html = report::render_html(d, builtin_registry());
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  for (const char* id : {"suite-bandwidth", "suite-coalescing", "suite-constant", "suite-mystery", "id=\"device\""})
    EXPECT_NE(html.find(id), std::string::npos) << id;
  std::size_t charts = 0;
  for (auto p = html.find("<svg class=\"chart\""); p != std::string::npos; p = html.find("<svg class=\"chart\"", p + 1))
    ++charts;
  EXPECT_GE(charts, 4u);
  EXPECT_EQ(html.find("http://"), html.find("http://www.w3.org/2000/svg"));  // no other network reference
  EXPECT_EQ(html.find("<script src"), std::string::npos);
  EXPECT_EQ(html.find("nan"), std::string::npos);
}

// A suite skipped everywhere says why once, above its rows, and its table starts folded.
TEST(Report, SkippedPointsAreSummedUpOncePerReason) {
  std::vector<case_result> rows;
  for (int i = 0; i < 3; ++i) {
    auto r = row("peer", "copy", {{"bytes", std::int64_t{1} << (20 + i)}}, 0.0);
    r.status = case_status::skipped;
    r.message = "one GPU in this system: no peer to measure";
    rows.push_back(r);
  }
  rows.push_back(row("transfer", "numa", {{"node", std::string("near")}}, 1e-3));
  auto far = row("transfer", "numa", {{"node", std::string("far")}}, 0.0);
  far.status = case_status::skipped;
  far.message = "this host has one NUMA node";
  rows.push_back(far);
  const auto html = report::render_html(doc_with(rows), builtin_registry());
  EXPECT_NE(html.find("3 of 3 points skipped: one GPU in this system: no peer to measure</p>"), std::string::npos);
  EXPECT_NE(html.find("1 of 2 points skipped: this host has one NUMA node</p>"), std::string::npos);
  std::vector<case_result> sizes;
  for (int i = 0; i < 6; ++i) {
    auto r = row("histogram", "even", {{"bins", std::int64_t{1} << (16 + i)}}, 0.0);
    r.status = case_status::skipped;
    r.message = "needs " + std::to_string(256 << i) + " KiB of shared memory";
    sizes.push_back(r);
  }
  EXPECT_NE(report::render_html(doc_with(sizes), builtin_registry()).find("; 2 more reasons in the rows</p>"),
            std::string::npos);
  const auto peer = html.find("id=\"suite-peer\"");
  ASSERT_NE(peer, std::string::npos);
  EXPECT_EQ(html.compare(html.find("<details", peer), 9, "<details>"), 0)
      << "a wholly skipped suite's rows start folded";
}

TEST(Report, EscapesText) {
  auto d = doc_with({row("s", "<b>&", {}, 1e-3)});
  const auto html = report::render_html(d, builtin_registry());
  EXPECT_EQ(html.find("<b>&"), std::string::npos);
  EXPECT_NE(html.find("&lt;b&gt;&amp;"), std::string::npos);
}

TEST(Report, LevelEdgesFindPlateauEnds) {
  const auto e = memscope::level_edges({{1024, 34}, {2048, 34.5}, {4096, 100}, {8192, 101}, {1 << 20, 300}});
  ASSERT_EQ(e.size(), 2u);
  EXPECT_EQ(e[0], 2048);
  EXPECT_EQ(e[1], 8192);
}

TEST(Compare, VerdictsRespectTheNoise) {
  const auto a = doc_with({row("s", "x", {{"n", std::int64_t{1}}}, 1.00e-3), row("s", "y", {}, 1e-3),
                           row("s", "z", {}, 1e-3), row("s", "only_a", {}, 1e-3)});
  const auto b = doc_with({row("s", "x", {{"n", std::int64_t{1}}}, 0.80e-3), row("s", "y", {}, 1.3e-3),
                           row("s", "z", {}, 1.005e-3), row("s", "only_b", {}, 1e-3)});
  const auto c = report::compare(a, b, builtin_registry());
  ASSERT_EQ(c.rows.size(), 3u);
  EXPECT_EQ(c.rows[0].v, report::verdict::faster);
  EXPECT_EQ(c.rows[1].v, report::verdict::slower);
  EXPECT_EQ(c.rows[2].v, report::verdict::same);
  EXPECT_EQ(c.only_a, 1u);
  EXPECT_EQ(c.only_b, 1u);
  EXPECT_EQ(report::regressions(c, 20).size(), 1u);
  EXPECT_EQ(report::regressions(c, 40).size(), 0u);
  // A noisy baseline widens what counts as "same".
  const auto noisy = report::compare(doc_with({row("s", "y", {}, 1e-3, 0.2)}),
                                     doc_with({row("s", "y", {}, 1.3e-3, 0.2)}), builtin_registry());
  EXPECT_EQ(noisy.rows[0].v, report::verdict::same);
}

TEST(Compare, IgnoredAxesMatchRowsThatDifferOnlyInThem) {
  const auto a = doc_with({row("s", "x", {{"n", std::int64_t{1}}, {"pct", std::int64_t{0}}}, 1.0e-3),
                           row("s", "x", {{"n", std::int64_t{2}}, {"pct", std::int64_t{0}}}, 1.0e-3)});
  const auto b = doc_with({row("s", "x", {{"n", std::int64_t{1}}, {"pct", std::int64_t{5}}}, 1.2e-3),
                           row("s", "x", {{"n", std::int64_t{2}}, {"pct", std::int64_t{5}}}, 1.0e-3)});
  EXPECT_THROW(report::compare(a, b, builtin_registry()), usage_error);  // nothing in common
  report::compare_options opt;
  opt.ignore_axes = {"pct"};
  const auto c = report::compare(a, b, builtin_registry(), opt);
  ASSERT_EQ(c.rows.size(), 2u);
  EXPECT_EQ(c.rows[0].v, report::verdict::slower);
  EXPECT_EQ(c.rows[1].v, report::verdict::same);
  std::ostringstream out;
  report::print(c, a, b, out);
  EXPECT_NE(out.str().find("rows matched without pct"), std::string::npos) << out.str();
  // An axis no row has is a typo, not a match.
  opt.ignore_axes = {"pcr"};
  EXPECT_THROW(report::compare(a, b, builtin_registry(), opt), usage_error);
  // Left out, two rows of one file become one: refused, not silently dropped.
  opt.ignore_axes = {"n", "pct"};
  EXPECT_THROW(report::compare(a, b, builtin_registry(), opt), results_error);
}

TEST(Compare, NothingInCommonIsAUsageError) {
  EXPECT_THROW(
      report::compare(doc_with({row("s", "a", {}, 1e-3)}), doc_with({row("s", "b", {}, 1e-3)}), builtin_registry()),
      usage_error);
}

TEST(Compare, ReplicatesSetTheFloorFromTheSpreadBetweenProcesses) {
  // Three processes a side: A's medians spread 2%, B's sit 4-5% above all of them.
  const auto runs = [](std::vector<double> medians) {
    auto r = row("s", "x", {}, medians[1]);
    r.replicates = medians;
    return r;
  };
  const auto a = doc_with({runs({10.0e-6, 10.2e-6, 10.1e-6})});
  const auto slower = report::compare(a, doc_with({runs({10.5e-6, 10.6e-6, 10.55e-6})}), builtin_registry());
  ASSERT_EQ(slower.rows.size(), 1u);
  EXPECT_EQ(slower.rows[0].v, report::verdict::slower);
  EXPECT_EQ(slower.rows[0].runs_a, 3u);
  EXPECT_FALSE(slower.rows[0].short_launch);  // the measured spread replaces the assumed shift
  EXPECT_NEAR(slower.rows[0].ratio, 10.55 / 10.1, 1e-9);
  std::ostringstream out;
  report::print(slower, a, a, out);
  EXPECT_NE(out.str().find("3+3 runs"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("judged on runs in separate processes"), std::string::npos) << out.str();
  // Ranges that overlap are the same point, however far the medians of the runs.
  EXPECT_EQ(report::compare(a, doc_with({runs({10.05e-6, 10.6e-6, 10.7e-6})}), builtin_registry()).rows[0].v,
            report::verdict::same);
  // A side's own spread is the floor: runs 8% apart call nothing under 8%.
  const auto wide = doc_with({runs({10.0e-6, 10.8e-6, 10.4e-6})});
  EXPECT_EQ(report::compare(wide, doc_with({runs({11.0e-6, 11.1e-6, 11.05e-6})}), builtin_registry()).rows[0].v,
            report::verdict::same);
  // One run on the other side is judged against the runs of this one.
  EXPECT_EQ(report::compare(a, doc_with({row("s", "x", {}, 11.0e-6)}), builtin_registry()).rows[0].v,
            report::verdict::slower);
  EXPECT_EQ(report::compare(a, doc_with({row("s", "x", {}, 10.15e-6)}), builtin_registry()).rows[0].v,
            report::verdict::same);
}

TEST(Merge, ReplicatesOfOneBoardBecomeOneRowListingEachRunsMedian) {
  auto run = [](double median, const std::string& created) {
    auto d = doc_with({row("s", "x", {}, median), row("s", "y", {}, 2e-3)});
    d.device.uuid = "GPU-1";
    d.created_utc = created;
    return d;
  };
  merge_options opt;
  opt.replicates = true;
  opt.names = {"a1.json", "a2.json", "a3.json"};
  const auto m = merge(
      {run(1.0e-5, "2026-12-01T00:00:00Z"), run(1.2e-5, "2026-12-01T00:01:00Z"), run(1.1e-5, "2026-12-01T00:02:00Z")},
      opt);
  ASSERT_EQ(m.results.size(), 2u);
  EXPECT_EQ(m.sources.size(), 3u);
  EXPECT_EQ(m.results[0].replicates, (std::vector<double>{1.0e-5, 1.2e-5, 1.1e-5}));
  EXPECT_DOUBLE_EQ(m.results[0].stats.median, 1.1e-5);  // the run in the middle stands for the point
  EXPECT_EQ(m.results[0].source, 2u);
  // Merged again with a fourth run, the medians it lists come along.
  const auto again = merge({m, run(0.9e-5, "2026-12-01T00:03:00Z")}, opt);
  EXPECT_EQ(again.results[0].replicates.size(), 4u);
  // A failed check in any run is what the row says.
  auto bad = run(1.0e-5, "2026-12-01T00:04:00Z");
  bad.results[0].status = case_status::fail;
  EXPECT_EQ(merge({run(1.0e-5, "2026-12-01T00:00:00Z"), bad}, opt).results[0].status, case_status::fail);
  // Another board, another build, or --replace with it: refused.
  auto other = run(1.0e-5, "2026-12-01T00:05:00Z");
  other.device.uuid = "GPU-2";
  EXPECT_THROW(merge({run(1.0e-5, "2026-12-01T00:00:00Z"), other}, opt), results_error);
  auto rebuilt = run(1.0e-5, "2026-12-01T00:05:00Z");
  rebuilt.commit = "def";
  EXPECT_THROW(merge({run(1.0e-5, "2026-12-01T00:00:00Z"), rebuilt}, opt), results_error);
  opt.replace = true;
  EXPECT_THROW(merge({run(1.0e-5, "2026-12-01T00:00:00Z"), run(1.0e-5, "2026-12-01T00:01:00Z")}, opt), results_error);
}

TEST(Merge, DifferentModelsAndOptionsAreRefused) {
  auto a = doc_with({row("s", "a", {}, 1e-3)});
  auto b = doc_with({row("s", "b", {}, 1e-3)});
  b.device.name = "Other GPU";
  EXPECT_THROW(merge({a, b}), results_error);
  auto c = doc_with({row("s", "c", {}, 1e-3)});
  c.device.uuid = "another board";  // another board of the same model: fine
  EXPECT_EQ(merge({a, c}).results.size(), 2u);
  auto quick = doc_with({row("s", "d", {}, 1e-3)});
  quick.quick = true;
  EXPECT_THROW(merge({a, quick}), results_error);
}

TEST(Merge, ARepeatedRowIsAnErrorUnlessReplaceSaysTheLaterWins) {
  auto a = doc_with({row("s", "x", {{"n", std::int64_t{1}}}, 1e-3), row("s", "y", {}, 2e-3)});
  auto b = doc_with({row("s", "x", {{"n", std::int64_t{1}}}, 5e-4), row("s", "z", {}, 3e-3)});
  b.commit = "def";
  b.command = "memscope run s/x s/z";
  b.created_utc = "2026-12-01T00:00:00Z";
  try {
    merge({a, b}, {false, {"a.json", "b.json"}});
    FAIL() << "a repeated row was merged";
  } catch (const results_error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("s/x n=1"), std::string::npos) << m;
    EXPECT_NE(m.find("a.json"), std::string::npos) << m;
    EXPECT_NE(m.find("b.json"), std::string::npos) << m;
    EXPECT_NE(m.find("--replace"), std::string::npos) << m;
  }
  const auto m = merge({a, b}, {true, {"a.json", "b.json"}});
  ASSERT_EQ(m.results.size(), 3u);
  EXPECT_EQ(m.results[0].name, "x");  // in the earlier row's place
  EXPECT_DOUBLE_EQ(m.results[0].stats.median, 5e-4);
  EXPECT_EQ(m.results[0].source, 1u);
  EXPECT_EQ(m.results[1].source, 0u);
  EXPECT_EQ(m.results[2].source, 1u);
  ASSERT_EQ(m.sources.size(), 2u);
  EXPECT_EQ(m.sources[0].file, "a.json");
  EXPECT_EQ(m.sources[0].rows, 1u);
  EXPECT_EQ(m.sources[1].rows, 2u);
  EXPECT_EQ(m.sources[1].commit, "def");
  EXPECT_EQ(m.commit, "several (see sources)");
  EXPECT_EQ(m.command, "memscope run + memscope run s/x s/z");
  EXPECT_EQ(m.created_utc, "2026-12-01T00:00:00Z");
  // The merged document reads back as it was written, sources and row runs included.
  const auto back = results_from_json(to_json(m));
  ASSERT_EQ(back.sources.size(), 2u);
  EXPECT_EQ(back.sources[1].command, "memscope run s/x s/z");
  EXPECT_EQ(back.results[0].source, 1u);
  // Merging the merged document again keeps every run apart.
  auto c = doc_with({row("s", "w", {}, 1e-3)});
  const auto again = merge({m, c}, {false, {"m.json", "c.json"}});
  ASSERT_EQ(again.sources.size(), 3u);
  EXPECT_EQ(again.results.back().source, 2u);
  EXPECT_EQ(again.results.front().source, 1u);
}

// A suite that gained an axis between two runs: the earlier run's rows of that case name
// points that no longer exist. --replace keeps only the later run's rows of it (they would
// otherwise stay beside the new rows, every old point twice over); without it, an error.
TEST(Merge, ACaseWhoseAxesChangedKeepsOnlyTheLaterRunsRows) {
  auto a = doc_with({row("stencil", "central_difference", {{"radius", std::int64_t{1}}}, 1e-3),
                     row("stencil", "central_difference", {{"radius", std::int64_t{4}}}, 1e-3),
                     row("bandwidth", "copy", {{"bytes", std::int64_t{1} << 30}}, 1e-3)});
  auto b = doc_with(
      {row("stencil", "central_difference", {{"radius", std::int64_t{1}}, {"tile", std::int64_t{1024}}}, 9e-4),
       row("stencil", "central_difference", {{"radius", std::int64_t{1}}, {"tile", std::int64_t{2048}}}, 8e-4)});
  try {
    merge({a, b}, {false, {"old.json", "new.json"}});
    FAIL() << "a changed case was merged";
  } catch (const results_error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("stencil/central_difference has the axes (radius) in old.json but (radius, tile) in new.json"),
              std::string::npos)
        << m;
    EXPECT_NE(m.find("--replace"), std::string::npos) << m;
  }
  const auto m = merge({a, b}, {true, {"old.json", "new.json"}});
  ASSERT_EQ(m.results.size(), 3u);
  EXPECT_EQ(m.results[0].id(), "bandwidth/copy");  // untouched: the later run did not measure it
  for (std::size_t k = 1; k < 3; ++k) EXPECT_EQ(m.results[k].axes.size(), 2u);
  EXPECT_EQ(m.sources[0].rows, 1u);
  EXPECT_EQ(m.sources[1].rows, 2u);
  // Rows of the same axes from the earlier run stay where the later run measured other values.
  auto c = doc_with(
      {row("stencil", "central_difference", {{"radius", std::int64_t{8}}, {"tile", std::int64_t{1024}}}, 7e-4)});
  EXPECT_EQ(merge({b, c}, {false, {"b.json", "c.json"}}).results.size(), 3u);
}

TEST(Merge, RatiosAreRecomputedWithinOneRunOnly) {
  registry reg;
  case_def k;
  k.suite = "s";
  k.name = "k";
  k.axes = {axis::strings("way", {"ref", "new"}, "")};
  k.body = [](case_state&) {};
  k.baselines.push_back({"way", std::string("ref"), "speedup_vs_ref", speedup});
  reg.add(k);
  auto a = doc_with(
      {row("s", "k", {{"way", std::string("ref")}}, 2e-3), row("s", "k", {{"way", std::string("new")}}, 1e-3)});
  auto b = doc_with({row("s", "k", {{"way", std::string("ref")}}, 4e-3)});
  apply_baselines(reg, a);
  EXPECT_DOUBLE_EQ(a.results[1].metric("speedup_vs_ref"), 2.0);
  // The baseline replaced by another run's: the ratio of two runs is not a same-run ratio.
  auto m = merge({a, b}, {true, {}});
  apply_baselines(reg, m);
  EXPECT_TRUE(std::isnan(m.results[1].metric("speedup_vs_ref")));
  // Both replaced by the later run: its own ratio.
  auto b2 = doc_with(
      {row("s", "k", {{"way", std::string("ref")}}, 4e-3), row("s", "k", {{"way", std::string("new")}}, 1e-3)});
  auto m2 = merge({a, b2}, {true, {}});
  apply_baselines(reg, m2);
  EXPECT_DOUBLE_EQ(m2.results[1].metric("speedup_vs_ref"), 4.0);
  // A baseline that failed its check gives no ratio.
  a.results[0].status = case_status::fail;
  apply_baselines(reg, a);
  EXPECT_TRUE(std::isnan(a.results[1].metric("speedup_vs_ref")));
}

TEST(Merge, EveryRowKeepsTheCopyCeilingOfItsOwnRun) {
  auto a = doc_with({row("s", "a", {}, 1e-3)});
  auto b = doc_with({row("s", "b", {}, 1e-3)});
  a.copy_ceiling_gbps = 4265.8;
  b.copy_ceiling_gbps = 4243.6;
  EXPECT_DOUBLE_EQ(copy_ceiling_of(a, a.results[0]), 4265.8);  // one run: its header's
  const auto m = merge({a, b});
  ASSERT_EQ(m.results.size(), 2u);
  EXPECT_DOUBLE_EQ(m.copy_ceiling_gbps, 4265.8);  // the header is the first run's
  for (const auto& r : m.results) EXPECT_DOUBLE_EQ(copy_ceiling_of(m, r), r.name == "a" ? 4265.8 : 4243.6) << r.name;
}

TEST(Merge, TheReaderRefusesRunsThatAreNotListed) {
  auto a = doc_with({row("s", "x", {}, 1e-3)});
  auto j = to_json(a);
  j["results"][0]["source"] = 3;
  try {
    results_from_json(j, "f.json");
    FAIL() << "a row of an unlisted run was read";
  } catch (const results_error& e) {
    EXPECT_NE(std::string(e.what()).find("$.results[0].source"), std::string::npos) << e.what();
  }
  j = to_json(a);
  j["format_version"] = 2;
  j["sources"] = nlohmann::json::array();
  EXPECT_THROW(results_from_json(j, "f.json"), results_error);
}

TEST(Compare, RowsThatFailedTheirCheckAreNotCompared) {
  auto a = doc_with({row("s", "x", {}, 1e-3), row("s", "y", {}, 1e-3)});
  auto b = doc_with({row("s", "x", {}, 1e-3), row("s", "y", {}, 9e-3)});
  b.results[1].status = case_status::fail;
  const auto c = report::compare(a, b, builtin_registry());
  ASSERT_EQ(c.rows.size(), 1u);
  EXPECT_EQ(c.excluded_b, 1u);
  EXPECT_TRUE(report::regressions(c, 0).empty());
}

namespace {
advise::query q(std::optional<std::uint64_t> bytes, advise::mutability m,
                advise::warp_access acc = advise::warp_access::unknown, advise::sharing sh = advise::sharing::unknown,
                bool temp = false) {
  advise::query x;
  x.bytes = bytes;
  x.mut = m;
  x.access = acc;
  x.share = sh;
  x.temporary = temp;
  return x;
}
using advise::mutability;
using advise::sharing;
using advise::warp_access;
}  // namespace

TEST(Advise, EveryBranchOfTheTree) {
  const auto d = doc_with({});
  struct expectation {
    advise::query query;
    const char* branch;
    const char* memory;
  };
  const expectation cases[] = {
      {q(std::nullopt, mutability::unknown, warp_access::unknown, sharing::thread, true), "temporary/registers",
       "registers, per thread"},
      {q(4096, mutability::written, warp_access::unknown, sharing::thread, true), "temporary/shared", "shared memory"},
      // More per thread than a block's shared memory gives one warp: no slice of it can hold that.
      {q(1ull << 30, mutability::written, warp_access::unknown, sharing::thread, true), "temporary/global",
       "global memory, a slice per thread"},
      {q(16, mutability::read_only, warp_access::uniform), "read-only/small/uniform", "constant memory"},
      {q(64, mutability::read_only, warp_access::uniform, sharing::grid), "read-only/small/uniform", "constant memory"},
      {q(8192, mutability::read_only, warp_access::irregular), "read-only/small/divergent",
       "global memory (L1-cached), not constant memory"},
      {q(100 << 10, mutability::read_only, warp_access::coalesced, sharing::block), "read-only/large/block-reuse",
       "shared memory"},
      {q(100 << 20, mutability::read_only, warp_access::irregular), "read-only/large/irregular", "global memory"},
      {q(1ull << 30, mutability::read_only, warp_access::coalesced), "read-only/large/streamed", "global memory"},
      {q(1024, mutability::written, warp_access::coalesced, sharing::block), "written/block", "shared memory"},
      {q(256 << 10, mutability::written, warp_access::irregular, sharing::grid), "written/grid/cluster",
       "distributed shared memory (thread-block clusters)"},
      {q(1ull << 30, mutability::written, warp_access::irregular, sharing::grid), "written/grid/global",
       "global memory with atomics (L2)"},
      {q(1ull << 30, mutability::written, warp_access::coalesced, sharing::thread), "written/streamed",
       "global memory"},
  };
  for (const auto& c : cases) {
    const auto a = advise::advise(c.query, &d, builtin_registry());
    EXPECT_EQ(a.branch, c.branch);
    EXPECT_EQ(a.memory, c.memory) << c.branch;
    EXPECT_FALSE(a.technique.empty()) << c.branch;
    EXPECT_FALSE(a.reason.empty()) << c.branch;
    EXPECT_FALSE(a.evidence.empty()) << c.branch;
    EXPECT_FALSE(a.suite.empty()) << c.branch;
  }
  // Without clusters, data shared across blocks goes to global memory whatever its size.
  auto old = doc_with({});
  old.device.cluster_launch = false;
  EXPECT_EQ(
      advise::advise(q(1024, mutability::written, warp_access::irregular, sharing::grid), &old, builtin_registry())
          .branch,
      "written/grid/global");
}

TEST(Advise, CitesMeasuredFiguresWhenTheProfileHasThem) {
  auto c1 = row("constant", "broadcast", {{"space", std::string("constant")}, {"distinct", std::int64_t{1}}}, 1e-4);
  c1.metrics["cycles_per_load"] = 39.4;
  auto g1 = row("constant", "broadcast", {{"space", std::string("global")}, {"distinct", std::int64_t{1}}}, 1e-4);
  g1.metrics["cycles_per_load"] = 47.3;
  const auto d = doc_with({c1, g1});
  const auto a = advise::advise(q(16, mutability::read_only, warp_access::uniform), &d, builtin_registry());
  EXPECT_NE(a.evidence[0].find("39.4 cycles"), std::string::npos) << a.evidence[0];
  EXPECT_NE(a.evidence[0].find("47.3"), std::string::npos) << a.evidence[0];
  EXPECT_NE(a.evidence[1].find("not in this profile"), std::string::npos) << a.evidence[1];
  const auto none = advise::advise(q(16, mutability::read_only, warp_access::uniform), nullptr, builtin_registry());
  EXPECT_NE(none.evidence[0].find("memscope run constant"), std::string::npos);
}

// A merged profile's figures carry the day their own run measured them, not the merge's.
TEST(Advise, AFigureSaysWhenItsRunMeasuredIt) {
  auto c1 = row("constant", "broadcast", {{"space", std::string("constant")}, {"distinct", std::int64_t{1}}}, 1e-4);
  c1.metrics["cycles_per_load"] = 39.4;
  auto g1 = row("constant", "broadcast", {{"space", std::string("global")}, {"distinct", std::int64_t{1}}}, 1e-4);
  g1.metrics["cycles_per_load"] = 47.3;
  auto d = doc_with({c1, g1});
  d.created_utc = "2026-12-02T01:00:00Z";
  d.sources.resize(2);
  d.sources[0].created_utc = "2026-11-30T16:59:01Z";
  d.sources[1].created_utc = "2026-12-01T22:52:52Z";
  d.results[0].source = d.results[1].source = 1;
  const auto q16 = q(16, mutability::read_only, warp_access::uniform);
  auto a = advise::advise(q16, &d, builtin_registry());
  EXPECT_NE(a.evidence[0].find("(2026-12-01))"), std::string::npos) << a.evidence[0];
  d.results[0].source = 0;  // the suite's rows from two runs: both days
  a = advise::advise(q16, &d, builtin_registry());
  EXPECT_NE(a.evidence[0].find("(2026-11-30 to 2026-12-01))"), std::string::npos) << a.evidence[0];
  d.sources.clear();  // one run: its header's day
  a = advise::advise(q16, &d, builtin_registry());
  EXPECT_NE(a.evidence[0].find("(2026-12-02))"), std::string::npos) << a.evidence[0];
}

TEST(Advise, ContradictionsAndGapsAreUsageErrors) {
  EXPECT_THROW(advise::advise(q(16, mutability::read_only, warp_access::unknown, sharing::thread, true), nullptr,
                              builtin_registry()),
               usage_error);
  EXPECT_THROW(advise::advise(q(16, mutability::written, warp_access::unknown, sharing::block, true), nullptr,
                              builtin_registry()),
               usage_error);
  EXPECT_THROW(
      advise::advise(q(16, mutability::read_only, warp_access::uniform, sharing::thread), nullptr, builtin_registry()),
      usage_error);
  EXPECT_THROW(advise::advise(q(16, mutability::unknown), nullptr, builtin_registry()), usage_error);
  EXPECT_THROW(advise::advise(q(0, mutability::read_only), nullptr, builtin_registry()), usage_error);
  EXPECT_THROW(advise::parse_access("sometimes"), usage_error);
  EXPECT_THROW(advise::parse_sharing("world"), usage_error);
}

#include "present/findings.hpp"
#include "report/findings.hpp"

TEST(Findings, DerivedFromRowsBestAgainstPeerAndFittedCosts) {
  std::vector<case_result> rows;
  auto red = [&](const char* kernel, double speedup) {
    auto r =
        row("reduce", "sum",
            {{"kernel", std::string(kernel)}, {"type", std::string("f32")}, {"elements", std::int64_t{1} << 28}}, 1e-3);
    r.metrics["speedup_vs_cub"] = speedup;
    rows.push_back(r);
  };
  red("static_smem", 0.2);
  red("grid_stride_vec", 1.004);
  red("cub", 1.0);
  for (std::int64_t k : {1, 2, 4, 32}) {
    auto r = row("constant", "broadcast", {{"space", std::string("constant")}, {"distinct", k}}, 1e-4);
    r.metrics["cycles_per_load"] = 40.0 + 11.0 * static_cast<double>(k - 1);
    rows.push_back(r);
  }
  for (auto [ws, cyc] : {std::pair<std::int64_t, double>{1024, 34}, {2048, 34}, {4096, 100}, {65536, 104}}) {
    auto r = row("constant", "working_set", {{"ws_bytes", ws}}, 1e-4);
    r.metrics["cycles_per_load"] = cyc;
    rows.push_back(r);
  }
  const auto f = report::findings(doc_with(rows), builtin_registry());
  std::string all;
  for (const auto& x : f) all += x.suite + ": " + x.text + "\n";
  EXPECT_NE(all.find("reduce: best memscope sum of 268435456 f32: grid_stride_vec, 1.004x CUB"), std::string::npos)
      << all;
  EXPECT_NE(all.find("40.0 cycles for a broadcast, +11.0 cycles"), std::string::npos) << all;
  EXPECT_NE(all.find("up to 2.0 KiB at 34 cycles; up to 64.0 KiB at 100-104 cycles"), std::string::npos) << all;
  EXPECT_TRUE(report::findings(doc_with({}), builtin_registry()).empty());
}

TEST(Findings, HistogramAndDsmemRowsBecomeSentences) {
  std::vector<case_result> rows;
  auto hist = [&](const char* strategy, const char* dist, double speedup, const char* kind, double cluster) {
    auto r = row("histogram", "even",
                 {{"strategy", std::string(strategy)},
                  {"bins", std::int64_t{65536}},
                  {"distribution", std::string(dist)},
                  {"samples", std::int64_t{1} << 28}},
                 1e-3);
    r.metrics["speedup_vs_cub"] = speedup;
    if (*kind) {
      r.labels["plan_strategy"] = kind;
      r.metrics["plan_cluster_size"] = cluster;
    }
    rows.push_back(r);
  };
  hist("auto", "uniform", 17.5, "split", 2);
  hist("cluster2", "uniform", 6.8, "cluster", 2);
  hist("cub", "uniform", 1.0, "", 0);
  hist("auto", "one_bin", 1.6, "split", 2);
  auto lat = [&](const char* target, double cycles) {
    auto r = row("dsmem", "latency", {{"target", std::string(target)}, {"ws_bytes", std::int64_t{16384}}}, 1e-3);
    r.metrics["cycles_per_load"] = cycles;
    rows.push_back(r);
  };
  lat("shared", 29);
  lat("dsmem_c2", 192);
  for (auto [width, gbps] : {std::pair<std::int64_t, double>{4, 4075}, {16, 4000}}) {
    auto r = row("dsmem", "bandwidth",
                 {{"target", std::string("dsmem_c2")}, {"op", std::string("read")}, {"width", width}}, 1e-3);
    r.gbps = gbps;
    r.metrics["ratio_to_shared"] = 0.29;
    rows.push_back(r);
  }
  std::string all;
  for (const auto& x : report::findings(doc_with(rows), builtin_registry())) all += x.suite + ": " + x.text + "\n";
  EXPECT_NE(all.find("65536 bins, 268435456 uniform samples: automatic choice (a 2-block split cluster) 17.50x CUB"),
            std::string::npos)
      << all;
  EXPECT_NE(all.find("all samples in one bin: 1.60x"), std::string::npos) << all;
  EXPECT_NE(all.find("dependent-load latency: shared 29 cycles; dsmem_c2 192 cycles"), std::string::npos) << all;
  EXPECT_NE(all.find("fastest remote read: dsmem_c2 with 4-byte accesses, 4075 GB/s"), std::string::npos) << all;
}

TEST(Findings, LatencyLadderAndBandwidthLevelsAreNamed) {
  std::vector<case_result> rows;
  // A Hopper-like ladder: L1 40 cycles to 192 KiB, L2 ~290 to 24 MiB, DRAM ~680 beyond 128 MiB.
  for (std::int64_t ws = 1024; ws <= (std::int64_t{4} << 30); ws *= 2) {
    const double cycles = ws <= 192 * 1024   ? 40
                          : ws <= (24 << 20) ? 290 + (ws > (1 << 20) ? 5 : 0)
                          : ws < (128 << 20) ? 450
                                             : 680;
    auto r = row("latency", "global", {{"path", std::string("default")}, {"ws_bytes", ws}}, 1e-3);
    r.metrics["cycles_per_load"] = cycles;
    rows.push_back(r);
  }
  for (std::int64_t ws = 16384; ws <= (std::int64_t{1} << 30); ws *= 2) {
    auto r = row("cache_bandwidth", "read", {{"sharing", std::string("spread")}, {"ws_bytes", ws}}, 1e-3);
    r.gbps = ws <= (64 << 20) ? 9000 : 4300;
    rows.push_back(r);
  }
  auto d = doc_with(rows);
  d.device.sm_clock_khz = 2000000;
  d.device.shared_per_sm = 228 * 1024;
  std::string all;
  for (const auto& x : report::findings(d, builtin_registry())) all += x.suite + ": " + x.text + "\n";
  EXPECT_NE(all.find("default loads: L1 40 cycles (20 ns) up to 128.0 KiB; L2 295 cycles (148 ns) up to 16.0 MiB; "
                     "DRAM 680 cycles (340 ns) from 128.0 MiB; between, 32.0 MiB-64.0 MiB: 450 to 450 cycles"),
            std::string::npos)
      << all;
  EXPECT_NE(all.find("slices rotate between SMs (x = buffer): L2 9000 GB/s (2.2x copy) up to 64.0 MiB; DRAM 4300 GB/s"),
            std::string::npos)
      << all;
}

namespace {
// A row that kept its samples: `n` draws around `median` with relative spread `spread`.
case_result sampled_row(const std::string& name, double median, double spread, std::uint64_t seed, int n = 40) {
  auto r = row("s", name, {}, median);
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> d(1.0, spread);
  r.times.clear();
  for (int i = 0; i < n; ++i) r.times.push_back(median * std::max(0.5, d(rng)));
  r.stats = summarize(r.times);
  r.converged = true;
  r.stop = "converged";
  return r;
}
}  // namespace

TEST(Compare, RankTestAndEffectSizeDecideTogether) {
  // Same distribution, fresh draws: never a verdict, over many seeds.
  for (std::uint64_t seed = 1; seed <= 50; ++seed) {
    const auto c = report::compare(doc_with({sampled_row("x", 1e-3, 0.02, seed)}),
                                   doc_with({sampled_row("x", 1e-3, 0.02, seed + 1000)}), builtin_registry());
    EXPECT_EQ(c.rows[0].v, report::verdict::same) << "seed " << seed << " p " << c.rows[0].p;
  }
  // A 10% shift with 2% noise: slower, and the p-value says how sure.
  const auto slow = report::compare(doc_with({sampled_row("x", 1e-3, 0.02, 1)}),
                                    doc_with({sampled_row("x", 1.1e-3, 0.02, 2)}), builtin_registry());
  EXPECT_EQ(slow.rows[0].v, report::verdict::slower);
  EXPECT_LT(slow.rows[0].p, 1e-6);
  // A real 1% shift is below the default effect size: same, however sure the test is.
  const auto small = report::compare(doc_with({sampled_row("x", 1e-3, 0.001, 1, 400)}),
                                     doc_with({sampled_row("x", 1.01e-3, 0.001, 2, 400)}), builtin_registry());
  EXPECT_LT(small.rows[0].p, 1e-6);
  EXPECT_EQ(small.rows[0].v, report::verdict::same);
  report::compare_options fine;
  fine.min_effect = 0.005;
  EXPECT_EQ(report::compare(doc_with({sampled_row("x", 1e-3, 0.001, 1, 400)}),
                            doc_with({sampled_row("x", 1.01e-3, 0.001, 2, 400)}), builtin_registry(), fine)
                .rows[0]
                .v,
            report::verdict::slower);
  // A 10% gap between two noisy runs (30% spread, 10 samples): not enough evidence.
  const auto noisy = report::compare(doc_with({sampled_row("x", 1e-3, 0.3, 1, 10)}),
                                     doc_with({sampled_row("x", 1.1e-3, 0.3, 2, 10)}), builtin_registry());
  EXPECT_EQ(noisy.rows[0].v, report::verdict::same);
  report::compare_options bad;
  for (const double alpha : {0.0, 0.6, std::nan("")}) {
    bad.alpha = alpha;
    EXPECT_THROW(report::compare(doc_with({row("s", "x", {}, 1e-3)}), doc_with({row("s", "x", {}, 1e-3)}),
                                 builtin_registry(), bad),
                 usage_error);
  }
}

// A launch of a few microseconds moves by several percent with the process (the stream's
// placement, not the samples): its verdict needs the process shift over its time.
TEST(Compare, ShortLaunchesNeedAnEffectBeyondTheProcessShift) {
  const auto verdict = [](double a, double b, const report::compare_options& opt = {}) {
    const auto c = report::compare(doc_with({sampled_row("x", a, 0.002, 1)}), doc_with({sampled_row("x", b, 0.002, 2)}),
                                   builtin_registry(), opt);
    return c.rows.at(0);
  };
  const auto short_row = verdict(10e-6, 10.8e-6);  // 8% at 10 us: below 1 / 10 = 10%
  EXPECT_EQ(short_row.v, report::verdict::same);
  EXPECT_TRUE(short_row.short_launch);
  EXPECT_NEAR(short_row.threshold, 0.10, 0.001);                  // over the sampled median
  EXPECT_EQ(verdict(10e-6, 11.2e-6).v, report::verdict::slower);  // 12%: beyond it
  // The shortest launches need no more than the largest shift measured.
  EXPECT_DOUBLE_EQ(verdict(1e-6, 1.1e-6).threshold, report::compare_options::max_process_shift);
  EXPECT_EQ(verdict(1e-6, 1.2e-6).v, report::verdict::slower);  // 20% against the 15% cap
  const auto long_row = verdict(100e-6, 105e-6);                // 5% at 100 us: the floor is 1%
  EXPECT_EQ(long_row.v, report::verdict::slower);
  EXPECT_FALSE(long_row.short_launch);
  EXPECT_DOUBLE_EQ(long_row.threshold, 0.03);
  report::compare_options none;
  none.process_shift_s = 0;
  EXPECT_EQ(verdict(5e-6, 5.5e-6, none).v, report::verdict::slower);
  none.process_shift_s = -1;
  EXPECT_THROW(verdict(5e-6, 5.5e-6, none), usage_error);
  std::ostringstream out;
  report::print(report::compare(doc_with({sampled_row("x", 5e-6, 0.002, 1)}),
                                doc_with({sampled_row("x", 5.5e-6, 0.002, 2)}), builtin_registry()),
                doc_with({}), doc_with({}), out);
  EXPECT_NE(out.str().find("1 row(s) of short launches"), std::string::npos) << out.str();
}

namespace {
// A local-memory chase row: its cycles (the figure), the fastest and slowest of its launches,
// and the launch time kept so that it has one.
case_result chase_row(double cycles, double lo, double hi, double seconds) {
  auto r = row("registers", "local_path", {{"words", std::int64_t{256}}}, seconds);
  r.metrics["cycles_per_load"] = cycles;
  r.metrics["cycles_min"] = lo;
  r.metrics["cycles_max"] = hi;
  return r;
}
report::verdict verdict_of(const case_result& a, const case_result& b) {
  return report::compare(doc_with({a}), doc_with({b}), builtin_registry()).rows.at(0).v;
}
}  // namespace

// A chase's timed launch is one further, unwarmed run: its time says little about the cycles
// the row reports, so rows whose case declares its figure are judged on that figure.
TEST(Compare, ACaseWithItsOwnFigureIsJudgedOnIt) {
  const auto a = chase_row(300, 299, 301, 1e-3);
  // 10% fewer cycles, the chases' ranges apart: faster, though the launch took as long.
  const auto c = report::compare(doc_with({a}), doc_with({chase_row(270, 269, 271, 1e-3)}), builtin_registry());
  ASSERT_EQ(c.rows.size(), 1u);
  EXPECT_EQ(c.rows[0].v, report::verdict::faster);
  EXPECT_EQ(c.rows[0].unit, "cycles");
  EXPECT_TRUE(c.rows[0].ranges);
  EXPECT_DOUBLE_EQ(c.rows[0].median_a, 300);
  EXPECT_NEAR(c.rows[0].ratio, 0.9, 1e-12);
  std::ostringstream out;
  report::print(c, doc_with({a}), doc_with({a}), out);
  EXPECT_NE(out.str().find("300.0 cycles"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("ranges"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("judged on their case's own figure"), std::string::npos) << out.str();
  // The same effect with overlapping ranges: same.
  EXPECT_EQ(verdict_of(chase_row(300, 260, 310, 1e-3), chase_row(270, 265, 280, 1e-3)), report::verdict::same);
  // Twice the launch time, the same cycles: same (the time is not the figure).
  EXPECT_EQ(verdict_of(a, chase_row(300, 299, 301, 2e-3)), report::verdict::same);
  // Below the effect size, ranges apart: same.
  EXPECT_EQ(verdict_of(a, chase_row(305, 304, 306, 1e-3)), report::verdict::same);
  // No ranges recorded (one side): the effect alone decides.
  auto bare = chase_row(330, 0, 0, 1e-3);
  bare.metrics.erase("cycles_min");
  bare.metrics.erase("cycles_max");
  const auto judged = report::compare(doc_with({a}), doc_with({bare}), builtin_registry());
  EXPECT_EQ(judged.rows[0].v, report::verdict::slower);
  EXPECT_FALSE(judged.rows[0].ranges);
  // A row of an older file without the figure: judged on its time, as before.
  auto old_a = a, old_b = chase_row(300, 299, 301, 2e-3);
  old_a.metrics.clear();
  old_b.metrics.clear();
  const auto timed = report::compare(doc_with({old_a}), doc_with({old_b}), builtin_registry());
  EXPECT_EQ(timed.rows[0].unit, "");
  EXPECT_EQ(timed.rows[0].v, report::verdict::slower);
}

// A pointer chase from 16 SMs: its whisker spans the SMs (268-305 cycles for an L2 hit), which
// any two runs share; the mean over them repeats to 0.2%. So the effect decides, not the
// overlap: a 3.4% slower mean is slower, a 0.7% one is the same.
TEST(Compare, AChaseFromManySmsIsJudgedOnItsMean) {
  const auto sm_row = [](double mean, double lo, double hi) {
    auto r = row("latency", "global", {{"path", std::string("cg")}, {"ws_bytes", std::int64_t{1024}}}, 1e-3);
    r.metrics["cycles_per_load"] = mean;
    r.metrics["cycles_min"] = lo;
    r.metrics["cycles_max"] = hi;
    return r;
  };
  const auto a = sm_row(290, 268, 305);
  const auto c = report::compare(doc_with({a}), doc_with({sm_row(300, 275, 312)}), builtin_registry());
  EXPECT_EQ(c.rows.at(0).v, report::verdict::slower);
  EXPECT_EQ(c.rows[0].unit, "cycles");
  EXPECT_FALSE(c.rows[0].ranges) << "the SMs' spread is not the measurement's";
  EXPECT_EQ(verdict_of(a, sm_row(292, 268, 306)), report::verdict::same);
  for (const char* suite : {"dsmem", "atomics"}) {
    const auto* c = builtin_registry().find_case(suite, "latency");
    ASSERT_TRUE(c && c->figure) << suite;
    EXPECT_TRUE(c->figure->lo_metric.empty()) << suite << ": its range is over SM pairs";
  }
}

TEST(Compare, SaysWhichGpusItCompares) {
  auto a = doc_with({row("s", "x", {}, 1e-3)});
  auto b = a;
  EXPECT_NE(report::gpu_relation(a, b).find("the same GPU"), std::string::npos);
  a.device.uuid = "GPU-a";
  b.device.uuid = "GPU-b";
  EXPECT_NE(report::gpu_relation(a, b).find("two boards of one model"), std::string::npos);
  b.device.name = "NVIDIA A100";
  EXPECT_NE(report::gpu_relation(a, b).find("different GPU models"), std::string::npos);
}

namespace {

/// What `memscope compare` prints for A and B.
std::string compared_text(const results_doc& a, const results_doc& b) {
  std::ostringstream out;
  report::print(report::compare(a, b, builtin_registry()), a, b, out);
  return out.str();
}

}  // namespace

TEST(Compare, SaysWhenTheTwoRunsStartedFromDifferentL2s) {
  auto a = doc_with({row("s", "x", {}, 1e-3)});
  auto b = a;
  EXPECT_EQ(report::l2_relation(a, b), "");
  b.cold = cold_mode::dirty;
  EXPECT_EQ(report::l2_relation(a, b),
            "L2 at every sample's start: A warm (what the previous launch left), B full of dirty lines (--cold=dirty): "
            "every ratio includes the change of regime, not only of code");
  a.cold = cold_mode::clean;
  const std::string out = compared_text(a, b);
  EXPECT_NE(out.find("A flushed clean (--cold), B full of dirty lines"), std::string::npos) << out;
}

TEST(Compare, SaysWhenOneRunWasQuick) {
  auto a = doc_with({row("s", "x", {}, 1e-3)});
  auto b = a;
  EXPECT_EQ(report::stopping_relation(a, b), "");
  b.quick = true;
  const std::string out = compared_text(a, b);
  EXPECT_NE(out.find("stopping rules: A the full stopping rule, B --quick"), std::string::npos) << out;
}

TEST(Compare, RefusesRunsTakenForAProfiler) {
  auto a = doc_with({row("s", "x", {}, 1e-3)});
  auto b = a;
  b.timing = timing_policy::full();
  EXPECT_NO_THROW(report::compare(a, b, builtin_registry()));
  b.timing->run_once = true;
  for (const bool b_is_once : {true, false}) {
    try {
      if (b_is_once) report::compare(a, b, builtin_registry());
      else report::compare(b, a, builtin_registry());
      ADD_FAILURE() << "a --run-once run was compared";
    } catch (const usage_error& e) {
      EXPECT_NE(
          std::string(e.what()).find(std::string("results ") + (b_is_once ? "B" : "A") + " was taken with --run-once"),
          std::string::npos)
          << e.what();
    }
  }
}

TEST(Advise, TheHostSideBranchesAndTheirFigures) {
  const auto d = doc_with({});
  const auto host = [](advise::host_origin o, bool larger, int gpus) {
    advise::query x;
    x.bytes = 256u << 20;
    x.origin = o;
    x.larger_than_gpu = larger;
    x.gpus = gpus;
    return x;
  };
  const std::pair<advise::query, const char*> cases[] = {
      {host(advise::host_origin::once, false, 1), "host/once"},
      {host(advise::host_origin::every_iteration, false, 1), "host/every-iteration"},
      {host(advise::host_origin::once, true, 1), "host/larger-than-gpu"},
      {host(advise::host_origin::none, false, 4), "host/shared-between-gpus"},
  };
  for (const auto& [query, branch] : cases) {
    const auto a = advise::advise_host(query, &d, builtin_registry());
    EXPECT_EQ(a.branch, branch);
    EXPECT_FALSE(a.evidence.empty()) << branch;
    EXPECT_NE(a.evidence.front().find("not in this profile"), std::string::npos) << a.evidence.front();
  }
  // With transfer rows the figure is cited, at the nearest measured size.
  auto pinned = row("transfer", "copy",
                    {{"engine", std::string("copy_engine")},
                     {"memory", std::string("pinned")},
                     {"direction", std::string("h2d")},
                     {"bytes", std::int64_t{1} << 28}},
                    5e-3);
  auto pageable = row("transfer", "copy",
                      {{"engine", std::string("copy_engine")},
                       {"memory", std::string("pageable")},
                       {"direction", std::string("h2d")},
                       {"bytes", std::int64_t{1} << 28}},
                      3e-2);
  const auto with = doc_with({pinned, pageable});
  auto q1 = host(advise::host_origin::once, false, 1);
  q1.bytes = 100u << 20;
  const auto a = advise::advise_host(q1, &with, builtin_registry());
  EXPECT_NE(a.evidence.front().find("pinned"), std::string::npos) << a.evidence.front();
  EXPECT_NE(a.evidence.front().find("6.0x slower"), std::string::npos) << a.evidence.front();
  EXPECT_NE(a.evidence.front().find("nearest measured size"), std::string::npos) << a.evidence.front();
  EXPECT_THROW(advise::advise_host(advise::query{}, &d, builtin_registry()), usage_error);
  EXPECT_THROW(advise::parse_origin("sometimes"), usage_error);
}

namespace {

/// A managed/pipeline row at 1 GiB. Without `work` or `feed` the row has no such axis, as
/// rows measured before the axis existed.
case_result pipeline_row(std::int64_t chunks, double seconds, std::optional<std::int64_t> work = std::nullopt,
                         const char* feed = nullptr) {
  std::vector<std::pair<std::string, axis_value>> axes;
  if (feed) axes.emplace_back("feed", std::string(feed));
  axes.emplace_back("chunks", chunks);
  if (work) axes.emplace_back("work", *work);
  axes.emplace_back("bytes", std::int64_t{1} << 30);
  auto r = row("managed", "pipeline", std::move(axes), seconds);
  r.labels["chunk"] = chunks == 1 ? "1.0 GiB" : chunks == 4 ? "256.0 MiB" : "64.0 MiB";
  return r;
}

/// What `memscope advise --larger-than-gpu` cites from `d`, a line each.
/// A managed/stream row with the output given (4 GiB free, 384 MiB chunks, no kernel work).
case_result stream_row(const char* feed, const char* output, std::int64_t chunks, double seconds) {
  auto r = row("managed", "stream",
               {{"feed", std::string(feed)},
                {"chunks", chunks},
                {"work", std::int64_t{0}},
                {"output", std::string(output)},
                {"percent_of_free", std::int64_t{150}}},
               seconds);
  r.labels["free"] = "4.0 GiB";
  r.labels["chunk"] = "384.0 MiB";
  return r;
}

std::string larger_than_gpu_evidence(const results_doc& d) {
  advise::query q;
  q.larger_than_gpu = true;
  std::string all;
  for (const auto& e : advise::advise_host(q, &d, builtin_registry()).evidence) all += e + "\n";
  return all;
}

}  // namespace

// Data larger than the GPU: the answer quotes the chunk sweep and what each further prefetch
// added, net of the overlap (1 chunk 20 ms, 16 chunks 23 ms: 0.2 ms each).
TEST(Advise, LargerThanTheGpuQuotesWhatEachPrefetchCosts) {
  const auto all =
      larger_than_gpu_evidence(doc_with({pipeline_row(1, 20e-3), pipeline_row(4, 20.6e-3), pipeline_row(16, 23e-3)}));
  EXPECT_NE(all.find("in 16 chunks of 64.0 MiB"), std::string::npos) << all;
  EXPECT_NE(all.find("(0.87x)"), std::string::npos) << all;
  EXPECT_NE(all.find("each further prefetch added 200 us"), std::string::npos) << all;
  EXPECT_EQ(all.find("multiply-adds"), std::string::npos) << "no kernel weights measured: " << all;
}

// With kernels that have work, the fact says what overlap won back and what the model
// (sqrt(the shorter of prefetch and kernels / a prefetch's cost)) calls the best count; the
// prefetch alone comes from access' row of the same bytes.
TEST(Advise, LargerThanTheGpuQuotesWhatOverlapWonWithHeavyKernels) {
  const auto prefetch =
      row("managed", "access", {{"mode", std::string("prefetch")}, {"bytes", std::int64_t{1} << 30}}, 20e-3);
  // Copies: 16 chunks cost 15 x 100 us. Heavy kernels: 20 ms prefetch + 40 ms kernels serial,
  // 16 chunks 42 ms.
  const auto all = larger_than_gpu_evidence(doc_with({prefetch, pipeline_row(1, 20.5e-3, 0), pipeline_row(16, 22e-3, 0),
                                                      pipeline_row(1, 60e-3, 4096), pipeline_row(16, 42e-3, 4096)}));
  EXPECT_NE(all.find("each further prefetch added 100 us"), std::string::npos) << all;
  EXPECT_NE(
      all.find("with kernels doing 4096 multiply-adds a word (about 40.0 ms on these bytes, the prefetch 20.0 ms), "
               "16 chunks ran 1.43x one prefetch then the kernels"),
      std::string::npos)
      << all;
  EXPECT_NE(all.find("predicts 14.1 chunks"), std::string::npos) << all;  // sqrt(20 ms / 100 us)
}

// Double buffering from pinned memory, measured beside the prefetch pipeline, is quoted against
// the prefetch pipeline's best at every kernel weight.
TEST(Advise, LargerThanTheGpuQuotesPinnedDoubleBufferingBesideThePrefetches) {
  const auto all = larger_than_gpu_evidence(
      doc_with({pipeline_row(1, 20.5e-3, 0, "prefetch"), pipeline_row(16, 22e-3, 0, "prefetch"),
                pipeline_row(1, 60e-3, 4096, "prefetch"), pipeline_row(16, 42e-3, 4096, "prefetch"),
                pipeline_row(1, 19e-3, 0, "pinned_copy"), pipeline_row(16, 18e-3, 0, "pinned_copy"),
                pipeline_row(1, 58e-3, 4096, "pinned_copy"), pipeline_row(16, 40e-3, 4096, "pinned_copy")}));
  // The prefetch figures are the prefetch rows' alone: 15 x 100 us.
  EXPECT_NE(all.find("each further prefetch added 100 us"), std::string::npos) << all;
  EXPECT_NE(all.find("double buffering from pinned memory instead, best at 0 multiply-adds a word: 16 chunks"),
            std::string::npos)
      << all;
  EXPECT_NE(all.find("1.14x the best prefetch pipeline; 4096 multiply-adds a word: 16 chunks"), std::string::npos)
      << all;
  EXPECT_NE(all.find("1.05x the best prefetch pipeline"), std::string::npos) << all;
}

// Where more pieces took less time in all than one (one H100 host's pinned feed: 16 copies ran
// 0.6 ms faster than one), the finding and the advisor say so instead of quoting a negative
// cost per piece, and the model, which needs a positive cost, is left out.
TEST(Advise, MorePiecesFasterInAllIsNoNegativeCost) {
  const auto prefetch =
      row("managed", "access", {{"mode", std::string("prefetch")}, {"bytes", std::int64_t{1} << 30}}, 20e-3);
  const auto d = doc_with({prefetch, pipeline_row(1, 20.5e-3, 0, "prefetch"), pipeline_row(16, 20.2e-3, 0, "prefetch"),
                           pipeline_row(1, 60e-3, 4096, "prefetch"), pipeline_row(16, 42e-3, 4096, "prefetch"),
                           pipeline_row(1, 19e-3, 0, "pinned_copy"), pipeline_row(16, 18.4e-3, 0, "pinned_copy")});
  std::string findings;
  for (const auto& x : report::findings(d, builtin_registry())) findings += x.text + "\n";
  EXPECT_NE(findings.find("16 chunks took 600 us less than one in all: no cost of a further copy shows"),
            std::string::npos)
      << findings;
  EXPECT_NE(findings.find("16 chunks took 300 us less than one in all: no cost of a further prefetch shows"),
            std::string::npos)
      << findings;
  EXPECT_EQ(findings.find("added -"), std::string::npos) << findings;
  EXPECT_EQ(findings.find("the model's best"), std::string::npos) << "no positive cost, no model: " << findings;
  const auto all = larger_than_gpu_evidence(d);
  EXPECT_NE(all.find("16 chunks took 300 us less than one in all"), std::string::npos) << all;
  EXPECT_EQ(all.find("added -"), std::string::npos) << all;
  EXPECT_EQ(all.find("predicts"), std::string::npos) << all;
  EXPECT_NE(all.find("16 chunks ran 1.43x one prefetch then the kernels"), std::string::npos) << all;
}

// Past the free memory the answer quotes the fault path and, where `stream` ran, the best of
// each feed at the lightest kernels.
TEST(Advise, LargerThanTheGpuQuotesTheStreamPastTheFreeMemory) {
  const auto streamed = [](const char* feed, std::int64_t chunks, std::int64_t work, double seconds) {
    auto r =
        row("managed", "stream",
            {{"feed", std::string(feed)}, {"chunks", chunks}, {"work", work}, {"percent_of_free", std::int64_t{150}}},
            seconds);
    r.labels["free"] = "4.0 GiB";
    return r;
  };
  const auto over = row("managed", "oversubscribe", {{"percent_of_free", std::int64_t{150}}}, 0.2);
  // gbps = 2 MiB / seconds: the fastest prefetched point is 64 chunks, the fastest pinned 16.
  const auto all =
      larger_than_gpu_evidence(doc_with({over, streamed("prefetch", 16, 0, 2e-3), streamed("prefetch", 64, 0, 1e-3),
                                         streamed("pinned_copy", 16, 0, 0.5e-3), streamed("pinned_copy", 64, 0, 0.8e-3),
                                         streamed("prefetch", 16, 1024, 0.1e-3)}));
  EXPECT_NE(all.find("a kernel faulting managed memory in: 150% of the free memory"), std::string::npos) << all;
  EXPECT_NE(
      all.find(
          "streamed through it in chunks (0 multiply-adds a word): prefetched 2.1 GB/s (64 chunks), pinned through "
          "two device buffers 4.2 GB/s (16 chunks)"),
      std::string::npos)
      << all;
}

// With the output brought back to the host, the answer adds the best of each feed for the
// round trip, and the finding compares each with the same stream whose output stayed behind.
TEST(Advise, LargerThanTheGpuQuotesTheRoundTripBesideTheOneWayStream) {
  const auto streamed = stream_row;
  const auto over = row("managed", "oversubscribe", {{"percent_of_free", std::int64_t{150}}}, 0.2);
  const auto d =
      doc_with({over, streamed("prefetch", "device", 16, 1e-3), streamed("pinned_copy", "device", 16, 0.5e-3),
                streamed("prefetch", "host", 16, 2e-3), streamed("prefetch", "host", 64, 4e-3),
                streamed("pinned_copy", "host", 16, 1e-3), streamed("prefetch", "host_mapped", 16, 1.25e-3),
                streamed("pinned_copy", "host_mapped", 16, 0.625e-3)});
  const auto all = larger_than_gpu_evidence(d);
  EXPECT_NE(all.find("(0 multiply-adds a word): prefetched 2.1 GB/s (16 chunks), pinned through two device buffers 4.2 "
                     "GB/s (16 chunks)"
                     "; with the output brought back to the host as well: prefetched in and back 1.0 GB/s (16 chunks), "
                     "pinned through two "
                     "device buffers and back through two more 2.1 GB/s (16 chunks); the kernels writing their output "
                     "straight into "
                     "host memory: managed (mapped output) 1.7 GB/s (16 chunks), pinned through two device buffers "
                     "(mapped output) "
                     "3.4 GB/s (16 chunks)"),
            std::string::npos)
      << all;
  std::string findings;
  for (const auto& x : report::findings(d, builtin_registry())) findings += x.text + "\n";
  EXPECT_NE(
      findings.find("its output brought back to the host as it is made (GB/s of input): managed, the output discarded, "
                    "prefetched in and back 1.0 GB/s, 0.50x the same with the output left on the device; copied from "
                    "pinned memory through two device buffers and back through two more 2.1 GB/s, 0.50x the same with "
                    "the output left on the device (2.00x the prefetches)"),
      std::string::npos)
      << findings;
  EXPECT_NE(
      findings.find(
          "which writes its output straight into host memory (GB/s of input): managed, prefetched in, the output "
          "into managed pages left on the host and mapped by the GPU 1.7 GB/s, 0.80x the same with the output left "
          "on the device; copied from pinned memory through two device buffers, the output into mapped pinned "
          "memory 3.4 GB/s, 0.80x the same with the output left on the device (2.00x the prefetches)"),
      std::string::npos)
      << findings;
  // 64 chunks ran only the round trip: no one-way figure to compare with.
  EXPECT_NE(
      findings.find(
          "in 64 chunks of 384.0 MiB, each handed as it lands to a kernel doing 0 multiply-adds a word, its output "
          "brought back to the host as it is made (GB/s of input): managed, the output discarded, prefetched in "
          "and back 0.5 GB/s\n"),
      std::string::npos)
      << findings;
}

// Read-mostly input pages are a third feed: the finding sets them against the migrated input and
// the pinned copies against them; the answer quotes the best of them beside the other feeds.
TEST(Advise, LargerThanTheGpuQuotesReadMostlyInputBesideTheMigratedPrefetches) {
  const auto streamed = [](const char* feed, std::int64_t chunks, double seconds) {
    return stream_row(feed, "device", chunks, seconds);
  };
  const auto over = row("managed", "oversubscribe", {{"percent_of_free", std::int64_t{150}}}, 0.2);
  // gbps = 2 MiB / seconds.
  const auto d = doc_with({over, streamed("prefetch", 16, 1e-3), streamed("prefetch_read_mostly", 16, 0.8e-3),
                           streamed("prefetch_read_mostly", 64, 0.9e-3), streamed("pinned_copy", 16, 0.5e-3)});
  const auto all = larger_than_gpu_evidence(d);
  EXPECT_NE(all.find("(0 multiply-adds a word): prefetched 2.1 GB/s (16 chunks), the input read-mostly 2.6 GB/s (16 "
                     "chunks), pinned "
                     "through two device buffers 4.2 GB/s (16 chunks)"),
            std::string::npos)
      << all;
  std::string findings;
  for (const auto& x : report::findings(d, builtin_registry())) findings += x.text + "\n";
  EXPECT_NE(
      findings.find(
          "in 16 chunks of 384.0 MiB, each handed as it lands to a kernel doing 0 multiply-adds a word: prefetched "
          "2.1 GB/s; the input advised read-mostly 2.6 GB/s (1.25x the migrated input); copied from pinned memory "
          "through two device buffers 4.2 GB/s (2.00x the prefetches, 1.60x the read-mostly ones)\n"),
      std::string::npos)
      << findings;
  // 64 chunks ran read-mostly alone: it is the line's first figure.
  EXPECT_NE(
      findings.find(
          "in 64 chunks of 384.0 MiB, each handed as it lands to a kernel doing 0 multiply-adds a word: the input "
          "advised read-mostly 2.3 GB/s\n"),
      std::string::npos)
      << findings;
  // Rows of two processes (a resumed run, another board) are quoted, never set against each other.
  auto resumed = d;
  for (auto& r : resumed.results)
    if (r.string_axis("feed") == "prefetch_read_mostly") r.source = 1;
  std::string apart;
  for (const auto& x : report::findings(resumed, builtin_registry())) apart += x.text + "\n";
  EXPECT_NE(
      apart.find(
          "prefetched 2.1 GB/s; the input advised read-mostly 2.6 GB/s; copied from pinned memory through two device "
          "buffers 4.2 GB/s (2.00x the prefetches)\n"),
      std::string::npos)
      << apart;
}

// Both ways at once, each by its own engine: the finding gives each pairing's total and
// split, and each mixed pairing's directions against the two copy engines'.
TEST(Findings, EachPairingOfEnginesBothWaysAgainstTwoCopyEngines) {
  const auto both = [](const char* up, const char* down, double seconds, double h2d, double d2h) {
    auto r = row("transfer", "engines",
                 {{"up", std::string(up)},
                  {"down", std::string(down)},
                  {"memory", std::string("pinned")},
                  {"bytes", std::int64_t{1} << 30}},
                 seconds);
    if (h2d > 0) r.metrics["h2d_gbps"] = h2d, r.metrics["d2h_gbps"] = d2h;
    return r;
  };
  const auto d =
      doc_with({both("copy_engine", "copy_engine", 2e-5, 50, 55), both("sm_kernel", "sm_kernel", 2.5e-5, 0, 0),
                both("copy_engine", "sm_kernel", 4e-5, 25, 52)});
  std::string findings;
  for (const auto& x : report::findings(d, builtin_registry())) findings += x.text + "\n";
  EXPECT_NE(
      findings.find(
          "both ways at once, 1.0 GiB each way from pinned memory: CE up + CE down 104.9 GB/s (h2d 50.0 GB/s, d2h "
          "55.0 GB/s); CE up + SM down 52.4 GB/s (h2d 25.0 GB/s, d2h 52.0 GB/s); SM up + SM down 83.9 GB/s (one "
          "launch)\n"),
      std::string::npos)
      << findings;
  EXPECT_NE(
      findings.find(
          "the copy engine's h2d beside an SM kernel's d2h: 0.50x its rate beside a second copy engine; the kernel's "
          "d2h 0.95x the copy engine's there (together 0.50x the two copy engines)\n"),
      std::string::npos)
      << findings;
  // Data the host sends every iteration: the advice warns against mixing, with the figure.
  advise::query q;
  q.origin = advise::host_origin::every_iteration;
  const auto a = advise::advise_host(q, &d, builtin_registry());
  EXPECT_NE(a.technique.find("not while a copy engine moves data the other way"), std::string::npos) << a.technique;
  std::string evidence;
  for (const auto& e : a.evidence) evidence += e + "\n";
  EXPECT_NE(
      evidence.find(
          "both ways at once, 1.0 GiB each way: the copy engine's h2d beside a kernel moving the other way through "
          "mapped memory 25.0 GB/s (0.50x its rate beside a second copy engine); the two together 52.4 GB/s "
          "against 104.9 GB/s for two copy engines"),
      std::string::npos)
      << evidence;
}

// A profile made on a one-GPU machine holds the peer points as skips: the answer says why
// there is no figure instead of suggesting the suite was never run.
TEST(Advise, ASuiteSkippedInTheProfileSaysWhy) {
  auto skipped = row("peer", "copy", {{"engine", std::string("copy_engine")}, {"peer_offset", std::int64_t{1}}}, 0.0);
  skipped.status = case_status::skipped;
  skipped.message = "one GPU in this system: no peer to measure";
  const auto d = doc_with({skipped});
  advise::query q;
  q.bytes = 1u << 30;
  q.gpus = 2;
  const auto a = advise::advise_host(q, &d, builtin_registry());
  ASSERT_FALSE(a.evidence.empty());
  EXPECT_NE(a.evidence.front().find("skipped (one GPU in this system: no peer to measure)"), std::string::npos)
      << a.evidence.front();
  EXPECT_NE(a.evidence.front().find("memscope run peer"), std::string::npos) << a.evidence.front();
}
