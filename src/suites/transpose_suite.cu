// Suite `transpose`: naive, shared-memory tiled, tiled with padding, tiled with XOR swizzle, on
// square and non-square float matrices (sizes not multiples of the tile too), checked exactly.
// Bytes: one read and one write per element, against the same-run copy ceiling.

#include "harness/registry.hpp"
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

}  // namespace

void register_transpose(registry& reg) {
  case_def c;
  c.suite = "transpose";
  c.name = "float";
  c.summary = "out[c][r] = in[r][c] for float matrices";
  c.axes.push_back(axis::strings("kernel", {std::begin(kernel_names), std::end(kernel_names)},
                                 "scattered writes; 32x32 shared tile; padded; XOR-swizzled; 64x64 padded/swizzled"));
  c.axes.push_back(axis::strings("shape", {"16384x16384", "8192x32768", "32768x8192", "12289x9973"},
                                 "ROWSxCOLS, any (e.g. --axis shape=1000x3)")
                       .with_quick({std::string("16384x16384"), std::string("12289x9973")})
                       .with_verify({std::string("1x1"), std::string("1x1000"), std::string("1000x1"),
                                     std::string("33x31"), std::string("257x1023"), std::string("2053x3001")})
                       .with_validator([](const std::string& s) { parse_matrix_shape(s); }));
  c.body = transpose_case;
  c.footprint = transpose_footprint;

  c.baselines.push_back({"kernel", std::string("naive"), "speedup_vs_naive", speedup});
  reg.add(std::move(c));
}

}  // namespace memscope::suites
