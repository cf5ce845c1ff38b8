// launcher.hpp, fleet.hpp and host_link.hpp: ranks from launcher variables, --device lists,
// per-board file names, the per-board comparison, and the link read from a fake sysfs.

#include "harness/axis.hpp"
#include "harness/launcher.hpp"
#include "memscope/transfer/host_link.hpp"
#include "memscope/transfer/numa.hpp"
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
  d.mode = "run";
  d.host = host;
  d.device.uuid = uuid;
  d.device.name = "Test GPU";
  for (auto [name, us] : {std::pair<const char*, double>{"copy", copy_us}, {"read", read_us}}) {
    case_result r =
        memscope::testing::timed_row("bandwidth", name, {{"bytes", std::int64_t{1} << 30}}, us * 1e-6, 0.002);
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
  EXPECT_EQ(per_board_path("out/run.json.gz", "node7", 3), "out/run.node7.gpu3.json.gz");
  EXPECT_EQ(per_board_path("run.gz", "node7", 1), "run.node7.gpu1.gz");
  EXPECT_EQ(per_board_path("", "node7", 0), "");
  EXPECT_FALSE(host_name().empty());
}

TEST(Fleet, TheSlowBoardStandsOutAndNoiseDoesNot) {
  // Three boards; the third copies 20% slower. Reads differ by 1%: within the threshold.
  const std::vector<results_doc> boards = {board("a", "GPU-1", 100, 50), board("a", "GPU-2", 101, 50.5),
                                           board("b", "GPU-3", 125, 50.2)};
  const auto s = report::compare_boards(boards, builtin_registry());
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0].off, 0u);
  EXPECT_EQ(s[1].off, 0u);
  EXPECT_EQ(s[2].off, 1u);
  EXPECT_EQ(s[2].compared, 2u);
  EXPECT_LT(s[2].worst, -0.15);
  EXPECT_NE(s[2].worst_row.find("copy"), std::string::npos);
  const auto lines = report::fleet_table(boards, builtin_registry());
  EXPECT_NE(lines.front().find("3 boards"), std::string::npos);
  // Two boards: a difference is shown but cannot name the bad one.
  const auto two = report::fleet_table({boards[0], boards[2]}, builtin_registry());
  EXPECT_NE(two.back().find("cannot say which one"), std::string::npos);
  EXPECT_NE(report::fleet_table({boards[0], boards[1]}, builtin_registry()).back().find("no board stands out"),
            std::string::npos);
}

// A chase is judged on its cycles, not on its unwarmed timed launch: a board whose chase costs
// 10% more stands out though its launch took as long, and one whose launch alone is slower does not.
TEST(Fleet, AChaseIsJudgedOnItsCycles) {
  const auto chase = [](const std::string& uuid, double cycles, double seconds) {
    auto d = board("a", uuid, 100, 50);
    auto r = memscope::testing::timed_row("latency", "global",
                                          {{"path", std::string("cg")}, {"ws_bytes", std::int64_t{1024}}}, seconds);
    r.metrics["cycles_per_load"] = cycles;
    d.results.push_back(r);
    return d;
  };
  const auto s = report::compare_boards(
      {chase("GPU-1", 300, 1e-3), chase("GPU-2", 301, 2e-3), chase("GPU-3", 330, 1e-3)}, builtin_registry());
  EXPECT_EQ(s[0].off, 0u);
  EXPECT_EQ(s[1].off, 0u);  // its launch took twice as long; its cycles did not change
  EXPECT_EQ(s[2].off, 1u);
  EXPECT_NE(s[2].worst_row.find("latency/global"), std::string::npos);
  EXPECT_LT(s[2].worst, -0.08);  // 1/330 against 1/301: 9% slower
}

// Two boards 20% apart, one of them noisy: both stand out or neither, never only the quiet
// one (a bound from each board's own error excused the noisy board and flagged the other).
TEST(Fleet, TwoBoardsStandOutTogether) {
  auto quiet = board("a", "GPU-1", 100, 50);
  auto noisy = board("b", "GPU-2", 125, 50);
  for (auto& r : noisy.results) r.stats.rse = 0.02;
  auto s = report::compare_boards({quiet, noisy}, builtin_registry());
  EXPECT_EQ(s[0].off, s[1].off);
  EXPECT_EQ(s[0].off, 1u);                           // 11% from the mean, beyond 2 x sqrt(0.002^2 + 0.02^2) = 4%
  for (auto& r : noisy.results) r.stats.rse = 0.08;  // now within the noise: neither
  s = report::compare_boards({quiet, noisy}, builtin_registry());
  EXPECT_EQ(s[0].off, 0u);
  EXPECT_EQ(s[1].off, 0u);
}

// Rank files of one job: merge keeps each board's rows apart, the document reads back, and
// report splits it into the same boards again.
TEST(FleetMerge, RankFilesBecomeOneDocumentOfSeveralBoards) {
  auto a = board("node1", "GPU-1", 100, 50), b = board("node2", "GPU-2", 125, 50);
  a.rank = 0;
  b.rank = 1;
  b.device.ordinal = 0;
  const auto m = merge({a, b}, {false, {"run.node1.gpu0.json", "run.node2.gpu0.json"}});
  EXPECT_TRUE(m.fleet);
  ASSERT_EQ(m.results.size(), 4u);
  ASSERT_EQ(m.sources.size(), 2u);
  EXPECT_EQ(m.sources[1].host, "node2");
  EXPECT_EQ(m.sources[1].rank, 1);
  const auto back = results_from_json(to_json(m), "fleet.json");
  EXPECT_TRUE(back.fleet);
  const auto boards = split_boards(back);
  ASSERT_EQ(boards.size(), 2u);
  EXPECT_EQ(boards[1].host, "node2");
  EXPECT_EQ(boards[1].device.uuid, "GPU-2");
  EXPECT_EQ(boards[1].rank, 1);
  ASSERT_EQ(boards[1].results.size(), 2u);
  EXPECT_EQ(boards[1].results[0].source, 0u);
  EXPECT_TRUE(boards[1].sources.empty());  // one run per board: its own header again
  EXPECT_NE(report::fleet_table(boards, builtin_registry()).back().find("cannot say which one"), std::string::npos);
  // Another run of one board joins that board inside the fleet document.
  auto c = board("node2", "GPU-2", 125, 50);
  c.rank = 1;
  c.results = {memscope::testing::timed_row("transfer", "copy", {}, 1e-3)};
  const auto m2 = merge({m, c}, {false, {"fleet.json", "more.json"}});
  EXPECT_TRUE(m2.fleet);
  const auto boards2 = split_boards(m2);
  ASSERT_EQ(boards2.size(), 2u);
  EXPECT_EQ(boards2[1].results.size(), 3u);
  EXPECT_EQ(boards2[1].sources.size(), 2u);
  // The same board's point twice is still a repeat.
  EXPECT_THROW(merge({m, b}, {false, {"fleet.json", "again.json"}}), results_error);
}

// A run resumed on another board of its model: its runs name two boards; the document stays
// one board's (the header's), and the per-board table says whose rows it counts as that board's.
TEST(FleetMerge, ARunResumedOnAnotherBoardSaysItsRowsComeFromTwoBoards) {
  auto resumed = board("node1", "GPU-1", 100, 50);
  results_source first, second;
  first.has_board = second.has_board = true;
  first.host = second.host = "node1";
  first.device = resumed.device;
  second.device = resumed.device;
  second.device.uuid = "GPU-3";
  resumed.sources = {first, second};
  resumed.results[1].source = 1;
  EXPECT_EQ(boards_named(resumed), 2u);
  EXPECT_EQ(split_boards(resumed).size(), 1u);
  const auto lines = report::fleet_table({resumed, board("node2", "GPU-2", 100, 50)}, builtin_registry());
  const auto said = std::find_if(lines.begin(), lines.end(), [](const std::string& l) {
    return l.find("come from 2 boards") != std::string::npos;
  });
  ASSERT_NE(said, lines.end());
  EXPECT_NE(said->find("GPU-1"), std::string::npos) << *said;
  EXPECT_EQ(std::count_if(lines.begin(), lines.end(),
                          [](const std::string& l) { return l.find("come from") != std::string::npos; }),
            1);
  // A document of one run, or of runs that name no board, names one.
  EXPECT_EQ(boards_named(board("node1", "GPU-1", 100, 50)), 1u);
  resumed.sources[0].has_board = resumed.sources[1].has_board = false;
  EXPECT_EQ(boards_named(resumed), 1u);
}

// A rank stopped by the job's time limit: merge keeps its stop with its run, the document
// says which file stopped, and the per-board table names the board compared on fewer points.
TEST(FleetMerge, ARankThatStoppedEarlySaysSoInTheMergedDocumentAndTheTable) {
  auto a = board("node1", "GPU-1", 100, 50), b = board("node2", "GPU-2", 125, 50);
  a.rank = 0;
  b.rank = 1;
  b.incomplete = "stopped by SIGTERM while measuring transfer/copy (its samples are dropped); 3 point(s) not run";
  b.results.pop_back();
  const auto m = merge({a, b}, {false, {"run.node1.gpu0.json", "run.node2.gpu0.json"}});
  ASSERT_EQ(m.sources.size(), 2u);
  EXPECT_TRUE(m.sources[0].incomplete.empty());
  EXPECT_EQ(m.sources[1].incomplete, b.incomplete);
  EXPECT_EQ(m.incomplete, "run.node2.gpu0.json: " + b.incomplete);
  const auto back = results_from_json(to_json(m), "fleet.json");
  EXPECT_EQ(back.sources[1].incomplete, b.incomplete);
  const auto boards = split_boards(back);
  ASSERT_EQ(boards.size(), 2u);
  EXPECT_TRUE(boards[0].incomplete.empty());
  EXPECT_EQ(boards[1].incomplete, b.incomplete);
  const auto lines = report::fleet_table(boards, builtin_registry());
  const auto said = std::find_if(lines.begin(), lines.end(),
                                 [](const std::string& l) { return l.find("incomplete") != std::string::npos; });
  ASSERT_NE(said, lines.end());
  EXPECT_NE(said->find("node2"), std::string::npos) << *said;
  EXPECT_NE(said->find("SIGTERM"), std::string::npos) << *said;
  // A finished run merged with a stopped one of the same board: the stop stays the stopped run's.
  auto again = board("node1", "GPU-1", 100, 50);
  again.results.front().suite = "other";
  again.results.back().suite = "other";
  again.incomplete = "stopped by SIGINT before other/copy; 1 point(s) not run";
  auto whole = board("node1", "GPU-1", 100, 50);
  const auto profile = merge({whole, again}, {false, {"a.json", "b.json"}});
  EXPECT_EQ(profile.incomplete, "b.json: " + again.incomplete);
  // A resumed run's document (several processes; the header says how the last one ended).
  auto resumed = profile;
  for (auto& s : resumed.sources) s.incomplete.clear();
  resumed.incomplete = "stopped by SIGTERM before other/read; 1 point(s) not run";
  const auto again_merged = merge({resumed}, {false, {"resumed.json"}});
  EXPECT_EQ(again_merged.sources.back().incomplete, resumed.incomplete);
  EXPECT_TRUE(again_merged.sources.front().incomplete.empty());
}

TEST(FleetMerge, BadJobsAreRefusedWithTheReason) {
  auto a = board("node1", "GPU-1", 100, 50), b = board("node2", "GPU-2", 101, 50);
  a.rank = 0;
  b.rank = 0;  // rank 0 of two jobs
  const auto message = [](const std::vector<results_doc>& docs) {
    try {
      merge(docs, {false, {"x.json", "y.json"}});
    } catch (const results_error& e) {
      return std::string(e.what());
    }
    return std::string("merged");
  };
  EXPECT_NE(message({a, b}).find("rank 0 appears twice"), std::string::npos) << message({a, b});
  b.rank = 1;
  auto shared = board("node1", "GPU-1", 100, 50);  // rank 1 on rank 0's GPU
  shared.rank = 1;
  EXPECT_NE(message({a, shared}).find("shared one GPU"), std::string::npos) << message({a, shared});
  auto newer = b;
  newer.tool_version = "9.9.9";
  EXPECT_NE(message({a, newer}).find("memscope 9.9.9"), std::string::npos) << message({a, newer});
  // --replace joins runs into one profile; a fleet document cannot take part.
  const auto fleet = merge({a, b});
  EXPECT_THROW(merge({fleet, a}, {true, {}}), results_error);
  // Without ranks or shared points, runs of two boards of one model join as one profile.
  auto disjoint = board("node2", "GPU-2", 101, 50);
  disjoint.results.front().suite = "other";
  disjoint.results.back().suite = "other";
  EXPECT_FALSE(merge({board("node1", "GPU-1", 100, 50), disjoint}).fleet);
  // A fleet document whose run names no board is refused by the reader.
  auto j = to_json(fleet);
  j["sources"][1].erase("device");
  EXPECT_THROW(results_from_json(j, "f.json"), results_error);
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

TEST(Numa, NearAndFarNodesFromAFakeSysfs) {
  namespace fs = std::filesystem;
  const fs::path root = fs::temp_directory_path() / "memscope_fake_numa";
  fs::remove_all(root);
  const auto node = [&](int id, const char* cpus, long long kb, const char* distance) {
    const fs::path dir = root / "devices/system/node" / ("node" + std::to_string(id));
    fs::create_directories(dir);
    std::ofstream(dir / "cpulist") << cpus << "\n";
    std::ofstream(dir / "meminfo") << "Node " << id << " MemTotal:       " << kb << " kB\nNode " << id
                                   << " MemFree: 1 kB\n";
    std::ofstream(dir / "distance") << distance << "\n";
  };
  // Two sockets and a GPU-memory node without CPUs (as on Grace Hopper).
  node(0, "0-31", 1 << 20, "10 21 40");
  node(1, "32-63", 1 << 20, "21 10 30");
  node(2, "", 1 << 20, "40 30 10");
  std::ofstream(root / "devices/system/node/online") << "0-2\n";
  const auto t = transfer::read_numa_topology(root.string());
  ASSERT_EQ(t.nodes.size(), 3u);
  EXPECT_EQ(t.host_nodes(), (std::vector<int>{0, 1}));
  EXPECT_EQ(transfer::near_node(t, 1).node, 1);
  EXPECT_EQ(transfer::far_node(t, 1).node, 0);
  EXPECT_EQ(transfer::near_node(t, 2).node, 1);  // the GPU's own node has no CPUs: the nearest host node
  const auto unknown = transfer::near_node(t, -1);
  EXPECT_EQ(unknown.node, -1);
  EXPECT_NE(unknown.why.find("does not say"), std::string::npos) << unknown.why;
  // One host node: it is the near node even where the GPU's node is unknown, and there is no far one.
  fs::remove_all(root);
  node(0, "0-7", 1 << 20, "10");
  std::ofstream(root / "devices/system/node/online") << "0\n";
  const auto one = transfer::read_numa_topology(root.string());
  EXPECT_EQ(transfer::near_node(one, -1).node, 0);
  const auto far = transfer::far_node(one, 0);
  EXPECT_EQ(far.node, -1);
  EXPECT_NE(far.why.find("one NUMA node"), std::string::npos) << far.why;
  EXPECT_TRUE(transfer::read_numa_topology((root / "absent").string()).nodes.empty());
  EXPECT_EQ(transfer::detail::parse_id_list("0-3,8,10-11"), (std::vector<int>{0, 1, 2, 3, 8, 10, 11}));
  EXPECT_TRUE(transfer::detail::parse_id_list("3-1").empty());
}
