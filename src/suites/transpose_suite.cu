// Suite `transpose`: naive, shared-memory tiled, tiled with padding, tiled with XOR swizzle, on
// square and non-square float matrices (sizes not multiples of the tile too), checked exactly.
// Bytes: one read and one write per element, against the same-run copy ceiling.

#include "harness/suite.hpp"
#include "advise/questions.hpp"
#include "harness/text_output.hpp"
#include "present/chart_spec.hpp"
#include "present/findings.hpp"

#include <fmt/format.h>
#include "harness/state.hpp"
#include "suites/suites.hpp"
#include "suites/transpose_common.cuh"

#include "memscope/core/device_buffer.hpp"
#include "memscope/core/fill.cuh"
#include "memscope/core/random.hpp"
#include "memscope/core/verify.hpp"
#include "memscope/shared/transpose.cuh"

#include <algorithm>
#include <cstdio>

namespace memscope::suites {
namespace {

namespace tp = memscope::transpose;

const char* const kernel_names[] = {"naive", "tiled", "padded", "swizzled", "padded64", "swizzled64"};

void transpose_case(case_state& st) {
  const auto v = choice<tp::variant>(kernel_names, st.get_string("kernel"));
  transpose_case_body(st, [v](const float* in, float* out, int rows, int cols, cudaStream_t s) {
    tp::transpose(v, in, out, rows, cols, s);
  });
}


void transpose_findings(const present::suite_view& v, std::vector<std::string>& out) {
  for (const auto& shape : present::string_values(v.rows(), "shape"))
    if (const auto* b = present::best_by(v.rows(present::axis_is("shape", shape)), [](const case_result& r) { return r.fraction_of_copy; }))
      out.push_back(fmt::format("{}: best {} at {:.3f}x the copy ceiling, {:.1f}x the naive kernel", shape,
                                b->string_axis("kernel"), b->fraction_of_copy, b->metric("speedup_vs_naive")));
}

}  // namespace

void register_transpose(registry& reg) {
  suite s{reg, "transpose", "matrix transposes through shared-memory tiles"};
  s.add("float", transpose_case)
      .summary("out[c][r] = in[r][c] for float matrices")
      .axis(axis::strings("kernel", {std::begin(kernel_names), std::end(kernel_names)},
                          "scattered writes; 32x32 shared tile; padded; XOR-swizzled; 64x64 padded/swizzled"))
      .axis(axis::strings("shape", {"16384x16384", "8192x32768", "32768x8192", "12289x9973"}, "ROWSxCOLS, any (e.g. --axis shape=1000x3)")
                .with_quick({std::string("16384x16384"), std::string("12289x9973")})
                .with_verify({std::string("1x1"), std::string("1x1000"), std::string("1000x1"), std::string("33x31"),
                              std::string("257x1023"), std::string("2053x3001")})
                .with_validator([](const std::string& shape) { parse_matrix_shape(shape); }))
      .footprint(transpose_footprint)
      .baseline("kernel", std::string("naive"), "speedup_vs_naive");

  s.chart(present::gbps_bars("Transpose: kernels by shape", present::label_axes({"kernel", "shape"}), present::axis_is("kernel", "naive"),
                             "the naive kernel")).finding(transpose_findings);
}

}  // namespace memscope::suites
