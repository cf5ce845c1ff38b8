// multi.cuh and the pitched-row forms of histogram.cuh: CUB's MultiHistogramEven /
// MultiHistogramRange (interleaved channels, some inactive) and the 2D forms (num_row_samples,
// num_rows, row_stride_bytes). Counts must equal CUB's and the CPU reference's exactly, on
// awkward sizes, misaligned rows and every strategy; the padding between rows is poisoned with
// in-range samples, so a kernel that read it would count them.

#include "gpu/histogram/checks.hpp"
#include "gpu/gpu_test.hpp"

#include "memscope/core/device_buffer.hpp"
#include "memscope/histogram/histogram.cuh"
#include "memscope/histogram/reference.hpp"

#include <cub/device/device_histogram.cuh>

#include <algorithm>
#include <array>
#include <cstdint>
#include <random>
#include <string>
#include <tuple>
#include <vector>

namespace hg = memscope::histogram;
using memscope::device_buffer;

namespace {

std::vector<hg::options> strategies() { return memscope::testing::histogram_strategies(); }

template <class CounterT>
void expect_same(const std::vector<CounterT>& got, const std::vector<CounterT>& want, const std::string& what) {
  memscope::testing::expect_same_counts(got, want, what);
}

/// rows x row_elems samples at row_stride elements (>= row_elems), starting `offset` elements
/// into the buffer; the padding holds `pad` (a sample that would be counted).
template <class T, class Pick>
std::vector<T> make_rows(std::size_t rows, std::size_t row_elems, std::size_t stride, std::size_t offset, T pad,
                         Pick pick) {
  std::vector<T> h(offset + rows * stride + 1, pad);
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < row_elems; ++c) h[offset + r * stride + c] = pick();
  return h;
}

struct shape {
  std::size_t rows, row_pixels, pad_pixels, offset;
};
std::int64_t rows_of(const shape& s) { return static_cast<std::int64_t>(s.rows); }
std::int64_t row_pixels_of(const shape& s) { return static_cast<std::int64_t>(s.row_pixels); }

// Contiguous pixels are one row; the rest are pitched: one row, a prime width, rows whose
// starts are not 16-byte aligned, more rows than a grid's groups, one long row. Rows split
// alike where the stride is whole 16-byte vectors (32 pixels of 1, 3 or 4 channels; 3072, as
// cudaMallocPitch pads the suite's 3001-pixel rows), else in 2 to 16 classes of rows (45 and 38
// pixels); rows shorter than a vector; a misaligned first row. Rows with no padding (1031 and 17
// rows of 45) are one contiguous run to the library (pitched_samples::gapless).
const shape k_shapes[] = {{1, 0, 0, 0},     {1, 1, 0, 1},      {1, 100003, 0, 0}, {1, 100003, 0, 3}, {7, 1, 3, 0},
                          {513, 257, 5, 1}, {3, 250007, 1, 2}, {4099, 31, 7, 0},  {4099, 29, 3, 1},  {700, 3001, 71, 0},
                          {1031, 45, 0, 0}, {1000, 3, 1, 2},   {17, 45, 0, 3}};

/// RGBA 8-bit pixels, three channels counted, int levels (0..256 and narrower): CUB's image case.
template <int Channels, int Active, class CounterT>
void check_even_u8(const int (&num_levels)[Active], const int (&lower)[Active], const int (&upper)[Active]) {
  using T = std::uint8_t;
  hg::even_rule<T, int> rules[Active];
  for (int a = 0; a < Active; ++a) rules[a] = hg::make_even_rule<T>(num_levels[a], lower[a], upper[a]);
  std::mt19937_64 rng(memscope::testing::fresh_seed());
  for (const auto& s : k_shapes) {
    const std::size_t stride = (s.row_pixels + s.pad_pixels) * Channels;
    const bool contiguous = s.pad_pixels == 0 && s.rows == 1;
    const auto h =
        make_rows<T>(s.rows, s.row_pixels * Channels, stride, s.offset, T{100}, [&] { return static_cast<T>(rng()); });
    device_buffer<T> d(h.size());
    MEMSCOPE_CUDA_CALL(cudaMemcpy(d.data(), h.data(), h.size(), cudaMemcpyHostToDevice));
    const T* samples = d.data() + s.offset;
    const auto want =
        hg::multi_histogram_reference<CounterT, Channels>(h.data() + s.offset, s.rows, s.row_pixels, stride, rules);
    const std::string at = "u8 x" + std::to_string(Channels) + "/" + std::to_string(Active) +
                           " rows=" + std::to_string(s.rows) + " pixels=" + std::to_string(s.row_pixels) +
                           " pad=" + std::to_string(s.pad_pixels) + " offset=" + std::to_string(s.offset);
    std::array<device_buffer<CounterT>, Active> outs;
    CounterT* ptrs[Active];
    const auto fresh = [&] {
      for (int a = 0; a < Active; ++a) {
        outs[a] = device_buffer<CounterT>(static_cast<std::size_t>(num_levels[a] - 1));
        outs[a].poison();
        ptrs[a] = outs[a].data();
      }
    };
    const auto expect_all = [&](const std::string& who) {
      MEMSCOPE_CUDA_CALL(cudaDeviceSynchronize());
      for (int a = 0; a < Active; ++a)
        expect_same(outs[a].to_host(), want[a], at + " " + who + " channel " + std::to_string(a));
    };
    // CUB, two-phase.
    fresh();
    std::size_t bytes = 0;
    const auto stride_bytes = stride * sizeof(T);
    const auto rows = static_cast<int>(s.rows), pixels = static_cast<int>(s.row_pixels);
    const auto arrays = [&] {
      cuda::std::array<CounterT*, Active> h;
      cuda::std::array<int, Active> l;
      cuda::std::array<int, Active> lo, hi;
      for (int a = 0; a < Active; ++a) h[a] = ptrs[a], l[a] = num_levels[a], lo[a] = lower[a], hi[a] = upper[a];
      return std::tuple{h, l, lo, hi};
    };
    {
      const auto [h, l, lo, hi] = arrays();
      MEMSCOPE_CUDA_CALL((cub::DeviceHistogram::MultiHistogramEven<Channels, Active>(nullptr, bytes, samples, h, l, lo,
                                                                                     hi, pixels, rows, stride_bytes)));
      device_buffer<unsigned char> temp(bytes);
      MEMSCOPE_CUDA_CALL((cub::DeviceHistogram::MultiHistogramEven<Channels, Active>(
          temp.data(), bytes, samples, h, l, lo, hi, pixels, rows, stride_bytes)));
    }
    expect_all("CUB");
    for (const auto& o : strategies()) {
      fresh();
      try {
        if (contiguous) {
          hg::multi_histogram_even<Channels, Active>(samples, ptrs, num_levels, lower, upper,
                                                     static_cast<std::int64_t>(s.row_pixels), nullptr, o);
        } else {
          std::size_t ours = 0;
          hg::multi_histogram_even<Channels, Active>(nullptr, ours, samples, ptrs, num_levels, lower, upper, pixels,
                                                     rows, stride_bytes, nullptr, o);
          device_buffer<unsigned char> scratch(ours);
          hg::multi_histogram_even<Channels, Active>(scratch.data(), ours, samples, ptrs, num_levels, lower, upper,
                                                     pixels, rows, stride_bytes, nullptr, o);
          MEMSCOPE_CUDA_CALL(cudaDeviceSynchronize());
        }
      } catch (const hg::unsupported&) {
        EXPECT_NE(o.kind, hg::strategy::automatic) << at;
        continue;
      }
      expect_all(hg::to_string(o.kind));
    }
    // CUB 3's array form of memscope's call.
    fresh();
    {
      const auto [h, l, lo, hi] = arrays();
      std::size_t ours = 0;
      hg::multi_histogram_even<Channels, Active>(nullptr, ours, samples, h, l, lo, hi, row_pixels_of(s), rows_of(s),
                                                 stride_bytes);
      device_buffer<unsigned char> scratch(ours);
      hg::multi_histogram_even<Channels, Active>(scratch.data(), ours, samples, h, l, lo, hi, row_pixels_of(s),
                                                 rows_of(s), stride_bytes);
      expect_all("array form");
    }
  }
}

/// Float pixels, level ranges per channel, and the same through the pitched one-channel form.
template <int Channels, int Active>
void check_range_f32(int bins) {
  using T = float;
  std::mt19937_64 rng(memscope::testing::fresh_seed());
  std::uniform_real_distribution<double> pick(-0.2, 1.2);
  std::vector<std::vector<T>> levels(Active);
  std::vector<device_buffer<T>> d_levels;
  const T* level_ptrs[Active];
  int num_levels[Active];
  hg::range_rule<T, T> rules[Active];
  for (int a = 0; a < Active; ++a) {
    levels[a] = {0.0f, 1.0f};
    while (static_cast<int>(levels[a].size()) < bins + 1 + a)
      levels[a].push_back(static_cast<T>(pick(rng) * 0.8 + 0.1));
    std::sort(levels[a].begin(), levels[a].end());
    d_levels.emplace_back(levels[a].size());
    MEMSCOPE_CUDA_CALL(
        cudaMemcpy(d_levels[a].data(), levels[a].data(), levels[a].size() * sizeof(T), cudaMemcpyHostToDevice));
    level_ptrs[a] = d_levels[a].data();
    num_levels[a] = static_cast<int>(levels[a].size());
    rules[a] = hg::make_range_rule<T>(num_levels[a], levels[a].data());
  }
  for (const auto& s : k_shapes) {
    const std::size_t stride = (s.row_pixels + s.pad_pixels) * Channels;
    const auto h = make_rows<T>(s.rows, s.row_pixels * Channels, stride, s.offset, 0.5f,
                                [&] { return static_cast<T>(pick(rng)); });
    device_buffer<T> d(h.size());
    MEMSCOPE_CUDA_CALL(cudaMemcpy(d.data(), h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
    const T* samples = d.data() + s.offset;
    const auto want =
        hg::multi_histogram_reference<unsigned, Channels>(h.data() + s.offset, s.rows, s.row_pixels, stride, rules);
    const std::string at = "f32 range x" + std::to_string(Channels) + "/" + std::to_string(Active) +
                           " rows=" + std::to_string(s.rows) + " pixels=" + std::to_string(s.row_pixels) +
                           " offset=" + std::to_string(s.offset);
    const auto rows = static_cast<int>(s.rows), pixels = static_cast<int>(s.row_pixels);
    const std::size_t stride_bytes = stride * sizeof(T);
    std::vector<device_buffer<unsigned>> outs;
    unsigned* ptrs[Active];
    for (int a = 0; a < Active; ++a) {
      outs.emplace_back(static_cast<std::size_t>(num_levels[a] - 1));
      ptrs[a] = outs[a].data();
    }
    for (const auto& o : strategies()) {
      for (auto& b : outs) b.poison();
      std::size_t bytes = 0;
      try {
        hg::multi_histogram_range<Channels, Active>(nullptr, bytes, samples, ptrs, num_levels, level_ptrs, pixels, rows,
                                                    stride_bytes, nullptr, o);
        device_buffer<unsigned char> scratch(bytes);
        hg::multi_histogram_range<Channels, Active>(scratch.data(), bytes, samples, ptrs, num_levels, level_ptrs,
                                                    pixels, rows, stride_bytes, nullptr, o);
        MEMSCOPE_CUDA_CALL(cudaDeviceSynchronize());
      } catch (const hg::unsupported&) {
        EXPECT_NE(o.kind, hg::strategy::automatic) << at;
        continue;
      }
      for (int a = 0; a < Active; ++a)
        expect_same(outs[a].to_host(), want[a], at + " " + hg::to_string(o.kind) + " channel " + std::to_string(a));
    }
    // CUB on the same rows (it takes up to 4 channels).
    if constexpr (Channels <= 4) {
      for (auto& b : outs) b.poison();
      std::size_t bytes = 0;
      cuda::std::array<unsigned*, Active> outs_a;
      cuda::std::array<int, Active> levels_a;
      cuda::std::array<const T*, Active> d_levels_a;
      for (int a = 0; a < Active; ++a) outs_a[a] = ptrs[a], levels_a[a] = num_levels[a], d_levels_a[a] = level_ptrs[a];
      MEMSCOPE_CUDA_CALL((cub::DeviceHistogram::MultiHistogramRange<Channels, Active>(
          nullptr, bytes, samples, outs_a, levels_a, d_levels_a, pixels, rows, stride_bytes)));
      device_buffer<unsigned char> temp(bytes);
      MEMSCOPE_CUDA_CALL((cub::DeviceHistogram::MultiHistogramRange<Channels, Active>(
          temp.data(), bytes, samples, outs_a, levels_a, d_levels_a, pixels, rows, stride_bytes)));
      MEMSCOPE_CUDA_CALL(cudaDeviceSynchronize());
      for (int a = 0; a < Active; ++a)
        expect_same(outs[a].to_host(), want[a], at + " CUB channel " + std::to_string(a));
    }
  }
}

}  // namespace

TEST(HistogramMulti, RgbaPixelsThreeChannelsCountedAsCubCounts) {
  MEMSCOPE_REQUIRE_GPU();
  check_even_u8<4, 3, unsigned>({257, 257, 257}, {0, 0, 0}, {256, 256, 256});
  check_even_u8<4, 3, unsigned>({257, 65, 9}, {0, 10, 100}, {256, 200, 108});
}

TEST(HistogramMulti, OddChannelCountsAndOneActiveChannel) {
  MEMSCOPE_REQUIRE_GPU();
  check_even_u8<3, 3, unsigned long long>({257, 33, 101}, {0, 0, 50}, {256, 256, 151});
  check_even_u8<4, 1, int>({129}, {0}, {256});
  check_even_u8<1, 1, unsigned>({257}, {0}, {256});  // gray bytes: odd row strides, 16 classes of rows
}

TEST(HistogramMulti, RangeLevelsPerChannel) {
  MEMSCOPE_REQUIRE_GPU();
  check_range_f32<4, 3>(1000);
  check_range_f32<2, 2>(70001);  // past one block's shared memory: the cluster and global strategies
}

// Channels that do not divide a 16-byte vector: RGB floats bin in groups of 3 vectors (the
// misaligned rows start their groups up to 2 vectors in); 6 float channels share a factor with
// the vector, so rows that start mid-pixel take the per-sample channel path (against the
// reference alone: CUB takes up to 4 channels).
TEST(HistogramMulti, ChannelsThatDoNotDivideAVector) {
  MEMSCOPE_REQUIRE_GPU();
  check_range_f32<3, 3>(300);
  check_range_f32<6, 5>(100);
}

// One channel in pitched rows: histogram_even/histogram_range's 2D forms against CUB's.
TEST(HistogramPitched, OneChannelRowsSkipTheirPadding) {
  MEMSCOPE_REQUIRE_GPU();
  std::mt19937_64 rng(memscope::testing::fresh_seed());
  std::uniform_real_distribution<float> pick(-0.1f, 1.1f);
  for (int bins : {256, 70001, 1 << 20})
    for (const auto& s : k_shapes) {
      const std::size_t stride = s.row_pixels + s.pad_pixels;
      const auto h = make_rows<float>(s.rows, s.row_pixels, stride, s.offset, 0.5f, [&] { return pick(rng); });
      device_buffer<float> d(h.size());
      MEMSCOPE_CUDA_CALL(cudaMemcpy(d.data(), h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice));
      const float* samples = d.data() + s.offset;
      const auto rule = hg::make_even_rule<float>(bins + 1, 0.0f, 1.0f);
      const hg::even_rule<float, float> rules[1] = {rule};
      const auto want =
          hg::multi_histogram_reference<unsigned, 1>(h.data() + s.offset, s.rows, s.row_pixels, stride, rules)[0];
      const std::string at = "bins=" + std::to_string(bins) + " rows=" + std::to_string(s.rows) +
                             " row=" + std::to_string(s.row_pixels) + " offset=" + std::to_string(s.offset);
      device_buffer<unsigned> out(static_cast<std::size_t>(bins));
      const auto rows = static_cast<std::int64_t>(s.rows), row = static_cast<std::int64_t>(s.row_pixels);
      for (const auto& o : strategies()) {
        out.poison();
        try {
          hg::histogram_even(samples, out.data(), bins + 1, 0.0f, 1.0f, row, rows, stride * sizeof(float), nullptr, o);
        } catch (const hg::unsupported&) {
          EXPECT_NE(o.kind, hg::strategy::automatic) << at;
          continue;
        }
        MEMSCOPE_CUDA_CALL(cudaDeviceSynchronize());
        expect_same(out.to_host(), want, at + " " + hg::to_string(o.kind));
      }
      out.poison();
      std::size_t bytes = 0;
      MEMSCOPE_CUDA_CALL(cub::DeviceHistogram::HistogramEven(nullptr, bytes, samples, out.data(), bins + 1, 0.0f, 1.0f,
                                                             static_cast<int>(row), static_cast<int>(rows),
                                                             stride * sizeof(float)));
      device_buffer<unsigned char> temp(bytes);
      MEMSCOPE_CUDA_CALL(cub::DeviceHistogram::HistogramEven(temp.data(), bytes, samples, out.data(), bins + 1, 0.0f,
                                                             1.0f, static_cast<int>(row), static_cast<int>(rows),
                                                             stride * sizeof(float)));
      MEMSCOPE_CUDA_CALL(cudaDeviceSynchronize());
      expect_same(out.to_host(), want, at + " CUB");
    }
}

TEST(HistogramPitched, BadShapesAreRefusedWithAReason) {
  MEMSCOPE_REQUIRE_GPU();
  device_buffer<float> samples(64);
  device_buffer<unsigned> out(4);
  hg::outcome why;
  std::size_t bytes = 0;
  EXPECT_EQ(
      hg::try_histogram_even(nullptr, bytes, samples.data(), out.data(), 5, 0.0f, 1.0f, 8, 4, 33, nullptr, {}, &why),
      cudaErrorInvalidValue);
  EXPECT_NE(why.message.find("not a multiple"), std::string::npos) << why.message;
  EXPECT_EQ(
      hg::try_histogram_even(nullptr, bytes, samples.data(), out.data(), 5, 0.0f, 1.0f, -1, 4, 32, nullptr, {}, &why),
      cudaErrorInvalidValue);
  unsigned* none[3] = {out.data(), nullptr, out.data()};
  const int levels[3] = {5, 5, 5};
  const float lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
  device_buffer<unsigned char> temp(1 << 20);
  bytes = temp.size();
  EXPECT_EQ((hg::try_multi_histogram_even<4, 3>(temp.data(), bytes, samples.data(), none, levels, lo, hi, 16, nullptr,
                                                {}, &why)),
            cudaErrorInvalidValue);
  EXPECT_NE(why.message.find("channel 1's output is null"), std::string::npos) << why.message;
  // A negative row count is refused, never taken for contiguous pixels.
  unsigned* outs[3] = {out.data(), out.data(), out.data()};
  EXPECT_EQ((hg::try_multi_histogram_even<4, 3>(temp.data(), bytes, samples.data(), outs, levels, lo, hi, 4, -1, 64,
                                                nullptr, {}, &why)),
            cudaErrorInvalidValue);
  EXPECT_NE(why.message.find("rows"), std::string::npos) << why.message;
  EXPECT_THROW((hg::multi_histogram_even<4, 3>(temp.data(), bytes, samples.data(), outs, levels, lo, hi, 4, -1, 64)),
               std::invalid_argument);
  // Zero rows or zero pixels: every output zeroed, as CUB does.
  unsigned* ptrs[3] = {out.data(), out.data(), out.data()};
  out.poison();
  hg::multi_histogram_even<4, 3>(samples.data(), ptrs, levels, lo, hi, 0);
  MEMSCOPE_CUDA_CALL(cudaDeviceSynchronize());
  EXPECT_EQ(out.to_host(), std::vector<unsigned>(4, 0u));
}
