// Suite `cache_bandwidth`: read bandwidth against working-set size. `own_slice`: each SM
// re-reads its own slice of the buffer (L1, then L2, then DRAM). `spread`: each pass every SM
// moves on to another SM's slice, so only L2 and DRAM can serve. `shared_lines`: every SM reads
// the whole buffer, so SMs share lines in flight; that figure is not a cache level (it stays up
// far past the L2) and is charted and described apart. One 1024-thread block per SM, 16-byte
// loads; every block's wrapping sum is checked exactly. Findings name a level only where the
// data shows its capacity edge.

#include "harness/registry.hpp"
#include "harness/suite.hpp"
#include "advise/questions.hpp"
#include "harness/text_output.hpp"
#include "present/chart_spec.hpp"
#include "present/findings.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include "harness/state.hpp"

#include "memscope/cache/cache_bandwidth.cuh"
#include "memscope/core/device_buffer.hpp"
#include "memscope/core/verify.hpp"

#include <algorithm>
#include <string>
#include <variant>
#include <vector>

namespace memscope::suites {
namespace {

namespace cb = memscope::cache;

const char* const sharing_names[] = {"shared_lines", "own_slice", "spread"};

template <cb::sharing S>
void read_case(case_state& st, std::size_t bytes) {
  const std::size_t vecs = bytes / 16;
  const auto blocks = static_cast<unsigned>(st.device().sm_count);
  const cudaStream_t s = st.stream();
  const std::uint64_t seed = st.seed();
  // Bytes one pass moves; passes bring a launch to about 4 GiB (at least 1).
  const double per_pass = 16.0 * static_cast<double>(vecs) * (S == cb::sharing::shared_lines ? blocks : 1);
  const unsigned passes =
      st.verify_only() ? 3u
                       : static_cast<unsigned>(std::clamp(4.0 * (1 << 30) / std::max(per_pass, 1.0), 1.0, 65536.0));
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
      if (S == cb::sharing::shared_lines) want += total;
      else if (S == cb::sharing::own_slice) want += slice_sum[b];
      else want += slice_sum[(b + p) % blocks];
    }
    return want;
  }));
  st.add_bytes_read(static_cast<std::uint64_t>(per_pass) * passes);
  st.add_metric("passes", passes);
  st.add_metric("bytes_per_sm",
                S == cb::sharing::shared_lines ? static_cast<double>(bytes) : static_cast<double>(bytes) / blocks);
  st.exec([&](cudaStream_t q) { cb::read_ws<S>(buf, vecs, passes, blocks, sums.data(), q); });
}

void bandwidth_case(case_state& st) {
  const auto bytes = static_cast<std::size_t>(st.get_int("ws_bytes"));
  if (bytes < 16) st.skip("a working set needs at least one 16-byte vector");
  const auto sharing = choice<cb::sharing>(sharing_names, st.get_string("sharing"));
  // Below this each pass is a few loads per thread: the loop and the launch are timed, not memory.
  constexpr std::size_t min_per_sm = 16 * 1024;
  const std::size_t per_sm = sharing == cb::sharing::shared_lines ? bytes : bytes / st.device().sm_count;
  if (!st.verify_only() && per_sm < min_per_sm)
    st.skip("under 16 KB per SM a pass is a few loads per thread and the loop is what gets timed");
  switch (sharing) {
    case cb::sharing::shared_lines:
      if (bytes > 4 * static_cast<std::size_t>(st.device().l2_bytes))
        st.skip("every SM reading the whole buffer past 4x the L2 takes minutes and shows nothing new; use spread");
      read_case<cb::sharing::shared_lines>(st, bytes);
      break;
    case cb::sharing::own_slice:
      read_case<cb::sharing::own_slice>(st, bytes);
      break;
    case cb::sharing::spread:
      read_case<cb::sharing::spread>(st, bytes);
      break;
  }
}

/// gbps against the copy ceiling of the run that measured the suite's rows (`row`: one of them).
std::string gbps_text(const results_doc& doc, const case_result& row, double gbps) {
  const double ceiling = copy_ceiling_of(doc, row);
  return ceiling > 0 ? fmt::format("{:.0f} GB/s ({:.1f}x copy)", gbps, gbps / ceiling)
                     : fmt::format("{:.0f} GB/s", gbps);
}

void cache_bandwidth_findings(const present::suite_view& v, std::vector<std::string>& out) {
  // The capacity levels: only modes where a level is a cache that holds the working set.
  for (const std::string mode : {"own_slice", "spread"}) {
    std::vector<std::pair<double, double>> c;
    const auto rows = v.rows(present::axis_is("sharing", mode));
    for (const auto* r : rows)
      c.push_back(
          {mode == "spread" ? static_cast<double>(r->int_axis("ws_bytes").value_or(0)) : r->metric("bytes_per_sm"),
           r->gbps});
    if (c.size() < 2) continue;
    std::sort(c.begin(), c.end());
    const auto levels = detect_levels(c, 0.15);
    if (levels.empty()) continue;
    present::level_text_options opt;
    opt.per_sm = mode == "own_slice";
    opt.bandwidth = true;
    out.push_back(fmt::format(
        "{}: {}",
        mode == "own_slice" ? "each SM re-reads its own slice (x = bytes per SM)"
                            : "slices rotate between SMs (x = buffer)",
        present::describe_levels(
            levels, v.doc.device, [&](double g) { return gbps_text(v.doc, *rows.front(), g); }, c.back().first, opt)));
  }
  // Shared lines: the peak within L1, then what the SMs get past it, and whether it falls at
  // the L2's capacity (where it does not, the lines are shared, not an L2 level).
  const auto shared = v.rows(present::axis_is("sharing", "shared_lines"));
  const double l1 = present::l1_capacity(v.doc.device);
  const double l2 = static_cast<double>(v.doc.device.l2_bytes);
  const auto in_l1 = present::filter(
      shared, [&](const case_result& r) { return static_cast<double>(r.int_axis("ws_bytes").value_or(0)) <= l1; });
  const auto past_l1 = present::filter(shared, [&](const case_result& r) {
    const double b = static_cast<double>(r.int_axis("ws_bytes").value_or(0));
    return b > 2 * l1 && b <= l2;
  });
  const auto past_l2 = present::filter(
      shared, [&](const case_result& r) { return static_cast<double>(r.int_axis("ws_bytes").value_or(0)) > 1.5 * l2; });
  if (in_l1.empty() || past_l1.empty()) return;
  const auto gb = [](const case_result& r) { return r.gbps; };
  const auto* peak = present::best_by(in_l1, gb);
  std::vector<double> mid;
  for (const auto* r : past_l1) mid.push_back(r->gbps);
  std::sort(mid.begin(), mid.end());
  std::string text = fmt::format(
      "every SM reads one buffer (shared lines, not a cache level): {} at {} (in L1); {} to {} past L1 up to the {} L2",
      gbps_text(v.doc, *peak, peak->gbps), format_bytes(static_cast<double>(peak->int_axis("ws_bytes").value_or(0))),
      gbps_text(v.doc, *peak, mid.front()), gbps_text(v.doc, *peak, mid.back()), format_bytes(l2));
  if (!past_l2.empty()) {
    const auto* far = present::best_by(
        past_l2, [](const case_result& r) { return static_cast<double>(r.int_axis("ws_bytes").value_or(0)); });
    const double ratio = far->gbps / mid[mid.size() / 2];
    text +=
        fmt::format("; at {} ({:.1f}x the L2) still {}: {}",
                    format_bytes(static_cast<double>(far->int_axis("ws_bytes").value_or(0))),
                    static_cast<double>(far->int_axis("ws_bytes").value_or(0)) / l2, gbps_text(v.doc, *far, far->gbps),
                    ratio > 0.7 ? "the L2's capacity is no edge here, SMs share lines in flight"
                                : "it falls past the L2's capacity");
  }
  out.push_back(text);
}

/// Version 2 and older named shared_lines "same_buffer".
void upgrade_row(case_result& r, int from_version) {
  if (from_version >= 3) return;
  for (auto& [name, value] : r.axes)
    if (name == "sharing" && std::holds_alternative<std::string>(value) &&
        std::get<std::string>(value) == "same_buffer")
      value = std::string("shared_lines");
  const std::string old = "sharing=same_buffer";
  if (const auto at = r.axes_label.find(old); at != std::string::npos)
    r.axes_label.replace(at, old.size(), "sharing=shared_lines");
  const std::string was = "same_buffer";
  if (const auto at = r.variant.find(was); at != std::string::npos) r.variant.replace(at, was.size(), "shared_lines");
}

/// The map's points: every SM re-reading 64 and 128 KiB (its L1), and each SM its own slice of
/// 1/2 to 2x the L2 in sixteenths around it, where the read bandwidth leaves the L2's for the
/// DRAM's.
std::vector<std::string> map_l1_axes(const device_info&) { return {"sharing=shared_lines", "ws_bytes=64K,128K"}; }

std::vector<std::string> map_l2_axes(const device_info& d) {
  const double l2 = d.l2_bytes > 0 ? static_cast<double>(d.l2_bytes) : 50.0 * (1 << 20);
  std::vector<std::string> sizes;
  for (double f : {0.5, 0.625, 0.75, 0.8125, 0.875, 0.9375, 1.0, 1.0625, 1.125, 1.25, 1.5, 2.0})
    sizes.push_back(std::to_string(static_cast<std::int64_t>(f * l2) / 16 * 16));
  return {"sharing=own_slice", "ws_bytes=" + fmt::format("{}", fmt::join(sizes, ","))};
}

/// The L2's capacity as a program sees it: the largest working set read at 90% or more of the
/// L2's bandwidth (the slices past each SM's L1 and within the driver's L2: the plateau).
void map_l2_capacity(const present::row_list& slices, double l1, present::map_level& l2) {
  const auto ws = [](const case_result& r) { return static_cast<double>(r.int_axis("ws_bytes").value_or(0)); };
  const double driver = std::isfinite(l2.driver_bytes) ? l2.driver_bytes : 0;
  std::vector<std::pair<double, double>> curve;
  double plateau = 0;
  for (const auto* r : slices) {
    if (!(r->metric("bytes_per_sm") > l1)) continue;  // each SM's slice fits its L1: L1 hits
    curve.push_back({ws(*r), r->gbps});
    if (ws(*r) <= 0.9 * driver) plateau = std::max(plateau, r->gbps);
  }
  std::sort(curve.begin(), curve.end());
  if (curve.empty()) {
    if (!slices.empty()) l2.missing.push_back("capacity and read bandwidth: no slice measured past an SM's L1");
    return;
  }
  if (plateau == 0) plateau = curve.front().second;
  const auto edge = present::first_below(curve, plateau, 0.9);
  if (!std::isfinite(edge.lo)) {
    l2.missing.push_back(fmt::format("capacity: read bandwidth stayed within 10% of the L2's from {} to {}",
                                     format_bytes(curve.front().first), format_bytes(curve.back().first)));
  } else {
    l2.detected_lo = edge.lo;
    l2.detected_hi = edge.hi;
    l2.detected_bytes = edge.at;
    const auto half = present::first_below(curve, plateau, 0.5);
    l2.detected_from = fmt::format(
        "each SM reading its own slice, read bandwidth stays within 10% of the L2's {:.1f} TB/s up to it{} "
        "(cache_bandwidth/read)",
        plateau / 1000,
        std::isfinite(half.at) ? fmt::format(" and halves at {}", format_bytes(half.at)) : std::string());
  }
  const double fits = std::isfinite(edge.lo) ? edge.lo : driver;
  const case_result* best = nullptr;
  for (const auto* r : slices)
    if (r->metric("bytes_per_sm") > l1 && ws(*r) <= fits && (!best || r->gbps > best->gbps)) best = r;
  if (best) {
    l2.bandwidth_gbps = present::gbps_from(*best);
    l2.bandwidth_what = "each SM reading its own " + format_bytes(best->metric("bytes_per_sm")) +
                        " slice (past its L1) of " + format_bytes(ws(*best));
  }
}

void map_bandwidth(const present::suite_view& v, present::hierarchy& h) {
  using present::level_id;
  const double l1 = present::l1_capacity(v.doc.device);
  const auto ws = [](const case_result& r) { return static_cast<double>(r.int_axis("ws_bytes").value_or(0)); };
  const auto in_l1 = v.rows(
      [&](const case_result& r) { return r.string_axis("sharing") == "shared_lines" && ws(r) <= l1 && r.gbps > 0; });
  if (const auto* best = present::best_by(in_l1, present::gbps())) {
    h.at(level_id::l1).bandwidth_gbps = present::gbps_from(*best);
    h.at(level_id::l1).bandwidth_what =
        "every SM re-reading " + format_bytes(ws(*best)) + " in its own L1, 16-byte loads";
  } else if (auto why = present::unmeasured_reason(v, "read"); !why.empty()) {
    h.at(level_id::l1).missing.push_back("read bandwidth: " + why);
  }
  map_l2_capacity(v.rows([](const case_result& r) { return r.string_axis("sharing") == "own_slice" && r.gbps > 0; }),
                  l1, h.at(level_id::l2));
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

  auto c = present::line_plot("Read bandwidth vs working set (L1, L2, DRAM)", present::label_axes({"sharing"}),
                              "ws_bytes", present::gbps(), "buffer", "GB/s", present::scale::log2_bytes);
  c.keep = [](const case_result& r) { return r.string_axis("sharing") != "shared_lines"; };
  c.y_scale = present::scale::log10;
  c.copy_ceiling = true;
  c.with_sample_spread();
  auto shared = present::line_plot("Every SM reading one buffer: shared lines, not a cache level",
                                   present::label_axes({"sharing"}), "ws_bytes", present::gbps(), "buffer", "GB/s",
                                   present::scale::log2_bytes);
  shared.keep = present::axis_is("sharing", "shared_lines");
  shared.y_scale = present::scale::log10;
  shared.copy_ceiling = true;
  shared.with_sample_spread();
  s.chart(c).chart(shared).finding(cache_bandwidth_findings).upgrade(upgrade_row);
  s.map_point("read", map_l1_axes).map_point("read", map_l2_axes).map_reader(map_bandwidth);
}

MEMSCOPE_REGISTER_SUITE(140, register_cache_bandwidth);

}  // namespace memscope::suites
