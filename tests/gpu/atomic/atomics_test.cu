// atomics.cuh: counts after add, CAS-loop add and max in global, shared and DSMEM counters, at
// several sharing levels, with a warp-aggregated variant; the dependent chain ends where the host says.

#include "gpu/gpu_test.hpp"

#include "memscope/atomic/atomics.cuh"
#include "memscope/core/device_buffer.hpp"

namespace at = memscope::atomic;
using memscope::device_buffer;

namespace {

constexpr unsigned blocks = 4;
constexpr int iters = 5;
constexpr std::uint64_t threads = std::uint64_t{blocks} * at::policy::block_threads;

template <at::op O, at::target Tg, bool Agg = false>
void check(std::uint64_t sharers) {
  const unsigned per_block = at::reference::counters_per_block(at::policy::block_threads, sharers);
  const std::size_t n = Tg == at::target::global ? static_cast<std::size_t>((threads + sharers - 1) / sharers) : std::size_t{blocks} * per_block;
  const std::size_t smem = Tg == at::target::global ? 0 : per_block * sizeof(unsigned);
  device_buffer<unsigned> out(n);
  MEMSCOPE_CUDA_CALL(cudaMemset(out.data(), 0, n * sizeof(unsigned)));
  auto kernel = at::atomic_kernel<unsigned, O, Tg, at::scope::device, Agg>;
  if constexpr (Tg == at::target::dsmem) {
    ASSERT_GT(memscope::max_active_clusters(kernel, at::policy::block_threads, 2, smem), 0);
    memscope::launch_cluster(kernel, dim3(blocks), dim3(at::policy::block_threads), 2, smem, nullptr, out.data(), sharers, iters);
  } else {
    kernel<<<blocks, at::policy::block_threads, smem>>>(out.data(), sharers, iters);
  }
  MEMSCOPE_CHECK_LAUNCH("atomic_kernel");
  const auto got = out.to_host();
  const auto where = at::counters_of(Tg);
  for (std::size_t i = 0; i < n; ++i)
    ASSERT_EQ(got[i], static_cast<unsigned>(at::reference::expected_counter(i, O == at::op::max, where, blocks, at::policy::block_threads,
                                                                          sharers, iters)))
        << "op " << static_cast<int>(O) << " target " << static_cast<int>(Tg) << " sharers " << sharers << " counter " << i;
}

}  // namespace

TEST(AtomicsGpu, GlobalCountsAreExactAtEveryContention) {
  MEMSCOPE_REQUIRE_GPU();
  for (std::uint64_t s : {std::uint64_t{1}, std::uint64_t{3}, std::uint64_t{32}, std::uint64_t{256}, threads}) {
    check<at::op::add, at::target::global>(s);
    check<at::op::cas, at::target::global>(s);
    check<at::op::max, at::target::global>(s);
    check<at::op::add, at::target::global, true>(s);
  }
}

TEST(AtomicsGpu, SharedAndDsmemCountsAreExact) {
  MEMSCOPE_REQUIRE_GPU();
  for (std::uint64_t s : {std::uint64_t{1}, std::uint64_t{32}, std::uint64_t{256}}) {
    check<at::op::add, at::target::shared>(s);
    check<at::op::max, at::target::shared>(s);
    if (memscope::testing::has_clusters()) {
      check<at::op::add, at::target::dsmem>(s);
      check<at::op::max, at::target::dsmem>(s);
    }
  }
}

TEST(AtomicsGpu, DependentChainEndsWhereTheHostSays) {
  MEMSCOPE_REQUIRE_GPU();
  device_buffer<std::uint32_t> ring(at::policy::chain_words), last(1);
  device_buffer<unsigned long long> cycles(1);
  std::vector<std::uint32_t> h(at::policy::chain_words);
  for (std::uint32_t i = 0; i < h.size(); ++i) h[i] = at::reference::chain_next(i);
  ring.from_host(h);
  for (int steps : {1, 1000}) {
    last.poison();
    at::atomic_chain_kernel<at::target::global><<<1, 32>>>(ring.data(), steps, cycles.data(), last.data());
    MEMSCOPE_CHECK_LAUNCH("atomic_chain_kernel");
    EXPECT_EQ(last.to_host()[0], at::reference::chain_end(steps));
    last.poison();
    at::atomic_chain_kernel<at::target::shared><<<1, 32>>>(ring.data(), steps, cycles.data(), last.data());
    MEMSCOPE_CHECK_LAUNCH("atomic_chain_kernel");
    EXPECT_EQ(last.to_host()[0], at::reference::chain_end(steps));
  }
}
