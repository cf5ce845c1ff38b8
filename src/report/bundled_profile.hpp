#pragma once
// The reference profiles compiled into the binary (their gzip bytes, embedded by CMake), and
// the choice among them: the one measured on the user's GPU model, else the first (the default,
// which src/CMakeLists.txt names).

#include "harness/results.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace memscope {

struct bundled_entry {
  const char* source;  // the repository path it came from
  std::string_view gz;
};

/// Every profile compiled in, the default first; empty when none was.
const std::vector<bundled_entry>& bundled_entries();

/// The profile measured on a GPU named `model` (its results' device name); the first when no
/// bundled profile was, or `model` is empty (no GPU answered).
std::size_t bundled_index_for(const std::string& model);

std::string_view bundled_profile_gz(std::size_t index = 0);  // empty when none was bundled
const char* bundled_profile_source(std::size_t index = 0);   // "" when none was bundled

/// A bundled profile's JSON text, inflated once; "" when none was bundled.
const char* bundled_profile_json(std::size_t index = 0);

/// A bundled profile, parsed; nullopt when none was bundled.
std::optional<results_doc> bundled_profile(std::size_t index = 0);

}  // namespace memscope
