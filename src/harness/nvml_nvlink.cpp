#include "harness/nvml_nvlink.hpp"

#include "harness/nvml_library.hpp"
#include "harness/text_output.hpp"
#include "memscope/transfer/host_link.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <map>
#include <set>

namespace memscope {
namespace {

// NVML's ABI for the NVLink calls, declared here so that no NVML header is needed to build
// (nvml.h: nvmlFieldValue_t, nvmlPciInfo_t and the NVML_FI_DEV_NVLINK_* field ids).
union nvml_value {
  double d;
  unsigned ui;
  unsigned long ul;
  unsigned long long ull;
  long long sll;
  int si;
  unsigned short us;
};
struct nvml_field_value {
  unsigned field_id;
  unsigned scope_id;  // the link, for NVLink fields
  long long timestamp;
  long long latency_us;
  int value_type;
  nvml::result result;
  nvml_value value;
};
struct nvml_pci_info {
  char bus_id_legacy[16];
  unsigned domain, bus, device, pci_device_id, pci_subsystem_id;
  char bus_id[32];
};
constexpr unsigned field_link_count = 91;  // NVML_FI_DEV_NVLINK_LINK_COUNT
constexpr unsigned field_speed = 164;      // NVML_FI_DEV_NVLINK_GET_SPEED (MBps)
constexpr unsigned field_state = 165;      // NVML_FI_DEV_NVLINK_GET_STATE
constexpr unsigned field_version = 166;    // NVML_FI_DEV_NVLINK_GET_VERSION
constexpr unsigned max_links = 18;         // NVML_NVLINK_MAX_LINKS in NVML 12 on
using fields_fn = nvml::result (*)(nvml::device, int, nvml_field_value*);
using remote_pci_fn = nvml::result (*)(nvml::device, unsigned, nvml_pci_info*);
using remote_type_fn = nvml::result (*)(nvml::device, unsigned, int*);

/// Active links taken together: how many, their speeds and their NVLink version.
struct link_group {
  int links = 0;
  double total = 0, slowest = 0, fastest = 0;
  std::set<unsigned> versions;

  void add(const nvlink_link& l) {
    slowest = links == 0 ? l.gbps : std::min(slowest, l.gbps);
    fastest = std::max(fastest, l.gbps);
    ++links;
    total += l.gbps;
    versions.insert(l.version);
  }
  /// "NVLink 4.0" where every link reports one known version; "NVLink" otherwise.
  std::string version() const {
    // NVML's version codes (nvmlNvlinkVersion_t): 1 is 1.0, 2 is 2.0, 3 is 2.2, 4 is 3.0, ...
    static const char* const names[] = {"", "1.0", "2.0", "2.2", "3.0", "3.1", "4.0", "5.0", "6.0"};
    const unsigned code = versions.size() == 1 ? *versions.begin() : 0;
    return code > 0 && code < std::size(names) ? std::string("NVLink ") + names[code] : std::string("NVLink");
  }
  /// One link's speed, or the range where the links' speeds print differently.
  std::string speed() const { return figure_span(slowest, fastest, 1) + " GB/s"; }
};

}  // namespace

nvlink_state read_nvlinks(const std::string& gpu_uuid) {
  nvlink_state st;
  const nvml::gpu gpu(gpu_uuid);
  if (!gpu.ok()) {
    st.note = gpu.why() + ": NVLinks unknown";
    return st;
  }
  const auto fields = gpu.entry<fields_fn>("nvmlDeviceGetFieldValues");
  const auto remote_pci = gpu.entry<remote_pci_fn>("nvmlDeviceGetNvLinkRemotePciInfo_v2");
  const auto remote_type = gpu.entry<remote_type_fn>("nvmlDeviceGetNvLinkRemoteDeviceType");
  if (!fields || !remote_pci) {
    st.note = "the NVIDIA management library lacks the NVLink queries (too old a driver): NVLinks unknown";
    return st;
  }
  const nvml::device dev = gpu.handle();
  nvml_field_value count{};
  count.field_id = field_link_count;
  unsigned n = max_links;
  if (fields(dev, 1, &count) == nvml::success && count.result == nvml::success) n = std::min(count.value.ui, max_links);
  st.read = true;
  for (unsigned link = 0; link < n; ++link) {
    nvml_field_value v[3] = {};
    v[0].field_id = field_state;
    v[1].field_id = field_speed;
    v[2].field_id = field_version;
    for (auto& f : v) f.scope_id = link;
    if (fields(dev, 3, v) != nvml::success || v[0].result != nvml::success) continue;  // no such link
    nvlink_link l;
    l.index = link;
    l.active = v[0].value.ui == 1;
    if (v[1].result == nvml::success) l.gbps = v[1].value.ui / 1000.0;
    if (v[2].result == nvml::success) l.version = v[2].value.ui;
    if (l.active) {
      nvml_pci_info pci{};
      if (remote_pci(dev, link, &pci) == nvml::success)
        l.far_bus_id.assign(pci.bus_id, strnlen(pci.bus_id, sizeof pci.bus_id));
      int type = -1;
      if (remote_type && remote_type(dev, link, &type) == nvml::success)
        l.far_end = type == 0 ? nvlink_far_end::gpu : type == 2 ? nvlink_far_end::switch_ : nvlink_far_end::other;
    }
    st.links.push_back(l);
  }
  st.note = st.links.empty() ? "NVML reports no NVLink on this GPU" : "NVLinks from the NVIDIA management library";
  return st;
}

std::string describe_nvlinks(const nvlink_state& self) {
  if (!self.read) return self.note;
  if (self.links.empty()) return "none (NVML reports no NVLink on this GPU)";
  link_group active;
  std::map<std::string, int> ends;
  for (const auto& l : self.links) {
    if (!l.active) continue;
    active.add(l);
    const char* kind = l.far_end == nvlink_far_end::gpu       ? "GPU"
                       : l.far_end == nvlink_far_end::switch_ ? "NVSwitch"
                                                              : "device";
    ++ends[std::string(kind) + " " + (l.far_bus_id.empty() ? std::string("?") : l.far_bus_id)];
  }
  std::string out = fmt::format("{} of {} active", active.links, self.links.size());
  if (active.links == 0) return out;
  out += fmt::format(", {}, {} per link and direction ({:.1f} GB/s)", active.version(), active.speed(), active.total);
  std::string far;
  for (const auto& [end, n] : ends) far += fmt::format("{}{} to {}", far.empty() ? "" : ", ", n, end);
  return out + "; far ends: " + far;
}

nvlink_path nvlink_to(const nvlink_state& self, const std::string& peer_bus_id) {
  nvlink_path p;
  if (!self.read) {
    p.text = self.note;
    return p;
  }
  const std::string peer = transfer::sysfs_bus_id(peer_bus_id);
  link_group reaching;
  bool via_switch = false;
  for (const auto& l : self.links) {
    if (!l.active) continue;
    const bool direct = !peer.empty() && transfer::sysfs_bus_id(l.far_bus_id) == peer;
    const bool switched = l.far_end == nvlink_far_end::switch_;
    if (!direct && !switched) continue;
    via_switch = via_switch || switched;
    reaching.add(l);
  }
  p.links = reaching.links;
  p.gbps_per_direction = reaching.total;
  if (p.links == 0) {
    p.text = self.links.empty() ? "no NVLink (NVML reports none on this GPU)"
                                : "no active NVLink reaches this peer (NVML): the path is PCIe";
    return p;
  }
  p.text = fmt::format("{} x{}{} (NVML: {} per link and direction, the signalling rate)", reaching.version(), p.links,
                       via_switch ? " through NVSwitch" : "", reaching.speed());
  return p;
}

}  // namespace memscope
