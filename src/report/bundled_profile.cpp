#include "report/bundled_profile.hpp"

#include "harness/gzip.hpp"
#include "harness/input_file.hpp"

#include <map>
#include <mutex>
#include <string>

namespace memscope {

std::string_view bundled_profile_gz(std::size_t index) {
  const auto& e = bundled_entries();
  return index < e.size() ? e[index].gz : std::string_view();
}

const char* bundled_profile_source(std::size_t index) {
  const auto& e = bundled_entries();
  return index < e.size() ? e[index].source : "";
}

const char* bundled_profile_json(std::size_t index) {
  // The profiles are compiled in from the repository, so a stream that does not inflate is a
  // broken build, not bad input: let gzip_error say so.
  static std::mutex lock;
  static std::map<std::size_t, std::string> texts;
  const std::lock_guard<std::mutex> hold(lock);
  auto it = texts.find(index);
  if (it == texts.end()) {
    const auto gz = bundled_profile_gz(index);
    it = texts.emplace(index, gz.empty() ? std::string() : gunzip(gz, max_results_bytes)).first;
  }
  return it->second.c_str();
}

std::optional<results_doc> bundled_profile(std::size_t index) {
  const char* text = bundled_profile_json(index);
  if (!*text) return std::nullopt;
  return results_from_json(nlohmann::json::parse(text), "the bundled profile");
}

std::size_t bundled_index_for(const std::string& model) {
  if (model.empty()) return 0;
  // The device name alone: the rows of each profile are dropped as they are parsed.
  const auto header_only = [](int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    return !(depth == 1 && event == nlohmann::json::parse_event_t::key && parsed == "results");
  };
  for (std::size_t i = 0; i < bundled_entries().size(); ++i) {
    const auto j = nlohmann::json::parse(bundled_profile_json(i), header_only);
    if (j.contains("device") && j["device"].contains("name") && j["device"]["name"] == model) return i;
  }
  return 0;
}

}  // namespace memscope
