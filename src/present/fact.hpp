#pragma once
// Named facts: what a suite's rows say about a question the advisor asks ("what does a
// broadcast load from constant memory cost", "histogram speed against CUB at N bins"). A
// suite declares them; the advisor asks for them by name and never reads rows itself. Pure C++.

#include "present/rows.hpp"

#include <functional>
#include <optional>
#include <string>

namespace memscope::present {

struct fact_value {
  std::string text;     // the sentence, computed from rows
  double value = 0;     // the headline figure
  std::string tag;      // a typed label the advisor may branch on ("block", "split", ...)
  /// Set when the question named a size the rows do not hold: what was used instead.
  std::string nearest_note;
};


struct fact_def {
  std::string name;
  std::string suite;        // filled in by the suite that declares it
  std::string description;  // what it answers, for `memscope list --facts` and docs
  /// `at`: the size the question is about (bytes, bins...), when it has one.
  std::function<std::optional<fact_value>(const suite_view&, std::optional<double> at)> eval;
};

}  // namespace memscope::present
