#pragma once
// Named facts: what a suite's rows say about a question the advisor asks ("what does a
// broadcast load from constant memory cost", "histogram speed against CUB at N bins"). A
// suite declares them; the advisor asks for them by name and never reads rows itself. Pure C++.

#include "present/rows.hpp"

#include <algorithm>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace memscope::present {

struct fact_value {
  std::string text;  // the sentence, computed from rows
  double value = 0;  // the headline figure
  std::string tag;   // a typed label the advisor may branch on ("block", "split", ...)
  /// Set when the question named a size the rows do not hold: what was used instead.
  std::string nearest_note;
};

struct fact_def {
  std::string name;
  std::string suite;  // filled in by the suite that declares it
  /// The suite's cases whose rows it reads: all it sees of the suite, and what `memscope run`
  /// needs to measure it (never empty: the suite checks each names one of its cases).
  std::vector<std::string> cases;
  std::string description;  // what it answers, for `memscope list --facts` and docs
  /// `at`: the size the question is about (bytes, bins...), when it has one.
  std::function<std::optional<fact_value>(const suite_view&, std::optional<double> at)> eval;

  /// The rows it may read.
  suite_view view(const results_doc& doc) const { return suite_view{doc, suite, cases}; }
  /// Whether a row or a case of `suite_name`/`case_name` is one it reads.
  bool reads(const std::string& suite_name, const std::string& case_name) const {
    return suite_name == suite && std::find(cases.begin(), cases.end(), case_name) != cases.end();
  }
  /// Its cases as `memscope run` patterns: "transfer/engines", ...
  std::vector<std::string> patterns() const {
    std::vector<std::string> out;
    for (const auto& c : cases) out.push_back(suite + "/" + c);
    return out;
  }
  /// What `memscope run` takes to measure it: "transfer/engines", "managed/access managed/stream".
  std::string run_patterns() const {
    std::string out;
    for (const auto& p : patterns()) out += (out.empty() ? "" : " ") + p;
    return out;
  }
};

}  // namespace memscope::present
