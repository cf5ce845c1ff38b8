// bank_conflicts.cuh: every pattern visits the addresses its name says, loads and stores.

#include "gpu/gpu_test.hpp"

#include "memscope/core/device_buffer.hpp"
#include "memscope/core/launch.cuh"
#include "memscope/shared/bank_conflicts.cuh"

#include <string>
#include <vector>

namespace bk = memscope::banks;
using memscope::device_buffer;

namespace {

/// Runs the kernel on the index table (loads) and checks every thread's sink against the host.
template <int Bytes, bool Store, class Pattern>
void check_pattern(const Pattern& pattern, unsigned iters, const std::string& what) {
  const unsigned blocks = 3;
  constexpr int threads = bk::threads<Store>();
  constexpr std::size_t smem = bk::smem_bytes<Bytes, Store>();
  auto kernel = bk::smem_pattern_kernel<Bytes, Store, Pattern>;
  memscope::prepare_dynamic_smem(kernel, smem);
  device_buffer<unsigned long long> cycles(blocks);
  device_buffer<unsigned> sink(std::size_t{blocks} * threads);
  sink.poison();
  kernel<<<blocks, threads, smem>>>(pattern, iters, cycles.data(), sink.data(), true);
  MEMSCOPE_CHECK_LAUNCH("smem_pattern_kernel");
  MEMSCOPE_CUDA_CALL(cudaDeviceSynchronize());
  const auto got = sink.to_host();
  std::size_t bad = 0;
  for (std::size_t t = 0; t < got.size(); ++t)
    bad += got[t] != (Store ? iters - 1 : bk::expected_load_sum(pattern, static_cast<unsigned>(t % 32), iters));
  EXPECT_EQ(bad, 0u) << what << " " << Bytes << " B " << (Store ? "store" : "load") << " iters=" << iters;
}

template <int Bytes>
void every_pattern(unsigned iters) {
  for (unsigned stride : {1u, 2u, 3u, 17u, 32u, 33u, 64u}) {
    check_pattern<Bytes, false>(bk::strided_pattern{stride}, iters, "stride " + std::to_string(stride));
    check_pattern<Bytes, true>(bk::strided_pattern{stride}, iters, "stride " + std::to_string(stride));
  }
  for (auto l : {bk::tile_layout::naive, bk::tile_layout::padded, bk::tile_layout::swizzled}) {
    bk::with_column_pattern(l, [&](auto pattern) {
      check_pattern<Bytes, false>(pattern, iters, "column " + std::to_string(static_cast<int>(l)));
      check_pattern<Bytes, true>(pattern, iters, "column " + std::to_string(static_cast<int>(l)));
    });
  }
}

}  // namespace

TEST(BankConflictsGpu, TheCheckTellsNeighbouringPatternsApart) {
  // Host only: the sums the check expects differ between strides and layouts, so a kernel that
  // read with the wrong stride or layout could not pass.
  for (unsigned lane : {1u, 5u, 31u}) {
    EXPECT_NE(bk::expected_load_sum(bk::strided_pattern{2}, lane, 37),
              bk::expected_load_sum(bk::strided_pattern{3}, lane, 37));
    EXPECT_NE(bk::expected_load_sum(bk::column_pattern<bk::tile_layout::naive>{}, lane, 37),
              bk::expected_load_sum(bk::column_pattern<bk::tile_layout::padded>{}, lane, 37));
    EXPECT_NE(bk::expected_load_sum(bk::column_pattern<bk::tile_layout::padded>{}, lane, 37),
              bk::expected_load_sum(bk::column_pattern<bk::tile_layout::swizzled>{}, lane, 37));
  }
}

TEST(BankConflictsGpu, EveryPatternVisitsTheAddressesItNames) {
  MEMSCOPE_REQUIRE_GPU();
  for (unsigned iters : {1u, 32u, 37u, 100u}) {
    every_pattern<4>(iters);
    every_pattern<8>(iters);
    every_pattern<16>(iters);
  }
}
