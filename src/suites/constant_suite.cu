// Suite `constant`: the constant cache. `broadcast`: a warp reads k distinct words per load
// from __constant__, through __ldg, from shared memory and with plain global loads; cycles per
// warp-load beside the prediction (k-way serialisation for constant memory only).
// `working_set`: latency of a constant-memory pointer chase from 1 KB to the whole 64 KB bank,
// the row `latency/constant` makes (constant_chase_row.cuh).
// (`constant/symbols` is in constant_symbols.cu: this unit's table already fills the 64 KB bank,
// and ptxas rejects a module with more: "File uses too much global constant data".)

#include "harness/registry.hpp"
#include "harness/suite.hpp"
#include "advise/questions.hpp"
#include "harness/text_output.hpp"
#include "present/chart_spec.hpp"
#include "present/findings.hpp"

#include <fmt/format.h>
#include "harness/state.hpp"
#include "suites/chase_rows.cuh"
#include "suites/constant_chase_row.cuh"

#include "memscope/constant/broadcast.cuh"
#include "memscope/core/device_buffer.hpp"
#include "memscope/core/random.hpp"
#include "memscope/core/verify.hpp"

#include <algorithm>
#include <numeric>

namespace memscope::suites {
namespace {

namespace bc = memscope::broadcast;

const char* const space_names[] = {"constant", "ldg", "shared", "global"};

double mean_cycles(const device_buffer<unsigned long long>& cycles) {
  const auto h = cycles.to_host();
  return std::accumulate(h.begin(), h.end(), 0.0) / static_cast<double>(h.size());
}

void broadcast_case(case_state& st) {
  const auto sp = choice<bc::space>(space_names, st.get_string("space"));
  const auto k = static_cast<unsigned>(st.get_int("distinct"));
  const unsigned iters = st.verify_only() ? 64 : 4096;
  const unsigned blocks = static_cast<unsigned>(st.device().sm_count);
  const cudaStream_t s = st.stream();
  device_buffer<int> g_table(bc::policy::table_words);
  device_buffer<unsigned long long> cycles(blocks);
  device_buffer<int> sink(std::size_t{blocks} * 32);
  auto run = [&](unsigned n, cudaStream_t st_) {
    switch (sp) {
      case bc::space::constant:
        bc::warp_loads<bc::space::constant>(g_table.data(), k, n, blocks, cycles.data(), sink.data(), st_);
        break;
      case bc::space::ldg:
        bc::warp_loads<bc::space::ldg>(g_table.data(), k, n, blocks, cycles.data(), sink.data(), st_);
        break;
      case bc::space::shared:
        bc::warp_loads<bc::space::shared>(g_table.data(), k, n, blocks, cycles.data(), sink.data(), st_);
        break;
      case bc::space::global:
        bc::warp_loads<bc::space::global>(g_table.data(), k, n, blocks, cycles.data(), sink.data(), st_);
        break;
    }
  };
  // The check: over the index table each lane's sum names the words it read.
  bc::upload_index_table(g_table.data());
  sink.poison(s);
  run(bc::max_index_iters, s);
  MEMSCOPE_CUDA_CALL(cudaStreamSynchronize(s));
  const auto h = sink.to_host();
  st.check(compare_exact(h.data(), h.size(), [&](std::size_t t) {
    return bc::expected_warp_load_sum(static_cast<unsigned>(t % 32), k, bc::max_index_iters);
  }));
  // Timed over zeros: every load's address is lane % k.
  bc::upload_zeros();
  MEMSCOPE_CUDA_CALL(cudaMemsetAsync(g_table.data(), 0, g_table.bytes(), s));
  auto launch = [&](cudaStream_t st_) { run(iters, st_); };
  launch(s);  // warm: first touch of the table's lines
  launch(s);
  MEMSCOPE_CUDA_CALL(cudaStreamSynchronize(s));
  st.add_metric("cycles_per_load", mean_cycles(cycles) / iters);
  st.add_metric("predicted_ratio", sp == bc::space::constant ? static_cast<double>(k) : 1.0);
  st.add_elements(static_cast<std::uint64_t>(blocks) * iters);  // warp-loads
  st.exec(launch);
}

void working_set_case(case_state& st) { constant_chase_row(st, static_cast<std::size_t>(st.get_int("ws_bytes"))); }

void constant_findings(const present::suite_view& v, std::vector<std::string>& out) {
  // Fit cycles = a + b (k - 1) to the constant-memory broadcast rows by least squares.
  std::vector<std::pair<double, double>> pts;
  for (const auto* r : v.rows(present::where("broadcast", {{"space", std::string("constant")}})))
    pts.push_back({static_cast<double>(r->int_axis("distinct").value_or(1) - 1), r->metric("cycles_per_load")});
  if (const auto fit = present::fit_line(pts))
    out.push_back(fmt::format(
        "constant cache: {:.1f} cycles for a broadcast, +{:.1f} cycles for each further distinct address in "
        "a warp (least-squares fit over k = 1..32)",
        fit->intercept, fit->slope));
  std::vector<std::pair<double, double>> curve;
  for (const auto* r : v.rows(present::case_is("working_set")))
    curve.push_back({static_cast<double>(r->int_axis("ws_bytes").value_or(0)), r->metric("cycles_per_load")});
  std::sort(curve.begin(), curve.end());
  if (curve.empty()) return;
  std::string levels;
  double start_latency = curve.front().second;
  for (double edge : level_edges(curve)) {
    levels += fmt::format("{}up to {} at {:.0f} cycles", levels.empty() ? "" : "; ", format_bytes(edge), start_latency);
    for (const auto& [x, y] : curve)
      if (x > edge) {
        start_latency = y;
        break;
      }
  }
  levels += fmt::format("{}up to {} at {} cycles", levels.empty() ? "" : "; ", format_bytes(curve.back().first),
                        figure_span(start_latency, curve.back().second));
  out.push_back("constant-memory levels (pointer chase): " + levels);
}

const case_result* broadcast_row(const present::suite_view& v, const char* space,
                                 std::optional<std::int64_t> distinct = {}) {
  const auto rows = v.rows(present::where("broadcast", {{"space", std::string(space)}}));
  const auto k = distinct ? *distinct : present::largest(rows, "distinct");
  for (const auto* r : rows)
    if (r->int_axis("distinct") == k) return r;
  return nullptr;
}

std::optional<present::fact_value> shared_latency_fact(const present::suite_view& v, std::optional<double>) {
  const auto* sh = broadcast_row(v, "shared", 1);
  if (!sh) return std::nullopt;
  return present::fact_value{
      fmt::format("a dependent shared-memory load costs {:.1f} cycles", sh->metric("cycles_per_load")),
      sh->metric("cycles_per_load"), "", ""};
}

std::optional<present::fact_value> uniform_read_fact(const present::suite_view& v, std::optional<double>) {
  const auto *c1 = broadcast_row(v, "constant", 1), *g1 = broadcast_row(v, "global", 1);
  if (!c1 || !g1) return std::nullopt;
  return present::fact_value{fmt::format("broadcast load: {:.1f} cycles from __constant__ vs {:.1f} from global memory",
                                         c1->metric("cycles_per_load"), g1->metric("cycles_per_load")),
                             c1->metric("cycles_per_load"), "", ""};
}

std::optional<present::fact_value> divergent_read_fact(const present::suite_view& v, std::optional<double>) {
  const auto *ck = broadcast_row(v, "constant"), *g1 = broadcast_row(v, "global", 1);
  if (!ck || !g1) return std::nullopt;
  return present::fact_value{
      fmt::format("{} distinct addresses per warp: {:.1f} cycles from __constant__ vs {:.1f} from global memory",
                  ck->int_axis("distinct").value_or(0), ck->metric("cycles_per_load"), g1->metric("cycles_per_load")),
      ck->metric("cycles_per_load"), "", ""};
}

}  // namespace

void register_constant(registry& reg) {
  suite s{reg, "constant", "the constant cache: broadcast, serialisation, levels, the symbol API"};
  s.add("broadcast", broadcast_case)
      .summary("a warp reads k distinct words per load: constant cache serialises, others do not")
      .axis(axis::strings("space", {std::begin(space_names), std::end(space_names)}, "where the table lives"))
      .axis(axis::integers("distinct", {1, 2, 4, 8, 16, 32}, "distinct addresses per warp-load").with_range(1, 32))
      .baseline("distinct", std::int64_t{1}, "cycles_vs_broadcast", metric_ratio("cycles_per_load"));
  s.add("working_set", working_set_case)
      .summary("constant-memory pointer chase: latency as the working set grows to 64 KB")
      .axis(axis::pow2("ws_bytes", {10, 11, 12, 13, 14, 15, 16}, "bytes chased (64-byte steps)").with_range(64, 65536))
      .figure(chase_rows::figure());

  auto bc = present::line_plot("Warp-load cost vs distinct addresses per warp", present::label_axes({"space"}),
                               "distinct", present::metric_of("cycles_per_load"), "distinct addresses k",
                               "cycles per warp-load", present::scale::log2);
  bc.keep = present::case_is("broadcast");
  auto ws = present::line_plot(
      "Constant-memory latency vs working set", [](const case_result&) { return std::string("__constant__ chase"); },
      "ws_bytes", present::metric_of("cycles_per_load"), "working set", "cycles per load", present::scale::log2_bytes);
  ws.keep = present::case_is("working_set");
  ws.level_marks = true;
  ws.with_spread(chase_rows::spread(), chase_rows::spread_key());
  s.chart(bc).chart(ws).finding(constant_findings);
  s.fact(advise::question::shared_load_latency, {"broadcast"}, "a dependent shared-memory load", shared_latency_fact);
  s.fact(advise::question::uniform_read_cost, {"broadcast"},
         "a warp-uniform read: constant cache against global memory", uniform_read_fact);
  s.fact(advise::question::divergent_constant_read_cost, {"broadcast"},
         "a warp reading distinct words from the constant cache", divergent_read_fact);
}

MEMSCOPE_REGISTER_SUITE(70, register_constant);

}  // namespace memscope::suites
