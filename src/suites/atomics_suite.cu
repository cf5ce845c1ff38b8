// Suite `atomics`: what the histogram, the reductions' last step and every counter rely on,
// measured on its own. Add, a compare-and-swap loop and max on i32/u32/u64/f32/f64, in global
// memory, the block's shared memory and a peer block's (DSMEM), against how many threads share
// an address; k addresses per warp; scopes; warp aggregation; a dependent chain's latency, and
// its cost on lines homed in the near and the far L2 partition; whether the binary's 64-bit
// DSMEM atomicMax is atomic. Every counter is checked exactly against the count the reference
// predicts.

#include "core/device_query.hpp"
#include "harness/registry.hpp"
#include "harness/state.hpp"
#include "harness/stats.hpp"
#include "harness/suite.hpp"
#include "advise/questions.hpp"
#include "harness/text_output.hpp"
#include "present/chart_spec.hpp"
#include "present/findings.hpp"
#include "suites/pair_rows.hpp"

#include "memscope/atomic/atomics.cuh"
#include "memscope/core/device_buffer.hpp"
#include "memscope/core/verify.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <vector>

namespace memscope::suites {
namespace {

namespace at = memscope::atomic;

const char* const target_names[] = {"global", "shared", "dsmem"};
const char* const op_names[] = {"add", "cas", "max"};
const char* const scope_names[] = {"device", "block", "system"};

/// Threads per address for a contention name; 0 for the whole grid.
std::uint64_t sharers_of(const std::string& c) {
  if (c == "thread") return 1;
  if (c == "warp") return 32;
  if (c == "block") return at::policy::block_threads;
  if (c == "grid") return 0;
  if (c.rfind("lanes", 0) == 0) return std::stoull(c.substr(5));
  throw usage_error("atomics contention takes thread, lanes2/4/8/16, warp, block or grid, not '" + c + "'");
}

struct setup {
  at::op o = at::op::add;
  at::target tg = at::target::global;
  at::scope sc = at::scope::device;
  bool aggregate = false;
  std::uint64_t sharers = 1;  // resolved: the grid's thread count for "grid"
  unsigned blocks = 0;
  int iters = 0;
};

std::string axis_or(case_state& st, const char* name, const char* fallback) {
  return st.point().has(name) ? st.get_string(name) : std::string(fallback);
}

template <class T>
std::vector<T> expected(const setup& s, std::size_t counters) {
  const auto where = at::counters_of(s.tg);
  std::vector<T> want(counters);
  for (std::size_t i = 0; i < counters; ++i)
    want[i] = static_cast<T>(at::reference::expected_counter(i, at::offers_max(s.o), where, s.blocks,
                                                             at::policy::block_threads, s.sharers, s.iters));
  return want;
}

template <class T, at::op O, at::target Tg, at::scope Sc, bool Agg>
void run_kernel(case_state& st, const setup& s) {
  auto kernel = at::atomic_kernel<T, O, Tg, Sc, Agg>;
  const std::uint64_t threads = std::uint64_t{s.blocks} * at::policy::block_threads;
  const unsigned per_block = at::reference::counters_per_block(at::policy::block_threads, s.sharers);
  const std::size_t counters = Tg == at::target::global
                                   ? static_cast<std::size_t>((threads + s.sharers - 1) / s.sharers)
                                   : std::size_t{s.blocks} * per_block;
  const std::size_t smem = Tg == at::target::global ? 0 : std::size_t{per_block} * sizeof(T);
  if constexpr (Tg == at::target::dsmem) {
    if (!st.device().cluster_launch) st.skip("DSMEM atomics: " + cluster_skip_reason(st.device()));
    if (max_active_clusters(kernel, at::policy::block_threads, at::policy::cluster, smem) == 0)
      st.skip("clusters of 2 blocks of this kernel cannot be co-scheduled on this GPU");
  }
  device_buffer<T> out(counters);
  const auto launch = [&](cudaStream_t stream) {
    if constexpr (Tg == at::target::dsmem) {
      launch_cluster(kernel, dim3(s.blocks), dim3(at::policy::block_threads), at::policy::cluster, smem, stream,
                     out.data(), s.sharers, s.iters);
    } else {
      kernel<<<s.blocks, at::policy::block_threads, smem, stream>>>(out.data(), s.sharers, s.iters);
      MEMSCOPE_CHECK_LAUNCH("atomic_kernel");
    }
  };
  // Global counters accumulate, so they start at zero; shared ones are written whole: poison.
  if (Tg == at::target::global) MEMSCOPE_CUDA_CALL(cudaMemsetAsync(out.data(), 0, counters * sizeof(T), st.stream()));
  else out.poison(st.stream());
  launch(st.stream());
  MEMSCOPE_CUDA_CALL(cudaStreamSynchronize(st.stream()));
  const auto got = out.to_host();
  const auto want = expected<T>(s, counters);
  st.check(compare_exact(got.data(), got.size(), [&](std::size_t i) { return want[i]; }));
  st.add_metric("addresses", static_cast<double>(counters));
  st.add_metric("threads_per_address", static_cast<double>(s.sharers));
  st.add_elements(threads * static_cast<std::size_t>(s.iters));
  // Later launches add to the same global counters; their values are no longer checked, and
  // the work per launch is the same.
  st.exec(launch);
}

template <class T, at::op O>
void by_target(case_state& st, const setup& s) {
  if (s.tg == at::target::global) {
    if constexpr (O != at::op::max) {
      if (s.aggregate) return run_kernel<T, O, at::target::global, at::scope::device, true>(st, s);
    }
    if constexpr (O == at::op::add) {
      if (s.sc == at::scope::block) return run_kernel<T, O, at::target::global, at::scope::block, false>(st, s);
      if (s.sc == at::scope::system) return run_kernel<T, O, at::target::global, at::scope::system, false>(st, s);
    }
    return run_kernel<T, O, at::target::global, at::scope::device, false>(st, s);
  }
  if (s.tg == at::target::shared) return run_kernel<T, O, at::target::shared, at::scope::device, false>(st, s);
  return run_kernel<T, O, at::target::dsmem, at::scope::device, false>(st, s);
}

template <class T>
void by_op(case_state& st, const setup& s) {
  if (s.o == at::op::add) return by_target<T, at::op::add>(st, s);
  if (s.o == at::op::cas) return by_target<T, at::op::cas>(st, s);
  if constexpr (std::is_floating_point_v<T>)
    st.skip("there is no atomicMax for floating point (a CAS loop would be one)");
  else {
    // CUDA 13.0 compiles a 64-bit atomicMax on a peer block's shared memory as a plain load and
    // store (atomics.cuh's head): timed as the exact replacement; dsmem_max_probe asks the binary.
    if (sizeof(T) == 8 && s.tg == at::target::dsmem) {
      st.add_label(
          "implementation",
          "atomicCAS loop (atomicMax is not atomic here with CUDA 13.0; atomics/dsmem_max_probe tests this binary's)");
      return run_kernel<T, at::op::cas_max, at::target::dsmem, at::scope::device, false>(st, s);
    }
    return by_target<T, at::op::max>(st, s);
  }
}

void atomic_case(case_state& st) {
  setup s;
  s.o = choice<at::op>(op_names, axis_or(st, "op", "add"));
  s.tg = choice<at::target>(target_names, axis_or(st, "target", "global"));
  s.sc = choice<at::scope>(scope_names, axis_or(st, "scope", "device"));
  s.aggregate = axis_or(st, "aggregate", "none") == "warp";
  const std::string contention = st.get_string("contention");
  s.blocks = st.verify_only() ? 4u : static_cast<unsigned>(st.device().sm_count * at::policy::blocks_per_sm);
  s.iters = st.verify_only() ? 3 : 16;
  s.sharers = sharers_of(contention);
  if (s.sharers == 0) {
    if (s.tg != at::target::global)
      st.skip(std::string(target_names[static_cast<int>(s.tg)]) +
              " memory belongs to one block (a cluster's pair): no grid-wide address");
    s.sharers = std::uint64_t{s.blocks} * at::policy::block_threads;
  }
  if (s.o == at::op::cas && s.sharers > static_cast<std::uint64_t>(at::policy::block_threads))
    st.skip(
        "a CAS loop with every thread of the grid on one address retries about threads^2 times: it measures retries, "
        "not memory (block contention shows the trend)");
  if (s.sc == at::scope::block && s.sharers > static_cast<std::uint64_t>(at::policy::block_threads))
    st.skip("atomicAdd_block is atomic only within a block: with addresses shared across blocks it loses updates");
  const std::string type = axis_or(st, "type", "i32");
  if (type == "i32") by_op<int>(st, s);
  else if (type == "u32") by_op<unsigned>(st, s);
  else if (type == "u64") by_op<unsigned long long>(st, s);
  else if (type == "f32") by_op<float>(st, s);
  else by_op<double>(st, s);
}

/// Global and shared: one chain on one SM (the global ring already costs the mean of both L2
/// homes). DSMEM: a chain from every pair of SMs the GPU holds at once, each block alone on its
/// SM where it can be (placement.hpp); the row is the median over pairs, with their range.
template <at::target Tg>
void chain_body(case_state& st) {
  const int steps = st.verify_only() ? 100 : 4096;
  device_buffer<std::uint32_t> ring;
  if constexpr (Tg == at::target::global) {
    const auto h = at::reference::chain_ring(at::chain_stride(Tg));
    ring = device_buffer<std::uint32_t>(h.size());
    ring.from_host(h);
  }
  auto kernel = at::atomic_chain_kernel<Tg>;
  constexpr int threads = 32;
  cluster_placement place{0, 1, true};  // global and shared: one block
  if constexpr (Tg == at::target::dsmem) {
    if (!st.device().cluster_launch) st.skip("DSMEM atomics: " + cluster_skip_reason(st.device()));
    place = place_one_block_per_sm(kernel, threads, at::policy::cluster, 0);
    if (place.clusters == 0) st.skip("clusters of 2 blocks of the chain kernel cannot be co-scheduled on this GPU");
  }
  const int chains = place.clusters;
  const unsigned blocks = static_cast<unsigned>(Tg == at::target::dsmem ? chains * at::policy::cluster : 1);
  device_buffer<unsigned long long> cycles(static_cast<std::size_t>(chains));
  device_buffer<std::uint32_t> last(static_cast<std::size_t>(chains));
  device_buffer<unsigned> sms(blocks);
  const auto launch = [&](cudaStream_t stream) {
    if constexpr (Tg == at::target::dsmem) {
      launch_cluster(kernel, dim3(blocks), dim3(threads), at::policy::cluster, place.smem, stream, ring.data(), steps,
                     cycles.data(), last.data(), sms.data());
    } else {
      kernel<<<1, threads, 0, stream>>>(ring.data(), steps, cycles.data(), last.data(), sms.data());
      MEMSCOPE_CHECK_LAUNCH("atomic_chain_kernel");
    }
  };
  last.poison(st.stream());
  cycles.poison(st.stream());
  launch(st.stream());
  MEMSCOPE_CUDA_CALL(cudaStreamSynchronize(st.stream()));
  const auto end = at::reference::chain_end(steps);
  const auto got = last.to_host();
  st.check(compare_exact(got.data(), got.size(), [&](std::size_t) { return end; }));
  std::vector<double> per_atomic;
  for (const auto c : cycles.to_host()) per_atomic.push_back(static_cast<double>(c) / steps);
  const auto spread = summarize(per_atomic);
  st.add_metric("cycles_per_atomic", spread.median);
  if constexpr (Tg == at::target::dsmem) {
    pair_rows::record(st, spread, chains, sms.to_host(), place.sole, at::policy::cluster);
  }
  st.add_elements(static_cast<std::size_t>(steps) * static_cast<std::size_t>(chains));
  st.exec(launch);
}

void latency_case(case_state& st) {
  switch (choice<at::target>(target_names, st.get_string("target"))) {
    case at::target::global:
      return chain_body<at::target::global>(st);
    case at::target::shared:
      return chain_body<at::target::shared>(st);
    case at::target::dsmem:
      return chain_body<at::target::dsmem>(st);
  }
}

/// This binary's own 64-bit atomicMax into a peer block's shared memory, a warp on each address:
/// the counters it got wrong are the measurement (racecheck reports this case's races: they
/// are the defect it shows), not a failed check. The time is that of the instruction as
/// compiled, atomic or not: what a lost update saves is not a speed to adopt.
void dsmem_max_probe_case(case_state& st) {
  using probe = at::dsmem_max64_probe;
  if (!st.device().cluster_launch) st.skip("DSMEM atomics: " + cluster_skip_reason(st.device()));
  if (!probe::usable())
    st.skip("clusters of 2 blocks of the probe's kernel cannot run here (or it was compiled below sm_90)");
  const auto r = probe::run(st.stream());
  // Lost updates are the finding; a counter outside what its threads offered is a broken probe.
  st.check(r.out_of_range == 0
               ? verify_result::pass()
               : verify_result::fail(fmt::format("{} of {} counters hold a value none of their threads offered",
                                                 r.out_of_range, r.checked)));
  st.add_metric("counters_wrong", static_cast<double>(r.wrong));
  st.add_metric("counters_checked", static_cast<double>(r.checked));
  st.add_label("atomic", r.wrong == 0 ? "yes" : "no: updates lost");
  st.add_elements(probe::atomics());
  device_buffer<probe::T> out(probe::counters());
  st.exec([&](cudaStream_t stream) { probe::launch(out.data(), stream); });
}

/// The home chase: one thread probes 1024 lines (128 KiB) with atomics, keeps those on one
/// side of the two latency levels and chases them; the host repeats the split on the probe's
/// cycles to know where the chase ends.
void home_case(case_state& st) {
  constexpr int n_lines = 1024;
  const auto sd = st.get_string("side") == "near" ? at::reference::side::near : at::reference::side::far;
  const bool atomic = st.get_string("access") == "atomic";
  const int steps = st.verify_only() ? 100 : 4096;
  device_buffer<std::uint32_t> lines(std::size_t{n_lines} * at::policy::line_words), probe(n_lines), last(1);
  device_buffer<unsigned long long> out(3);
  const auto launch = [&](cudaStream_t stream) {
    at::l2_home_chain(atomic, lines.data(), n_lines, sd, steps, probe.data(), out.data(), last.data(), stream);
  };
  probe.poison(st.stream());
  last.poison(st.stream());
  launch(st.stream());
  MEMSCOPE_CUDA_CALL(cudaStreamSynchronize(st.stream()));
  const auto cycles = probe.to_host();
  const auto split = at::reference::split_of(cycles.data(), n_lines);
  const auto o = out.to_host();
  if (!split.two_levels && sd == at::reference::side::far)
    st.skip(fmt::format("one level: atomics on all {} lines cost {}-{} cycles (5th-95th percentile) from SM {}",
                        n_lines, split.low, split.high, o[2]));
  const auto end = at::reference::home_chain_end(cycles.data(), n_lines, sd, steps);
  const auto got = last.to_host();
  st.check(compare_exact(got.data(), 1, [&](std::size_t) { return end; }));
  st.add_metric("cycles_per_access", static_cast<double>(o[0]) / steps);
  st.add_metric("lines_on_side", static_cast<double>(o[1]));
  st.add_metric("probe_low_cycles", split.low);
  st.add_metric("probe_high_cycles", split.high);
  st.add_metric("sm", static_cast<double>(o[2]));
  st.add_elements(static_cast<std::size_t>(steps));
  st.exec(launch);
}

// ---- presentation ----------------------------------------------------------------------------

double g_ops(const case_result& r) { return r.elements_per_s / 1e9; }

const case_result* add_row(const present::suite_view& v, const char* tg, const char* contention,
                           const char* type = "i32") {
  const auto rows = v.rows(present::where("throughput", {{"target", std::string(tg)},
                                                         {"type", std::string(type)},
                                                         {"op", std::string("add")},
                                                         {"contention", std::string(contention)}}));
  return rows.empty() ? nullptr : rows.front();
}

void atomics_findings(const present::suite_view& v, std::vector<std::string>& out) {
  for (const char* tg : {"global", "shared", "dsmem"}) {
    std::string text;
    for (const char* c : {"thread", "warp", "block", "grid"})
      if (const auto* r = add_row(v, tg, c)) text += fmt::format("{}{} {:.1f}", text.empty() ? "" : ", ", c, g_ops(*r));
    if (!text.empty())
      out.push_back(fmt::format("{} atomicAdd (i32), G atomics/s by threads per address: {}", tg, text));
  }
  std::string types;
  for (const char* t : {"i32", "u32", "u64", "f32", "f64"})
    if (const auto* r = add_row(v, "global", "thread", t))
      types += fmt::format("{}{} {:.1f}", types.empty() ? "" : ", ", t, g_ops(*r));
  if (!types.empty()) out.push_back("global atomicAdd by type, every thread its own address (G atomics/s): " + types);
  const auto cas = v.rows(present::where(
      "throughput", {{"target", std::string("global")}, {"op", std::string("cas")}, {"type", std::string("i32")}}));
  std::string cas_text;
  for (const auto* r : cas)
    if (const auto* a = add_row(v, "global", r->string_axis("contention").c_str()))
      cas_text += fmt::format("{}{} {:.2f}x", cas_text.empty() ? "" : ", ", r->string_axis("contention"),
                              r->elements_per_s / a->elements_per_s);
  if (!cas_text.empty()) out.push_back("a compare-and-swap add loop against atomicAdd (global, i32): " + cas_text);
  std::string agg;
  for (const auto* r :
       v.rows(present::where("aggregation", {{"aggregate", std::string("warp")}, {"type", std::string("i32")}})))
    agg += fmt::format("{}{} {:.2f}x", agg.empty() ? "" : ", ", r->string_axis("contention"),
                       r->metric("speedup_vs_plain"));
  if (!agg.empty())
    out.push_back("warp-aggregated atomics (__match_any_sync, one add per group) against plain ones: " + agg);
  std::string pw;
  for (const auto* r : v.rows(present::where("per_warp", {{"target", std::string("global")}})))
    pw += fmt::format("{}{} {:.1f}", pw.empty() ? "" : ", ", r->string_axis("contention"), g_ops(*r));
  if (!pw.empty()) out.push_back("global atomicAdd with k threads per address inside each warp (G atomics/s): " + pw);
  std::string sc;
  for (const auto* r : v.rows(present::where("scope", {{"contention", std::string("warp")}})))
    sc += fmt::format("{}{} {:.2f}x", sc.empty() ? "" : ", ", r->string_axis("scope"), r->metric("speedup_vs_device"));
  if (!sc.empty()) out.push_back("scope of a global atomicAdd shared by a warp, against device scope: " + sc);
  std::string lat;
  for (const auto* r : v.rows(present::case_is("latency"))) {
    lat +=
        fmt::format("{}{} {:.0f}", lat.empty() ? "" : ", ", r->string_axis("target"), r->metric("cycles_per_atomic"));
    lat += pair_rows::range_text(*r);
  }
  if (!lat.empty()) out.push_back("a dependent chain of atomics, cycles per atomic: " + lat);
  const auto home = [&](const char* side, const char* access) {
    const auto rows = v.rows(present::where("l2_home", {{"side", std::string(side)}, {"access", std::string(access)}}));
    return rows.empty() ? nullptr : rows.front();
  };
  if (const auto* an = home("near", "atomic"), *af = home("far", "atomic"); an && af) {
    std::string text = fmt::format(
        "an L2 atomic costs {:.0f} cycles on a line homed in the chasing SM's L2 partition and {:.0f} ({:.2f}x) on one "
        "homed "
        "in the other ({:.0f} of {:.0f} lines near)",
        an->metric("cycles_per_access"), af->metric("cycles_per_access"),
        af->metric("cycles_per_access") / an->metric("cycles_per_access"), an->metric("lines_on_side"),
        an->metric("lines_on_side") + af->metric("lines_on_side"));
    if (const auto* ln = home("near", "load"), *lf = home("far", "load"); ln && lf)
      text += fmt::format("; ld.global.cg of the same lines: {:.0f} and {:.0f} cycles", ln->metric("cycles_per_access"),
                          lf->metric("cycles_per_access"));
    out.push_back(text);
  }
  for (const auto* r : v.rows(present::case_is("dsmem_max_probe")))
    out.push_back(r->metric("counters_wrong") > 0
                      ? fmt::format("64-bit atomicMax into a peer block's shared memory is not atomic in the binary "
                                    "that ran the probe: {:.0f} of {:.0f} counters "
                                    "wrong with a warp per address (the u64 DSMEM max rows are an atomicCAS loop)",
                                    r->metric("counters_wrong"), r->metric("counters_checked"))
                      : fmt::format("64-bit atomicMax into a peer block's shared memory held in the binary that ran "
                                    "the probe ({:.0f} counters exact)",
                                    r->metric("counters_checked")));
}

std::optional<present::fact_value> contention_fact(const present::suite_view& v, std::optional<double> at) {
  const auto *own = add_row(v, "global", "thread"), *warp = add_row(v, "global", "warp"),
             *grid = add_row(v, "global", "grid");
  if (!own || !warp || !grid) return std::nullopt;
  std::string text;
  if (at) {  // the contention the user described first: the measured row nearest it
    const auto rows = v.rows(present::where(
        "throughput", {{"target", std::string("global")}, {"type", std::string("i32")}, {"op", std::string("add")}}));
    const case_result* near = nullptr;
    for (const auto* r : rows)
      if (!near || std::fabs(std::log2(r->metric("threads_per_address") / *at)) <
                       std::fabs(std::log2(near->metric("threads_per_address") / *at)))
        near = r;
    if (near)
      text = fmt::format(
          "at your contention (nearest measured: {:.0f} threads per address) global atomicAdd runs at {:.1f} G/s; ",
          near->metric("threads_per_address"), g_ops(*near));
  }
  text += fmt::format(
      "global atomicAdd: {:.1f} G/s with every thread on its own address, {:.1f} when a warp shares one, "
      "{:.1f} when the whole grid does",
      g_ops(*own), g_ops(*warp), g_ops(*grid));
  if (const auto* sh = add_row(v, "shared", "warp"))
    text += fmt::format("; shared-memory atomics at warp contention {:.1f}", g_ops(*sh));
  const auto agg = v.rows(present::where(
      "aggregation",
      {{"aggregate", std::string("warp")}, {"type", std::string("i32")}, {"contention", std::string("grid")}}));
  if (!agg.empty())
    text += fmt::format("; warp aggregation buys {:.1f}x at grid contention", agg[0]->metric("speedup_vs_plain"));
  return present::fact_value{text, g_ops(*grid), "", ""};
}

void map_l2_home(const present::suite_view& v, present::hierarchy& h) {
  const auto home = [&](const char* side, const char* access) -> const case_result* {
    const auto rows = v.rows(present::where("l2_home", {{"side", std::string(side)}, {"access", std::string(access)}}));
    return rows.empty() ? nullptr : rows.front();
  };
  const auto *an = home("near", "atomic"), *af = home("far", "atomic");
  if (!an || !af) return;
  std::string text = fmt::format(
      "from one SM, atomics on lines homed in its own L2 partition: {:.0f} cycles; in the "
      "other: {:.0f} ({:.2f}x)",
      an->metric("cycles_per_access"), af->metric("cycles_per_access"),
      af->metric("cycles_per_access") / an->metric("cycles_per_access"));
  if (const auto* ln = home("near", "load"), *lf = home("far", "load"); ln && lf)
    text +=
        fmt::format("; L2 loads: {:.0f} and {:.0f}", ln->metric("cycles_per_access"), lf->metric("cycles_per_access"));
  h.at(present::level_id::l2).notes.push_back(text + " (atomics/l2_home)");
}

axis contention_axis(std::vector<std::string> values) {
  return axis::strings(
             "contention", std::move(values),
             "threads sharing one address: thread (none), lanesK (K lanes of a warp), warp, block, grid (all)")
      .with_validator([](const std::string& c) { sharers_of(c); });
}

}  // namespace

void register_atomics(registry& reg) {
  suite s{reg, "atomics", "atomics by space, type, contention, scope and aggregation"};
  s.add("throughput", atomic_case)
      .summary("every thread does 16 atomics: add, CAS loop or max, by space, type and threads per address")
      .axis(axis::strings("target", {std::begin(target_names), std::end(target_names)},
                          "global memory, the block's shared memory, the other block of a 2-block cluster (DSMEM)"))
      .axis(axis::strings("type", {"i32", "u32", "u64", "f32", "f64"}, "counter type"))
      .axis(axis::strings("op", {std::begin(op_names), std::end(op_names)},
                          "atomicAdd, an atomicCAS add loop, atomicMax"))
      .axis(contention_axis({"thread", "warp", "block", "grid"}))
      .baseline("contention", std::string("thread"), "speed_vs_uncontended");
  s.add("per_warp", atomic_case)
      .summary("atomicAdd (i32) with k lanes of each warp sharing an address, k = 1..32")
      .axis(axis::strings("target", {"global", "shared"}, "where the counters live"))
      .axis(contention_axis({"thread", "lanes2", "lanes4", "lanes8", "lanes16", "warp"}))
      .baseline("contention", std::string("thread"), "speed_vs_uncontended");
  s.add("aggregation", atomic_case)
      .summary("plain atomicAdd against warp-aggregated (__match_any_sync, one add per group of equal addresses)")
      .axis(axis::strings("type", {"i32", "u32"}, "counter type"))
      .axis(contention_axis({"thread", "warp", "block", "grid"}))
      .axis(
          axis::strings("aggregate", {"none", "warp"}, "plain, or one atomic per group of lanes with the same address"))
      .baseline("aggregate", std::string("none"), "speedup_vs_plain");
  s.add("scope", atomic_case)
      .summary("global atomicAdd (i32) at device, block (atomicAdd_block) and system (atomicAdd_system) scope")
      .axis(contention_axis({"thread", "warp", "block"}))
      .axis(axis::strings("scope", {std::begin(scope_names), std::end(scope_names)},
                          "atomicAdd, atomicAdd_block, atomicAdd_system"))
      .baseline("scope", std::string("device"), "speedup_vs_device");
  s.add("latency", latency_case)
      .summary(
          "one thread's dependent chain of atomicAdd(p, 0) through a 1024-entry ring: global (an entry per L2 line, "
          "128 KiB "
          "on both L2 homes: their mean), shared, DSMEM (a chain from every SM pair at once: the median)")
      .axis(axis::strings("target", {std::begin(target_names), std::end(target_names)}, "where the ring lives"))
      .figure(pair_rows::figure("cycles_per_atomic"));
  s.add("dsmem_max_probe", dsmem_max_probe_case)
      .summary("whether this binary's 64-bit atomicMax is atomic on a peer block's shared memory (CUDA 13.0's is not)");
  s.add("l2_home", home_case)
      .summary("one thread's dependent chain through the L2 lines homed in its SM's own L2 partition, or the other's")
      .axis(axis::strings("side", {"near", "far"},
                          "lines whose atomics are fast (near) or slow (far) from the chasing SM"))
      .axis(axis::strings("access", {"atomic", "load"}, "atomicAdd(p, 0), or ld.global.cg (L2, not L1)"))
      .figure(present::cycles_figure("cycles_per_access"));  // the timed launch also probes every line's home

  auto tp =
      present::line_plot("atomicAdd (i32): G atomics/s against threads per address", present::label_axes({"target"}),
                         "sharers", g_ops, "threads per address", "G atomics/s", present::scale::log2);
  tp.keep = present::where("throughput", {{"type", std::string("i32")}, {"op", std::string("add")}});
  tp.x = present::metric_of("threads_per_address");
  tp.y_scale = present::scale::log10;
  tp.with_sample_spread();
  present::chart_spec types;
  types.title = "Global atomics by type and operation, every thread its own address";
  types.keep = present::where("throughput", {{"target", std::string("global")}, {"contention", std::string("thread")}});
  types.label = present::label_axes({"op", "type"});
  types.y = g_ops;
  types.y_label = "G atomics/s";
  types.peer = present::axis_is("op", "add");
  types.peer_key = "atomicAdd";
  types.with_sample_spread();
  present::chart_spec agg;
  agg.title = "Warp aggregation against plain atomics (global)";
  agg.keep = present::case_is("aggregation");
  agg.label = present::label_axes({"type", "contention", "aggregate"});
  agg.y = g_ops;
  agg.y_label = "G atomics/s";
  agg.peer = present::axis_is("aggregate", "none");
  agg.peer_key = "plain atomicAdd";
  agg.with_sample_spread();
  present::chart_spec lat;
  lat.title = "Dependent atomics: cycles per atomic";
  lat.keep = present::case_is("latency");
  lat.label = present::label_axes({"target"});
  lat.y = present::metric_of("cycles_per_atomic");
  lat.y_label = "cycles per atomic (lower is better)";
  lat.with_spread(pair_rows::spread(), "DSMEM: the fastest to the slowest SM pair");
  s.chart(tp).chart(types).chart(agg).chart(lat).finding(atomics_findings);
  s.map_point("l2_home", std::vector<std::string>{}).map_reader(map_l2_home);
  s.fact(advise::question::atomic_contention, {"throughput", "aggregation"},
         "atomics at low and full contention, and what warp aggregation buys", contention_fact);
}

MEMSCOPE_REGISTER_SUITE(190, register_atomics);

}  // namespace memscope::suites
