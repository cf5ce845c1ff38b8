// Suite `stencil`: the seed's 1D central-difference stencil (radius 1, 4, 8) with a shared-memory
// tile and halos, the coefficients read from global memory, __constant__, a const __restrict__
// pointer, __ldg, or kernel parameters; and a variant without shared memory that leans on L1.
// Checked against a double CPU reference at every point, edges included.

#include "harness/registry.hpp"
#include "harness/suite.hpp"
#include "advise/questions.hpp"
#include "harness/text_output.hpp"
#include "present/chart_spec.hpp"
#include "present/findings.hpp"

#include <fmt/format.h>
#include "harness/state.hpp"

#include "memscope/constant/stencil.cuh"
#include "memscope/constant/stencil_reference.hpp"
#include "memscope/core/device_buffer.hpp"
#include "memscope/core/fill.cuh"
#include "memscope/core/random.hpp"
#include "memscope/core/verify.hpp"

#include <algorithm>

namespace memscope::suites {
namespace {

namespace sc = memscope::stencil;

const char* const source_names[] = {"global", "constant", "restrict", "ldg", "param", "l1"};

/// The seed's coefficients for R = 4; fresh random ones for other radii.
std::vector<float> stencil_coefficients(int radius, std::uint64_t seed) {
  if (radius == 4) return {-1.0f, -2.0f, 2.0f, 1.0f};
  std::vector<float> c(static_cast<std::size_t>(radius));
  for (int i = 0; i < radius; ++i) c[i] = hash_uniform(seed ^ 0x5EEDull, static_cast<std::uint64_t>(i));
  return c;
}

void stencil_case(case_state& st) {
  const std::size_t n = static_cast<std::size_t>(st.get_int("elements"));
  const int radius = static_cast<int>(st.get_int("radius"));
  const auto src = choice<sc::coef_source>(source_names, st.get_string("source"));
  const int tile = static_cast<int>(st.get_int("tile"));
  if (src == sc::coef_source::l1 && tile != sc::policy::default_tile)
    st.skip("l1 has no shared-memory tile (its points are the default tile's)");
  const cudaStream_t s = st.stream();
  sc::coefficients coef(stencil_coefficients(radius, st.seed()));
  device_buffer<float> in(n), out(n);
  fill_hash(in.data(), n, st.seed(), fill_kind::uniform, s);
  out.poison(s);
  sc::apply(src, in.data(), out.data(), n, coef, s, tile);
  MEMSCOPE_CUDA_CALL(cudaStreamSynchronize(s));
  const auto h = out.to_host();
  const auto h_in = in.to_host();  // reading it back beats re-hashing 2R neighbours per point
  const auto input = [&](long long j) { return h_in[static_cast<std::size_t>(j)]; };
  st.check(compare_within(h.data(), n, [&](std::size_t x) {
    double v = 0, mag = 0;
    stencil::reference::point(input, n, coef.host(), x, v, mag);
    return std::pair<double, double>{v, 4e-7 * mag * radius + 1e-30};  // a few float roundings of each term
  }));
  st.add_bytes_read(n * sizeof(float));
  st.add_bytes_written(n * sizeof(float));
  st.add_elements(n);
  st.exec([&](cudaStream_t st_) { sc::apply(src, in.data(), out.data(), n, coef, st_, tile); });
}

void stencil_findings(const present::suite_view& v, std::vector<std::string>& out) {
  const auto n = present::largest(v.rows(), "elements");
  for (const auto radius : present::int_values(v.rows(), "radius")) {
    const auto at = v.rows(present::where("", {{"elements", n}, {"radius", radius}}));
    const auto frac = [](const case_result& r) { return r.fraction_of_copy; };
    const auto *b = present::best_by(at, frac), *w = present::worst_by(at, frac);
    // Rows from before the tile axis have none: their tile is the default.
    const auto tile_of = [](const case_result& r) {
      const auto t = r.int_axis("tile");
      return t ? fmt::format(" (tile {})", *t) : std::string();
    };
    if (b && w)
      out.push_back(fmt::format("radius {} at {} points: best {}{} {:.3f}x the copy ceiling, worst {}{} {:.3f}x",
                                radius, n, b->string_axis("source"), tile_of(*b), b->fraction_of_copy,
                                w->string_axis("source"), tile_of(*w), w->fraction_of_copy));
  }
}

/// The rows of the seed's 9-point stencil (radius 4, or the nearest radius measured) at the
/// largest size, in the tile the library chooses for that radius (rows from before the tile
/// axis have the default tile).
present::row_list nine_point(const present::suite_view& v) {
  const auto n = present::largest(v.rows(), "elements");
  const auto sized = present::filter(v.rows(present::where("", {{"elements", n}})), [](const case_result& r) {
    const auto radius = static_cast<int>(r.int_axis("radius").value_or(0));
    const auto tile = r.int_axis("tile");
    return !tile || *tile == sc::policy::tile_for(radius) || r.string_axis("source") == "l1";
  });
  const auto* near = present::nearest(sized, "radius", 4);
  if (!near) return {};
  return present::filter(sized, [&](const case_result& r) { return r.int_axis("radius") == near->int_axis("radius"); });
}

std::optional<present::fact_value> coefficient_spread_fact(const present::suite_view& v, std::optional<double>) {
  const auto rows = nine_point(v);
  const auto c = present::filter(rows, present::axis_is("source", "constant"));
  const auto others = present::filter(rows, [](const case_result& r) {
    const auto s = r.string_axis("source");
    return s != "constant" && s != "l1";  // l1 drops the shared tile: not a coefficient source
  });
  if (c.empty() || others.empty()) return std::nullopt;
  const auto ratio = present::metric_of("speedup_vs_constant");
  const auto *lo = present::worst_by(others, ratio), *hi = present::best_by(others, ratio);
  return present::fact_value{fmt::format("{}-point stencil with __constant__ coefficients: {:.3f}x the copy ceiling; "
                                         "the other coefficient sources run "
                                         "at {:.3f}x ({}) to {:.3f}x ({}) of it",
                                         2 * c[0]->int_axis("radius").value_or(0) + 1, c[0]->fraction_of_copy,
                                         ratio(*lo), lo->string_axis("source"), ratio(*hi), hi->string_axis("source")),
                             c[0]->fraction_of_copy, "", ""};
}

std::optional<present::fact_value> tile_vs_l1_fact(const present::suite_view& v, std::optional<double>) {
  const auto rows = nine_point(v);
  const auto tile = present::filter(rows, present::axis_is("source", "constant"));
  const auto l1 = present::filter(rows, present::axis_is("source", "l1"));
  if (tile.empty() || l1.empty()) return std::nullopt;
  return present::fact_value{
      fmt::format("{}-point stencil: shared tile {:.3f}x the copy ceiling, L1 alone {:.3f}x",
                  2 * tile[0]->int_axis("radius").value_or(0) + 1, tile[0]->fraction_of_copy, l1[0]->fraction_of_copy),
      tile[0]->fraction_of_copy, "", ""};
}

}  // namespace

void register_stencil(registry& reg) {
  suite s{reg, "stencil", "the seed's 1D stencil with coefficients from every read-only source"};
  s.add("central_difference", stencil_case)
      .summary("out[x] = sum c[i-1] (in[x+i] - in[x-i]); coefficients from 5 sources, shared tile or L1")
      .axis(axis::strings("source", {std::begin(source_names), std::end(source_names)},
                          "coefficients: global pointer, __constant__, const __restrict__, __ldg, kernel "
                          "parameter; l1 = no shared tile (constant coefficients)"))
      .axis(axis::integers("radius", {1, 4, 8}, "stencil radius R (2R+1 points)").with_range(1, 8))
      .axis(axis::integers("tile", {1024, 2048},
                           "points per block (one or two float4 groups a thread; the library takes 1024 up to R = 2, "
                           "2048 from R = 3)")
                .with_only_listed()
                .with_quick({std::int64_t{1024}}))
      .axis(axis::pow2("elements", {20, 24, 28}, "points")
                .with_quick({std::int64_t{1} << 24})
                .with_verify({std::int64_t{17}, std::int64_t{31}, std::int64_t{257}, std::int64_t{1000003},
                              std::int64_t{(1 << 22) + 5}})
                .with_range(17, std::int64_t{1} << 33))
      .footprint([](const axis_point& p) { return static_cast<std::uint64_t>(p.get_int("elements")) * 8; })
      .baseline("source", std::string("constant"), "speedup_vs_constant");

  auto c = present::gbps_bars("Stencil by coefficient source and radius ({fixed} points)",
                              present::label_axes({"source", "radius"}), present::axis_is("source", "constant"),
                              "__constant__ coefficients");
  c.fixed_axis = "elements";
  s.chart(c).finding(stencil_findings);
  s.fact(advise::question::coefficient_source_spread, {"central_difference"},
         "the stencil's speed by coefficient source", coefficient_spread_fact);
  s.fact(advise::question::shared_tile_vs_l1, {"central_difference"}, "a shared tile with halos against L1 alone",
         tile_vs_l1_fact);
}

MEMSCOPE_REGISTER_SUITE(60, register_stencil);

}  // namespace memscope::suites
