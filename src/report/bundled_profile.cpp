#include "report/bundled_profile.hpp"

namespace memscope {

std::optional<results_doc> bundled_profile() {
  const char* text = bundled_profile_json();
  if (!text || !*text) return std::nullopt;
  return results_from_json(nlohmann::json::parse(text), "the bundled profile");
}

}  // namespace memscope
