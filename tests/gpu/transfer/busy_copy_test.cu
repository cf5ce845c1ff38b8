// busy_copy.cuh: the copy and its checksum on awkward sizes and round counts, against
// busy_reference.hpp; pieces cut at multiples of 16 bytes add up to the whole; misaligned
// pointers are refused.

#include "gpu/gpu_test.hpp"

#include "memscope/core/device_buffer.hpp"
#include "memscope/transfer/busy_copy.cuh"
#include "memscope/transfer/sm_copy.cuh"

#include <algorithm>
#include <functional>
#include <stdexcept>

namespace tr = memscope::transfer;
using memscope::device_buffer;

namespace {

unsigned checksum_after(const std::function<void(unsigned*)>& run) {
  device_buffer<unsigned> d_sum(1);
  MEMSCOPE_CUDA_CALL(cudaMemset(d_sum.data(), 0, sizeof(unsigned)));
  run(d_sum.data());
  MEMSCOPE_CUDA_CALL(cudaDeviceSynchronize());
  return d_sum.to_host()[0];
}

}  // namespace

TEST(BusyCopyGpu, CopiesAndChecksumsOnAwkwardSizes) {
  MEMSCOPE_REQUIRE_GPU();
  const std::uint64_t seed = memscope::testing::fresh_seed();
  for (std::size_t n :
       {std::size_t{0}, std::size_t{1}, std::size_t{3}, std::size_t{4}, std::size_t{15}, std::size_t{16},
        std::size_t{17}, std::size_t{4099}, std::size_t{1000003}, (std::size_t{1} << 24) + 5})
    for (unsigned rounds : {0u, 1u, 3u, 100u}) {
      device_buffer<std::uint8_t> src(n + 16), dst(n + 16);
      tr::fill_pattern(src.data(), n, seed, nullptr);
      tr::fill_pattern(dst.data(), n + 16, ~seed, nullptr);  // poisoned, past the end too
      const unsigned sum =
          checksum_after([&](unsigned* d_sum) { tr::busy_copy(dst.data(), src.data(), n, rounds, d_sum, nullptr); });
      EXPECT_EQ(sum, tr::busy_checksum_of_pattern(n, seed, rounds)) << "n=" << n << " rounds=" << rounds;
      const auto bad = tr::count_pattern_mismatches(dst.data(), n, seed, nullptr);
      EXPECT_EQ(bad.first, 0u) << "n=" << n << " rounds=" << rounds << " first bad " << bad.second;
      const auto h = dst.to_host();
      for (std::size_t i = n; i < n + 16; ++i)
        ASSERT_EQ(h[i], tr::pattern_byte(~seed, i)) << "written past the end, n=" << n;
    }
}

TEST(BusyCopyGpu, PiecesAddUpToTheWhole) {
  MEMSCOPE_REQUIRE_GPU();
  const std::uint64_t seed = memscope::testing::fresh_seed();
  const std::size_t n = 1000003;
  device_buffer<std::uint8_t> src(n), dst(n);
  tr::fill_pattern(src.data(), n, seed, nullptr);
  for (std::size_t piece : {std::size_t{16}, std::size_t{4096}, std::size_t{333344}}) {
    tr::fill_pattern(dst.data(), n, ~seed, nullptr);
    const unsigned sum = checksum_after([&](unsigned* d_sum) {
      for (std::size_t at = 0; at < n; at += piece)
        tr::busy_copy(dst.data() + at, src.data() + at, std::min(piece, n - at), 7, d_sum, nullptr);
    });
    EXPECT_EQ(sum, tr::busy_checksum_of_pattern(n, seed, 7)) << "piece=" << piece;
    EXPECT_EQ(tr::count_pattern_mismatches(dst.data(), n, seed, nullptr).first, 0u) << "piece=" << piece;
  }
}

TEST(BusyCopyGpu, RefusesMisalignedPointers) {
  MEMSCOPE_REQUIRE_GPU();
  device_buffer<std::uint8_t> src(64), dst(64);
  device_buffer<unsigned> d_sum(1);
  EXPECT_THROW(tr::busy_copy(dst.data() + 4, src.data(), 32, 1, d_sum.data(), nullptr), std::invalid_argument);
  EXPECT_THROW(tr::busy_copy(dst.data(), src.data() + 1, 32, 1, d_sum.data(), nullptr), std::invalid_argument);
}
