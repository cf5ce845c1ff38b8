#pragma once
// Reading an input file whole, with bounds: results files and journals are regular files of a
// bounded size. A FIFO, a device, a socket or a directory is refused before it is opened (opening
// a FIFO blocks until a writer comes; /dev/zero never ends), and a file past the cap is refused
// before it is read. Pure C++.

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace memscope {

/// An input that is not a regular file, cannot be read, or is larger than its reader allows.
class input_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The most a results document or journal may hold, plain or inflated: twenty-five times the
/// bundled profile with every sample, so that parsing stays within a few GiB of memory.
inline constexpr std::size_t max_results_bytes = std::size_t{256} << 20;

/// The bytes of `path`, a regular file of at most `max_bytes`. `what` names the input in the
/// message ("results file", "journal").
std::string read_input(const std::string& path, std::size_t max_bytes, const std::string& what);

/// The text a results file holds, without reading it: a plain file's size, or the inflated size
/// a gzip file records in its last four bytes (modulo 4 GiB, as gzip records it); 0 for a file
/// that cannot be read (its reader says why).
std::uintmax_t input_text_bytes(const std::string& path);

/// Throws input_error where an output of `bytes` would be larger than memscope reads back.
void check_readable_size(std::size_t bytes, const std::string& path);

}  // namespace memscope
