#pragma once
// Real data sets the suites read (sequencing reads, genomes, photographs), prepared from Debian
// packages by scripts/data.sh into one directory, never fetched at run time. Pure C++.

#include <cstddef>
#include <optional>
#include <string>

namespace memscope {

/// The environment variable naming the data directory; without it, ./data.
inline constexpr const char* data_dir_variable = "MEMSCOPE_DATA";

/// Where scripts/data.sh put the data sets.
std::string data_dir();

/// The path of data file `relative` (under data_dir()), as errors name it.
std::string data_path(const std::string& relative);

/// The largest data file memscope reads, plain or inflated.
inline constexpr std::size_t max_data_bytes = std::size_t{1} << 30;

/// The text of data file `relative` (under data_dir()), inflated where it is gzip-compressed;
/// nullopt where it is absent, so that a suite can skip with `missing_data_reason`. A file that
/// is present but unreadable, corrupt or too large throws input_error or gzip_error.
std::optional<std::string> read_data_file(const std::string& relative);

/// Why a case skips when `relative` is absent: where it was looked for and how to make it.
std::string missing_data_reason(const std::string& relative);

}  // namespace memscope
