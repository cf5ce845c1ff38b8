#include "harness/results.hpp"
#include "harness/text_output.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <sstream>

using namespace memscope;

namespace {
results_doc sample_doc() {
  results_doc d;
  d.tool_version = "0.1.0";
  d.commit = "abc123";
  d.created_utc = "2026-11-29T20:00:00Z";
  d.command = "memscope run bandwidth";
  d.mode = "run";
  d.quick = true;
  d.device.name = "NVIDIA H200";
  d.device.cc_major = 9;
  d.device.sm_count = 132;
  d.device.l2_bytes = 60 << 20;
  d.device.total_global_mem = 150ull << 30;
  d.device.cluster_launch = true;
  d.device.theoretical_dram_gbps = 4915.2;
  d.copy_ceiling_gbps = 4300.5;
  d.copy_ceiling_bytes = 1u << 30;
  case_result r;
  r.suite = "bandwidth";
  r.name = "copy";
  r.variant = "f32x4";
  r.axes = {{"type", std::string("f32x4")}, {"bytes", std::int64_t{1} << 30}};
  r.axes_label = "type=f32x4 bytes=2^30";
  r.status = case_status::ok;
  r.verification = verification_status::passed;
  r.timed = true;
  r.stats = {100, 5e-4, 4.9e-4, 6e-4, 5.1e-4, 1e-5, 0.02};
  r.bytes_read = r.bytes_written = 1u << 30;
  r.elements = 1u << 26;
  r.gbps = 4200;
  r.fraction_of_copy = 0.98;
  r.metrics["ratio_to_cub"] = 1.25;
  d.results.push_back(r);
  case_result s = r;
  s.name = "skipped_case";
  s.timed = false;
  s.status = case_status::skipped;
  s.verification = verification_status::not_run;
  s.message = "no clusters";
  d.results.push_back(s);
  return d;
}
}  // namespace

TEST(ResultsJson, RoundTripKeepsEveryField) {
  const results_doc a = sample_doc();
  const results_doc b = results_from_json(nlohmann::json::parse(to_json(a).dump()));
  EXPECT_EQ(to_json(a), to_json(b));
  ASSERT_EQ(b.results.size(), 2u);
  EXPECT_EQ(b.results[0].axes[0].first, "type");  // axis order survives
  EXPECT_EQ(std::get<std::int64_t>(b.results[0].axes[1].second), std::int64_t{1} << 30);
  EXPECT_DOUBLE_EQ(b.results[0].metrics.at("ratio_to_cub"), 1.25);
  EXPECT_FALSE(b.results[1].timed);
  EXPECT_EQ(b.results[1].status, case_status::skipped);
  EXPECT_EQ(b.device.name, "NVIDIA H200");
  EXPECT_TRUE(b.device.cluster_launch);
}

TEST(ResultsJson, ReplicatesAreTwoOrMoreMedians) {
  results_doc d = sample_doc();
  d.results[0].replicates = {5e-4, 5.2e-4, 4.9e-4};
  nlohmann::json j = to_json(d);
  EXPECT_EQ(results_from_json(j).results[0].replicates, d.results[0].replicates);
  EXPECT_FALSE(to_json(sample_doc())["results"][0]["samples"].contains("replicates_s"));  // one run: none
  j["results"][0]["samples"]["replicates_s"] = {5e-4};
  EXPECT_THROW(results_from_json(j), results_error);
  j["results"][0]["samples"]["replicates_s"] = {5e-4, -1.0};
  EXPECT_THROW(results_from_json(j), results_error);
  j["results"][0]["samples"]["replicates_s"] = "many";
  EXPECT_THROW(results_from_json(j), results_error);
}

TEST(ResultsJson, StableFieldNames) {
  const auto j = to_json(sample_doc());
  EXPECT_EQ(j.at("format"), "memscope-results");
  EXPECT_EQ(j.at("format_version"), results_format_version);
  const auto& r = j.at("results").at(0);
  for (const char* k : {"suite", "case", "variant", "axes", "status", "verification", "samples", "derived", "metrics",
                        "bytes_read", "bytes_written", "elements"})
    EXPECT_TRUE(r.contains(k)) << k;
  for (const char* k : {"count", "median_s", "min_s", "max_s", "noise"}) EXPECT_TRUE(r.at("samples").contains(k)) << k;
  for (const char* k : {"gbps", "fraction_of_copy", "elements_per_s"}) EXPECT_TRUE(r.at("derived").contains(k)) << k;
}

TEST(ResultsJson, RejectsOtherFormatsAndVersions) {
  auto j = to_json(sample_doc());
  j["format_version"] = 99;
  EXPECT_THROW(results_from_json(j), results_error);
  EXPECT_THROW(results_from_json(nlohmann::json{{"format", "nvbench"}}), results_error);
  auto k = to_json(sample_doc());
  k.erase("device");
  EXPECT_THROW(results_from_json(k), results_error);
  auto m = to_json(sample_doc());
  m["results"][0]["status"] = "maybe";
  EXPECT_THROW(results_from_json(m), results_error);
}

// A cold run says how its flush left L2; a warm run's file has no cold_flush, and older files
// (before format 6) read as the clean flush they had.
TEST(ResultsJson, TheColdFlushIsKeptAndCheckedByVersion) {
  for (const cold_mode m : {cold_mode::off, cold_mode::clean, cold_mode::dirty}) {
    auto d = sample_doc();
    d.cold = d.results[0].cold = m;
    const auto j = to_json(d);
    EXPECT_EQ(j.at("options").at("cold"), m != cold_mode::off);
    EXPECT_EQ(j.at("options").contains("cold_flush"), m != cold_mode::off);
    const auto back = results_from_json(nlohmann::json::parse(j.dump()));
    EXPECT_EQ(back.cold, m);
    EXPECT_EQ(back.results[0].cold, m);
  }
  auto d = sample_doc();
  d.cold = d.results[0].cold = cold_mode::dirty;
  auto older = to_json(d);
  older["format_version"] = 5;
  EXPECT_THROW(results_from_json(older), results_error);  // cold_flush is version 6's
  older["options"].erase("cold_flush");
  older["results"][0]["samples"].erase("cold_flush");
  EXPECT_EQ(results_from_json(older).cold, cold_mode::clean);
  auto warm_but_dirty = to_json(d);
  warm_but_dirty["options"]["cold"] = false;
  try {
    results_from_json(warm_but_dirty);
    ADD_FAILURE() << "a warm run with a cold_flush was read";
  } catch (const results_error& e) {
    EXPECT_NE(std::string(e.what()).find("$.options.cold_flush: appears only where cold is true"), std::string::npos)
        << e.what();
  }
  auto unknown = to_json(d);
  unknown["results"][0]["samples"]["cold_flush"] = "lukewarm";
  EXPECT_THROW(results_from_json(unknown), results_error);
  auto clean = sample_doc();
  clean.cold = cold_mode::clean;
  EXPECT_THROW(merge({d, clean}), results_error);  // one document holds one regime
  // A CSV row carries its regime; an untimed row has none.
  std::ostringstream csv;
  write_csv(d, csv);
  const auto lines = split_lines(csv.str());
  ASSERT_GE(lines.size(), 3u);  // the header, the timed row, the skipped one
  EXPECT_NE(lines[0].find(",throttled,l2_start,detail"), std::string::npos) << lines[0];
  EXPECT_NE(lines[1].find(",dirty,"), std::string::npos) << lines[1];
  EXPECT_EQ(lines[2].find("dirty"), std::string::npos) << lines[2];
  d.results[0].cold = cold_mode::off;
  std::ostringstream warm;
  write_csv(d, warm);
  EXPECT_NE(split_lines(warm.str())[1].find(",warm,"), std::string::npos);
}

TEST(ResultsJson, FileErrors) {
  EXPECT_THROW(load_results("/nonexistent/results.json"), results_error);
  const std::string path = ::testing::TempDir() + "truncated.json";
  const std::string text = to_json(sample_doc()).dump();
  std::ofstream(path) << text.substr(0, text.size() / 2);
  EXPECT_THROW(load_results(path), results_error);
  save_results(sample_doc(), path);
  EXPECT_EQ(load_results(path).results.size(), 2u);
  std::remove(path.c_str());
}

TEST(ResultsCeiling, RowsOverALinkAreJudgedAgainstTheLinkNotTheDeviceCopy) {
  results_doc d = sample_doc();
  case_result device_row = d.results[0];
  EXPECT_EQ(ceiling_cell(device_row), "0.980x copy");

  case_result pcie = device_row;
  pcie.suite = "transfer";
  pcie.gbps = 50.4;
  pcie.fraction_of_copy = 50.4 / 4300.5;
  pcie.labels[link_label] = "PCIe Gen5 x16";
  pcie.metrics[link_gbps_metric] = 63.0;
  const auto c = ceiling_of(pcie);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->name, "link");
  EXPECT_DOUBLE_EQ(c->fraction, 0.8);
  EXPECT_EQ(ceiling_cell(pcie), "0.800x link");

  // A link whose bandwidth is unknown (or a hostile file's) gives no ceiling rather than the copy's.
  case_result unknown = pcie;
  unknown.metrics.erase(link_gbps_metric);
  EXPECT_FALSE(ceiling_of(unknown));
  for (double bad : {0.0, -1.0, std::numeric_limits<double>::infinity(), std::nan("")}) {
    unknown.metrics[link_gbps_metric] = bad;
    EXPECT_EQ(ceiling_cell(unknown), "-") << bad;
  }
  case_result small = pcie;
  small.gbps = 0.0315;  // 4 bytes in 127 ns
  EXPECT_EQ(ceiling_cell(small), "0.0005x link");
  small.gbps = 0.0000315;
  EXPECT_EQ(ceiling_cell(small), "5e-07x link");
  case_result latency = pcie;
  latency.bytes_read = latency.bytes_written = 0;
  EXPECT_FALSE(ceiling_of(latency));
  EXPECT_FALSE(ceiling_of(d.results[1]));  // skipped, untimed

  // Untimed rows that name a link (memscope verify) show no figure, so no legend either.
  results_doc verified = d;
  verified.results = {unknown, latency};
  std::ostringstream verified_table;
  print_table(verified, verified_table);
  EXPECT_EQ(verified_table.str().find("'link' rows"), std::string::npos);

  d.results = {device_row, pcie, unknown};
  std::ostringstream table, csv;
  print_table(d, table);
  EXPECT_NE(table.str().find("of ceiling"), std::string::npos);
  EXPECT_NE(table.str().find("0.980x copy"), std::string::npos);
  EXPECT_NE(table.str().find("0.800x link"), std::string::npos);
  EXPECT_NE(table.str().find("'link' rows against the theoretical bandwidth"), std::string::npos);
  write_csv(d, csv);
  const auto lines = split_lines(csv.str());
  ASSERT_GE(lines.size(), 4u);
  EXPECT_NE(lines[0].find(",fraction_of_copy,ceiling,fraction_of_ceiling,"), std::string::npos);
  EXPECT_NE(lines[1].find(",copy,0.98,"), std::string::npos);
  EXPECT_NE(lines[2].find(",link,0.8,"), std::string::npos);
  EXPECT_NE(lines[3].find(",,,"), std::string::npos);
}
