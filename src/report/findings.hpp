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

/// In the registry's suite order; suites the registry does not know get none.
std::vector<finding> findings(const results_doc& doc, const registry& reg);

}  // namespace memscope::report
