// The command line as a user meets it: bad input gets one clear line and a non-zero exit.
#include "cli/cli.hpp"
#include "core/device_query.hpp"
#include "harness/gzip.hpp"
#include "harness/results.hpp"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <sys/wait.h>

#include <csignal>

#include <array>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <unistd.h>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

struct outcome {
  int code;
  std::string out;  // stdout and stderr together
};

// MEMSCOPE_EXE in the environment overrides the build-tree path (binaries copied to a GPU host).
std::string exe() {
  const char* env = std::getenv("MEMSCOPE_EXE");
  return env && *env ? env : MEMSCOPE_EXE;
}

outcome run(const std::string& args, const std::string& env = {}) {
  const std::string cmd = env + exe() + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return {-1, "popen failed"};
  std::string out;
  std::array<char, 4096> buf{};
  while (std::fgets(buf.data(), buf.size(), p)) out += buf.data();
  const int status = pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

bool has_gpu() {
  try {
    memscope::require_devices();
    return true;
  } catch (const memscope::no_device_error&) {
    return false;
  }
}

int lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

void expect_one_line_error(const std::string& args, int code, const std::string& needle) {
  const auto r = run(args);
  EXPECT_EQ(r.code, code) << args << "\n" << r.out;
  EXPECT_EQ(lines(r.out), 1) << args << "\n" << r.out;
  EXPECT_NE(r.out.find("memscope: error:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(needle), std::string::npos) << args << "\n" << r.out;
}

}  // namespace

TEST(Cli, HelpAndVersionWorkWithoutGpu) {
  const auto h = run("--help");
  EXPECT_EQ(h.code, 0);
  EXPECT_NE(h.out.find("run"), std::string::npos);
  const auto v = run("--version");
  EXPECT_EQ(v.code, 0);
  EXPECT_NE(v.out.find("commit"), std::string::npos) << v.out;
}

TEST(Cli, ListWorksWithoutGpu) {
  const auto r = run("list");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("bandwidth/triad"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--axis bytes="), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("built for CUDA architectures "), std::string::npos) << r.out;
}

// What `memscope advise` cites, and the cases that measure each fact: only those the patterns select.
TEST(Cli, ListFactsNamesTheCasesThatMeasureThem) {
  const auto all = run("list --facts");
  EXPECT_EQ(all.code, 0) << all.out;
  EXPECT_NE(all.out.find("transfer/engines"), std::string::npos) << all.out;
  EXPECT_NE(all.out.find("streaming_read"), std::string::npos) << all.out;
  const auto one = run("list --facts transfer/engines");
  EXPECT_EQ(one.code, 0) << one.out;
  EXPECT_NE(one.out.find("mixed_engines"), std::string::npos) << one.out;
  EXPECT_EQ(one.out.find("streaming_read"), std::string::npos) << one.out;
  EXPECT_EQ(one.out.find("host_transfer"), std::string::npos) << one.out;
}

TEST(Cli, BadInputIsOneLineAndUsageExit) {
  using memscope::exit_usage;
  expect_one_line_error("run nosuch", exit_usage, "no suite or case matches 'nosuch'");
  expect_one_line_error("list nosuch/*", exit_usage, "no suite or case matches");
  expect_one_line_error("run bandwidth --axis bytes=abc", exit_usage, "not a valid integer");
  expect_one_line_error("run bandwidth --axis bytes=0", exit_usage, "out of range");
  expect_one_line_error("run bandwidth --axis nosuch=1", exit_usage, "no selected case has an axis");
  expect_one_line_error("run bandwidth --axis type=f64", exit_usage, "has no value 'f64'");
  expect_one_line_error("run bandwidth --axis bytes", exit_usage, "malformed");
  expect_one_line_error("run bandwidth --device -1", exit_usage, "device");
  expect_one_line_error("run bandwidth --device 0,0", exit_usage, "names GPU 0 twice");
  expect_one_line_error("verify bandwidth --device 1,x", exit_usage, "GPU ordinals separated by commas");
  expect_one_line_error("run transfer --axis memory=huge", exit_usage, "has no value 'huge'");
  expect_one_line_error("run peer --axis peer_offset=0", exit_usage, "out of range");
  expect_one_line_error("run coalescing/stride --axis elem_bytes=5", exit_usage, "takes only 4, 8, 16");
  expect_one_line_error("run bank_conflicts --axis word_bytes=12", exit_usage, "takes only 4, 8, 16");
  expect_one_line_error("run readonly --axis table_bytes=2^34", exit_usage, "out of range");
  expect_one_line_error("run histogram --axis bins=0", exit_usage, "out of range");
  expect_one_line_error("run histogram --axis strategy=cluster3", exit_usage, "C = 1, 2, 4, 8, 16");
  expect_one_line_error("run histogram --axis distribution=zipf", exit_usage, "zipf_0.5, zipf_1, zipf_1.5, zipf_2");
  expect_one_line_error("run histogram --axis strategy=private3", exit_usage, "power of two");
  expect_one_line_error("run histogram --axis strategy=block_smem_agg", exit_usage, "_agg and _win apply to");
  expect_one_line_error("run histogram --axis samples=2^33", exit_usage, "out of range");
  expect_one_line_error("run dsmem --axis target=dsmem_c3", exit_usage, "dsmem_c2/4/8/16");
  expect_one_line_error("run dsmem/bandwidth --axis target=l2", exit_usage, "belongs to dsmem/latency");
  expect_one_line_error("run latency/global --axis ws_bytes=2^35", exit_usage, "out of range");
  expect_one_line_error("run latency --axis path=l3", exit_usage, "has no value 'l3'");
  expect_one_line_error("run cache_config --axis setting=prefer_l3", exit_usage, "carveout_N");
  expect_one_line_error("run cache_config --axis setting=carveout_101", exit_usage, "carveout_N");
  expect_one_line_error("run texture/fetch --axis shape=10", exit_usage, "ROWSxCOLS");
  expect_one_line_error("run cache_control/hints --axis hint=load_xx", exit_usage, "has no value 'load_xx'");
  expect_one_line_error("frobnicate", exit_usage, "frobnicate");
  expect_one_line_error("", exit_usage, "subcommand");
}

TEST(Cli, NoGpuIsAClearError) {
  if (has_gpu()) GTEST_SKIP() << "this machine has a GPU; the no-GPU path cannot be exercised";
  expect_one_line_error("run bandwidth", memscope::exit_no_device, "no usable CUDA GPU");
  expect_one_line_error("info", memscope::exit_no_device, "no usable CUDA GPU");
  expect_one_line_error("verify", memscope::exit_no_device, "no usable CUDA GPU");
  expect_one_line_error("map", memscope::exit_no_device, "no usable CUDA GPU");
}

// The map of rows already measured: the bundled profile, or a results file, with no GPU.
TEST(Cli, MapFromResultsNeedsNoGpu) {
  const std::string levels = ::testing::TempDir() + "levels.json";
  const auto r = run("map --from bundled --levels " + levels);
  EXPECT_EQ(r.code, 0) << r.out;
  for (const char* level : {"shared memory", "L1 cache", "constant cache", "L2 cache", "device memory"})
    EXPECT_NE(r.out.find(level), std::string::npos) << level << "\n" << r.out;
  EXPECT_NE(r.out.find("not measured:"), std::string::npos) << r.out;
  std::ifstream in(levels);
  const std::string json((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(json.find("\"level\": \"l2\""), std::string::npos) << json;
  EXPECT_NE(json.find("latency/global path=default"), std::string::npos) << json;

  const std::string html = ::testing::TempDir() + "map.html";
  ASSERT_EQ(run("map --from bundled --report " + html).code, 0);
  std::ifstream page(html);
  const std::string text((std::istreambuf_iterator<char>(page)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"hierarchy\""), std::string::npos);
  EXPECT_LT(text.find("class=\"hierarchy\""), text.find("class=\"chart\"")) << "the hierarchy comes first";

  expect_one_line_error("map --from /nonexistent/results.json", memscope::exit_usage, "results.json");
  expect_one_line_error("map --from bundled --json x.json", memscope::exit_usage, "--from draws rows");
  expect_one_line_error("run --axis bytes=1K", memscope::exit_usage, "the map measures the points it chose");
}

TEST(Cli, GpuBadInput) {
  if (!has_gpu()) GTEST_SKIP() << "needs a CUDA GPU: device ordinals and memory limits are the device's";
  expect_one_line_error("info --device 999", memscope::exit_no_device, "out of range");
  expect_one_line_error("run bandwidth --device 999", memscope::exit_usage, "this system has");
  expect_one_line_error("run bandwidth/copy --axis bytes=2^40", memscope::exit_usage, "needs");
  expect_one_line_error("run cache_bandwidth --axis ws_bytes=2^40", memscope::exit_usage, "needs");
}

TEST(Cli, GpuTextureBeyondTheDeviceLimitsSkipsWithTheReason) {
  if (!has_gpu()) GTEST_SKIP() << "needs a CUDA GPU: the limits are the device's";
  const auto r =
      run("verify texture/fetch --axis source=array2d --axis filter=point --axis address=clamp "
          "--axis read=element --axis shape=2x4000000");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("exceeds this GPU's limit"), std::string::npos) << r.out;
}

// The main job: every level a single GPU has, measured, and nothing failed.
TEST(Cli, GpuMapMeasuresEveryLevelOfOneGpu) {
  if (!has_gpu()) GTEST_SKIP() << "needs a CUDA GPU";
  const std::string levels = ::testing::TempDir() + "gpu-levels.json";
  const auto r = run("run --quiet --levels " + levels);  // no suite named: the map
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("the map took"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" passed, 0 failed"), std::string::npos) << r.out;
  std::ifstream in(levels);
  const std::string json((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (const char* level : {"\"l1\"", "\"l2\"", "\"dram\"", "\"shared\"", "\"host\""})
    EXPECT_NE(json.find(level), std::string::npos) << level;
  EXPECT_EQ(json.find("\"latency_cycles\": null,\n      \"latency_ns\": null,\n      \"level\": \"l2\""),
            std::string::npos);
}

TEST(Cli, GpuVerifyEndsWithSummary) {
  if (!has_gpu()) GTEST_SKIP() << "needs a CUDA GPU";
  const auto r = run("verify '*'");  // every suite, on its awkward sizes
  EXPECT_EQ(r.code, 0) << r.out;
  const auto last = r.out.substr(r.out.rfind('\n', r.out.size() - 2) + 1);
  EXPECT_NE(last.find(" passed, 0 failed"), std::string::npos) << r.out;
}

namespace {
std::string temp_results(const std::string& name, double median, const std::string& suite = "bandwidth") {
  memscope::results_doc d;
  d.tool_version = "0.1.0";
  d.commit = "test";
  d.mode = "run";
  d.command = "memscope run";
  d.device.name = "Test GPU";
  memscope::case_result r;
  r.suite = suite;
  r.name = "copy";
  r.axes = {{"bytes", std::int64_t{1} << 30}};
  r.axes_label = "bytes=2^30";
  r.status = memscope::case_status::ok;
  r.verification = memscope::verification_status::passed;
  r.timed = true;
  r.stats.count = 10;
  r.stats.median = r.stats.min = r.stats.max = r.stats.mean = median;
  r.stats.noise = 0.001;
  d.results.push_back(r);
  const std::string path = ::testing::TempDir() + name;
  memscope::save_results(d, path);
  return path;
}
}  // namespace

TEST(Cli, ReportCompareAdviseBadInput) {
  using memscope::exit_usage;
  const std::string truncated = ::testing::TempDir() + "truncated.json";
  std::FILE* f = std::fopen(truncated.c_str(), "w");
  std::fputs("{\"format\": \"memscope-results\", \"format_vers", f);
  std::fclose(f);
  const std::string other = ::testing::TempDir() + "other.json";
  f = std::fopen(other.c_str(), "w");
  std::fputs("{\"benchmarks\": []}", f);
  std::fclose(f);
  expect_one_line_error("report", exit_usage, "say where to write it");
  expect_one_line_error("report /nonexistent.json -o /tmp/x.html", exit_usage, "cannot open");
  expect_one_line_error("report " + truncated + " -o /tmp/x.html", exit_usage, "not valid JSON");
  expect_one_line_error("report " + other + " -o /tmp/x.html", exit_usage, "not a memscope results file");
  expect_one_line_error("compare /nonexistent.json " + truncated, exit_usage, "cannot open");
  const std::string cut_gz = ::testing::TempDir() + "cut.json.gz";
  f = std::fopen(cut_gz.c_str(), "wb");
  std::fputs("\x1f\x8b\x08\x00", f);  // a gzip header, and nothing after it
  std::fclose(f);
  expect_one_line_error("compare " + cut_gz + " " + truncated, exit_usage,
                        "gzip-compressed but cannot be read: truncated");
  expect_one_line_error("compare " + temp_results("a.json", 1e-3) + " " + temp_results("b.json", 1e-3, "reduce"),
                        exit_usage, "no timed case in common");
  // An output that cannot be written is bad input before any work, in every command: its
  // directories are made as run makes them, and a parent that is a file is refused (exit 2).
  const std::string blocker = ::testing::TempDir() + "a-file";
  f = std::fopen(blocker.c_str(), "w");
  std::fclose(f);
  expect_one_line_error("report -o " + blocker + "/x.html", exit_usage, "cannot");
  expect_one_line_error(
      "merge " + temp_results("a.json", 1e-3) + " " + temp_results("b.json", 1e-3) + " -o " + blocker + "/m.json",
      exit_usage, "cannot");
  // Control characters in what a message quotes are replaced (terminal_safe, as in the tables),
  // never sent to the terminal raw.
  const auto ctl = run("report '/nonexistent/a\x01\x1b[2Jb.json' -o /tmp/x.html");
  EXPECT_EQ(ctl.code, exit_usage) << ctl.out;
  EXPECT_NE(ctl.out.find("a??[2Jb.json"), std::string::npos) << ctl.out;
  EXPECT_EQ(ctl.out.find('\x1b'), std::string::npos) << ctl.out;
  // --alpha: one range, stated as the check applies it (no "0 not in range 0.000000").
  const std::string pair = temp_results("a.json", 1e-3) + " " + temp_results("b.json", 1e-3);
  expect_one_line_error("compare " + pair + " --alpha 0", exit_usage, "must be above 0 and at most 0.5, not 0");
  expect_one_line_error("compare " + pair + " --alpha 0.6", exit_usage, "must be above 0 and at most 0.5, not 0.6");
  expect_one_line_error("compare " + pair + " --alpha nan", exit_usage, "must be above 0 and at most 0.5, not nan");
  expect_one_line_error("compare " + pair + " --alpha 1e-3x", exit_usage, "must be a number above 0");
  expect_one_line_error("advise --read-only --written", exit_usage, "contradict");
  expect_one_line_error("advise --temporary --read-only", exit_usage, "contradict");
  expect_one_line_error("advise --bytes 0 --read-only", exit_usage, "at least 1");
  expect_one_line_error("advise --bytes lots --read-only", exit_usage, "not a size in bytes");
  expect_one_line_error("advise --access sometimes --read-only", exit_usage, "uniform, coalesced");
  expect_one_line_error("advise --bytes 64", exit_usage, "--read-only or --written");
  // The answer depends on a size the user did not give: refuse rather than assume it.
  expect_one_line_error("advise --read-only --access uniform", exit_usage, "--bytes");
  expect_one_line_error("advise --written --sharing grid --access irregular", exit_usage, "--bytes");
  expect_one_line_error("advise --bytes -5 --read-only", exit_usage, "--bytes");
  expect_one_line_error("advise --written --sharing grid --bytes 1M --contention sometimes", exit_usage,
                        "--contention takes");
  expect_one_line_error("advise --read-only --bytes 1M --contention low", exit_usage, "--sharing grid");
}

TEST(Cli, CompareVerdictsAndRegressionGate) {
  const auto a = temp_results("base.json", 1.0e-3), same = temp_results("same.json", 1.001e-3),
             slow = temp_results("slow.json", 1.25e-3);
  const auto r1 = run("compare " + a + " " + same + " --fail-on-regression 5");
  EXPECT_EQ(r1.code, 0) << r1.out;
  EXPECT_NE(r1.out.find("1 same ("), std::string::npos) << r1.out;
  const auto r2 = run("compare " + a + " " + slow + " --fail-on-regression 5");
  EXPECT_EQ(r2.code, memscope::exit_check_failed) << r2.out;
  EXPECT_NE(r2.out.find("slower"), std::string::npos) << r2.out;
  const auto r3 = run("compare " + a + " " + slow);  // no gate: a report, not a failure
  EXPECT_EQ(r3.code, 0) << r3.out;
}

TEST(Cli, ReportWritesAPageAndMarkdown) {
  const auto in = temp_results("r.json", 1e-3);
  const std::string html = ::testing::TempDir() + "r.html", md = ::testing::TempDir() + "r.md";
  std::remove(html.c_str());
  std::remove(md.c_str());
  const auto r = run("report " + in + " -o " + html + " --markdown " + md);
  EXPECT_EQ(r.code, 0) << r.out;
  const auto slurp = [](const std::string& path) {
    std::FILE* f = std::fopen(path.c_str(), "r");
    std::string text;
    if (!f) return text;
    text.resize(1 << 20);
    text.resize(std::fread(text.data(), 1, text.size(), f));
    std::fclose(f);
    return text;
  };
  const std::string page = slurp(html);
  EXPECT_NE(page.find("<svg class=\"chart\""), std::string::npos);
  EXPECT_NE(page.find("Test GPU"), std::string::npos);
  // The Markdown: its heading, the device, the row with its time, and the summary line.
  const std::string text = slurp(md);
  ASSERT_FALSE(text.empty()) << "no Markdown written";
  EXPECT_EQ(text.rfind("# memscope results\n", 0), 0u) << text;
  EXPECT_NE(text.find("- device: Test GPU"), std::string::npos) << text;
  EXPECT_NE(text.find("| bandwidth/copy | bytes=2^30 | 10 | 1.000 ms |"), std::string::npos) << text;
  EXPECT_NE(text.find("1.000 ms"), std::string::npos) << text;
  EXPECT_NE(text.find("1 passed, 0 failed"), std::string::npos) << text;
}

// report pairs files as merge does: boards of one model and one regime, or an error naming both
// files (compare is the command for two models or two regimes).
TEST(Cli, ReportRefusesFilesMergeRefuses) {
  const auto a = temp_results("pair-a.json", 1e-3);
  const auto other = [&](const std::string& name, auto change) {
    auto d = memscope::load_results(a);
    change(d);
    const std::string path = ::testing::TempDir() + name;
    memscope::save_results(d, path);
    return path;
  };
  const auto model = other("pair-model.json", [](memscope::results_doc& d) { d.device.name = "Other GPU"; });
  const auto quick = other("pair-quick.json", [](memscope::results_doc& d) { d.quick = true; });
  const auto cold = other("pair-cold.json", [](memscope::results_doc& d) { d.cold = memscope::cold_mode::clean; });
  const std::string html = ::testing::TempDir() + "pair.html";
  for (const auto& [b, needle] : {std::pair{model, "different GPU models"}, std::pair{quick, "other options"},
                                  std::pair{cold, "other options"}}) {
    expect_one_line_error("report " + a + " " + b + " -o " + html, memscope::exit_usage, needle);
    expect_one_line_error("merge " + a + " " + b + " -o " + html + ".json", memscope::exit_usage, needle);
    EXPECT_EQ(run("compare " + a + " " + b).code, 0) << "compare names the difference and compares";
  }
}

// Option values as a hostile script would give them: every one gets an exit code the docs name
// and, when refused, one line that says why; never a signal, a hang or a second line.
// merge holds every input at once: inputs whose text together passes what memscope reads are
// refused before one is read (a gzip file records its inflated size in its last four bytes).
TEST(Cli, MergeRefusesInputsTooLargeTogether) {
  const auto a = temp_results("merge-a.json", 1e-3);
  const std::string big = ::testing::TempDir() + "says-4-gib.json.gz";
  {
    std::ofstream out(big, std::ios::binary);
    out << std::string("\x1f\x8b", 2) << std::string(16, '\0') << std::string("\xf0\xff\xff\xff", 4);
  }
  expect_one_line_error("merge " + a + " " + big + " -o " + ::testing::TempDir() + "m.json", memscope::exit_usage,
                        "bytes of results together; memscope reads at most");
}

// Three runs folded as replicates compare on their runs; --replicates with --replace is refused.
TEST(Cli, MergeReplicatesAndCompareJudgesOnTheRuns) {
  const std::string dir = ::testing::TempDir();
  const auto a1 = temp_results("rep-a1.json", 1.00e-3), a2 = temp_results("rep-a2.json", 1.01e-3),
             a3 = temp_results("rep-a3.json", 1.02e-3), b = temp_results("rep-b.json", 1.10e-3);
  const std::string merged = dir + "rep-a.json";
  std::remove(merged.c_str());
  EXPECT_EQ(run("merge --replicates " + a1 + " " + a2 + " " + a3 + " -o " + merged).code, 0);
  const auto doc = memscope::load_results(merged);
  ASSERT_EQ(doc.results.size(), 1u);
  EXPECT_EQ(doc.results[0].replicates.size(), 3u);
  const auto cmp = run("compare " + merged + " " + b);
  EXPECT_EQ(cmp.code, 0);
  EXPECT_NE(cmp.out.find("3+1 runs"), std::string::npos) << cmp.out;
  EXPECT_NE(cmp.out.find("slower"), std::string::npos) << cmp.out;
  expect_one_line_error("merge --replicates --replace " + a1 + " " + a2 + " -o " + dir + "rep-x.json",
                        memscope::exit_usage, "exclude each other");
}

TEST(Cli, RandomOptionValuesGetAClearAnswer) {
  const auto a = temp_results("opt-a.json", 1e-3), b = temp_results("opt-b.json", 1.1e-3);
  const std::string values[] = {
      "0",    "-1",  "1e308", "nan", "inf",    "-inf", "0x10", "1e-320", "99999999999999999999",
      "1.5",  "",    "2^64",  "1G",  "abc",    "3.",   ".5",   "1e6",    "-0",
      "1e-9", "1,2", "2^20",  "64K", "\x1b[2J"};
  std::vector<std::string> options = {"compare " + a + " " + b + " --alpha",
                                      "compare " + a + " " + b + " --min-effect",
                                      "compare " + a + " " + b + " --fail-on-regression",
                                      "advise --bytes",
                                      "advise --gpus",
                                      "advise --written --sharing grid --contention",
                                      "map --from"};
  // With a GPU these would measure: their bad values are covered by StoppingRuleAndJournalBadInput.
  if (!has_gpu())
    for (const char* o : {"run bandwidth --min-time", "run bandwidth --max-noise", "run bandwidth --timeout",
                          "run bandwidth --min-samples", "run bandwidth --max-samples",
                          "run bandwidth --throttle-threshold", "run bandwidth --axis bytes="})
      options.emplace_back(o);
  int asked = 0;
  for (const auto& opt : options)
    for (const auto& v : values) {
      const std::string args = opt + (opt.back() == '=' ? "'" : " '") + v + "'";
      const auto r = run(args);
      ++asked;
      EXPECT_TRUE(r.code >= 0 && r.code <= 4) << args << " -> " << r.code << "\n" << r.out;
      if (r.code == memscope::exit_usage || r.code == memscope::exit_no_device) {
        EXPECT_EQ(lines(r.out), 1) << args << "\n" << r.out;
        EXPECT_EQ(r.out.find('\x1b'), std::string::npos) << args << "\n" << r.out;
      }
    }
  EXPECT_GT(asked, 150);
}

TEST(Cli, CompressedResultsAreReadAndWrittenLikePlainOnes) {
  const std::string dir = ::testing::TempDir();
  const auto packed = temp_results("packed.json.gz", 1e-3), plain = temp_results("plain.json", 1.001e-3);
  const auto magic = [](const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::string head(2, '\0');
    head.resize(static_cast<std::size_t>(in.read(head.data(), 2).gcount()));
    return memscope::is_gzip(head);
  };
  EXPECT_TRUE(magic(packed));
  const auto c = run("compare " + packed + " " + plain);
  EXPECT_EQ(c.code, 0) << c.out;
  EXPECT_NE(c.out.find("1 same ("), std::string::npos) << c.out;
  const std::string merged = dir + "merged.json.gz", page = dir + "page.html.gz";
  std::remove(merged.c_str());
  std::remove(page.c_str());
  const auto m = run("merge " + packed + " " + plain + " --replace -o " + merged);
  EXPECT_EQ(m.code, 0) << m.out;
  EXPECT_TRUE(magic(merged));
  const auto r = run("report " + merged + " -o " + page);
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(magic(page));
  const auto a = run("advise --read-only --bytes 1M --access coalesced --results " + merged);
  EXPECT_EQ(a.code, 0) << a.out;
}

TEST(Cli, AdviseAnswersTheSeedsExamples) {
  const std::pair<const char*, const char*> examples[] = {
      {"--read-only --bytes 16 --access uniform", "use:        constant memory"},    // filter coefficients
      {"--read-only --bytes 64 --access uniform", "use:        constant memory"},    // a 4x4 matrix
      {"--read-only --bytes 256M --access irregular", "use:        global memory"},  // a large lookup table
      {"--written --bytes 1K --sharing block", "use:        shared memory"},         // per-block partial sums
      // With a size, the bundled histogram measurements decide (65536 bins: a split cluster,
      // 2^19 bins: L2 atomics; 1024 bins: one block's private copy).
      {"--written --bytes 256K --sharing grid --access irregular",
       "use:        shared memory of a thread-block cluster"},
      {"--written --bytes 2M --sharing grid --access irregular", "use:        global memory with atomics"},
      {"--written --bytes 4K --sharing grid --access irregular", "use:        shared memory per block"},
      // The atomics suite answers for the contention the user describes.
      {"--written --bytes 2M --sharing grid --contention high", "at your contention"},
      {"--temporary --bytes 512", "stay in registers up to"},
  };
  for (const auto& [args, want] : examples) {
    const auto r = run(std::string("advise ") + args);
    EXPECT_EQ(r.code, 0) << args << "\n" << r.out;
    EXPECT_NE(r.out.find(want), std::string::npos) << args << "\n" << r.out;
    EXPECT_NE(r.out.find("measured:"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("measure:    memscope run "), std::string::npos) << r.out;
  }
  // The command that measures every cited figure names cases, not suites: it can be pasted.
  const auto host = run("advise --from-host every-iteration");
  EXPECT_NE(host.out.find("measure:    memscope run transfer/copy transfer/overlap transfer/engines "),
            std::string::npos)
      << host.out;
}

// Issue 13's file and argument reproducers, as a user meets them.
TEST(Cli, OutputsAreWrittenWholeOrNotAtAll) {
  using memscope::exit_usage;
  // A device that takes nothing is found by the output check, before any work (exit 2).
  expect_one_line_error("report -o /dev/full", exit_usage, "cannot write '/dev/full'");
  expect_one_line_error("report --markdown /dev/full", exit_usage, "cannot write '/dev/full'");
  expect_one_line_error("run bandwidth --json /dev/full", exit_usage, "cannot write '/dev/full'");
  const std::string keep = ::testing::TempDir() + "keep.html";
  std::FILE* f = std::fopen(keep.c_str(), "w");
  std::fputs("keep", f);
  std::fclose(f);
  // The second output cannot be written: nothing is written, the first file keeps its text.
  // Found before any work, as run finds it: bad input (exit 2), in every command.
  expect_one_line_error("report -o " + keep + " --markdown /proc/memscope-x.md", exit_usage, "cannot write");
  f = std::fopen(keep.c_str(), "r");
  char buf[16] = {};
  std::fgets(buf, sizeof buf, f);
  std::fclose(f);
  EXPECT_STREQ(buf, "keep");
  expect_one_line_error("report -o " + keep + " --markdown /dev/full", exit_usage, "cannot write '/dev/full'");
  f = std::fopen(keep.c_str(), "r");
  std::fgets(buf, sizeof buf, f);
  std::fclose(f);
  EXPECT_STREQ(buf, "keep");
  const auto in = temp_results("in.json", 1e-3);
  expect_one_line_error("report " + in + " -o " + in, exit_usage, "both an input and an output");
  expect_one_line_error("report -o " + keep + " --markdown " + keep, exit_usage, "named as two outputs");
  expect_one_line_error("report -o " + ::testing::TempDir(), exit_usage, "is a directory");
  expect_one_line_error("report /nonexistent-dir -o " + keep, exit_usage, "cannot open");
}

TEST(Cli, ArgumentsMeanWhatTheySay) {
  expect_one_line_error("--frob", memscope::exit_usage, "unknown option '--frob'");
  // --axis takes one value: the suite after it stays a pattern.
  const auto r = run("verify --axis bytes=2^20 bandwidth/memcpy");
  EXPECT_EQ(r.out.find("malformed"), std::string::npos) << r.out;
  EXPECT_TRUE(r.code == 0 || r.code == memscope::exit_no_device) << r.out;
  expect_one_line_error(
      "compare " + temp_results("a1.json", 1e-3) + " " + temp_results("b1.json", 1e-3) + " --fail-on-regression nan",
      memscope::exit_usage, "fail-on-regression");
}

TEST(Cli, StoppingRuleAndJournalBadInput) {
  using memscope::exit_usage;
  expect_one_line_error("run bandwidth --min-samples 0", exit_usage, "--min-samples must be at least 1");
  expect_one_line_error("run bandwidth --min-samples 20 --max-samples 10", exit_usage, "below --min-samples");
  expect_one_line_error("run bandwidth --max-noise 0", exit_usage, "--max-noise");
  expect_one_line_error("run bandwidth --max-noise -1", exit_usage, "--max-noise");
  expect_one_line_error("run bandwidth --timeout 0", exit_usage, "--timeout");
  // What the command line takes, the results reader takes: nothing past its caps.
  expect_one_line_error("run bandwidth --timeout 1e7", exit_usage, "--timeout must be at most 1e+06 seconds");
  expect_one_line_error("run bandwidth --max-noise 1e9", exit_usage, "--max-noise must be at most 1e+08 percent");
  expect_one_line_error("run bandwidth --min-time 2e6", exit_usage, "--min-time must be at most 1e+06 seconds");
  expect_one_line_error("run bandwidth --min-time 1e308", exit_usage, "--min-time must be at most");
  expect_one_line_error("run bandwidth --min-time 5 --timeout 1", exit_usage, "exceeds --timeout");
  expect_one_line_error("run bandwidth --throttle-threshold 2", exit_usage, "--throttle-threshold");
  expect_one_line_error("run bandwidth --run-once --min-samples 5", exit_usage, "--run-once");
  expect_one_line_error("run bandwidth --run-once --cold", exit_usage, "contradict");
  expect_one_line_error("run bandwidth --run-once --cold=dirty", exit_usage, "contradict");
  expect_one_line_error("run bandwidth --cold=lukewarm", exit_usage, "--cold takes clean");
  expect_one_line_error("run --cold dirty bandwidth", exit_usage, "written --cold=dirty");
  // An output directory that cannot exist is bad input, found before anything runs.
  expect_one_line_error("run bandwidth --json /proc/memscope/x.json", exit_usage, "cannot write");
  expect_one_line_error("run bandwidth --csv /dev/null/x.csv", exit_usage, "cannot write");
  // Journals given to --resume: missing, foreign, truncated; nothing is overwritten.
  const std::string dir = ::testing::TempDir();
  expect_one_line_error("run --resume " + dir + "no-such.journal", exit_usage, "cannot open journal");
  const std::string foreign = temp_results("foreign.json", 1e-3);
  const std::string before = [&] {
    std::ifstream in(foreign);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  }();
  expect_one_line_error("run --resume " + foreign, exit_usage, "not a memscope journal");
  std::ifstream again(foreign);
  EXPECT_EQ(std::string((std::istreambuf_iterator<char>(again)), std::istreambuf_iterator<char>()), before);
  const std::string cut = dir + "cut.journal";
  std::ofstream(cut) << "{\"format\":\"memscope-journal\",\"version\":1";
  expect_one_line_error("run --resume " + cut, exit_usage, "cut off");
  expect_one_line_error("run --resume " + cut + " bandwidth", exit_usage, "give it alone");
  // Inputs that are not regular files are refused before they are opened: a FIFO would block
  // until a writer came, /dev/zero would never end.
  expect_one_line_error("run --resume " + dir, exit_usage, "is a directory, not a journal");
  expect_one_line_error("run --resume /dev/zero", exit_usage, "is a device, not a journal");
  const std::string fifo = dir + "memscope-test.fifo";
  std::remove(fifo.c_str());
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  expect_one_line_error("run --resume " + fifo, exit_usage, "is a pipe (FIFO), not a journal");
  expect_one_line_error("report " + fifo + " -o " + dir + "fifo.html", exit_usage, "is a pipe (FIFO), not a results");
  expect_one_line_error("report /dev/zero -o " + dir + "zero.html", exit_usage, "is a device, not a results file");
  expect_one_line_error("compare /dev/zero " + foreign, exit_usage, "is a device");
  expect_one_line_error("merge " + fifo + " " + foreign + " -o " + dir + "m.json", exit_usage, "pipe (FIFO)");
  std::remove(fifo.c_str());
  expect_one_line_error("run bandwidth --json " + dir + "j.json.gz --journal " + dir + "j.journal.gz", exit_usage,
                        "never compressed");
}

TEST(Cli, OutputDirectoriesAreCreatedBeforeTheRun) {
  const std::string dir = ::testing::TempDir() + "memscope-new-dir-" + std::to_string(::getpid());
  const auto r = run("run bandwidth/memcpy --quick --quiet --json " + dir + "/sub/out.json");
  EXPECT_TRUE(std::filesystem::is_directory(dir + "/sub")) << r.out;
  if (!has_gpu()) {
    EXPECT_EQ(r.code, memscope::exit_no_device) << r.out;
    EXPECT_FALSE(std::filesystem::exists(dir + "/sub/out.json.journal")) << "no journal before the GPU is found";
  }
  std::filesystem::remove_all(dir);
}

TEST(Cli, GpuFaultKeepsTheJournalAndResumeFinishesTheRun) {
  if (!has_gpu()) GTEST_SKIP() << "needs a CUDA GPU: the fault is an illegal address on the device";
  const std::string dir = ::testing::TempDir() + "memscope-fault-" + std::to_string(::getpid());
  const std::string out = dir + "/fault.json", journal = out + ".journal";
  const auto first = run("run selftest --quick --quiet --json " + out, "MEMSCOPE_SELFTEST=1 ");
  EXPECT_EQ(first.code, memscope::exit_runtime) << first.out;
  EXPECT_NE(first.out.find("selftest/fault"), std::string::npos) << first.out;
  EXPECT_NE(first.out.find("--resume " + journal), std::string::npos) << first.out;
  ASSERT_TRUE(std::filesystem::exists(journal)) << first.out;
  const auto partial = memscope::load_results(out);
  EXPECT_FALSE(partial.incomplete.empty());
  ASSERT_EQ(partial.results.size(), 4u);  // three `before` points, then the fault's error row
  EXPECT_EQ(partial.results.back().status, memscope::case_status::error);

  const auto resumed = run("run --resume " + journal + " --quiet", "MEMSCOPE_SELFTEST=1 ");
  EXPECT_EQ(resumed.code, memscope::exit_check_failed) << resumed.out;  // the fault row stays an error
  const auto whole = memscope::load_results(out);
  EXPECT_TRUE(whole.incomplete.empty());
  ASSERT_EQ(whole.results.size(), 6u);
  ASSERT_EQ(whole.sources.size(), 2u);
  EXPECT_EQ(whole.results.back().name, "after");
  EXPECT_EQ(whole.results.back().source, 1u);
  EXPECT_EQ(whole.results.back().status, memscope::case_status::ok);
  EXPECT_FALSE(std::filesystem::exists(journal)) << "the default journal goes once the outputs are written";
  std::filesystem::remove_all(dir);
}

TEST(Cli, GpuRunRecordsClockAndConvergence) {
  if (!has_gpu()) GTEST_SKIP() << "needs a CUDA GPU";
  const std::string out = ::testing::TempDir() + "memscope-clock.json";
  const auto r = run("run bandwidth/copy --quick --axis bytes=2^24 --axis type=f32 --json " + out);
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("SM clock while timing"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("bandwidth/copy: 5 points"), std::string::npos) << "one progress line per case under a pipe\n"
                                                                       << r.out;
  const auto doc = memscope::load_results(out);
  ASSERT_EQ(doc.results.size(), 5u);  // one per copy kernel
  const auto& row = doc.results[0];
  EXPECT_GT(row.clock_mhz, 100) << "the probe saw the SM clock";
  EXPECT_LE(row.clock_mhz, 1.1 * doc.device.sm_clock_khz / 1e3);
  EXPECT_EQ(row.times.size(), row.stats.count);
  EXPECT_FALSE(row.stop.empty());
  ASSERT_TRUE(doc.timing.has_value());
}

// --cold=dirty reaches every row and the header, survives an interruption through the journal,
// and the run says what L2 held; the copy ceiling is still measured from a clean L2.
TEST(Cli, GpuDirtyColdRunIsRecordedAndResumedAsDirty) {
  if (!has_gpu()) GTEST_SKIP() << "needs a CUDA GPU";
  const std::string dir = ::testing::TempDir() + "memscope-dirty-" + std::to_string(::getpid());
  const std::string out = dir + "/dirty.json", journal = out + ".journal";
  const auto first = run("run selftest --quick --quiet --cold=dirty --json " + out, "MEMSCOPE_SELFTEST=1 ");
  EXPECT_EQ(first.code, memscope::exit_runtime) << first.out;  // the selftest's fault stops it
  ASSERT_TRUE(std::filesystem::exists(journal)) << first.out;
  const auto resumed = run("run --resume " + journal + " --quiet", "MEMSCOPE_SELFTEST=1 ");
  EXPECT_NE(resumed.out.find("L2 at every sample's start: full of another buffer's dirty lines"), std::string::npos)
      << resumed.out;
  const auto doc = memscope::load_results(out);
  EXPECT_EQ(doc.cold, memscope::cold_mode::dirty);
  std::size_t timed = 0;
  for (const auto& r : doc.results)
    if (r.timed) {
      ++timed;
      EXPECT_EQ(r.cold, memscope::cold_mode::dirty) << r.id();
      EXPECT_EQ(r.batch, 1) << r.id();  // a flushed sample is one launch
    }
  EXPECT_GT(timed, 0u) << resumed.out;
  EXPECT_GT(doc.copy_ceiling_gbps, 0);
  std::filesystem::remove_all(dir);
}

// --concurrent: every GPU at once, a process each; each board writes its own file, and the
// board's output comes back under its heading.
TEST(Cli, GpuConcurrentRunsEveryBoardInItsOwnProcess) {
  if (!has_gpu()) GTEST_SKIP() << "needs a CUDA GPU";
  const std::string dir = ::testing::TempDir() + "memscope-concurrent/";
  std::filesystem::remove_all(dir);
  const auto r = run("run bandwidth/copy --quick --axis bytes=2^24 --axis type=f32 --device all --concurrent --json " +
                     dir + "run.json");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("at once (--concurrent)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("== GPU 0 =="), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("GPU 0 finished"), std::string::npos) << r.out;
  std::size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().extension() == ".json") {
      ++files;
      EXPECT_EQ(memscope::load_results(e.path().string()).results.size(), 5u) << e.path();
    }
  EXPECT_GE(files, 1u);
  // Under a launcher every rank already runs at once.
  const auto ranked = run("run bandwidth/copy --quick --concurrent", "SLURM_PROCID=0 SLURM_LOCALID=0 ");
  EXPECT_EQ(ranked.code, memscope::exit_usage) << ranked.out;
  EXPECT_NE(ranked.out.find("every rank already runs"), std::string::npos) << ranked.out;
}

// Two ranks of one job (as srun starts them), merged into one document whose report has a
// table of both; the same rank file given twice is refused.
TEST(Cli, GpuRankFilesMergeIntoOneFleetDocument) {
  if (!has_gpu()) GTEST_SKIP() << "needs a CUDA GPU";
  const std::string dir = ::testing::TempDir() + "memscope-ranks/";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string args =
      "run bandwidth/copy --quick --quiet --axis bytes=2^24 --axis type=f32 --json " + dir + "bw.json";
  std::vector<std::string> files;
  for (int rank = 0; rank < 2; ++rank) {
    const auto r = run(args, "SLURM_PROCID=" + std::to_string(rank) + " SLURM_LOCALID=0 SLURM_NTASKS=2 ");
    ASSERT_EQ(r.code, 0) << r.out;
    // One machine: both ranks name their file after this host and GPU 0; keep each rank's.
    for (const auto& e : std::filesystem::directory_iterator(dir))
      if (e.path().filename().string().rfind("bw.", 0) == 0 && e.path().extension() == ".json") {
        files.push_back(dir + "rank" + std::to_string(rank) + ".json");
        std::filesystem::rename(e.path(), files.back());
        break;
      }
  }
  ASSERT_EQ(files.size(), 2u);
  // One machine, one GPU: the ranks measured the same board, which merge must refuse.
  const auto same = run("merge " + files[0] + " " + files[1] + " -o " + dir + "fleet.json");
  EXPECT_EQ(same.code, memscope::exit_usage) << same.out;
  EXPECT_NE(same.out.find("shared one GPU"), std::string::npos) << same.out;
  const auto twice = run("merge " + files[0] + " " + files[0] + " -o " + dir + "fleet.json");
  EXPECT_NE(twice.code, 0) << twice.out;
}

namespace {

/// Starts `memscope ARGS` in the background, waits until a journal matching `journal_glob`
/// holds `rows` rows (0: until it exists, which is before the copy ceiling is measured), sends
/// SIGTERM to memscope only, and returns memscope's exit status and output.
outcome stop_after_rows(const std::string& args, const std::string& journal_glob, int rows, const std::string& dir) {
  const std::string script = dir + "stop.sh", log = dir + "stop.log";
  const std::string waiting = rows > 0 ? "[ \"$(cat " + journal_glob + " 2>/dev/null | grep -c '^{\"row\"')\" -lt " +
                                             std::to_string(rows) + " ]"
                                       : "! ls " + journal_glob + " >/dev/null 2>&1";
  std::ofstream(script) << "MEMSCOPE_SELFTEST=1 " << exe() << " " << args << " > " << log << " 2>&1 &\n"
                        << "pid=$!\n"
                        << "i=0\n"
                        << "while " << waiting << " && [ $i -lt 1200 ]; do\n"
                        << "  sleep 0.05; i=$((i+1))\n"
                        << "done\n"
                        << "kill -TERM $pid\n"
                        << "wait $pid\n"
                        << "echo \"exit=$?\" >> " << log << "\n";
  if (std::system(("sh " + script).c_str()) != 0) return {-1, "the script failed"};
  std::ifstream in(log);
  std::string out((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto at = out.rfind("exit=");
  return {at == std::string::npos ? -1 : std::stoi(out.substr(at + 5)), out};
}

}  // namespace

// SIGTERM (kill, timeout, a Slurm time limit) stops the run at the end of a sample: the point
// under way is dropped, every finished row is written, the exit is 128 + 15, and --resume
// finishes the run. Under --concurrent a signal to the parent alone reaches every board.
TEST(Cli, GpuStopSignalWritesTheRowsAndResumeFinishes) {
  if (!has_gpu()) GTEST_SKIP() << "needs a CUDA GPU";
  const std::string dir = ::testing::TempDir() + "memscope-stop-" + std::to_string(::getpid()) + "/";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  // Two points of about two seconds each: the signal comes once the first is journaled.
  const std::string rule = " --min-time 2 --timeout 2 --max-samples 1000000 --axis n=1,1000 ";
  const std::string out = dir + "stop.json", journal = out + ".journal";
  const auto first = stop_after_rows("run selftest/before" + rule + "--json " + out, journal, 1, dir);
  EXPECT_EQ(first.code, 128 + SIGTERM) << first.out;
  EXPECT_NE(first.out.find("SIGTERM: stopping after the sample under way"), std::string::npos) << first.out;
  EXPECT_NE(first.out.find("stopped by SIGTERM while measuring selftest/before"), std::string::npos) << first.out;
  EXPECT_EQ(first.out.find("error:"), std::string::npos) << "a stop that was asked for is not an error\n" << first.out;
  EXPECT_NE(first.out.find("--resume " + journal), std::string::npos) << first.out;
  const auto partial = memscope::load_results(out);
  EXPECT_NE(partial.incomplete.find("SIGTERM"), std::string::npos) << partial.incomplete;
  ASSERT_EQ(partial.results.size(), 1u) << "the finished point, not the one the signal cut short";
  EXPECT_EQ(partial.results[0].status, memscope::case_status::ok);

  const auto resumed = run("run --resume " + journal + " --quiet", "MEMSCOPE_SELFTEST=1 ");
  EXPECT_EQ(resumed.code, 0) << resumed.out;
  const auto whole = memscope::load_results(out);
  EXPECT_TRUE(whole.incomplete.empty()) << whole.incomplete;
  EXPECT_EQ(whole.results.size(), 2u);

  // Stopped before any row (at the copy ceiling, or inside the first point): the document
  // says so, and the message does not promise rows.
  const std::string none = dir + "none.json";
  const auto early = stop_after_rows("run selftest/before" + rule + "--json " + none, none + ".journal", 0, dir);
  EXPECT_EQ(early.code, 128 + SIGTERM) << early.out;
  EXPECT_NE(early.out.find("no point was measured; run it again, or: memscope run --resume " + none + ".journal"),
            std::string::npos)
      << early.out;
  EXPECT_EQ(early.out.find("the rows measured so far"), std::string::npos) << early.out;
  const auto empty = memscope::load_results(none);
  EXPECT_NE(empty.incomplete.find("SIGTERM"), std::string::npos) << empty.incomplete;
  EXPECT_TRUE(empty.results.empty());

  const std::string board_json = dir + "c.json";
  const auto c = stop_after_rows("run selftest/before" + rule + "--device all --concurrent --json " + board_json,
                                 dir + "c.*.json.journal", 1, dir);
  EXPECT_EQ(c.code, 128 + SIGTERM) << c.out;
  EXPECT_NE(c.out.find("stopped by SIGTERM, its rows written"), std::string::npos) << c.out;
  std::size_t boards = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("c.", 0) != 0 || e.path().extension() != ".json") continue;
    ++boards;
    const auto doc = memscope::load_results(e.path().string());
    EXPECT_NE(doc.incomplete.find("SIGTERM"), std::string::npos) << name << ": " << doc.incomplete;
    EXPECT_GE(doc.results.size(), 1u) << name;
  }
  EXPECT_GE(boards, 1u) << c.out;
  std::filesystem::remove_all(dir);
}

TEST(Cli, CountersAreCheckedAgainstAChipWithoutAGpu) {
  const auto r = run("counters --chip GH100");
  if (r.code == 2 && r.out.find("not found") != std::string::npos) GTEST_SKIP() << "no CUPTI here: " << r.out;
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("dram__bytes_read.sum"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("replay pass"), std::string::npos) << r.out;
  const auto listed = run("counters --chip GH100 --list dram__bytes");
  EXPECT_EQ(listed.code, 0) << listed.out;
  EXPECT_GE(lines(listed.out), 3) << listed.out;
  const auto named = run("counters --chip GH100 --metric lts__t_sectors_op_read.sum");
  EXPECT_EQ(named.code, 0) << named.out;
  EXPECT_NE(named.out.find("lts__t_sectors_op_read.sum"), std::string::npos) << named.out;
  expect_one_line_error("counters --chip GH100 --metric dram__bytes_rd.sum", 2, "dram__bytes_read");
  expect_one_line_error("counters --chip XX100", 2, "GH100");
  expect_one_line_error("counters --chip GH100 --cupti /nonexistent", 2, "MEMSCOPE_CUPTI_DIR");
  const auto env = run("counters --chip GH100", "MEMSCOPE_CUPTI_DIR=/nonexistent ");
  EXPECT_EQ(env.code, 2) << env.out;
  EXPECT_NE(env.out.find("(MEMSCOPE_CUPTI_DIR)"), std::string::npos) << env.out;
  if (!has_gpu()) expect_one_line_error("counters", 2, "--chip");
}
