#include "harness/gzip.hpp"

#include <fmt/format.h>
#include <zlib.h>

#include <algorithm>
#include <memory>

namespace memscope {
namespace {

// zlib counts in 32-bit uInt: larger buffers are fed a slice at a time.
constexpr std::size_t max_slice = std::size_t{1} << 30;
constexpr int gzip_window_bits = 16 + MAX_WBITS;  // 16+: a gzip header and trailer, not zlib's

void feed(z_stream& s, const char*& next, std::size_t& left) {
  if (s.avail_in != 0 || left == 0) return;
  const std::size_t n = std::min(left, max_slice);
  s.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(next));
  s.avail_in = static_cast<uInt>(n);
  next += n;
  left -= n;
}

std::string zlib_says(const z_stream& s) { return s.msg ? std::string(": ") + s.msg : std::string(); }

}  // namespace

bool is_gzip(std::string_view bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b;
}

bool names_gzip(std::string_view path) {
  if (path.size() < 3) return false;
  const auto tail = path.substr(path.size() - 3);
  return tail[0] == '.' && (tail[1] | 0x20) == 'g' && (tail[2] | 0x20) == 'z';
}

std::string gunzip(std::string_view bytes, std::size_t max_bytes) {
  z_stream s{};
  if (inflateInit2(&s, gzip_window_bits) != Z_OK) throw gzip_error("zlib could not start inflating" + zlib_says(s));
  const std::unique_ptr<z_stream, int (*)(z_streamp)> end(&s, inflateEnd);
  const char* next = bytes.data();
  std::size_t left = bytes.size();
  std::string out;
  char buf[1 << 16];
  for (int ret = Z_OK; ret != Z_STREAM_END;) {
    feed(s, next, left);
    s.next_out = reinterpret_cast<Bytef*>(buf);
    s.avail_out = sizeof buf;
    ret = inflate(&s, Z_NO_FLUSH);
    // A member ended: gzip files may hold several (`cat a.gz b.gz`, pigz, bgzip), which read as
    // their texts one after the other, as `gzip -d` reads them. Another member starts here only
    // where gzip's magic does; anything else after the end is refused below.
    if (ret == Z_STREAM_END && is_gzip(bytes.substr(bytes.size() - s.avail_in - left))) {
      if (inflateReset(&s) != Z_OK) throw gzip_error("zlib could not start the next gzip member" + zlib_says(s));
      ret = Z_OK;
    }
    // Input is fed whenever zlib has none, so "no progress possible" means the input ran out.
    if (ret == Z_BUF_ERROR) throw gzip_error("truncated gzip stream: it ends before its end marker");
    if (ret == Z_MEM_ERROR) throw gzip_error("out of memory while inflating");
    if (ret != Z_OK && ret != Z_STREAM_END) throw gzip_error("corrupt gzip stream" + zlib_says(s));
    const std::size_t produced = sizeof buf - s.avail_out;
    if (produced > max_bytes - out.size())
      throw gzip_error(
          fmt::format("the gzip stream inflates to more than {} MiB, more than any results file", max_bytes >> 20));
    out.append(buf, produced);
  }
  if (s.avail_in != 0 || left != 0)
    throw gzip_error(fmt::format("{} bytes follow the end of the gzip stream, and they are not another gzip member",
                                 s.avail_in + left));
  return out;
}

std::string gzip(std::string_view text) {
  z_stream s{};
  if (deflateInit2(&s, Z_DEFAULT_COMPRESSION, Z_DEFLATED, gzip_window_bits, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    throw gzip_error("zlib could not start deflating" + zlib_says(s));
  const std::unique_ptr<z_stream, int (*)(z_streamp)> end(&s, deflateEnd);
  const char* next = text.data();
  std::size_t left = text.size();
  std::string out;
  out.reserve(text.size() / 4 + 64);
  char buf[1 << 16];
  for (int ret = Z_OK; ret != Z_STREAM_END;) {
    feed(s, next, left);
    s.next_out = reinterpret_cast<Bytef*>(buf);
    s.avail_out = sizeof buf;
    ret = deflate(&s, left == 0 ? Z_FINISH : Z_NO_FLUSH);
    if (ret == Z_STREAM_ERROR) throw gzip_error("zlib failed while deflating" + zlib_says(s));
    out.append(buf, sizeof buf - s.avail_out);
  }
  return out;
}

}  // namespace memscope
