// Tests of include/memscope/histogram/device_reference on the GPU: the counts of the CPU
// reference, exactly, for even and range bins, 32- and 64-bit counters, interleaved pitched
// pixels, and sizes from empty to past the reference's grid.

#include "gpu/histogram/checks.hpp"

#include "memscope/core/device_buffer.hpp"
#include "memscope/histogram/device_reference.cuh"
#include "memscope/histogram/reference.hpp"
#include "suites/histogram_inputs.cuh"

#include <vector>

using namespace memscope;
namespace hg = memscope::histogram;

namespace {

template <class CountT>
void expect_even_matches(std::size_t n, int bins, hg::distribution d) {
  device_buffer<float> samples(n);
  hg::make_samples(samples.data(), n, hg::shape_of(d), bins, 99 + n, nullptr);
  const auto rule = hg::make_even_rule<float>(bins + 1, 0.0f, 1.0f);
  device_buffer<CountT> d_counts(static_cast<std::size_t>(bins));
  d_counts.poison(nullptr);
  hg::histogram_reference_on_device(samples.data(), n, rule, d_counts.data(), nullptr);
  MEMSCOPE_CUDA_CALL(cudaDeviceSynchronize());
  const auto h = samples.to_host();
  memscope::testing::expect_same_counts(d_counts.to_host(), hg::histogram_reference<CountT>(h.data(), n, rule),
                                        "n " + std::to_string(n) + ", bins " + std::to_string(bins));
}

}  // namespace

TEST(HistogramDeviceReferenceGpu, EvenBinsMatchTheCpuReference) {
  MEMSCOPE_REQUIRE_GPU();
  for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{31}, std::size_t{1000003},
                              std::size_t{8192} * 256 * 2 + 5})  // past the grid: each thread loops
    expect_even_matches<std::uint32_t>(n, 4099, hg::distribution::dirty);
  expect_even_matches<unsigned long long>(1000003, 1, hg::distribution::one_bin);
  expect_even_matches<std::uint32_t>(65537, 262147, hg::distribution::zipf);
}

TEST(HistogramDeviceReferenceGpu, RangeBinsSearchDeviceLevels) {
  MEMSCOPE_REQUIRE_GPU();
  const int bins = 255;
  const std::size_t n = 100003;
  std::vector<float> levels(bins + 1);
  for (int b = 0; b <= bins; ++b) levels[b] = static_cast<float>(b * b) / (bins * bins);  // uneven widths
  device_buffer<float> d_levels(levels.size()), samples(n);
  d_levels.from_host(levels);
  hg::make_samples(samples.data(), n, hg::distribution::normal, 5, nullptr, bins);
  device_buffer<std::uint32_t> d_counts(bins);
  hg::histogram_reference_on_device(samples.data(), n, hg::make_range_rule<float>(bins + 1, d_levels.data()),
                                    d_counts.data(), nullptr);
  MEMSCOPE_CUDA_CALL(cudaDeviceSynchronize());
  const auto h = samples.to_host();
  memscope::testing::expect_same_counts(
      d_counts.to_host(),
      hg::histogram_reference<std::uint32_t>(h.data(), n, hg::make_range_rule<float>(bins + 1, levels.data())),
      "range");
}

TEST(HistogramDeviceReferenceGpu, PitchedPixelsCountEachActiveChannel) {
  MEMSCOPE_REQUIRE_GPU();
  constexpr int channels = 4, active = 3, bins = 256;
  for (const std::size_t row_pixels : {std::size_t{1}, std::size_t{45}, std::size_t{3001}}) {
    const std::size_t rows = 7, stride = (row_pixels * channels + 127) / 128 * 128;  // padded rows
    device_buffer<std::uint8_t> samples(rows * stride);
    hg::make_samples(samples.data(), samples.size(), hg::input_shape{}, bins, row_pixels, nullptr);
    hg::even_rule<std::uint8_t, int> rules[active];
    for (auto& r : rules) r = hg::make_even_rule<std::uint8_t>(bins + 1, 0, 256);
    device_buffer<std::uint32_t> d_counts(static_cast<std::size_t>(bins) * active);
    hg::multi_histogram_reference_on_device<std::uint32_t, channels>(samples.data(), rows, row_pixels, stride, rules,
                                                                     d_counts.data(), nullptr);
    MEMSCOPE_CUDA_CALL(cudaDeviceSynchronize());
    const auto h = samples.to_host();
    const auto want = hg::multi_histogram_reference<std::uint32_t, channels>(h.data(), rows, row_pixels, stride, rules);
    const auto got = d_counts.to_host();
    for (int a = 0; a < active; ++a)
      memscope::testing::expect_same_counts(
          std::vector<std::uint32_t>(got.begin() + a * bins, got.begin() + (a + 1) * bins), want[a],
          "width " + std::to_string(row_pixels) + ", channel " + std::to_string(a));
  }
}
