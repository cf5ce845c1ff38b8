#pragma once
// Photographs as 8-bit RGB in netpbm's PAM format (P7, DEPTH 3, MAXVAL 255), the form
// scripts/data.sh writes them in: a header of text lines, then width x height x 3 bytes. Pure C++.

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace memscope {

class image_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct rgb_image {
  std::size_t width = 0, height = 0;
  std::vector<std::uint8_t> rgb;  // row-major, 3 bytes a pixel
  std::size_t pixels() const { return width * height; }
};

/// The image in `bytes`; `name` names it in errors. Refuses another format, depth or maxval, a
/// header without WIDTH, HEIGHT or ENDHDR, an empty image, and pixel data shorter or longer
/// than the header says.
rgb_image parse_pam(std::string_view bytes, const std::string& name);

}  // namespace memscope
