// Tests of include/memscope/shared/reduce on the GPU.

#include "gpu/gpu_test.hpp"

#include "memscope/core/device_buffer.hpp"
#include "memscope/core/fill.cuh"
#include "memscope/core/random.hpp"
#include "memscope/core/verify.hpp"
#include "memscope/shared/bank_conflicts.cuh"
#include "memscope/shared/reduce.cuh"
#include "memscope/shared/transpose.cuh"

#include <algorithm>
#include <random>
#include <vector>

using namespace memscope;

namespace {
using memscope::testing::fresh_seed;

__global__ void to_int_kernel(const float* in, int* out, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x)
    out[i] = static_cast<int>(in[i]);
}

const reduce::variant all_variants[] = {
    reduce::variant::global_inplace,   reduce::variant::interleaved,     reduce::variant::static_smem,
    reduce::variant::dynamic_smem,     reduce::variant::warp_shuffle,    reduce::variant::grid_stride_vec,
    reduce::variant::grid_stride_vec8, reduce::variant::grid_stride_red, reduce::variant::tiles_pdl};
}  // namespace

TEST(ReduceGpu, IntSumsAreExactForEveryVariantAndAwkwardSize) {
  MEMSCOPE_REQUIRE_GPU();
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{3}, std::size_t{255}, std::size_t{256},
                        std::size_t{257}, std::size_t{65537}, std::size_t{1000003}, std::size_t{5'000'011}}) {
    const std::uint64_t seed = fresh_seed();
    device_buffer<float> f(n);
    device_buffer<int> in(n), out(1);
    fill_hash(f.data(), n, seed, fill_kind::small_int);
    if (n) to_int_kernel<<<256, 256>>>(f.data(), in.data(), n);
    long long want = 0;
    for (std::size_t i = 0; i < n; ++i) want += static_cast<int>(hash_small_int(seed, i));
    reduce::reduce_workspace<int> ws(n);
    for (auto v : all_variants) {
      for (int round = 0; round < 2; ++round) {
        out.poison();
        reduce::sum(v, in.data(), n, out.data(), ws, nullptr);
        MEMSCOPE_CUDA_CALL(cudaDeviceSynchronize());
        EXPECT_EQ(out.to_host()[0], want) << "variant " << static_cast<int>(v) << " n=" << n << " round " << round;
      }
    }
    reduce::cub_sum<int> cub(in.data(), n, out.data());
    out.poison();
    cub(nullptr);
    MEMSCOPE_CUDA_CALL(cudaDeviceSynchronize());
    EXPECT_EQ(out.to_host()[0], want) << "cub n=" << n;
  }
}

TEST(ReduceGpu, FloatSumsAreExactOnWholeNumbers) {
  MEMSCOPE_REQUIRE_GPU();
  // Nonzero whole numbers: every float partial sum is exact, so the result must equal the
  // reference exactly, and a dropped or doubled element (never 0) shows.
  for (std::size_t n : {std::size_t{1}, std::size_t{1000}, std::size_t{3'000'017}, (std::size_t{1} << 26) + 5}) {
    const std::uint64_t seed = fresh_seed();
    device_buffer<float> in(n), out(1);
    fill_hash(in.data(), n, seed, fill_kind::nonzero_int);
    const double want = parallel_sum(n, [&](std::size_t i) { return static_cast<double>(hash_nonzero_int(seed, i)); });
    reduce::reduce_workspace<float> ws(n);
    for (auto v : all_variants) {
      out.poison();
      reduce::sum(v, in.data(), n, out.data(), ws, nullptr);
      MEMSCOPE_CUDA_CALL(cudaDeviceSynchronize());
      EXPECT_EQ(static_cast<double>(out.to_host()[0]), want) << "variant " << static_cast<int>(v) << " n=" << n;
    }
  }
}

// grid_stride_red's gate is closed by the last block of each launch: many launches in a row,
// alternating with the variant that shares the workspace's counters, must each be right.
TEST(ReduceGpu, AtomicEndIsRightLaunchAfterLaunch) {
  MEMSCOPE_REQUIRE_GPU();
  const std::size_t n = 3'000'017;
  const std::uint64_t seed = fresh_seed();
  device_buffer<float> f(n);
  device_buffer<int> in(n), out(1);
  fill_hash(f.data(), n, seed, fill_kind::small_int);
  to_int_kernel<<<256, 256>>>(f.data(), in.data(), n);
  long long want = 0;
  for (std::size_t i = 0; i < n; ++i) want += static_cast<int>(hash_small_int(seed, i));
  reduce::reduce_workspace<int> ws(n);
  for (int round = 0; round < 20; ++round) {
    const auto v = round % 3 == 2 ? reduce::variant::grid_stride_vec : reduce::variant::grid_stride_red;
    out.poison();
    reduce::sum(v, in.data(), n, out.data(), ws, nullptr);
    MEMSCOPE_CUDA_CALL(cudaDeviceSynchronize());
    EXPECT_EQ(out.to_host()[0], want) << "round " << round;
  }
}

TEST(ReduceGpu, UnalignedInputIsAClearErrorForVectorVariantsOnly) {
  MEMSCOPE_REQUIRE_GPU();
  device_buffer<int> in(1001), out(1);
  MEMSCOPE_CUDA_CALL(cudaMemset(in.data(), 0, in.bytes()));
  reduce::reduce_workspace<int> ws(1000);
  EXPECT_THROW(reduce::sum(reduce::variant::grid_stride_vec, in.data() + 1, 1000, out.data(), ws, nullptr),
               std::invalid_argument);
  EXPECT_THROW(reduce::sum(reduce::variant::grid_stride_red, in.data() + 1, 1000, out.data(), ws, nullptr),
               std::invalid_argument);
  EXPECT_THROW(reduce::sum(reduce::variant::tiles_pdl, in.data() + 1, 1000, out.data(), ws, nullptr),
               std::invalid_argument);
  EXPECT_NO_THROW(reduce::sum(reduce::variant::warp_shuffle, in.data() + 1, 1000, out.data(), ws, nullptr));
  MEMSCOPE_CUDA_CALL(cudaDeviceSynchronize());
  EXPECT_EQ(out.to_host()[0], 0);
}

// tiles_pdl's second kernel may be set up before the first has finished, and the next sum's
// first kernel overwrites the same partials: sums queued back to back on one stream, each
// over new values written by a kernel in between, with no host wait, must each be right.
TEST(ReduceGpu, DependentLaunchesQueuedBackToBackEachSeeTheirOwnPartials) {
  MEMSCOPE_REQUIRE_GPU();
  const std::size_t n = (std::size_t{1} << 24) + 3;
  constexpr int sums = 6;
  device_buffer<float> f(n);
  device_buffer<int> in(n), out(sums);
  out.poison();
  reduce::reduce_workspace<int> ws(n);
  std::vector<long long> want(sums);
  for (int k = 0; k < sums; ++k) {
    const std::uint64_t seed = fresh_seed();
    fill_hash(f.data(), n, seed, fill_kind::small_int);
    to_int_kernel<<<256, 256>>>(f.data(), in.data(), n);
    reduce::sum(reduce::variant::tiles_pdl, in.data(), n, out.data() + k, ws, nullptr);
    for (std::size_t i = 0; i < n; ++i) want[k] += static_cast<int>(hash_small_int(seed, i));
  }
  MEMSCOPE_CUDA_CALL(cudaDeviceSynchronize());
  const auto got = out.to_host();
  for (int k = 0; k < sums; ++k) EXPECT_EQ(got[k], want[k]) << "sum " << k;
}

// tiles_pdl picks its chunk from the GPU's size, so a unit-sized input only ever sees chunk 1-3;
// the kernels themselves must be right for any chunk, with the last block's chunk cut short.
TEST(ReduceGpu, TilesKernelIsExactForAnyChunk) {
  MEMSCOPE_REQUIRE_GPU();
  constexpr std::size_t tile = std::size_t{reduce::policy::block_threads} * reduce::policy::vec_items;
  for (std::size_t n : {std::size_t{5}, std::size_t{4097}, std::size_t{1'000'003}, std::size_t{3'000'017}}) {
    const std::uint64_t seed = fresh_seed();
    device_buffer<float> f(n);
    device_buffer<int> in(n), out(1), partials(n / 4 / tile + 2);
    fill_hash(f.data(), n, seed, fill_kind::small_int);
    to_int_kernel<<<256, 256>>>(f.data(), in.data(), n);
    long long want = 0;
    for (std::size_t i = 0; i < n; ++i) want += static_cast<int>(hash_small_int(seed, i));
    for (unsigned chunk : {1u, 2u, 3u, 8u}) {
      const auto blocks = static_cast<unsigned>(std::max<std::size_t>(1, ceil_div(ceil_div(n / 4, tile), chunk)));
      out.poison();
      partials.poison();
      reduce::reduce_tiles_kernel<int, reduce::policy::vec_items>
          <<<blocks, reduce::policy::block_threads>>>(in.data(), n, chunk, partials.data());
      reduce::reduce_partials_kernel<int><<<1, reduce::policy::finish_threads>>>(partials.data(), blocks, out.data());
      MEMSCOPE_CUDA_CALL(cudaDeviceSynchronize());
      EXPECT_EQ(out.to_host()[0], want) << "n=" << n << " chunk " << chunk;
    }
  }
}
