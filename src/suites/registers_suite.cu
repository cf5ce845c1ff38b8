// Suite `registers`: the seeds' "frequently written temporaries: registers first, then shared
// memory" measured. A per-thread array in registers, forced into local memory, or in a shared
// slice, from 4 to 256 words; one kernel at several register limits (spills against
// occupancy); a dependent chase through local memory that fits L1 or does not. Every thread's
// result (or a deterministic sample of them) is checked exactly against the CPU reference.

#include "harness/registry.hpp"
#include "harness/state.hpp"
#include "harness/stats.hpp"
#include "harness/suite.hpp"
#include "advise/questions.hpp"
#include "harness/text_output.hpp"
#include "present/chart_spec.hpp"
#include "present/figure.hpp"
#include "present/findings.hpp"

#include "memscope/core/device_buffer.hpp"
#include "probes/l1_sweep.cuh"
#include "memscope/core/placement.hpp"
#include "probes/sm_census.cuh"
#include "memscope/core/verify.hpp"
#include "memscope/registers/local_array.cuh"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <vector>

namespace memscope::suites {
namespace {

namespace rg = memscope::registers;

const char* const storage_names[] = {"registers", "local", "shared"};

/// Calls fn(std::integral_constant<int, N>) for a run-time word count.
template <class Fn>
void with_words(std::int64_t n, Fn&& fn) {
  switch (n) {
    case 4:
      return fn(std::integral_constant<int, 4>{});
    case 8:
      return fn(std::integral_constant<int, 8>{});
    case 16:
      return fn(std::integral_constant<int, 16>{});
    case 32:
      return fn(std::integral_constant<int, 32>{});
    case 64:
      return fn(std::integral_constant<int, 64>{});
    case 128:
      return fn(std::integral_constant<int, 128>{});
    case 256:
      return fn(std::integral_constant<int, 256>{});
    default:
      throw usage_error("registers/array: words takes 4, 8, 16, 32, 64, 128 or 256");
  }
}

/// Threads whose results are checked: all of them in verify mode, else a fixed sample (the CPU
/// reference of 256 words x 64 rounds for every thread of the GPU would take minutes).
std::vector<std::size_t> checked_threads(std::size_t threads, bool all) {
  std::vector<std::size_t> t;
  if (all) {
    for (std::size_t i = 0; i < threads; ++i) t.push_back(i);
    return t;
  }
  for (std::size_t i = 0; i < threads; i += std::max<std::size_t>(1, threads / 997)) t.push_back(i);
  t.push_back(threads - 1);
  return t;
}

void record_resources(case_state& st, const rg::kernel_resources& r, int block_threads) {
  st.add_metric("registers", r.registers);
  st.add_metric("local_bytes", static_cast<double>(r.local_bytes));
  st.add_metric("blocks_per_sm", r.blocks_per_sm);
  st.add_metric("occupancy",
                static_cast<double>(r.blocks_per_sm) * block_threads / std::max(1, st.device().max_threads_per_sm));
}

/// Poisons, launches once, checks the (sampled) threads' results exactly, then times `launch`.
template <int N, class Launch>
void run_and_check(case_state& st, device_buffer<std::uint32_t>& out, const Launch& launch, std::size_t threads,
                   int iters) {
  out.poison(st.stream());
  launch(st.stream());
  MEMSCOPE_CUDA_CALL(cudaStreamSynchronize(st.stream()));
  const auto got = out.to_host();
  const auto which = checked_threads(threads, st.verify_only());
  std::vector<std::uint32_t> sample(which.size());
  for (std::size_t i = 0; i < which.size(); ++i) sample[i] = got[which[i]];
  st.check(compare_exact(sample.data(), sample.size(),
                         [&](std::size_t i) { return rg::reference::array_result<N>(st.seed(), which[i], iters); }));
  st.add_elements(threads * static_cast<std::size_t>(iters) * N);  // word updates
  st.exec(launch);
}

template <int N>
void array_body(case_state& st, rg::storage s) {
  const int iters = st.verify_only() ? 5 : 64;
  const unsigned blocks =
      st.verify_only() ? 3u : static_cast<unsigned>(st.device().sm_count * rg::policy::blocks_per_sm);
  const std::size_t threads = std::size_t{blocks} * rg::policy::block_threads;
  const std::size_t smem = s == rg::storage::shared ? std::size_t{N} * rg::policy::block_threads * 4 : 0;
  auto kernel = s == rg::storage::registers ? rg::array_update_kernel<N, rg::storage::registers>
                : s == rg::storage::local   ? rg::array_update_kernel<N, rg::storage::local>
                                            : rg::array_update_kernel<N, rg::storage::shared>;
  try {
    prepare_dynamic_smem(kernel, smem);
  } catch (const std::invalid_argument& e) {
    st.skip(e.what());
  }
  const auto res = rg::resources_of(kernel, rg::policy::block_threads, smem);
  if (res.blocks_per_sm == 0)
    st.skip("the kernel cannot be resident with " + std::to_string(smem) + " bytes of shared memory");
  record_resources(st, res, rg::policy::block_threads);
  device_buffer<std::uint32_t> out(threads);
  const auto launch = [&](cudaStream_t stream) {
    kernel<<<blocks, rg::policy::block_threads, smem, stream>>>(out.data(), st.seed(), iters, 0);
    MEMSCOPE_CHECK_LAUNCH("array_update_kernel");
  };
  run_and_check<N>(st, out, launch, threads, iters);
}

void array_case(case_state& st) {
  const auto s = choice<rg::storage>(storage_names, st.get_string("storage"));
  with_words(st.get_int("words"), [&](auto n) { array_body<decltype(n)::value>(st, s); });
}

template <int MinBlocks>
void spill_body(case_state& st) {
  const int iters = st.verify_only() ? 5 : 64;
  auto kernel = rg::spill_update_kernel<MinBlocks>;
  const auto res = rg::resources_of(kernel, rg::policy::spill_threads, 0);
  record_resources(st, res, rg::policy::spill_threads);
  // Every SM full at the highest occupancy any variant reaches, so each runs the same work.
  const unsigned blocks = st.verify_only() ? 2u : static_cast<unsigned>(st.device().sm_count * 8);
  const std::size_t threads = std::size_t{blocks} * rg::policy::spill_threads;
  device_buffer<std::uint32_t> out(threads);
  const auto launch = [&](cudaStream_t stream) {
    kernel<<<blocks, rg::policy::spill_threads, 0, stream>>>(out.data(), st.seed(), iters);
    MEMSCOPE_CHECK_LAUNCH("spill_update_kernel");
  };
  run_and_check<rg::policy::spill_words>(st, out, launch, threads, iters);
}

void spill_case(case_state& st) {
  switch (st.get_int("min_blocks")) {
    case 1:
      return spill_body<1>(st);
    case 2:
      return spill_body<2>(st);
    case 3:
      return spill_body<3>(st);
    case 4:
      return spill_body<4>(st);
    case 6:
      return spill_body<6>(st);
    case 8:
      return spill_body<8>(st);
    default:
      throw usage_error("registers/spill: min_blocks takes 1, 2, 3, 4, 6 or 8");
  }
}

/// Launches of the local-memory chase per row (one under verify), each on its own SM spread
/// over the GPU, that SM's L1 swept first (l1_sweep.cuh: on one SM, later launches shared its
/// L1 with the last one's local lines and read slower); the figure is their median,
/// the whisker their range.
constexpr std::size_t chase_launches = 5;

std::string chase_spread_key() {
  return fmt::format(
      "the fastest to the slowest of {} launches, each on its own SM, its L1 swept first (each the median lane of its "
      "warp)",
      chase_launches);
}

template <int W>
void chase_body(case_state& st) {
  const int steps = st.verify_only() ? 257 : 8192;
  const cudaStream_t s = st.stream();
  auto kernel = rg::local_chase_kernel<W>;
  const auto res = rg::resources_of(kernel, rg::policy::chase_threads, 0);
  record_resources(st, res, rg::policy::chase_threads);
  device_buffer<unsigned long long> cycles(rg::policy::chase_threads);
  device_buffer<std::uint32_t> last(rg::policy::chase_threads);
  device_buffer<unsigned long long> claims(2);  // the sweep's, the chase's
  const auto launch = [&](cudaStream_t stream, const sm_target& on) {
    kernel<<<target_grid(on, kernel, rg::policy::chase_threads, 0), rg::policy::chase_threads, 0, stream>>>(
        steps, 0, cycles.data(), last.data(), on);
    MEMSCOPE_CHECK_LAUNCH("local_chase_kernel");
  };
  const auto end = rg::reference::chase_end(W, steps);
  l1_sweep sweep(st.device().shared_per_sm);
  const auto sms = spread_pick(sm_census(s), st.verify_only() ? 1 : chase_launches);
  std::vector<double> per_launch;
  aim_each(sms, [&](std::size_t, unsigned sm) {
    last.poison(s);
    cycles.poison(s);
    MEMSCOPE_CUDA_CALL(cudaMemsetAsync(claims.data(), 0, claims.bytes(), s));
    sweep.run(sm_target{sm, claims.data()}, s);
    launch(s, sm_target{sm, claims.data() + 1});
    MEMSCOPE_CUDA_CALL(cudaStreamSynchronize(s));
    const auto h_claims = claims.to_host();
    if (h_claims[0] != sm + 1ull || h_claims[1] != sm + 1ull) return false;
    const auto h_last = last.to_host();
    st.check(compare_exact(h_last.data(), h_last.size(), [&](std::size_t) { return end; }));
    auto h_cycles = cycles.to_host();
    std::sort(h_cycles.begin(), h_cycles.end());
    per_launch.push_back(static_cast<double>(h_cycles[h_cycles.size() / 2]) / steps);
    return true;
  });
  if (per_launch.empty()) st.skip(no_sm_reached(sms.size()));
  const sample_stats launches = summarize(per_launch);
  st.add_metric("cycles_per_load", launches.median);
  st.add_metric("cycles_min", launches.min);
  st.add_metric("cycles_max", launches.max);
  st.add_metric("chase_sms", static_cast<double>(per_launch.size()));
  st.add_metric("warp_bytes", static_cast<double>(W) * 4 * rg::policy::chase_threads);
  st.add_elements(static_cast<std::size_t>(steps));
  st.exec([&](cudaStream_t q) { launch(q, sm_target{}); });
}

void local_path_case(case_state& st) {
  switch (st.get_int("words")) {
    case 256:
      return chase_body<256>(st);
    case 1024:
      return chase_body<1024>(st);
    case 2048:
      return chase_body<2048>(st);
    case 4096:
      return chase_body<4096>(st);
    default:
      throw usage_error("registers/local_path: words takes 256, 1024, 2048 or 4096");
  }
}

// ---- presentation ----------------------------------------------------------------------------

const case_result* array_row(const present::suite_view& v, const char* storage, std::int64_t words) {
  const auto rows = v.rows(present::where("array", {{"storage", std::string(storage)}, {"words", words}}));
  return rows.empty() ? nullptr : rows.front();
}

/// The largest array the compiler kept in registers (no local bytes), and the first it spilled.
std::pair<const case_result*, const case_result*> register_limit(const present::suite_view& v) {
  const case_result *kept = nullptr, *spilled = nullptr;
  for (const auto n : present::int_values(v.rows(present::case_is("array")), "words")) {
    const auto* r = array_row(v, "registers", n);
    if (!r) continue;
    if (r->metric("local_bytes") == 0) kept = r;
    else if (!spilled) spilled = r;
  }
  return {kept, spilled};
}

void registers_findings(const present::suite_view& v, std::vector<std::string>& out) {
  const auto [kept, spilled] = register_limit(v);
  if (kept)
    out.push_back(
        fmt::format("a per-thread array indexed by constants stays in registers up to {} words ({} registers){}",
                    kept->int_axis("words").value_or(0), kept->metric("registers"),
                    spilled ? fmt::format("; at {} words the compiler spills {} of it to local memory ({} registers)",
                                          spilled->int_axis("words").value_or(0),
                                          format_bytes(spilled->metric("local_bytes")), spilled->metric("registers"))
                            : std::string()));
  for (const char* s : {"local", "shared"}) {
    std::string text;
    for (const auto n : present::int_values(v.rows(present::case_is("array")), "words"))
      if (const auto* r = array_row(v, s, n); r && std::isfinite(r->metric("speedup_vs_registers")))
        text += fmt::format("{}{} words {:.2f}x", text.empty() ? "" : ", ", n, r->metric("speedup_vs_registers"));
    if (!text.empty())
      out.push_back(fmt::format("{} against registers (word updates per second): {}",
                                std::string(s) == "local" ? "the same array in local memory (a run-time index)"
                                                          : "a per-thread slice of shared memory",
                                text));
  }
  const auto spill = v.rows(present::case_is("spill"));
  if (const auto* best = present::best_by(spill, [](const case_result& r) { return r.elements_per_s; })) {
    const auto* tight = present::best_by(spill, present::int_axis_of("min_blocks"));
    out.push_back(fmt::format(
        "one 64-word kernel at register limits: fastest with {} registers ({} of local memory, occupancy "
        "{:.0f}%) at {:.2f}x the uncapped build; at {} registers ({} local, occupancy {:.0f}%) {:.2f}x",
        best->metric("registers"), format_bytes(best->metric("local_bytes")), 100 * best->metric("occupancy"),
        best->metric("speedup_vs_uncapped"), tight->metric("registers"), format_bytes(tight->metric("local_bytes")),
        100 * tight->metric("occupancy"), tight->metric("speedup_vs_uncapped")));
  }
  std::string chase;
  for (const auto* r : v.rows(present::case_is("local_path")))
    chase += fmt::format("{}{} per warp {:.0f}", chase.empty() ? "" : ", ", format_bytes(r->metric("warp_bytes")),
                         r->metric("cycles_per_load"));
  if (!chase.empty())
    out.push_back("dependent loads from local memory, cycles per load by the warp's working set: " + chase);
}

std::optional<present::fact_value> register_limit_fact(const present::suite_view& v, std::optional<double>) {
  const auto [kept, spilled] = register_limit(v);
  if (!kept) return std::nullopt;
  return present::fact_value{
      fmt::format("arrays indexed by constants stay in registers up to {} words per thread ({} registers){}",
                  kept->int_axis("words").value_or(0), kept->metric("registers"),
                  spilled ? fmt::format("; {} words spill {} to local memory", spilled->int_axis("words").value_or(0),
                                        format_bytes(spilled->metric("local_bytes")))
                          : std::string()),
      static_cast<double>(kept->int_axis("words").value_or(0) * 4), "", ""};
}

std::optional<present::fact_value> spill_cost_fact(const present::suite_view& v, std::optional<double> at) {
  const auto local = v.rows(present::where("array", {{"storage", std::string("local")}}));
  const auto* l = present::nearest(local, "words", at ? std::max(1.0, *at / 4) : 32.0);
  if (!l) return std::nullopt;
  const auto n = l->int_axis("words").value_or(0);
  const auto* sh = array_row(v, "shared", n);
  present::fact_value f{
      fmt::format("{} words per thread: a run-time-indexed array (local memory) runs at {:.2f}x the register "
                  "array, a shared-memory slice at {}",
                  n, l->metric("speedup_vs_registers"),
                  sh ? fmt::format("{:.2f}x", sh->metric("speedup_vs_registers")) : std::string("(not measured)")),
      l->metric("speedup_vs_registers"), "", ""};
  if (at && static_cast<double>(n * 4) != *at)
    f.nearest_note = "nearest measured array to " + format_bytes(*at) + ": " + std::to_string(n) + " words";
  return f;
}

std::optional<present::fact_value> registers_at_occupancy_fact(const present::suite_view& v, std::optional<double>) {
  const auto spill = v.rows(present::case_is("spill"));
  if (spill.empty()) return std::nullopt;
  std::string text = "registers per thread at each occupancy (256-thread blocks):";
  for (const auto* r : spill)
    text += fmt::format(" {:.0f}% {} registers{},", 100 * r->metric("occupancy"), r->metric("registers"),
                        r->metric("local_bytes") > 0
                            ? fmt::format(" (spills {}, {:.2f}x)", format_bytes(r->metric("local_bytes")),
                                          r->metric("speedup_vs_uncapped"))
                            : std::string());
  text.pop_back();
  return present::fact_value{text, 0, "", ""};
}

void map_registers(const present::suite_view&, present::hierarchy& h) {
  h.at(present::level_id::registers)
      .missing.push_back(
          "latency and bandwidth: an instruction reads its operands from the register file, with no load to time; "
          "what spilling costs: memscope run registers");
}

}  // namespace

void register_registers(registry& reg) {
  suite s{reg, "registers", "registers, spills and local memory"};
  s.add("array", array_case)
      .summary(
          "a per-thread array of N words updated in a loop: registers (constant indices), local memory (run-time "
          "index), a shared-memory slice")
      .axis(axis::strings(
          "storage", {std::begin(storage_names), std::end(storage_names)},
          "where the array lives: registers, local memory (forced by a run-time index), a per-thread shared slice"))
      .axis(axis::integers("words", {4, 8, 16, 32, 64, 128, 256}, "32-bit words per thread").with_only_listed())
      .baseline("storage", std::string("registers"), "speedup_vs_registers");
  s.add("spill", spill_case)
      .summary(
          "one 64-word kernel compiled for 1-8 resident 256-thread blocks per SM: registers, spills, occupancy and "
          "time")
      .axis(axis::integers("min_blocks", {1, 2, 3, 4, 6, 8},
                           "__launch_bounds__ min blocks per SM (caps registers at 64K / (256 x it))")
                .with_only_listed())
      .baseline("min_blocks", std::int64_t{1}, "speedup_vs_uncapped");
  s.add("local_path", local_path_case)
      .summary(fmt::format(
          "one warp, each lane chasing its own local array, on {} SMs spread over the GPU, each SM's L1 swept first: "
          "local memory through L1 or past it",
          chase_launches))
      .axis(
          axis::integers("words", {256, 1024, 2048, 4096}, "words per lane (x 128 bytes per warp)").with_only_listed())
      .figure(present::cycles_figure("cycles_per_load", "cycles_min", "cycles_max"));

  auto arr = present::line_plot(
      "Per-thread array: word updates per second by where it lives", present::label_axes({"storage"}), "words",
      [](const case_result& r) { return r.elements_per_s / 1e9; }, "words per thread", "G word updates/s",
      present::scale::log2);
  arr.keep = present::case_is("array");
  arr.y_scale = present::scale::log10;
  arr.with_sample_spread();
  present::chart_spec spill;
  spill.title = "One kernel at register limits: registers, spills, occupancy";
  spill.keep = present::case_is("spill");
  spill.label = [](const case_result& r) {
    return fmt::format("{} regs, {} local, {:.0f}% occ.", r.metric("registers"), format_bytes(r.metric("local_bytes")),
                       100 * r.metric("occupancy"));
  };
  spill.y = present::metric_of("speedup_vs_uncapped");
  spill.y_label = "speed relative to the uncapped build (higher is better)";
  spill.peer = [](const case_result& r) { return r.int_axis("min_blocks") == 1; };
  spill.peer_key = "no register cap";
  present::chart_spec chase;
  chase.title = "Dependent loads from local memory (one warp)";
  chase.keep = present::case_is("local_path");
  chase.label = [](const case_result& r) { return format_bytes(r.metric("warp_bytes")) + " per warp"; };
  chase.y = present::metric_of("cycles_per_load");
  chase.y_label = "cycles per load (lower is better)";
  chase.with_spread(present::metric_spread("cycles_min", "cycles_max"), chase_spread_key());
  s.chart(arr).chart(spill).chart(chase).finding(registers_findings).map_reader(map_registers);
  s.fact(advise::question::register_array_limit, {"array"}, "how large a per-thread array stays in registers",
         register_limit_fact);
  s.fact(advise::question::spill_cost, {"array"}, "a run-time-indexed (local) or shared-slice array against registers",
         spill_cost_fact);
  s.fact(advise::question::registers_at_occupancy, {"spill"},
         "registers per thread at each occupancy, and what spilling costs", registers_at_occupancy_fact);
}

MEMSCOPE_REGISTER_SUITE(180, register_registers);

}  // namespace memscope::suites
