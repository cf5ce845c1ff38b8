#pragma once
// Per-suite findings, derived from the rows of a results document: the sentences a reader wants
// first (best kernel against CUB or the copy ceiling, detected cache levels, fitted costs).
// Computed, never stored, so every results file, old or new, gets them.

#include "harness/results.hpp"

#include <string>
#include <vector>

namespace memscope::report {

struct finding {
  std::string suite;
  std::string text;
};

std::vector<finding> findings(const results_doc& doc);

}  // namespace memscope::report
