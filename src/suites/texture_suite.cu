// Suite `texture`: texture objects checked and measured.
// `fetch`: every source (1D linear memory, 2D pitch-linear, 2D cudaArray) x filter x address
//   mode x read mode against the CPU reference (texture_reference.hpp); combinations the
//   hardware does not offer skip with the reason.
// `access`: texture vs global vs __ldg on sequential, strided and random gathers (throughput).
// `latency`: the same patterns as one warp of dependent loads (the seed's ns-per-access table).
// `box3x3`: a 2D-local filter, global/__ldg on row-major memory vs a cudaArray texture.

#include "harness/registry.hpp"
#include "harness/suite.hpp"
#include "advise/questions.hpp"
#include "harness/text_output.hpp"
#include "present/chart_spec.hpp"
#include "present/findings.hpp"

#include <fmt/format.h>
#include "harness/state.hpp"
#include "suites/transpose_common.cuh"

#include "memscope/core/device_buffer.hpp"
#include "memscope/core/fill.cuh"
#include "memscope/core/random.hpp"
#include "memscope/core/verify.hpp"
#include "memscope/texture/access_patterns.cuh"
#include "memscope/texture/texture_object.cuh"
#include "memscope/texture/texture_reference.hpp"

#include <cmath>
#include <memory>
#include <sstream>
#include <type_traits>
#include <vector>

namespace memscope::suites {
namespace {

namespace tx = memscope::texture;

const char* const source_names[] = {"global", "ldg", "texture"};
const char* const pattern_names[] = {"sequential", "strided", "random"};
const char* const address_names[] = {"wrap", "clamp", "mirror", "border"};

// ---- fetch ------------------------------------------------------------------------------

/// Sample coordinates in texel units over [-W, 2W) x [-H, 2H): all address modes see
/// out-of-range reads. Point samples keep 0.1 texel off every texel edge, so the hardware's
/// fixed-point coordinates cannot round across one.
std::vector<float2> texel_coords(long long w, long long h, std::size_t n, bool point, std::uint64_t seed) {
  std::vector<float2> c(n);
  for (std::size_t i = 0; i < n; ++i) {
    auto pick = [&](long long extent, std::uint64_t salt) {
      const double cell = static_cast<double>(hash_u32(seed ^ salt, i) % static_cast<std::uint32_t>(3 * extent)) -
                          static_cast<double>(extent);
      const double f = (hash_u32(seed ^ (salt + 7), i) >> 8) * (1.0 / 16777216.0);
      return cell + (point ? 0.1 + 0.8 * f : f);
    };
    c[i] = {static_cast<float>(pick(w, 0x51)), static_cast<float>(pick(h, 0xA3))};
  }
  return c;
}

/// Verifies one texture object over `coords` (normalised for 2D sources) against `img`.
void check_fetches(case_state& st, const tx::image& img, const tx::texture_object& t, const std::vector<float2>& uv,
                   const tx::sampler& smp) {
  const cudaStream_t s = st.stream();
  device_buffer<float2> d_uv(uv.size());
  d_uv.from_host(uv);
  device_buffer<float> out(uv.size());
  out.poison(s);
  tx::fetch2d(t.get(), d_uv.data(), out.data(), uv.size(), s);
  MEMSCOPE_CUDA_CALL(cudaStreamSynchronize(s));
  const auto got = out.to_host();
  // Over the host's cores: a filtered fetch is a few dozen operations to emulate.
  struct tally {
    std::size_t bad = 0, first = 0;
    double worst = 0;
  };
  std::vector<tally> parts(64);
  parallel_chunks(uv.size(), [&](std::size_t c, std::size_t begin, std::size_t end) {
    tally& t = parts[c];
    for (std::size_t i = begin; i < end; ++i) {
      const double u = static_cast<double>(uv[i].x) * static_cast<double>(img.width);
      const double v = static_cast<double>(uv[i].y) * static_cast<double>(img.height);
      const tx::fetch want = smp.linear_filter ? img.linear(u, v, smp.address) : img.point(u, v, smp.address);
      const double err = std::fabs(static_cast<double>(got[i]) - want.value);
      if (!(err <= want.tolerance + 1e-7)) {
        if (t.bad++ == 0) t.first = i;
        t.worst = std::fmax(t.worst, err);
      }
    }
  });
  std::size_t bad = 0, first = uv.size();
  double worst = 0;
  for (const auto& t : parts) {
    if (t.bad && t.first < first) first = t.first;
    bad += t.bad;
    worst = std::fmax(worst, t.worst);
  }
  if (bad == 0) {
    st.check(verify_result::pass());
    return;
  }
  std::ostringstream os;
  const double u = static_cast<double>(uv[first].x) * img.width, v = static_cast<double>(uv[first].y) * img.height;
  const tx::fetch want = smp.linear_filter ? img.linear(u, v, smp.address) : img.point(u, v, smp.address);
  os << bad << " of " << uv.size() << " fetches wrong; first at texel coordinates (" << u << ", " << v << "): got "
     << got[first] << ", want " << want.value << " +- " << want.tolerance << " (worst error " << worst << ")";
  st.check(verify_result::fail(os.str()));
}

/// A texture over linear memory, or the case skips with the device limit it exceeds.
template <class T>
tx::texture_object linear_texture_or_skip(case_state& st, const T* d_data, std::size_t count,
                                          const tx::sampler& smp = {}) {
  try {
    return tx::linear_texture(d_data, count, smp, tx::limits::query(st.device().ordinal));
  } catch (const tx::too_large& e) {
    st.skip(e.what());
  }
}

template <class T>
void fetch_2d(case_state& st, bool pitch, const tx::sampler& smp, long long w, long long h) {
  const auto lim = tx::limits::query(st.device().ordinal);
  const std::uint64_t seed = st.seed();
  std::vector<T> host(static_cast<std::size_t>(w * h));
  tx::image img;
  img.width = w;
  img.height = h;
  img.texels.resize(host.size());
  for (std::size_t i = 0; i < host.size(); ++i) {
    host[i] = tx::make_texel<T>(seed, i);
    img.texels[i] = tx::texel_value(host[i]);
  }
  std::unique_ptr<tx::cuda_array<T>> array;
  std::unique_ptr<tx::pitch2d_buffer<T>> pitched;
  tx::texture_object t;
  try {
    if (pitch) {
      tx::check_pitch2d_size(w, h, lim);  // before the allocation: an oversize request is a skip
      pitched = std::make_unique<tx::pitch2d_buffer<T>>(w, h);
      pitched->upload(host.data());
      t = tx::pitch2d_texture(pitched->data(), w, h, pitched->pitch_bytes(), smp, lim);
    } else {
      tx::check_array_size(w, h, lim);
      array = std::make_unique<tx::cuda_array<T>>(w, h);
      array->upload(host.data());
      t = tx::array_texture(*array, smp);
    }
  } catch (const tx::too_large& e) {
    st.skip(e.what());
  }
  const std::size_t n = st.verify_only() ? 4099 : (std::size_t{1} << 20);
  auto texel = texel_coords(w, h, n, !smp.linear_filter, seed ^ 0xC0FFEE);
  for (auto& c : texel) c = {c.x / static_cast<float>(w), c.y / static_cast<float>(h)};  // normalised coordinates
  check_fetches(st, img, t, texel, smp);
  device_buffer<float2> d_uv(texel.size());
  d_uv.from_host(texel);
  device_buffer<float> out(texel.size());
  st.add_bytes_written(out.bytes());
  st.add_elements(n);
  st.exec([&](cudaStream_t q) { tx::fetch2d(t.get(), d_uv.data(), out.data(), n, q); });
}

template <class T>
void fetch_linear(case_state& st, const tx::sampler& smp, long long count) {
  const cudaStream_t s = st.stream();
  const std::uint64_t seed = st.seed();
  std::vector<T> host(static_cast<std::size_t>(count));
  std::vector<float> value(host.size());
  for (std::size_t i = 0; i < host.size(); ++i) {
    host[i] = tx::make_texel<T>(seed, i);
    value[i] = tx::texel_value(host[i]);
  }
  device_buffer<T> data(host.size());
  data.from_host(host);
  const tx::texture_object t = linear_texture_or_skip(st, data.data(), data.size(), smp);
  // Indices from -8 to count + 8: outside the texture, tex1Dfetch reads 0.
  const std::size_t n = st.verify_only() ? 4099 : (std::size_t{1} << 20);
  std::vector<int> idx(n);
  for (std::size_t i = 0; i < n; ++i)
    idx[i] = static_cast<int>(hash_u32(seed ^ 0x1DE, i) % static_cast<std::uint32_t>(count + 16)) - 8;
  device_buffer<int> d_idx(n);
  d_idx.from_host(idx);
  device_buffer<float> out(n);
  out.poison(s);
  tx::fetch1d(t.get(), d_idx.data(), out.data(), n, s);
  MEMSCOPE_CUDA_CALL(cudaStreamSynchronize(s));
  const auto got = out.to_host();
  st.check(compare_exact(got.data(), n, [&](std::size_t i) {
    return idx[i] < 0 || idx[i] >= count ? 0.0f : value[static_cast<std::size_t>(idx[i])];
  }));
  st.add_bytes_written(out.bytes());
  st.add_elements(n);
  st.exec([&](cudaStream_t q) { tx::fetch1d(t.get(), d_idx.data(), out.data(), n, q); });
}

void fetch_case(case_state& st) {
  const std::string& src = st.get_string("source");
  tx::sampler smp;
  smp.address = choice<tx::address_mode>(address_names, st.get_string("address"));
  smp.linear_filter = st.get_string("filter") == "linear";
  smp.normalized_float = st.get_string("read") == "normalized";
  const auto [rows, cols] = parse_matrix_shape(st.get_string("shape"));
  if (rows == 0 || cols == 0) st.skip("a texture needs at least one texel in each dimension");
  if (src == "linear1d") {
    if (smp.linear_filter)
      st.skip("textures over 1D linear memory (tex1Dfetch) take integer indices: point sampling only");
    if (smp.address != tx::address_mode::border)
      st.skip("tex1Dfetch has no address modes: out-of-range indices read 0, which the border row checks");
    const long long count = static_cast<long long>(rows) * cols;
    if (smp.normalized_float) fetch_linear<unsigned char>(st, smp, count);
    else fetch_linear<float>(st, smp, count);
    return;
  }
  smp.normalized_coords = true;  // wrap and mirror exist only for normalised coordinates
  const bool pitch = src == "pitch2d";
  if (smp.normalized_float) fetch_2d<unsigned char>(st, pitch, smp, cols, rows);
  else fetch_2d<float>(st, pitch, smp, cols, rows);
}

// ---- access patterns --------------------------------------------------------------------

template <tx::source S, tx::pattern P>
void gather_case(case_state& st) {
  const std::uint64_t n = static_cast<std::uint64_t>(st.get_int("table_bytes")) / 4;
  const std::uint64_t count = st.verify_only() ? 1000003 : (std::uint64_t{1} << 26);
  const cudaStream_t s = st.stream();
  const std::uint64_t seed = st.seed();
  device_buffer<float> table(n), out(count);
  fill_hash(table.data(), n, seed, fill_kind::uniform, s);
  tx::texture_object t;
  if (S == tx::source::texture) t = linear_texture_or_skip(st, table.data(), n);
  out.poison(s);
  tx::gather<S, P>(table.data(), t.get(), n, count, seed, out.data(), s);
  MEMSCOPE_CUDA_CALL(cudaStreamSynchronize(s));
  const auto h = out.to_host();
  st.check(compare_exact(h.data(), h.size(),
                         [&](std::size_t i) { return hash_uniform(seed, tx::index_of<P>(i, n, seed)); }));
  st.add_bytes_read(count * 4);
  st.add_bytes_written(count * 4);
  st.add_elements(count);
  st.exec([&](cudaStream_t q) { tx::gather<S, P>(table.data(), t.get(), n, count, seed, out.data(), q); });
}

template <tx::source S, tx::pattern P>
void latency_case(case_state& st) {
  const std::uint64_t n = static_cast<std::uint64_t>(st.get_int("table_bytes")) / 4;
  const unsigned iters = st.verify_only() ? 256 : 4096;
  const cudaStream_t s = st.stream();
  device_buffer<float> zeros(n);
  MEMSCOPE_CUDA_CALL(cudaMemsetAsync(zeros.data(), 0, zeros.bytes(), s));
  tx::texture_object t;
  if (S == tx::source::texture) t = linear_texture_or_skip(st, zeros.data(), n);
  device_buffer<unsigned long long> out(33);
  out.poison(s);
  tx::pattern_latency<S, P>(zeros.data(), t.get(), n, iters, st.seed(), out.data(), s);
  MEMSCOPE_CUDA_CALL(cudaStreamSynchronize(s));
  const auto h = out.to_host();
  st.check(compare_exact(h.data() + 1, 32, [&](std::size_t lane) {
    return static_cast<unsigned long long>(tx::index_of<P>(std::uint64_t{iters - 1} * 32 + lane, n, st.seed()));
  }));
  const double cycles = static_cast<double>(h[0]) / iters;
  st.add_metric("cycles_per_load", cycles);
  st.add_metric("ns_per_load", cycles / (st.device().sm_clock_khz * 1e-6));
  st.add_elements(std::uint64_t{iters} * 32);
  st.exec(
      [&](cudaStream_t q) { tx::pattern_latency<S, P>(zeros.data(), t.get(), n, iters, st.seed(), out.data(), q); });
}

/// Calls Body<S, P> for the point's source and pattern.
template <template <tx::source, tx::pattern> class Body>
void by_source_pattern(case_state& st) {
  const auto src = choice<tx::source>(source_names, st.get_string("source"));
  const auto pat = choice<tx::pattern>(pattern_names, st.get_string("pattern"));
  auto with_pattern = [&](auto s_tag) {
    constexpr tx::source S = decltype(s_tag)::value;
    switch (pat) {
      case tx::pattern::sequential:
        Body<S, tx::pattern::sequential>::run(st);
        break;
      case tx::pattern::strided:
        Body<S, tx::pattern::strided>::run(st);
        break;
      case tx::pattern::random:
        Body<S, tx::pattern::random>::run(st);
        break;
    }
  };
  switch (src) {
    case tx::source::global:
      with_pattern(std::integral_constant<tx::source, tx::source::global>{});
      break;
    case tx::source::ldg:
      with_pattern(std::integral_constant<tx::source, tx::source::ldg>{});
      break;
    case tx::source::texture:
      with_pattern(std::integral_constant<tx::source, tx::source::texture>{});
      break;
  }
}

template <tx::source S, tx::pattern P>
struct gather_body {
  static void run(case_state& st) { gather_case<S, P>(st); }
};
template <tx::source S, tx::pattern P>
struct latency_body {
  static void run(case_state& st) { latency_case<S, P>(st); }
};

// ---- 2D-local ---------------------------------------------------------------------------

template <tx::source S>
void box_case(case_state& st, int rows, int cols) {
  const cudaStream_t s = st.stream();
  const std::uint64_t seed = st.seed();
  const std::size_t n = static_cast<std::size_t>(rows) * cols;
  device_buffer<float> img(n), out(n);
  fill_hash(img.data(), n, seed, fill_kind::uniform, s);
  std::unique_ptr<tx::cuda_array<float>> array;
  tx::texture_object t;
  std::vector<float> host(n);
  for (std::size_t i = 0; i < n; ++i) host[i] = hash_uniform(seed, i);
  if (S == tx::source::texture) {
    try {
      tx::check_array_size(cols, rows, tx::limits::query(st.device().ordinal));
    } catch (const tx::too_large& e) {
      st.skip(e.what());
    }
    array = std::make_unique<tx::cuda_array<float>>(cols, rows);
    array->upload(host.data());
    t = tx::array_texture(*array, tx::sampler{});  // clamp, point, element, texel coordinates
  }
  out.poison(s);
  tx::box3x3<S>(img.data(), t.get(), cols, rows, out.data(), s);
  MEMSCOPE_CUDA_CALL(cudaStreamSynchronize(s));
  const auto h = out.to_host();
  st.check(compare_exact(h.data(), n, [&](std::size_t i) {
    return tx::box_reference(host.data(), cols, rows, static_cast<int>(i % cols), static_cast<int>(i / cols));
  }));
  st.add_bytes_read(n * 4);
  st.add_bytes_written(n * 4);
  st.add_elements(n);
  st.exec([&](cudaStream_t q) { tx::box3x3<S>(img.data(), t.get(), cols, rows, out.data(), q); });
}

void box_case_dispatch(case_state& st) {
  const auto [rows, cols] = parse_matrix_shape(st.get_string("shape"));
  switch (choice<tx::source>(source_names, st.get_string("source"))) {
    case tx::source::global:
      box_case<tx::source::global>(st, static_cast<int>(rows), static_cast<int>(cols));
      break;
    case tx::source::ldg:
      box_case<tx::source::ldg>(st, static_cast<int>(rows), static_cast<int>(cols));
      break;
    case tx::source::texture:
      box_case<tx::source::texture>(st, static_cast<int>(rows), static_cast<int>(cols));
      break;
  }
}

axis source_axis() {
  return axis::strings("source", {std::begin(source_names), std::end(source_names)},
                       "plain global loads, __ldg, or a texture object (tex1Dfetch / tex2D)");
}

void texture_findings(const present::suite_view& v, std::vector<std::string>& out) {
  std::size_t fetch_ok = 0;
  for (const auto& r : v.doc.results)  // untimed: the fetch case only verifies
    if (r.suite == v.suite && r.name == "fetch" && r.status == case_status::ok) ++fetch_ok;
  if (fetch_ok)
    out.push_back(fmt::format(
        "{} texture-fetch configurations (source x filter x address mode x read mode) match the CPU reference, "
        "bilinear within the 9-bit weight bound",
        fetch_ok));
  for (const std::string name : {"access", "latency"}) {
    const auto rows =
        v.rows([&](const case_result& r) { return r.name == name && r.string_axis("source") != "global"; });
    const auto size = present::largest(rows, "table_bytes");
    std::string text;
    for (const auto* r : rows)
      if (r->int_axis("table_bytes") == size) {
        text += fmt::format("{}{} {} {:.2f}x", text.empty() ? "" : ", ", r->string_axis("pattern"),
                            r->string_axis("source"), r->metric("speedup_vs_global"));
        if (name == "latency") text += fmt::format(" ({:.0f} ns)", r->metric("ns_per_load"));
      }
    if (!text.empty())
      out.push_back(fmt::format("{} relative to plain global loads, {} table: {}",
                                name == "access" ? "gather throughput" : "dependent-load latency",
                                format_bytes(static_cast<double>(size)), text));
  }
  std::string text;
  for (const auto* r :
       v.rows([](const case_result& r) { return r.name == "box3x3" && r.string_axis("source") != "global"; }))
    text +=
        fmt::format("{}{} {:.2f}x", text.empty() ? "" : ", ", r->string_axis("source"), r->metric("speedup_vs_global"));
  if (!text.empty()) out.push_back("3x3 box filter relative to row-major global loads: " + text);
}

std::optional<present::fact_value> texture_gather_fact(const present::suite_view& v, std::optional<double>) {
  const auto rows =
      v.rows(present::where("access", {{"pattern", std::string("random")}, {"source", std::string("texture")}}));
  const auto* r = present::best_by(rows, present::int_axis_of("table_bytes"));
  if (!r) return std::nullopt;
  return present::fact_value{
      fmt::format("random gather through a texture object ({} table): {:.2f}x plain loads: textures buy "
                  "filtering and address modes, not speed",
                  format_bytes(static_cast<double>(r->int_axis("table_bytes").value_or(0))),
                  r->metric("speedup_vs_global")),
      r->metric("speedup_vs_global"), "", ""};
}

}  // namespace

void register_texture(registry& reg) {
  suite s{reg, "texture", "texture objects: correctness and what they cost against global loads"};
  const auto shape_check = [](const std::string& shape) { parse_matrix_shape(shape); };
  s.add("fetch", fetch_case)
      .summary("texture objects vs the CPU reference: 3 sources x point/linear x 4 address modes x 2 read modes")
      .axis(axis::strings("source", {"linear1d", "pitch2d", "array2d"},
                          "linear memory (tex1Dfetch), pitch-linear 2D memory, a 2D cudaArray"))
      .axis(axis::strings("filter", {"point", "linear"}, "nearest texel, or bilinear (9-bit weights)"))
      .axis(axis::strings("address", {std::begin(address_names), std::end(address_names)},
                          "out-of-range coordinates: repeat, clamp to edge, mirror, border colour 0"))
      .axis(axis::strings("read", {"element", "normalized"}, "float texels as they are; bytes read as [0, 1] floats"))
      .axis(axis::strings("shape", {"1024x1024"}, "HEIGHTxWIDTH in texels (1D sources: their product)")
                .with_verify({std::string("1x1"), std::string("5x7"), std::string("17x33"), std::string("129x257")})
                .with_validator(shape_check));
  s.add("access", by_source_pattern<gather_body>)
      .summary("out[i] = table[f(i)] for sequential, strided (132 B) and random f: global vs __ldg vs texture")
      .axis(axis::strings("pattern", {std::begin(pattern_names), std::end(pattern_names)},
                          "which element access i reads"))
      .axis(source_axis())
      .axis(axis::pow2("table_bytes", {24, 30}, "table size: L2-resident or DRAM")
                .with_range(4, std::int64_t{1} << 34)
                .with_verify({std::int64_t{4}, std::int64_t{4 * 1021}, std::int64_t{1} << 24}))
      .footprint([](const axis_point& p) {
        return static_cast<std::uint64_t>(p.get_int("table_bytes")) + (std::uint64_t{1} << 28);
      })
      .baseline("source", std::string("global"), "speedup_vs_global");
  s.add("latency", by_source_pattern<latency_body>)
      .summary(
          "one warp of dependent loads in each pattern (the seed's ns-per-access table): global vs __ldg vs texture")
      .axis(axis::strings("pattern", {std::begin(pattern_names), std::end(pattern_names)},
                          "which element load k of a lane reads"))
      .axis(source_axis())
      .axis(axis::pow2("table_bytes", {28}, "table size (zeros)")
                .with_range(4, std::int64_t{1} << 34)
                .with_verify({std::int64_t{4}, std::int64_t{4 * 1021}, std::int64_t{1} << 24}))
      .footprint([](const axis_point& p) { return static_cast<std::uint64_t>(p.get_int("table_bytes")); })
      .baseline("source", std::string("global"), "speedup_vs_global");
  s.add("box3x3", box_case_dispatch)
      .summary("3x3 box filter with clamped edges: row-major global / __ldg vs a cudaArray texture")
      .axis(source_axis())
      .axis(axis::strings("shape", {"8192x8192"}, "ROWSxCOLS")
                .with_verify({std::string("1x1"), std::string("5x7"), std::string("257x129"), std::string("1000x1001")})
                .with_validator(shape_check))
      .footprint([](const axis_point& p) {
        const auto [r, cc] = parse_matrix_shape(p.get_string("shape"));
        return static_cast<std::uint64_t>(r) * cc * 12;
      })
      .baseline("source", std::string("global"), "speedup_vs_global");

  present::chart_spec acc;
  acc.title = "Gather by pattern: global vs __ldg vs texture ({fixed} table)";
  acc.keep = present::case_is("access");
  acc.fixed_axis = "table_bytes";
  acc.fixed_is_bytes = true;
  acc.label = present::label_axes({"pattern", "source"});
  acc.y = present::gbps();
  acc.y_label = "GB/s (bytes read + written / median time)";
  acc.peer = present::axis_is("source", "global");
  acc.peer_key = "plain global loads";
  acc.copy_ceiling = true;
  acc.with_sample_spread();
  present::chart_spec lat;
  lat.title = "One warp of dependent loads by pattern (the seed's ns-per-access table)";
  lat.keep = present::case_is("latency");
  lat.label = acc.label;
  lat.y = present::metric_of("ns_per_load");
  lat.y_label = "ns per load (lower is better)";
  lat.peer = acc.peer;
  lat.peer_key = acc.peer_key;
  present::chart_spec box = acc;
  box.title = "3x3 box filter: row-major global / __ldg vs a cudaArray texture";
  box.keep = present::case_is("box3x3");
  box.fixed_axis.clear();
  box.label = present::label_axes({"source", "shape"});
  s.chart(acc).chart(lat).chart(box).finding(texture_findings);
  s.fact(advise::question::texture_gather, {"access"}, "a random gather through a texture object against plain loads",
         texture_gather_fact);
}

MEMSCOPE_REGISTER_SUITE(150, register_texture);

}  // namespace memscope::suites
