#pragma once
// The stopping rule every timed point follows, in nvbench's words where they fit. The user
// sets it with --min-samples, --max-samples, --min-time, --max-noise and --timeout; every row
// records whether it met the rule (converged) and why sampling stopped. Pure C++.

#include <string>

namespace memscope {

struct timing_policy {
  int warmup_launches = 2;
  /// A point stops as converged once it has at least min_samples samples, at least
  /// min_time_s of measured GPU time, and a relative standard error of the mean at most
  /// max_noise; it stops unconverged at max_samples or after timeout_s of wall time.
  int min_samples = 10;
  int max_samples = 1000;
  double max_noise = 0.005;
  double min_time_s = 0.01;
  double timeout_s = 0.5;
  /// Launches shorter than this are batched several per sample, so event resolution and
  /// launch gaps do not dominate (never in cold mode: every launch must start cold).
  double min_sample_s = 100e-6;
  /// At most this many launches per sample: a held stream must never fill the launch queue.
  int max_batch = 256;
  /// Points a baseline compares (strategies, sources, kernels) take at least this many samples
  /// (or min_samples if larger) before the rule applies, so both sides of a ratio rest on alike
  /// evidence ...
  int compared_samples = 40;
  /// ... unless the samples are so long that this many seconds (or timeout_s) pass first.
  double compared_cap_s = 3.0;
  /// For profilers: one launch per point, no warm-up, no batching; the row is not converged.
  bool run_once = false;
  /// A sample whose SM clock ran below this fraction of the peak is throttled; the row says
  /// so, and with resample_throttled such samples are dropped and taken again.
  double throttle_threshold = 0.75;
  bool resample_throttled = false;

  /// The largest --min-time, --timeout (seconds) and max_noise (a fraction) a results file may
  /// hold: the command line refuses what the reader would refuse, so no run writes a file that
  /// report, compare and merge then reject.
  static constexpr double max_seconds = 1e6;
  static constexpr double max_noise_fraction = 1e6;

  static timing_policy full() { return {}; }
  static timing_policy quick() {
    timing_policy p;
    p.warmup_launches = 1;
    p.min_samples = 5;
    p.max_samples = 200;
    p.max_noise = 0.02;
    p.min_time_s = 0.002;
    p.timeout_s = 0.1;
    p.compared_samples = 10;
    p.compared_cap_s = 0.5;
    return p;
  }

  /// Empty when the rule makes sense; otherwise what is wrong, for a usage error.
  std::string problem() const;
};

/// Why a point stopped sampling, as stored in a row.
inline constexpr const char* stop_converged = "converged";
inline constexpr const char* stop_timeout = "timeout";
inline constexpr const char* stop_max_samples = "max_samples";
inline constexpr const char* stop_fixed = "fixed";  // written by early format-4 files only
inline constexpr const char* stop_run_once = "run_once";

}  // namespace memscope
