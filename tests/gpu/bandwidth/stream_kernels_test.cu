// Tests of include/memscope/bandwidth/stream_kernels on the GPU.

#include "gpu/gpu_test.hpp"

#include "memscope/bandwidth/stream_kernels.cuh"
#include "memscope/bandwidth/stream_reference.hpp"
#include "memscope/core/device_buffer.hpp"
#include "memscope/core/fill.cuh"
#include "memscope/core/random.hpp"
#include "memscope/core/verify.hpp"

#include <random>

using namespace memscope;
namespace bw = memscope::bandwidth;

namespace {

// Awkward element counts: empty, one, not multiples of the block, a prime, larger than any grid.
const std::size_t sizes[] = {0, 1, 2, 3, 31, 257, 1000003, 6'000'011};

using memscope::testing::fresh_seed;

template <class T>
constexpr std::size_t lanes = sizeof(T) / sizeof(float);

template <class T, class V = bw::default_variant, class Op, class Ref>
void check_map(Op op, Ref ref, double rel, double abs) {
  for (std::size_t n : sizes) {
    const std::uint64_t sa = fresh_seed(), sb = fresh_seed();
    device_buffer<T> a(n), b(n), out(n);
    fill_hash(reinterpret_cast<float*>(a.data()), n * lanes<T>, sa, fill_kind::uniform);
    fill_hash(reinterpret_cast<float*>(b.data()), n * lanes<T>, sb, fill_kind::uniform);
    out.poison();
    bw::stream_map<V>(op, out.data(), a.data(), b.data(), n, nullptr);
    MEMSCOPE_CUDA_CALL(cudaDeviceSynchronize());
    const auto h = out.to_host();
    const auto r = compare_near(
        reinterpret_cast<const float*>(h.data()), n * lanes<T>,
        [&](std::size_t i) { return ref(hash_uniform(sa, i), hash_uniform(sb, i)); }, rel, abs);
    EXPECT_TRUE(r.passed) << "n=" << n << " lanes=" << lanes<T> << ": " << r.detail;
  }
}

template <class T>
void check_sum(bw::read_order order = bw::read_order::persistent) {
  for (std::size_t n : sizes) {
    const std::uint64_t seed = fresh_seed();
    device_buffer<T> a(n);
    fill_hash(reinterpret_cast<float*>(a.data()), n * lanes<T>, seed, fill_kind::small_int);
    device_buffer<float> partials(bw::stream_sum_partials<T>(n, order));
    partials.poison();
    bw::stream_sum(a.data(), n, partials.data(), nullptr, order);
    MEMSCOPE_CUDA_CALL(cudaDeviceSynchronize());
    double got = 0;
    for (float p : partials.to_host()) got += p;
    const double want = parallel_sum(n * lanes<T>, [&](std::size_t i) { return hash_small_int(seed, i); });
    EXPECT_EQ(got, want) << "n=" << n << " lanes=" << lanes<T> << (order == bw::read_order::tiles ? " tiles" : "");
  }
}

constexpr double one_rounding = 1.2e-7;

}  // namespace

TEST(BandwidthKernels, CopyIsExact) {
  MEMSCOPE_REQUIRE_GPU();
  auto ref = [](double a, double) { return bw::reference::copy(a); };
  check_map<float>(bw::copy_op{}, ref, 0, 0);
  check_map<float4>(bw::copy_op{}, ref, 0, 0);
}

TEST(BandwidthKernels, EveryLayoutAndHintCopiesExactly) {
  MEMSCOPE_REQUIRE_GPU();
  using bw::stream_layout;
  auto ref = [](double a, double) { return a; };
  check_map<float, bw::stream_variant<stream_layout::grid_stride, 4, false, true>>(bw::copy_op{}, ref, 0, 0);
  check_map<float4, bw::stream_variant<stream_layout::grid_stride, 4, false, true>>(bw::copy_op{}, ref, 0, 0);
  check_map<float, bw::stream_variant<stream_layout::tiled, 8, false, false>>(bw::copy_op{}, ref, 0, 0);
  check_map<float4, bw::stream_variant<stream_layout::tiled, 4, true, false>>(bw::copy_op{}, ref, 0, 0);
  check_map<float4, bw::stream_variant<stream_layout::tiled, 4, false, true>>(bw::copy_op{}, ref, 0, 0);
}

TEST(BandwidthKernels, Scale) {
  MEMSCOPE_REQUIRE_GPU();
  auto ref = [](double a, double) { return bw::reference::scale(3.0, a); };
  check_map<float>(bw::scale_op{3.0f}, ref, one_rounding, 0);
  check_map<float4>(bw::scale_op{3.0f}, ref, one_rounding, 0);
}

TEST(BandwidthKernels, Add) {
  MEMSCOPE_REQUIRE_GPU();
  auto ref = [](double a, double b) { return bw::reference::add(a, b); };
  check_map<float>(bw::add_op{}, ref, one_rounding, 0);
  check_map<float4>(bw::add_op{}, ref, one_rounding, 0);
}

TEST(BandwidthKernels, Triad) {
  MEMSCOPE_REQUIRE_GPU();
  auto ref = [](double a, double b) { return bw::reference::triad(a, 0.4f, b); };
  check_map<float>(bw::triad_op{0.4f}, ref, one_rounding, 2 * one_rounding);
  check_map<float4>(bw::triad_op{0.4f}, ref, one_rounding, 2 * one_rounding);
}

TEST(BandwidthKernels, WriteOnly) {
  MEMSCOPE_REQUIRE_GPU();
  auto ref = [](double, double) { return -0.625; };
  check_map<float>(bw::write_op{-0.625f}, ref, 0, 0);
  check_map<float4>(bw::write_op{-0.625f}, ref, 0, 0);
}

TEST(BandwidthKernels, ReadOnlySumIsExact) {
  MEMSCOPE_REQUIRE_GPU();
  check_sum<float>();
  check_sum<float4>();
  check_sum<float>(bw::read_order::tiles);
  check_sum<float4>(bw::read_order::tiles);
}
