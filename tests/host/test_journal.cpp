// The journal, progress lines and the stopping rule: what keeps a run's rows and says how it went.
#include "harness/journal.hpp"
#include "harness/progress.hpp"
#include "harness/text_output.hpp"
#include "harness/timing_policy.hpp"
#include "host/test_rows.hpp"
#include "harness/registry.hpp"
#include "report/html_report.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

using namespace memscope;

namespace {

std::string temp_path(const std::string& name) { return ::testing::TempDir() + "memscope-journal-" + name; }

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void spit(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

journal_args some_args() {
  journal_args a;
  a.patterns = {"bandwidth"};
  a.axes = {"bytes=2^20"};
  a.json_path = "out.json";
  a.timing.min_samples = 17;
  return a;
}

results_doc header_doc(double copy_gbps) {
  results_doc d;
  d.tool_version = "t";
  d.commit = "c";
  d.created_utc = "2026-11-30T00:00:00Z";
  d.command = "memscope run bandwidth";
  d.mode = "run";
  d.device.name = "Test GPU";
  d.device.sm_count = 4;
  d.copy_ceiling_gbps = copy_gbps;
  d.copy_ceiling_bytes = 1 << 20;
  return d;
}

case_result sampled(const std::string& name, double t) {
  auto r = memscope::testing::timed_row("s", name, {{"n", std::int64_t{1}}}, t);
  r.times = {t, t, t};
  r.stats = summarize(r.times);
  r.converged = true;
  r.stop = stop_converged;
  r.clock_mhz = r.clock_min_mhz = 1980;
  r.has_telemetry = true;
  r.power_w = 400;
  r.temperature_c = 50;
  r.clock_limits = {"sw_power_cap"};
  return r;
}

}  // namespace

TEST(Journal, KeepsEveryRowAndEveryProcess) {
  const auto path = temp_path("roundtrip");
  const results_doc h = header_doc(4000);
  {
    journal_writer w(path, some_args(), h.device, "memscope run bandwidth --json out.json");
    w.segment(h);
    w.row(sampled("a", 1e-3));
    w.row(sampled("b", 2e-3));
  }
  {
    journal_writer w(path);  // a resumed process
    auto h2 = h;
    h2.copy_ceiling_gbps = 4100;
    w.segment(h2);
    w.row(sampled("c", 3e-3));
  }
  const auto j = read_journal(path);
  EXPECT_EQ(j.args.patterns, some_args().patterns);
  EXPECT_EQ(j.args.axes, some_args().axes);
  EXPECT_EQ(j.args.timing.min_samples, 17);
  EXPECT_EQ(j.device.name, "Test GPU");
  ASSERT_EQ(j.segments.size(), 2u);
  EXPECT_EQ(j.rows(), 3u);
  EXPECT_EQ(j.segments[1].copy_gbps, 4100);
  EXPECT_EQ(j.segments[0].rows[1].times, sampled("b", 2e-3).times);
  EXPECT_EQ(j.segments[0].rows[0].clock_limits, std::vector<std::string>{"sw_power_cap"});
  // As a document: two sources, rows tagged with the process that measured them.
  const auto doc = journal_document(j, h);
  ASSERT_EQ(doc.sources.size(), 2u);
  ASSERT_EQ(doc.results.size(), 3u);
  EXPECT_EQ(doc.results[2].source, 1u);
  EXPECT_EQ(doc.sources[1].copy_ceiling_gbps, 4100);
  std::remove(path.c_str());
}

// A run resumed on another board of the same model: each process's rows are credited to the
// board that measured them, not to the board that finished the run. Journals from before the
// segments named their board credit the first process with the header's.
TEST(Journal, EachProcessKeepsItsOwnBoard) {
  const auto path = temp_path("boards");
  results_doc h = header_doc(4000);
  h.device.uuid = "GPU-first";
  h.host = "node-a";
  {
    journal_writer w(path, some_args(), h.device, "memscope run bandwidth --json out.json");
    w.segment(h);
    w.row(sampled("a", 1e-3));
  }
  results_doc h2 = h;
  h2.device.uuid = "GPU-second";
  h2.host = "node-b";
  {
    journal_writer w(path);
    w.segment(h2);
    w.row(sampled("b", 2e-3));
  }
  const auto j = read_journal(path);
  ASSERT_EQ(j.segments.size(), 2u);
  ASSERT_TRUE(j.segments[0].device && j.segments[1].device);
  EXPECT_EQ(j.segments[1].device->uuid, "GPU-second");
  const auto doc = journal_document(j, h2);  // as the resuming process builds it
  ASSERT_EQ(doc.sources.size(), 2u);
  EXPECT_EQ(doc.sources[0].device.uuid, "GPU-first");
  EXPECT_EQ(doc.sources[0].host, "node-a");
  EXPECT_EQ(doc.sources[1].device.uuid, "GPU-second");
  EXPECT_EQ(doc.sources[1].host, "node-b");
  ASSERT_EQ(doc.results.size(), 2u);
  EXPECT_EQ(doc.sources[doc.results[0].source].device.uuid, "GPU-first");

  // The same journal without the segments' boards (as written before they were recorded).
  std::string text = slurp(path), old;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("{\"segment\"", 0) == 0) {
      auto seg = nlohmann::json::parse(line);
      seg["segment"].erase("device");
      seg["segment"].erase("host");
      line = seg.dump();
    }
    old += line + "\n";
  }
  spit(path, old);
  const auto j_old = read_journal(path);
  EXPECT_FALSE(j_old.segments[0].device.has_value());
  const auto doc_old = journal_document(j_old, h2);
  EXPECT_EQ(doc_old.sources[0].device.uuid, "GPU-first");  // the journal's header

  // A process on another model is a foreign journal.
  results_doc other = h2;
  other.device.name = "Other GPU";
  spit(path, text);
  {
    journal_writer w(path);
    w.segment(other);
  }
  EXPECT_THROW(read_journal(path), journal_error);
  std::remove(path.c_str());
}

TEST(Journal, TruncatedForeignOrEditedJournalsAreClearErrors) {
  const auto path = temp_path("bad");
  const results_doc h = header_doc(4000);
  {
    journal_writer w(path, some_args(), h.device, "memscope run");
    w.segment(h);
    w.row(sampled("a", 1e-3));
  }
  const std::string good = slurp(path);
  const auto expect_error = [&](const std::string& text, const std::string& needle) {
    spit(path, text);
    try {
      read_journal(path);
      ADD_FAILURE() << "accepted: " << needle;
    } catch (const journal_error& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  expect_error(good.substr(0, good.size() - 20), "cut off");  // the last line half-written
  expect_error("", "empty");
  expect_error("{\"format\":\"memscope-results\"}\n", "not a memscope journal");
  expect_error("not json\n", "not valid JSON");
  expect_error(good + good.substr(good.find("{\"row\"")), "repeats");  // a row twice
  expect_error(good.substr(0, good.find('\n') + 1) + good.substr(good.find("{\"row\"")), "before any segment");
  std::string edited = good;
  edited.replace(edited.find("\"min_samples\":17"), 16, "\"min_samples\":0 ");
  expect_error(edited, "min_samples");
  EXPECT_THROW(read_journal(temp_path("missing")), journal_error);
  std::remove(path.c_str());
}

namespace {
/// What a progress printer of `style` writes for `total` points while `drive` uses it.
template <class Drive>
std::string progress_text(progress_printer::style style, std::size_t total, Drive&& drive) {
  char* buf = nullptr;
  std::size_t len = 0;
  std::FILE* out = open_memstream(&buf, &len);
  if (!out) return "open_memstream failed";
  {
    progress_printer p(style, total, out);
    drive(p);
  }
  std::fclose(out);
  std::string text(buf, len);
  std::free(buf);
  return text;
}
}  // namespace

TEST(Progress, OneLinePerCaseWhenNotATerminal) {
  const std::string text = progress_text(progress_printer::style::lines, 3, [](progress_printer& p) {
    p.point("bandwidth/copy", "bytes=2^20");
    p.point_finished();
    p.point("bandwidth/copy", "bytes=2^21");
    p.point_finished();
    p.point("reduce/sum", "n=1");
    p.point_finished();
    p.done();
    p.done();  // idempotent
  });
  EXPECT_NE(text.find("bandwidth/copy: 2 points"), std::string::npos) << text;
  EXPECT_NE(text.find("2/3 points"), std::string::npos) << text;
  EXPECT_NE(text.find("reduce/sum: 1 point in"), std::string::npos) << text;
  EXPECT_NE(text.find("3/3 points"), std::string::npos) << text;
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 2);
  EXPECT_EQ(text.find('\r'), std::string::npos);
  EXPECT_EQ(progress_printer::clock(65), "1:05");
  EXPECT_EQ(progress_printer::clock(3 * 3600 + 3), "3:00:03");
}

TEST(Progress, APointCutShortIsNotCountedAsDone) {
  const std::string text = progress_text(progress_printer::style::lines, 4, [](progress_printer& p) {
    p.point("managed/stream", "chunks=16");
    p.point_finished();
    p.point("managed/stream", "chunks=64");  // stopped by a signal: no row
    p.done();
  });
  EXPECT_NE(text.find("managed/stream: 1 point in"), std::string::npos) << text;
  EXPECT_NE(text.find("1/4 points"), std::string::npos) << text;
  const std::string none = progress_text(progress_printer::style::lines, 2, [](progress_printer& p) {
    p.point("managed/stream", "chunks=16");
    p.done();
  });
  EXPECT_EQ(none, "") << "a case with no finished point has no line";
}

TEST(Progress, QuietPrintsNothing) {
  const std::string text = progress_text(progress_printer::style::quiet, 1, [](progress_printer& p) {
    p.point("a/b", "");
    p.done();
  });
  EXPECT_EQ(text, "");
}

TEST(TimingPolicy, NonsenseAndContradictionsAreNamed) {
  EXPECT_EQ(timing_policy::full().problem(), "");
  EXPECT_EQ(timing_policy::quick().problem(), "");
  const auto problem = [](auto edit) {
    auto p = timing_policy::full();
    edit(p);
    return p.problem();
  };
  EXPECT_NE(problem([](timing_policy& p) { p.min_samples = 0; }).find("--min-samples"), std::string::npos);
  EXPECT_NE(problem([](timing_policy& p) { p.max_samples = 5; }).find("below --min-samples"), std::string::npos);
  EXPECT_NE(problem([](timing_policy& p) { p.max_noise = 0; }).find("--max-noise"), std::string::npos);
  EXPECT_NE(problem([](timing_policy& p) { p.max_noise = std::nan(""); }).find("--max-noise"), std::string::npos);
  EXPECT_NE(problem([](timing_policy& p) { p.min_time_s = -1; }).find("--min-time"), std::string::npos);
  EXPECT_NE(problem([](timing_policy& p) { p.timeout_s = 0; }).find("--timeout"), std::string::npos);
  EXPECT_NE(problem([](timing_policy& p) { p.min_time_s = 2; }).find("exceeds --timeout"), std::string::npos);
  EXPECT_NE(problem([](timing_policy& p) { p.throttle_threshold = 1.5; }).find("--throttle-threshold"),
            std::string::npos);
}

TEST(TimingSummary, CountsUnconvergedAndThrottledPoints) {
  results_doc d = header_doc(4000);
  d.device.sm_clock_khz = 1980000;
  d.timing = timing_policy::full();
  auto a = sampled("a", 1e-3);
  auto b = sampled("b", 1e-3);
  b.converged = false;
  b.stop = stop_timeout;
  b.clock_min_mhz = 900;
  b.clock_throttled = true;
  d.results = {a, b};
  const auto s = timing_summary(d);
  EXPECT_NE(s.find("1 of 2 timed points met the stopping rule"), std::string::npos) << s;
  EXPECT_NE(s.find("1 timeout"), std::string::npos) << s;
  EXPECT_NE(s.find("900-1980 MHz"), std::string::npos) << s;
  EXPECT_NE(s.find("1 point ran below 75%"), std::string::npos) << s;
  EXPECT_NE(s.find("sw_power_cap"), std::string::npos) << s;
  std::ostringstream table;
  print_table(d, table);
  EXPECT_NE(table.str().find("%~"), std::string::npos) << table.str();
  EXPECT_NE(table.str().find("throttled"), std::string::npos) << table.str();
  const auto html = report::render_html(d, builtin_registry());
  EXPECT_NE(html.find("1 of 2 timed points met the stopping rule"), std::string::npos);
  EXPECT_NE(html.find("~ stopping rule not met (timeout)"), std::string::npos);
  EXPECT_NE(html.find("throttled: SM clock down to 900 MHz"), std::string::npos);
}

TEST(Journal, KeepsTheColdFlush) {
  for (const cold_mode m : {cold_mode::off, cold_mode::clean, cold_mode::dirty}) {
    const auto path = temp_path("cold");
    auto args = some_args();
    args.cold = m;
    {
      journal_writer w(path, args, header_doc(4000).device, "memscope run bandwidth");
      w.segment(header_doc(4000));
    }
    EXPECT_EQ(read_journal(path).args.cold, m);
    std::remove(path.c_str());
  }
}

TEST(TimingSummary, SaysWhatL2HeldAtEverySamplesStart) {
  results_doc d = header_doc(4000);
  d.results = {sampled("a", 1e-3)};
  EXPECT_EQ(timing_summary(d).find("L2 at every sample's start"), std::string::npos);  // warm: nothing to say
  d.cold = cold_mode::clean;
  EXPECT_NE(timing_summary(d).find("no line dirty (--cold)"), std::string::npos) << timing_summary(d);
  d.cold = cold_mode::dirty;
  EXPECT_NE(timing_summary(d).find("dirty lines, whose write-back each sample pays (--cold=dirty)"), std::string::npos);
  EXPECT_NE(report::render_html(d, builtin_registry()).find("--cold=dirty"), std::string::npos);
}

TEST(TextOutput, ASpanWhoseEndsPrintAlikeIsOneFigure) {
  EXPECT_EQ(figure_span(104.4, 110.6), "104-111");
  EXPECT_EQ(figure_span(106.6, 107.4), "107");
  EXPECT_EQ(figure_span(106.6, 107.4, 1), "106.6-107.4");
  EXPECT_EQ(figure_span(111.0, 104.0), "111-104");  // the order given: a curve may fall
}

// Points that all ran at one clock, power and temperature print each as one figure.
TEST(TimingSummary, SteadyReadingsPrintOnce) {
  results_doc d = header_doc(4000);
  d.device.sm_clock_khz = 1980000;
  d.timing = timing_policy::full();
  d.results = {sampled("a", 1e-3), sampled("b", 1e-3)};
  const auto s = timing_summary(d);
  EXPECT_NE(s.find("SM clock while timing: 1980 MHz (peak 1980 MHz)"), std::string::npos) << s;
  EXPECT_NE(s.find("NVML: power 400 W, temperature 50 C"), std::string::npos) << s;
}
