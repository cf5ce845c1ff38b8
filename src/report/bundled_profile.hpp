#pragma once
// The reference profile compiled into the binary: its gzip bytes, embedded by CMake.

#include "harness/results.hpp"

#include <optional>
#include <string_view>

namespace memscope {

std::string_view bundled_profile_gz();  // the embedded gzip bytes; empty when none was bundled
const char* bundled_profile_source();   // the repository path it came from

/// The bundled profile's JSON text, inflated once; "" when none was bundled.
const char* bundled_profile_json();

/// The bundled profile, parsed; nullopt when none was bundled.
std::optional<results_doc> bundled_profile();

}  // namespace memscope
