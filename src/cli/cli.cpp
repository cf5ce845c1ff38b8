#include "cli/cli.hpp"

#include "core/device_query.hpp"
#include "harness/registry.hpp"
#include "harness/results.hpp"
#include "harness/runner.hpp"
#include "harness/text_output.hpp"
#include "memscope/core/cuda_check.hpp"
#include "memscope/version.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>

namespace memscope {
namespace {

struct run_flags {
  std::vector<std::string> patterns;
  std::vector<std::string> axes;
  bool quick = false, cold = false;
  int device = 0;
  std::string json_path, csv_path, markdown_path;
};

std::string join_args(int argc, char** argv) {
  std::string s = "memscope";
  for (int i = 1; i < argc; ++i) s += std::string(" ") + argv[i];
  return s;
}

template <class Writer>
void write_file(const std::string& path, Writer&& w) {
  if (path.empty()) return;
  std::ofstream out(path);
  if (!out) throw results_error("cannot write '" + path + "'");
  w(out);
}

progress_fn terminal_progress() {
  if (!isatty(fileno(stderr))) return {};
  return [](std::size_t i, std::size_t n, const std::string& id, const std::string& axes) {
    std::fprintf(stderr, "\r\033[K[%zu/%zu] %s %s", i + 1, n, id.c_str(), axes.c_str());
    std::fflush(stderr);
  };
}

void clear_progress() {
  if (isatty(fileno(stderr))) std::fprintf(stderr, "\r\033[K");
}

int do_info(int device, bool as_json) {
  const device_info d = query_device_info(device);
  if (as_json) std::cout << to_json(d).dump(2) << '\n';
  else print_device(d, std::cout);
  return exit_ok;
}

int do_list(const std::vector<std::string>& patterns) {
  const auto& reg = builtin_registry();
  const auto cases = reg.select(patterns);
  const auto defaults = default_suites();
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

int do_run(const run_flags& f, bool verify_only, const std::string& command) {
  run_request req;
  req.patterns = f.patterns;
  for (const auto& a : f.axes) req.overrides.push_back(parse_axis_override(a));
  req.set = f.quick ? axis_set::quick : axis_set::full;
  req.verify_only = verify_only;
  req.cold = f.cold;
  req.device = f.device;
  req.command = command;

  const auto plan = plan_run(builtin_registry(), req);  // bad input fails before the GPU is touched
  const device_info dev = query_device_info(f.device);
  check_footprints(plan, dev);
  std::cerr << fmt::format("memscope {}: {} on {} (sm_{}{}), {} case point{}\n", tool_version,
                           verify_only ? "verify" : "run", dev.name, dev.cc_major, dev.cc_minor, plan.size(),
                           plan.size() == 1 ? "" : "s");
  const results_doc doc = execute_plan(plan, req, dev, terminal_progress());
  clear_progress();

  print_table(doc, std::cout);
  if (!f.json_path.empty()) save_results(doc, f.json_path);
  write_file(f.csv_path, [&](std::ostream& o) { write_csv(doc, o); });
  write_file(f.markdown_path, [&](std::ostream& o) { write_markdown(doc, o); });
  std::cout << summary_line(doc) << std::endl;
  return all_passed(doc) ? exit_ok : exit_check_failed;
}

void add_pattern_and_device(CLI::App* cmd, run_flags& f) {
  cmd->add_option("patterns", f.patterns, "suites or suite/case globs (default: the default suites)");
  cmd->add_option("--device,-d", f.device, "CUDA device ordinal")->check(CLI::Range(0, 1023));
}

}  // namespace

int run_cli(int argc, char** argv) {
  CLI::App app{"memscope: measure, demonstrate and explain the CUDA memory hierarchy on this GPU"};
  app.set_version_flag("--version", std::string("memscope ") + tool_version + " (commit " + git_commit + ")");
  app.require_subcommand(1);
  app.failure_message([](const CLI::App*, const CLI::Error& e) {
    return std::string("memscope: error: ") + e.what() + " (memscope --help shows the usage)\n";
  });

  int info_device = 0;
  bool info_json = false;
  auto* info = app.add_subcommand("info", "describe the GPU (memory sizes, caches, clusters, versions)");
  info->add_option("--device,-d", info_device, "CUDA device ordinal")->check(CLI::Range(0, 1023));
  info->add_flag("--json", info_json, "print JSON instead of text");

  std::vector<std::string> list_patterns;
  auto* list = app.add_subcommand("list", "list suites, cases and their axes (needs no GPU)");
  list->add_option("patterns", list_patterns, "suites or suite/case globs");

  run_flags rf;
  auto* run = app.add_subcommand("run", "verify and time cases; prints a table, optionally writes JSON/CSV/Markdown");
  add_pattern_and_device(run, rf);
  run->add_option("--axis,-a", rf.axes, "NAME=V1,V2: replace an axis' values (e.g. bytes=2^28,1G)");
  run->add_flag("--quick", rf.quick, "fewer sizes and samples");
  run->add_flag("--cold", rf.cold, "flush the L2 before every sample");
  run->add_option("--json", rf.json_path, "write the results document (docs/results-format.md)");
  run->add_option("--csv", rf.csv_path, "write one CSV row per case point");
  run->add_option("--markdown", rf.markdown_path, "write a Markdown table");

  run_flags vf;
  auto* verify = app.add_subcommand("verify", "correctness only, on small and awkward sizes; ends with 'N passed, N failed'");
  add_pattern_and_device(verify, vf);
  verify->add_option("--axis,-a", vf.axes, "NAME=V1,V2: replace an axis' values");
  verify->add_option("--json", vf.json_path, "write the results document");

  const auto subs = app.get_subcommands([](const CLI::App*) { return true; });
  const bool known = argc > 1 && std::any_of(subs.begin(), subs.end(), [&](const CLI::App* a) { return a->get_name() == argv[1]; });
  if (argc > 1 && argv[1][0] != '-' && !known) {
    std::cerr << "memscope: error: unknown command '" << argv[1] << "' (commands: info, list, run, verify)\n";
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
    if (*list) return do_list(list_patterns);
    if (*run) return do_run(rf, false, command);
    if (*verify) return do_run(vf, true, command);
  } catch (const usage_error& e) {
    std::cerr << "memscope: error: " << e.what() << '\n';
    return exit_usage;
  } catch (const no_device_error& e) {
    std::cerr << "memscope: error: " << e.what() << "; `memscope list` and `--help` work without a GPU\n";
    return exit_no_device;
  } catch (const std::exception& e) {
    std::cerr << "memscope: error: " << e.what() << '\n';
    return exit_runtime;
  }
  return exit_usage;
}

}  // namespace memscope
