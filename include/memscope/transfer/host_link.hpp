#pragma once
// The link between the host and a GPU, as the system describes it: the PCIe generation and
// width from sysfs (/sys/bus/pci/devices/<bus id>/), the GPU's NUMA node, and the theoretical
// bandwidth per direction. Pure C++: the root directory is a parameter, so tests feed it a
// fake sysfs tree.

#include <cctype>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

namespace memscope::transfer {

struct host_link {
  bool known = false;
  std::string kind;                     // "PCIe 5.0 x16", "NVLink-C2C", or why it is unknown
  double max_gts = 0, current_gts = 0;  // per lane, GT/s
  int max_width = 0, current_width = 0;
  int numa_node = -1;  // -1: the system does not say
  /// Theoretical bytes per second per direction at the link's maximum, after line coding
  /// (8b/10b up to PCIe 2.0, 128b/130b from 3.0, about 242/256 for PCIe 6.0's FLIT mode); 0 unknown.
  double per_direction_gbps = 0;
};

/// "0000:3B:00.0" or "00000000:3b:00.0" (CUDA's and NVML's spellings) as sysfs names it.
inline std::string sysfs_bus_id(const std::string& bus_id) {
  unsigned domain = 0, bus = 0, dev = 0, fn = 0;
  if (std::sscanf(bus_id.c_str(), "%x:%x:%x.%x", &domain, &bus, &dev, &fn) != 4) return {};
  char out[32];
  std::snprintf(out, sizeof out, "%04x:%02x:%02x.%x", domain, bus, dev, fn);
  return out;
}

inline int pcie_generation(double gts) {
  const double speeds[] = {2.5, 5.0, 8.0, 16.0, 32.0, 64.0};
  for (int g = 0; g < 6; ++g)
    if (gts > 0 && gts < speeds[g] * 1.05) return g + 1;
  return 0;
}

inline double pcie_gbps_per_direction(double gts, int width) {
  const int gen = pcie_generation(gts);
  const double coding = gen <= 2 ? 0.8 : gen <= 5 ? 128.0 / 130.0 : 242.0 / 256.0;
  return gts * width * coding / 8.0;
}

namespace detail {
inline bool read_first_number(const std::string& path, double& value) {
  std::ifstream f(path);
  std::string text;
  if (!f || !std::getline(f, text)) return false;
  std::istringstream is(text);
  return static_cast<bool>(is >> value);
}
}  // namespace detail

/// Reads the link of the GPU at `bus_id`. `host_page_tables` (the device attribute
/// cudaDevAttrPageableMemoryAccessUsesHostPageTables) marks a CPU and GPU that share page tables
/// over NVLink-C2C (Grace Hopper, Grace Blackwell): there PCIe figures do not describe the path.
inline host_link read_host_link(const std::string& bus_id, bool host_page_tables,
                                const std::string& sysfs_root = "/sys") {
  host_link l;
  const std::string id = sysfs_bus_id(bus_id);
  const std::string dir = sysfs_root + "/bus/pci/devices/" + id + "/";
  double numa = -1;
  if (!id.empty() && detail::read_first_number(dir + "numa_node", numa)) l.numa_node = static_cast<int>(numa);
  if (host_page_tables) {
    l.kind = "NVLink-C2C (the CPU and GPU share page tables)";
    return l;
  }
  double w = 0, cw = 0;
  if (id.empty() || !detail::read_first_number(dir + "max_link_speed", l.max_gts) ||
      !detail::read_first_number(dir + "max_link_width", w)) {
    l.kind = "unknown (" + (id.empty() ? "bus id '" + bus_id + "' not understood" : dir + " not readable") + ")";
    return l;
  }
  detail::read_first_number(dir + "current_link_speed", l.current_gts);
  detail::read_first_number(dir + "current_link_width", cw);
  l.max_width = static_cast<int>(w);
  l.current_width = static_cast<int>(cw);
  const int gen = pcie_generation(l.max_gts);
  l.known = gen > 0 && l.max_width > 0;
  char text[64];
  std::snprintf(text, sizeof text, "PCIe %d.0 x%d", gen, l.max_width);
  l.kind = l.known ? text : "unknown (unrecognised link speed)";
  if (l.known) l.per_direction_gbps = pcie_gbps_per_direction(l.max_gts, l.max_width);
  return l;
}

}  // namespace memscope::transfer
