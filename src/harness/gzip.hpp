#pragma once
// gzip for results files: memscope reads a compressed results document as it reads a plain
// one (told apart by gzip's magic bytes, not by the name), and writes an output whose name ends
// in .gz compressed. zlib is linked statically, like the CUDA runtime. Pure C++.

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

namespace memscope {

/// A gzip stream that cannot be inflated: corrupt, truncated, followed by other bytes, or larger
/// than its reader allows.
class gzip_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Whether `bytes` start with gzip's magic (1f 8b), however the file is named.
bool is_gzip(std::string_view bytes);

/// Whether an output named `path` is written compressed: its name ends in ".gz".
bool names_gzip(std::string_view path);

/// A gzip stream of one or more members, inflated (the members' texts one after the other).
/// Throws gzip_error for a corrupt or truncated member, bytes after the last member that do not
/// start another, or an output past `max_bytes` (a few kilobytes must not fill the host's memory).
std::string gunzip(std::string_view bytes, std::size_t max_bytes);

/// `text` as one gzip member (zlib's default level; no name or time in the header, so the same
/// text always compresses to the same bytes).
std::string gzip(std::string_view text);

}  // namespace memscope
