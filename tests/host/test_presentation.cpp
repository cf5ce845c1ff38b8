// The suite-owned presentation: generic report and advisor code, findings unchanged on the
// bundled profile, old results files read through the suites' upgrade hooks, facts answered at
// the nearest measured point.

#include "advise/advisor.hpp"
#include "harness/registry.hpp"
#include "present/rows.hpp"
#include "report/bundled_profile.hpp"
#include "report/charts.hpp"
#include "report/findings.hpp"
#include "host/test_rows.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

using namespace memscope;

namespace {

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

results_doc bundled() {
  auto doc = bundled_profile();
  if (!doc) return {};
  upgrade(*doc, builtin_registry());
  return *doc;
}

}  // namespace

// report and advise without a file take the profile of the user's GPU model where one is
// bundled: each profile is found by its device's name, and an unknown or absent GPU gets the
// first (the H200's).
TEST(Presentation, TheBundledProfileOfTheGpuModelIsChosen) {
  const auto& entries = bundled_entries();
  if (entries.empty()) GTEST_SKIP() << "no profile bundled in this build";
  EXPECT_EQ(bundled_index_for(""), 0u);
  EXPECT_EQ(bundled_index_for("a GPU nobody profiled"), 0u);
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const auto doc = bundled_profile(i);
    ASSERT_TRUE(doc) << entries[i].source;
    EXPECT_EQ(bundled_index_for(doc->device.name), i) << entries[i].source << ": " << doc->device.name;
    EXPECT_STREQ(bundled_profile_source(i), entries[i].source);
  }
  EXPECT_STREQ(bundled_profile_source(entries.size()), "");
  EXPECT_FALSE(bundled_profile(entries.size()));
}

// src/report and src/advise are generic: no suite, case or axis name of any suite appears there
// as a string literal (suites declare their charts, findings and facts themselves).
TEST(Presentation, ReportAndAdvisorNameNoSuiteCaseOrAxis) {
  std::set<std::string> names;
  for (const auto& c : builtin_registry().cases()) {
    names.insert(c.suite);
    names.insert(c.name);
    for (const auto& a : c.axes) names.insert(a.name);
  }
  if (!std::filesystem::is_directory(std::filesystem::path(MEMSCOPE_SOURCE_DIR) / "src/report"))
    GTEST_SKIP() << "the source tree is not at " << MEMSCOPE_SOURCE_DIR << " (a copied binary)";
  const std::regex literal(R"re("((?:[^"\\]|\\.)*)")re");
  std::size_t files = 0;
  for (const char* dir : {"src/report", "src/advise"})
    for (const auto& e : std::filesystem::directory_iterator(std::filesystem::path(MEMSCOPE_SOURCE_DIR) / dir)) {
      if (e.path().extension() != ".cpp") continue;
      ++files;
      const auto text = read_file(e.path());
      for (std::sregex_iterator it(text.begin(), text.end(), literal), end; it != end; ++it)
        EXPECT_EQ(names.count((*it)[1].str()), 0u) << e.path() << " names \"" << (*it)[1].str() << "\"";
    }
  EXPECT_GE(files, 6u);
}

// The findings of the bundled H200 profile are the ones the per-suite functions of the report
// produced (tests/data/h200_findings.txt; MEMSCOPE_WRITE_GOLDEN=1 rewrites it from the profile).
TEST(Presentation, BundledProfileKeepsEveryFinding) {
  const auto doc = bundled();
  if (doc.results.empty()) GTEST_SKIP() << "no profile bundled in this build";
  std::multiset<std::string> now;
  std::set<std::string> golden_suites;
  {
    std::ifstream g(std::filesystem::path(MEMSCOPE_SOURCE_DIR) / "tests/data/h200_findings.txt");
    for (std::string line; std::getline(g, line);)
      if (!line.empty()) golden_suites.insert(line.substr(0, line.find(':')));
  }
  // The suites the golden file knows: suites bundled later add findings of their own.
  for (const auto& f : report::findings(doc, builtin_registry()))
    if (golden_suites.count(f.suite)) now.insert(f.suite + ": " + f.text);
  const auto golden_path = std::filesystem::path(MEMSCOPE_SOURCE_DIR) / "tests/data/h200_findings.txt";
  if (!std::filesystem::is_directory(golden_path.parent_path()))
    GTEST_SKIP() << "the source tree is not at " << MEMSCOPE_SOURCE_DIR;
  if (std::getenv("MEMSCOPE_WRITE_GOLDEN")) {
    // After the profile is regenerated: rewrite the golden file from it (then review the diff).
    std::ofstream out(golden_path);
    for (const auto& f : report::findings(doc, builtin_registry())) out << f.suite << ": " << f.text << '\n';
    GTEST_SKIP() << "wrote " << golden_path;
  }
  std::ifstream golden(golden_path);
  ASSERT_TRUE(golden) << "golden findings file missing";
  std::size_t count = 0;
  for (std::string line; std::getline(golden, line);)
    if (!line.empty()) {
      ++count;
      EXPECT_EQ(now.count(line), 1u) << "finding lost or changed: " << line;
    }
  EXPECT_EQ(count, now.size());
}

// Every suite of the bundled profile draws at least the charts it drew before the move.
TEST(Presentation, BundledProfileDrawsEveryChart) {
  const auto doc = bundled();
  if (doc.results.empty()) GTEST_SKIP() << "no profile bundled in this build";
  const std::pair<const char*, std::size_t> before[] = {
      {"bandwidth", 1}, {"reduce", 1},       {"coalescing", 2},    {"bank_conflicts", 3},
      {"transpose", 1}, {"stencil", 1},      {"constant", 2},      {"transform", 1},
      {"readonly", 1},  {"histogram", 3},    {"dsmem", 4},         {"cache_bandwidth", 1},
      {"texture", 3},   {"cache_config", 3}, {"cache_control", 5}, {"latency", 1}};
  for (const auto& [suite, n] : before) {
    const auto charts = report::charts_for(builtin_registry().find_suite(suite), present::suite_view{doc, suite});
    EXPECT_GE(charts.size(), n) << suite;
    // A number printed as nan or inf, not a label that contains the letters (nan_heavy).
    for (const auto& svg : charts) EXPECT_FALSE(report::shows_non_finite(svg)) << suite;
  }
}

// A figure the profile measured several times shows its spread: timed samples behind GB/s,
// chases behind cycles, SM pairs behind DSMEM latency. Each chart names what its whiskers span.
TEST(Presentation, BundledProfileChartsShowTheSpreadBehindTheirFigures) {
  const auto doc = bundled();
  if (doc.results.empty()) GTEST_SKIP() << "no profile bundled in this build";
  for (const char* suite : {"bandwidth", "latency", "dsmem", "cache_bandwidth", "transfer", "atomics"}) {
    const auto charts = report::charts_for(builtin_registry().find_suite(suite), present::suite_view{doc, suite});
    const auto with = std::count_if(charts.begin(), charts.end(), [](const std::string& svg) {
      return svg.find("class=\"whisker\"") != std::string::npos && svg.find("whiskers: ") != std::string::npos;
    });
    EXPECT_GE(with, 1) << suite;
  }
}

// Version 1 stored the histogram plan as an ordinal; the suite's upgrade hook names it.
TEST(Presentation, VersionOneRowsAreUpgradedToLabels) {
  results_doc doc;
  doc.format_version = 1;
  case_result r;
  r.suite = "histogram";
  r.name = "even";
  r.metrics["plan_strategy"] = 4;
  r.metrics["plan_cluster_size"] = 2;
  doc.results.push_back(r);
  upgrade(doc, builtin_registry());
  EXPECT_EQ(doc.format_version, results_format_version);
  EXPECT_EQ(doc.results[0].label("plan"), "split cluster of 2");
  EXPECT_EQ(doc.results[0].label("plan_strategy"), "split");
  EXPECT_EQ(doc.results[0].metrics.count("plan_strategy"), 0u);
}

// A finding names a row by its axes; an axis the row's file predates is left out, not shown as 0.
TEST(Presentation, AxesTextLeavesOutAxesARowLacks) {
  const auto r = memscope::testing::timed_row("histogram", "pixels",
                                              {{"image", std::string{"rgb_f32"}}, {"bins", std::int64_t{256}}}, 1e-4);
  EXPECT_EQ(present::axes_text(r, {"image", "width", "bins"}), "rgb_f32 bins=256");
  EXPECT_EQ(present::axes_text(r, {"width"}), "");
}

// A results file measured at other sizes than the bundled profile still answers, from the
// nearest measured point, and says so.
TEST(Presentation, AdvisorAnswersFromOtherAxesAtTheNearestPoint) {
  auto doc = bundled();
  if (doc.results.empty()) GTEST_SKIP() << "no profile bundled in this build";
  // Keep only histogram rows at 4096 and 262144 bins: neither is what the question asks.
  std::vector<case_result> kept;
  for (const auto& r : doc.results)
    if (r.suite != "histogram" || r.int_axis("bins") == 4096 || r.int_axis("bins") == 262144) kept.push_back(r);
  doc.results = kept;
  advise::query q;
  q.bytes = 2 << 20;  // 2^19 counters: the nearest measured count is 2^18
  q.mut = advise::mutability::written;
  q.share = advise::sharing::grid;
  const auto a = advise::advise(q, &doc, builtin_registry());
  EXPECT_EQ(a.branch, "written/grid/global");
  bool noted = false;
  for (const auto& e : a.evidence)
    noted |= e.find("262144 bins") != std::string::npos && e.find("nearest measured") != std::string::npos;
  EXPECT_TRUE(noted) << a.evidence[0];
  q.bytes = 16 << 10;  // 4096 counters: exactly measured, no note
  const auto b = advise::advise(q, &doc, builtin_registry());
  EXPECT_EQ(b.branch, "written/grid/block");
  EXPECT_EQ(b.evidence[0].find("nearest measured"), std::string::npos) << b.evidence[0];
}

// Every question the advisor asks has a suite that answers it, and fact names are unique.
TEST(Presentation, EveryAdvisorQuestionHasAnAnsweringSuite) {
  std::size_t facts = 0;
  for (const auto& s : builtin_registry().suite_infos()) {
    for (const auto& f : s.facts) {
      ++facts;
      EXPECT_EQ(f.suite, s.name);
      EXPECT_TRUE(f.eval) << f.name;
    }
  }
  EXPECT_GE(facts, 16u);
  // Each branch of the tree, without a profile: cites a suite for every question it asks.
  advise::query q;
  q.temporary = true;
  EXPECT_FALSE(advise::advise(q, nullptr, builtin_registry()).suite.empty());
}

// A fact sees only the cases it declares, so its declaration must name every case it reads: on
// the bundled profile each fact says from its declared cases what it says from the whole suite,
// and every fact a one-GPU profile holds rows for answers.
TEST(Presentation, FactsReadOnlyTheCasesTheyDeclare) {
  const auto doc = bundled();
  if (doc.results.empty()) GTEST_SKIP() << "no profile bundled in this build";
  std::size_t answered = 0;
  for (const auto& s : builtin_registry().suite_infos())
    for (const auto& f : s.facts) {
      const auto whole = f.eval(present::suite_view{doc, f.suite}, std::nullopt);
      const auto declared = f.eval(f.view(doc), std::nullopt);
      ASSERT_EQ(whole.has_value(), declared.has_value()) << f.name << " reads a case it does not declare";
      if (!whole) continue;
      EXPECT_EQ(declared->text, whole->text) << f.name << " reads a case it does not declare";
      ++answered;
    }
  EXPECT_GE(answered, 27u);  // all but peer_access: the bundled profile's peer points were skipped (one GPU)
}

// Where the profile lacks the rows a fact reads, the advisor names the cases that measure it,
// not the whole suite; where they were skipped, it says why.
TEST(Presentation, AdvisorNamesTheCasesAFactNeeds) {
  auto doc = bundled();
  if (doc.results.empty()) GTEST_SKIP() << "no profile bundled in this build";
  std::vector<case_result> kept;
  for (const auto& r : doc.results)
    if (!(r.suite == "transfer" && r.name == "engines")) kept.push_back(r);
  doc.results = kept;
  advise::query q;
  q.origin = advise::host_origin::every_iteration;
  const auto a = advise::advise_host(q, &doc, builtin_registry());
  const auto has = [](const advise::answer& x, const std::string& text) {
    return std::any_of(x.evidence.begin(), x.evidence.end(),
                       [&](const std::string& e) { return e.find(text) != std::string::npos; });
  };
  EXPECT_TRUE(has(a, "not in this profile: `memscope run transfer/engines` measures it")) << a.evidence.back();
  EXPECT_TRUE(has(a, "GB/s")) << "the copy and overlap facts still answer from their own cases";
  // What measures every figure the answer cited, each case once, in the order cited.
  EXPECT_EQ(a.measure, "transfer/copy transfer/overlap transfer/engines");
  q = {};
  q.gpus = 2;
  const auto peer = advise::advise_host(q, &doc, builtin_registry());
  EXPECT_TRUE(has(peer, "its `peer/copy` points were skipped")) << (peer.evidence.empty() ? "" : peer.evidence.front());
}
