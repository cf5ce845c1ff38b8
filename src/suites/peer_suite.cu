// Suite `peer`: another GPU's memory. Copies between the run's GPU and a peer by the copy
// engine (cudaMemcpyPeerAsync) and by an SM kernel dereferencing the peer's memory, reading,
// writing and both at once, with peer access enabled and (copy engine only) disabled; and the
// latency of one dependent load from the peer's memory against the GPU's own. With one GPU
// every point skips, saying so.

#include "advise/questions.hpp"
#include "harness/registry.hpp"
#include "harness/nvml_nvlink.hpp"
#include "harness/state.hpp"
#include "harness/suite.hpp"
#include "harness/text_output.hpp"
#include "present/chart_spec.hpp"
#include "present/findings.hpp"
#include "suites/chase_rows.cuh"

#include "memscope/cache/pointer_chase.cuh"
#include "memscope/core/device_buffer.hpp"
#include "memscope/core/on_device.hpp"
#include "memscope/core/stream_fork.hpp"
#include "memscope/transfer/sm_copy.cuh"

#include <fmt/format.h>

#include <map>
#include <optional>
#include <set>
#include <utility>

namespace memscope::suites {
namespace {

namespace tr = memscope::transfer;
namespace lt = memscope::latency;

/// The peer of this point: the GPU `peer_offset` ordinals after the run's GPU (wrapping), so
/// `--device all` with offsets 1..N-1 covers every ordered pair. Skips where there is none.
int peer_of(case_state& st) {
  int count = 0;
  MEMSCOPE_CUDA_CALL(cudaGetDeviceCount(&count));
  const int self = st.device().ordinal;
  const auto offset = st.get_int("peer_offset");
  if (count < 2) st.skip("one GPU in this system: no peer to measure");
  if (offset >= count) st.skip(fmt::format("peer_offset {} needs more than {} GPUs", offset, count));
  const int peer = static_cast<int>((self + offset) % count);
  cudaDeviceProp a{}, b{};
  MEMSCOPE_CUDA_CALL(cudaGetDeviceProperties(&a, self));
  MEMSCOPE_CUDA_CALL(cudaGetDeviceProperties(&b, peer));
  st.add_label("peer", fmt::format("GPU {} ({})", peer, b.name));
  int rank = 0, atomics = 0;
  MEMSCOPE_CUDA_CALL(cudaDeviceGetP2PAttribute(&rank, cudaDevP2PAttrPerformanceRank, self, peer));
  MEMSCOPE_CUDA_CALL(cudaDeviceGetP2PAttribute(&atomics, cudaDevP2PAttrNativeAtomicSupported, self, peer));
  st.add_label("p2p", fmt::format("performance rank {}, native atomics {}", rank, atomics ? "yes" : "no"));
  return peer;
}

/// The NVLink path to the peer as NVML describes it, in the row: what the link is, and its
/// theoretical bandwidth for the directions the point moves (NVML read once per pair).
void record_link(case_state& st, int peer, int directions, bool access) {
  if (!access) {
    st.add_label(link_label,
                 "none between the GPUs: without peer access the driver stages the copy through host memory");
    return;
  }
  static std::map<std::pair<std::string, int>, nvlink_path> known;
  const auto key = std::make_pair(st.device().uuid, peer);
  auto it = known.find(key);
  if (it == known.end()) {
    char bus[32] = {};
    MEMSCOPE_CUDA_CALL(cudaDeviceGetPCIBusId(bus, sizeof bus, peer));
    it = known.emplace(key, nvlink_to(read_nvlinks(st.device().uuid), bus)).first;
  }
  st.add_label(link_label, it->second.text);
  if (it->second.gbps_per_direction > 0) st.add_metric(link_gbps_metric, it->second.gbps_per_direction * directions);
}

/// Peer access on or off for this point, in both directions (it is a property of the contexts,
/// so each point sets the state it measures): enabled one way only, a copy engine moving data
/// both ways at once runs at about half the rate (docs/data-path.md). Skips where the pair
/// cannot have it.
void set_peer_access(case_state& st, int peer, bool enabled) {
  const int self = st.device().ordinal;
  int can = 0, back = 0;
  MEMSCOPE_CUDA_CALL(cudaDeviceCanAccessPeer(&can, self, peer));
  MEMSCOPE_CUDA_CALL(cudaDeviceCanAccessPeer(&back, peer, self));
  if (enabled && !(can && back))
    st.skip(fmt::format("GPUs {} and {} cannot access each other's memory directly (cudaDeviceCanAccessPeer = {}/{})",
                        self, peer, can, back));
  // The runtime cannot be asked whether access is on, and turning it on twice is an error a
  // sanitizer reports: memscope records what it turned on (nothing else in it touches peer access).
  static std::set<std::pair<int, int>> on;
  const auto set = [&](int other) {
    int current = 0;
    MEMSCOPE_CUDA_CALL(cudaGetDevice(&current));
    const std::pair<int, int> pair{current, other};
    if (enabled == (on.count(pair) > 0)) return;
    MEMSCOPE_CUDA_CALL(enabled ? cudaDeviceEnablePeerAccess(other, 0) : cudaDeviceDisablePeerAccess(other));
    if (enabled) on.insert(pair);
    else on.erase(pair);
  };
  set(peer);
  on_device there(peer);
  set(self);
}

void copy_case(case_state& st) {
  const int peer = peer_of(st);
  const int self = st.device().ordinal;
  const bool sm = st.get_string("engine") == "sm_kernel";
  const bool access = st.get_string("access") == "enabled";
  const std::string dir = st.get_string("direction");
  const bool read = dir != "write", write = dir != "read";
  if (sm && !access) st.skip("an SM kernel reaches another GPU's memory only with peer access enabled");
  set_peer_access(st, peer, access);
  const auto bytes = static_cast<std::size_t>(st.get_int("bytes"));
  const cudaStream_t s = st.stream();
  const std::uint64_t seed = st.seed();

  device_buffer<std::uint8_t> local_src(write ? bytes : 0), local_dst(read ? bytes : 0), check(write ? bytes : 0);
  device_buffer<std::uint8_t> peer_src, peer_dst;
  {
    on_device there(peer);
    peer_src = device_buffer<std::uint8_t>(read ? bytes : 0);
    peer_dst = device_buffer<std::uint8_t>(write ? bytes : 0);
    tr::fill_pattern(peer_src.data(), peer_src.bytes(), seed, nullptr);
    tr::fill_pattern(peer_dst.data(), peer_dst.bytes(), ~(seed + 1), nullptr);
    MEMSCOPE_CUDA_CALL(cudaDeviceSynchronize());
  }
  tr::fill_pattern(local_src.data(), local_src.bytes(), seed + 1, s);
  tr::fill_pattern(local_dst.data(), local_dst.bytes(), ~seed, s);
  MEMSCOPE_CUDA_CALL(cudaStreamSynchronize(s));

  stream_fork streams(1);
  const auto launch = [&](cudaStream_t main) {
    if (sm && read && write) {  // one launch, its blocks split between the two directions
      tr::sm_copy_both(local_dst.data(), peer_src.data(), peer_dst.data(), local_src.data(), bytes, main);
      return;
    }
    const auto pull = [&](cudaStream_t q) {
      if (sm) tr::sm_copy(local_dst.data(), peer_src.data(), bytes, q);
      else if (bytes) MEMSCOPE_CUDA_CALL(cudaMemcpyPeerAsync(local_dst.data(), self, peer_src.data(), peer, bytes, q));
    };
    const auto push = [&](cudaStream_t q) {
      if (sm) tr::sm_copy(peer_dst.data(), local_src.data(), bytes, q);
      else if (bytes) MEMSCOPE_CUDA_CALL(cudaMemcpyPeerAsync(peer_dst.data(), peer, local_src.data(), self, bytes, q));
    };
    if (read && write) streams.run(main, {pull, push});
    else if (read) pull(main);
    else push(main);
  };
  launch(s);
  MEMSCOPE_CUDA_CALL(cudaStreamSynchronize(s));
  if (read) st.check(tr::verify_pattern(local_dst.data(), bytes, seed, s, "read from the peer"));
  if (write) {
    // On the checking stream: cudaMemcpyPeer runs on the legacy default stream, which a
    // non-blocking stream does not wait for (the first version of this check raced with it).
    if (bytes) MEMSCOPE_CUDA_CALL(cudaMemcpyPeerAsync(check.data(), self, peer_dst.data(), peer, bytes, s));
    st.check(tr::verify_pattern(check.data(), bytes, seed + 1, s, "written to the peer"));
  }
  st.add_bytes_read(bytes * (read + write));
  record_link(st, peer, read + write, access);
  // Without peer access the driver stages the copy through host memory and may block the
  // calling thread while it does: those points are timed unheld.
  st.exec(launch, access ? exec_tag::held : exec_tag::sync);
}

/// One thread's dependent loads through a 1 GiB ring in the peer's memory, or in its own:
/// the cycles of chases from chase_rows::sms_per_point SMs spread over the GPU, each from its own point of the ring
/// (chase_rows.cuh), not the event time of a replay, which found the slots it had just walked
/// in an L2.
void latency_case(case_state& st) {
  const int peer = peer_of(st);
  const bool remote = st.get_string("memory") == "peer";
  if (remote) set_peer_access(st, peer, true);
  const auto ring_bytes = static_cast<std::uint64_t>(st.get_int("bytes"));
  const std::uint64_t slots = ring_bytes / (lt::policy::slot_words * 4);
  const std::uint64_t seed = st.seed();
  const int holder = remote ? peer : st.device().ordinal;
  device_buffer<std::uint32_t> ring;
  {
    on_device there(holder);
    ring = device_buffer<std::uint32_t>(slots * lt::policy::slot_words);
    lt::build_ring(ring.data(), slots, seed, nullptr);
    MEMSCOPE_CUDA_CALL(cudaDeviceSynchronize());
  }
  chase_rows::ring_row<lt::load_path::global_cg>(st, ring.data(), 0, slots, seed, holder);
}

axis peer_offset_axis() {
  return axis::integers("peer_offset", {1}, "the peer is the GPU this many ordinals after the run's (wrapping)")
      .with_range(1, 1023);
}

void peer_findings(const present::suite_view& v, std::vector<std::string>& out) {
  const auto rows = v.rows(present::where("copy"));
  const auto size = present::largest(rows, "bytes");
  std::string peer_name;
  for (const auto* r : rows)
    if (r->labels.count("peer"))
      peer_name = r->labels.at("peer") + (r->labels.count("p2p") ? ", " + r->labels.at("p2p") : "");
  if (!peer_name.empty()) out.push_back("peer: " + peer_name);
  for (const auto* r : rows)
    if (r->labels.count(link_label) && r->string_axis("direction") == "read" && r->string_axis("access") == "enabled") {
      out.push_back("link: " + r->labels.at(link_label) +
                    (r->metric(link_gbps_metric) > 0
                         ? fmt::format(", {:.0f} GB/s per direction in theory", r->metric(link_gbps_metric))
                         : ""));
      break;
    }
  for (const char* dir : {"read", "write", "both"}) {
    std::string line;
    for (const auto* r : v.rows(present::where("copy", {{"direction", std::string(dir)}, {"bytes", size}})))
      line += fmt::format("{}{} {} {:.0f} GB/s{}{}", line.empty() ? "" : "; ",
                          r->string_axis("engine") == "sm_kernel" ? "SM" : "CE",
                          r->string_axis("access") == "enabled" ? "with peer access" : "without", r->gbps,
                          r->metric("vs_copy_engine") > 0 && r->string_axis("engine") == "sm_kernel"
                              ? fmt::format(" ({:.3f}x CE)", r->metric("vs_copy_engine"))
                              : "",
                          r->metric(link_gbps_metric) > 0 && r->string_axis("access") == "enabled"
                              ? fmt::format(" = {:.2f}x the link", r->gbps / r->metric(link_gbps_metric))
                              : "");
    if (!line.empty()) out.push_back(fmt::format("{} at {}: {}", dir, format_bytes(static_cast<double>(size)), line));
  }
  std::map<std::string, const case_result*> lat;
  for (const auto* r : v.rows(present::where("latency"))) lat[r->string_axis("memory")] = r;
  if (lat.count("peer") && lat.count("local"))
    out.push_back(
        fmt::format("one dependent load: {:.0f} ns from the peer's memory, {:.0f} ns from its own ({:.1f}x)",
                    lat["peer"]->metric("ns_per_load"), lat["local"]->metric("ns_per_load"),
                    lat["peer"]->metric("ns_per_load") / std::max(1e-9, lat["local"]->metric("ns_per_load"))));
}

std::optional<present::fact_value> peer_access_fact(const present::suite_view& v, std::optional<double>) {
  const auto rows = v.rows(present::where("copy", {{"direction", std::string("read")}}));
  const auto size = present::largest(rows, "bytes");
  std::map<std::string, const case_result*> m;
  for (const auto* r : v.rows(present::where("copy", {{"direction", std::string("read")}, {"bytes", size}})))
    m[r->string_axis("engine") + "/" + r->string_axis("access")] = r;
  if (!m.count("copy_engine/enabled") || !m.count("copy_engine/disabled")) return std::nullopt;
  const auto* on = m["copy_engine/enabled"];
  return present::fact_value{
      fmt::format(
          "reading {} from a peer GPU: {:.0f} GB/s with peer access, {:.0f} GB/s staged through the host without it{}",
          format_bytes(static_cast<double>(size)), on->gbps, m["copy_engine/disabled"]->gbps,
          m.count("sm_kernel/enabled")
              ? fmt::format(", {:.0f} GB/s by a kernel dereferencing the peer's memory", m["sm_kernel/enabled"]->gbps)
              : std::string()),
      on->gbps, "", ""};
}

void map_peer(const present::suite_view& v, present::hierarchy& h) {
  auto& peer = h.at(present::level_id::peer);
  const auto* r = present::best_by(v.rows(present::where("copy", {{"engine", std::string("copy_engine")},
                                                                  {"access", std::string("enabled")},
                                                                  {"direction", std::string("read")}})),
                                   present::gbps());
  if (!r) {
    if (auto why = present::unmeasured_reason(v, "copy"); !why.empty()) peer.missing.push_back(why);
    return;
  }
  peer.bandwidth_gbps = present::gbps_from(*r);
  peer.bandwidth_what = "the next GPU's memory to this one, copy engine, peer access enabled";
  if (const auto l = v.rows(present::where("latency"));
      !l.empty() && std::isfinite(l.front()->metric("cycles_per_load")))
    peer.latency_cycles = present::figure_from(*l.front(), "cycles_per_load");
}
}  // namespace

void register_peer(registry& reg) {
  suite s{reg, "peer", "another GPU's memory: copy engine vs SM kernel, with and without peer access; peer latency"};
  s.add("copy", copy_case)
      .summary("bytes between this GPU and a peer")
      .axis(peer_offset_axis())
      .axis(axis::strings("engine", {"copy_engine", "sm_kernel"},
                          "cudaMemcpyPeerAsync, or a kernel dereferencing peer memory"))
      .axis(axis::strings("access", {"enabled", "disabled"}, "cudaDeviceEnablePeerAccess, or not (the copy is staged)"))
      .axis(
          axis::strings("direction", {"read", "write", "both"}, "peer to this GPU, this GPU to the peer, both at once"))
      .axis(axis::pow2("bytes", {20, 24, 28, 30}, "bytes per direction")
                .with_quick({std::int64_t{1} << 26})
                .with_verify({std::int64_t{1}, std::int64_t{4099}, std::int64_t{1000003}}))
      .baseline("engine", std::string("copy_engine"), "vs_copy_engine")
      .footprint([](const axis_point& p) { return static_cast<std::uint64_t>(p.get_int("bytes")) * 3; });
  s.add("latency", latency_case)
      .summary(fmt::format("one thread's dependent loads through a ring (1 GiB: past the L2) in the peer's memory or "
                           "its own; clock64 cycles "
                           "of chases from {} SMs, each from its own point of the ring",
                           chase_rows::sms_per_point))
      .axis(peer_offset_axis())
      .axis(axis::strings("memory", {"local", "peer"}, "the ring in this GPU's memory or the peer's"))
      .axis(axis::pow2("bytes", {30}, "ring size").with_verify({std::int64_t{1} << 20}))
      .figure(chase_rows::figure());

  s.chart(present::link_bars("Peer copies at {fixed} per direction",
                             present::label_axes({"direction", "engine", "access"}),
                             present::axis_is("engine", "copy_engine"), "copy engine", "copy",
                             "GB/s (bytes over the link / median time)"))
      .finding(peer_findings);
  s.fact(advise::question::peer_access, {"copy"}, "another GPU's memory with and without peer access",
         peer_access_fact);
  s.map_point("copy", std::vector<std::string>{"engine=copy_engine", "access=enabled", "direction=read", "bytes=64M"})
      .map_point("latency", std::vector<std::string>{"memory=peer"})
      .map_reader(map_peer);
}

MEMSCOPE_REGISTER_SUITE(220, register_peer);

}  // namespace memscope::suites
