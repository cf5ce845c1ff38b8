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
#include <cstring>
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

/// Leading dimensions of a pitched matrix: rows padded to 512 bytes, as cudaMallocPitch pads
/// them on current GPUs, so every row starts aligned.
inline std::size_t pitched_ld(long long row_elems) {
  constexpr std::size_t align = 512 / sizeof(float);
  return (static_cast<std::size_t>(row_elems) + align - 1) / align * align;
}

/// Device memory a transpose of this shape needs: input and output (pitched where the point
/// says so).
inline std::uint64_t transpose_footprint(const axis_point& p) {
  const matrix_shape sh = parse_matrix_shape(p.get_string("shape"));
  const bool pitched = p.has("layout") && p.get_string("layout") == "pitched";
  const std::uint64_t in = static_cast<std::uint64_t>(sh.rows) * (pitched ? pitched_ld(sh.cols) : sh.cols);
  const std::uint64_t out = static_cast<std::uint64_t>(sh.cols) * (pitched ? pitched_ld(sh.rows) : sh.rows);
  return (in + out) * sizeof(float);
}

using transpose_fn = std::function<void(const float* in, std::size_t ld_in, float* out, std::size_t ld_out, int rows,
                                        int cols, cudaStream_t)>;

/// Transposes random floats of the point's shape (packed, or pitched where the point's layout
/// says so) into a poisoned output, checks out[c][r] == in[r][c] exactly and that the output's
/// padding is untouched, declares one read and one write per element (the padding is not
/// counted), times `run`.
inline void transpose_case_body(case_state& st, const transpose_fn& run) {
  const matrix_shape sh = parse_matrix_shape(st.get_string("shape"));
  const bool pitched = st.has_axis("layout") && st.get_string("layout") == "pitched";
  const auto rows = static_cast<int>(sh.rows), cols = static_cast<int>(sh.cols);
  const std::size_t n = static_cast<std::size_t>(sh.rows) * static_cast<std::size_t>(sh.cols);
  const std::size_t ld_in = pitched ? pitched_ld(sh.cols) : static_cast<std::size_t>(sh.cols);
  const std::size_t ld_out = pitched ? pitched_ld(sh.rows) : static_cast<std::size_t>(sh.rows);
  const cudaStream_t s = st.stream();
  device_buffer<float> in(static_cast<std::size_t>(sh.rows) * ld_in), out(static_cast<std::size_t>(sh.cols) * ld_out);
  // The input's padding holds the hash of its own index too: a kernel that read it into the
  // output would be caught by the exact check.
  fill_hash(in.data(), in.size(), st.seed(), fill_kind::uniform, s);
  constexpr int pad_byte = 0x7E;  // a finite float (8.4e37) no hash gives
  out.poison(s, pad_byte);
  run(in.data(), ld_in, out.data(), ld_out, rows, cols, s);
  MEMSCOPE_CUDA_CALL(cudaStreamSynchronize(s));
  const auto h = out.to_host();
  float pad = 0;
  std::memset(&pad, pad_byte, sizeof(pad));
  st.check(compare_exact(h.data(), h.size(), [&](std::size_t k) {
    const std::size_t c = k / ld_out, r = k % ld_out;
    return r < static_cast<std::size_t>(rows) ? hash_uniform(st.seed(), r * ld_in + c) : pad;
  }));
  st.add_bytes_read(n * sizeof(float));
  st.add_bytes_written(n * sizeof(float));
  st.add_elements(n);
  st.exec([&](cudaStream_t q) { run(in.data(), ld_in, out.data(), ld_out, rows, cols, q); });
}

}  // namespace memscope::suites
