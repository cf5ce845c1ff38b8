// sm_copy.cuh, host_memory.hpp and managed.hpp: SM copies on awkward sizes and alignments,
// between device memory, every kind of mapped host memory and managed memory; the pattern
// fill and check on host and device agree; a pinned allocation past the host's memory fails
// with a clear error.

#include "gpu/gpu_test.hpp"

#include "memscope/core/device_buffer.hpp"
#include "memscope/transfer/host_link.hpp"
#include "memscope/transfer/host_memory.hpp"
#include "memscope/transfer/numa.hpp"
#include "memscope/transfer/managed.hpp"
#include "memscope/transfer/sm_copy.cuh"

#include <cstring>
#include <string>
#include <vector>

namespace tr = memscope::transfer;
using memscope::device_buffer;

namespace {

const std::vector<std::size_t> sizes = {0, 1, 3, 15, 16, 17, 4099, 65536, 1000003, (std::size_t{1} << 24) + 5};

}  // namespace

TEST(TransferGpu, SmCopyMatchesOnAwkwardSizesAndOffsets) {
  MEMSCOPE_REQUIRE_GPU();
  const std::uint64_t seed = memscope::testing::fresh_seed();
  for (std::size_t n : sizes)
    for (std::size_t offset : {0, 1, 4, 16}) {  // misaligned starts take the shifted path
      device_buffer<std::uint8_t> src(n + 32), dst(n + 32);
      tr::fill_pattern(src.data() + offset, n, seed, nullptr);
      tr::fill_pattern(dst.data() + 16, n, ~seed, nullptr);
      tr::sm_copy(dst.data() + 16, src.data() + offset, n, nullptr);
      const auto bad = tr::count_pattern_mismatches(dst.data() + 16, n, seed, nullptr);
      EXPECT_EQ(bad.first, 0u) << "n=" << n << " offset=" << offset << " first bad " << bad.second;
    }
}

// Pointers of any alignment stay in 16-byte stores (detail::shifted_copy): every source phase
// against destinations on and off 16 bytes and 128-byte lines, sizes around the head that
// brings the destination onto a line and the tail, the bytes around the destination untouched.
TEST(TransferGpu, SmCopyShiftsEveryAlignmentPair) {
  MEMSCOPE_REQUIRE_GPU();
  const std::uint64_t seed = memscope::testing::fresh_seed();
  constexpr std::size_t guard = 160;
  for (std::size_t n : {0, 1, 15, 16, 17, 31, 32, 33, 127, 128, 129, 255, 256, 257, 300, 4099, 65539}) {
    device_buffer<std::uint8_t> src(n + 2 * guard), dst(n + 2 * guard);
    for (std::size_t dst_off : {0, 1, 7, 8, 15, 16, 100, 127})
      for (std::size_t src_off = 0; src_off < 16; ++src_off) {
        tr::fill_pattern(src.data(), src.size(), seed, nullptr);
        tr::fill_pattern(dst.data(), dst.size(), ~seed, nullptr);
        tr::sm_copy(dst.data() + dst_off, src.data() + src_off, n, nullptr);
        MEMSCOPE_CUDA_CALL(cudaDeviceSynchronize());
        const auto h = dst.to_host();
        std::size_t bad = 0, first = h.size();
        for (std::size_t i = 0; i < h.size(); ++i) {
          const bool inside = i >= dst_off && i < dst_off + n;
          const std::uint8_t want = inside ? tr::pattern_byte(seed, i - dst_off + src_off) : tr::pattern_byte(~seed, i);
          if (h[i] != want && bad++ == 0) first = i;
        }
        EXPECT_EQ(bad, 0u) << "n=" << n << " dst_off=" << dst_off << " src_off=" << src_off << " first bad byte "
                           << first;
      }
  }
}

// Over the link: mapped pinned memory as the source or the destination, off alignment.
TEST(TransferGpu, SmCopyShiftsOverMappedHostMemory) {
  MEMSCOPE_REQUIRE_GPU();
  const std::uint64_t seed = memscope::testing::fresh_seed();
  for (std::size_t n : {std::size_t{4099}, std::size_t{1000003}}) {
    tr::host_memory h(tr::host_kind::pinned, n + 64);
    device_buffer<std::uint8_t> d(n + 64);
    for (auto [h_off, d_off] : {std::pair<std::size_t, std::size_t>{1, 0}, {3, 7}, {0, 9}, {8, 8}}) {
      auto* hp = static_cast<std::uint8_t*>(h.device_pointer());
      tr::fill_pattern(hp + h_off, n, seed, nullptr);
      tr::sm_copy(d.data() + d_off, hp + h_off, n, nullptr);  // up
      EXPECT_EQ(tr::count_pattern_mismatches(d.data() + d_off, n, seed, nullptr).first, 0u)
          << "up n=" << n << " " << h_off << "," << d_off;
      tr::fill_pattern(d.data() + d_off, n, ~seed, nullptr);
      tr::sm_copy(hp + h_off, d.data() + d_off, n, nullptr);  // down
      EXPECT_EQ(tr::count_pattern_mismatches(hp + h_off, n, ~seed, nullptr).first, 0u)
          << "down n=" << n << " " << h_off << "," << d_off;
    }
  }
}

// Both copies in one launch in device memory, by both kernels (the grid's blocks split between
// the copies, as below policy::every_thread_both_min_bytes, and every thread copying both, as
// from it; misaligned jobs always split the blocks): misaligned starts (the shifted path for
// both jobs) and a size several grid strides
// long (the unrolled loop, its remainder and the byte tail in one launch).
TEST(TransferGpu, BothCopiesInOneLaunchOnAwkwardSizesAndOffsets) {
  MEMSCOPE_REQUIRE_GPU();
  const std::uint64_t seed = memscope::testing::fresh_seed();
  std::vector<std::size_t> both_sizes = sizes;
  both_sizes.push_back(3 * (std::size_t{1} << 24) + 1001);
  for (std::size_t every_thread_from : {tr::policy::every_thread_both_min_bytes, std::size_t{0}})
    for (std::size_t n : both_sizes)
      for (std::size_t offset : {0, 1, 16}) {
        device_buffer<std::uint8_t> a_src(n + 32), a_dst(n + 32), b_src(n + 32), b_dst(n + 32);
        tr::fill_pattern(a_src.data() + offset, n, seed, nullptr);
        tr::fill_pattern(b_src.data() + 16, n, seed + 1, nullptr);
        tr::fill_pattern(a_dst.data() + 16, n, ~seed, nullptr);
        tr::fill_pattern(b_dst.data() + offset, n, ~(seed + 1), nullptr);
        tr::sm_copy_both(a_dst.data() + 16, a_src.data() + offset, b_dst.data() + offset, b_src.data() + 16, n, nullptr,
                         every_thread_from);
        const auto bad_a = tr::count_pattern_mismatches(a_dst.data() + 16, n, seed, nullptr);
        const auto bad_b = tr::count_pattern_mismatches(b_dst.data() + offset, n, seed + 1, nullptr);
        const std::string where = "n=" + std::to_string(n) + " offset=" + std::to_string(offset) +
                                  (every_thread_from == 0 ? " every thread both" : " blocks split");
        EXPECT_EQ(bad_a.first, 0u) << where << " first bad " << bad_a.second;
        EXPECT_EQ(bad_b.first, 0u) << where << " first bad " << bad_b.second;
      }
}

TEST(TransferGpu, BothDirectionsInOneLaunchAndEveryHostKind) {
  MEMSCOPE_REQUIRE_GPU();
  const std::uint64_t seed = memscope::testing::fresh_seed();
  for (auto kind : {tr::host_kind::pinned, tr::host_kind::write_combined, tr::host_kind::registered})
    for (std::size_t n : sizes) {
      tr::host_memory h_src(kind, n), h_dst(kind, n);
      device_buffer<std::uint8_t> d_src(n), d_dst(n);
      if (n) {
        ASSERT_NE(h_src.device_pointer(), nullptr);
      }
      tr::fill_pattern(h_src.device_pointer(), n, seed, nullptr);
      tr::fill_pattern(d_src.data(), n, seed + 1, nullptr);
      tr::fill_pattern(d_dst.data(), n, ~seed, nullptr);
      tr::fill_pattern(h_dst.device_pointer(), n, ~(seed + 1), nullptr);
      tr::sm_copy_both(d_dst.data(), h_src.device_pointer(), h_dst.device_pointer(), d_src.data(), n, nullptr);
      MEMSCOPE_CUDA_CALL(cudaDeviceSynchronize());
      EXPECT_EQ(tr::count_pattern_mismatches(d_dst.data(), n, seed, nullptr).first, 0u)
          << to_string(kind) << " n=" << n;
      std::size_t first = 0;
      // The host sees what the GPU wrote through the mapping (write-combined reads are slow,
      // so only the small sizes are read by the CPU).
      if (n <= 65536 || kind != tr::host_kind::write_combined)
        EXPECT_EQ(tr::count_pattern_mismatches_host(h_dst.data(), n, seed + 1, first), 0u)
            << to_string(kind) << " n=" << n;
      // ... and the pattern the CPU would write is the one the GPU wrote.
      if (n && kind == tr::host_kind::pinned) {
        tr::fill_pattern_host(h_src.data(), n, seed + 7);
        EXPECT_EQ(tr::count_pattern_mismatches(h_src.device_pointer(), n, seed + 7, nullptr).first, 0u);
      }
    }
}

TEST(TransferGpu, PageableMemoryIsNotMappedAndHugePinningFailsClearly) {
  MEMSCOPE_REQUIRE_GPU();
  tr::host_memory pageable(tr::host_kind::pageable, 4096);
  EXPECT_EQ(pageable.device_pointer(), nullptr);
  EXPECT_FALSE(tr::is_mapped(tr::host_kind::pageable));
  // 1 PiB: more than any host has. A clear error, no crash, the context still usable.
  try {
    tr::host_memory huge(tr::host_kind::pinned, std::size_t{1} << 50);
    ADD_FAILURE() << "a 1 PiB pinned allocation succeeded";
  } catch (const memscope::cuda_error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot pin"), std::string::npos) << e.what();
  }
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  device_buffer<int> still_fine(16);
  still_fine.poison();
  MEMSCOPE_CUDA_CALL(cudaDeviceSynchronize());
}

TEST(TransferGpu, ManagedPagesReadByTheGpuAfterFaultAndPrefetch) {
  MEMSCOPE_REQUIRE_GPU();
  int device = 0;
  MEMSCOPE_CUDA_CALL(cudaGetDevice(&device));
  if (const auto why = tr::managed_unsupported(device); !why.empty()) GTEST_SKIP() << why;
  const std::uint64_t seed = memscope::testing::fresh_seed();
  for (std::size_t n : sizes) {
    tr::managed_buffer m(n);
    device_buffer<std::uint8_t> d(n);
    tr::fill_pattern_host(m.data(), n, seed);
    tr::sm_copy(d.data(), m.data(), n, nullptr);  // faults the pages in
    EXPECT_EQ(tr::count_pattern_mismatches(d.data(), n, seed, nullptr).first, 0u) << "fault n=" << n;
    tr::prefetch(m.data(), n, tr::host_location(), nullptr);
    tr::prefetch(m.data(), n, tr::gpu_location(device), nullptr);
    EXPECT_EQ(tr::count_pattern_mismatches(m.data(), n, seed, nullptr).first, 0u) << "prefetch n=" << n;
    tr::prefetch(m.data(), n, tr::host_location(), nullptr);
    MEMSCOPE_CUDA_CALL(cudaDeviceSynchronize());
    std::size_t first = 0;
    EXPECT_EQ(tr::count_pattern_mismatches_host(m.data(), n, seed, first), 0u) << "back on the host n=" << n;
  }
}

// Read-mostly pages moved back by prefetch_sole_copy, as before every sample of access'
// read_mostly mode and stream's read-mostly feed: the contents survive the lifted hint and
// every trip, and the hint is set again (the pages keep being duplicated, not migrated).
TEST(TransferGpu, ReadMostlyPagesMovedWithoutTheirCopiesKeepContentsAndHint) {
  MEMSCOPE_REQUIRE_GPU();
  int device = 0;
  MEMSCOPE_CUDA_CALL(cudaGetDevice(&device));
  if (const auto why = tr::managed_unsupported(device); !why.empty()) GTEST_SKIP() << why;
  const std::uint64_t seed = memscope::testing::fresh_seed();
  memscope::cuda_stream stream;
  const cudaStream_t s = stream.get();
  for (std::size_t n : sizes) {
    tr::managed_buffer m(n);
    device_buffer<std::uint8_t> d(n);
    tr::fill_pattern_host(m.data(), n, seed);
    for (int trip = 0; trip < 3; ++trip) {
      // The first trip sets the hint, as a feed's first prepare does.
      tr::prefetch_sole_copy(m.data(), n, tr::host_location(), trip > 0, s);
      if (trip == 0) tr::advise(m.data(), n, cudaMemAdviseSetReadMostly, tr::gpu_location(device));
      d.poison(s);
      tr::prefetch(m.data(), n, tr::gpu_location(device), s);
      tr::sm_copy(d.data(), m.data(), n, s);
      EXPECT_EQ(tr::count_pattern_mismatches(d.data(), n, seed, s).first, 0u) << "n=" << n << " trip=" << trip;
      if (n) {
        int read_mostly = 0;
        MEMSCOPE_CUDA_CALL(
            cudaMemRangeGetAttribute(&read_mostly, sizeof read_mostly, cudaMemRangeAttributeReadMostly, m.data(), n));
        EXPECT_EQ(read_mostly, 1) << "n=" << n << " trip=" << trip;
      }
    }
    tr::prefetch_sole_copy(m.data(), n, tr::host_location(), true, s);
    MEMSCOPE_CUDA_CALL(cudaStreamSynchronize(s));
    std::size_t first = 0;
    EXPECT_EQ(tr::count_pattern_mismatches_host(m.data(), n, seed, first), 0u) << "back on the host n=" << n;
  }
}

// Managed output written the way the stream case writes it: each page-aligned piece discarded
// and prefetched to the GPU, written by a kernel, prefetched back while the next piece is
// discarded. Every byte must come back, none lost to a neighbour's discard.
TEST(TransferGpu, ManagedPiecesDiscardedWrittenAndBroughtBack) {
  MEMSCOPE_REQUIRE_GPU();
  int device = 0;
  MEMSCOPE_CUDA_CALL(cudaGetDevice(&device));
  if (const auto why = tr::managed_unsupported(device); !why.empty()) GTEST_SKIP() << why;
  const std::uint64_t seed = memscope::testing::fresh_seed();
  memscope::cuda_stream stream, back;
  const cudaStream_t s = stream.get();
  {
    tr::managed_buffer probe(4096);
    if (const auto why = tr::discard_unsupported(probe.data(), 4096, tr::gpu_location(device), s); !why.empty())
      GTEST_SKIP() << why;
  }
  for (const std::size_t n : {std::size_t{1}, std::size_t{4099}, (std::size_t{8} << 20) + 3 * 4096 + 5}) {
    for (const std::size_t piece : {std::size_t{4096}, std::size_t{3} * 4096, std::size_t{2} << 20}) {
      tr::managed_buffer m(n);
      device_buffer<std::uint8_t> d_src(n);
      tr::fill_pattern(d_src.data(), n, seed, s);
      tr::fill_pattern_host(m.data(), n, ~seed);  // poisoned, on the host
      auto* const out = static_cast<std::uint8_t*>(m.data());
      std::vector<memscope::cuda_event> written((n + piece - 1) / piece);
      for (std::size_t at = 0, k = 0; at < n; at += piece, ++k) {
        const std::size_t len = std::min(piece, n - at);
        tr::discard_and_prefetch(out + at, len, tr::gpu_location(device), s);
        tr::sm_copy(out + at, d_src.data() + at, len, s);
        written[k].record(s);
        MEMSCOPE_CUDA_CALL(cudaStreamWaitEvent(back.get(), written[k].get(), 0));
        tr::prefetch(out + at, len, tr::host_location(), back.get());
      }
      MEMSCOPE_CUDA_CALL(cudaDeviceSynchronize());
      std::size_t first = 0;
      EXPECT_EQ(tr::count_pattern_mismatches_host(m.data(), n, seed, first), 0u)
          << "n=" << n << " piece=" << piece << " first=" << first;
    }
  }
}

// Host memory placed on the NUMA node nearest the GPU lands there, for every kind (pageable and
// registered through mbind, pinned under the thread's binding), and the copy through it is
// exact. Where the system will not bind (a container forbidding memory policies), it says why.
TEST(TransferGpu, HostMemoryLandsOnTheNumaNodeAsked) {
  MEMSCOPE_REQUIRE_GPU();
  int device = 0;
  MEMSCOPE_CUDA_CALL(cudaGetDevice(&device));
  char bus[32] = {};
  MEMSCOPE_CUDA_CALL(cudaDeviceGetPCIBusId(bus, sizeof bus, device));
  const auto near = tr::near_node(tr::read_numa_topology(), tr::read_host_link(bus, false).numa_node);
  if (near.node < 0) GTEST_SKIP() << near.why;
  for (auto kind :
       {tr::host_kind::pageable, tr::host_kind::registered, tr::host_kind::pinned, tr::host_kind::write_combined}) {
    constexpr std::size_t bytes = (std::size_t{1} << 20) + 13;
    try {
      tr::host_memory h(kind, bytes, near.node);
      std::vector<std::uint8_t> want(bytes);
      for (std::size_t i = 0; i < bytes; ++i) want[i] = static_cast<std::uint8_t>(i * 7 + 3);
      std::memcpy(h.data(), want.data(), bytes);  // first touch: pageable pages are allocated here
      EXPECT_EQ(h.first_page_node(), near.node) << tr::to_string(kind) << " (" << near.why << ")";
      device_buffer<std::uint8_t> d(bytes);
      MEMSCOPE_CUDA_CALL(cudaMemcpy(d.data(), h.data(), bytes, cudaMemcpyHostToDevice));
      EXPECT_EQ(d.to_host(), want) << tr::to_string(kind);
    } catch (const tr::numa_error& e) {
      GTEST_SKIP() << e.what();
    }
  }
}
