#pragma once
// Photographs as histogram inputs (issue: the histogram on real data): python3-skimage's colour
// photographs (scripts/data.sh) as interleaved pixels of CUB's image forms, tiled to any pixel
// count: pixel i is the photograph's pixel i mod its size, so the image repeats top to bottom
// and a count below one image takes its top rows. Smooth regions, neighbours that share values
// and an opaque alpha channel are what synthetic pixels lack.

#include "harness/data_file.hpp"
#include "harness/pam.hpp"
#include "harness/state.hpp"
#include "suites/last_kept.hpp"

#include "memscope/core/cuda_check.hpp"
#include "memscope/core/device_buffer.hpp"
#include "memscope/core/launch.cuh"

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

namespace memscope::suites {

inline const char* const photo_names[] = {"astronaut", "coffee", "chelsea", "rocket", "hubble_deep_field", "retina"};

/// A photograph's 8-bit RGB pixels on the GPU.
struct device_photo {
  std::string name;
  std::size_t pixels = 0;
  device_buffer<std::uint8_t> rgb;
};

/// The photograph `name`, read once and kept while points of the same photograph follow each
/// other; a missing data set skips the point with how to make it.
inline const device_photo& load_photo(case_state& st, const std::string& name) {
  static last_kept<device_photo> kept;
  return kept.get(name, [&] {
    const std::string file = "photos/" + name + ".pam.gz";
    const auto bytes = read_data_file(file);
    if (!bytes) st.skip(missing_data_reason(file));
    const rgb_image img = parse_pam(*bytes, data_path(file));
    device_photo p;
    p.name = name;
    p.pixels = img.pixels();
    p.rgb = device_buffer<std::uint8_t>(img.rgb.size());
    p.rgb.from_host(img.rgb);
    return p;
  });
}

/// ITU-R BT.601 luma, rounded, as most image libraries turn RGB into gray.
__device__ __forceinline__ unsigned photo_luma(const std::uint8_t* p) {
  return (299u * p[0] + 587u * p[1] + 114u * p[2] + 500u) / 1000u;
}

/// An 8-bit value as a float sample in [0, 1): the middle of its 1/256 interval, so 256 even
/// bins over [0, 1) count the 8-bit values themselves.
__device__ __forceinline__ float photo_unit(unsigned v) { return (static_cast<float>(v) + 0.5f) * (1.0f / 256.0f); }

/// out[0, pixels * Channels): RGBA 8-bit (alpha 255) for 4 channels, RGB for 3, luma for 1.
template <class T, int Channels>
__global__ void photo_pixels_kernel(const std::uint8_t* rgb, std::size_t photo_pixels, T* out, std::size_t pixels) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < pixels; i += stride) {
    const std::uint8_t* p = rgb + (i % photo_pixels) * 3;
    T* o = out + i * Channels;
    if constexpr (Channels == 1) {
      if constexpr (std::is_floating_point_v<T>) o[0] = photo_unit(photo_luma(p));
      else o[0] = static_cast<T>(photo_luma(p));
    } else {
      for (int c = 0; c < 3; ++c) {
        if constexpr (std::is_floating_point_v<T>) o[c] = photo_unit(p[c]);
        else o[c] = static_cast<T>(p[c]);
      }
      if constexpr (Channels == 4) o[3] = static_cast<T>(255);
    }
  }
}

/// Fills `elems` samples (whole pixels of Channels samples) from the photograph.
template <class T, int Channels>
void photo_pixels(const device_photo& photo, T* d_out, std::size_t elems, cudaStream_t s) {
  const std::size_t pixels = elems / Channels;
  if (pixels == 0) return;
  const unsigned grid = persistent_grid(photo_pixels_kernel<T, Channels>, 256, 0, pixels, 256);
  photo_pixels_kernel<T, Channels><<<grid, 256, 0, s>>>(photo.rgb.data(), photo.pixels, d_out, pixels);
  MEMSCOPE_CHECK_LAUNCH("photo_pixels_kernel");
}

}  // namespace memscope::suites
