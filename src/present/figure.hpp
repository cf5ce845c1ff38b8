#pragma once
// A case's own figure, where the event time of its timed launch is not what the case measures:
// cycles counted with clock64 inside the kernel (pointer chases, dependent atomics), whose timed
// launch is a separate, shorter or unwarmed run kept so that every row has a time. `compare` and
// the fleet table judge such rows on this figure. Pure C++.

#include "harness/results.hpp"

#include <cmath>
#include <string>
#include <utility>

namespace memscope::present {

/// A cost (lower is better), with the spread of repeated measurements the row records beside
/// it where it does: compare calls a difference only where two rows' ranges do not overlap.
/// Not a spread over places (the SMs a chase ran from, the SM pairs of a cluster chase): that
/// is a property of the GPU, which overlaps between any two runs however far apart their
/// figures are; such a figure is declared without a range and judged on its effect.
struct figure_def {
  std::string metric;                // "cycles_per_load"
  std::string lo_metric, hi_metric;  // the fastest and the slowest repeat (empty: none)
  std::string unit;                  // "cycles"
};

struct row_figure {
  double value = NAN, lo = NAN, hi = NAN;
  bool usable() const { return std::isfinite(value) && value > 0; }
  /// Both ends recorded, and around the value.
  bool has_spread() const { return std::isfinite(lo) && std::isfinite(hi) && lo <= value && value <= hi; }
};

inline row_figure figure_of(const figure_def& f, const case_result& r) {
  row_figure out;
  out.value = r.metric(f.metric);
  if (!f.lo_metric.empty()) out.lo = r.metric(f.lo_metric);
  if (!f.hi_metric.empty()) out.hi = r.metric(f.hi_metric);
  return out;
}

/// Cycles per operation, with the fastest and slowest repeat beside them where given.
inline figure_def cycles_figure(std::string metric, std::string lo = {}, std::string hi = {}) {
  return {std::move(metric), std::move(lo), std::move(hi), "cycles"};
}

}  // namespace memscope::present
