#include "cli/cli.hpp"

#include "core/device_query.hpp"
#include "harness/output_file.hpp"
#include "harness/registry.hpp"
#include "harness/results.hpp"
#include "harness/runner.hpp"
#include "harness/text_output.hpp"
#include "advise/advisor.hpp"
#include "report/bundled_profile.hpp"
#include "report/compare.hpp"
#include "report/findings.hpp"
#include "report/html_report.hpp"
#include "memscope/core/cuda_check.hpp"
#include "memscope/version.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <unistd.h>

#include <algorithm>
#include <limits>
#include <cmath>
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
  std::string json_path, csv_path, markdown_path, report_path;
};

struct advise_flags {
  std::string bytes, access, sharing, results, contention;
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

template <class Writer>
void write_file(const std::string& path, Writer&& w) {
  if (!path.empty()) write_output(path, w);
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
  // What this binary brings to the GPU: the architectures built in, and the one whose code
  // runs here (an older one JIT-compiled, or none).
  const int code = binary_arch();
  if (as_json) {
    auto j = to_json(d);
    j["build"] = {{"cuda_architectures", cuda_architectures}, {"code_arch_here", code}};
    std::cout << j.dump(2) << '\n';
  } else {
    print_device(d, std::cout);
    std::cout << fmt::format("  {:<34} {}\n", "built for CUDA architectures", cuda_architectures);
    std::cout << fmt::format("  {:<34} {}\n", "code that runs on this GPU",
                             code == 0 ? std::string("none: rebuild for this GPU")
                                       : fmt::format("sm_{}{}", code,
                                                     code / 10 != d.cc_major || code % 10 != d.cc_minor ? " (JIT-compiled from PTX)" : ""));
  }
  return exit_ok;
}

int do_list(const std::vector<std::string>& patterns) {
  const auto& reg = builtin_registry();
  const auto cases = reg.select(patterns);
  const auto defaults = default_suites();
  std::cout << "memscope " << tool_version << ", built for CUDA architectures " << cuda_architectures << '\n';
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

  // Bad input, and outputs that cannot be written, fail before the GPU is touched.
  check_outputs({f.json_path, f.csv_path, f.markdown_path, f.report_path});
  const auto plan = plan_run(builtin_registry(), req);
  const device_info dev = query_device_info(f.device);
  require_code_for_device(dev);  // before the copy ceiling: not one case may run without code
  check_footprints(plan, dev);
  std::cerr << fmt::format("memscope {}: {} on {} (sm_{}{}), {} case point{}\n", tool_version,
                           verify_only ? "verify" : "run", dev.name, dev.cc_major, dev.cc_minor, plan.size(),
                           plan.size() == 1 ? "" : "s");
  const results_doc doc = execute_plan(plan, req, dev, terminal_progress());
  clear_progress();

  print_table(doc, std::cout);
  const auto found = finding_lines(doc);
  if (!found.empty()) {
    std::cout << "\nfindings:\n";
    for (const auto& l : found) std::cout << "  " << l << '\n';
  }
  if (!f.json_path.empty()) save_results(doc, f.json_path);
  write_file(f.report_path, [&](std::ostream& o) { o << report::render_html(doc, builtin_registry()); });
  write_file(f.csv_path, [&](std::ostream& o) { write_csv(doc, o); });
  write_file(f.markdown_path, [&](std::ostream& o) { write_markdown(doc, o, found); });
  std::cout << summary_line(doc) << std::endl;
  return all_passed(doc) ? exit_ok : exit_check_failed;
}

/// A results file read and brought up to the current format by its suites.
results_doc load_current(const std::string& path) {
  auto doc = load_results(path);
  upgrade(doc, builtin_registry());
  return doc;
}

std::optional<results_doc> bundled_current() {
  auto doc = bundled_profile();
  if (doc) upgrade(*doc, builtin_registry());
  return doc;
}

/// The given results files merged, or the bundled H200 profile when none is given.
results_doc load_docs(const std::vector<std::string>& paths) {
  if (paths.empty()) {
    if (auto p = bundled_current()) return *p;
    throw usage_error("no results file given and no reference profile is bundled in this build");
  }
  std::vector<results_doc> docs;
  for (const auto& p : paths) docs.push_back(load_current(p));
  return merge(docs);
}

int do_report(const std::vector<std::string>& files, const std::string& html, const std::string& md) {
  if (html.empty() && md.empty()) throw usage_error("report: say where to write it: -o report.html and/or --markdown report.md");
  check_outputs({html, md}, files);
  const results_doc doc = load_docs(files);
  write_file(html, [&](std::ostream& o) { o << report::render_html(doc, builtin_registry()); });
  write_file(md, [&](std::ostream& o) { write_markdown(doc, o, finding_lines(doc)); });
  std::cerr << "memscope: report of " << doc.results.size() << " rows from "
            << (files.empty() ? std::string(bundled_profile_source()) + " (bundled)" : std::to_string(files.size()) + " file(s)")
            << (html.empty() ? "" : " -> " + html) << (md.empty() ? "" : " -> " + md) << '\n';
  return exit_ok;
}

int do_merge(const std::vector<std::string>& files, const std::string& out, bool replace) {
  if (files.size() < 2) throw usage_error("merge: give at least two results files");
  if (out.empty()) throw usage_error("merge: say where to write the merged document: -o merged.json");
  check_outputs({out}, files);
  std::vector<results_doc> docs;
  for (const auto& p : files) docs.push_back(load_current(p));
  merge_options opt;
  opt.replace = replace;
  opt.names = files;
  std::size_t rows_in = 0;
  for (const auto& d : docs) rows_in += d.results.size();
  results_doc doc = merge(docs, opt);
  // Same-run ratios again: a replaced baseline row takes its ratios with it.
  apply_baselines(builtin_registry(), doc);
  save_results(doc, out);
  std::cerr << "memscope: merged " << files.size() << " files (" << doc.sources.size() << " runs): " << doc.results.size()
            << " rows, " << (rows_in - doc.results.size()) << " replaced by a later file's -> " << out << '\n';
  return exit_ok;
}

int do_compare(const std::string& a_path, const std::string& b_path, double fail_pct, bool fail_set) {
  if (fail_set && !(std::isfinite(fail_pct) && fail_pct >= 0))
    throw usage_error("--fail-on-regression takes a finite percentage of at least 0");
  const results_doc a = load_current(a_path), b = load_current(b_path);
  const auto c = report::compare(a, b);
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
  q.mut = f.read_only ? advise::mutability::read_only : f.written ? advise::mutability::written : advise::mutability::unknown;
  if (!f.access.empty()) q.access = advise::parse_access(f.access);
  if (!f.sharing.empty()) q.share = advise::parse_sharing(f.sharing);
  q.temporary = f.temporary;
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
      if (n < 1) throw usage_error("--contention takes low, high or a number of threads per address, not '" + f.contention + "'");
      q.threads_per_address = static_cast<std::uint64_t>(n);
    }
    if (!(q.mut == advise::mutability::written && q.share == advise::sharing::grid))
      throw usage_error("--contention describes data written by the whole grid: give it with --written --sharing grid");
  }
  std::optional<results_doc> profile;
  std::string source;
  if (!f.results.empty()) {
    profile = load_current(f.results);
    source = f.results;
  } else if ((profile = bundled_current())) {
    source = std::string(bundled_profile_source()) + " (bundled)";
  }
  const auto a = advise::advise(q, profile ? &*profile : nullptr, builtin_registry());
  std::cout << "use:        " << a.memory << "\n"
            << "how:        " << a.technique << "\n"
            << "why:        " << a.reason << "\n";
  for (const auto& e : a.evidence) std::cout << "measured:   " << e << "\n";
  std::cout << "see:        include/" << a.header << ", memscope run " << a.suite << "\n"
            << "branch:     " << a.branch << (source.empty() ? "" : "   (figures: " + source + ")") << "\n";
  return exit_ok;
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
  run->add_option("--axis,-a", rf.axes, "NAME=V1,V2: replace an axis' values (e.g. bytes=2^28,1G); repeat for more axes")
      ->allow_extra_args(false);
  run->add_flag("--quick", rf.quick, "fewer sizes and samples");
  run->add_flag("--cold", rf.cold, "flush the L2 before every sample");
  run->add_option("--json", rf.json_path, "write the results document (docs/results-format.md)");
  run->add_option("--csv", rf.csv_path, "write one CSV row per case point");
  run->add_option("--markdown", rf.markdown_path, "write a Markdown table");
  run->add_option("--report", rf.report_path, "write the HTML report of this run");

  std::vector<std::string> report_files;
  std::string report_html, report_md;
  auto* rep = app.add_subcommand("report", "turn results files (or the bundled H200 profile) into one HTML page");
  rep->add_option("results", report_files, "results JSON files from one GPU (default: the bundled profile)");
  rep->add_option("-o,--output", report_html, "HTML file to write");
  rep->add_option("--markdown", report_md, "Markdown summary to write");

  std::vector<std::string> merge_files;
  std::string merge_out;
  bool merge_replace = false;
  auto* mrg = app.add_subcommand("merge", "join results files from one GPU model into one document (runs listed in its sources)");
  mrg->add_option("results", merge_files, "results JSON files, earliest first")->required();
  mrg->add_option("-o,--output", merge_out, "merged results JSON to write")->required();
  mrg->add_flag("--replace", merge_replace, "a row in several files: keep the latest file's (otherwise an error)");

  std::string cmp_a, cmp_b;
  double fail_pct = 0;
  auto* cmp = app.add_subcommand("compare", "compare two results files case by case");
  cmp->add_option("a", cmp_a, "baseline results JSON")->required();
  cmp->add_option("b", cmp_b, "new results JSON")->required();
  auto* fail_opt = cmp->add_option("--fail-on-regression", fail_pct, "exit 1 when a case is slower by more than PCT percent")
                       ->check(CLI::Range(0.0, 1e6));

  advise_flags af;
  auto* adv = app.add_subcommand("advise", "which memory for my data? the seeds' decision tree with measured figures");
  adv->add_option("--bytes", af.bytes, "size of the data (1000, 64K, 16M, 2^20...)");
  adv->add_flag("--read-only", af.read_only, "kernels only read it");
  adv->add_flag("--written", af.written, "kernels write it");
  adv->add_option("--access", af.access, "how a warp reads it: uniform (one address), coalesced, irregular");
  adv->add_option("--sharing", af.sharing, "who shares it: thread, block, grid (across blocks)");
  adv->add_flag("--temporary", af.temporary, "short-lived per-thread values, written often");
  adv->add_option("--contention", af.contention, "with --sharing grid: how many threads update one address at a time: low, high or a number");
  adv->add_option("--results", af.results, "figures from this results file (default: the bundled profile)");

  run_flags vf;
  auto* verify = app.add_subcommand("verify", "correctness only, on small and awkward sizes; ends with 'N passed, N failed'");
  add_pattern_and_device(verify, vf);
  verify->add_option("--axis,-a", vf.axes, "NAME=V1,V2: replace an axis' values; repeat for more axes")->allow_extra_args(false);
  verify->add_option("--json", vf.json_path, "write the results document");

  const auto subs = app.get_subcommands([](const CLI::App*) { return true; });
  const bool known = argc > 1 && std::any_of(subs.begin(), subs.end(), [&](const CLI::App* a) { return a->get_name() == argv[1]; });
  if (argc > 1 && argv[1][0] == '-' && std::string(argv[1]) != "--help" && std::string(argv[1]) != "-h" &&
      std::string(argv[1]) != "--version") {
    std::cerr << "memscope: error: unknown option '" << terminal_safe(argv[1])
              << "' (options go after a command: memscope COMMAND --help; commands: info, list, run, verify, report, merge, compare, advise)\n";
    return exit_usage;
  }
  if (argc > 1 && argv[1][0] != '-' && !known) {
    std::cerr << "memscope: error: unknown command '" << argv[1]
              << "' (commands: info, list, run, verify, report, merge, compare, advise)\n";
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
    if (*rep) return do_report(report_files, report_html, report_md);
    if (*mrg) return do_merge(merge_files, merge_out, merge_replace);
    if (*cmp) return do_compare(cmp_a, cmp_b, fail_pct, fail_opt->count() > 0);
    if (*adv) return do_advise(af);
  } catch (const results_error& e) {
    std::cerr << "memscope: error: " << e.what() << '\n';
    return exit_usage;
  } catch (const usage_error& e) {
    std::cerr << "memscope: error: " << e.what() << '\n';
    return exit_usage;
  } catch (const no_code_error& e) {
    std::cerr << "memscope: error: " << e.what() << '\n';
    return exit_no_device;
  } catch (const no_device_error& e) {
    std::cerr << "memscope: error: " << e.what() << "; `memscope list` and `--help` work without a GPU"
              << (*bundled_profile_json() ? std::string(", and so do `memscope report -o report.html` and `memscope advise`, "
                                                        "from an H200 profile built in (") + bundled_profile_source() + ")"
                                          : std::string())
              << "\n";
    return exit_no_device;
  } catch (const std::exception& e) {
    std::cerr << "memscope: error: " << e.what() << '\n';
    return exit_runtime;
  }
  return exit_usage;
}

}  // namespace memscope
