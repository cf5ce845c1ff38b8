#pragma once
// Findings of a results document: each suite's finding rules (declared beside its cases) run
// over its rows. Computed, never stored, so every results file, old or new, gets them.

#include "harness/registry.hpp"
#include "harness/results.hpp"

#include <string>
#include <vector>

namespace memscope::report {

struct finding {
  std::string suite;
  std::string text;
};

/// In the registry's suite order; suites the registry does not know get none. A sentence that
/// would print a figure that is not one is left out, with a note saying how many were.
std::vector<finding> findings(const results_doc& doc, const registry& reg);

/// Whether `text` prints a figure that is not one: "nan", "inf" or "infinity" standing alone or
/// with the ratio's "x" (a word of letters, digits or underscores that contains them, such as
/// the input nan_heavy or "info", is a label), or a number of more digits than any measurement
/// has (a file edited by hand, a row missing a metric).
bool shows_non_finite(const std::string& text);

}  // namespace memscope::report
