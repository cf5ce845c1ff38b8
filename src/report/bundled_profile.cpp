#include "report/bundled_profile.hpp"

#include "harness/gzip.hpp"
#include "harness/input_file.hpp"

#include <string>

namespace memscope {

const char* bundled_profile_json() {
  // The profile is compiled in from the repository, so a stream that does not inflate is a
  // broken build, not bad input: let gzip_error say so.
  static const std::string text = [] {
    const auto gz = bundled_profile_gz();
    return gz.empty() ? std::string() : gunzip(gz, max_results_bytes);
  }();
  return text.c_str();
}

std::optional<results_doc> bundled_profile() {
  const char* text = bundled_profile_json();
  if (!*text) return std::nullopt;
  return results_from_json(nlohmann::json::parse(text), "the bundled profile");
}

}  // namespace memscope
