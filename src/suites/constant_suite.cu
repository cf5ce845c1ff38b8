// Suite `constant`: the constant cache. `broadcast`: a warp reads k distinct words per load
// from __constant__, through __ldg, from shared memory and with plain global loads; cycles per
// warp-load beside the prediction (k-way serialisation for constant memory only).
// `working_set`: latency of a constant-memory pointer chase from 1 KB to the whole 64 KB bank.
// (`constant/symbols` is in constant_symbols.cu: this unit's table already fills the 64 KB bank,
// and ptxas rejects a module with more: "File uses too much global constant data".)

#include "harness/registry.hpp"
#include "harness/state.hpp"
#include "suites/suites.hpp"

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
  bc::upload_zeros();
  device_buffer<int> g_table(bc::policy::table_words);
  MEMSCOPE_CUDA_CALL(cudaMemsetAsync(g_table.data(), 0, g_table.bytes(), s));
  device_buffer<unsigned long long> cycles(blocks);
  device_buffer<int> sink(std::size_t{blocks} * 32);
  auto launch = [&](cudaStream_t st_) {
    switch (sp) {
      case bc::space::constant: bc::warp_loads<bc::space::constant>(g_table.data(), k, iters, blocks, cycles.data(), sink.data(), st_); break;
      case bc::space::ldg: bc::warp_loads<bc::space::ldg>(g_table.data(), k, iters, blocks, cycles.data(), sink.data(), st_); break;
      case bc::space::shared: bc::warp_loads<bc::space::shared>(g_table.data(), k, iters, blocks, cycles.data(), sink.data(), st_); break;
      case bc::space::global: bc::warp_loads<bc::space::global>(g_table.data(), k, iters, blocks, cycles.data(), sink.data(), st_); break;
    }
  };
  sink.poison(s);
  launch(s);  // warm: first touch of the table's lines
  launch(s);
  MEMSCOPE_CUDA_CALL(cudaStreamSynchronize(s));
  const auto h = sink.to_host();
  st.check(compare_exact(h.data(), h.size(), [](std::size_t) { return 0; }));
  st.add_metric("cycles_per_load", mean_cycles(cycles) / iters);
  st.add_metric("predicted_ratio", sp == bc::space::constant ? static_cast<double>(k) : 1.0);
  st.add_elements(static_cast<std::uint64_t>(blocks) * iters);  // warp-loads
  st.exec(launch);
}

void working_set_case(case_state& st) {
  const auto ws = static_cast<std::size_t>(st.get_int("ws_bytes"));
  const unsigned iters = st.verify_only() ? 100 : 8192;
  const cudaStream_t s = st.stream();
  const int want = bc::upload_chase(ws, st.seed(), iters);
  device_buffer<unsigned long long> cycles(1);
  device_buffer<int> last(1);
  auto launch = [&](cudaStream_t st_) { bc::constant_chase(iters, cycles.data(), last.data(), st_); };
  last.poison(s);
  launch(s);  // warm: pulls the working set into the constant caches that hold it
  launch(s);
  MEMSCOPE_CUDA_CALL(cudaStreamSynchronize(s));
  st.check(compare_exact(last.to_host().data(), 1, [&](std::size_t) { return want; }));
  st.add_metric("cycles_per_load", mean_cycles(cycles) / iters);
  st.add_metric("ns_per_load", mean_cycles(cycles) / iters / (st.device().sm_clock_khz * 1e-6));
  st.add_elements(iters);
  st.exec(launch);
}

}  // namespace

void register_constant(registry& reg) {
  {
    case_def c;
    c.suite = "constant";
    c.name = "broadcast";
    c.summary = "a warp reads k distinct words per load: constant cache serialises, others do not";
    c.axes = {axis::strings("space", {std::begin(space_names), std::end(space_names)}, "where the table lives"),
              axis::integers("distinct", {1, 2, 4, 8, 16, 32}, "distinct addresses per warp-load").with_range(1, 32)};
    c.body = broadcast_case;
    c.baselines.push_back({"distinct", std::int64_t{1}, "cycles_vs_broadcast", metric_ratio("cycles_per_load")});
    reg.add(std::move(c));
  }
  {
    case_def c;
    c.suite = "constant";
    c.name = "working_set";
    c.summary = "constant-memory pointer chase: latency as the working set grows to 64 KB";
    c.axes = {axis::pow2("ws_bytes", {10, 11, 12, 13, 14, 15, 16}, "bytes chased (64-byte steps)")
                  .with_range(64, 65536)};
    c.body = working_set_case;
    reg.add(std::move(c));
  }
}

}  // namespace memscope::suites
