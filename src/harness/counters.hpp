#pragma once
// The hardware counters behind memscope's figures, as CUPTI's profiler host API knows them for
// one chip: which metrics the chip has, what each counts, and how many replay passes a set of
// them needs. The host API needs no GPU, so a metric name is checked against a chip named as
// CUPTI names it (`memscope counters --list-chips`) anywhere CUPTI is installed. Problems a user can fix (an unknown
// chip or metric, CUPTI missing) throw usage_error; CUPTI's own failures throw runtime_error with its code.

#include "harness/cupti_library.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace memscope::counters {

/// A metric of the default set: the level of the hierarchy it counts and what it says there.
struct counter {
  const char* metric;
  const char* level;
  const char* what;
};

/// What decides the memory hierarchy: DRAM bytes, L2 and L1 sectors and hit rates, shared-memory
/// wavefronts and bank conflicts, local-memory (spill) sectors, atomics, link bytes. A chip
/// lacking one (link counters differ by chip) leaves it out, saying so.
const std::vector<counter>& default_set();

/// Metrics collected together in one configuration, and the replay passes they need.
struct counter_group {
  std::vector<std::string> metrics;
  std::size_t passes = 0;
};

struct metric_properties {
  std::string name, description, hw_unit, dim_unit, type;  // type: counter, ratio, throughput
};

/// The chip names this CUPTI knows, as --chip takes them.
std::vector<std::string> supported_chips(const cupti::library& lib);

/// The chip of CUDA device `ordinal` as CUPTI names it; throws usage_error saying how to name
/// one with --chip where no GPU answers.
std::string chip_of_device(const cupti::library& lib, int ordinal);

class chip_metrics {
 public:
  /// Throws usage_error for a chip CUPTI does not know, listing those it does.
  chip_metrics(const cupti::library& lib, const std::string& chip);
  ~chip_metrics();
  chip_metrics(const chip_metrics&) = delete;
  chip_metrics& operator=(const chip_metrics&) = delete;

  const std::string& chip() const { return chip_; }
  /// A metric's properties (with its rollup, e.g. ".sum", or without), or nothing where the chip
  /// has no such metric.
  std::optional<metric_properties> find(const std::string& metric) const;
  /// Replay passes a set of metrics needs in one configuration, or nothing where CUPTI cannot
  /// collect them together (link counters with the others, on some chips); throws usage_error
  /// naming the first metric the chip lacks.
  std::optional<std::size_t> passes(const std::vector<std::string>& metrics) const;
  /// The metrics split into configurations CUPTI accepts, each with its replay passes: each
  /// metric joins the first configuration that can take it, in order.
  std::vector<counter_group> plan(const std::vector<std::string>& metrics) const;
  /// The chip's base metrics (counters, ratios, throughputs) starting with `prefix`, sorted.
  std::vector<std::string> base_metrics(const std::string& prefix) const;

 private:
  /// passes() for metrics already known to the chip.
  std::optional<std::size_t> config_passes(const std::vector<std::string>& metrics) const;
  const cupti::library& lib_;
  std::string chip_;
  void* host_ = nullptr;  // CUpti_Profiler_Host_Object*
};

/// "unknown metric NAME on CHIP" with the nearest base metrics by prefix, for an error line.
std::string unknown_metric_message(const chip_metrics& chip, const std::string& metric);

}  // namespace memscope::counters
