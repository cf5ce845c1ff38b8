// Suite `transfer`: the data path before the kernel. Host-to-device, device-to-host and both at
// once, from pageable, pinned, write-combined pinned and registered host memory, by the copy
// engine (cudaMemcpyAsync) and by an SM kernel reading or writing mapped host memory
// (zero-copy); host buffers off alignment; copy/compute overlap. Every figure stands beside the link's theoretical
// bandwidth per direction, read from sysfs.

#include "advise/questions.hpp"
#include "harness/registry.hpp"
#include "harness/state.hpp"
#include "harness/stats.hpp"
#include "harness/suite.hpp"
#include "harness/text_output.hpp"
#include "present/chart_spec.hpp"
#include "present/findings.hpp"
#include "suites/host_link_row.hpp"

#include "memscope/core/device_buffer.hpp"
#include "memscope/core/stream_fork.hpp"
#include "memscope/transfer/host_link.hpp"
#include "memscope/transfer/host_memory.hpp"
#include "memscope/transfer/numa.hpp"
#include "memscope/transfer/sm_copy.cuh"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <utility>
#include <vector>

namespace memscope::suites {
namespace {

namespace tr = memscope::transfer;

/// Where the host buffers of a point go: the NUMA node nearest the GPU (the copy case: there
/// when the system says which, unbound otherwise, and the row says so), or the one the `node`
/// axis names (the numa case: skipped where that node does not exist or cannot be bound).
struct host_placement {
  int node = -1;
  bool strict = false;
  std::string why;
};

host_placement place_host(case_state& st, const tr::host_link& link) {
  host_placement p;
  p.strict = st.has_axis("node");
  const auto topology = tr::read_numa_topology();
  auto choice = tr::near_node(topology, link.numa_node);
  if (p.strict && st.get_string("node") == "far" && choice.node >= 0) choice = tr::far_node(topology, choice.node);
  if (choice.node < 0 && p.strict) st.skip(choice.why);
  p.node = choice.node;
  p.why = choice.why;
  return p;
}

/// Host memory on the placement's node; where binding fails, the copy case goes on unbound
/// (and says so), the numa case skips.
tr::host_memory host_buffer(case_state& st, tr::host_kind kind, std::size_t bytes, host_placement& p) {
  if (bytes == 0 || p.node < 0) return tr::host_memory(kind, bytes);
  try {
    return tr::host_memory(kind, bytes, p.node);
  } catch (const tr::numa_error& e) {
    if (p.strict) st.skip(e.what());
    p.node = -1;
    p.why = e.what();
    return tr::host_memory(kind, bytes);
  }
}

/// The row names the node the host pages are on (as the kernel reports them) and why that one;
/// in the numa case, pages elsewhere than asked fail the point.
void record_placement(case_state& st, const host_placement& p, const tr::host_memory& h) {
  const int on = h.first_page_node();
  if (p.node < 0) {
    st.add_label("host_node", "not placed: " + p.why);
    return;
  }
  st.add_label("host_node", on >= 0 ? fmt::format("{} ({})", on, p.why)
                                    : fmt::format("asked for {} ({}); the kernel would not say", p.node, p.why));
  if (p.strict && on >= 0 && on != p.node)
    st.check(verify_result::fail(fmt::format("the host pages are on NUMA node {}, not {}", on, p.node)));
}

/// Each direction's own time within launches that run both at once on two streams: an event
/// at the start and one where each direction ends, for the last `policy::launches` launches
/// since reset() (a ring: the timed launches of a point outnumber the warm-up ones).
class direction_clock {
 public:
  struct policy {
    static constexpr std::size_t launches = 64;
  };
  void start(cudaStream_t on) {
    at_ = next_++ % policy::launches;
    if (at_ == marks_.size()) marks_.emplace_back();  // events made as launches need them
    marks_[at_].start.record(on);
  }
  /// Forgets the launches so far (the verification's, before the timing); keeps the events.
  void reset() { next_ = 0; }
  void up_done(cudaStream_t on) { marks_[at_].up.record(on); }
  void down_done(cudaStream_t on) { marks_[at_].down.record(on); }

  /// The median seconds of each direction over the launches recorded (all finished), or
  /// nothing where none were.
  std::optional<std::pair<double, double>> medians() const {
    std::vector<double> up, down;
    for (std::size_t k = 0; k < std::min(next_, marks_.size()); ++k) {
      up.push_back(marks_[k].up.seconds_since(marks_[k].start));
      down.push_back(marks_[k].down.seconds_since(marks_[k].start));
    }
    if (up.empty()) return std::nullopt;
    return std::pair{median_of(up), median_of(down)};
  }

 private:
  struct marks {
    cuda_event start, up, down;
  };
  std::vector<marks> marks_;
  std::size_t next_ = 0, at_ = 0;
};

/// The engine of each direction: the copy case's `engine` moves both; the engines case names
/// one for each (`up`, `down`).
bool by_sm(case_state& st, const char* direction_axis) {
  return (st.has_axis("engine") ? st.get_string("engine") : st.get_string(direction_axis)) == "sm_kernel";
}

/// The copy case: one engine moves `bytes` between host memory of one kind and the GPU, one
/// way or both at once; the engines case: both ways, each by the engine its axis names.
void copy_case(case_state& st) {
  const auto kind = *tr::host_kind_from(st.get_string("memory"));
  const bool sm_up = by_sm(st, "up"), sm_down = by_sm(st, "down");
  const std::string dir = st.has_axis("direction") ? st.get_string("direction") : "both";
  const bool up = dir != "d2h", down = dir != "h2d";
  const bool sm = (up && sm_up) || (down && sm_down);
  const auto bytes = static_cast<std::size_t>(st.get_int("bytes"));
  // The misaligned case: the host buffers start `offset` bytes past their allocation.
  const auto offset = st.has_axis("offset") ? static_cast<std::size_t>(st.get_int("offset")) : 0;
  if (sm && !tr::is_mapped(kind))
    st.skip(
        "pageable memory is not mapped into the GPU's address space: an SM kernel cannot reach it (pin or register "
        "it)");
  const cudaStream_t s = st.stream();
  const std::uint64_t seed = st.seed();
  const auto link = host_link_of(st.device());
  host_placement where = place_host(st, link);

  tr::host_memory h_src_buffer = host_buffer(st, kind, up ? bytes + offset : 0, where);
  tr::host_memory h_dst_buffer = host_buffer(st, kind, down ? bytes + offset : 0, where);
  const auto at = [offset](void* p) { return p ? static_cast<std::uint8_t*>(p) + offset : nullptr; };
  // The host side's pointers as the CPU and as the GPU (its mapping) see them.
  struct host_side {
    std::uint8_t *data, *mapped;
  };
  const host_side h_src{at(h_src_buffer.data()), at(h_src_buffer.device_pointer())};
  const host_side h_dst{at(h_dst_buffer.data()), at(h_dst_buffer.device_pointer())};
  device_buffer<std::uint8_t> d_dst(up ? bytes : 0), d_src(down ? bytes : 0);
  // Host memory the CPU fills (pageable) or the GPU fills through its mapping (write-combined
  // memory reads back slowly on the CPU); destinations start as the pattern's complement.
  const auto fill = [&](void* host_ptr, void* mapped, std::size_t n, std::uint64_t sd) {
    if (mapped) tr::fill_pattern(mapped, n, sd, s);
    else tr::fill_pattern_host(host_ptr, n, sd);
  };
  if (up) {
    fill(h_src.data, h_src.mapped, bytes, seed);
    tr::fill_pattern(d_dst.data(), bytes, ~seed, s);
  }
  if (down) {
    tr::fill_pattern(d_src.data(), bytes, seed + 1, s);
    fill(h_dst.data, h_dst.mapped, bytes, ~(seed + 1));
  }
  MEMSCOPE_CUDA_CALL(cudaStreamSynchronize(s));

  stream_fork streams(1);
  direction_clock clock;
  const auto launch = [&](cudaStream_t main) {
    // Both directions by the SMs: one launch whose blocks split between the two copies.
    if (sm_up && sm_down && up && down) {
      tr::sm_copy_both(d_dst.data(), h_src.mapped, h_dst.mapped, d_src.data(), bytes, main);
      return;
    }
    const auto upload = [&](cudaStream_t q) {
      if (sm_up) tr::sm_copy(d_dst.data(), h_src.mapped, bytes, q);
      else if (bytes) MEMSCOPE_CUDA_CALL(cudaMemcpyAsync(d_dst.data(), h_src.data, bytes, cudaMemcpyHostToDevice, q));
    };
    const auto download = [&](cudaStream_t q) {
      if (sm_down) tr::sm_copy(h_dst.mapped, d_src.data(), bytes, q);
      else if (bytes) MEMSCOPE_CUDA_CALL(cudaMemcpyAsync(h_dst.data, d_src.data(), bytes, cudaMemcpyDeviceToHost, q));
    };
    // Both ways: the download on a second stream, so that the two engines overlap, each
    // direction's end marked.
    if (up && down) {
      clock.start(main);
      streams.run(main, {[&](cudaStream_t q) { upload(q), clock.up_done(q); },
                         [&](cudaStream_t q) { download(q), clock.down_done(q); }});
    } else if (up) {
      upload(main);
    } else {
      download(main);
    }
  };
  launch(s);
  MEMSCOPE_CUDA_CALL(cudaStreamSynchronize(s));
  if (up) st.check(tr::verify_pattern(d_dst.data(), bytes, seed, s, "host-to-device"));
  // Mapped host memory is checked by the GPU (write-combined memory reads back slowly on the
  // CPU); pageable memory by the host.
  if (down)
    st.check(tr::is_mapped(kind) ? tr::verify_pattern(h_dst.mapped, bytes, seed + 1, s, "device-to-host")
                                 : tr::verify_pattern_host(h_dst.data, bytes, seed + 1, "device-to-host"));

  // Bytes over the link: GB/s is the transfer rate a user compares with the link's figure.
  st.add_bytes_read(bytes * (up + down));
  record_host_link(st, link, up + down);
  record_placement(st, where, up ? h_src_buffer : h_dst_buffer);
  // A copy from or to pageable memory stages through a pinned buffer and waits for the host.
  clock.reset();
  st.exec(launch, !sm && kind == tr::host_kind::pageable ? exec_tag::sync : exec_tag::held);
  // Two streams sharing the link: what each direction got of it.
  if (const auto each = st.result().timed ? clock.medians() : std::nullopt; each && bytes) {
    st.add_metric("h2d_gbps", static_cast<double>(bytes) / each->first * 1e-9);
    st.add_metric("d2h_gbps", static_cast<double>(bytes) / each->second * 1e-9);
  }
}

/// Overlap: a kernel, an upload and a download of the same size, alone, one after another on
/// one stream, and on three streams at once.
struct overlap_policy {
  /// Passes of the device-memory kernel: enough that it is not negligible beside the copies.
  static constexpr int kernel_passes = 16;
};

void overlap_case(case_state& st) {
  const std::string work = st.get_string("work");
  const std::size_t bytes = static_cast<std::size_t>(st.get_int("bytes"));
  const cudaStream_t s = st.stream();
  const std::uint64_t seed = st.seed();
  tr::host_memory h_up(tr::host_kind::pinned, bytes), h_down(tr::host_kind::pinned, bytes);
  device_buffer<std::uint8_t> d_up(bytes), d_down(bytes), d_work_a(bytes), d_work_b(bytes);
  tr::fill_pattern(h_up.device_pointer(), bytes, seed, s);
  tr::fill_pattern(d_down.data(), bytes, seed + 1, s);
  tr::fill_pattern(d_work_a.data(), bytes, seed + 2, s);
  tr::fill_pattern(d_up.data(), bytes, ~seed, s);
  tr::fill_pattern(h_down.device_pointer(), bytes, ~(seed + 1), s);
  tr::fill_pattern(d_work_b.data(), bytes, ~(seed + 2), s);
  MEMSCOPE_CUDA_CALL(cudaStreamSynchronize(s));

  const bool kernel = work == "kernel" || work == "serial" || work == "overlapped";
  const bool upload = work == "h2d" || work == "serial" || work == "overlapped";
  const bool download = work == "d2h" || work == "serial" || work == "overlapped";
  const bool spread = work == "overlapped";
  stream_fork streams(2);
  const auto launch = [&](cudaStream_t main) {
    const auto up = [&](cudaStream_t q) {
      MEMSCOPE_CUDA_CALL(cudaMemcpyAsync(d_up.data(), h_up.data(), bytes, cudaMemcpyHostToDevice, q));
    };
    const auto down = [&](cudaStream_t q) {
      MEMSCOPE_CUDA_CALL(cudaMemcpyAsync(h_down.data(), d_down.data(), bytes, cudaMemcpyDeviceToHost, q));
    };
    const auto compute = [&](cudaStream_t q) {
      for (int p = 0; p < overlap_policy::kernel_passes; ++p)
        tr::sm_copy(p % 2 ? d_work_a.data() : d_work_b.data(), p % 2 ? d_work_b.data() : d_work_a.data(), bytes, q);
    };
    if (spread) {
      streams.run(main, {compute, up, down});
      return;
    }
    if (upload) up(main);
    if (download) down(main);
    if (kernel) compute(main);
  };
  launch(s);
  MEMSCOPE_CUDA_CALL(cudaStreamSynchronize(s));
  if (upload) st.check(tr::verify_pattern(d_up.data(), bytes, seed, s, "upload"));
  if (download) st.check(tr::verify_pattern(h_down.device_pointer(), bytes, seed + 1, s, "download"));
  // An even number of passes ends with the copy back into d_work_b from a.
  if (kernel) st.check(tr::verify_pattern(d_work_b.data(), bytes, seed + 2, s, "kernel"));
  st.add_label("kernel", fmt::format("{} device copies of {}", overlap_policy::kernel_passes,
                                     format_bytes(static_cast<double>(bytes))));
  st.add_bytes_read(bytes * (upload + download));
  // Serial copies take the link one direction at a time; overlapped ones both at once.
  if (upload || download) record_host_link(st, host_link_of(st.device()), spread ? 2 : 1);
  st.exec(launch);
}

std::string gbs(double v) { return fmt::format("{:.1f} GB/s", v); }

struct transfer_policy {
  /// Copies up to this size are described by their time (latency), not their bandwidth.
  static constexpr std::int64_t latency_bytes = 64 << 10;
};

std::string engine_short(const std::string& engine) { return engine == "sm_kernel" ? "SM" : "CE"; }

/// The engines case's rows at its largest size, by (up, down) engine, and what each pairing of
/// one engine each did against the two copy engines.
struct engine_pairings {
  using engines = std::pair<std::string, std::string>;
  std::int64_t size = 0;
  std::map<engines, const case_result*> by;

  static engine_pairings at_largest(const present::suite_view& v) {
    engine_pairings p{present::largest(v.rows(present::where("engines")), "bytes"), {}};
    for (const auto* r : v.rows(present::where("engines", {{"bytes", p.size}})))
      p.by[{r->string_axis("up"), r->string_axis("down")}] = r;
    return p;
  }
  static double rate(const case_result& r, const std::string& dir) { return r.metric(dir + "_gbps"); }
  static bool split(const case_result& r) { return rate(r, "h2d") > 0; }

  /// A pairing of one engine each against the two copy engines, direction by direction.
  struct mixed {
    const case_result* row;
    std::string ce_dir, sm_dir;
    double ce_kept, sm_against_ce;  // each direction's rate against the same direction by a copy engine beside another
  };
  std::vector<mixed> mixed_pairings() const {
    std::vector<mixed> out;
    const auto ce = by.find({"copy_engine", "copy_engine"});
    if (ce == by.end() || !split(*ce->second)) return out;
    for (const auto& [e, r] : by) {
      if (e.first == e.second || !split(*r)) continue;
      const bool sm_up = e.first == "sm_kernel";
      const std::string ce_dir = sm_up ? "d2h" : "h2d", sm_dir = sm_up ? "h2d" : "d2h";
      out.push_back({r, ce_dir, sm_dir, rate(*r, ce_dir) / rate(*ce->second, ce_dir),
                     rate(*r, sm_dir) / rate(*ce->second, sm_dir)});
    }
    return out;
  }
  const case_result* copy_engines() const {
    const auto ce = by.find({"copy_engine", "copy_engine"});
    return ce == by.end() ? nullptr : ce->second;
  }
};

/// The engines case at its largest size: each pairing's total and each direction's share; where
/// one engine of each ran, each direction against the same direction in the copy engines' pair.
void engines_findings(const present::suite_view& v, std::vector<std::string>& out) {
  const auto p = engine_pairings::at_largest(v);
  if (p.by.empty()) return;
  const auto split = [](const case_result& r) {
    return engine_pairings::split(r) ? fmt::format(" (h2d {}, d2h {})", gbs(engine_pairings::rate(r, "h2d")),
                                                   gbs(engine_pairings::rate(r, "d2h")))
                                     : std::string(" (one launch)");
  };
  std::string line;
  for (const auto& [engines, r] : p.by)
    line += fmt::format("{}{} up + {} down {}{}", line.empty() ? "" : "; ", engine_short(engines.first),
                        engine_short(engines.second), gbs(r->gbps), split(*r));
  out.push_back(fmt::format("both ways at once, {} each way from pinned memory: {}",
                            format_bytes(static_cast<double>(p.size)), line));
  for (const auto& m : p.mixed_pairings())
    out.push_back(
        fmt::format("the copy engine's {} beside an SM kernel's {}: {:.2f}x its rate beside a second copy engine; the "
                    "kernel's {} {:.2f}x the copy engine's there (together {:.2f}x the two copy engines)",
                    m.ce_dir, m.sm_dir, m.ce_kept, m.sm_dir, m.sm_against_ce, m.row->gbps / p.copy_engines()->gbps));
}

/// Best figure per (engine, memory, direction) at the largest size, against the link; the SM
/// kernel against the copy engine; small-copy latency; overlap.
void transfer_findings(const present::suite_view& v, std::vector<std::string>& out) {
  const auto copies = v.rows(present::where("copy"));
  const auto size = present::largest(copies, "bytes");
  std::string link_kind;
  double link = 0;
  for (const auto* r : copies)
    if (r->labels.count(link_label)) {
      link_kind = r->labels.at(link_label);
      if (r->string_axis("direction") != "both") link = r->metric(link_gbps_metric);
    }
  if (!link_kind.empty())
    out.push_back(link > 0 ? fmt::format("link: {}, {} per direction in theory", link_kind, gbs(link))
                           : fmt::format("link: {}", link_kind));
  for (const char* dir : {"h2d", "d2h", "both"}) {
    std::string line;
    for (const char* mem : {"pageable", "pinned", "write_combined", "registered"}) {
      const auto rows = v.rows(
          present::where("copy", {{"direction", std::string(dir)}, {"memory", std::string(mem)}, {"bytes", size}}));
      for (const auto* r : rows) {
        line += fmt::format("{}{} {} {}", line.empty() ? "" : "; ", mem, engine_short(r->string_axis("engine")),
                            gbs(r->gbps));
        if (r->metric(link_gbps_metric) > 0)
          line += fmt::format(" ({:.2f}x the link)", r->gbps / r->metric(link_gbps_metric));
      }
    }
    if (!line.empty()) out.push_back(fmt::format("{} at {}: {}", dir, format_bytes(static_cast<double>(size)), line));
  }
  const auto sm_rows = v.rows(present::where("copy", {{"engine", std::string("sm_kernel")}, {"bytes", size}}));
  const auto* worst = present::worst_by(sm_rows, present::metric_of("vs_copy_engine"));
  const auto* best = present::best_by(sm_rows, present::metric_of("vs_copy_engine"));
  if (worst && best)
    out.push_back(
        fmt::format("the SM kernel on mapped host memory at {}: {:.3f}x to {:.3f}x the copy engine (lowest: {} {})",
                    format_bytes(static_cast<double>(size)), worst->metric("vs_copy_engine"),
                    best->metric("vs_copy_engine"), worst->string_axis("memory"), worst->string_axis("direction")));
  // The smallest copies are latency: said only where the run measured small ones.
  const auto smallest = copies.empty() ? 0 : present::int_values(copies, "bytes").front();
  for (const char* engine : {"copy_engine", "sm_kernel"}) {
    if (smallest > transfer_policy::latency_bytes) break;
    if (const auto* r = present::best_by(v.rows(present::where("copy", {{"engine", std::string(engine)},
                                                                        {"memory", std::string("pinned")},
                                                                        {"direction", std::string("h2d")},
                                                                        {"bytes", smallest}})),
                                         [](const case_result& x) { return -x.stats.median; }))
      out.push_back(fmt::format("a {}-byte pinned upload by the {}: {:.2f} us (latency, not bandwidth)", smallest,
                                engine == std::string("sm_kernel") ? "SM kernel" : "copy engine",
                                r->stats.median * 1e6));
  }
  // Host buffers off alignment: each engine against itself on an aligned buffer.
  for (const char* dir : {"h2d", "d2h", "both"}) {
    std::string line;
    for (const auto* r : v.rows(present::where("misaligned", {{"direction", std::string(dir)}})))
      if (const auto offset = r->int_axis("offset").value_or(0); offset != 0 && r->metric("vs_aligned") > 0)
        line += fmt::format("{}{} +{} B {:.2f}x", line.empty() ? "" : "; ", engine_short(r->string_axis("engine")),
                            offset, r->metric("vs_aligned"));
    if (!line.empty())
      out.push_back(
          fmt::format("{} from a pinned buffer off alignment, against the same engine aligned: {}", dir, line));
  }
  std::string numa;
  for (const auto* r : v.rows(present::where("numa", {{"node", std::string("far")}})))
    if (r->metric("vs_near") > 0)
      numa += fmt::format("{}{} {} {} {:.2f}x", numa.empty() ? "" : "; ", r->string_axis("memory"),
                          engine_short(r->string_axis("engine")), r->string_axis("direction"), r->metric("vs_near"));
  if (!numa.empty()) out.push_back("host memory on the far NUMA node against the near one: " + numa);
  engines_findings(v, out);
  std::map<std::string, double> t;
  for (const auto* r : v.rows(present::where("overlap"))) t[r->string_axis("work")] = r->stats.median;
  if (t.count("overlapped") && t.count("serial") && t.count("kernel") && t.count("h2d") && t.count("d2h")) {
    const double longest = std::max({t["kernel"], t["h2d"], t["d2h"]});
    out.push_back(fmt::format(
        "overlap: kernel {:.2f} ms, upload {:.2f} ms, download {:.2f} ms; one stream {:.2f} ms, three "
        "streams {:.2f} ms = {:.2f}x faster ({:.0f}% of the way from one stream to the longest part alone)",
        t["kernel"] * 1e3, t["h2d"] * 1e3, t["d2h"] * 1e3, t["serial"] * 1e3, t["overlapped"] * 1e3,
        t["serial"] / t["overlapped"], 100 * (t["serial"] - t["overlapped"]) / std::max(1e-12, t["serial"] - longest)));
  }
}

std::optional<present::fact_value> host_transfer_fact(const present::suite_view& v, std::optional<double> at) {
  const auto rows =
      v.rows(present::where("copy", {{"engine", std::string("copy_engine")}, {"direction", std::string("h2d")}}));
  present::fact_value f;
  const auto size = present::size_for_fact(rows, "bytes", at, f.nearest_note);
  const auto pick = [&](const char* mem) {
    return present::best_by(v.rows(present::where("copy", {{"engine", std::string("copy_engine")},
                                                           {"direction", std::string("h2d")},
                                                           {"memory", std::string(mem)},
                                                           {"bytes", size}})),
                            present::gbps());
  };
  const auto *pinned = pick("pinned"), *pageable = pick("pageable");
  if (!pinned || !pageable) return std::nullopt;
  f.text =
      fmt::format("a {} upload: pinned {:.1f} GB/s, pageable {:.1f} GB/s ({:.1f}x slower){}",
                  format_bytes(static_cast<double>(size)), pinned->gbps, pageable->gbps, pinned->gbps / pageable->gbps,
                  pinned->labels.count(link_label) ? ", over " + pinned->labels.at(link_label) : std::string());
  f.value = pinned->gbps;
  return f;
}

std::optional<present::fact_value> zero_copy_fact(const present::suite_view& v, std::optional<double>) {
  const auto rows =
      v.rows(present::where("copy", {{"memory", std::string("pinned")}, {"direction", std::string("h2d")}}));
  const auto size = present::largest(rows, "bytes");
  const auto* sm = present::best_by(
      present::filter(
          rows,
          [&](const case_result& r) { return r.string_axis("engine") == "sm_kernel" && r.int_axis("bytes") == size; }),
      present::gbps());
  if (!sm || !(sm->metric("vs_copy_engine") > 0)) return std::nullopt;
  return present::fact_value{
      fmt::format("a kernel reading mapped pinned memory ({}): {:.1f} GB/s = {:.2f}x the copy engine",
                  format_bytes(static_cast<double>(size)), sm->gbps, sm->metric("vs_copy_engine")),
      sm->metric("vs_copy_engine"), "", ""};
}

std::optional<present::fact_value> overlap_fact(const present::suite_view& v, std::optional<double>) {
  std::map<std::string, double> t;
  for (const auto* r : v.rows(present::where("overlap"))) t[r->string_axis("work")] = r->stats.median;
  if (!t.count("serial") || !t.count("overlapped")) return std::nullopt;
  return present::fact_value{
      fmt::format("a kernel, an upload and a download: {:.2f} ms on one stream, {:.2f} ms on three "
                  "({:.2f}x)",
                  t["serial"] * 1e3, t["overlapped"] * 1e3, t["serial"] / t["overlapped"]),
      t["serial"] / t["overlapped"], "", ""};
}

/// The engines case at its largest size: a copy engine's direction beside a kernel's the other
/// way, against the same direction beside a second copy engine (the lower of the two pairings).
std::optional<present::fact_value> mixed_engines_fact(const present::suite_view& v, std::optional<double>) {
  const auto p = engine_pairings::at_largest(v);
  const auto mixed = p.mixed_pairings();
  const auto worst =
      std::min_element(mixed.begin(), mixed.end(), [](const auto& a, const auto& b) { return a.ce_kept < b.ce_kept; });
  if (worst == mixed.end()) return std::nullopt;
  return present::fact_value{
      fmt::format("both ways at once, {} each way: the copy engine's {} beside a kernel moving the other way "
                  "through mapped memory {} ({:.2f}x its rate beside a second copy engine); the two together "
                  "{} against {} for two copy engines",
                  format_bytes(static_cast<double>(p.size)), worst->ce_dir,
                  gbs(engine_pairings::rate(*worst->row, worst->ce_dir)), worst->ce_kept, gbs(worst->row->gbps),
                  gbs(p.copy_engines()->gbps)),
      worst->ce_kept, "", ""};
}

// The copy and numa cases move the same copies: one declaration of their shared axes.
axis engine_axis() {
  return axis::strings("engine", {"copy_engine", "sm_kernel"},
                       "cudaMemcpyAsync, or a kernel reading/writing mapped host memory");
}
axis direction_axis() {
  return axis::strings("direction", {"h2d", "d2h", "both"},
                       "host to device, device to host, both at once (two streams)");
}
std::uint64_t copy_footprint(const axis_point& p) {
  return static_cast<std::uint64_t>(p.get_int("bytes")) * (p.get_string("direction") == "both" ? 2 : 1);
}

void map_host(const present::suite_view& v, present::hierarchy& h) {
  auto& host = h.at(present::level_id::host);
  const auto copy = [&](const char* memory, const char* direction) -> const case_result* {
    const auto rows = v.rows(present::where("copy", {{"engine", std::string("copy_engine")},
                                                     {"memory", std::string(memory)},
                                                     {"direction", std::string(direction)}}));
    return present::best_by(rows, present::gbps());
  };
  const auto* up = copy("pinned", "h2d");
  const auto* down = copy("pinned", "d2h");
  if (!up) {
    if (auto why = present::unmeasured_reason(v, "copy"); !why.empty()) host.missing.push_back(why);
    return;
  }
  host.bandwidth_gbps = present::gbps_from(*up);
  host.bandwidth_what = "pinned host memory to the GPU, copy engine, " +
                        format_bytes(static_cast<double>(up->int_axis("bytes").value_or(0)));
  if (down) host.notes.push_back(fmt::format("pinned, GPU to host: {:.1f} GB/s", down->gbps));
  const auto* pageable_up = copy("pageable", "h2d");
  const auto* pageable_down = copy("pageable", "d2h");
  if (pageable_up && pageable_down)
    h.findings.push_back(
        fmt::format("pageable host memory copies at {:.1f} GB/s up and {:.1f} GB/s down: {:.1f}x and "
                    "{:.1f}x slower than pinned (cudaHostAlloc)",
                    pageable_up->gbps, pageable_down->gbps, up->gbps / pageable_up->gbps,
                    down ? down->gbps / pageable_down->gbps : present::no_figure));
  host.missing.push_back("latency: the map times bulk copies only (memscope run transfer/copy --axis bytes=4)");
}
}  // namespace

void register_transfer(registry& reg) {
  suite s{reg, "transfer",
          "host <-> GPU: pageable, pinned, write-combined, registered; copy engine vs SM zero-copy; overlap"};
  s.add("copy", copy_case)
      .summary("bytes between host memory and the GPU, by the copy engine or an SM kernel on mapped memory")
      .axis(engine_axis())
      .axis(axis::strings("memory", {"pageable", "pinned", "write_combined", "registered"},
                          "malloc, cudaHostAlloc, cudaHostAlloc write-combined, malloc + cudaHostRegister"))
      .axis(direction_axis())
      .axis(axis::pow2("bytes", {2, 6, 10, 14, 16, 18, 20, 22, 24, 26, 28, 30, 32}, "bytes per direction")
                .with_quick({std::int64_t{4}, std::int64_t{1} << 16, std::int64_t{1} << 26})
                .with_verify({std::int64_t{1}, std::int64_t{4}, std::int64_t{4099}, std::int64_t{1000003},
                              std::int64_t{1} << 24}))
      .baseline("engine", std::string("copy_engine"), "vs_copy_engine")
      .footprint(copy_footprint);
  s.add("numa", copy_case)
      .summary("the copy case with the host buffers on the NUMA node nearest the GPU or the farthest from it")
      .axis(axis::strings("node", {"near", "far"},
                          "the host node sysfs puts nearest the GPU, or the farthest from that one"))
      .axis(engine_axis())
      .axis(axis::strings("memory", {"pageable", "pinned"}, "malloc-like pageable memory, or cudaHostAlloc"))
      .axis(direction_axis())
      .axis(axis::pow2("bytes", {28}, "bytes per direction").with_verify({std::int64_t{1000003}}))
      .baseline("node", std::string("near"), "vs_near")
      .footprint(copy_footprint);
  s.add("misaligned", copy_case)
      .summary(
          "the copy case with the pinned host buffer starting some bytes past its allocation (the device side aligned)")
      .axis(engine_axis())
      .axis(axis::strings("memory", {"pinned"}, "cudaHostAlloc"))
      .axis(direction_axis())
      .axis(
          axis::integers("offset", {0, 1, 4, 8, 64}, "bytes the host buffer starts past its (page-aligned) allocation")
              .with_range(0, 4095))
      .axis(axis::pow2("bytes", {28}, "bytes per direction").with_verify({std::int64_t{1000003}}))
      .baseline("offset", std::int64_t{0}, "vs_aligned")
      .baseline("engine", std::string("copy_engine"), "vs_copy_engine")
      .footprint(copy_footprint);
  s.add("engines", copy_case)
      .summary(
          "both directions at once from pinned memory, each by its own engine: two copy engines, two SM copies in one "
          "launch, or one of each (h2d_gbps, d2h_gbps: what each direction got of the link)")
      .axis(axis::strings("up", {"copy_engine", "sm_kernel"},
                          "what moves host to device: cudaMemcpyAsync, or a kernel reading mapped host memory"))
      .axis(axis::strings("down", {"copy_engine", "sm_kernel"},
                          "what moves device to host: cudaMemcpyAsync, or a kernel writing mapped host memory"))
      .axis(axis::strings("memory", {"pinned"}, "cudaHostAlloc"))
      .axis(axis::pow2("bytes", {28, 30}, "bytes per direction")
                .with_quick({std::int64_t{1} << 26})
                .with_verify({std::int64_t{1}, std::int64_t{4099}, std::int64_t{1000003}}))
      .footprint([](const axis_point& p) { return static_cast<std::uint64_t>(p.get_int("bytes")) * 2; });
  s.add("overlap", overlap_case)
      .summary("a device-memory kernel, an upload and a download (pinned): alone, on one stream, on three")
      .axis(axis::strings("work", {"kernel", "h2d", "d2h", "serial", "overlapped"}, "what one launch enqueues"))
      .axis(axis::pow2("bytes", {28}, "bytes per copy and per kernel pass").with_verify({std::int64_t{1000003}}))
      .footprint([](const axis_point& p) { return static_cast<std::uint64_t>(p.get_int("bytes")) * 4; });

  auto lines =
      present::line_plot("Host to device and back, by size ({panel})", present::label_axes({"engine", "memory"}),
                         "bytes", present::gbps(), "bytes per direction", "GB/s", present::scale::log2_bytes);
  lines.keep = present::case_is("copy");
  lines.panel_axis = "direction";
  lines.y_scale = present::scale::log10;
  lines.with_sample_spread();
  s.chart(lines);
  s.map_point("copy", std::vector<std::string>{"engine=copy_engine", "memory=pinned,pageable", "direction=h2d,d2h",
                                               "bytes=64M"})
      .map_reader(map_host);
  s.chart(present::link_bars("Transfers at {fixed} per direction",
                             present::label_axes({"direction", "engine", "memory"}),
                             present::axis_is("engine", "copy_engine"), "copy engine", "copy",
                             "GB/s (bytes over the link / median time)"))
      .chart(present::link_bars(
          "Pinned host buffers off alignment, {fixed} per direction",
          present::label_axes({"direction", "engine", "offset"}),
          [](const case_result& r) { return r.int_axis("offset").value_or(0) == 0; }, "the same engine aligned",
          "misaligned", "GB/s (bytes over the link / median time)"))
      .chart(present::link_bars(
          "Both ways at once from pinned memory, {fixed} each way, each way by its own engine",
          present::label_axes({"up", "down"}),
          [](const case_result& r) {
            return r.string_axis("up") == "copy_engine" && r.string_axis("down") == "copy_engine";
          },
          "two copy engines", "engines", "GB/s (bytes over the link both ways / median time)"))
      .finding(transfer_findings);
  s.fact(advise::question::host_transfer, {"copy"}, "host to GPU by the copy engine, pinned against pageable",
         host_transfer_fact);
  s.fact(advise::question::zero_copy, {"copy"}, "a kernel reading mapped pinned host memory against the copy engine",
         zero_copy_fact);
  s.fact(advise::question::mixed_engines, {"engines"},
         "a copy engine beside a kernel moving the other way through mapped memory, against two copy engines",
         mixed_engines_fact);
  s.fact(advise::question::copy_overlap, {"overlap"}, "copies and a kernel on three streams against one", overlap_fact);
}

MEMSCOPE_REGISTER_SUITE(200, register_transfer);

}  // namespace memscope::suites
