#include "harness/data_file.hpp"

#include "harness/gzip.hpp"
#include "harness/input_file.hpp"

#include <cstdlib>
#include <filesystem>

namespace memscope {

std::string data_dir() {
  const char* dir = std::getenv(data_dir_variable);
  return dir && *dir ? dir : "data";
}

std::string data_path(const std::string& relative) { return data_dir() + "/" + relative; }

std::optional<std::string> read_data_file(const std::string& relative) {
  const std::string path = data_path(relative);
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return std::nullopt;
  std::string bytes = read_input(path, max_data_bytes, "data file");
  if (is_gzip(bytes)) return gunzip(bytes, max_data_bytes);
  return bytes;
}

std::string missing_data_reason(const std::string& relative) {
  return "no data file " + data_path(relative) + ": run scripts/data.sh (it prepares the data sets from " +
         "Debian packages) or set " + data_dir_variable + " to the directory it wrote";
}

}  // namespace memscope
