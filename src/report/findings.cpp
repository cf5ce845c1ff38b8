#include "report/findings.hpp"

#include <regex>

namespace memscope::report {

bool shows_non_finite(const std::string& text) {
  static const std::regex bad(R"((^|[^A-Za-z0-9_])[-+]?(nan|infinity|inf)x?([^A-Za-z0-9_]|$)|[0-9]{25})",
                              std::regex::icase);
  return std::regex_search(text, bad);
}

std::vector<finding> findings(const results_doc& doc, const registry& reg) {
  std::vector<finding> out;
  for (const auto& s : reg.suite_infos()) {
    const present::suite_view view{doc, s.name};
    std::vector<std::string> texts;
    for (const auto& rule : s.findings) rule(view, texts);
    std::size_t left_out = 0;
    for (auto& t : texts) {
      if (!shows_non_finite(t)) out.push_back({s.name, std::move(t)});
      else ++left_out;
    }
    if (left_out)
      out.push_back({s.name, std::to_string(left_out) + " finding" + (left_out == 1 ? " was" : "s were") +
                                 " left out: a figure it needs is missing or not a finite number in these results"});
  }
  return out;
}

}  // namespace memscope::report
