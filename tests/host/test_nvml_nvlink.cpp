// nvml_nvlink.hpp: the NVLink path between two GPUs from NVML's link list (direct links, links
// to an NVSwitch, none), and the reader on a machine without NVML.

#include "harness/nvml_nvlink.hpp"

#include <gtest/gtest.h>

using namespace memscope;

namespace {

nvlink_link link(unsigned i, bool active, double gbps, nvlink_far_end end, const std::string& bus) {
  nvlink_link l;
  l.index = i;
  l.active = active;
  l.gbps = gbps;
  l.version = 6;  // NVML's code for NVLink 4.0
  l.far_end = end;
  l.far_bus_id = bus;
  return l;
}

}  // namespace

TEST(NvLink, DirectLinksToThePeerCountOthersDoNot) {
  nvlink_state st;
  st.read = true;
  for (unsigned i = 0; i < 18; ++i) st.links.push_back(link(i, true, 26.562, nvlink_far_end::gpu, "00000000:1B:00.0"));
  st.links.push_back(link(18, false, 0, nvlink_far_end::unknown, ""));
  // CUDA spells bus ids with a 4-digit domain; NVML with 8: both name the same GPU.
  auto p = nvlink_to(st, "0000:1b:00.0");
  EXPECT_EQ(p.links, 18);
  EXPECT_NEAR(p.gbps_per_direction, 478.1, 0.1);
  EXPECT_NE(p.text.find("NVLink 4.0 x18"), std::string::npos) << p.text;
  // Another GPU, not at the far end of any link: the path is PCIe.
  p = nvlink_to(st, "0000:2a:00.0");
  EXPECT_EQ(p.links, 0);
  EXPECT_EQ(p.gbps_per_direction, 0);
  EXPECT_NE(p.text.find("PCIe"), std::string::npos) << p.text;
  const auto line = describe_nvlinks(st);
  EXPECT_NE(line.find("18 of 19 active"), std::string::npos) << line;
  EXPECT_NE(line.find("478.1 GB/s"), std::string::npos) << line;
}

// Links whose speeds differ print their range; speeds that print alike print once.
TEST(NvLink, LinkSpeedsPrintAsARangeOnlyWhereTheyDiffer) {
  nvlink_state st;
  st.read = true;
  st.links = {link(0, true, 25.0, nvlink_far_end::gpu, "00000000:1B:00.0"),
              link(1, true, 25.01, nvlink_far_end::gpu, "00000000:1B:00.0")};
  EXPECT_NE(describe_nvlinks(st).find("25.0 GB/s"), std::string::npos) << describe_nvlinks(st);
  EXPECT_EQ(describe_nvlinks(st).find("25.0-25.0"), std::string::npos) << describe_nvlinks(st);
  st.links[1].gbps = 50;
  EXPECT_NE(describe_nvlinks(st).find("25.0-50.0 GB/s"), std::string::npos) << describe_nvlinks(st);
}

TEST(NvLink, AnNvSwitchReachesEveryPeer) {
  nvlink_state st;
  st.read = true;
  for (unsigned i = 0; i < 4; ++i) st.links.push_back(link(i, true, 25, nvlink_far_end::switch_, "00000000:C0:00.0"));
  const auto p = nvlink_to(st, "0000:3b:00.0");
  EXPECT_EQ(p.links, 4);
  EXPECT_DOUBLE_EQ(p.gbps_per_direction, 100);
  EXPECT_NE(p.text.find("NVSwitch"), std::string::npos) << p.text;
}

TEST(NvLink, UnknownLinksSayWhy) {
  nvlink_state none;
  none.note = "the NVIDIA management library (libnvidia-ml.so.1) is not installed: NVLinks unknown";
  EXPECT_EQ(nvlink_to(none, "0000:3b:00.0").gbps_per_direction, 0);
  EXPECT_EQ(nvlink_to(none, "0000:3b:00.0").text, none.note);
  // On this machine (no GPU, perhaps no NVML) the reader answers without throwing.
  const auto st = read_nvlinks("GPU-00000000-0000-0000-0000-000000000000");
  EXPECT_FALSE(st.read && !st.links.empty());
  EXPECT_FALSE(describe_nvlinks(st).empty());
}
