#pragma once
// `memscope compare A.json B.json`: two runs (two builds, drivers or GPUs), case by case.

#include "harness/registry.hpp"
#include "harness/results.hpp"

#include <ostream>
#include <string>
#include <vector>

namespace memscope::report {

enum class verdict { faster, slower, same };
const char* to_string(verdict v);

struct comparison_row {
  std::string id, axes_label;
  /// The median times, or the case's own figure where it declares one (`unit` names it).
  double median_a = 0, median_b = 0;
  std::string unit;  // empty: seconds
  /// A figure's verdict: both rows recorded their spread, so the verdict needs the ranges apart.
  bool ranges = false;
  double ratio = 0;           // median_b / median_a: below 1, B is faster
  double threshold = 0;       // the least |ratio - 1| that can be a verdict
  bool short_launch = false;  // the threshold is the process-shift floor, above min_effect
  /// Mann-Whitney U over both rows' samples: how likely rank sums this far apart are when
  /// both came from one distribution. NaN when a row kept no samples (judged on medians).
  double p = 0;
  /// Judged on runs in separate processes (merge --replicates): how many each side brought.
  std::size_t runs_a = 0, runs_b = 0;
  bool unconverged = false;  // a side did not meet its run's stopping rule
  verdict v = verdict::same;
};

struct compare_options {
  /// A verdict needs the medians this far apart (a fraction) ...
  double min_effect = 0.03;
  /// ... and, where both rows kept their samples, a rank test this sure (two-sided p below).
  double alpha = 0.001;
  /// A new process shifts a short launch's time by up to this much, whatever its samples say
  /// (docs/how-memscope-measures.md, "What a new process changes"): a time-judged verdict
  /// needs an effect of at least process_shift_s / the shorter median launch, up to
  /// max_process_shift (the shift of the shortest launches measured). 0: no floor.
  double process_shift_s = 1.0e-6;
  static constexpr double max_process_shift = 0.15;
  /// The largest alpha taken (the command line and compare() check the same bound).
  static constexpr double max_alpha = 0.5;
  /// Axes left out when rows are matched: A's and B's rows that differ only in these are
  /// compared (two tile sizes, a planted delay). Each must be an axis of some row.
  std::vector<std::string> ignore_axes;
};

struct comparison {
  std::vector<comparison_row> rows;
  std::size_t only_a = 0, only_b = 0;
  std::size_t excluded_a = 0, excluded_b = 0;  // timed rows that failed their check: never compared
  std::vector<std::string> ignored_axes;       // left out of the match (rows show A's axes)
  std::size_t count(verdict v) const;
};

/// Matches timed rows by suite, case and axes (but opt.ignore_axes). "faster" or "slower" needs
/// both an effect of at least opt.min_effect between the medians and, where both rows kept
/// their samples, a Mann-Whitney U test with p < opt.alpha and an effect of at least
/// opt.process_shift_s over the shorter median (at most max_process_shift); rows without
/// samples, from older files: an effect beyond max(min_effect, 2 x sqrt(noise_a^2 +
/// noise_b^2)). Everything else is "same".
/// Where a side lists its point's medians in several processes (merge --replicates), the spread
/// a new process brings is measured instead of assumed: the medians of the runs' medians are
/// compared, and a verdict needs every run of one side beyond every run of the other by more
/// than max(min_effect, the larger side's spread between its runs).
/// A row whose case declares its own figure in `reg` (cycles of a pointer chase, whose timed
/// launch is a separate, unwarmed run) is judged on that figure: an effect of at least
/// min_effect and, where both rows recorded the fastest and slowest chase, ranges that do not
/// overlap. Throws usage_error when no case is in both.
comparison compare(const results_doc& a, const results_doc& b, const registry& reg, const compare_options& opt = {});

/// How A's and B's GPUs relate: "the same GPU", "two boards of one model (...)", "different
/// GPU models (... vs ...)".
std::string gpu_relation(const results_doc& a, const results_doc& b);

/// Where A and B began their samples with different L2 contents (warm, --cold, --cold=dirty):
/// a line that says so; "" where they are alike.
std::string l2_relation(const results_doc& a, const results_doc& b);

/// What differs between the two runs' stopping rules (--quick against the full rule), or "".
std::string stopping_relation(const results_doc& a, const results_doc& b);

/// Rows of B slower than A by more than `pct` percent (and beyond the noise).
std::vector<const comparison_row*> regressions(const comparison& c, double pct);

void print(const comparison& c, const results_doc& a, const results_doc& b, std::ostream& out);

}  // namespace memscope::report
