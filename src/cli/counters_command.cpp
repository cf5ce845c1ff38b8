#include "cli/counters_command.hpp"

#include "cli/cli.hpp"
#include "core/device_query.hpp"
#include "harness/axis.hpp"
#include "harness/counters.hpp"
#include "harness/cupti_library.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iostream>

namespace memscope {

CLI::App* add_counters_command(CLI::App& app, counters_flags& f) {
  auto* c = app.add_subcommand("counters",
                               "the hardware counters memscope reads, checked against a chip by CUPTI (no GPU needed "
                               "with --chip): what each counts, and the replay passes they need");
  c->add_option("--chip", f.chip, "the chip to check against (GH100, GB100, ...; default: GPU --device's)");
  c->add_option("--device,-d", f.device, "the GPU whose chip to use when --chip is not given (default 0)")
      ->check(CLI::Range(0, 1023));
  c->add_option("--metric", f.metrics, "a metric beside the default set, e.g. lts__t_sectors_op_read.sum; repeat")
      ->allow_extra_args(false);
  c->add_option("--list", f.list_prefix, "list the chip's metrics whose names start with PREFIX (all: --list '')")
      ->expected(0, 1);
  c->add_flag("--list-chips", f.list_chips, "list the chips this CUPTI knows");
  c->add_option(cupti::dir_option, f.cupti_dir,
                std::string("the folder holding libcupti.so.13 and libnvperf_host.so (default: ") +
                    cupti::dir_variable + ", the library path, /usr/local/cuda)");
  return c;
}

namespace {

/// The default set and the named metrics on `chip`, with the passes they need together.
std::string describe_set(const counters::chip_metrics& chip, const std::vector<std::string>& extra) {
  std::vector<std::string> chosen, absent;
  std::size_t width = 0;
  for (const auto& c : counters::default_set()) width = std::max(width, std::string(c.metric).size());
  for (const auto& m : extra) width = std::max(width, m.size());
  std::string lines;
  for (const auto& c : counters::default_set()) {
    if (!chip.find(c.metric)) {
      absent.emplace_back(c.metric);
      continue;
    }
    chosen.emplace_back(c.metric);
    lines += fmt::format("  {:<10} {:<{}}  {}\n", c.level, c.metric, width, c.what);
  }
  for (const auto& m : extra) {
    if (std::find(chosen.begin(), chosen.end(), m) != chosen.end()) continue;
    const auto p = chip.find(m);
    if (!p) throw usage_error(counters::unknown_metric_message(chip, m));
    chosen.push_back(m);
    lines += fmt::format("  {:<10} {:<{}}  {} ({}{})\n", "--metric", m, width, p->description, p->type,
                         p->dim_unit.empty() ? std::string() : ", " + p->dim_unit);
  }
  const auto groups = chip.plan(chosen);
  std::vector<std::string> passes;
  std::size_t total = 0;
  for (const auto& g : groups) {
    passes.push_back(std::to_string(g.passes));
    total += g.passes;
  }
  std::string text = fmt::format("{} metrics on {}: {} replay pass{} of each launch ({} configuration{}: {})\n",
                                 chosen.size(), chip.chip(), total, total == 1 ? "" : "es", groups.size(),
                                 groups.size() == 1 ? "" : "s", fmt::join(passes, " + ")) +
                     lines;
  if (!absent.empty())
    text += fmt::format("not on {} (left out of the set): {}\n", chip.chip(), fmt::join(absent, ", "));
  return text;
}

}  // namespace

int do_counters(const counters_flags& f) {
  const cupti::library lib(f.cupti_dir);
  if (!lib.ok()) throw usage_error(lib.why());
  if (f.list_chips) {
    std::cout << fmt::format("{}\n", fmt::join(counters::supported_chips(lib), " "));
    return exit_ok;
  }
  const bool named = !f.chip.empty();
  if (!named) {
    // CUPTI's own device queries are not safe without a driver: ask the runtime first.
    const std::string hint = "; name a chip with --chip (memscope counters --list-chips lists them)";
    int gpus = 0;
    try {
      gpus = require_devices();
    } catch (const no_device_error& e) {
      throw usage_error(e.what() + hint);
    }
    if (f.device >= gpus)
      throw usage_error(fmt::format("--device {}: this machine has {} GPU(s){}", f.device, gpus, hint));
  }
  const std::string chip_name = named ? f.chip : counters::chip_of_device(lib, f.device);
  const counters::chip_metrics chip(lib, chip_name);
  if (f.list) {
    for (const auto& m : chip.base_metrics(f.list_prefix)) std::cout << m << '\n';
    return exit_ok;
  }
  const std::string set = describe_set(chip, f.metrics);  // before any output: a bad name is one line
  const unsigned v = lib.version();
  std::cout << fmt::format("CUPTI {}.{}.{} ({}); chip {} ({})\n", v / 10000, v / 100 % 100, v % 100, lib.path(),
                           chip.chip(), named ? "--chip" : fmt::format("GPU {}", f.device))
            << set;
  return exit_ok;
}

}  // namespace memscope
