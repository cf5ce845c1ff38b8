#pragma once
// `memscope counters`: the hardware counters memscope reads, checked against a chip by CUPTI's
// host API (no GPU needed with --chip): the default set with what each metric counts, any
// metric named with --metric, the replay passes they need together, and the chip's metric
// names by prefix.

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace memscope {

struct counters_flags {
  std::string chip, cupti_dir, list_prefix;
  std::vector<std::string> metrics;
  bool list = false, list_chips = false;
  int device = 0;
};

/// Declares the command and its options on `app`.
CLI::App* add_counters_command(CLI::App& app, counters_flags& f);

/// Runs it: exit 0; usage_error (exit 2) for CUPTI missing, an unknown chip or metric.
int do_counters(const counters_flags& f);

}  // namespace memscope
