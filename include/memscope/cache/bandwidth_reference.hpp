#pragma once
// What read_ws_kernel (cache_bandwidth.cuh) must sum: the buffer's words, its slices, and each
// slice's wrapping 32-bit sum. Pure C++ (host and device).

#include "memscope/core/host_device.hpp"
#include "memscope/core/parallel.hpp"
#include "memscope/core/random.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace memscope::cache {

/// Word i of the buffer (host and device agree).
MEMSCOPE_HD std::uint32_t buffer_word(std::uint64_t seed, std::uint64_t i) { return hash_u32(seed, i); }

/// [begin, end) in 16-byte vectors of slice `k` when `vecs` are cut into `slices`.
MEMSCOPE_HD void slice_bounds(std::size_t vecs, unsigned slices, unsigned k, std::size_t& begin, std::size_t& end) {
  const std::size_t per = (vecs + slices - 1) / slices;
  begin = per * k < vecs ? per * k : vecs;
  end = begin + per < vecs ? begin + per : vecs;
}

/// The wrapping sum of each of the `slices` slices of a buffer of `vecs` 16-byte vectors.
inline std::vector<std::uint32_t> slice_sums(std::size_t vecs, unsigned slices, std::uint64_t seed) {
  std::vector<std::uint32_t> out(slices, 0);
  for (unsigned k = 0; k < slices; ++k) {
    std::size_t begin = 0, end = 0;
    slice_bounds(vecs, slices, k, begin, end);
    std::vector<std::uint32_t> part(64, 0);
    parallel_chunks(4 * (end - begin), [&](std::size_t c, std::size_t w0, std::size_t w1) {
      for (std::size_t w = w0; w < w1; ++w) part[c] += buffer_word(seed, 4 * begin + w);
    });
    for (auto v : part) out[k] += v;
  }
  return out;
}

}  // namespace memscope::cache
