#include "report/bundled_profile.hpp"

#include <vector>

namespace memscope {

std::optional<results_doc> bundled_profile() {
  const char* text = bundled_profile_json();
  if (!text || !*text) return std::nullopt;
  std::vector<results_doc> docs{results_from_json(nlohmann::json::parse(text), "the bundled profile")};
  for (const char* const* extra = bundled_profile_extra_json(); *extra; ++extra)
    docs.push_back(results_from_json(nlohmann::json::parse(*extra), "a bundled results file"));
  return merge(docs);
}

}  // namespace memscope
