#include "cli/cli.hpp"
#include "cli/concurrent.hpp"
#include "cli/counters_command.hpp"

#include "core/device_query.hpp"
#include "harness/gzip.hpp"
#include "harness/input_file.hpp"
#include "harness/journal.hpp"
#include "harness/stop_signal.hpp"
#include "harness/launcher.hpp"
#include "harness/map_plan.hpp"
#include "harness/nvml_nvlink.hpp"
#include "harness/output_file.hpp"
#include "harness/progress.hpp"
#include "harness/registry.hpp"
#include "harness/results.hpp"
#include "harness/runner.hpp"
#include "harness/text_output.hpp"
#include "advise/advisor.hpp"
#include "report/bundled_profile.hpp"
#include "report/compare.hpp"
#include "report/fleet.hpp"
#include "report/findings.hpp"
#include "report/html_report.hpp"
#include "report/map.hpp"
#include "memscope/core/cuda_check.hpp"
#include "memscope/version.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <limits>
#include <memory>
#include <optional>
#include <set>
#include <cmath>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>

namespace memscope {
namespace {

struct run_flags {
  std::vector<std::string> patterns;
  std::vector<std::string> axes;
  bool quick = false;
  std::string cold;  // --cold as given: "" (not given), "clean" (bare --cold) or "dirty"
  int device = 0;
  std::string devices;  // --device as given: "", "2", "0,2", "all"
  std::string json_path, csv_path, markdown_path, report_path;
  // The stopping rule: each overrides the --quick or full default only when given.
  std::optional<int> min_samples, max_samples;
  std::optional<double> min_time, max_noise_pct, timeout, throttle_threshold;
  bool run_once = false, resample_throttled = false, quiet = false;
  bool concurrent = false;  // several GPUs at once, a process each (cli/concurrent.hpp)
  std::string journal_path, resume_path;
  bool map = false;         // the one-minute map's points (memscope map, or run with no suite named)
  std::string levels_path;  // the map's levels as JSON
};

/// When the process started: the map reports its wall time, context creation included.
const std::chrono::steady_clock::time_point process_start = std::chrono::steady_clock::now();

/// The command line as given (without the program name): a --concurrent run starts its board
/// processes with it.
std::vector<std::string>& given_args() {
  static std::vector<std::string> args;
  return args;
}

/// In a board process of a --concurrent run: the GPU it measures (-1 otherwise).
int concurrent_board() {
  const char* v = std::getenv(concurrent_board_variable);
  if (v == nullptr || *v == '\0') return -1;
  char* end = nullptr;
  const long d = std::strtol(v, &end, 10);
  if (*end != '\0' || d < 0 || d > 1023)
    throw usage_error(std::string(concurrent_board_variable) + "='" + v + "' is not a GPU ordinal");
  return static_cast<int>(d);
}

struct advise_flags {
  std::string bytes, access, sharing, results, contention, from_host;
  bool larger_than_gpu = false;
  int gpus = 1;
  bool read_only = false, written = false, temporary = false;
};

std::string join_args(int argc, char** argv) {
  std::string s = "memscope";
  for (int i = 1; i < argc; ++i) s += std::string(" ") + argv[i];
  return s;
}

std::vector<std::string> finding_lines(const results_doc& doc) {
  std::vector<std::string> lines;
  for (const auto& f : report::findings(doc, builtin_registry())) lines.push_back(f.suite + ": " + f.text);
  return lines;
}

/// Stages the results document for `path` (nothing when it is empty).
void stage_results(output_batch& out, const results_doc& doc, const std::string& path) {
  if (path.empty()) return;
  const auto text = results_text(doc, path);
  out.add(path, [&](std::ostream& o) { o << text << '\n'; });
}

int do_info(int device, bool as_json) {
  const device_info d = query_device_info(device);
  // What this binary brings to the GPU: the architectures built in, and the one whose code
  // runs here (an older one JIT-compiled, or none).
  const auto code = binary_code();
  if (as_json) {
    auto j = to_json(d);
    j["build"] = {{"cuda_architectures", cuda_architectures},
                  {"code_arch_here", code.ptx},
                  {"machine_code_arch_here", code.binary}};
    j["nvlink"] = describe_nvlinks(read_nvlinks(d.uuid));
    std::cout << j.dump(2) << '\n';
  } else {
    print_device(d, std::cout);
    std::cout << fmt::format("  {:<34} {}\n", "built for CUDA architectures", cuda_architectures);
    std::cout << fmt::format("  {:<34} {}\n", "code that runs on this GPU",
                             describe_code_here(code, d.compute_capability()));
    std::cout << fmt::format("  {:<34} {}\n", "NVLinks", describe_nvlinks(read_nvlinks(d.uuid)));
  }
  return exit_ok;
}

/// The advice facts whose cases the patterns select: what `memscope advise` cites, and which
/// cases measure each.
int list_facts(const registry& reg, const std::vector<const case_def*>& cases) {
  std::cout << fmt::format("{:<30} {:<36} {}\n", "fact (memscope advise cites it)", "measured by (memscope run ...)",
                           "what it answers");
  for (const auto& s : reg.suite_infos())
    for (const auto& f : s.facts) {
      const bool selected =
          std::any_of(cases.begin(), cases.end(), [&](const case_def* c) { return f.reads(c->suite, c->name); });
      if (selected) std::cout << fmt::format("{:<30} {:<36} {}\n", f.name, f.run_patterns(), f.description);
    }
  return exit_ok;
}

int do_list(const std::vector<std::string>& patterns, bool facts) {
  const auto& reg = builtin_registry();
  const auto cases = reg.select(patterns);
  const auto defaults = default_suites();
  std::cout << "memscope " << tool_version << ", built for CUDA architectures " << cuda_architectures << '\n';
  if (facts) return list_facts(reg, cases);
  std::string suite;
  for (const case_def* c : cases) {
    if (c->suite != suite) {
      suite = c->suite;
      const bool is_default = std::find(defaults.begin(), defaults.end(), suite) != defaults.end();
      std::cout << suite << (is_default ? "  (default)" : "") << '\n';
    }
    std::cout << fmt::format("  {:<28} {}\n", c->id(), c->summary);
    for (const auto& a : c->axes) {
      std::vector<std::string> vals;
      for (const auto& v : a.full) vals.push_back(format_axis_value(a, v));
      std::cout << fmt::format("      --axis {}={}   {}\n", a.name, fmt::join(vals, ","), a.description);
    }
  }
  return exit_ok;
}

timing_policy timing_from_flags(const run_flags& f) {
  // The map's points are few and chosen; each takes the quick stopping rule.
  timing_policy t = f.quick || f.map ? timing_policy::quick() : timing_policy::full();
  if (f.min_samples) t.min_samples = *f.min_samples;
  if (f.max_samples) t.max_samples = *f.max_samples;
  if (f.min_time) t.min_time_s = *f.min_time;
  if (f.max_noise_pct) t.max_noise = *f.max_noise_pct / 100.0;
  if (f.timeout) t.timeout_s = *f.timeout;
  if (f.throttle_threshold) t.throttle_threshold = *f.throttle_threshold;
  t.resample_throttled = f.resample_throttled;
  t.run_once = f.run_once;
  // A value the user did not give follows the one they did: --min-samples 2000 raises the
  // sample cap rather than contradict the default.
  if (f.min_samples && !f.max_samples) t.max_samples = std::max(t.max_samples, t.min_samples);
  // Capped, so that the derived --timeout never reports an out-of-range --min-time as its own.
  if (f.min_time && !f.timeout)
    t.timeout_s = std::min(std::max(t.timeout_s, 2 * t.min_time_s), timing_policy::max_seconds);
  if (const auto why = t.problem(); !why.empty()) throw usage_error(why);
  if (f.run_once &&
      (f.min_samples || f.max_samples || f.min_time || f.max_noise_pct || f.timeout || f.resample_throttled))
    throw usage_error("--run-once takes one launch per point: it contradicts the stopping-rule options");
  if (f.run_once && !f.cold.empty())
    throw usage_error("--run-once and --cold contradict each other: a profiler controls the caches");
  return t;
}

cold_mode cold_from_flags(const run_flags& f) {
  // `--cold dirty` reads "dirty" as a pattern: say how to write it rather than "no case matches".
  for (const auto& p : f.patterns)
    if (p == "clean" || p == "dirty")
      throw usage_error("'" + p + "' is not a suite or case: the L2 flush's kind is written --cold=" + p);
  if (f.cold.empty()) return cold_mode::off;
  if (const auto m = flush_from(f.cold)) return *m;
  throw usage_error(
      "--cold takes clean (the default: L2 evicted by reads, no dirty line) or dirty (L2 left full of "
      "another buffer's dirty lines), not '" +
      f.cold + "'");
}

run_request request_from(const run_flags& f, bool verify_only, const std::string& command) {
  run_request req;
  req.patterns = f.patterns;
  for (const auto& a : f.axes) req.overrides.push_back(parse_axis_override(a));
  req.set = f.quick ? axis_set::quick : axis_set::full;
  req.verify_only = verify_only;
  req.cold = cold_from_flags(f);
  req.device = f.device;
  req.command = command;
  req.timing = timing_from_flags(f);
  return req;
}

/// The journal beside the first output asked for ("" when there is none).
std::string default_journal(const run_flags& f) {
  for (const auto* p : {&f.json_path, &f.csv_path, &f.markdown_path, &f.report_path})
    if (!p->empty()) return *p + ".journal";
  return {};
}

std::string journal_for(const run_flags& f) { return f.journal_path.empty() ? default_journal(f) : f.journal_path; }

/// Outputs named on the command line: their directories created, each checked writable. Bad
/// output paths are bad input (exit 2), found before anything runs.
void prepare_outputs(const std::vector<std::string>& outs, const std::vector<std::string>& inputs = {}) {
  try {
    for (const auto& o : outs) create_parent_directories(o);
    check_outputs(outs, inputs);
  } catch (const io_error& e) {
    throw usage_error(e.what());
  }
}

/// The map of a document: its lines on stdout, its levels staged where --levels asks.
void print_map(const results_doc& doc, const std::string& levels_path, output_batch& out) {
  const auto h = report::derive_hierarchy(doc, builtin_registry());
  for (const auto& line : report::map_lines(h, doc.device)) std::cout << terminal_safe(line) << '\n';
  out.add(levels_path, [&](std::ostream& o) { o << report::map_json(h).dump(2) << '\n'; });
}

/// Table (or the map), findings, files and the closing line of a run; the exit code.
int finish_run(const results_doc& doc, const run_flags& f, const std::string& journal,
               const std::vector<suite_time>& spent = {}) {
  output_batch out;  // every output replaced together, once all are written
  if (f.map) {
    print_map(doc, f.levels_path, out);
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - process_start).count();
    double gpu = 0;
    for (const auto& r : doc.results) gpu += r.sampled_seconds();
    std::cout << fmt::format(
        "\nthe map took {:.1f} s from start to finish ({} points; {:.1f} s of timed GPU samples); "
        "every suite in full: memscope run '*'\n",
        wall, doc.results.size(), gpu);
  } else {
    print_table(doc, std::cout);
  }
  const auto found = f.map ? std::vector<std::string>{} : finding_lines(doc);
  if (!found.empty()) {
    std::cout << "\nfindings:\n";
    for (const auto& l : found) std::cout << "  " << l << '\n';
  }
  if (doc.mode == "run") std::cout << '\n' << timing_summary(doc) << '\n';
  if (!f.map && spent.size() > 1) {
    std::cout << '\n';
    for (const auto& line : time_lines(spent)) std::cout << line << '\n';
  }
  stage_results(out, doc, f.json_path);
  out.add(f.report_path, [&](std::ostream& o) { o << report::render_html(doc, builtin_registry()); });
  out.add(f.csv_path, [&](std::ostream& o) { write_csv(doc, o); });
  out.add(f.markdown_path, [&](std::ostream& o) { write_markdown(doc, o, found); });
  out.commit();
  std::cout << summary_line(doc) << std::endl;
  if (!doc.incomplete.empty()) {
    // Asked to stop: not an error, but not a finished run either (128 + N, as the signal would).
    const int sig = stop_signal();
    std::cerr << (sig ? "memscope: " : "memscope: error: ") << doc.incomplete << "; "
              << (journal.empty()
                      ? std::string("give --json FILE (or --journal FILE) to keep the rows of a run that stops")
                  : doc.results.empty() ? "no point was measured; run it again, or: memscope run --resume " + journal
                                        : "the rows measured so far are kept in " + journal +
                                              " and the outputs; finish the run with: memscope run --resume " + journal)
              << '\n';
    return sig ? 128 + sig : exit_runtime;
  }
  // Everything is written: the journal has done its job, unless the user named it.
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!journal.empty() && !default_journal(f).empty() &&
      fs::weakly_canonical(journal, ec) == fs::weakly_canonical(default_journal(f), ec))
    std::remove(journal.c_str());
  return all_passed(doc) ? exit_ok : exit_check_failed;
}

run_hooks journal_hooks(std::unique_ptr<journal_writer>& writer, progress_printer& progress) {
  run_hooks h;
  h.progress = [&progress](std::size_t, std::size_t, const std::string& id, const std::string& axes) {
    progress.point(id, axes);
  };
  journal_writer* w = writer.get();
  if (w) h.on_start = [w](const results_doc& d) { w->segment(d); };
  h.on_row = [w, &progress](const case_result& r) {
    if (w) w->row(r);
    progress.point_finished();
  };
  return h;
}

journal_args journal_args_from(const run_flags& f, const run_request& req) {
  journal_args a;
  a.patterns = f.patterns;
  a.axes = f.axes;
  a.quick = f.quick;
  a.map = f.map;
  a.cold = req.cold;
  a.verify = req.verify_only;
  a.device = f.device;
  a.timing = req.timing;
  // Absolute, so that --resume from another directory writes where the run would have.
  const auto abs = [](const std::string& p) { return p.empty() ? p : std::filesystem::absolute(p).string(); };
  a.json_path = abs(f.json_path);
  a.csv_path = abs(f.csv_path);
  a.markdown_path = abs(f.markdown_path);
  a.report_path = abs(f.report_path);
  return a;
}

void announce(const char* what, const device_info& dev, std::size_t points, const timing_policy& t, bool verify_only,
              bool quiet) {
  if (quiet) return;
  std::cerr << fmt::format("memscope {}: {} on {} (sm_{}{}), {} case point{}", tool_version, what, dev.name,
                           dev.cc_major, dev.cc_minor, points, points == 1 ? "" : "s");
  if (!verify_only)
    std::cerr << fmt::format(t.run_once
                                 ? "; one launch per point (--run-once)"
                                 : "; each point stops at {} samples, {:g} s of GPU time and {:g}% noise (relative "
                                   "standard error), or after {:g} s",
                             t.min_samples, t.min_time_s, 100 * t.max_noise, t.timeout_s);
  std::cerr << '\n';
}

int do_run_board(const run_flags& f, bool verify_only, const std::string& command, results_doc* measured) {
  const run_request req = request_from(f, verify_only, command);
  const std::string journal = journal_for(f);

  // Bad input, and outputs that cannot be written, fail before the GPU is touched.
  auto plan = f.map ? std::vector<planned_point>{} : plan_run(builtin_registry(), req);
  prepare_outputs({f.json_path, f.csv_path, f.markdown_path, f.report_path, f.levels_path, journal});
  const device_info dev = query_device_info(f.device);
  require_code_for_device(dev);                         // before the copy ceiling: not one case may run without code
  if (f.map) plan = plan_map(builtin_registry(), dev);  // its sizes follow the GPU's caches
  check_footprints(plan, dev);
  announce(f.map ? "map" : verify_only ? "verify" : "run", dev, plan.size(), req.timing, verify_only, f.quiet);

  std::unique_ptr<journal_writer> writer;
  if (!journal.empty()) writer = std::make_unique<journal_writer>(journal, journal_args_from(f, req), dev, command);
  progress_printer progress(progress_printer::style_for(stderr, f.quiet), plan.size());
  std::vector<suite_time> spent;
  run_hooks hooks = journal_hooks(writer, progress);
  hooks.spent = &spent;
  const results_doc doc = execute_plan(plan, req, dev, hooks);
  progress.done();
  writer.reset();
  const int rc = finish_run(doc, f, journal, spent);
  if (measured) *measured = doc;
  return rc;
}

/// The boards a run measures, and whether their outputs need per-board names: --device as
/// given; else under a launcher the rank's local GPU (local rank modulo the GPUs it sees);
/// else GPU 0.
struct board_plan {
  std::vector<int> devices;
  bool per_board_names = false;
  launcher_rank rank;
};

board_plan plan_boards(const run_flags& f) {
  board_plan b;
  b.rank = detect_launcher();
  if (const int d = concurrent_board(); d >= 0) {
    // One board of a --concurrent run: its outputs carry the board's name, as every board's do.
    b.devices = {d};
    b.per_board_names = true;
    b.rank = {};
    return b;
  }
  if (!f.devices.empty()) {
    // Text that is not a list, or names a GPU twice, is wrong on any machine: said first.
    if (f.devices != "all") (void)parse_device_list(f.devices, 1 << 30);
    b.devices = parse_device_list(f.devices, require_devices());
  } else if (b.rank.found()) {
    b.devices = {b.rank.local_rank % require_devices()};
  } else {
    b.devices = {0};
  }
  b.per_board_names = b.devices.size() > 1 || b.rank.found();
  return b;
}

run_flags for_board(const run_flags& f, int device, const std::string& host) {
  run_flags g = f;
  g.device = device;
  for (auto* p : {&g.json_path, &g.csv_path, &g.markdown_path, &g.report_path, &g.journal_path})
    *p = per_board_path(*p, host, device);
  return g;
}

results_doc load_current(const std::string& path);

/// Every board's outputs, checked (and their directories made) before the first board runs.
void prepare_board_outputs(const run_flags& f, const std::vector<int>& devices, const std::string& host) {
  std::vector<std::string> outs;
  for (int d : devices) {
    const run_flags g = for_board(f, d, host);
    for (const auto* p : {&g.json_path, &g.csv_path, &g.markdown_path, &g.report_path, &g.journal_path})
      outs.push_back(*p);
  }
  prepare_outputs(outs);
}

void announce_board_exit(const board_process& b) {
  std::cerr << fmt::format("memscope: GPU {} finished after {:.1f} s ({})\n", b.device, b.seconds,
                           b.killed            ? "killed by " + signal_name(b.exit_code - 128)
                           : b.exit_code > 128 ? "stopped by " + signal_name(b.exit_code - 128) + ", its rows written"
                                               : fmt::format("exit {}", b.exit_code));
}

std::string read_whole(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

/// --concurrent: one process per board, all at once; then each board's output in board order
/// and the per-board table from their results files.
int do_run_concurrent(const run_flags& f, const board_plan& b, bool verify_only) {
  if (b.rank.found())
    throw usage_error("--concurrent: under " + b.rank.launcher +
                      " every rank already runs at the same time as the others; "
                      "give each rank one GPU instead");
  const std::string host = host_name();
  prepare_board_outputs(f, b.devices, host);
  // The board processes' printed output, and their results files where the user named none.
  std::string dir = (std::filesystem::temp_directory_path() / "memscope-concurrent-XXXXXX").string();
  if (mkdtemp(dir.data()) == nullptr)
    throw io_error("--concurrent: cannot create a temporary directory: " + std::string(std::strerror(errno)));
  struct cleanup {
    std::string dir;
    ~cleanup() {
      std::error_code ec;
      std::filesystem::remove_all(dir, ec);
    }
  } remove_dir{dir};
  const std::string json = f.json_path.empty() ? dir + "/run.json" : std::string();
  if (!f.quiet)
    std::cerr << fmt::format("memscope: {} on GPU{} {} at once (--concurrent), one process each\n",
                             verify_only ? "verify" : "run", b.devices.size() == 1 ? "" : "s",
                             fmt::join(b.devices, ","));
  const auto procs = run_boards_at_once(given_args(), b.devices, json, dir, f.quiet ? nullptr : announce_board_exit);
  int worst = exit_ok;
  std::vector<results_doc> docs;
  for (const auto& p : procs) {
    std::cout << fmt::format("\n== GPU {} ==\n", p.device) << read_whole(p.stdout_path);
    std::cerr << read_whole(p.stderr_path);
    worst = std::max(worst, p.killed ? static_cast<int>(exit_runtime) : p.exit_code);  // a stopped board: 128 + N
    const std::string path = per_board_path(json.empty() ? f.json_path : json, host, p.device);
    // A board stopped on request wrote what it measured; one killed may have left nothing.
    const bool wrote = p.exit_code <= exit_check_failed || (p.exit_code > 128 && !p.killed);
    if (wrote && std::filesystem::exists(path)) docs.push_back(load_current(path));
  }
  std::cout.flush();
  if (docs.size() > 1 && !verify_only) {
    std::cout << "\nmeasured at the same time:\n";
    for (const auto& line : report::fleet_table(docs, builtin_registry())) std::cout << line << '\n';
  }
  return worst;
}

int do_run(const run_flags& given, bool verify_only, const std::string& command) {
  run_flags f = given;
  // `memscope run` with no suite named draws the map; verify keeps its default suites.
  if (!verify_only && f.patterns.empty()) f.map = true;
  if (f.map && !f.axes.empty())
    throw usage_error("the map measures the points it chose: --axis goes with a suite (memscope run SUITE --axis ...)");
  const bool board_process = concurrent_board() >= 0;
  if (board_process) {
    // A board process: the parent shows the progress, and reads the results from where it said.
    f.quiet = true;
    if (const char* json = std::getenv(concurrent_json_variable); json && f.json_path.empty()) f.json_path = json;
  }
  // Bad --device input is a usage error before anything runs; so are bad patterns and axes,
  // checked here once for every board.
  (void)plan_run(builtin_registry(), request_from(f, verify_only, command));
  const board_plan b = plan_boards(f);
  if (f.concurrent && !board_process) return do_run_concurrent(f, b, verify_only);
  if (!b.per_board_names) {
    run_flags g = f;
    g.device = b.devices.front();
    return do_run_board(g, verify_only, command, nullptr);
  }
  const std::string host = host_name();
  if (b.rank.found() && !f.quiet)
    std::cerr << fmt::format("memscope: {} rank {} (local rank {}) of {} on {}: GPU {}\n", b.rank.launcher, b.rank.rank,
                             b.rank.local_rank, b.rank.size, host, b.devices.front());
  prepare_board_outputs(f, b.devices, host);
  int worst = exit_ok;
  std::vector<results_doc> docs;
  for (int d : b.devices) {
    const run_flags g = for_board(f, d, host);
    if (b.devices.size() > 1) std::cout << fmt::format("\n== GPU {} ==\n", d);
    results_doc doc;
    const int rc = do_run_board(g, verify_only, command, &doc);
    worst = std::max(worst, rc);
    const bool stopped = !doc.incomplete.empty();
    docs.push_back(std::move(doc));
    if (stopped) break;  // the context is lost: later boards would not run in this process
  }
  if (docs.size() > 1 && !verify_only) {
    std::cout << '\n';
    for (const auto& line : report::fleet_table(docs, builtin_registry())) std::cout << line << '\n';
  }
  return worst;
}

int do_resume(const run_flags& given, const std::string& command) {
  const std::string path = given.resume_path;
  if (!given.patterns.empty() || !given.axes.empty() || given.quick || !given.cold.empty() ||
      !given.json_path.empty() || !given.csv_path.empty() || !given.markdown_path.empty() ||
      !given.report_path.empty() || !given.journal_path.empty() || given.min_samples || given.max_samples ||
      given.min_time || given.max_noise_pct || given.timeout || given.throttle_threshold || given.run_once ||
      given.resample_throttled || given.concurrent)
    throw usage_error(
        "--resume continues a run with the settings its journal recorded: give it alone (with --quiet if wanted)");
  journal_contents jc;
  try {
    jc = read_journal(path);
  } catch (const journal_error& e) {
    throw usage_error(e.what());
  }
  if (jc.tool_version != tool_version || jc.commit != git_commit)
    throw usage_error("journal '" + path + "' was written by memscope " + jc.tool_version + " (commit " + jc.commit +
                      "); this is " + tool_version + " (commit " + git_commit +
                      "): resume with the memscope that started the run");
  run_flags f;
  f.patterns = jc.args.patterns;
  f.axes = jc.args.axes;
  f.quick = jc.args.quick;
  f.cold = jc.args.cold == cold_mode::off ? "" : to_string(jc.args.cold);
  f.device = jc.args.device;
  f.devices = std::to_string(jc.args.device);
  f.json_path = jc.args.json_path;
  f.csv_path = jc.args.csv_path;
  f.markdown_path = jc.args.markdown_path;
  f.report_path = jc.args.report_path;
  f.quiet = given.quiet;
  f.map = jc.args.map;
  run_request req = request_from(f, jc.args.verify, command);  // this process's rows say how they were run
  req.timing = jc.args.timing;
  // A map's points follow the GPU: planned on the board that resumes it (same model, checked below).
  const auto plan = f.map ? plan_map(builtin_registry(), jc.device) : plan_run(builtin_registry(), req);

  // Every journal row must be a point of the run its header describes.
  std::set<std::string> planned;
  for (const auto& p : plan) planned.insert(planned_key(p));
  std::vector<std::string> done;
  for (const auto& seg : jc.segments)
    for (const auto& r : seg.rows) {
      if (!planned.count(row_key(r)))
        throw usage_error("journal '" + path + "' holds " + r.id() + " " + r.axes_label +
                          ", which is not a point of the run its header describes (a foreign or edited journal)");
      done.push_back(row_key(r));
    }
  prepare_outputs({f.json_path, f.csv_path, f.markdown_path, f.report_path}, {path});

  const device_info dev = query_device_info(f.device);
  if (!same_model(dev, jc.device))
    throw usage_error("journal '" + path + "' was measured on " + jc.device.name + "; GPU " + std::to_string(f.device) +
                      " is " + dev.name + ": resume on the same GPU model");
  require_code_for_device(dev);
  check_footprints(plan, dev);
  std::cerr << fmt::format("memscope: resuming {}: {} of {} points done in {} process{}\n", path, done.size(),
                           plan.size(), jc.segments.size(), jc.segments.size() == 1 ? "" : "es");
  announce(jc.args.verify ? "verify" : "run", dev, plan.size() - done.size(), req.timing, jc.args.verify, f.quiet);

  auto writer = std::make_unique<journal_writer>(path);
  progress_printer progress(progress_printer::style_for(stderr, f.quiet), plan.size() - done.size());
  run_hooks hooks = journal_hooks(writer, progress);
  hooks.done = &done;
  const results_doc fresh = execute_plan(plan, req, dev, hooks);
  progress.done();
  writer.reset();

  // The whole run: every process's rows, each process one source of the document.
  results_doc header = new_results_doc(req, dev);
  results_doc doc = journal_document(read_journal(path), header);
  doc.timing = req.timing;
  doc.telemetry_note = fresh.telemetry_note;
  doc.incomplete = fresh.incomplete;
  apply_baselines(builtin_registry(), doc);
  return finish_run(doc, f, path);
}

/// A results file read and brought up to the current format by its suites.
results_doc load_current(const std::string& path) {
  auto doc = load_results(path);
  upgrade(doc, builtin_registry());
  return doc;
}

/// The name of GPU 0 where one answers; "" on a machine without a GPU or a driver. Asks
/// nothing that creates a context beyond the runtime's own start.
std::string local_gpu_name() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count < 1) {
    (void)cudaGetLastError();
    return {};
  }
  cudaDeviceProp p{};
  if (cudaGetDeviceProperties(&p, 0) != cudaSuccess) {
    (void)cudaGetLastError();
    return {};
  }
  return p.name;
}

/// The bundled profile measured on this machine's GPU model, else the default (the first).
std::size_t bundled_choice() {
  static const std::size_t index = bundled_index_for(local_gpu_name());
  return index;
}

std::string bundled_name() { return std::string(bundled_profile_source(bundled_choice())) + " (bundled)"; }

std::optional<results_doc> bundled_current() {
  auto doc = bundled_profile(bundled_choice());
  if (doc) upgrade(*doc, builtin_registry());
  return doc;
}

/// Every board in the given files: each file split into its boards (a fleet document holds
/// several), then each board's runs merged, boards in the order they first appear.
std::vector<results_doc> boards_in(const std::vector<std::string>& files) {
  std::vector<std::string> keys;
  std::vector<std::vector<results_doc>> parts;
  std::vector<std::vector<std::string>> names;
  for (const auto& p : files)
    for (auto& b : split_boards(load_current(p))) {
      // Boards of one report must be comparable, as merge's runs must.
      if (!parts.empty())
        if (const auto why = joining_problem(parts.front().front(), names.front().front(), b, p, "drawn as one report");
            !why.empty())
          throw results_error(why);
      const auto key = board_key(b.host, b.device);
      auto at = std::find(keys.begin(), keys.end(), key);
      if (at == keys.end()) {
        keys.push_back(key);
        parts.emplace_back();
        names.emplace_back();
        at = keys.end() - 1;
      }
      const auto k = static_cast<std::size_t>(at - keys.begin());
      parts[k].push_back(std::move(b));
      names[k].push_back(p);
    }
  std::vector<results_doc> boards;
  for (std::size_t k = 0; k < parts.size(); ++k) {
    merge_options opt;
    opt.names = names[k];
    boards.push_back(parts[k].size() == 1 ? std::move(parts[k].front()) : merge(parts[k], opt));
  }
  return boards;
}

/// The given results files merged, or the bundled reference profile when none is given. Files
/// of several boards give the first board's document, and say so.
results_doc load_docs(const std::vector<std::string>& paths) {
  if (paths.empty()) {
    if (auto p = bundled_current()) return *p;
    throw usage_error("no results file given and no reference profile is bundled in this build");
  }
  std::vector<results_doc> docs;
  for (const auto& p : paths) docs.push_back(load_current(p));
  results_doc doc = merge(docs);
  if (!doc.fleet) return doc;
  auto boards = split_boards(doc);
  std::cerr << "memscope: the results hold " << boards.size() << " boards; using the first, "
            << report::board_name(boards.front()) << " (memscope report draws the table of every board)\n";
  return std::move(boards.front());
}

int do_report(const std::vector<std::string>& files, const std::string& html, const std::string& md) {
  if (html.empty() && md.empty())
    throw usage_error("report: say where to write it: -o report.html and/or --markdown report.md");
  prepare_outputs({html, md}, files);
  const auto boards = files.empty() ? std::vector<results_doc>{} : boards_in(files);
  if (boards.size() > 1) {
    // The fleet: each board's runs merged on their own, then compared board by board. The
    // HTML report draws the first board; the table covers them all.
    const auto table = report::fleet_table(boards, builtin_registry());
    for (const auto& line : table) std::cout << line << '\n';
    output_batch out;
    out.add(html, [&](std::ostream& o) { o << report::render_html(boards.front(), builtin_registry()); });
    out.add(md, [&](std::ostream& o) {
      write_markdown(boards.front(), o, finding_lines(boards.front()));
      o << "\n## Boards\n\n```\n";
      for (const auto& line : table) o << line << '\n';
      o << "```\n";
    });
    out.commit();
    std::cerr << "memscope: report of " << boards.size() << " boards from " << files.size() << " file(s)"
              << (html.empty() ? "" : " -> " + html + " (the first board)") << (md.empty() ? "" : " -> " + md) << '\n';
    return exit_ok;
  }
  const results_doc doc = boards.empty() ? load_docs(files) : boards.front();
  output_batch out;
  out.add(html, [&](std::ostream& o) { o << report::render_html(doc, builtin_registry()); });
  out.add(md, [&](std::ostream& o) { write_markdown(doc, o, finding_lines(doc)); });
  out.commit();
  std::cerr << "memscope: report of " << doc.results.size() << " rows from "
            << (files.empty() ? bundled_name() : std::to_string(files.size()) + " file(s)")
            << (html.empty() ? "" : " -> " + html) << (md.empty() ? "" : " -> " + md) << '\n';
  if (!doc.incomplete.empty()) std::cerr << "memscope: the run is incomplete: " << doc.incomplete << '\n';
  if (const auto n = boards_named(doc); n > 1)
    std::cerr << "memscope: its rows were measured on " << n
              << " boards of one model (runs merged with --replace, or a run resumed on another board); each row's run "
                 "names its "
                 "board\n";
  return exit_ok;
}

/// `memscope map --from FILE`: the map of rows already measured (no GPU needed).
int do_map_from(const std::string& file, const std::string& levels, const std::string& html) {
  const auto inputs = file == "bundled" ? std::vector<std::string>{} : std::vector<std::string>{file};
  prepare_outputs({levels, html}, inputs);
  const results_doc doc = load_docs(inputs);
  output_batch out;
  print_map(doc, levels, out);
  out.add(html, [&](std::ostream& o) { o << report::render_html(doc, builtin_registry()); });
  out.commit();
  std::cerr << "memscope: map of " << doc.results.size() << " rows from " << (file == "bundled" ? bundled_name() : file)
            << '\n';
  return exit_ok;
}

int do_merge(const std::vector<std::string>& files, const std::string& out, bool replace, bool replicates) {
  if (files.size() < 2) throw usage_error("merge: give at least two results files");
  if (out.empty()) throw usage_error("merge: say where to write the merged document: -o merged.json");
  prepare_outputs({out}, files);
  for (std::size_t i = 0; i < files.size(); ++i)
    for (std::size_t k = 0; k < i; ++k)
      if (same_file(files[i], files[k])) throw usage_error("merge: '" + files[i] + "' is given twice");
  // Every input is held at once: their text together may not pass what memscope reads back,
  // which the merged document must not either.
  std::uintmax_t total = 0;
  for (const auto& p : files) total += input_text_bytes(p);
  if (total > max_results_bytes)
    throw usage_error(
        fmt::format("merge: the {} files hold {} bytes of results together; memscope reads at most {}: "
                    "merge fewer at a time",
                    files.size(), total, max_results_bytes));
  std::vector<results_doc> docs;
  for (const auto& p : files) docs.push_back(load_current(p));
  merge_options opt;
  opt.replace = replace;
  opt.replicates = replicates;
  opt.names = files;
  std::size_t rows_in = 0;
  for (const auto& d : docs) rows_in += d.results.size();
  results_doc doc = merge(docs, opt);
  // Same-run ratios again: a replaced baseline row takes its ratios with it.
  apply_baselines(builtin_registry(), doc);
  save_results(doc, out);
  std::cerr << "memscope: merged " << files.size() << " files (" << doc.sources.size() << " runs";
  if (doc.fleet) std::cerr << " on " << split_boards(doc).size() << " boards, kept apart";
  std::cerr << "): " << doc.results.size() << " rows, " << (rows_in - doc.results.size())
            << (replicates ? " folded into them as replicates" : " replaced by a later file's") << " -> " << out
            << '\n';
  return exit_ok;
}

int do_compare(const std::string& a_path, const std::string& b_path, double fail_pct, bool fail_set,
               const report::compare_options& opt) {
  if (fail_set && !(std::isfinite(fail_pct) && fail_pct >= 0))
    throw usage_error("--fail-on-regression takes a finite percentage of at least 0");
  const results_doc a = load_current(a_path), b = load_current(b_path);
  for (const auto* d : {&a, &b})
    if (d->fleet)
      throw usage_error("compare: '" + (d == &a ? a_path : b_path) +
                        "' holds several boards (a fleet document): compare one "
                        "board's results (memscope report of the fleet document draws the table of every board)");
  const auto c = report::compare(a, b, builtin_registry(), opt);
  report::print(c, a, b, std::cout);
  if (fail_set) {
    const auto reg = report::regressions(c, fail_pct);
    if (!reg.empty()) {
      std::cout << reg.size() << " regression" << (reg.size() == 1 ? "" : "s") << " beyond " << fail_pct << "%\n";
      return exit_check_failed;
    }
  }
  return exit_ok;
}

int do_advise(const advise_flags& f) {
  advise::query q;
  if (!f.bytes.empty()) {
    std::int64_t b = 0;
    try {
      b = parse_int_value(f.bytes);
    } catch (const usage_error&) {
      throw usage_error("--bytes: '" + f.bytes + "' is not a size in bytes (use e.g. 1000, 64K, 16M, 2^20)");
    }
    if (b < 1) throw usage_error("--bytes must be at least 1, not " + f.bytes);
    q.bytes = static_cast<std::uint64_t>(b);
  }
  if (f.read_only && f.written) throw usage_error("--read-only and --written contradict each other");
  q.mut = f.read_only ? advise::mutability::read_only
          : f.written ? advise::mutability::written
                      : advise::mutability::unknown;
  if (!f.access.empty()) q.access = advise::parse_access(f.access);
  if (!f.sharing.empty()) q.share = advise::parse_sharing(f.sharing);
  q.temporary = f.temporary;
  if (!f.from_host.empty()) q.origin = advise::parse_origin(f.from_host);
  q.larger_than_gpu = f.larger_than_gpu;
  q.gpus = f.gpus;
  if (!f.contention.empty()) {
    if (f.contention == "low") q.threads_per_address = 1;
    else if (f.contention == "high") q.threads_per_address = std::numeric_limits<std::uint32_t>::max();
    else {
      std::int64_t n = 0;
      try {
        n = parse_int_value(f.contention);
      } catch (const usage_error&) {
        n = 0;
      }
      if (n < 1)
        throw usage_error("--contention takes low, high or a number of threads per address, not '" + f.contention +
                          "'");
      q.threads_per_address = static_cast<std::uint64_t>(n);
    }
    if (!(q.mut == advise::mutability::written && q.share == advise::sharing::grid))
      throw usage_error("--contention describes data written by the whole grid: give it with --written --sharing grid");
  }
  std::optional<results_doc> profile;
  std::string source;
  if (!f.results.empty()) {
    profile = load_docs({f.results});  // a fleet document: its first board, said on stderr
    source = f.results;
  } else if ((profile = bundled_current())) {
    source = bundled_name();
  }
  const auto print = [&](const advise::answer& a) {
    std::cout << "use:        " << a.memory << "\n"
              << "how:        " << a.technique << "\n"
              << "why:        " << a.reason << "\n";
    for (const auto& e : a.evidence) std::cout << "measured:   " << e << "\n";
    std::cout << "see:        include/" << a.header << "\n";
    if (!a.measure.empty())
      std::cout << "measure:    memscope run " << a.measure << "   (every figure above, on your GPU)\n";
    std::cout << "branch:     " << a.branch << (source.empty() ? "" : "   (figures: " + source + ")") << "\n";
  };
  // The host side (where the data starts) first, then the kernel side, as a program meets them.
  if (q.asks_host_side()) {
    const auto host = advise::advise_host(q, profile ? &*profile : nullptr, builtin_registry());
    if (!q.asks_kernel_side()) {
      print(host);
      return exit_ok;
    }
    const auto kernel = advise::advise(q, profile ? &*profile : nullptr, builtin_registry());
    std::cout << "-- before the kernel\n";
    print(host);
    std::cout << "-- in the kernel\n";
    print(kernel);
    return exit_ok;
  }
  print(advise::advise(q, profile ? &*profile : nullptr, builtin_registry()));
  return exit_ok;
}

void add_pattern_and_device(CLI::App* cmd, run_flags& f) {
  cmd->add_option(
      "patterns", f.patterns,
      "suites or suite/case globs (run with none: the one-minute map; verify with none: the default suites)");
  cmd->add_option("--device,-d", f.devices,
                  "GPUs to measure, one after another: N, N,M,... or all (default 0; under srun/mpirun the rank's "
                  "local GPU); with several, each board's outputs get .HOST.gpuN in their names");
  cmd->add_flag("--concurrent", f.concurrent,
                "measure the --device GPUs at the same time, one process each (shared links show their contention); "
                "each board's outputs get .HOST.gpuN in their names");
}

/// The journal is appended to point by point while the run goes, which a gzip stream cannot be.
const CLI::Validator plain_journal(
    [](std::string& path) {
      return names_gzip(path) ? std::string(
                                    "the journal is appended to point by point, so it is never compressed: "
                                    "name it without .gz")
                              : std::string();
    },
    "");

}  // namespace

int run_cli(int argc, char** argv) {
  given_args().assign(argv + 1, argv + argc);
  CLI::App app{"memscope: measure, demonstrate and explain the CUDA memory hierarchy on this GPU"};
  app.set_version_flag("--version", std::string("memscope ") + tool_version + " (commit " + git_commit + ")");
  app.require_subcommand(1);
  app.failure_message([](const CLI::App*, const CLI::Error& e) {
    return "memscope: error: " + terminal_safe(e.what()) + " (memscope --help shows the usage)\n";
  });

  int info_device = 0;
  bool info_json = false;
  auto* info = app.add_subcommand("info", "describe the GPU (memory sizes, caches, clusters, versions)");
  info->add_option("--device,-d", info_device, "CUDA device ordinal")->check(CLI::Range(0, 1023));
  info->add_flag("--json", info_json, "print JSON instead of text");

  std::vector<std::string> list_patterns;
  auto* list = app.add_subcommand("list", "list suites, cases and their axes (needs no GPU)");
  list->add_option("patterns", list_patterns, "suites or suite/case globs");
  bool list_facts_flag = false;
  list->add_flag("--facts", list_facts_flag, "list the advice facts these cases measure, not the cases");

  run_flags rf;
  auto* run = app.add_subcommand("run", "verify and time cases; prints a table, optionally writes JSON/CSV/Markdown");
  add_pattern_and_device(run, rf);
  run->add_option("--axis,-a", rf.axes,
                  "NAME=V1,V2: replace an axis' values (e.g. bytes=2^28,1G); repeat for more axes")
      ->allow_extra_args(false);
  run->add_flag("--quick", rf.quick, "fewer sizes and samples");
  run->add_flag("--cold{clean}", rf.cold,
                "flush the L2 before every sample: --cold (or --cold=clean) evicts it by reads, leaving no dirty line; "
                "--cold=dirty leaves it full of another buffer's dirty lines, as after a producer kernel");
  run->add_option("--json", rf.json_path,
                  "write the results document (docs/results-format.md; FILE.gz: gzip-compressed)");
  run->add_option("--csv", rf.csv_path, "write one CSV row per case point");
  run->add_option("--markdown", rf.markdown_path, "write a Markdown table");
  run->add_option("--report", rf.report_path, "write the HTML report of this run");
  run->add_option("--min-samples", rf.min_samples,
                  "stopping rule: at least N samples per point (default 10; --quick 5)");
  run->add_option("--max-samples", rf.max_samples,
                  "stopping rule: at most N samples per point (default 1000; --quick 200)");
  run->add_option("--min-time", rf.min_time,
                  "stopping rule: at least S seconds of measured GPU time per point (default 0.01)");
  run->add_option(
      "--max-noise", rf.max_noise_pct,
      "stopping rule: converged once the relative standard error of the mean is at most PCT percent (default 0.5)");
  run->add_option("--timeout", rf.timeout,
                  "stopping rule: stop a point unconverged after S seconds (default 0.5; --quick 0.1)");
  run->add_option("--throttle-threshold", rf.throttle_threshold,
                  "a sample whose SM clock is below this fraction of the peak is throttled (default 0.75)");
  run->add_flag("--resample-throttled", rf.resample_throttled, "drop throttled samples and take them again");
  run->add_flag("--run-once", rf.run_once, "for profilers: one launch per point, no warm-up, no batching");
  run->add_flag("--quiet,-q", rf.quiet, "no progress on stderr");
  run->add_option("--journal", rf.journal_path,
                  "append each finished point to this file (default: beside the first output, FILE.journal)")
      ->check(plain_journal);
  run->add_option("--resume", rf.resume_path, "finish the run this journal recorded, in this process");
  run->add_option("--levels", rf.levels_path,
                  "with no suite named (the map): write its levels as JSON, each figure with the row it came from");

  run_flags mf;
  std::string map_from;
  auto* map = app.add_subcommand(
      "map",
      "the memory hierarchy in about a minute: each level's capacity, latency and read bandwidth, and who "
      "shares it (what `memscope run` does with no suite named)");
  map->add_option("--device,-d", mf.devices, "the GPU to map (default 0); N,M,... or all: one after another");
  map->add_option("--json", mf.json_path, "write the results document of the map's points (FILE.gz: gzip-compressed)");
  map->add_option("--report", mf.report_path, "write the HTML report: the hierarchy drawn to scale, then each chart");
  map->add_option("--levels", mf.levels_path, "write the levels as JSON, each figure with the row it came from");
  map->add_option("--journal", mf.journal_path, "append each finished point to this file (default: beside --json)")
      ->check(plain_journal);
  map->add_flag("--quiet,-q", mf.quiet, "no progress on stderr");
  map->add_option("--from", map_from,
                  "draw the map of a results file instead of measuring (no GPU needed); 'bundled': the reference "
                  "profile built in");

  std::vector<std::string> report_files;
  std::string report_html, report_md;
  auto* rep =
      app.add_subcommand("report", "turn results files (or the bundled profile of this GPU model) into one HTML page");
  rep->add_option("results", report_files,
                  "results JSON files, plain or gzip-compressed (default: the bundled profile of this GPU model, else "
                  "the H200's); several boards' files "
                  "or a fleet document add the per-board table");
  rep->add_option("-o,--output", report_html, "HTML file to write");
  rep->add_option("--markdown", report_md, "Markdown summary to write");

  std::vector<std::string> merge_files;
  std::string merge_out;
  bool merge_replace = false, merge_replicates = false;
  auto* mrg = app.add_subcommand("merge",
                                 "join results files from one GPU model into one document (runs listed in its sources; "
                                 "several boards' runs of the same points stay apart, as a fleet document)");
  mrg->add_option("results", merge_files, "results JSON files (plain or gzip-compressed), earliest first")->required();
  mrg->add_option("-o,--output", merge_out, "merged results JSON to write (FILE.gz: gzip-compressed)")->required();
  mrg->add_flag("--replace", merge_replace, "a row in several files: keep the latest file's (otherwise an error)");
  mrg->add_flag("--replicates", merge_replicates,
                "the files are runs of one build on one board, each its own process: a row in several becomes one "
                "row listing each run's median, which compare judges differences against");

  std::string cmp_a, cmp_b;
  double fail_pct = 0;
  auto* cmp = app.add_subcommand("compare", "compare two results files case by case");
  cmp->add_option("a", cmp_a, "baseline results JSON (plain or gzip-compressed)")->required();
  cmp->add_option("b", cmp_b, "new results JSON (plain or gzip-compressed)")->required();
  auto* fail_opt =
      cmp->add_option("--fail-on-regression", fail_pct, "exit 1 when a case is slower by more than PCT percent")
          ->check(CLI::Range(0.0, 1e6));
  report::compare_options cmp_opt;
  double min_effect_pct = 100 * cmp_opt.min_effect;
  cmp->add_option("--min-effect", min_effect_pct,
                  "the least difference of medians that can be a verdict, in percent (default 3)")
      ->check(CLI::Range(0.0, 1e6));
  // A validator of its own: CLI::Range prints its bounds with six decimals, so a lower bound just
  // above 0 read "0.000000" and "Value 0 not in range 0.000000 to 0.5" contradicted itself.
  const CLI::Validator probability(
      [](const std::string& text) -> std::string {
        constexpr double max = report::compare_options::max_alpha;
        double p = 0;
        std::size_t used = 0;
        try {
          p = std::stod(text, &used);
        } catch (const std::exception&) {
          used = 0;
        }
        if (used == 0 || used != text.size())
          return fmt::format("must be a number above 0 and at most {}, not '{}'", max, text);
        if (!(p > 0 && p <= max)) return fmt::format("must be above 0 and at most {}, not {}", max, text);
        return "";
      },
      fmt::format("in (0, {}]", report::compare_options::max_alpha));
  cmp->add_option("--alpha", cmp_opt.alpha, "the rank test's significance level (default 0.001)")->check(probability);
  double process_shift_us = 1e6 * cmp_opt.process_shift_s;
  cmp->add_option("--process-shift", process_shift_us,
                  "how far a new process may shift one launch, in microseconds (default 1; 0: no floor): a "
                  "verdict on a launch of t us needs an effect of at least this / t")
      ->check(CLI::Range(0.0, 1e6));
  cmp->add_option("--ignore-axis", cmp_opt.ignore_axes,
                  "match rows that differ only in this axis (a tile size, selftest/planted's planted_pct); repeat "
                  "for more");

  advise_flags af;
  auto* adv = app.add_subcommand("advise", "which memory for my data? the seeds' decision tree with measured figures");
  adv->add_option("--bytes", af.bytes, "size of the data (1000, 64K, 16M, 2^20...)");
  adv->add_flag("--read-only", af.read_only, "kernels only read it");
  adv->add_flag("--written", af.written, "kernels write it");
  adv->add_option("--access", af.access, "how a warp reads it: uniform (one address), coalesced, irregular");
  adv->add_option("--sharing", af.sharing, "who shares it: thread, block, grid (across blocks)");
  adv->add_flag("--temporary", af.temporary, "short-lived per-thread values, written often");
  adv->add_option("--contention", af.contention,
                  "with --sharing grid: how many threads update one address at a time: low, high or a number");
  adv->add_option("--from-host", af.from_host,
                  "the host produces the data: once, or every-iteration (a transfer each time)");
  adv->add_flag("--larger-than-gpu", af.larger_than_gpu, "the data does not fit the GPU's memory");
  adv->add_option("--gpus", af.gpus, "how many GPUs share the data")->check(CLI::Range(1, 1 << 20));
  adv->add_option("--results", af.results, "figures from this results file (default: the bundled profile)");

  counters_flags cf;
  auto* counters_cmd = add_counters_command(app, cf);

  run_flags vf;
  auto* verify =
      app.add_subcommand("verify", "correctness only, on small and awkward sizes; ends with 'N passed, N failed'");
  add_pattern_and_device(verify, vf);
  verify->add_option("--axis,-a", vf.axes, "NAME=V1,V2: replace an axis' values; repeat for more axes")
      ->allow_extra_args(false);
  verify->add_option("--json", vf.json_path, "write the results document (FILE.gz: gzip-compressed)");
  verify->add_flag("--quiet,-q", vf.quiet, "no progress on stderr");
  verify->add_option("--journal", vf.journal_path, "append each finished point to this file (default: beside --json)")
      ->check(plain_journal);

  const auto subs = app.get_subcommands([](const CLI::App*) { return true; });
  const bool known =
      argc > 1 && std::any_of(subs.begin(), subs.end(), [&](const CLI::App* a) { return a->get_name() == argv[1]; });
  if (argc > 1 && argv[1][0] == '-' && std::string(argv[1]) != "--help" && std::string(argv[1]) != "-h" &&
      std::string(argv[1]) != "--version") {
    std::cerr
        << "memscope: error: unknown option '" << terminal_safe(argv[1])
        << "' (options go after a command: memscope COMMAND --help; commands: info, map, list, run, verify, report, "
           "merge, compare, advise, counters)\n";
    return exit_usage;
  }
  if (argc > 1 && argv[1][0] != '-' && !known) {
    std::cerr << "memscope: error: unknown command '" << argv[1]
              << "' (commands: info, map, list, run, verify, report, merge, compare, advise, counters)\n";
    return exit_usage;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? exit_ok : exit_usage;
  }

  const std::string command = join_args(argc, argv);
  try {
    if (*info) return do_info(info_device, info_json);
    if (*list) return do_list(list_patterns, list_facts_flag);
    if (*map) {
      if (!map_from.empty()) {
        if (!mf.json_path.empty() || !mf.journal_path.empty() || !mf.devices.empty())
          throw usage_error("map --from draws rows already measured: --json, --journal and --device measure");
        return do_map_from(map_from, mf.levels_path, mf.report_path);
      }
      const stop_on_signals stop_cleanly;
      mf.map = true;
      return do_run(mf, false, command);
    }
    if (*run || *verify) {
      // Ctrl-C, `kill`, `timeout` and a Slurm time limit stop the run between samples; its
      // rows are written, not lost (harness/stop_signal.hpp).
      const stop_on_signals stop_cleanly;
      if (*verify) return do_run(vf, true, command);
      return rf.resume_path.empty() ? do_run(rf, false, command) : do_resume(rf, command);
    }
    if (*rep) return do_report(report_files, report_html, report_md);
    if (*mrg) return do_merge(merge_files, merge_out, merge_replace, merge_replicates);
    if (*cmp) {
      cmp_opt.min_effect = min_effect_pct / 100;
      cmp_opt.process_shift_s = process_shift_us / 1e6;
      return do_compare(cmp_a, cmp_b, fail_pct, fail_opt->count() > 0, cmp_opt);
    }
    if (*adv) return do_advise(af);
    if (*counters_cmd) {
      cf.list = counters_cmd->count("--list") > 0;
      return do_counters(cf);
    }
  } catch (const results_error& e) {
    std::cerr << "memscope: error: " << terminal_safe(e.what()) << '\n';
    return exit_usage;
  } catch (const usage_error& e) {
    std::cerr << "memscope: error: " << terminal_safe(e.what()) << '\n';
    return exit_usage;
  } catch (const no_code_error& e) {
    std::cerr << "memscope: error: " << terminal_safe(e.what()) << '\n';
    return exit_no_device;
  } catch (const no_device_error& e) {
    std::cerr << "memscope: error: " << terminal_safe(e.what()) << "; `memscope list` and `--help` work without a GPU"
              << (!bundled_profile_gz().empty()
                      ? std::string(", and so do `memscope report -o report.html` and `memscope advise`, "
                                    "from an H200 profile built in (") +
                            bundled_profile_source() + ")"
                      : std::string())
              << "\n";
    return exit_no_device;
  } catch (const std::exception& e) {
    std::cerr << "memscope: error: " << terminal_safe(e.what()) << '\n';
    return exit_runtime;
  }
  return exit_usage;
}

}  // namespace memscope
