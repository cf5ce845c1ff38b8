#pragma once
// Which chart fits which suite: a chart plan per suite name, a generic bar chart otherwise.

#include "harness/results.hpp"

#include <string>
#include <vector>

namespace memscope::report {

/// The rows of one suite, in run order.
using suite_rows = std::vector<const case_result*>;

/// Rendered <svg> charts for one suite.
std::vector<std::string> charts_for(const std::string& suite, const suite_rows& rows, const results_doc& doc);

}  // namespace memscope::report
