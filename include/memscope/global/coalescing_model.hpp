#pragma once
// What a warp's access pattern costs in 32-byte sectors, computed on the CPU: the prediction
// the coalescing suite prints beside each measurement. Pure C++.

#include <cstddef>
#include <cstdint>
#include <set>

namespace memscope::coalescing {

/// Bytes the warps asked for over bytes in the 32-byte sectors they touched, averaged over
/// `warps` consecutive warps reading element (offset + i * stride) of a 256-byte aligned array.
inline double sector_efficiency(std::size_t elem_bytes, std::size_t offset, std::size_t stride, int warps = 64) {
  std::size_t sectors = 0;
  for (int w = 0; w < warps; ++w) {
    std::set<std::uint64_t> touched;
    for (int lane = 0; lane < 32; ++lane) {
      const std::uint64_t i = static_cast<std::uint64_t>(w) * 32 + lane;
      const std::uint64_t addr = (offset + i * stride) * elem_bytes;
      // An element is aligned to its size (<= 16 B), so it never straddles a sector.
      touched.insert(addr / 32);
    }
    sectors += touched.size();
  }
  return static_cast<double>(warps) * 32 * elem_bytes / (static_cast<double>(sectors) * 32);
}

}  // namespace memscope::coalescing
