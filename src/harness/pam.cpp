#include "harness/pam.hpp"

#include <limits>
#include <sstream>

namespace memscope {

rgb_image parse_pam(std::string_view bytes, const std::string& name) {
  const auto fail = [&](const std::string& why) { return image_error(name + ": " + why); };
  if (bytes.substr(0, 3) != "P7\n") throw fail("not a PAM image (it does not start with P7)");
  std::size_t at = 3;
  long long width = -1, height = -1, depth = -1, maxval = -1;
  while (true) {
    const std::size_t end = bytes.find('\n', at);
    if (end == std::string_view::npos) throw fail("the header ends before ENDHDR");
    const std::string line(bytes.substr(at, end - at));
    at = end + 1;
    if (line == "ENDHDR") break;
    if (line.empty() || line[0] == '#') continue;
    std::istringstream words(line);
    std::string key, value;
    words >> key >> value;
    if (key == "TUPLTYPE") continue;
    long long* field = key == "WIDTH"    ? &width
                       : key == "HEIGHT" ? &height
                       : key == "DEPTH"  ? &depth
                       : key == "MAXVAL" ? &maxval
                                         : nullptr;
    if (!field) throw fail("unknown header line '" + line.substr(0, 40) + "'");
    std::size_t used = 0;
    try {
      *field = std::stoll(value, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != value.size() || *field < 0) throw fail("bad " + key + " '" + value + "'");
  }
  if (width < 1 || height < 1) throw fail("the header needs a WIDTH and a HEIGHT of at least 1");
  if (depth != 3 || maxval != 255)
    throw fail("memscope reads 8-bit RGB (DEPTH 3, MAXVAL 255), not DEPTH " + std::to_string(depth) + " MAXVAL " +
               std::to_string(maxval));
  constexpr long long limit = std::numeric_limits<int>::max();
  if (width > limit || height > limit || width * height > limit) throw fail("larger than 2^31 pixels");
  rgb_image img;
  img.width = static_cast<std::size_t>(width);
  img.height = static_cast<std::size_t>(height);
  const std::size_t want = img.pixels() * 3;
  if (bytes.size() - at != want)
    throw fail("the header says " + std::to_string(want) + " bytes of pixels, the file holds " +
               std::to_string(bytes.size() - at) + (bytes.size() - at < want ? " (truncated?)" : ""));
  img.rgb.assign(bytes.begin() + static_cast<std::ptrdiff_t>(at), bytes.end());
  return img;
}

}  // namespace memscope
