// atomics.cuh: counts after add, CAS-loop add, max and CAS-loop max in global, shared and DSMEM
// counters, at several sharing levels, with a warp-aggregated variant; the dependent chains end
// where the host says, the L2 home chase among them.

#include "gpu/gpu_test.hpp"

#include "memscope/atomic/atomics.cuh"
#include "memscope/core/device_buffer.hpp"
#include "memscope/core/placement.hpp"

namespace at = memscope::atomic;
using memscope::device_buffer;

namespace {

constexpr unsigned blocks = 4;
constexpr int iters = 5;
constexpr std::uint64_t threads = std::uint64_t{blocks} * at::policy::block_threads;

template <at::op O, at::target Tg, bool Agg = false, class T = unsigned>
void check(std::uint64_t sharers) {
  const unsigned per_block = at::reference::counters_per_block(at::policy::block_threads, sharers);
  const std::size_t n = Tg == at::target::global ? static_cast<std::size_t>((threads + sharers - 1) / sharers)
                                                 : std::size_t{blocks} * per_block;
  const std::size_t smem = Tg == at::target::global ? 0 : per_block * sizeof(T);
  device_buffer<T> out(n);
  MEMSCOPE_CUDA_CALL(cudaMemset(out.data(), 0, n * sizeof(T)));
  auto kernel = at::atomic_kernel<T, O, Tg, at::scope::device, Agg>;
  if constexpr (Tg == at::target::dsmem) {
    ASSERT_GT(memscope::max_active_clusters(kernel, at::policy::block_threads, 2, smem), 0);
    memscope::launch_cluster(kernel, dim3(blocks), dim3(at::policy::block_threads), 2, smem, nullptr, out.data(),
                             sharers, iters);
  } else {
    kernel<<<blocks, at::policy::block_threads, smem>>>(out.data(), sharers, iters);
  }
  MEMSCOPE_CHECK_LAUNCH("atomic_kernel");
  const auto got = out.to_host();
  const auto where = at::counters_of(Tg);
  for (std::size_t i = 0; i < n; ++i)
    ASSERT_EQ(got[i], static_cast<T>(at::reference::expected_counter(i, at::offers_max(O), where, blocks,
                                                                     at::policy::block_threads, sharers, iters)))
        << "op " << static_cast<int>(O) << " target " << static_cast<int>(Tg) << " sharers " << sharers << " counter "
        << i;
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

// The replacement for a 64-bit atomicMax where the toolchain's is not atomic (a peer block's
// shared memory with CUDA 13.0): exact at every contention and in every space, on 32- and
// 64-bit counters.
TEST(AtomicsGpu, CasMaxIsExactInEverySpaceFor64BitCounters) {
  MEMSCOPE_REQUIRE_GPU();
  for (std::uint64_t s : {std::uint64_t{1}, std::uint64_t{3}, std::uint64_t{32}, std::uint64_t{256}}) {
    check<at::op::cas_max, at::target::global, false, unsigned long long>(s);
    check<at::op::cas_max, at::target::shared, false, unsigned long long>(s);
    check<at::op::cas_max, at::target::shared, false, int>(s);
    if (memscope::testing::has_clusters()) {
      check<at::op::cas_max, at::target::dsmem, false, unsigned long long>(s);
      check<at::op::cas_max, at::target::dsmem, false, unsigned>(s);
    }
  }
}

// The probe behind atomics/dsmem_max_probe answers with a count of counters out of a count
// checked, whatever this binary's atomicMax does, and never with a value no thread offered.
TEST(AtomicsGpu, NativeDsmemMaxProbeCountsWhatItChecked) {
  MEMSCOPE_REQUIRE_GPU();
  if (!memscope::testing::has_clusters()) GTEST_SKIP() << "no clusters";
  ASSERT_TRUE(at::dsmem_max64_probe::usable());
  const auto r = at::dsmem_max64_probe::run(nullptr);
  EXPECT_GT(r.checked, 0u);
  EXPECT_LE(r.wrong, r.checked);
  EXPECT_EQ(r.out_of_range, 0u);
  RecordProperty("native_dsmem_max64_counters_wrong", static_cast<int>(r.wrong));
}

// The home chase ends on the line the host derives from the probe's own cycles, on both sides
// and for both accesses; an awkward step count that is not a multiple of the ring.
TEST(AtomicsGpu, L2HomeChaseEndsWhereTheProbeSays) {
  MEMSCOPE_REQUIRE_GPU();
  constexpr int n_lines = 1024;
  device_buffer<std::uint32_t> lines(std::size_t{n_lines} * at::policy::line_words), probe(n_lines), last(1);
  device_buffer<unsigned long long> out(3);
  for (auto side : {at::reference::side::near, at::reference::side::far})
    for (bool atomic : {true, false})
      for (int steps : {0, 1, 997}) {
        last.poison();
        probe.poison();
        at::l2_home_chain(atomic, lines.data(), n_lines, side, steps, probe.data(), out.data(), last.data(), nullptr);
        const auto cycles = probe.to_host();
        const auto o = out.to_host();
        const auto split = at::reference::split_of(cycles.data(), n_lines);
        int on_side = 0;
        for (auto c : cycles) on_side += at::reference::on_side(c, split, side);
        EXPECT_EQ(o[1], static_cast<unsigned long long>(on_side));
        EXPECT_EQ(last.to_host()[0], at::reference::home_chain_end(cycles.data(), n_lines, side, steps))
            << "side " << static_cast<int>(side) << " atomic " << atomic << " steps " << steps;
      }
}

TEST(AtomicsGpu, DependentChainEndsWhereTheHostSays) {
  MEMSCOPE_REQUIRE_GPU();
  const auto h = at::reference::chain_ring(at::chain_stride(at::target::global));
  device_buffer<std::uint32_t> ring(h.size()), last(1);
  device_buffer<unsigned long long> cycles(1);
  device_buffer<unsigned> sms(1);
  ring.from_host(h);
  for (int steps : {1, 1000}) {
    last.poison();
    at::atomic_chain_kernel<at::target::global><<<1, 32>>>(ring.data(), steps, cycles.data(), last.data(), sms.data());
    MEMSCOPE_CHECK_LAUNCH("atomic_chain_kernel");
    EXPECT_EQ(last.to_host()[0], at::reference::chain_end(steps));
    last.poison();
    at::atomic_chain_kernel<at::target::shared><<<1, 32>>>(nullptr, steps, cycles.data(), last.data(), sms.data());
    MEMSCOPE_CHECK_LAUNCH("atomic_chain_kernel");
    EXPECT_EQ(last.to_host()[0], at::reference::chain_end(steps));
  }
}

// DSMEM: every pair of a grid of clusters chases its own peer, each block alone on its SM with
// the padding the suite uses; every chain ends where the host says.
TEST(AtomicsGpu, DsmemChainFromEveryPairEndsWhereTheHostSays) {
  MEMSCOPE_REQUIRE_GPU();
  if (!memscope::testing::has_clusters()) GTEST_SKIP() << "no clusters";
  const auto dev = memscope::query_device_info(0);
  auto kernel = at::atomic_chain_kernel<at::target::dsmem>;
  const auto place = memscope::place_one_block_per_sm(kernel, 32, at::policy::cluster, 0);
  ASSERT_TRUE(place.sole) << "the kernel's 4 KiB static ring counts against the padding";
  ASSERT_GE(place.smem, memscope::sole_block_smem(0, dev.shared_per_sm, dev.reserved_shared_per_block,
                                                  sizeof(std::uint32_t) * at::policy::chain_words));
  const std::size_t pad = place.smem;
  const int pairs = place.clusters;
  ASSERT_GT(pairs, 0);
  ASSERT_LE(pairs * at::policy::cluster, dev.sm_count);
  const unsigned blocks = static_cast<unsigned>(pairs * at::policy::cluster);
  device_buffer<std::uint32_t> last(static_cast<std::size_t>(pairs));
  device_buffer<unsigned long long> cycles(static_cast<std::size_t>(pairs));
  device_buffer<unsigned> sms(blocks);
  for (int steps : {1, 333}) {
    last.poison();
    sms.poison();
    memscope::launch_cluster(kernel, dim3(blocks), dim3(32), at::policy::cluster, pad, nullptr,
                             static_cast<std::uint32_t*>(nullptr), steps, cycles.data(), last.data(), sms.data());
    MEMSCOPE_CUDA_CALL(cudaDeviceSynchronize());
    for (auto end : last.to_host())
      EXPECT_EQ(end, at::reference::chain_end(steps)) << pairs << " pairs, " << steps << " steps";
    EXPECT_EQ(memscope::distinct_sms(sms.to_host()), std::size_t{blocks}) << "each block alone on its SM";
  }
}
