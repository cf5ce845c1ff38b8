#pragma once
// The H200 reference profile compiled into the binary (results/h200/profile.json).

#include "harness/results.hpp"

#include <optional>

namespace memscope {

const char* bundled_profile_json();    // "" when none was bundled
const char* bundled_profile_source();  // the repository path it came from

/// The bundled profile, parsed; nullopt when none was bundled.
std::optional<results_doc> bundled_profile();

}  // namespace memscope
