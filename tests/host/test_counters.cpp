// CUPTI loaded at run time and its host metric API (harness/cupti_library, harness/counters):
// no GPU is needed to check metric names against a chip. Skips where CUPTI is not installed.
#include "harness/axis.hpp"
#include "harness/counters.hpp"
#include "harness/cupti_library.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include <unistd.h>

namespace {

namespace fs = std::filesystem;
using memscope::usage_error;
namespace counters = memscope::counters;
namespace cupti = memscope::cupti;

#define SKIP_WITHOUT_CUPTI(lib) \
  if (!(lib).ok()) GTEST_SKIP() << "CUPTI is not usable here: " << (lib).why()

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(CuptiLibrary, NamesTheMissingLibraryAndHowToPointAtIt) {
  const cupti::library lib("/nonexistent/memscope-cupti");
  ASSERT_FALSE(lib.ok());
  EXPECT_TRUE(contains(lib.why(), "libcupti.so.13")) << lib.why();
  EXPECT_TRUE(contains(lib.why(), "/nonexistent/memscope-cupti")) << lib.why();
  EXPECT_TRUE(contains(lib.why(), "--cupti DIR")) << lib.why();
  EXPECT_TRUE(contains(lib.why(), "MEMSCOPE_CUPTI_DIR")) << lib.why();
}

TEST(CuptiLibrary, NamesTheMetricLibraryMissingBesideCupti) {
  const cupti::library found;
  SKIP_WITHOUT_CUPTI(found);
  const fs::path dir = fs::temp_directory_path() / ("memscope-cupti-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  fs::create_symlink(found.path(), dir / "libcupti.so.13");
  const cupti::library lib(dir.string());
  fs::remove_all(dir);
  ASSERT_FALSE(lib.ok());
  EXPECT_TRUE(contains(lib.why(), "libnvperf_host.so")) << lib.why();
  EXPECT_TRUE(contains(lib.why(), dir.string())) << lib.why();
}

TEST(CuptiLibrary, ReportsItsVersionAndResultNames) {
  const cupti::library lib;
  SKIP_WITHOUT_CUPTI(lib);
  EXPECT_EQ(lib.version() / 10000, 13u);
  EXPECT_EQ(lib.result_name(0), "CUPTI_SUCCESS");
  EXPECT_FALSE(lib.path().empty());
}

TEST(Counters, DefaultSetIsKnownOnHopperAndBlackwell) {
  const cupti::library lib;
  SKIP_WITHOUT_CUPTI(lib);
  for (const char* chip : {"GH100", "GB100"}) {
    const counters::chip_metrics m(lib, chip);
    for (const auto& c : counters::default_set()) {
      const std::string level = c.level;
      if (level == "host link" || level == "NVLink") continue;  // differ by chip: left out where absent
      const auto p = m.find(c.metric);
      ASSERT_TRUE(p.has_value()) << c.metric << " on " << chip;
      EXPECT_FALSE(p->description.empty()) << c.metric;
    }
  }
}

TEST(Counters, PlanKeepsLinkCountersInAConfigurationOfTheirOwn) {
  const cupti::library lib;
  SKIP_WITHOUT_CUPTI(lib);
  const counters::chip_metrics m(lib, "GH100");
  std::vector<std::string> names;
  for (const auto& c : counters::default_set())
    if (m.find(c.metric)) names.emplace_back(c.metric);
  const auto groups = m.plan(names);
  ASSERT_GE(groups.size(), 2u);
  std::size_t placed = 0;
  for (const auto& g : groups) {
    EXPECT_GE(g.passes, 1u);
    placed += g.metrics.size();
    // Every configuration is one CUPTI accepts, with the passes it says.
    EXPECT_EQ(m.passes(g.metrics), g.passes);
  }
  EXPECT_EQ(placed, names.size());
  const auto& first = groups.front().metrics;
  EXPECT_NE(std::find(first.begin(), first.end(), "dram__bytes_read.sum"), first.end());
  EXPECT_EQ(std::find(first.begin(), first.end(), "nvlrx__bytes.sum"), first.end());
  EXPECT_EQ(m.passes({}), 0u);
}

TEST(Counters, AnUnknownMetricNamesTheChipAndTheNearestNames) {
  const cupti::library lib;
  SKIP_WITHOUT_CUPTI(lib);
  const counters::chip_metrics m(lib, "GH100");
  EXPECT_FALSE(m.find("dram__bytes_rd.sum").has_value());
  try {
    (void)m.passes({"dram__bytes_read.sum", "dram__bytes_rd.sum"});
    FAIL() << "an unknown metric was accepted";
  } catch (const usage_error& e) {
    const std::string why = e.what();
    EXPECT_TRUE(contains(why, "'dram__bytes_rd.sum'")) << why;
    EXPECT_TRUE(contains(why, "GH100")) << why;
    EXPECT_TRUE(contains(why, "dram__bytes_read")) << why;
  }
  const std::string none = counters::unknown_metric_message(m, "qqq__nothing.sum");
  EXPECT_TRUE(contains(none, "--list")) << none;
}

TEST(Counters, AnUnknownChipListsTheKnownOnes) {
  const cupti::library lib;
  SKIP_WITHOUT_CUPTI(lib);
  const auto chips = counters::supported_chips(lib);
  EXPECT_NE(std::find(chips.begin(), chips.end(), "GH100"), chips.end());
  try {
    const counters::chip_metrics m(lib, "XX100");
    FAIL() << "an unknown chip was accepted";
  } catch (const usage_error& e) {
    EXPECT_TRUE(contains(e.what(), "XX100")) << e.what();
    EXPECT_TRUE(contains(e.what(), "GH100")) << e.what();
  }
}

TEST(Counters, BaseMetricsAreSortedUniqueAndFilteredByPrefix) {
  const cupti::library lib;
  SKIP_WITHOUT_CUPTI(lib);
  const counters::chip_metrics m(lib, "GH100");
  const auto dram = m.base_metrics("dram__bytes");
  ASSERT_FALSE(dram.empty());
  EXPECT_TRUE(std::is_sorted(dram.begin(), dram.end()));
  EXPECT_EQ(std::adjacent_find(dram.begin(), dram.end()), dram.end());
  for (const auto& d : dram) EXPECT_EQ(d.rfind("dram__bytes", 0), 0u) << d;
  EXPECT_GT(m.base_metrics("").size(), dram.size());
}

}  // namespace
