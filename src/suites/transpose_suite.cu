// Suite `transpose`: naive, shared-memory tiled, tiled with padding, tiled with XOR swizzle,
// output rows written in whole sectors however they are aligned, 16-byte vectors through a
// swizzled tile, on square and non-square float matrices (sizes not
// multiples of the tile too), packed or pitched (rows padded to 512 bytes, as cudaMallocPitch
// pads), checked exactly. Bytes: one read and one write per element, against the same-run
// copy ceiling.

#include "harness/registry.hpp"
#include "harness/suite.hpp"
#include "advise/questions.hpp"
#include "harness/text_output.hpp"
#include "present/chart_spec.hpp"
#include "present/findings.hpp"

#include <fmt/format.h>
#include "harness/state.hpp"
#include "suites/transpose_common.cuh"

#include "memscope/bandwidth/stream_kernels.cuh"
#include "memscope/core/device_buffer.hpp"
#include "memscope/core/fill.cuh"
#include "memscope/core/random.hpp"
#include "memscope/core/verify.hpp"
#include "memscope/shared/transpose.cuh"

#include <algorithm>
#include <iterator>
#include <type_traits>
#include <cstdio>

namespace memscope::suites {
namespace {

namespace tp = memscope::transpose;
namespace bw = memscope::bandwidth;

// In tp::variant's order.
const char* const kernel_names[] = {"naive",    "tiled",      "padded",   "swizzled",
                                    "padded64", "swizzled64", "sector64", "vector64"};
static_assert(std::size(kernel_names) == static_cast<std::size_t>(tp::variant::vector64) + 1, "a name per variant");

std::vector<std::string> kernel_axis_values() {
  std::vector<std::string> v(std::begin(kernel_names), std::end(kernel_names));
  v.emplace_back("sm_copy");
  return v;
}

/// in[k] = hash(k): what a copy of the hashed input holds.
struct hashed_input {
  std::uint64_t seed;
  MEMSCOPE_HD float operator()(std::size_t k) const { return hash_uniform(seed, k); }
};

/// The same-run ceiling for an SM kernel: the input buffer (padding included) copied by the
/// bandwidth suite's fastest copy kernel, bytes counted as moved. That is its 4-byte form (one
/// block per 1024 floats), which matches cudaMemcpy at 1 GiB where the 16-byte form does not
/// (docs/tuning.md, "Stream kernels").
void sm_copy_case(case_state& st) {
  const matrix_layout m = layout_of(st.point());
  const std::size_t n = m.in_elems();
  const cudaStream_t s = st.stream();
  device_buffer<float> in(n), out(n);
  fill_hash(in.data(), n, st.seed(), fill_kind::uniform, s);
  out.poison(s, 0x7E);
  const auto run = [&](cudaStream_t q) {
    bw::stream_map(bw::copy_op{}, out.data(), in.data(), static_cast<const float*>(nullptr), n, q);
  };
  run(s);
  st.check(check_exact(st, out.data(), n, hashed_input{st.seed()}, s));
  st.add_bytes_read(n * sizeof(float));
  st.add_bytes_written(n * sizeof(float));
  st.add_elements(n);
  st.exec(run);
}

void transpose_case(case_state& st) {
  if (st.get_string("kernel") == "sm_copy") return sm_copy_case(st);
  const auto v = choice<tp::variant>(kernel_names, st.get_string("kernel"));
  transpose_case_body(st, [v](const float* in, std::size_t ld_in, float* out, std::size_t ld_out, int rows, int cols,
                              cudaStream_t s) { tp::transpose(v, in, ld_in, out, ld_out, rows, cols, s); });
}

/// The vector kernel's tile study: tile shape (input rows x columns), threads, block order and
/// cache hints, each a vector_policy (the library's vector64 is the first).
template <class P>
transpose_fn vector_with() {
  return [](const float* in, std::size_t ld_in, float* out, std::size_t ld_out, int rows, int cols, cudaStream_t s) {
    if (rows == 0 || cols == 0) return;
    tp::launch_vector<P>(in, out, rows, cols, tp::leading_dims{ld_in, ld_out}, s);
    MEMSCOPE_CHECK_LAUNCH("transpose_vector_kernel");
  };
}

/// Policy P with its loads' and stores' evict-first hints set to Streaming, all else P's: the
/// library's tile with hints stays that tile whatever the library's tile becomes.
template <class P, bool Streaming>
using hinted = tp::vector_policy<P::tile_rows, P::tile_cols, P::threads, P::band, Streaming, P::run_chunks * 16>;

struct tile_choice {
  const char* name;
  transpose_fn run;
};
/// The library's vector64: its tiles, in its block order (which follows the input pitch).
void library_vector64(const float* in, std::size_t ld_in, float* out, std::size_t ld_out, int rows, int cols,
                      cudaStream_t s) {
  tp::transpose(tp::variant::vector64, in, ld_in, out, ld_out, rows, cols, s);
}

// Each choice changes one thing from a neighbour: threads, output run, block order, hints, tile.
namespace order = tp::block_order;
static_assert(
    std::is_same_v<hinted<tp::default_vector_policy, tp::default_vector_policy::streaming>, tp::default_vector_policy>,
    "hinted<> rebuilds a policy from its members");
const tile_choice tile_choices[] = {
    {"vector64", library_vector64},
    {"vector64-streaming", vector_with<hinted<tp::default_vector_policy, true>>()},
    {"64x64/256-rows", vector_with<tp::vector_policy<64, 64, 256, order::rows>>()},
    {"64x64/256", vector_with<tp::vector_policy<64, 64, 256, order::columns>>()},
    {"64x64/512", vector_with<tp::vector_policy<64, 64, 512, order::columns>>()},
    {"64x64/512-run256", vector_with<tp::vector_policy<64, 64, 512, order::columns, true, 256>>()},
    {"64x64/512-rows-run256", vector_with<tp::vector_policy<64, 64, 512, order::rows, true, 256>>()},
    {"64x64/512-run256-cached", vector_with<tp::vector_policy<64, 64, 512, order::columns, false, 256>>()},
    {"64x64/256-band8", vector_with<tp::vector_policy<64, 64, 256, 8>>()},
    {"64x64/256-band32", vector_with<tp::vector_policy<64, 64, 256, 32>>()},
    {"64x64/256-diagonal", vector_with<tp::vector_policy<64, 64, 256, order::diagonal>>()},
    {"64x64/128", vector_with<tp::vector_policy<64, 64, 128, order::columns>>()},
    {"128x64/256", vector_with<tp::vector_policy<128, 64, 256, order::columns>>()},
    {"64x128/256", vector_with<tp::vector_policy<64, 128, 256, order::columns>>()},
    {"32x128/256", vector_with<tp::vector_policy<32, 128, 256, order::columns>>()},
};

std::vector<std::string> tile_choice_names() {
  std::vector<std::string> v;
  for (const auto& c : tile_choices) v.emplace_back(c.name);
  return v;
}

void vector_tiles_case(case_state& st) {
  const std::string& name = st.get_string("tiles");
  for (const auto& c : tile_choices)
    if (name == c.name) return transpose_case_body(st, c.run);
  throw usage_error("transpose/vector_tiles: no tile choice '" + name + "'");
}

/// The matrices' layouts (transpose_common.cuh's layout_of reads them), for both cases.
axis layout_axis() {
  return axis::strings("layout", {"packed", "pitched", "skewed"},
                       "packed rows (ld = the row length), rows padded to 512 bytes (cudaMallocPitch's pitch), or "
                       "padded 512 bytes more (no power-of-two row pitch)");
}

void transpose_findings(const present::suite_view& v, std::vector<std::string>& out) {
  // The sm_copy rows are the ceiling, not a transpose: compared with, never the best.
  const auto kernels = present::filter(v.rows(present::case_is("float")),
                                       [](const case_result& r) { return r.string_axis("kernel") != "sm_copy"; });
  for (const auto& shape : present::string_values(kernels, "shape")) {
    const auto of_shape = present::filter(kernels, present::axis_is("shape", shape));
    auto layouts = present::string_values(of_shape, "layout");
    if (layouts.empty()) layouts.emplace_back();  // documents from before the layout axis
    for (const auto& layout : layouts) {
      const auto* b = present::best_by(present::filter(of_shape, present::axis_is("layout", layout)),
                                       [](const case_result& r) { return r.fraction_of_copy; });
      if (b == nullptr) continue;
      const double sm = b->metric("vs_sm_copy"), naive = b->metric("speedup_vs_naive");
      out.push_back(fmt::format("{}{}{}: best {} at {:.3f}x the copy ceiling{}{}", shape, layout.empty() ? "" : " ",
                                layout, b->string_axis("kernel"), b->fraction_of_copy,
                                sm > 0 ? fmt::format(", {:.3f}x an SM copy of the same matrix", sm) : std::string(),
                                naive > 0 ? fmt::format(", {:.1f}x the naive kernel", naive) : std::string()));
    }
  }
  const auto tiles = v.rows(present::case_is("vector_tiles"));
  for (const auto& shape : present::string_values(tiles, "shape"))
    if (const auto* b = present::best_by(present::filter(tiles, present::axis_is("shape", shape)),
                                         [](const case_result& r) { return r.fraction_of_copy; }))
      out.push_back(fmt::format(
          "vector tile study, {} {}: best {} at {:.3f}x the copy ceiling, {:.3f}x the library's vector64", shape,
          b->string_axis("layout"), b->string_axis("tiles"), b->fraction_of_copy, b->metric("speedup_vs_vector64")));
}

}  // namespace

void register_transpose(registry& reg) {
  suite s{reg, "transpose", "matrix transposes through shared-memory tiles"};
  s.add("float", transpose_case)
      .summary("out[c][r] = in[r][c] for float matrices")
      .axis(axis::strings(
          "kernel", kernel_axis_values(),
          "scattered writes; 32x32 shared tile; padded; XOR-swizzled; 64x64 padded/swizzled; sector64: "
          "64x64 padded, blocks down tile columns, output rows written in whole 32-byte sectors (each "
          "row's window shifted onto its sector where rows are off that grid); vector64: 64x64 of 16-byte "
          "vectors, 512 threads, blocks down tile columns (rows not 16-byte aligned go to sector64); "
          "sm_copy: no transpose, the matrix copied by the fastest SM copy kernel (4-byte elements, one "
          "block per tile)"))
      .axis(axis::strings("shape", {"16384x16384", "8192x32768", "32768x8192", "12289x9973"},
                          "ROWSxCOLS, any (e.g. --axis shape=1000x3)")
                .with_quick({std::string("16384x16384"), std::string("12289x9973")})
                .with_verify({std::string("1x1"), std::string("1x1000"), std::string("1000x1"), std::string("33x31"),
                              std::string("257x1023"), std::string("2053x3001")})
                .with_validator([](const std::string& shape) { parse_matrix_shape(shape); }))
      .axis(layout_axis().with_quick({std::string("packed"), std::string("pitched")}))
      .footprint(transpose_footprint)
      .baseline("kernel", std::string("naive"), "speedup_vs_naive")
      .baseline("kernel", std::string("sm_copy"), "vs_sm_copy", throughput_ratio);

  s.add("vector_tiles", vector_tiles_case)
      .summary("the vector transpose's tile study: tile rows x columns / threads, block order, cache hints")
      .axis(axis::strings("tiles", tile_choice_names(),
                          "vector64: the library's (64x64/512-run256 down tile columns, taken from 64 KiB regions of "
                          "the width in turn where the input pitch is a multiple of 128 KiB, no cache hints); "
                          "vector64-streaming: the same "
                          "with evict-first loads and stores (the library's until 2026-12-06); else input rows x "
                          "columns per tile / threads per "
                          "block, blocks down tile columns unless -rows (along tile rows), -bandN (down bands of N "
                          "tile rows) or -diagonal; -run256: a warp writes 256 bytes of each of 2 output rows "
                          "(otherwise 128 of each of 4); -cached: no evict-first hints"))
      .axis(axis::strings("shape", {"16384x16384", "8192x32768", "32768x8192"}, "ROWSxCOLS, any")
                .with_verify(
                    {std::string("1x1"), std::string("33x31"), std::string("257x1023"), std::string("2053x3001")})
                .with_validator([](const std::string& shape) { parse_matrix_shape(shape); }))
      .axis(layout_axis().with_quick({std::string("packed")}))
      .footprint(transpose_footprint)
      .baseline("tiles", std::string("vector64"), "speedup_vs_vector64");

  auto kernels = present::gbps_bars("Transpose: kernels by shape", present::label_axes({"kernel", "shape", "layout"}),
                                    present::axis_is("kernel", "naive"), "the naive kernel");
  kernels.keep = present::case_is("float");
  auto tiles =
      present::gbps_bars("Transpose: the vector kernel's tiles", present::label_axes({"tiles", "shape", "layout"}),
                         present::axis_is("tiles", "vector64"), "the library's vector64");
  tiles.keep = present::case_is("vector_tiles");
  s.chart(kernels).chart(tiles).finding(transpose_findings);
}

MEMSCOPE_REGISTER_SUITE(50, register_transpose);

}  // namespace memscope::suites
