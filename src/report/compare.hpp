#pragma once
// `memscope compare A.json B.json`: two runs (two builds, drivers or GPUs), case by case.

#include "harness/results.hpp"

#include <ostream>
#include <string>
#include <vector>

namespace memscope::report {

enum class verdict { faster, slower, same };
const char* to_string(verdict v);

struct comparison_row {
  std::string id, axes_label;
  double median_a = 0, median_b = 0;
  double ratio = 0;      // median_b / median_a: below 1, B is faster
  double threshold = 0;  // |ratio - 1| within this is noise
  verdict v = verdict::same;
};

struct comparison {
  std::vector<comparison_row> rows;
  std::size_t only_a = 0, only_b = 0;
  std::size_t excluded_a = 0, excluded_b = 0;  // timed rows that failed their check: never compared
  std::size_t count(verdict v) const;
};

/// Matches timed rows by suite, case and axes. Same within the noise when |ratio - 1| <=
/// max(1%, 2 x sqrt(noise_a^2 + noise_b^2)). Throws usage_error when no case is in both.
comparison compare(const results_doc& a, const results_doc& b);

/// Rows of B slower than A by more than `pct` percent (and beyond the noise).
std::vector<const comparison_row*> regressions(const comparison& c, double pct);

void print(const comparison& c, const results_doc& a, const results_doc& b, std::ostream& out);

}  // namespace memscope::report
