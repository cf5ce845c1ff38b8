// Suite `bank_conflicts`: shared-memory loads and stores with stride s for 4-, 8- and 16-byte
// words, cycles per warp-access measured in the kernel beside the predicted wavefronts; and the
// fixes for a tile's column access (padding, XOR swizzle).

#include "harness/registry.hpp"
#include "harness/state.hpp"
#include "suites/suites.hpp"

#include "memscope/core/device_buffer.hpp"
#include "memscope/core/launch.cuh"
#include "memscope/core/verify.hpp"
#include "memscope/shared/bank_conflicts.cuh"
#include "memscope/shared/bank_model.hpp"

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
    kernel<<<blocks, threads, smem, st_>>>(pattern, iters, cycles.data(), sink.data());
    MEMSCOPE_CHECK_LAUNCH("smem_pattern_kernel");
  };
  sink.poison(s);
  launch(s);  // warm-up: first-touch and instruction cache
  launch(s);
  MEMSCOPE_CUDA_CALL(cudaStreamSynchronize(s));
  const auto h_sink = sink.to_host();
  const unsigned want = Store ? iters - 1 : 0u;
  st.check(compare_exact(h_sink.data(), h_sink.size(), [&](std::size_t) { return want; }));

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

}  // namespace

void register_bank_conflicts(registry& reg) {
  axis op = axis::strings("op", {"load", "store"}, "shared-memory loads (dependent chain) or stores");
  {
    case_def c;
    c.suite = "bank_conflicts";
    c.name = "stride";
    c.summary = "lane t accesses word t*stride: cycles per warp-access vs predicted wavefronts";
    c.axes = {axis::integers("word_bytes", {4, 8, 16}, "access width").with_only_listed(), op,
              axis::integers("stride", strides(), "stride in words").with_range(1, 64)};
    c.axes.back().with_quick({std::int64_t{1}, std::int64_t{2}, std::int64_t{4}, std::int64_t{8}, std::int64_t{16},
                              std::int64_t{32}, std::int64_t{33}});
    c.body = [](case_state& st) {
      const auto stride = static_cast<unsigned>(st.get_int("stride"));
      with_width_and_op(st, [&](auto width, auto store) {
        constexpr int W = decltype(width)::value;
        pattern_case<W, decltype(store)::value>(st, bk::strided_pattern{stride},
                                                bk::predicted_wavefronts_strided(stride, W));
      });
    };
    c.baselines.push_back({"stride", std::int64_t{1}, "cycles_vs_stride1", metric_ratio("cycles_per_access")});
    reg.add(std::move(c));
  }
  {
    case_def c;
    c.suite = "bank_conflicts";
    c.name = "column";
    c.summary = "column access of a 32x32 float tile: naive, padded to 33, XOR-swizzled";
    c.axes = {axis::strings("layout", {"naive", "padded", "swizzled"}, "tile layout"), op};
    c.body = [](case_state& st) {
      const std::string& l = st.get_string("layout");
      const auto layout = l == "naive" ? bk::tile_layout::naive
                          : l == "padded" ? bk::tile_layout::padded
                                          : bk::tile_layout::swizzled;
      int worst = 0;
      for (unsigned col = 0; col < 32; ++col) worst = std::max(worst, bk::predicted_wavefronts_column(layout, col));
      if (st.get_string("op") == "store") pattern_case<4, true>(st, bk::column_pattern{layout}, worst);
      else pattern_case<4, false>(st, bk::column_pattern{layout}, worst);
    };
    c.baselines.push_back({"layout", std::string("naive"), "cycles_vs_naive", metric_ratio("cycles_per_access")});
    reg.add(std::move(c));
  }
}

}  // namespace memscope::suites
