#pragma once
// What the `transpose` and `dsmem` suites share: the ROWSxCOLS axis and one timed, exactly
// checked transpose of random floats.

#include "harness/axis.hpp"
#include "harness/state.hpp"

#include "memscope/core/device_buffer.hpp"
#include "memscope/core/fill.cuh"
#include "memscope/core/random.hpp"
#include "memscope/core/verify.hpp"

#include <cstdio>
#include <functional>
#include <string>

namespace memscope::suites {

struct matrix_shape {
  long long rows = 0, cols = 0;
};

/// "16384x16384" -> {16384, 16384}; usage_error for anything else or sizes past 2^34 elements.
inline matrix_shape parse_matrix_shape(const std::string& s) {
  matrix_shape sh;
  char extra = 0;
  if (std::sscanf(s.c_str(), "%lldx%lld%c", &sh.rows, &sh.cols, &extra) != 2 || sh.rows < 1 || sh.cols < 1 ||
      sh.rows > (1ll << 21) || sh.cols > (1ll << 30) || sh.rows * sh.cols > (1ll << 34))
    throw usage_error("shape '" + s + "' is not ROWSxCOLS (e.g. 16384x16384; rows <= 2^21)");
  return sh;
}

/// Device memory a transpose of this shape needs: input and output.
inline std::uint64_t transpose_footprint(const axis_point& p) {
  const matrix_shape sh = parse_matrix_shape(p.get_string("shape"));
  return static_cast<std::uint64_t>(sh.rows * sh.cols) * 2 * sizeof(float);
}

using transpose_fn = std::function<void(const float* in, float* out, int rows, int cols, cudaStream_t)>;

/// Transposes random floats of the point's shape into a poisoned output, checks
/// out[c][r] == in[r][c] exactly, declares one read and one write per element, times `run`.
inline void transpose_case_body(case_state& st, const transpose_fn& run) {
  const matrix_shape sh = parse_matrix_shape(st.get_string("shape"));
  const auto rows = static_cast<int>(sh.rows), cols = static_cast<int>(sh.cols);
  const std::size_t n = static_cast<std::size_t>(sh.rows) * static_cast<std::size_t>(sh.cols);
  const cudaStream_t s = st.stream();
  device_buffer<float> in(n), out(n);
  fill_hash(in.data(), n, st.seed(), fill_kind::uniform, s);
  out.poison(s);
  run(in.data(), out.data(), rows, cols, s);
  MEMSCOPE_CUDA_CALL(cudaStreamSynchronize(s));
  const auto h = out.to_host();
  st.check(compare_exact(h.data(), n, [&](std::size_t k) {
    const std::size_t c = k / static_cast<std::size_t>(rows), r = k % static_cast<std::size_t>(rows);
    return hash_uniform(st.seed(), r * static_cast<std::size_t>(cols) + c);
  }));
  st.add_bytes_read(n * sizeof(float));
  st.add_bytes_written(n * sizeof(float));
  st.add_elements(n);
  st.exec([&](cudaStream_t q) { run(in.data(), out.data(), rows, cols, q); });
}

}  // namespace memscope::suites
