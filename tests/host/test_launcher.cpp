// launcher.hpp, fleet.hpp and host_link.hpp: ranks from launcher variables, --device lists,
// per-board file names, the per-board comparison, and the link read from a fake sysfs.

#include "harness/axis.hpp"
#include "harness/launcher.hpp"
#include "memscope/transfer/host_link.hpp"
#include "report/fleet.hpp"
#include "test_rows.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>

using namespace memscope;

namespace {

std::function<const char*(const char*)> env(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const char* name) -> const char* {
    const auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}

results_doc board(const std::string& host, const std::string& uuid, double copy_us, double read_us) {
  results_doc d;
  d.host = host;
  d.device.uuid = uuid;
  d.device.name = "Test GPU";
  for (auto [name, us] : {std::pair<const char*, double>{"copy", copy_us}, {"read", read_us}}) {
    case_result r = memscope::testing::timed_row("bandwidth", name, {{"bytes", std::int64_t{1} << 30}}, us * 1e-6, 0.002);
    r.bytes_read = std::uint64_t{1} << 30;
    r.gbps = static_cast<double>(r.bytes_read) / r.stats.median / 1e9;
    d.results.push_back(r);
  }
  return d;
}

}  // namespace

TEST(Launcher, RanksFromEachLaunchersVariables) {
  EXPECT_FALSE(detect_launcher(env({})).found());
  auto r = detect_launcher(env({{"SLURM_PROCID", "5"}, {"SLURM_LOCALID", "1"}, {"SLURM_NTASKS", "8"}}));
  EXPECT_EQ(r.launcher, "Slurm");
  EXPECT_EQ(r.rank, 5);
  EXPECT_EQ(r.local_rank, 1);
  EXPECT_EQ(r.size, 8);
  // mpirun inside a Slurm allocation: the MPI launcher's variables describe the process.
  r = detect_launcher(env({{"SLURM_PROCID", "0"}, {"OMPI_COMM_WORLD_RANK", "3"}, {"OMPI_COMM_WORLD_LOCAL_RANK", "3"}}));
  EXPECT_EQ(r.launcher, "Open MPI");
  EXPECT_EQ(r.rank, 3);
  r = detect_launcher(env({{"PMI_RANK", "2"}}));  // no local rank: one node
  EXPECT_EQ(r.local_rank, 2);
  EXPECT_FALSE(detect_launcher(env({{"PMI_RANK", "two"}})).found());
}

TEST(Launcher, DeviceListsAndTheirErrors) {
  EXPECT_EQ(parse_device_list("all", 2), (std::vector<int>{0, 1}));
  EXPECT_EQ(parse_device_list("2,0", 3), (std::vector<int>{2, 0}));
  EXPECT_EQ(parse_device_list("1", 2), (std::vector<int>{1}));
  EXPECT_THROW(parse_device_list("0,0", 2), usage_error);
  EXPECT_THROW(parse_device_list("2", 2), usage_error);
  EXPECT_THROW(parse_device_list("", 2), usage_error);
  EXPECT_THROW(parse_device_list("0,", 2), usage_error);
  EXPECT_THROW(parse_device_list("-1", 2), usage_error);
  EXPECT_THROW(parse_device_list("all", 0), usage_error);
  try {
    parse_device_list("4", 2);
  } catch (const usage_error& e) {
    EXPECT_NE(std::string(e.what()).find("2 GPUs (0-1)"), std::string::npos) << e.what();
  }
}

TEST(Launcher, PerBoardFileNames) {
  EXPECT_EQ(per_board_path("out/run.json", "node7", 3), "out/run.node7.gpu3.json");
  EXPECT_EQ(per_board_path("run", "node7", 0), "run.node7.gpu0");
  EXPECT_EQ(per_board_path("", "node7", 0), "");
  EXPECT_FALSE(host_name().empty());
}

TEST(Fleet, TheSlowBoardStandsOutAndNoiseDoesNot) {
  // Three boards; the third copies 20% slower. Reads differ by 1%: within the threshold.
  const std::vector<results_doc> boards = {board("a", "GPU-1", 100, 50), board("a", "GPU-2", 101, 50.5),
                                           board("b", "GPU-3", 125, 50.2)};
  const auto s = report::compare_boards(boards);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0].off, 0u);
  EXPECT_EQ(s[1].off, 0u);
  EXPECT_EQ(s[2].off, 1u);
  EXPECT_EQ(s[2].compared, 2u);
  EXPECT_LT(s[2].worst, -0.15);
  EXPECT_NE(s[2].worst_row.find("copy"), std::string::npos);
  const auto lines = report::fleet_table(boards);
  EXPECT_NE(lines.front().find("3 boards"), std::string::npos);
  // Two boards: a difference is shown but cannot name the bad one.
  const auto two = report::fleet_table({boards[0], boards[2]});
  EXPECT_NE(two.back().find("cannot say which one"), std::string::npos);
  EXPECT_NE(report::fleet_table({boards[0], boards[1]}).back().find("no board stands out"), std::string::npos);
}

// Two boards 20% apart, one of them noisy: both stand out or neither, never only the quiet
// one (a bound from each board's own error excused the noisy board and flagged the other).
TEST(Fleet, TwoBoardsStandOutTogether) {
  auto quiet = board("a", "GPU-1", 100, 50);
  auto noisy = board("b", "GPU-2", 125, 50);
  for (auto& r : noisy.results) r.stats.rse = 0.02;
  auto s = report::compare_boards({quiet, noisy});
  EXPECT_EQ(s[0].off, s[1].off);
  EXPECT_EQ(s[0].off, 1u);  // 11% from the mean, beyond 2 x sqrt(0.002^2 + 0.02^2) = 4%
  for (auto& r : noisy.results) r.stats.rse = 0.08;  // now within the noise: neither
  s = report::compare_boards({quiet, noisy});
  EXPECT_EQ(s[0].off, 0u);
  EXPECT_EQ(s[1].off, 0u);
}

TEST(HostLink, PcieFromAFakeSysfs) {
  namespace fs = std::filesystem;
  const fs::path root = fs::temp_directory_path() / "memscope_fake_sysfs";
  fs::remove_all(root);
  const fs::path dev = root / "bus/pci/devices/0000:3b:00.0";
  fs::create_directories(dev);
  const auto put = [&](const char* name, const char* text) { std::ofstream(dev / name) << text; };
  put("max_link_speed", "32.0 GT/s PCIe\n");
  put("max_link_width", "16\n");
  put("current_link_speed", "2.5 GT/s PCIe\n");  // an idle link trains down; the maximum is the capability
  put("current_link_width", "16\n");
  put("numa_node", "1\n");
  const auto l = transfer::read_host_link("00000000:3B:00.0", false, root.string());
  EXPECT_TRUE(l.known);
  EXPECT_EQ(l.kind, "PCIe 5.0 x16");
  EXPECT_NEAR(l.per_direction_gbps, 63.0, 0.1);
  EXPECT_EQ(l.numa_node, 1);
  EXPECT_EQ(l.current_gts, 2.5);
  EXPECT_NEAR(transfer::pcie_gbps_per_direction(16.0, 16), 31.5, 0.1);
  EXPECT_NEAR(transfer::pcie_gbps_per_direction(5.0, 8), 4.0, 0.01);
  const auto missing = transfer::read_host_link("0000:99:00.0", false, root.string());
  EXPECT_FALSE(missing.known);
  EXPECT_NE(missing.kind.find("not readable"), std::string::npos);
  EXPECT_FALSE(transfer::read_host_link("garbage", false, root.string()).known);
  EXPECT_NE(transfer::read_host_link("0000:3b:00.0", true, root.string()).kind.find("NVLink-C2C"), std::string::npos);
  fs::remove_all(root);
}
