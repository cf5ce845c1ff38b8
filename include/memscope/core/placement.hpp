#pragma once
// Where a latency measurement's blocks land. A chase between two blocks of a cluster costs what
// the path between their SMs costs, and the scheduler picks the SMs: one cluster measures one
// pair (boards of one model differ for the same DSMEM load), and with little
// shared memory both blocks may even share an SM. The measurements that depend on it run one
// cluster on every SM pair the GPU holds at once, each block alone on its SM, and report the
// median and the range over the pairs. Pure C++.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace memscope {

/// Dynamic shared memory for a block that leaves no room for a second block on its SM: at
/// least `needed`, and with `static_bytes` and the per-block reservation more than half of the
/// SM's `per_sm` bytes. 0 per_sm (unknown): `needed`.
constexpr std::size_t sole_block_smem(std::size_t needed, std::size_t per_sm, std::size_t reserved,
                                      std::size_t static_bytes = 0) {
  const std::size_t over_half = per_sm / 2 + 1;
  const std::size_t taken = reserved + static_bytes;
  const std::size_t fill = per_sm == 0 || over_half <= taken ? 0 : over_half - taken;
  return std::max(needed, fill);
}

/// Whether a block with `smem` bytes of dynamic shared memory (and `static_bytes` of static)
/// leaves no room on its SM for a second one: what sole_block_smem aimed for, where it could.
constexpr bool keeps_sm_alone(std::size_t smem, std::size_t per_sm, std::size_t reserved,
                              std::size_t static_bytes = 0) {
  return per_sm > 0 && 2 * (smem + reserved + static_bytes) > per_sm;
}

/// A row's `placement` label: whether each block of its clusters of `cluster` ran alone on its SM.
inline std::string placement_label(bool sole, int cluster) {
  return sole ? "one block per SM"
              : "blocks may share an SM: no cluster of " + std::to_string(cluster) + " fits one block per SM";
}

/// `k` of `ids` (ascending SM ids) spread evenly over them, first and last included where k
/// allows: SMs from every part of the GPU, where latency depends on an SM's place. All of them
/// where k is at least their count.
inline std::vector<unsigned> spread_pick(const std::vector<unsigned>& ids, std::size_t k) {
  if (k >= ids.size()) return ids;
  std::vector<unsigned> out;
  for (std::size_t i = 0; i < k; ++i) out.push_back(ids[k == 1 ? 0 : i * (ids.size() - 1) / (k - 1)]);
  return out;
}

/// How many distinct SMs the blocks of a launch ran on (each block reported its %smid).
inline std::size_t distinct_sms(std::vector<unsigned> sms) {
  std::sort(sms.begin(), sms.end());
  return static_cast<std::size_t>(std::unique(sms.begin(), sms.end()) - sms.begin());
}

}  // namespace memscope
