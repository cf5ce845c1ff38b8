// Suite `coalescing`: global-memory bandwidth as the start offset moves and as the stride grows,
// for 4-, 8- and 16-byte elements, reads and writes; beside each figure, the efficiency the
// 32-byte-sector model predicts. Plus cudaMalloc's alignment, checked.

#include "harness/registry.hpp"
#include "harness/suite.hpp"
#include "advise/questions.hpp"
#include "harness/text_output.hpp"
#include "present/chart_spec.hpp"
#include "present/findings.hpp"

#include <fmt/format.h>
#include "harness/state.hpp"

#include "memscope/core/device_buffer.hpp"
#include "memscope/core/fill.cuh"
#include "memscope/core/random.hpp"
#include "memscope/core/verify.hpp"
#include "memscope/global/coalescing.cuh"
#include "memscope/global/coalescing_model.hpp"

#include <algorithm>
#include <cstring>

namespace memscope::suites {
namespace {

namespace co = memscope::coalescing;

constexpr std::size_t max_elements = std::size_t{1} << 26;
// L2 allocates 128-byte lines: a line is taken whole however few of its sectors a warp uses.
constexpr std::size_t l2_line = 128;
// Every point touches at least this many L2-sized volumes of lines, so repeated launches
// cannot be served from the L2 they warmed: each streams from DRAM.
constexpr std::size_t l2_multiple = 4;

/// Bytes of L2 lines one element of a point takes: its own line once elements are a line apart.
std::size_t line_bytes_per_element(std::size_t elem_bytes, std::size_t stride) {
  return std::min(elem_bytes * stride, l2_line);
}

/// Elements a point processes: enough that the lines touched are at least 4x the L2 (and
/// 256 MiB), at most 2^26.
std::size_t elements_for(std::size_t elem_bytes, std::size_t stride, std::size_t l2_bytes) {
  const std::size_t touched = std::max(l2_multiple * l2_bytes, std::size_t{1} << 28);
  return std::max<std::size_t>(1, std::min(max_elements, touched / line_bytes_per_element(elem_bytes, stride)));
}

/// Device bytes the pattern spans: what a point allocates.
std::uint64_t span_bytes(const axis_point& p, const device_info& d, std::size_t offset, std::size_t stride) {
  const auto eb = static_cast<std::size_t>(p.get_int("elem_bytes"));
  const std::size_t n = elements_for(eb, stride, static_cast<std::size_t>(std::max(d.l2_bytes, 0)));
  return static_cast<std::uint64_t>(offset + (n - 1) * stride + 1) * eb;
}

template <class Fn>
void with_elem_type(std::int64_t bytes, Fn&& fn) {
  if (bytes == 4) fn(float{});
  else if (bytes == 8) fn(float2{});
  else fn(float4{});
}

template <class T>
void strided_case(case_state& st, std::size_t offset, std::size_t stride, std::size_t n) {
  constexpr std::size_t lanes = sizeof(T) / sizeof(float);
  const bool write = st.get_string("direction") == "write";
  const cudaStream_t s = st.stream();
  const std::size_t span = offset + (n ? (n - 1) * stride + 1 : 0);  // elements of T the pattern spans
  device_buffer<T> buf(span);
  const std::uint64_t seed = st.seed();
  st.add_metric("predicted_efficiency", co::sector_efficiency(sizeof(T), offset, stride));
  st.add_elements(n);

  if (!write) {
    fill_hash(reinterpret_cast<float*>(buf.data()), span * lanes, seed, fill_kind::small_int, s);
    device_buffer<float> partials(co::strided_grid<T>(n));
    partials.poison(s);
    co::strided_read(buf.data(), n, offset, stride, partials.data(), s);
    MEMSCOPE_CUDA_CALL(cudaStreamSynchronize(s));
    double got = 0;
    for (float p : partials.to_host()) got += p;
    const double want = parallel_sum(n * lanes, [&](std::size_t k) {
      return static_cast<double>(hash_small_int(seed, (offset + (k / lanes) * stride) * lanes + k % lanes));
    });
    st.check(compare_scalar(got, want, 0.0, "sum of the strided elements"));
    st.add_bytes_read(n * sizeof(T));
    st.exec([&](cudaStream_t st_) { co::strided_read(buf.data(), n, offset, stride, partials.data(), st_); });
  } else {
    // 0x7F bytes: a finite float that no write produces, so untouched elements are visible.
    buf.poison(s, 0x7F);
    float poison;
    std::memset(&poison, 0x7F, sizeof poison);
    const float value = hash_uniform(seed, 0);
    co::strided_write(buf.data(), n, offset, stride, value, s);
    MEMSCOPE_CUDA_CALL(cudaStreamSynchronize(s));
    const auto h = buf.to_host();
    st.check(compare_exact(reinterpret_cast<const float*>(h.data()), span * lanes, [&](std::size_t k) {
      const std::size_t e = k / lanes;
      const bool written = e >= offset && (e - offset) % stride == 0;
      return written ? value : poison;
    }));
    st.add_bytes_written(n * sizeof(T));
    st.exec([&](cudaStream_t st_) { co::strided_write(buf.data(), n, offset, stride, value, st_); });
  }
}

void pattern_case(case_state& st, std::size_t offset, std::size_t stride) {
  const std::int64_t eb = st.get_int("elem_bytes");
  // verify mode shrinks the problem to awkward sizes: a prime count, past one grid.
  const std::size_t n = st.verify_only() ? 100003
                                         : elements_for(static_cast<std::size_t>(eb), stride,
                                                        static_cast<std::size_t>(std::max(st.device().l2_bytes, 0)));
  st.add_metric("lines_touched_bytes",
                static_cast<double>(n * line_bytes_per_element(static_cast<std::size_t>(eb), stride)));
  with_elem_type(eb, [&](auto elem) { strided_case<decltype(elem)>(st, offset, stride, n); });
}

axis elem_axis() {
  return axis::integers("elem_bytes", {4, 8, 16}, "element size: float, float2, float4").with_only_listed();
}
axis direction_axis() { return axis::strings("direction", {"read", "write"}, "loads or stores"); }

void malloc_alignment_case(case_state& st) {
  // Many allocations of odd sizes: the largest power of two dividing every address.
  std::vector<device_buffer<unsigned char>> bufs;
  std::uintptr_t all = 0;
  for (std::size_t i = 1; i <= 64; ++i) {
    bufs.emplace_back(i * 13);
    all |= reinterpret_cast<std::uintptr_t>(bufs.back().data());
  }
  const std::uintptr_t alignment = all & (~all + 1);
  st.add_metric("alignment_bytes", static_cast<double>(alignment));
  st.check(alignment >= 256 ? verify_result::pass()
                            : verify_result::fail("cudaMalloc returned an address aligned to only " +
                                                  std::to_string(alignment) + " bytes"));
}

void coalescing_findings(const present::suite_view& v, std::vector<std::string>& out) {
  for (const std::string dir : {"read", "write"}) {
    const auto rows = v.rows(
        present::where("offset", {{"elem_bytes", std::int64_t{4}}, {"direction", dir}, {"offset", std::int64_t{1}}}));
    if (!rows.empty())
      out.push_back(fmt::format(
          "4-byte {}s starting one element off alignment: {:.2f}x the aligned bandwidth (sector model: {:.2f})", dir,
          rows[0]->metric("relative_to_aligned"), rows[0]->metric("predicted_efficiency")));
  }
  // The claim that every point streams from DRAM, checked on the rows themselves.
  const auto timed =
      v.rows([](const case_result& r) { return r.name == "stride" && r.metrics.count("lines_touched_bytes"); });
  if (!timed.empty() && v.doc.device.l2_bytes > 0) {
    const auto least = *std::min_element(timed.begin(), timed.end(), [](const case_result* a, const case_result* b) {
      return a->metric("lines_touched_bytes") < b->metric("lines_touched_bytes");
    });
    const double times = least->metric("lines_touched_bytes") / static_cast<double>(v.doc.device.l2_bytes);
    out.push_back(fmt::format("stride points touch {} of L2 lines at the least ({}): {:.1f}x the {} L2, so {}",
                              format_bytes(least->metric("lines_touched_bytes")), least->axes_label, times,
                              format_bytes(static_cast<double>(v.doc.device.l2_bytes)),
                              times >= 2 ? "every point streams from DRAM" : "some points can be served from L2"));
  }
  // Untimed: the alignment case only checks and records.
  for (const auto& r : v.doc.results)
    if (r.suite == v.suite && r.name == "malloc_alignment" && r.status == case_status::ok &&
        r.metrics.count("alignment_bytes"))
      out.push_back(fmt::format("cudaMalloc alignment observed: {:.0f} bytes (at least 256 promised)",
                                r.metrics.at("alignment_bytes")));
}

std::optional<present::fact_value> misaligned_store_fact(const present::suite_view& v, std::optional<double>) {
  auto at = [&](const char* dir, std::int64_t offset) {
    const auto rows = v.rows(present::where(
        "offset", {{"elem_bytes", std::int64_t{4}}, {"direction", std::string(dir)}, {"offset", offset}}));
    return rows.empty() ? nullptr : rows.front();
  };
  const auto *aligned = at("write", 0), *skewed = at("write", 1), *read_skewed = at("read", 1);
  if (!aligned || !skewed) return std::nullopt;
  return present::fact_value{fmt::format("4-byte stores: {:.0f} GB/s aligned, {:.0f} GB/s one element off ({:.2f}x){}",
                                         aligned->gbps, skewed->gbps, skewed->metric("relative_to_aligned"),
                                         read_skewed ? fmt::format("; reads one element off: {:.2f}x",
                                                                   read_skewed->metric("relative_to_aligned"))
                                                     : ""),
                             skewed->metric("relative_to_aligned"), "", ""};
}

/// DRAM's fetch granularity: a strided read's useful bandwidth halves with each doubling of the
/// stride while the elements share a fetch, and stays flat once each costs a fetch of its own.
void map_granularity(const present::suite_view& v, present::hierarchy& h) {
  auto rows = v.rows(present::where("stride", {{"elem_bytes", std::int64_t{4}}, {"direction", std::string("read")}}));
  std::sort(rows.begin(), rows.end(), [](const case_result* a, const case_result* b) {
    return a->int_axis("stride").value_or(0) < b->int_axis("stride").value_or(0);
  });
  // Useful bandwidth x stride stays near 1 while each doubling halves it; past the fetch size
  // it grows with the stride (each element then costs one fetch).
  double fetch = 0, widest = 0;
  bool halving = true;
  for (const auto* r : rows) {
    const double stride = static_cast<double>(r->int_axis("stride").value_or(0));
    const double kept = r->metric("relative_to_unit_stride") * stride;
    widest = stride * 4;
    halving = halving && std::isfinite(kept) && kept >= 0.75 && kept <= 1.33;
    if (halving) fetch = stride * 4;
  }
  for (auto id : {present::level_id::l1, present::level_id::l2})
    h.at(id).missing.push_back("line and sector size: the map measures DRAM's fetch granularity only");
  if (fetch == 0 || rows.size() < 3) return;
  h.at(present::level_id::dram)
      .notes.push_back(fetch < widest
                           ? fmt::format("fetch granularity {:.0f} B: a strided read's useful bandwidth halves with "
                                         "each doubling of the stride up to {:.0f} B apart, then no longer "
                                         "(coalescing/stride)",
                                         fetch, fetch)
                           : fmt::format("fetch granularity at least {:.0f} B: a strided read's useful bandwidth "
                                         "halved with every stride measured (coalescing/stride)",
                                         fetch));
}
}  // namespace

void register_coalescing(registry& reg) {
  suite s{reg, "coalescing", "global bandwidth against start offset and stride"};
  auto relative = [](const case_result& row, const case_result& base) {
    return base.gbps > 0 ? row.gbps / base.gbps : 0;
  };
  s.add("offset", [](case_state& st) { pattern_case(st, static_cast<std::size_t>(st.get_int("offset")), 1); })
      .summary("element i at in[offset + i]: misaligned starts")
      .axis(elem_axis())
      .axis(direction_axis())
      .axis(axis::integers("offset", {0, 1, 2, 3, 4, 8, 16, 31, 32}, "start offset in elements")
                .with_range(0, 4096)
                .with_quick({std::int64_t{0}, std::int64_t{1}, std::int64_t{8}, std::int64_t{32}}))
      .footprint([](const axis_point& p, const device_info& d) {
        return span_bytes(p, d, static_cast<std::size_t>(p.get_int("offset")), 1);
      })
      .baseline("offset", std::int64_t{0}, "relative_to_aligned", relative);
  s.add("stride", [](case_state& st) { pattern_case(st, 0, static_cast<std::size_t>(st.get_int("stride"))); })
      .summary("element i at in[i * stride]: scattered warps")
      .axis(elem_axis())
      .axis(direction_axis())
      .axis(axis::integers("stride", {1, 2, 4, 8, 16, 32, 64, 128}, "stride in elements")
                .with_range(1, 1 << 20)
                .with_quick({std::int64_t{1}, std::int64_t{2}, std::int64_t{8}, std::int64_t{32}}))
      .footprint([](const axis_point& p, const device_info& d) {
        return span_bytes(p, d, 0, static_cast<std::size_t>(p.get_int("stride")));
      })
      .baseline("stride", std::int64_t{1}, "relative_to_unit_stride", relative);
  s.add("malloc_alignment", malloc_alignment_case)
      .summary("cudaMalloc returns addresses aligned to at least 256 bytes (checked)");

  const auto series_name = [](const case_result& r) {
    return fmt::format("{} B {}", r.int_axis("elem_bytes").value_or(0), r.string_axis("direction"));
  };
  present::chart_spec offset;
  offset.kind = present::chart_kind::lines;
  offset.title = "Bandwidth vs start offset (useful bytes)";
  offset.keep = present::case_is("offset");
  offset.label = series_name;
  offset.x = present::int_axis_of("offset");
  offset.y = present::gbps();
  offset.x_label = "offset (elements)";
  offset.y_label = "GB/s";
  offset.copy_ceiling = true;
  offset.with_sample_spread();
  present::chart_spec stride = offset;
  stride.title = "Bandwidth vs stride (useful bytes)";
  stride.keep = present::case_is("stride");
  stride.x = present::int_axis_of("stride");
  stride.x_label = "stride (elements)";
  stride.x_scale = present::scale::log2;
  stride.y_scale = present::scale::log10;
  // The sector model, scaled to the measured unit-stride 4-byte read.
  stride.models.push_back(
      {[](const case_result& r) { return r.int_axis("elem_bytes") == 4 && r.string_axis("direction") == "read"; },
       [](const case_result&) { return std::string("sector model (4 B read)"); },
       [](const case_result& r) {
         return r.gbps / r.metric("relative_to_unit_stride") * r.metric("predicted_efficiency");
       }});
  s.chart(offset).chart(stride).finding(coalescing_findings);
  s.map_point("stride", std::vector<std::string>{"elem_bytes=4", "direction=read", "stride=1,2,4,8,16,32,64"})
      .map_reader(map_granularity);
  s.fact(advise::question::misaligned_store_cost, {"offset"},
         "stores one element off a 32-byte sector against aligned ones", misaligned_store_fact);
}

MEMSCOPE_REGISTER_SUITE(30, register_coalescing);

}  // namespace memscope::suites
