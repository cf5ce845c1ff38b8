// Suite `cache_config`: what the L1/shared split settings change on this GPU.
// `reuse`: each SM re-reads its own window of W KB (fits L1 or not) under each
//   cudaFuncSetCacheConfig preference and carveout, with and without dynamic shared memory
//   allocated beside it: the settings matter only if they move the L1 size.
// `matmul`: the seed's claim, a 32x32-tiled shared-memory matrix multiply at sizes below 512,
//   512-2048 and above 2048 under the four preferences, each against PreferNone in the same run.

#include "harness/registry.hpp"
#include "harness/suite.hpp"
#include "advise/questions.hpp"
#include "harness/text_output.hpp"
#include "present/chart_spec.hpp"
#include "present/findings.hpp"

#include <fmt/format.h>
#include "harness/state.hpp"
#include "suites/own_slice_common.cuh"

#include "memscope/cache/cache_bandwidth.cuh"
#include "memscope/cache/cache_config.cuh"
#include "memscope/cache/matmul_reference.hpp"
#include "memscope/core/device_buffer.hpp"
#include "memscope/core/fill.cuh"
#include "memscope/core/random.hpp"
#include "memscope/core/verify.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace memscope::suites {
namespace {

namespace cc = memscope::cache;

const std::vector<std::string> setting_names = {"none",       "prefer_shared", "prefer_l1",   "prefer_equal",
                                                "carveout_0", "carveout_50",   "carveout_100"};

void validate_setting(const std::string& s) {
  try {
    cc::parse_split(s);
  } catch (const std::invalid_argument& e) {
    throw usage_error(e.what());
  }
}

void reuse_case(case_state& st) {
  const cc::split_setting setting = cc::parse_split(st.get_string("setting"));
  const auto window = static_cast<std::size_t>(st.get_int("window_bytes"));
  const auto smem = static_cast<std::size_t>(st.get_int("smem_bytes"));
  if (smem > st.device().shared_per_block_optin)
    st.skip("a block may allocate at most " + std::to_string(st.device().shared_per_block_optin) +
            " bytes of shared memory here");
  const auto kernel = cc::read_ws_kernel<cc::sharing::own_slice>;
  prepare_dynamic_smem(kernel, smem);
  cc::split_guard<decltype(kernel)> guard(kernel, setting);
  cudaFuncAttributes attr{};
  MEMSCOPE_CUDA_CALL(cudaFuncGetAttributes(&attr, kernel));
  st.add_metric("carveout_attribute", attr.preferredShmemCarveout);
  own_slice_rereads(st, window, smem);
}

void matmul_case(case_state& st) {
  const cc::split_setting setting = cc::parse_split(st.get_string("setting"));
  const auto n = static_cast<int>(st.get_int("n"));
  const cudaStream_t s = st.stream();
  const std::uint64_t seed_a = st.seed(), seed_b = st.seed() ^ 0xB0B;
  const std::size_t nn = static_cast<std::size_t>(n) * n;
  device_buffer<float> a(nn), b(nn), c(nn);
  // Whole numbers in [-8, 8]: every partial sum (at most 64 n) is exact in float, so every
  // entry of C is checked exactly (cache::check_product).
  fill_hash(a.data(), nn, seed_a, fill_kind::small_int, s);
  fill_hash(b.data(), nn, seed_b, fill_kind::small_int, s);
  c.poison(s);
  const auto kernel = cc::tiled_matmul_kernel<>;
  cc::split_guard<decltype(kernel)> guard(kernel, setting);
  cc::tiled_matmul(a.data(), b.data(), c.data(), n, s);
  MEMSCOPE_CUDA_CALL(cudaStreamSynchronize(s));
  std::vector<std::int8_t> h_a(nn), h_b(nn);
  for (std::size_t i = 0; i < nn; ++i) {
    h_a[i] = static_cast<std::int8_t>(hash_small_int(seed_a, i));
    h_b[i] = static_cast<std::int8_t>(hash_small_int(seed_b, i));
  }
  const auto checked = cc::check_product(static_cast<std::size_t>(n), h_a, h_b, c.to_host(), st.seed() ^ 0xC4EC);
  st.check(checked.passed() ? verify_result::pass()
                            : verify_result::fail(checked.describe(static_cast<std::size_t>(n))));
  st.add_elements(2 * nn * static_cast<std::uint64_t>(n));  // flops: elements_per_s is flop/s
  st.exec([&](cudaStream_t q) { cc::tiled_matmul(a.data(), b.data(), c.data(), n, q); });
}

axis setting_axis(std::vector<std::string> values) {
  return axis::strings("setting", std::move(values),
                       "cudaFuncSetCacheConfig preference, or cudaFuncAttributePreferredSharedMemoryCarveout percent")
      .with_validator(validate_setting);
}

void cache_config_findings(const present::suite_view& v, std::vector<std::string>& out) {
  // The seed's table: gains by size class for the preference it recommends.
  struct size_class {
    const char* name;
    std::int64_t lo, hi;
    const char* seed_pick;
    const char* seed_gain;
  };
  const size_class classes[] = {{"n < 512", 0, 511, "prefer_l1", "15-20%"},
                                {"512 <= n <= 2048", 512, 2048, "prefer_shared", "10-15%"},
                                {"n > 2048", 2049, INT64_MAX, "none", "5-8%"}};
  const auto mm = v.rows(present::case_is("matmul"));
  for (const auto& k : classes) {
    const auto in = present::filter(mm, [&](const case_result& r) {
      const auto n = r.int_axis("n").value_or(0);
      return n >= k.lo && n <= k.hi;
    });
    const auto ratio = present::metric_of("speedup_vs_none");
    const auto *lo = present::worst_by(in, ratio), *hi = present::best_by(in, ratio);
    if (lo && hi)
      out.push_back(
          fmt::format("tiled matmul, {}: every preference runs at {:.3f}x-{:.3f}x PreferNone (the seed recommends {} "
                      "for a {} gain)",
                      k.name, ratio(*lo), ratio(*hi), k.seed_pick, k.seed_gain));
  }
  const auto reuse = v.rows(present::case_is("reuse"));
  const auto ratio = present::metric_of("speedup_vs_none");
  const auto *best = present::best_by(reuse, ratio), *worst = present::worst_by(reuse, ratio);
  const auto bytes = [](const case_result* r, const char* a) {
    return format_bytes(static_cast<double>(r->int_axis(a).value_or(0)));
  };
  if (best && worst)
    out.push_back(fmt::format(
        "L1 re-read of a per-SM window: from {:.2f}x ({} with {} of shared memory allocated, {} window) to "
        "{:.2f}x ({}, {} allocated, {} window) of PreferNone",
        ratio(*worst), worst->string_axis("setting"), bytes(worst, "smem_bytes"), bytes(worst, "window_bytes"),
        ratio(*best), best->string_axis("setting"), bytes(best, "smem_bytes"), bytes(best, "window_bytes")));
}

}  // namespace

void register_cache_config(registry& reg) {
  suite s{reg, "cache_config", "cache preference and carveout settings"};
  s.add("reuse", reuse_case)
      .summary("each SM re-reads its own window 64 times: what the cache preference and carveout do to L1 hits")
      .axis(setting_axis(setting_names))
      .axis(axis::integers("window_bytes", {32 * 1024, 96 * 1024, 160 * 1024, 208 * 1024}, "bytes each SM re-reads")
                .with_range(16, std::int64_t{1} << 24)
                .with_verify({std::int64_t{16}, std::int64_t{4112}, std::int64_t{100000}}))
      .axis(axis::integers("smem_bytes", {0, 100 * 1024}, "dynamic shared memory each block allocates (unused)")
                .with_range(0, std::int64_t{1} << 20)
                .with_verify({std::int64_t{0}}))
      .baseline("setting", std::string("none"), "speedup_vs_none");
  s.add("matmul", matmul_case)
      .summary("the seed's table: 32x32-tiled shared-memory SGEMM, n < 512, 512-2048, > 2048, per cache preference")
      .axis(setting_axis({"none", "prefer_shared", "prefer_l1", "prefer_equal"}))
      .axis(
          axis::integers("n", {256, 384, 1024, 2048, 4096}, "n x n matrices")
              .with_range(0, 32768)
              .with_quick({std::int64_t{256}, std::int64_t{1024}, std::int64_t{4096}})
              .with_verify({std::int64_t{0}, std::int64_t{1}, std::int64_t{17}, std::int64_t{100}, std::int64_t{257}}))
      .footprint([](const axis_point& p) { return static_cast<std::uint64_t>(p.get_int("n")) * p.get_int("n") * 12; })
      .baseline("setting", std::string("none"), "speedup_vs_none");

  auto reuse =
      present::line_plot("Re-reading a per-SM window, {panel} of shared memory allocated: GB/s by cache setting",
                         present::label_axes({"setting"}), "window_bytes", present::gbps(), "window per SM", "GB/s",
                         present::scale::log2_bytes);
  reuse.keep = present::case_is("reuse");
  reuse.panel_axis = "smem_bytes";
  reuse.panel_is_bytes = true;
  reuse.with_sample_spread();
  auto mm = present::line_plot("Tiled matmul: speed relative to PreferNone (the seed claims 5-20%)",
                               present::label_axes({"setting"}), "n", present::metric_of("speedup_vs_none"), "n",
                               "x PreferNone", present::scale::log2);
  mm.keep = present::case_is("matmul");
  s.chart(reuse).chart(mm).finding(cache_config_findings);
}

MEMSCOPE_REGISTER_SUITE(160, register_cache_config);

}  // namespace memscope::suites
