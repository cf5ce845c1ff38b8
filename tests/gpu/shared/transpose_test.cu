// Tests of include/memscope/shared/transpose on the GPU.

#include "gpu/gpu_test.hpp"

#include "memscope/core/device_buffer.hpp"
#include "memscope/core/fill.cuh"
#include "memscope/core/random.hpp"
#include "memscope/core/verify.hpp"
#include "memscope/shared/bank_conflicts.cuh"
#include "memscope/shared/reduce.cuh"
#include "memscope/shared/transpose.cuh"

#include <cstring>
#include <optional>
#include <random>
#include <vector>
#include <stdexcept>

using namespace memscope;

namespace {
using memscope::testing::fresh_seed;

/// The input element (row * ld_in + column) that element k of an output buffer whose matrix
/// starts at out_offset should hold, or none for the elements around and between its rows.
std::optional<std::size_t> source_of(std::size_t k, std::size_t out_offset, std::size_t ld_out, std::size_t ld_in,
                                     int rows, int cols) {
  if (k < out_offset || k >= out_offset + cols * ld_out) return std::nullopt;
  const std::size_t c = (k - out_offset) / ld_out, row = (k - out_offset) % ld_out;
  if (row >= static_cast<std::size_t>(rows)) return std::nullopt;
  return row * ld_in + c;
}

}  // namespace

constexpr transpose::variant k_variants[] = {transpose::variant::naive,    transpose::variant::tiled,
                                             transpose::variant::padded,   transpose::variant::swizzled,
                                             transpose::variant::padded64, transpose::variant::swizzled64,
                                             transpose::variant::sector64, transpose::variant::vector64};

/// One shape through every variant: leading dimensions of `ld_pad` extra elements (0: packed),
/// the input at `offset` and the output at `out_offset` elements past a 16-byte boundary
/// (vector64 then goes to sector64, which shifts output rows off the sector grid), everything
/// around the output's rows poisoned and checked untouched.
void check_shape(int rows, int cols, std::size_t ld_pad, std::size_t offset, std::size_t out_offset = 0) {
  const std::size_t ld_in = cols + ld_pad, ld_out = rows + ld_pad;
  const std::uint64_t seed = fresh_seed();
  device_buffer<float> in(offset + rows * ld_in), out(out_offset + cols * ld_out + 8);
  fill_hash(in.data(), in.size(), seed, fill_kind::uniform);
  constexpr int pad_byte = 0x7E;
  float pad = 0;
  std::memset(&pad, pad_byte, sizeof(pad));
  for (auto v : k_variants) {
    out.poison(nullptr, pad_byte);
    transpose::transpose(v, in.data() + offset, ld_in, out.data() + out_offset, ld_out, rows, cols, nullptr);
    MEMSCOPE_CUDA_CALL(cudaDeviceSynchronize());
    const auto h = out.to_host();
    const auto r = compare_exact(h.data(), h.size(), [&](std::size_t k) {
      const auto from = source_of(k, out_offset, ld_out, ld_in, rows, cols);
      return from ? hash_uniform(seed, offset + *from) : pad;
    });
    EXPECT_TRUE(r.passed) << rows << "x" << cols << " ld_pad " << ld_pad << " offset " << offset << " out_offset "
                          << out_offset << " variant " << static_cast<int>(v) << ": " << r.detail;
  }
}

/// sector64 and padded64 on elements of another size (sector64's shift is in elements of a
/// 32-byte sector: 4 doubles, 32 bytes), packed and with odd leading dimensions, bases off the
/// sector grid, the output's surroundings poisoned.
template <class T>
void check_other_element(int rows, int cols, std::size_t ld_pad, std::size_t out_offset) {
  const std::size_t ld_in = cols + ld_pad, ld_out = rows + ld_pad, out_n = out_offset + cols * ld_out + 40;
  const std::uint64_t seed = fresh_seed();
  std::vector<T> h_in(rows * ld_in);
  for (std::size_t i = 0; i < h_in.size(); ++i) h_in[i] = static_cast<T>(hash_u32(seed, i));
  device_buffer<T> in(h_in.size()), out(out_n);
  in.from_host(h_in);
  for (auto v : {transpose::variant::padded64, transpose::variant::sector64}) {
    out.poison(nullptr, 0x7E);
    transpose::transpose(v, in.data(), ld_in, out.data() + out_offset, ld_out, rows, cols, nullptr);
    MEMSCOPE_CUDA_CALL(cudaDeviceSynchronize());
    const auto h = out.to_host();
    T pad;
    std::memset(&pad, 0x7E, sizeof pad);
    std::size_t bad = 0, first = out_n;
    for (std::size_t k = 0; k < out_n; ++k) {
      const auto from = source_of(k, out_offset, ld_out, ld_in, rows, cols);
      const T want = from ? h_in[*from] : pad;
      if (std::memcmp(&h[k], &want, sizeof(T)) != 0 && bad++ == 0) first = k;
    }
    EXPECT_EQ(bad, 0u) << sizeof(T) << "-byte elements " << rows << "x" << cols << " ld_pad " << ld_pad
                       << " out_offset " << out_offset << " variant " << static_cast<int>(v) << ": first at " << first;
  }
}

TEST(TransposeGpu, EveryVariantOnAwkwardShapes) {
  MEMSCOPE_REQUIRE_GPU();
  const std::pair<int, int> shapes[] = {
      {1, 1},   {1, 77},     {77, 1},     {31, 33},    {32, 32},   {64, 64},
      {65, 63}, {1000, 999}, {4099, 257}, {256, 1028}, {65, 32768}};  // a 128 KiB input pitch: vector64 from two
                                                                      // regions
  for (const auto& [rows, cols] : shapes) check_shape(rows, cols, 0, 0);
}

// vector64 takes tile columns from 64 KiB regions of the width in turn where the input pitch is
// a multiple of 128 KiB; every tile must still be taken exactly once, whatever the number of
// tile columns (odd, fewer than the regions, not a multiple of them).
TEST(TransposeGpu, ColumnRegionsFollowTheInputPitch) {
  constexpr std::size_t kib = 1024;
  EXPECT_EQ(transpose::column_regions(128 * kib), 2);
  EXPECT_EQ(transpose::column_regions(256 * kib), 4);
  EXPECT_EQ(transpose::column_regions(512 * kib), 8);
  EXPECT_EQ(transpose::column_regions(384 * kib), 4);  // a power of two: 96 KiB apart
  EXPECT_EQ(transpose::column_regions(0), 1);
  EXPECT_EQ(transpose::column_regions(64 * kib), 1);
  EXPECT_EQ(transpose::column_regions(192 * kib), 1);
  EXPECT_EQ(transpose::column_regions(128 * kib + 512), 1);
  MEMSCOPE_REQUIRE_GPU();
  check_shape(70, 32700, 68, 0);  // 128 KiB pitch, 2 regions, 511 tile columns
  check_shape(5, 100, 32668, 0);  // 128 KiB pitch, 2 tile columns
  check_shape(3, 40, 32728, 0);   // 128 KiB pitch, 1 tile column, fewer than the regions
  check_shape(3, 65344, 192, 0);  // 256 KiB pitch, 4 regions, 1021 tile columns
  check_shape(2, 98000, 304, 0);  // 384 KiB pitch, 4 regions, 1532 tile columns
}

// Pitched rows (aligned or not) and a misaligned base: every variant correct, the padding never
// written.
TEST(TransposeGpu, PitchedRowsAndMisalignedBases) {
  MEMSCOPE_REQUIRE_GPU();
  for (std::size_t pad : {1, 3, 4, 60})
    for (const auto& [rows, cols] : {std::pair{33, 31}, std::pair{1000, 999}, std::pair{128, 256}})
      check_shape(rows, cols, pad, 0);
  check_shape(257, 1023, 0, 1);
  check_shape(256, 1024, 0, 2);
  // Output bases off the sector grid: every row off it by the same phase (an aligned leading
  // dimension), or by a phase of its own (an odd one); the tail tile row the shift adds.
  for (std::size_t out_offset : {1, 3, 4, 7})
    for (const auto& [rows, cols] : {std::pair{128, 256}, std::pair{1000, 999}, std::pair{57, 130}, std::pair{1, 9}})
      check_shape(rows, cols, 0, 0, out_offset);
  check_shape(127, 65, 1, 2, 5);
  check_shape(64 * 3 - 2, 70, 0, 0, 3);  // rows + phase past the last tile row: one more
}

TEST(TransposeGpu, SectorShiftOnOtherElementSizes) {
  MEMSCOPE_REQUIRE_GPU();
  for (std::size_t out_offset : {0, 1, 3})
    for (std::size_t ld_pad : {0, 1, 5}) {
      check_other_element<double>(131, 77, ld_pad, out_offset);
      check_other_element<std::uint8_t>(131, 77, ld_pad, out_offset);
      check_other_element<std::uint16_t>(64, 200, ld_pad, out_offset);
    }
}

TEST(TransposeGpu, BadShapesAreRefused) {
  MEMSCOPE_REQUIRE_GPU();
  device_buffer<float> a(16), b(16);
  EXPECT_THROW(transpose::transpose(transpose::variant::vector64, a.data(), 3, b.data(), 4, 4, 4, nullptr),
               std::invalid_argument);
  EXPECT_THROW(transpose::transpose(transpose::variant::naive, a.data(), b.data(), -1, 4, nullptr),
               std::invalid_argument);
  transpose::transpose(transpose::variant::vector64, a.data(), b.data(), 0, 4, nullptr);  // nothing to do
}
