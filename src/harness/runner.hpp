#pragma once
// Plans a run (patterns and axes -> points, all checked before the GPU is touched), then
// executes it on one device and collects the results document.

#include "harness/axis.hpp"
#include "harness/registry.hpp"
#include "harness/cold_mode.hpp"
#include "harness/results.hpp"
#include "harness/state.hpp"

#include <functional>
#include <string>
#include <vector>

namespace memscope {

struct run_request {
  std::vector<std::string> patterns;
  std::vector<axis_override> overrides;
  axis_set set = axis_set::full;
  bool verify_only = false;
  cold_mode cold = cold_mode::off;
  int device = 0;
  std::string command;  // as typed, for the results file
  timing_policy timing = timing_policy::full();
};

struct planned_point {
  const case_def* def;
  axis_point point;
};

/// The row key (row_key) the point's row will have.
std::string planned_key(const planned_point& p);

/// Pure planning: throws usage_error for patterns, axis names or values that do not fit.
std::vector<planned_point> plan_run(const registry& reg, const run_request& req);

/// Throws usage_error when a point needs more device memory than the GPU has.
void check_footprints(const std::vector<planned_point>& plan, const device_info& dev);

/// Where a run's time went, one entry per suite in run order: the wall time of its points
/// (inputs, allocation, checks, warm-up and samples) and the GPU time of their timed samples.
struct suite_time {
  std::string suite;
  std::size_t points = 0;
  double wall_s = 0, samples_s = 0;
};

/// "where the time went" lines: per suite, and the run's total against its timed samples.
std::vector<std::string> time_lines(const std::vector<suite_time>& spent);

/// Called before each point: (index, total, id, axes label).
using progress_fn = std::function<void(std::size_t, std::size_t, const std::string&, const std::string&)>;

struct run_hooks {
  progress_fn progress;
  /// Called with each finished row, in order (the journal).
  std::function<void(const case_result&)> on_row;
  /// Called once the header (device, ceiling, timing) is known, before the first point.
  std::function<void(const results_doc&)> on_start;
  /// Row keys (row_key) already measured by an earlier process: not run again (--resume).
  const std::vector<std::string>* done = nullptr;
  /// Where set, filled with where the time went (time_lines prints it).
  std::vector<suite_time>* spent = nullptr;
};

/// Runs every point of the plan not in hooks.done. A point that leaves the CUDA context
/// unusable ends the run: its row records the error, the document says why it is incomplete,
/// and it holds every row measured until then.
results_doc execute_plan(const std::vector<planned_point>& plan, const run_request& req, const device_info& dev,
                         const run_hooks& hooks = {});

/// The header of a results document for this request and device (no rows, no ceiling).
results_doc new_results_doc(const run_request& req, const device_info& dev);

/// Sets each row's same-run ratios (its case's baselines) from the row of the same run that
/// the baseline names, and drops a ratio whose baseline is missing, failed, or from another
/// run of a merged document.
void apply_baselines(const registry& reg, results_doc& doc);

/// True when every row passed (status ok or skipped).
bool all_passed(const results_doc& doc);

}  // namespace memscope
