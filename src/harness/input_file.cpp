#include "harness/input_file.hpp"

#include "harness/gzip.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string_view>

namespace memscope {
namespace {

const char* kind_of(mode_t m) {
  if (S_ISDIR(m)) return "a directory";
  if (S_ISFIFO(m)) return "a pipe (FIFO)";
  if (S_ISCHR(m) || S_ISBLK(m)) return "a device";
  if (S_ISSOCK(m)) return "a socket";
  return "not a regular file";
}

}  // namespace

std::string read_input(const std::string& path, std::size_t max_bytes, const std::string& what) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    throw input_error("cannot open " + what + " '" + path + "': " + std::strerror(errno));
  if (!S_ISREG(st.st_mode))
    throw input_error("'" + path + "' is " + kind_of(st.st_mode) + ", not a " + what + " (give a regular file)");
  if (static_cast<std::size_t>(st.st_size) > max_bytes)
    throw input_error(what + " '" + path + "' holds " + std::to_string(st.st_size) + " bytes; memscope reads at most " +
                      std::to_string(max_bytes));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw input_error("cannot open " + what + " '" + path + "'");
  // At most one byte past the cap, however the file grew after stat.
  std::string text(static_cast<std::size_t>(st.st_size), '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (in.bad() || static_cast<std::size_t>(in.gcount()) != text.size())
    throw input_error("cannot read " + what + " '" + path + "' (it changed while read?)");
  if (in.peek() != std::char_traits<char>::eof())
    throw input_error(what + " '" + path + "' grew while memscope read it");
  return text;
}

void check_readable_size(std::size_t bytes, const std::string& path) {
  if (bytes > max_results_bytes)
    throw input_error("the results document for '" + path + "' would hold " + std::to_string(bytes) +
                      " bytes; memscope reads at most " + std::to_string(max_results_bytes) +
                      ": split it (fewer runs per merge, or --quick)");
}

std::uintmax_t input_text_bytes(const std::string& path) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) return 0;
  std::ifstream in(path, std::ios::binary);
  unsigned char head[2] = {}, tail[4] = {};
  if (!in.read(reinterpret_cast<char*>(head), 2) || !is_gzip(std::string_view(reinterpret_cast<char*>(head), 2)) ||
      size < 18)
    return size;
  in.seekg(-4, std::ios::end);
  if (!in.read(reinterpret_cast<char*>(tail), 4)) return size;
  return std::uintmax_t{tail[0]} | std::uintmax_t{tail[1]} << 8 | std::uintmax_t{tail[2]} << 16 |
         std::uintmax_t{tail[3]} << 24;
}

}  // namespace memscope
