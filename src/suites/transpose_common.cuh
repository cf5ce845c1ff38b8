#pragma once
// What the `transpose` and `dsmem` suites share: the ROWSxCOLS axis and one timed, exactly
// checked transpose of random floats.

#include "harness/axis.hpp"
#include "harness/state.hpp"
#include "suites/exact_check.cuh"

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

/// Leading dimensions of a skewed matrix: pitched, plus 512 bytes, so that no row starts a
/// power-of-two distance from the next (a power-of-two row pitch lines up the rows of a tile
/// on few DRAM channels when the address hash does not mix the higher bits).
inline std::size_t skewed_ld(long long row_elems) { return pitched_ld(row_elems) + 512 / sizeof(float); }

/// The point's matrices: its shape and leading dimensions (packed, pitched or skewed where its
/// layout says so; suites without a layout axis are packed).
struct matrix_layout {
  matrix_shape shape;
  std::size_t ld_in = 0, ld_out = 0;
  std::size_t in_elems() const { return static_cast<std::size_t>(shape.rows) * ld_in; }
  std::size_t out_elems() const { return static_cast<std::size_t>(shape.cols) * ld_out; }
};
inline matrix_layout layout_of(const axis_point& p) {
  matrix_layout m;
  m.shape = parse_matrix_shape(p.get_string("shape"));
  const std::string layout = p.has("layout") ? p.get_string("layout") : "packed";
  const auto ld = [&](long long n) {
    return layout == "pitched" ? pitched_ld(n) : layout == "skewed" ? skewed_ld(n) : static_cast<std::size_t>(n);
  };
  m.ld_in = ld(m.shape.cols);
  m.ld_out = ld(m.shape.rows);
  return m;
}

/// Device memory a transpose of this point needs: input and output, padding included.
inline std::uint64_t transpose_footprint(const axis_point& p) {
  const matrix_layout m = layout_of(p);
  return static_cast<std::uint64_t>(m.in_elems() + m.out_elems()) * sizeof(float);
}

using transpose_fn = std::function<void(const float* in, std::size_t ld_in, float* out, std::size_t ld_out, int rows,
                                        int cols, cudaStream_t)>;

/// out[c][r] of a transpose of the hashed input (in[r][c] = hash(r * ld_in + c)); the padding
/// past `rows` in each output row keeps its poison.
struct transposed_input {
  std::uint64_t seed;
  std::size_t ld_in, ld_out, rows;
  float pad;
  MEMSCOPE_HD float operator()(std::size_t k) const {
    const std::size_t c = k / ld_out, r = k % ld_out;
    return r < rows ? hash_uniform(seed, r * ld_in + c) : pad;
  }
};

/// Transposes random floats of the point's shape (packed, or pitched where the point's layout
/// says so) into a poisoned output, checks out[c][r] == in[r][c] exactly and that the output's
/// padding is untouched, declares one read and one write per element (the padding is not
/// counted), times `run`.
inline void transpose_case_body(case_state& st, const transpose_fn& run) {
  const matrix_layout m = layout_of(st.point());
  const matrix_shape& sh = m.shape;
  const std::size_t ld_in = m.ld_in, ld_out = m.ld_out;
  const auto rows = static_cast<int>(sh.rows), cols = static_cast<int>(sh.cols);
  const std::size_t n = static_cast<std::size_t>(sh.rows) * static_cast<std::size_t>(sh.cols);
  const cudaStream_t s = st.stream();
  device_buffer<float> in(m.in_elems()), out(m.out_elems());
  // The input's padding holds the hash of its own index too: a kernel that read it into the
  // output would be caught by the exact check.
  fill_hash(in.data(), in.size(), st.seed(), fill_kind::uniform, s);
  constexpr int pad_byte = 0x7E;  // a finite float (8.4e37) no hash gives
  out.poison(s, pad_byte);
  run(in.data(), ld_in, out.data(), ld_out, rows, cols, s);
  float pad = 0;
  std::memset(&pad, pad_byte, sizeof(pad));
  const transposed_input want{st.seed(), ld_in, ld_out, static_cast<std::size_t>(rows), pad};
  st.check(check_exact(st, out.data(), out.size(), want, s));
  st.add_bytes_read(n * sizeof(float));
  st.add_bytes_written(n * sizeof(float));
  st.add_elements(n);
  st.exec([&](cudaStream_t q) { run(in.data(), ld_in, out.data(), ld_out, rows, cols, q); });
}

}  // namespace memscope::suites
