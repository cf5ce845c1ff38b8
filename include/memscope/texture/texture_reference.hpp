#pragma once
// What a texture fetch returns, in plain C++: the address modes and the point and linear
// filters of the CUDA Programming Guide's texture-fetching appendix, for the texture suite to
// check the hardware against. Linear filtering on the GPU quantises each weight to 9-bit fixed
// point (8 fractional bits), so a fetch may differ from the exact blend by up to the bound
// returned beside it; point sampling is exact.

#include "memscope/core/random.hpp"

#include <cmath>
#include <cstddef>
#include <type_traits>
#include <vector>

namespace memscope::texture {

/// Texel i of a test texture: a uniform float, or a byte.
template <class T>
T make_texel(std::uint64_t seed, std::size_t i) {
  if constexpr (std::is_same_v<T, float>) return hash_uniform(seed, i);
  else return static_cast<T>(hash_u32(seed, i) & 0xFF);
}

/// What a fetch of texel t returns: the float itself, or byte / 255 in normalised-float mode.
template <class T>
float texel_value(T t) {
  if constexpr (std::is_same_v<T, float>) return t;
  else return static_cast<float>(t) / 255.0f;
}

/// The four cudaTextureAddressMode behaviours. Wrap and mirror apply to normalised
/// coordinates only (the hardware treats them as clamp for unnormalised ones).
enum class address_mode { wrap, clamp, mirror, border };

/// Texel index i of an axis of n texels after the address mode; -1 for border (reads 0).
inline long long resolve_index(long long i, long long n, address_mode m) {
  switch (m) {
    case address_mode::clamp:
      return i < 0 ? 0 : (i >= n ? n - 1 : i);
    case address_mode::border:
      return (i < 0 || i >= n) ? -1 : i;
    case address_mode::wrap:
      return ((i % n) + n) % n;
    case address_mode::mirror: {
      const long long p = ((i % (2 * n)) + 2 * n) % (2 * n);
      return p < n ? p : 2 * n - 1 - p;
    }
  }
  return -1;
}

/// One fetch: the value and how far the hardware's 8-bit-fraction weights may move it.
struct fetch {
  double value = 0;
  double tolerance = 0;
};

/// A width x height texture of floats (row-major). A 1D texture (one_d) filters along x only;
/// a 2D texture of height 1 still blends with its address mode's rows above and below.
struct image {
  std::vector<float> texels;
  long long width = 0, height = 1;
  bool one_d = false;

  double at(long long x, long long y, address_mode m) const {
    const long long ix = resolve_index(x, width, m), iy = resolve_index(y, height, m);
    if (ix < 0 || iy < 0) return 0.0;  // border colour 0
    return texels[static_cast<std::size_t>(iy * width + ix)];
  }

  /// Point sampling at texel coordinates (u, v) (normalised ones already scaled by width/height).
  fetch point(double u, double v, address_mode m) const {
    return {at(static_cast<long long>(std::floor(u)), static_cast<long long>(std::floor(v)), m), 0.0};
  }

  /// Bilinear filtering: the blend of the four texels around (u - 0.5, v - 0.5). Each weight
  /// error is at most 2^-8 (truncation or rounding to 8 fractional bits), so the value moves by
  /// at most 2^-8 times the spread of the four texels along each axis.
  fetch linear(double u, double v, address_mode m) const {
    const double xb = u - 0.5, yb = one_d ? 0.0 : v - 0.5;
    const auto i = static_cast<long long>(std::floor(xb)), j = static_cast<long long>(std::floor(yb));
    const double a = xb - static_cast<double>(i), b = yb - static_cast<double>(j);
    const double t00 = at(i, j, m), t10 = at(i + 1, j, m);
    const double t01 = one_d ? t00 : at(i, j + 1, m), t11 = one_d ? t10 : at(i + 1, j + 1, m);
    const double value = (1 - a) * (1 - b) * t00 + a * (1 - b) * t10 + (1 - a) * b * t01 + a * b * t11;
    const double dx = std::fmax(std::fabs(t10 - t00), std::fabs(t11 - t01));
    const double dy = std::fmax(std::fabs(t01 - t00), std::fabs(t11 - t10));
    const double magnitude =
        std::fmax(std::fmax(std::fabs(t00), std::fabs(t10)), std::fmax(std::fabs(t01), std::fabs(t11)));
    return {value, (dx + dy) / 256.0 + 1e-6 * magnitude};
  }
};

/// The CPU reference of box3x3_kernel (access_patterns.cuh) at (x, y): the same additions in the same order.
inline float box_reference(const float* img, int w, int h, int x, int y) {
  float sum = 0.0f;
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx) {
      const int cx = x + dx < 0 ? 0 : (x + dx >= w ? w - 1 : x + dx);
      const int cy = y + dy < 0 ? 0 : (y + dy >= h ? h - 1 : y + dy);
      sum += img[static_cast<std::size_t>(cy) * w + cx];
    }
  return sum;
}

}  // namespace memscope::texture
