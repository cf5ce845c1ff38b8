// Suite `bank_conflicts`: shared-memory loads and stores with stride s for 4-, 8- and 16-byte
// words, cycles per warp-access measured in the kernel beside the predicted wavefronts; and the
// fixes for a tile's column access (padding, XOR swizzle).

#include "harness/registry.hpp"
#include "harness/suite.hpp"
#include "advise/questions.hpp"
#include "harness/text_output.hpp"
#include "present/chart_spec.hpp"
#include "present/findings.hpp"

#include <fmt/format.h>
#include "harness/state.hpp"

#include "memscope/core/device_buffer.hpp"
#include "memscope/core/launch.cuh"
#include "memscope/core/verify.hpp"
#include "memscope/shared/bank_conflicts.cuh"
#include "memscope/shared/bank_model.hpp"

#include <array>
#include <numeric>

namespace memscope::suites {
namespace {

namespace bk = memscope::banks;

template <int Bytes, bool Store, class Pattern>
void pattern_case(case_state& st, Pattern pattern, int predicted) {
  const unsigned iters = st.verify_only() ? 64 : 4096;
  const unsigned blocks = static_cast<unsigned>(st.device().sm_count);  // one block per SM
  const cudaStream_t s = st.stream();
  device_buffer<unsigned long long> cycles(blocks);
  device_buffer<unsigned> sink(std::size_t{blocks} * bk::threads<Store>());
  auto kernel = bk::smem_pattern_kernel<Bytes, Store, Pattern>;
  constexpr std::size_t smem = bk::smem_bytes<Bytes, Store>();
  constexpr int threads = bk::threads<Store>();
  prepare_dynamic_smem(kernel, smem);
  auto launch = [&](cudaStream_t st_) {
    kernel<<<blocks, threads, smem, st_>>>(pattern, iters, cycles.data(), sink.data(), false);
    MEMSCOPE_CHECK_LAUNCH("smem_pattern_kernel");
  };
  // The check: loads over the index table, whose sums depend on every address visited.
  sink.poison(s);
  kernel<<<blocks, threads, smem, s>>>(pattern, iters, cycles.data(), sink.data(), true);
  MEMSCOPE_CHECK_LAUNCH("smem_pattern_kernel");
  MEMSCOPE_CUDA_CALL(cudaStreamSynchronize(s));
  const auto h_sink = sink.to_host();
  // A thread's sum depends on its lane alone: 32 sums of `iters` steps, not one per thread.
  std::array<unsigned, 32> lane_sum{};
  for (unsigned lane = 0; lane < 32; ++lane)
    lane_sum[lane] = Store ? iters - 1 : bk::expected_load_sum(pattern, lane, iters);
  st.check(compare_exact(h_sink.data(), h_sink.size(), [&](std::size_t t) { return lane_sum[t % 32]; }));
  launch(s);  // warm-up: first-touch and instruction cache
  launch(s);
  MEMSCOPE_CUDA_CALL(cudaStreamSynchronize(s));

  const auto h_cycles = cycles.to_host();
  const double mean_cycles =
      std::accumulate(h_cycles.begin(), h_cycles.end(), 0.0) / static_cast<double>(h_cycles.size());
  const double warps = bk::threads<Store>() / 32.0;
  st.add_metric("cycles_per_access", mean_cycles / (iters * warps));
  st.add_metric("predicted_wavefronts", predicted);
  st.add_elements(static_cast<std::uint64_t>(blocks) * static_cast<std::uint64_t>(warps) * iters);  // warp-accesses
  st.exec(launch);
}

template <class Fn>
void with_width_and_op(case_state& st, Fn&& fn) {
  const bool store = st.get_string("op") == "store";
  const std::int64_t w = st.get_int("word_bytes");
  auto pick = [&](auto width) {
    if (store) fn(width, std::true_type{});
    else fn(width, std::false_type{});
  };
  if (w == 4) pick(std::integral_constant<int, 4>{});
  else if (w == 8) pick(std::integral_constant<int, 8>{});
  else pick(std::integral_constant<int, 16>{});
}

std::vector<std::int64_t> strides() {
  std::vector<std::int64_t> v(32);
  std::iota(v.begin(), v.end(), 1);
  v.push_back(64);
  return v;
}

void bank_findings(const present::suite_view& v, std::vector<std::string>& out) {
  for (const std::string op : {"load", "store"}) {
    const auto rows = v.rows([&](const case_result& r) {
      return r.name == "stride" && r.string_axis("op") == op && r.metric("predicted_wavefronts") > 1;
    });
    if (rows.empty()) continue;
    std::size_t close = 0;
    for (const auto* r : rows)
      close += std::fabs(r->metric("cycles_per_access") / r->metric("predicted_wavefronts") - 1) <= 0.1;
    out.push_back(
        fmt::format("{}s: measured cycles per warp-access within 10% of the predicted wavefronts at {} of {} "
                    "conflicted points",
                    op, close, rows.size()));
  }
}

}  // namespace

void register_bank_conflicts(registry& reg) {
  suite s{reg, "bank_conflicts", "shared-memory bank conflicts against the wavefront model"};
  const axis op = axis::strings("op", {"load", "store"}, "shared-memory loads (dependent chain) or stores");
  s.add("stride",
        [](case_state& st) {
          const auto stride = static_cast<unsigned>(st.get_int("stride"));
          with_width_and_op(st, [&](auto width, auto store) {
            constexpr int W = decltype(width)::value;
            pattern_case<W, decltype(store)::value>(st, bk::strided_pattern{stride},
                                                    bk::predicted_wavefronts_strided(stride, W));
          });
        })
      .summary("lane t accesses word t*stride: cycles per warp-access vs predicted wavefronts")
      .axis(axis::integers("word_bytes", {4, 8, 16}, "access width").with_only_listed())
      .axis(op)
      .axis(axis::integers("stride", strides(), "stride in words")
                .with_range(1, 64)
                .with_quick({std::int64_t{1}, std::int64_t{2}, std::int64_t{4}, std::int64_t{8}, std::int64_t{16},
                             std::int64_t{32}, std::int64_t{33}}))
      .baseline("stride", std::int64_t{1}, "cycles_vs_stride1", metric_ratio("cycles_per_access"));
  s.add("column",
        [](case_state& st) {
          const std::string& l = st.get_string("layout");
          const auto layout = l == "naive"    ? bk::tile_layout::naive
                              : l == "padded" ? bk::tile_layout::padded
                                              : bk::tile_layout::swizzled;
          int worst = 0;
          for (unsigned col = 0; col < 32; ++col) worst = std::max(worst, bk::predicted_wavefronts_column(layout, col));
          const bool store = st.get_string("op") == "store";
          bk::with_column_pattern(layout, [&](auto pattern) {
            if (store) pattern_case<4, true>(st, pattern, worst);
            else pattern_case<4, false>(st, pattern, worst);
          });
        })
      .summary("column access of a 32x32 float tile: naive, padded to 33, XOR-swizzled")
      .axis(axis::strings("layout", {"naive", "padded", "swizzled"}, "tile layout"))
      .axis(op)
      .baseline("layout", std::string("naive"), "cycles_vs_naive", metric_ratio("cycles_per_access"));

  // One small panel per word size, so the measured lines are not hidden under the prediction.
  present::chart_spec stride;
  stride.kind = present::chart_kind::lines;
  stride.title = "{panel}-byte words: shared-memory cycles per warp-access vs stride";
  stride.keep = present::case_is("stride");
  stride.panel_axis = "word_bytes";
  stride.label = [](const case_result& r) { return r.string_axis("op") + "s measured"; };
  stride.x = present::int_axis_of("stride");
  stride.y = present::metric_of("cycles_per_access");
  stride.x_label = "stride (words)";
  stride.y_label = "cycles per warp-access";
  stride.x_scale = present::scale::log2;
  stride.models.push_back({present::axis_is("op", "load"),
                           [](const case_result&) { return std::string("predicted wavefronts"); },
                           present::metric_of("predicted_wavefronts")});
  present::chart_spec column;
  column.title = "Column access of a 32x32 tile: the fixes";
  column.keep = present::case_is("column");
  column.label = present::label_axes({"layout", "op"});
  column.y = present::metric_of("cycles_per_access");
  column.y_label = "cycles per warp-access (lower is better)";
  column.peer = present::axis_is("layout", "naive");
  column.peer_key = "the naive layout";
  s.chart(stride).chart(column).finding(bank_findings);
}

MEMSCOPE_REGISTER_SUITE(40, register_bank_conflicts);

}  // namespace memscope::suites
