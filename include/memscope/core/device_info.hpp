#pragma once
// Everything memscope reports about a GPU: the figures the seeds talk about and those the
// suites size themselves from. Filled by query_device_info(); plain data otherwise.

#include <cstddef>
#include <cstdint>
#include <string>

namespace memscope {

struct device_info {
  int ordinal = 0;
  std::string name;
  std::string uuid;
  int cc_major = 0;
  int cc_minor = 0;
  int sm_count = 0;
  int sm_clock_khz = 0;      // peak
  int memory_clock_khz = 0;  // peak
  int memory_bus_width_bits = 0;
  double theoretical_dram_gbps = 0;  // 2 (DDR) x memory clock x bus width / 8
  std::size_t total_global_mem = 0;
  std::size_t total_const_mem = 0;
  int l2_bytes = 0;
  int persisting_l2_max_bytes = 0;
  int access_policy_max_window_bytes = 0;
  std::size_t shared_per_block = 0;        // default limit without opt-in
  std::size_t shared_per_block_optin = 0;  // after cudaFuncSetAttribute(MaxDynamicSharedMemorySize)
  std::size_t shared_per_sm = 0;
  std::size_t reserved_shared_per_block = 0;
  int regs_per_sm = 0;
  int regs_per_block = 0;
  int max_threads_per_block = 0;
  int max_threads_per_sm = 0;
  int max_blocks_per_sm = 0;
  int warp_size = 0;
  bool global_l1_cache = false;
  bool ecc_enabled = false;
  bool cluster_launch = false;
  int max_cluster_size_portable = 0;     // largest cluster the occupancy API accepts without opt-in
  int max_cluster_size_nonportable = 0;  // with cudaFuncAttributeNonPortableClusterSizeAllowed
  int pci_bus_id = 0;
  int driver_version = 0;  // e.g. 13000
  int runtime_version = 0;

  int compute_capability() const { return cc_major * 10 + cc_minor; }
};

/// One GPU model (not necessarily one board): same name, compute capability, SMs and memory.
inline bool same_model(const device_info& a, const device_info& b) {
  return a.name == b.name && a.compute_capability() == b.compute_capability() && a.sm_count == b.sm_count &&
         a.total_global_mem == b.total_global_mem;
}

/// Formats a CUDA version integer (13000) as "13.0".
inline std::string format_cuda_version(int v) {
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

}  // namespace memscope
