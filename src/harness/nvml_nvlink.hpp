#pragma once
// The GPU's NVLinks as the NVIDIA management library describes them: which links are up, at
// what speed, of which NVLink version, and what is at their far end (another GPU, an NVSwitch).
// From that, the theoretical bandwidth between two GPUs, which the peer suite puts beside its
// figures. NVML is loaded with dlopen, as for telemetry: without it the reader says why.

#include <string>
#include <vector>

namespace memscope {

enum class nvlink_far_end { gpu, switch_, other, unknown };

struct nvlink_link {
  unsigned index = 0;
  bool active = false;
  double gbps = 0;       // NVML's link speed per direction (its MBps / 1000): the signalling rate
  unsigned version = 0;  // NVML's NVLink version code (nvmlNvlinkVersion_t: 6 is NVLink 4.0), 0 unknown
  nvlink_far_end far_end = nvlink_far_end::unknown;
  std::string far_bus_id;  // PCI bus id of the device at the far end, as NVML spells it
};

struct nvlink_state {
  bool read = false;  // false: `note` says why nothing is known
  std::string note;
  std::vector<nvlink_link> links;
};

/// The links of the GPU with this UUID ("GPU-..."); never throws.
nvlink_state read_nvlinks(const std::string& gpu_uuid);

/// The NVLink path from one GPU to another: the active links whose far end is that GPU (by PCI
/// bus id) or an NVSwitch (which reaches every GPU on it at the link's rate).
struct nvlink_path {
  int links = 0;
  double gbps_per_direction = 0;  // sum of those links' speeds; 0 when no NVLink reaches the peer
  std::string text;               // "NVLink 4.0 x18 (NVML: 26.6 GB/s per link and direction)" or why not
};
nvlink_path nvlink_to(const nvlink_state& self, const std::string& peer_bus_id);

/// One line for `memscope info`: the active links, their version and rate per link and
/// direction, and the far ends, or why nothing is known.
std::string describe_nvlinks(const nvlink_state& self);

}  // namespace memscope
