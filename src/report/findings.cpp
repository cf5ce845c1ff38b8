#include "report/findings.hpp"

namespace memscope::report {

std::vector<finding> findings(const results_doc& doc, const registry& reg) {
  std::vector<finding> out;
  for (const auto& s : reg.suite_infos()) {
    const present::suite_view view{doc, s.name};
    std::vector<std::string> texts;
    for (const auto& rule : s.findings) rule(view, texts);
    for (auto& t : texts) out.push_back({s.name, std::move(t)});
  }
  return out;
}

}  // namespace memscope::report
