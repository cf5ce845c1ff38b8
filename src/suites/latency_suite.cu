// Suite `latency`: the latency ladder. One thread chases a random cyclic ring (one load per
// 32-byte sector, each address the previous load's value) through working sets from 1 KB to
// gigabytes, by each path: default loads, ld.global.cg, __ldg and texture fetches
// (`latency/global`), shared memory (`latency/shared`) and the constant bank
// (`latency/constant`), each point from 16 SMs spread over the GPU (chase_rows.cuh). Rows
// report cycles (the mean over those SMs, their range beside it) and ns per load; the report's
// findings split each curve into plateaus (core/levels.hpp): the cache levels, their capacities and latencies.
// Nanoseconds use the SM clock measured in the same case (src/probes/sm_clock.cuh).

#include "harness/registry.hpp"
#include "harness/suite.hpp"
#include "advise/questions.hpp"
#include "harness/text_output.hpp"
#include "present/chart_spec.hpp"
#include "present/findings.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include "harness/state.hpp"
#include "suites/chase_rows.cuh"
#include "suites/constant_chase_row.cuh"

#include "memscope/cache/pointer_chase.cuh"
#include "memscope/cache/chase_ring.hpp"
#include "memscope/core/device_buffer.hpp"
#include "memscope/core/verify.hpp"
#include "memscope/texture/texture_object.cuh"

#include <algorithm>
#include <cmath>
#include <set>
#include <vector>

namespace memscope::suites {
namespace {

namespace lt = memscope::latency;
namespace tx = memscope::texture;

const char* const path_names[] = {"default", "cg", "ldg", "texture"};

using chase_rows::chase_iters;
using chase_rows::chase_stats;
using chase_rows::repeat_chase;
using chase_rows::report;
using chase_rows::timed_iters;

template <lt::load_path P>
void global_chase(case_state& st, std::uint64_t slots) {
  const cudaStream_t s = st.stream();
  const std::uint64_t seed = st.seed();
  tx::texture_object tex;
  tx::limits lim;
  if constexpr (P == lt::load_path::texture) {
    lim = tx::limits::query(st.device().ordinal);
    try {
      tx::check_linear_size(slots * lt::policy::slot_words, lim);  // before the ring is allocated
    } catch (const tx::too_large& e) {
      st.skip(e.what());
    }
  }
  device_buffer<std::uint32_t> ring(slots * lt::policy::slot_words);
  ring.poison(s);
  lt::build_ring(ring.data(), slots, seed, s);
  if constexpr (P == lt::load_path::texture) tex = tx::linear_texture(ring.data(), ring.size(), {}, lim);
  chase_rows::ring_row<P>(st, ring.data(), tex.get(), slots, seed, st.device().ordinal);
}

void global_case(case_state& st) {
  const std::uint64_t slots = static_cast<std::uint64_t>(st.get_int("ws_bytes")) / (lt::policy::slot_words * 4);
  if (slots < 2) st.skip("a working set needs at least two 32-byte slots");
  switch (choice<lt::load_path>(path_names, st.get_string("path"))) {
    case lt::load_path::global_default:
      global_chase<lt::load_path::global_default>(st, slots);
      break;
    case lt::load_path::global_cg:
      global_chase<lt::load_path::global_cg>(st, slots);
      break;
    case lt::load_path::ldg:
      global_chase<lt::load_path::ldg>(st, slots);
      break;
    case lt::load_path::texture:
      global_chase<lt::load_path::texture>(st, slots);
      break;
  }
}

void shared_case(case_state& st) {
  const std::uint64_t slots = static_cast<std::uint64_t>(st.get_int("ws_bytes")) / (lt::policy::slot_words * 4);
  if (slots < 2) st.skip("a working set needs at least two 32-byte slots");
  const std::size_t bytes = slots * lt::policy::slot_words * 4;
  if (bytes > st.device().shared_per_block_optin)
    st.skip("shared memory holds at most " + std::to_string(st.device().shared_per_block_optin) +
            " bytes per block on this GPU");
  const cudaStream_t s = st.stream();
  device_buffer<std::uint32_t> ring(slots * lt::policy::slot_words);
  lt::build_ring(ring.data(), slots, st.seed(), s);
  const unsigned iters = chase_iters(st);
  const std::uint32_t start = lt::ring_start(slots, st.seed());
  const auto words = static_cast<std::uint32_t>(ring.size());
  const chase_stats c = repeat_chase(
      st, chase_rows::chase_sms(st), iters, [&](int) { return lt::ring_position(slots, st.seed(), iters); },
      [&](unsigned long long* out, int, sm_target on, cudaStream_t q) {
        lt::shared_chase(ring.data(), words, start, iters, out, q, on);
      });
  report(st, c, [&](unsigned long long* out, cudaStream_t q) {
    lt::shared_chase(ring.data(), words, start, timed_iters, out, q);
  });
}

void constant_case(case_state& st) { constant_chase_row(st, static_cast<std::size_t>(st.get_int("ws_bytes"))); }

void latency_findings(const present::suite_view& v, std::vector<std::string>& out) {
  // ns at the SM clock the rows measured (median), or the peak clock for rows without it.
  std::vector<double> clocks;
  for (const auto* r : v.rows([](const case_result& r) { return std::isfinite(r.metric("sm_clock_mhz")); }))
    clocks.push_back(r->metric("sm_clock_mhz") * 1e-3);
  std::sort(clocks.begin(), clocks.end());
  const double ghz = clocks.empty() ? v.doc.device.sm_clock_khz * 1e-6 : clocks[clocks.size() / 2];
  std::map<std::string, std::vector<std::pair<double, double>>> curves;
  std::vector<std::string> order;
  for (const auto* r : v.rows()) {
    const std::string key = r->name == "global" ? r->string_axis("path") + " loads" : r->name + " memory";
    if (!curves.count(key)) order.push_back(key);
    curves[key].push_back({static_cast<double>(r->int_axis("ws_bytes").value_or(0)), r->metric("cycles_per_load")});
  }
  for (const auto& key : order) {
    auto& c = curves[key];
    std::sort(c.begin(), c.end());
    // A latency plateau is flat to a few percent of its median, so 6%; and three points at
    // least: two neighbours close together on a rising stretch are a transition.
    const auto levels = detect_levels(c, 0.06, 3);
    if (levels.empty()) continue;
    auto value = [&](double cycles) {
      return fmt::format("{:.0f} cycles ({:.0f} ns)", cycles, ghz > 0 ? cycles / ghz : 0.0);
    };
    // Global paths go through the cache levels; shared and constant memory have their own,
    // named by order.
    std::string text = key.rfind("shared", 0) == 0 || key.rfind("constant", 0) == 0
                           ? ""
                           : present::describe_levels(levels, v.doc.device, value, c.back().first);
    if (text.empty())
      for (std::size_t i = 0; i < levels.size(); ++i)
        text += fmt::format("{}level {}: {} up to {}", i ? "; " : "", i + 1, value(levels[i].cycles),
                            format_bytes(levels[i].last_bytes));
    // Between two plateaus: the working sets where latency climbs (on Hopper, past the near L2
    // partition: far-partition hits and DRAM misses mixed), reported as measured.
    for (std::size_t i = 0; i + 1 < levels.size(); ++i) {
      double lo = 0, hi = 0, first = 0, last = 0;
      for (const auto& [x, y] : c)
        if (x > levels[i].last_bytes && x < levels[i + 1].first_bytes) {
          if (first == 0) {
            first = x;
            lo = y;
          }
          last = x;
          hi = y;
        }
      if (first > 0 && first == last) text += fmt::format("; between, at {}: {:.0f} cycles", format_bytes(first), lo);
      else if (first > 0)
        text +=
            fmt::format("; between, {}-{}: {:.0f} to {:.0f} cycles", format_bytes(first), format_bytes(last), lo, hi);
    }
    out.push_back(fmt::format("pointer chase, {}: {}", key, text));
  }
}

std::optional<present::fact_value> dependent_load_fact(const present::suite_view& v, std::optional<double> at) {
  const auto rows = v.rows(present::where("global", {{"path", std::string("default")}}));
  const auto* far = present::best_by(rows, present::int_axis_of("ws_bytes"));
  const auto* near = at ? present::nearest(rows, "ws_bytes", *at) : far;
  if (!near || !far) return std::nullopt;
  const auto ws = [](const case_result* r) {
    return format_bytes(static_cast<double>(r->int_axis("ws_bytes").value_or(0)));
  };
  present::fact_value f{
      near == far
          ? fmt::format("a dependent load over {} of data (the largest working set measured) costs {:.0f} cycles",
                        ws(near), near->metric("cycles_per_load"))
          : fmt::format("a dependent load over {} of data costs {:.0f} cycles, over {} {:.0f} cycles", ws(near),
                        near->metric("cycles_per_load"), ws(far), far->metric("cycles_per_load")),
      near->metric("cycles_per_load"), "", ""};
  if (at && static_cast<double>(near->int_axis("ws_bytes").value_or(0)) != *at)
    f.nearest_note = "nearest measured working set to " + format_bytes(*at) + ": " + ws(near);
  return f;
}

/// The map's working sets: 1, 4 and 16 KiB, every half octave from 32 KiB to 8x the L2 (256
/// MiB at least), and sixteenths of the SM's L1/shared array from half of it to 1.25x, where
/// the L1's edge lies.
std::vector<std::string> map_global_axes(const device_info& d) {
  const double l2 = d.l2_bytes > 0 ? static_cast<double>(d.l2_bytes) : 50.0 * (1 << 20);
  const double top = std::max(8 * l2, 256.0 * (1 << 20));
  std::set<std::int64_t> sizes{1024, 4096, 16384};
  for (int k = 30; std::ldexp(1.0, k / 2) * (k % 2 ? 1.5 : 1.0) <= top; ++k)
    // 2^15, 1.5 x 2^15, 2^16, ...: half octaves on the sizes the full run measures.
    sizes.insert(static_cast<std::int64_t>(std::ldexp(1.0, k / 2) * (k % 2 ? 1.5 : 1.0)));
  const double l1 = present::l1_capacity(d);
  for (int k = 8; k <= 20; ++k) sizes.insert(static_cast<std::int64_t>(k * l1 / 16) / 32 * 32);
  return {"path=default", "ws_bytes=" + fmt::format("{}", fmt::join(sizes, ","))};
}

struct curve_point {
  double bytes, cycles;
  const case_result* row;
};

std::vector<curve_point> chase_curve(const present::row_list& rows) {
  std::vector<curve_point> c;
  for (const auto* r : rows)
    if (std::isfinite(r->metric("cycles_per_load")))
      c.push_back({static_cast<double>(r->int_axis("ws_bytes").value_or(0)), r->metric("cycles_per_load"), r});
  std::sort(c.begin(), c.end(), [](const curve_point& a, const curve_point& b) { return a.bytes < b.bytes; });
  return c;
}

/// The measured row in the middle of a plateau: its cycles, and their spread over the SMs.
present::map_figure plateau_figure(const std::vector<curve_point>& c, const latency_level& l) {
  std::vector<const curve_point*> on;
  for (const auto& p : c)
    if (p.bytes >= l.first_bytes && p.bytes <= l.last_bytes) on.push_back(&p);
  auto f = present::figure_from(*on[on.size() / 2]->row, "cycles_per_load", "cycles_min", "cycles_max");
  f.value = l.cycles;
  return f;
}

/// The first working set measured past a plateau (NaN when it ends the curve).
double next_size(const std::vector<curve_point>& c, double bytes) {
  for (const auto& p : c)
    if (p.bytes > bytes) return p.bytes;
  return present::no_figure;
}

void map_global(const present::suite_view& v, present::hierarchy& h) {
  using present::level_id;
  const auto c = chase_curve(v.rows(present::where("global", {{"path", std::string("default")}})));
  if (c.empty()) {
    const std::string why = present::unmeasured_reason(v, "global");
    for (auto id : {level_id::l1, level_id::l2, level_id::dram})
      if (!why.empty()) h.at(id).missing.push_back("latency: " + why);
    return;
  }
  std::vector<std::pair<double, double>> xy;
  for (const auto& p : c) xy.push_back({p.bytes, p.cycles});
  const auto levels = detect_levels(xy, 0.06, 2);
  const latency_level* l2 = nullptr;
  const latency_level* dram = nullptr;
  for (const auto& l : levels) {
    const std::string name = present::level_name(l, v.doc.device, false);
    auto& level = h.at(name == "L1" ? level_id::l1 : name == "L2" ? level_id::l2 : level_id::dram);
    if (name == "L2" && !l2) l2 = &l;
    if (name == "DRAM") dram = &l;
    if (level.latency_cycles.known()) continue;  // a later plateau of one level: a far part of it
    level.latency_cycles = plateau_figure(c, l);
    level.notes.push_back(
        fmt::format("dependent loads: {} cycles over {} of the GPU's SMs{}",
                    figure_span(level.latency_cycles.lo, level.latency_cycles.hi), c.front().row->metric("chase_sms"),
                    name == "L1" ? ""
                                 : fmt::format(" (the curve's plateau from {} to {})", format_bytes(l.first_bytes),
                                               format_bytes(l.last_bytes))));
    if (name == "L1") {
      level.detected_lo = l.last_bytes;
      level.detected_hi = next_size(c, l.last_bytes);
      level.detected_from = "dependent-load latency steps up past it (latency/global)";
    }
  }
  if (l2 && dram && dram->first_bytes > l2->last_bytes) {
    // Between the plateaus: a working set spread over the far L2 partition and DRAM.
    double lo = 0, hi = 0;
    for (const auto& p : c)
      if (p.bytes > l2->last_bytes && p.bytes < dram->first_bytes) {
        if (lo == 0) lo = p.cycles;
        hi = p.cycles;
      }
    if (lo > 0)
      h.at(level_id::l2)
          .notes.push_back(
              fmt::format("latency climbs from {:.0f} to {:.0f} cycles between {} and {}: the working set outgrows the "
                          "SM's near L2 partition and then the L2",
                          lo, hi, format_bytes(l2->last_bytes), format_bytes(dram->first_bytes)));
  }
  if (dram) {
    // No step beyond the DRAM plateau's start: the GPU's TLBs reach the whole working set.
    const auto& last = c.back();
    h.at(level_id::dram)
        .notes.push_back(
            last.cycles < 1.1 * dram->cycles
                ? fmt::format(
                      "no TLB step up to {}: dependent loads cost {:.0f} cycles there, within 10% of the plateau",
                      format_bytes(last.bytes), last.cycles)
                : fmt::format("latency rises to {:.0f} cycles at {}: past the TLBs' reach", last.cycles,
                              format_bytes(last.bytes)));
  }
}

void map_shared_and_constant(const present::suite_view& v, present::hierarchy& h) {
  using present::level_id;
  const auto shared = chase_curve(v.rows(present::where("shared")));
  if (!shared.empty())
    h.at(level_id::shared).latency_cycles =
        present::figure_from(*shared.front().row, "cycles_per_load", "cycles_min", "cycles_max");
  else if (auto why = present::unmeasured_reason(v, "shared"); !why.empty())
    h.at(level_id::shared).missing.push_back("latency: " + why);
  const auto c = chase_curve(v.rows(present::where("constant")));
  std::vector<std::pair<double, double>> xy;
  for (const auto& p : c) xy.push_back({p.bytes, p.cycles});
  const auto levels = detect_levels(xy, 0.06, 1);
  auto& k = h.at(level_id::constant);
  if (levels.empty()) {
    if (auto why = present::unmeasured_reason(v, "constant"); !why.empty()) k.missing.push_back("latency: " + why);
    return;
  }
  k.latency_cycles = plateau_figure(c, levels.front());
  if (levels.size() > 1) {
    k.detected_lo = levels.front().last_bytes;
    k.detected_hi = next_size(c, levels.front().last_bytes);
    k.detected_from = "the first-level constant cache: latency steps up past it (latency/constant)";
    k.notes.push_back(fmt::format("past it, {:.0f} cycles up to {} (the next constant-cache level)",
                                  levels.back().cycles, format_bytes(levels.back().last_bytes)));
  }
}
}  // namespace

void register_latency(registry& reg) {
  suite s{reg, "latency", "the latency ladder: a one-thread pointer chase through every path"};
  s.add("global", global_case)
      .summary("one-thread pointer chase over 1 KB .. 4 GB: default loads, ld.global.cg, __ldg, texture fetches")
      .axis(axis::strings("path", {std::begin(path_names), std::end(path_names)},
                          "ld.global (L1 and L2), ld.global.cg (L2 only), __ldg (read-only path), tex1Dfetch"))
      .axis(axis::octaves("ws_bytes", 1024, std::int64_t{4} << 30, "bytes chased, one load per 32-byte sector")
                .with_range(64, std::int64_t{1} << 34)
                // 512 MiB: past twice any L2 so far, where each chase starts from an emptied L2.
                .with_verify({std::int64_t{64}, std::int64_t{1056}, std::int64_t{100000}, std::int64_t{3} << 20,
                              std::int64_t{1} << 29}))
      .footprint([](const axis_point& p) { return static_cast<std::uint64_t>(p.get_int("ws_bytes")); })
      .figure(chase_rows::figure());
  auto shared_sizes = octave_values(1024, 128 * 1024);
  shared_sizes.emplace_back(std::int64_t{224} * 1024);
  s.add("shared", shared_case)
      .summary("one-thread pointer chase in shared memory, 1 KB up to the per-block limit")
      .axis(axis::octaves("ws_bytes", 1024, 128 * 1024, "bytes chased, one load per 32-byte slot")
                .with_full(shared_sizes)
                .with_quick({std::int64_t{1024}, std::int64_t{32768}})
                .with_range(64, std::int64_t{1} << 20)
                .with_verify({std::int64_t{64}, std::int64_t{1056}, std::int64_t{100000}}))
      .figure(chase_rows::figure());
  s.add("constant", constant_case)
      .summary("one-thread pointer chase through the 64 KB constant bank (64-byte steps)")
      .axis(axis::octaves("ws_bytes", 256, 65536, "bytes of the constant bank chased")
                .with_quick(octave_values(1024, 65536, false))
                .with_range(128, 65536)
                .with_verify({std::int64_t{128}, std::int64_t{4160}, std::int64_t{65536}}))
      .figure(chase_rows::figure());

  s.chart(present::line_plot(
              "Pointer-chase latency vs working set",
              [](const case_result& r) { return r.name == "global" ? r.string_axis("path") + " loads" : r.name; },
              "ws_bytes", present::metric_of("cycles_per_load"), "working set", "cycles per load",
              present::scale::log2_bytes)
              .with_spread(chase_rows::spread(), chase_rows::spread_key()))
      .finding(latency_findings);
  s.map_point("global", map_global_axes)
      .map_point("shared", std::vector<std::string>{"ws_bytes=16K"})
      .map_point("constant", std::vector<std::string>{"ws_bytes=1K,2K,3K,64K"})
      .map_reader(map_global)
      .map_reader(map_shared_and_constant);
  s.fact(advise::question::dependent_load_latency, {"global"}, "a dependent global load over a working set of N bytes",
         dependent_load_fact);
}

MEMSCOPE_REGISTER_SUITE(130, register_latency);

}  // namespace memscope::suites
