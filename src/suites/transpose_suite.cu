// Suite `transpose`: naive, shared-memory tiled, tiled with padding, tiled with XOR swizzle, on
// square and non-square float matrices (sizes not multiples of the tile too), checked exactly.
// Bytes: one read and one write per element, against the same-run copy ceiling.

#include "harness/registry.hpp"
#include "harness/state.hpp"
#include "suites/suites.hpp"

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

struct shape {
  long long rows = 0, cols = 0;
};

shape parse_shape(const std::string& s) {
  shape sh;
  char extra = 0;
  if (std::sscanf(s.c_str(), "%lldx%lld%c", &sh.rows, &sh.cols, &extra) != 2 || sh.rows < 1 || sh.cols < 1 ||
      sh.rows > (1ll << 21) || sh.cols > (1ll << 30) || sh.rows * sh.cols > (1ll << 34))
    throw usage_error("transpose shape '" + s + "' is not ROWSxCOLS (e.g. 16384x16384; rows <= 2^21)");
  return sh;
}

void transpose_case(case_state& st) {
  const shape sh = parse_shape(st.get_string("shape"));
  const std::string& k = st.get_string("kernel");
  const auto v = choice<tp::variant>(kernel_names, k);
  const auto rows = static_cast<int>(sh.rows), cols = static_cast<int>(sh.cols);
  const std::size_t n = static_cast<std::size_t>(sh.rows) * static_cast<std::size_t>(sh.cols);
  const cudaStream_t s = st.stream();
  device_buffer<float> in(n), out(n);
  fill_hash(in.data(), n, st.seed(), fill_kind::uniform, s);
  out.poison(s);
  tp::transpose(v, in.data(), out.data(), rows, cols, s);
  MEMSCOPE_CUDA_CALL(cudaStreamSynchronize(s));
  const auto h = out.to_host();
  // out[c][r] (cols x rows) = in[r][c]
  st.check(compare_exact(h.data(), n, [&](std::size_t k_) {
    const std::size_t c = k_ / static_cast<std::size_t>(rows), r = k_ % static_cast<std::size_t>(rows);
    return hash_uniform(st.seed(), r * static_cast<std::size_t>(cols) + c);
  }));
  st.add_bytes_read(n * sizeof(float));
  st.add_bytes_written(n * sizeof(float));
  st.add_elements(n);
  st.exec([&](cudaStream_t st_) { tp::transpose(v, in.data(), out.data(), rows, cols, st_); });
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
                       .with_validator([](const std::string& s) { parse_shape(s); }));
  c.body = transpose_case;
  c.footprint = [](const axis_point& p) {
    const shape sh = parse_shape(p.get_string("shape"));
    return static_cast<std::uint64_t>(sh.rows * sh.cols) * 2 * sizeof(float);
  };
  c.baselines.push_back({"kernel", std::string("naive"), "speedup_vs_naive", speedup});
  reg.add(std::move(c));
}

}  // namespace memscope::suites
