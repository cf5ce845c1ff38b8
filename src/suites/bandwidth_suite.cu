// Suite `bandwidth`: STREAM-like ceilings. cudaMemcpy device-to-device, then copy, scale, add,
// triad, write-only and read-only kernels on float and on 16-byte float4 elements, over
// arrays well past the L2. Every launch's output is checked against a CPU reference first.

#include "harness/registry.hpp"
#include "harness/suite.hpp"
#include "advise/questions.hpp"
#include "harness/text_output.hpp"
#include "present/chart_spec.hpp"
#include "present/findings.hpp"

#include <fmt/format.h>

#include <optional>
#include "harness/state.hpp"

#include "memscope/bandwidth/stream_kernels.cuh"
#include "memscope/bandwidth/stream_reference.hpp"
#include "memscope/core/device_buffer.hpp"
#include "memscope/core/fill.cuh"
#include "memscope/core/random.hpp"
#include "memscope/core/verify.hpp"

namespace memscope::suites {
namespace {

namespace bw = memscope::bandwidth;
namespace ref = memscope::bandwidth::reference;

constexpr float scalar = 0.4f;

axis bytes_axis() {
  // Verify sizes: element counts 0, 1, 5, a prime, and one larger than any grid, for both types.
  return axis::pow2("bytes", {28, 30}, "bytes per array (rounded down to whole elements)")
      .with_quick({std::int64_t{1} << 28})
      .with_verify(
          {std::int64_t{0}, std::int64_t{4}, std::int64_t{20}, std::int64_t{16000052}, std::int64_t{67108916}});
}

axis type_axis() { return axis::strings("type", {"f32", "f32x4"}, "element: float (4 B) or float4 (16 B)"); }

/// Calls fn(T{}) with T = float or float4 as the point's `type` says.
template <class Fn>
void with_element_type(case_state& st, Fn&& fn) {
  if (st.get_string("type") == "f32") fn(float{});
  else fn(float4{});
}

/// The copy case's `kernel` axis: the layouts, hints and grids of stream_kernels.cuh side by side.
axis kernel_axis() {
  return axis::strings("kernel", {"oneshot", "oneshot_x8", "oneshot_streaming", "tiled_persistent", "grid_stride"},
                       "one block per tile (4 or 8 loads, evict-first hints) vs persistent grids");
}

/// The read case's `kernel` axis: the same reads in two orders.
axis read_kernel_axis() {
  return axis::strings("kernel", {"oneshot", "grid_stride"},
                       "one block per tile (the blocks in flight read one compact window) vs a persistent "
                       "grid-stride grid (the order of memscope's one-launch sums)");
}

/// Calls fn(variant) for the point's `kernel` (the default variant when it has none).
template <class Fn>
void with_kernel_variant(case_state& st, Fn&& fn) {
  using bw::stream_layout;
  using bw::stream_variant;
  const std::string name = st.point().has("kernel") ? st.get_string("kernel") : "oneshot";
  if (name == "oneshot") fn(bw::default_variant{});
  else if (name == "oneshot_x8") fn(stream_variant<stream_layout::tiled, 8, false, false>{});
  else if (name == "oneshot_streaming") fn(stream_variant<stream_layout::tiled, 4, true, false>{});
  else if (name == "tiled_persistent") fn(stream_variant<stream_layout::tiled, 4, false, true>{});
  else if (name == "grid_stride") fn(stream_variant<stream_layout::grid_stride, 4, false, true>{});
  else throw std::invalid_argument("unknown stream kernel variant '" + name + "'");
}

template <class T>
constexpr std::size_t lanes = sizeof(T) / sizeof(float);

float* as_floats(void* p) { return static_cast<float*>(p); }

/// Element-wise kernels: poison, launch once, check every lane, then time.
template <class Op, class Reference>
void map_case(case_state& st, Op op, Reference reference, double rel_tol, double abs_tol) {
  with_element_type(st, [&](auto element) {
    using T = decltype(element);
    const std::size_t n = static_cast<std::size_t>(st.get_int("bytes")) / sizeof(T);
    const cudaStream_t s = st.stream();
    const std::uint64_t seed_a = st.seed(), seed_b = st.seed() + 1;
    device_buffer<T> a(Op::reads >= 1 ? n : 0), b(Op::reads >= 2 ? n : 0), out(n);
    fill_hash(as_floats(a.data()), a.size() * lanes<T>, seed_a, fill_kind::uniform, s);
    fill_hash(as_floats(b.data()), b.size() * lanes<T>, seed_b, fill_kind::uniform, s);
    out.poison(s);
    with_kernel_variant(st, [&](auto variant) {
      using V = decltype(variant);
      bw::stream_map<V>(op, out.data(), a.data(), b.data(), n, s);
      MEMSCOPE_CUDA_CALL(cudaStreamSynchronize(s));
      const auto h = out.to_host();
      st.check(compare_near(
          reinterpret_cast<const float*>(h.data()), n * lanes<T>,
          [&](std::size_t i) { return reference(hash_uniform(seed_a, i), hash_uniform(seed_b, i)); }, rel_tol,
          abs_tol));
      st.add_bytes_read(static_cast<std::uint64_t>(Op::reads) * n * sizeof(T));
      st.add_bytes_written(n * sizeof(T));
      st.add_elements(n);
      st.exec([&](cudaStream_t st_) { bw::stream_map<V>(op, out.data(), a.data(), b.data(), n, st_); });
    });
  });
}

void read_case(case_state& st) {
  with_element_type(st, [&](auto element) {
    using T = decltype(element);
    const std::size_t n = static_cast<std::size_t>(st.get_int("bytes")) / sizeof(T);
    const cudaStream_t s = st.stream();
    // Small integers: every partial sum is exact in float, so the total must match exactly.
    device_buffer<T> a(n);
    fill_hash(as_floats(a.data()), n * lanes<T>, st.seed(), fill_kind::small_int, s);
    const auto order = st.get_string("kernel") == "oneshot" ? bw::read_order::tiles : bw::read_order::persistent;
    const auto read = [&, order](float* partials, cudaStream_t q) { bw::stream_sum(a.data(), n, partials, q, order); };
    device_buffer<float> partials(bw::stream_sum_partials<T>(n, order));
    partials.poison(s);
    read(partials.data(), s);
    MEMSCOPE_CUDA_CALL(cudaStreamSynchronize(s));
    double got = 0;
    for (float p : partials.to_host()) got += p;
    const double want = parallel_sum(n * lanes<T>, [&](std::size_t i) { return hash_small_int(st.seed(), i); });
    st.check(compare_scalar(got, want, 0.0, "sum"));
    st.add_bytes_read(n * sizeof(T));
    st.add_elements(n);
    st.exec([&](cudaStream_t st_) { read(partials.data(), st_); });
  });
}

void memcpy_case(case_state& st) {
  const std::size_t n = static_cast<std::size_t>(st.get_int("bytes")) / sizeof(float);
  const cudaStream_t s = st.stream();
  device_buffer<float> a(n), out(n);
  fill_hash(a.data(), n, st.seed(), fill_kind::uniform, s);
  out.poison(s);
  auto copy = [&](cudaStream_t st_) {
    if (n) MEMSCOPE_CUDA_CALL(cudaMemcpyAsync(out.data(), a.data(), n * sizeof(float), cudaMemcpyDeviceToDevice, st_));
  };
  copy(s);
  MEMSCOPE_CUDA_CALL(cudaStreamSynchronize(s));
  const auto h = out.to_host();
  st.check(compare_exact(h.data(), n, [&](std::size_t i) { return hash_uniform(st.seed(), i); }));
  st.add_bytes_read(n * sizeof(float));
  st.add_bytes_written(n * sizeof(float));
  st.add_elements(n);
  st.exec(copy);
}

std::function<std::uint64_t(const axis_point&)> arrays(int count) {
  return [count](const axis_point& p) { return static_cast<std::uint64_t>(count) * p.get_int("bytes"); };
}

void declare(suite& s, std::string name, std::string summary, bool typed, int arrays_used,
             std::function<void(case_state&)> body, std::optional<axis> kernels = std::nullopt) {
  auto c = s.add(std::move(name), std::move(body));
  c.summary(std::move(summary));
  if (kernels) c.axis(std::move(*kernels));
  if (typed) c.axis(type_axis());
  c.axis(bytes_axis()).footprint(arrays(arrays_used));
}

/// Best copy kernel against cudaMemcpy; read-only and write-only traffic against the ceiling.
void bandwidth_findings(const present::suite_view& v, std::vector<std::string>& out) {
  const auto size = present::largest(v.rows(), "bytes");
  auto at_size = [&](const std::string& name) { return v.rows(present::where(name, {{"bytes", size}})); };
  if (const auto* b = present::best_by(at_size("copy"), present::gbps()))
    out.push_back(
        fmt::format("best copy kernel at {} per array: {} ({}), {:.0f} GB/s = {:.3f}x the same-run "
                    "cudaMemcpy ceiling",
                    format_bytes(static_cast<double>(size)), b->name, b->variant, b->gbps, b->fraction_of_copy));
  for (const char* name : {"read", "write"})
    if (const auto* b = present::best_by(at_size(name), present::gbps()))
      out.push_back(fmt::format(
          "{}-only traffic: {:.0f} GB/s = {:.3f}x the copy ceiling ({:.0f}% of the theoretical {:.0f} GB/s)", name,
          b->gbps, b->fraction_of_copy, 100 * b->gbps / std::max(1.0, v.doc.device.theoretical_dram_gbps),
          v.doc.device.theoretical_dram_gbps));
}

/// The map's DRAM point: 16-byte reads streaming a buffer of 8x the L2 (256 MiB at least).
std::vector<std::string> map_read_axes(const device_info& d) {
  std::int64_t bytes = std::int64_t{1} << 28;
  while (bytes < 8 * static_cast<std::int64_t>(d.l2_bytes)) bytes *= 2;
  return {"kernel=oneshot", "type=f32x4", "bytes=" + std::to_string(bytes)};
}

void map_dram(const present::suite_view& v, present::hierarchy& h) {
  auto& dram = h.at(present::level_id::dram);
  const auto* r = present::best_by(v.rows(present::where("read")), present::gbps());
  if (!r) {
    if (auto why = present::unmeasured_reason(v, "read"); !why.empty())
      dram.missing.push_back("read bandwidth: " + why);
    return;
  }
  dram.bandwidth_gbps = present::gbps_from(*r);
  dram.bandwidth_what = "every SM streaming " + format_bytes(static_cast<double>(r->int_axis("bytes").value_or(0))) +
                        " with 16-byte loads";
  const double copy = copy_ceiling_of(v.doc, *r);
  if (copy > 0)
    dram.notes.push_back(
        fmt::format("{:.2f}x the same run's cudaMemcpy device-to-device copy ({:.0f} GB/s counting "
                    "both directions); {:.0f}% of the theoretical {:.0f} GB/s",
                    r->gbps / copy, copy, 100 * r->gbps / std::max(1.0, v.doc.device.theoretical_dram_gbps),
                    v.doc.device.theoretical_dram_gbps));
}
}  // namespace

void register_bandwidth(registry& reg) {
  suite s{reg, "bandwidth", "STREAM-like ceilings"};
  constexpr double exact = 0.0;
  constexpr double one_rounding = 1.2e-7;  // 2^-23: one float rounding, relative
  declare(s, "memcpy", "cudaMemcpyAsync device-to-device (the ceiling's own method)", false, 2, memcpy_case);
  declare(
      s, "copy", "b[i] = a[i]", true, 2,
      [=](case_state& st) {
        map_case(
            st, bw::copy_op{}, [](double a, double) { return ref::copy(a); }, exact, exact);
      },
      kernel_axis());
  declare(s, "scale", "b[i] = s * a[i]", true, 2, [=](case_state& st) {
    map_case(
        st, bw::scale_op{scalar}, [](double a, double) { return ref::scale(scalar, a); }, one_rounding, 0.0);
  });
  declare(s, "add", "c[i] = a[i] + b[i]", true, 3, [=](case_state& st) {
    map_case(
        st, bw::add_op{}, [](double a, double b) { return ref::add(a, b); }, one_rounding, 0.0);
  });
  // Triad may compile to one FMA or to a multiply and an add: allow an absolute rounding too.
  declare(s, "triad", "c[i] = a[i] + s * b[i]", true, 3, [=](case_state& st) {
    map_case(
        st, bw::triad_op{scalar}, [](double a, double b) { return ref::triad(a, scalar, b); }, one_rounding,
        2 * one_rounding);
  });
  declare(s, "write", "a[i] = v (write-only)", true, 1, [=](case_state& st) {
    const float v = hash_uniform(st.seed() ^ 0xABCDEFull, 0);
    map_case(
        st, bw::write_op{v}, [v](double, double) { return static_cast<double>(v); }, exact, exact);
  });
  declare(s, "read", "sum of a[i] (read-only)", true, 1, read_case, read_kernel_axis());

  auto c = present::gbps_bars(
      "STREAM-like kernels at {fixed} per array",
      [](const case_result& r) { return r.name + (r.variant.empty() ? "" : " " + r.variant); },
      present::case_is("memcpy"), "cudaMemcpy device-to-device");
  c.fixed_axis = "bytes";
  c.fixed_is_bytes = true;
  s.chart(c).finding(bandwidth_findings);
  s.map_point("read", map_read_axes).map_reader(map_dram);
  s.fact(advise::question::streaming_read, {"read"}, "coalesced 16-byte reads streaming from DRAM",
         [](const present::suite_view& v, std::optional<double>) -> std::optional<present::fact_value> {
           const auto rows = v.rows(present::where("read", {{"type", std::string("f32x4")}}));
           const auto* r = present::best_by(rows, [&](const case_result& x) {
             return x.int_axis("bytes") == present::largest(rows, "bytes") ? x.gbps : std::nan("");
           });
           if (!r) return std::nullopt;
           return present::fact_value{
               fmt::format("coalesced 16-byte reads stream at {:.0f} GB/s ({:.3f}x the copy ceiling)", r->gbps,
                           r->fraction_of_copy),
               r->gbps, "", ""};
         });
}

MEMSCOPE_REGISTER_SUITE(10, register_bandwidth);

}  // namespace memscope::suites
