// histogram.cuh: histogram_even against the CPU reference and CUB.

#include "gpu/gpu_test.hpp"

#include "memscope/core/device_buffer.hpp"
#include "memscope/core/random.hpp"
#include "memscope/histogram/histogram.cuh"
#include "suites/histogram_inputs.cuh"
#include "memscope/histogram/reference.hpp"

#include <cub/device/device_histogram.cuh>

#include <cmath>
#include <string>
#include <vector>

namespace hg = memscope::histogram;
using memscope::device_buffer;

namespace {

std::vector<hg::options> all_options() {
  std::vector<hg::options> o = {{hg::strategy::automatic, 0},
                                {hg::strategy::global_atomics, 0},
                                {hg::strategy::global_atomics, 0, 0, true},
                                {hg::strategy::global_private, 0},
                                {hg::strategy::global_private, 0, 2},
                                {hg::strategy::global_private, 0, 64, true},
                                {hg::strategy::global_atomics, 0, 0, false, true},
                                {hg::strategy::global_private, 0, 4, true, true},
                                {hg::strategy::block_smem, 0}};
  if (memscope::testing::has_clusters())
    for (int c : {1, 2, 4, 8, 16}) {
      o.push_back({hg::strategy::cluster_dsmem, c});
      o.push_back({hg::strategy::cluster_split, c});
    }
  return o;
}

std::string label(const hg::options& o, int bins, std::size_t n, int offset) {
  return std::string(hg::to_string(o.kind)) + " cluster=" + std::to_string(o.cluster_size) +
         " copies=" + std::to_string(o.copies) + (o.warp_aggregate ? " aggregated" : "") +
         (o.window ? " windowed" : "") + " bins=" + std::to_string(bins) + " n=" + std::to_string(n) +
         " offset=" + std::to_string(offset);
}

/// A strategy may refuse a bin count only where its layout cannot hold the bins: the automatic
/// choice and global atomics never refuse; block_smem only past one block's shared memory; a
/// cluster only past its blocks' shared memory, or at 16 blocks (non-portable, co-scheduled
/// only where occupancy allows), or everywhere when this build's cluster kernels cannot use
/// clusters (compiled below sm_90).
void expect_unsupported_is_real(const hg::options& o, int bins, const std::string& why) {
  const auto dev = hg::current_device_limits<float>();
  const std::size_t whole = static_cast<std::size_t>(bins) * sizeof(std::uint32_t);
  switch (o.kind) {
    case hg::strategy::automatic:
    case hg::strategy::global_atomics:
    case hg::strategy::global_private:
      ADD_FAILURE() << hg::to_string(o.kind) << " refused " << bins << " bins: " << why;
      break;
    case hg::strategy::block_smem:
      EXPECT_GT(whole, dev.smem_per_block_optin) << "block_smem refused " << bins << " bins that fit: " << why;
      break;
    case hg::strategy::cluster_dsmem:
    case hg::strategy::cluster_split:
      EXPECT_TRUE(!dev.cluster_launch || hg::detail::cluster_smem(bins, o.cluster_size) > dev.smem_per_block_optin ||
                  o.cluster_size > 8)
          << hg::to_string(o.kind) << " cluster=" << o.cluster_size << " refused " << bins << " bins that fit: " << why;
      break;
  }
}

/// Runs histogram_even on samples starting `offset` elements into the buffer (so the 16-byte
/// head path runs), output poisoned, against the CPU reference of the same samples.
template <class T>
void check_all_strategies(std::size_t n, int bins, hg::input_shape d, T lower, T upper, int offset) {
  device_buffer<T> samples(n + static_cast<std::size_t>(offset) + 1);
  hg::make_samples(samples.data(), samples.size(), d, bins, memscope::testing::fresh_seed(), nullptr);
  const auto h = samples.to_host();
  const auto rule = hg::even_bins<T>::make(bins + 1, lower, upper);
  const auto want = hg::histogram_reference(h.data() + offset, n, rule);
  device_buffer<std::uint32_t> out(static_cast<std::size_t>(bins));
  for (const auto& o : all_options()) {
    out.poison();
    try {
      hg::histogram_even(samples.data() + offset, out.data(), bins + 1, lower, upper, static_cast<std::int64_t>(n),
                         nullptr, o);
    } catch (const hg::unsupported& e) {
      expect_unsupported_is_real(o, bins, e.what());
      continue;
    }
    MEMSCOPE_CUDA_CALL(cudaDeviceSynchronize());
    const auto got = out.to_host();
    std::size_t bad = 0;
    for (std::size_t b = 0; b < got.size(); ++b) bad += got[b] != want[b];
    EXPECT_EQ(bad, 0u) << label(o, bins, n, offset);
  }
}

}  // namespace

TEST(HistogramGpu, EveryStrategyMatchesTheReferenceOnAwkwardSizes) {
  MEMSCOPE_REQUIRE_GPU();
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{3}, std::size_t{31}, std::size_t{1000003}})
    for (int bins : {1, 3, 256, 4099})
      for (int offset : {0, 1, 3})
        check_all_strategies<float>(n, bins, hg::shape_of(hg::distribution::uniform), 0.0f, 1.0f, offset);
}

TEST(HistogramGpu, LargeBinCountsAcrossClusterCapacity) {
  MEMSCOPE_REQUIRE_GPU();
  for (int bins : {65536, 262147, 524288, 1 << 20})
    check_all_strategies<float>((std::size_t{1} << 22) + 7, bins, hg::shape_of(hg::distribution::uniform), 0.0f, 1.0f,
                                0);
}

// The shared-memory kernels' two builds (one or two blocks per SM) both run, each where the
// plan says: at 32768 bins a block's 128 KiB leaves room for no second block on any GPU, at
// 1024 bins two fit wherever an SM holds 2048 threads. Counts against the CPU reference.
TEST(HistogramGpu, BothSharedKernelBuildsRunWhereThePlanSays) {
  MEMSCOPE_REQUIRE_GPU();
  const auto dev = hg::current_device_limits<float>();
  EXPECT_GE(dev.smem_per_sm, dev.smem_per_block_optin);
  EXPECT_GE(dev.threads_per_sm, hg::policy::block_threads);
  for (int bins : {1024, 32768}) {
    const std::size_t smem = static_cast<std::size_t>(bins) * sizeof(std::uint32_t);
    if (smem > dev.smem_per_block_optin) continue;
    const hg::plan p = hg::plan_for<float>(bins, 1 << 20, {hg::strategy::block_smem, 0});
    EXPECT_EQ(p.blocks_per_sm, hg::shared_blocks_per_sm(dev, smem));
    if (bins == 32768) EXPECT_EQ(p.blocks_per_sm, 1);
    if (bins == 1024) EXPECT_EQ(p.blocks_per_sm, dev.threads_per_sm >= 2048 ? 2 : 1);
    check_all_strategies<float>(1000003, bins, hg::shape_of(hg::distribution::normal), 0.0f, 1.0f, 1);
  }
}

TEST(HistogramGpu, ContentionAndDirtyData) {
  MEMSCOPE_REQUIRE_GPU();
  for (auto d : {hg::distribution::one_bin, hg::distribution::normal, hg::distribution::dirty})
    for (int bins : {256, 65536}) check_all_strategies<float>(2000003, bins, hg::shape_of(d), 0.0f, 1.0f, 1);
}

TEST(HistogramGpu, EveryInputShape) {
  MEMSCOPE_REQUIRE_GPU();
  for (const auto& shape : hg::input_shapes)
    for (int bins : {5, 4099, 262147}) {
      SCOPED_TRACE(shape.name);
      check_all_strategies<float>(1000003, bins, shape, 0.0f, 1.0f, 3);
      check_all_strategies<int>(100003, bins, shape, 0, 1 << 24, 1);
    }
}

TEST(HistogramGpu, IntegerSamples) {
  MEMSCOPE_REQUIRE_GPU();
  for (auto d : {hg::distribution::uniform, hg::distribution::dirty, hg::distribution::one_bin})
    for (int bins : {7, 4096, 100000}) check_all_strategies<int>(1000003, bins, hg::shape_of(d), 0, 1 << 24, 2);
}

TEST(HistogramGpu, SameCountsAsCubOnAnOddRange) {
  MEMSCOPE_REQUIRE_GPU();
  // Levels whose reciprocal is inexact, where rounding decides bins near the edges.
  const int bins = 1000;
  const float lower = -0.3f, upper = 0.7f;
  const std::size_t n = 3000017;
  device_buffer<float> samples(n);
  hg::make_samples(samples.data(), n, hg::distribution::dirty, memscope::testing::fresh_seed(), nullptr);
  // Dirty samples in [0, 1) plus NaN and infinities; the levels straddle 0.7.
  device_buffer<std::uint32_t> ours(bins), theirs(bins);
  std::size_t temp_bytes = 0;
  MEMSCOPE_CUDA_CALL(cub::DeviceHistogram::HistogramEven(nullptr, temp_bytes, samples.data(), theirs.data(), bins + 1,
                                                         lower, upper, static_cast<std::int64_t>(n)));
  device_buffer<unsigned char> temp(temp_bytes);
  MEMSCOPE_CUDA_CALL(cub::DeviceHistogram::HistogramEven(temp.data(), temp_bytes, samples.data(), theirs.data(),
                                                         bins + 1, lower, upper, static_cast<std::int64_t>(n)));
  for (const auto& o : all_options()) {
    ours.poison();
    hg::histogram_even(samples.data(), ours.data(), bins + 1, lower, upper, static_cast<std::int64_t>(n), nullptr,
                       o);  // 1000 bins fit every layout
    MEMSCOPE_CUDA_CALL(cudaDeviceSynchronize());
    EXPECT_EQ(ours.to_host(), theirs.to_host()) << hg::to_string(o.kind) << " cluster=" << o.cluster_size;
  }
}

TEST(HistogramGpu, SamplesWhoseProductRoundsToNumBinsFallInNoBin) {
  MEMSCOPE_REQUIRE_GPU();
  // Found offline: just below 0.7f the scaled sample rounds up to exactly num_bins for these
  // bin counts over [0, 0.7f); CUB and the reference count it in no bin.
  const float upper = 0.7f;
  const float edge = std::nextafter(upper, 0.0f);
  for (int bins : {65, 69, 95, 130}) {
    const auto rule = hg::even_bins<float>::make(bins + 1, 0.0f, upper);
    ASSERT_GE(static_cast<int>((edge - 0.0f) * rule.reciprocal), bins)
        << "the edge sample no longer rounds to num_bins";
    std::vector<float> h(4099);
    for (std::size_t i = 0; i < h.size(); ++i)
      h[i] = i % 3 == 0 ? edge : std::nextafter(edge, 0.0f) - 1e-3f * static_cast<float>(i % 7);
    device_buffer<float> samples(h.size());
    samples.from_host(h);
    const auto want = hg::histogram_reference(h.data(), h.size(), rule);
    device_buffer<std::uint32_t> ours(static_cast<std::size_t>(bins)), theirs(static_cast<std::size_t>(bins));
    std::size_t temp_bytes = 0;
    MEMSCOPE_CUDA_CALL(cub::DeviceHistogram::HistogramEven(nullptr, temp_bytes, samples.data(), theirs.data(), bins + 1,
                                                           0.0f, upper, static_cast<int>(h.size())));
    device_buffer<unsigned char> temp(temp_bytes);
    MEMSCOPE_CUDA_CALL(cub::DeviceHistogram::HistogramEven(temp.data(), temp_bytes, samples.data(), theirs.data(),
                                                           bins + 1, 0.0f, upper, static_cast<int>(h.size())));
    MEMSCOPE_CUDA_CALL(cudaDeviceSynchronize());
    EXPECT_EQ(theirs.to_host(), want) << "CUB's rule differs from the reference at bins=" << bins;
    for (const auto& o : all_options()) {
      ours.poison();
      try {
        hg::histogram_even(samples.data(), ours.data(), bins + 1, 0.0f, upper, static_cast<std::int64_t>(h.size()),
                           nullptr, o);
      } catch (const hg::unsupported& e) {
        expect_unsupported_is_real(o, bins, e.what());
        continue;
      }
      MEMSCOPE_CUDA_CALL(cudaDeviceSynchronize());
      EXPECT_EQ(ours.to_host(), want) << hg::to_string(o.kind) << " cluster=" << o.cluster_size << " bins=" << bins;
    }
  }
}

TEST(HistogramGpu, TwoPhaseApiAndBadInput) {
  MEMSCOPE_REQUIRE_GPU();
  device_buffer<float> samples(100);
  device_buffer<std::uint32_t> out(10);
  std::size_t bytes = 0;
  const auto p = hg::histogram_even<float>(nullptr, bytes, samples.data(), out.data(), 11, 0.0f, 1.0f, 100);
  EXPECT_EQ(bytes, 1u);
  EXPECT_EQ(p.kind, hg::strategy::block_smem);
  EXPECT_THROW(hg::histogram_even<float>(nullptr, bytes, samples.data(), out.data(), 1, 0.0f, 1.0f, 100),
               std::invalid_argument);
  EXPECT_THROW(hg::histogram_even(samples.data(), out.data(), 11, 1.0f, 0.0f, 100), std::invalid_argument);
  EXPECT_THROW(hg::histogram_even(samples.data(), out.data(), 11, 0.0f, 1.0f, -1), std::invalid_argument);
  EXPECT_THROW(hg::histogram_even(samples.data(), out.data(), 11, 0.0f, 1.0f, std::int64_t{1} << 32),
               std::invalid_argument);
  EXPECT_THROW(
      hg::histogram_even(samples.data(), out.data(), 70001, 0.0f, 1.0f, 100, nullptr, {hg::strategy::block_smem, 0}),
      hg::unsupported);
}

TEST(HistogramGpu, CudaErrorFormsMatchTheThrowingOnes) {
  MEMSCOPE_REQUIRE_GPU();
  // Every strategy through the non-throwing form: same counts as CUB, or cudaErrorNotSupported
  // with the reason where the throwing form raises memscope::unsupported.
  const int bins = 4099;
  const std::size_t n = 1000003;
  device_buffer<float> samples(n);
  hg::make_samples(samples.data(), n, hg::distribution::dirty, memscope::testing::fresh_seed(), nullptr);
  device_buffer<std::uint32_t> ours(bins), theirs(bins);
  std::size_t temp_bytes = 0;
  MEMSCOPE_CUDA_CALL(cub::DeviceHistogram::HistogramEven(nullptr, temp_bytes, samples.data(), theirs.data(), bins + 1,
                                                         0.0f, 1.0f, static_cast<std::int64_t>(n)));
  device_buffer<unsigned char> temp(temp_bytes);
  MEMSCOPE_CUDA_CALL(cub::DeviceHistogram::HistogramEven(temp.data(), temp_bytes, samples.data(), theirs.data(),
                                                         bins + 1, 0.0f, 1.0f, static_cast<std::int64_t>(n)));
  for (const auto& o : all_options()) {
    ours.poison();
    hg::outcome why;
    const cudaError_t rc = hg::try_histogram_even(samples.data(), ours.data(), bins + 1, 0.0f, 1.0f,
                                                  static_cast<std::int64_t>(n), nullptr, o, &why);
    if (rc == cudaErrorNotSupported) {
      EXPECT_FALSE(why.message.empty());
      expect_unsupported_is_real(o, bins, why.message);
      continue;
    }
    ASSERT_EQ(rc, cudaSuccess) << hg::to_string(o.kind) << ": " << why.message;
    EXPECT_TRUE(why.message.empty());
    EXPECT_TRUE(o.kind == hg::strategy::automatic || why.ran.kind == o.kind);
    MEMSCOPE_CUDA_CALL(cudaDeviceSynchronize());
    EXPECT_EQ(ours.to_host(), theirs.to_host()) << hg::to_string(o.kind) << " cluster=" << o.cluster_size;
  }
  // Bad input: the codes CUB users test for, a message, and nothing enqueued.
  hg::outcome why;
  std::size_t bytes = 0;
  EXPECT_EQ(
      hg::try_histogram_even<float>(nullptr, bytes, samples.data(), ours.data(), 1, 0.0f, 1.0f, 100, nullptr, {}, &why),
      cudaErrorInvalidValue);
  EXPECT_NE(why.message.find("num_levels >= 2"), std::string::npos) << why.message;
  EXPECT_EQ(hg::try_histogram_even(samples.data(), ours.data(), 11, 0.0f, 1.0f, std::int64_t{-1}),
            cudaErrorInvalidValue);
  EXPECT_EQ(hg::try_histogram_even(samples.data(), ours.data(), 70001, 0.0f, 1.0f, std::int64_t{100}, nullptr,
                                   {hg::strategy::block_smem, 0}, &why),
            cudaErrorNotSupported);
  EXPECT_NE(why.message.find("block_smem needs"), std::string::npos) << why.message;
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}
