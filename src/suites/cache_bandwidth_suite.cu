// Suite `cache_bandwidth`: read bandwidth against working-set size. `same_buffer`: every SM
// reads the whole buffer (L1, then L2, then DRAM as it grows). `own_slice`: each SM re-reads
// its own slice of the buffer. `spread`: each pass every SM moves on to another SM's slice, so
// only L2 and DRAM can serve. One 1024-thread block per SM, 16-byte loads; every block's
// wrapping sum is checked exactly. Findings label the plateaus L1 / L2 / DRAM.

#include "harness/suite.hpp"
#include "advise/questions.hpp"
#include "harness/text_output.hpp"
#include "present/chart_spec.hpp"
#include "present/findings.hpp"

#include <fmt/format.h>
#include "harness/state.hpp"
#include "suites/suites.hpp"

#include "memscope/cache/cache_bandwidth.cuh"
#include "memscope/core/device_buffer.hpp"
#include "memscope/core/verify.hpp"

#include <algorithm>
#include <vector>

namespace memscope::suites {
namespace {

namespace cb = memscope::cache;

const char* const sharing_names[] = {"same_buffer", "own_slice", "spread"};

template <cb::sharing S>
void read_case(case_state& st, std::size_t bytes) {
  const std::size_t vecs = bytes / 16;
  const auto blocks = static_cast<unsigned>(st.device().sm_count);
  const cudaStream_t s = st.stream();
  const std::uint64_t seed = st.seed();
  // Bytes one pass moves; passes bring a launch to about 4 GiB (at least 1).
  const double per_pass = 16.0 * static_cast<double>(vecs) * (S == cb::sharing::same_buffer ? blocks : 1);
  const unsigned passes =
      st.verify_only() ? 3u : static_cast<unsigned>(std::clamp(4.0 * (1 << 30) / std::max(per_pass, 1.0), 1.0, 65536.0));
  device_buffer<std::uint32_t> words(vecs * 4), sums(blocks);
  cb::fill_words(words.data(), words.size(), seed, s);
  const auto* buf = reinterpret_cast<const uint4*>(words.data());
  MEMSCOPE_CUDA_CALL(cudaMemsetAsync(sums.data(), 0, sums.bytes(), s));
  cb::read_ws<S>(buf, vecs, passes, blocks, sums.data(), s);
  MEMSCOPE_CUDA_CALL(cudaStreamSynchronize(s));
  // Expected: the wrapping sum of each slice (or of the whole buffer), times what each block read.
  const std::vector<std::uint32_t> slice_sum = cb::slice_sums(vecs, blocks, seed);
  std::uint32_t total = 0;
  for (auto v : slice_sum) total += v;
  const auto h = sums.to_host();
  st.check(compare_exact(h.data(), h.size(), [&](std::size_t b) {
    std::uint32_t want = 0;
    for (unsigned p = 0; p < passes; ++p) {
      if (S == cb::sharing::same_buffer) want += total;
      else if (S == cb::sharing::own_slice) want += slice_sum[b];
      else want += slice_sum[(b + p) % blocks];
    }
    return want;
  }));
  st.add_bytes_read(static_cast<std::uint64_t>(per_pass) * passes);
  st.add_metric("passes", passes);
  st.add_metric("bytes_per_sm", S == cb::sharing::same_buffer ? static_cast<double>(bytes) : static_cast<double>(bytes) / blocks);
  st.exec([&](cudaStream_t q) { cb::read_ws<S>(buf, vecs, passes, blocks, sums.data(), q); });
}

void bandwidth_case(case_state& st) {
  const auto bytes = static_cast<std::size_t>(st.get_int("ws_bytes"));
  if (bytes < 16) st.skip("a working set needs at least one 16-byte vector");
  const auto sharing = choice<cb::sharing>(sharing_names, st.get_string("sharing"));
  // Below this each pass is a few loads per thread: the loop and the launch are timed, not memory.
  constexpr std::size_t min_per_sm = 16 * 1024;
  const std::size_t per_sm = sharing == cb::sharing::same_buffer ? bytes : bytes / st.device().sm_count;
  if (!st.verify_only() && per_sm < min_per_sm)
    st.skip("under 16 KB per SM a pass is a few loads per thread and the loop is what gets timed");
  switch (sharing) {
    case cb::sharing::same_buffer:
      if (bytes > 4 * static_cast<std::size_t>(st.device().l2_bytes))
        st.skip("every SM reading the whole buffer past 4x the L2 takes minutes and shows nothing new; use spread");
      read_case<cb::sharing::same_buffer>(st, bytes);
      break;
    case cb::sharing::own_slice: read_case<cb::sharing::own_slice>(st, bytes); break;
    case cb::sharing::spread: read_case<cb::sharing::spread>(st, bytes); break;
  }
}


void cache_bandwidth_findings(const present::suite_view& v, std::vector<std::string>& out) {
  for (const std::string mode : {"same_buffer", "own_slice", "spread"}) {
    std::vector<std::pair<double, double>> c;
    for (const auto* r : v.rows(present::axis_is("sharing", mode)))
      c.push_back({mode == "spread" ? static_cast<double>(r->int_axis("ws_bytes").value_or(0)) : r->metric("bytes_per_sm"), r->gbps});
    if (c.size() < 2) continue;
    std::sort(c.begin(), c.end());
    const auto levels = detect_levels(c, 0.15);
    if (levels.empty()) continue;
    auto value = [&](double gbps) {
      return v.doc.copy_ceiling_gbps > 0 ? fmt::format("{:.0f} GB/s ({:.1f}x copy)", gbps, gbps / v.doc.copy_ceiling_gbps)
                                         : fmt::format("{:.0f} GB/s", gbps);
    };
    const char* what = mode == "same_buffer" ? "every SM reads the whole buffer (x = buffer)"
                       : mode == "own_slice" ? "each SM re-reads its own slice (x = bytes per SM)"
                                             : "slices rotate between SMs (x = buffer)";
    present::level_text_options opt;
    opt.per_sm = mode == "own_slice";
    opt.bandwidth = true;
    opt.shared_lines = mode == "same_buffer";
    out.push_back(fmt::format("{}: {}", what, present::describe_levels(levels, v.doc.device, value, c.back().first, opt)));
  }
}

}  // namespace

void register_cache_bandwidth(registry& reg) {
  suite s{reg, "cache_bandwidth", "read bandwidth against working set: L1, L2, DRAM"};
  std::vector<axis_value> quick;
  for (std::int64_t p = 16384; p <= (std::int64_t{4} << 30); p *= 4) quick.emplace_back(p);
  s.add("read", bandwidth_case)
      .summary("read bandwidth vs working set: every SM the same buffer, its own slice, or rotating slices")
      .axis(axis::strings("sharing", {std::begin(sharing_names), std::end(sharing_names)},
                          "every SM reads the whole buffer; each its own slice; slices rotate between SMs"))
      .axis(axis::octaves("ws_bytes", 16384, std::int64_t{4} << 30, "buffer bytes (rounded down to 16-byte vectors)")
                .with_quick(quick)
                .with_range(16, std::int64_t{1} << 42)
                .with_verify({std::int64_t{16}, std::int64_t{4112}, std::int64_t{1000016}, std::int64_t{3} << 22}))
      .footprint([](const axis_point& p) { return static_cast<std::uint64_t>(p.get_int("ws_bytes")); });

  auto c = present::line_plot("Read bandwidth vs working set (L1, L2, DRAM)", present::label_axes({"sharing"}), "ws_bytes", present::gbps(),
                              "buffer", "GB/s", present::scale::log2_bytes);
  c.y_scale = present::scale::log10;
  c.copy_ceiling = true;
  s.chart(c).finding(cache_bandwidth_findings);
}

}  // namespace memscope::suites
