// pointer_chase.cuh: the latency ring is one cycle and every path ends where the host says.

#include "gpu/gpu_test.hpp"

#include "memscope/cache/cache_config.cuh"
#include "memscope/cache/cache_control.cuh"
#include "memscope/cache/pointer_chase.cuh"
#include "memscope/core/device_buffer.hpp"
#include "memscope/core/random.hpp"
#include "probes/sm_census.cuh"
#include "memscope/texture/texture_object.cuh"

#include <vector>

namespace lt = memscope::latency;
namespace tx = memscope::texture;
using memscope::device_buffer;

TEST(LatencyGpu, TheRingIsOneCycleAndEveryPathEndsWhereTheHostSays) {
  MEMSCOPE_REQUIRE_GPU();
  for (std::uint64_t slots : {2ull, 3ull, 31ull, 1000ull, 65537ull}) {
    const std::uint64_t seed = memscope::testing::fresh_seed();
    device_buffer<std::uint32_t> ring(slots * lt::policy::slot_words);
    ring.poison();
    lt::build_ring(ring.data(), slots, seed, nullptr);
    const auto h = ring.to_host();
    // Following the ring from its start visits every slot once, then returns to the start.
    std::vector<bool> seen(slots, false);
    std::uint32_t at = lt::ring_start(slots, seed);
    for (std::uint64_t k = 0; k < slots; ++k) {
      ASSERT_EQ(at % lt::policy::slot_words, 0u);
      ASSERT_FALSE(seen[at / lt::policy::slot_words]) << "slot revisited, slots=" << slots;
      seen[at / lt::policy::slot_words] = true;
      at = h[at];
    }
    EXPECT_EQ(at, lt::ring_start(slots, seed));
    const auto lim = tx::limits::query(0);
    auto tex = tx::linear_texture(ring.data(), ring.size(), {}, lim);
    device_buffer<unsigned long long> out(3);
    const unsigned iters = 777;
    const auto want = static_cast<unsigned long long>(lt::ring_position(slots, seed, iters));
    // Every path writes into freshly poisoned output, so none can pass on the previous one's answer.
    auto run = [&](const char* name, auto&& chase) {
      out.poison();
      chase();
      MEMSCOPE_CUDA_CALL(cudaDeviceSynchronize());
      EXPECT_EQ(out.to_host()[1], want) << name << " slots=" << slots;
    };
    const std::uint32_t start = lt::ring_start(slots, seed);
    run("default", [&] {
      lt::chase<lt::load_path::global_default>(ring.data(), 0, slots, start, iters, true, out.data(), nullptr);
    });
    run("cg",
        [&] { lt::chase<lt::load_path::global_cg>(ring.data(), 0, slots, start, iters, true, out.data(), nullptr); });
    run("ldg", [&] { lt::chase<lt::load_path::ldg>(ring.data(), 0, slots, start, iters, false, out.data(), nullptr); });
    run("texture", [&] {
      lt::chase<lt::load_path::texture>(ring.data(), tex.get(), slots, start, iters, true, out.data(), nullptr);
    });
    if (ring.bytes() <= 48 * 1024)  // shared memory holds the small rings only
      run("shared", [&] {
        lt::shared_chase(ring.data(), static_cast<std::uint32_t>(ring.size()), start, iters, out.data(), nullptr);
      });
  }
}

// Aimed at an SM, each chase runs there (the claim names it) and ends where the host says; the
// warm-up and the shared copy are done by that block alone.
TEST(LatencyGpu, AChaseAimedAtAnSmRunsThere) {
  MEMSCOPE_REQUIRE_GPU();
  const auto ids = memscope::sm_census(nullptr);
  ASSERT_FALSE(ids.empty());
  const std::uint64_t slots = 1009, seed = memscope::testing::fresh_seed();
  device_buffer<std::uint32_t> ring(slots * lt::policy::slot_words);
  lt::build_ring(ring.data(), slots, seed, nullptr);
  device_buffer<unsigned long long> out(4);
  const unsigned iters = 333;
  const std::uint32_t start = lt::ring_position(slots, seed, 17);
  const auto want = static_cast<unsigned long long>(lt::ring_position(slots, seed, 17 + iters));
  auto run = [&](const char* name, unsigned id, auto&& chase) {
    out.poison();
    MEMSCOPE_CUDA_CALL(cudaMemset(out.data() + 2, 0, 2 * sizeof(unsigned long long)));
    chase(memscope::sm_target{id, out.data() + 3});
    MEMSCOPE_CUDA_CALL(cudaDeviceSynchronize());
    const auto h = out.to_host();
    EXPECT_EQ(h[3], id + 1ull) << name << " SM " << id;
    EXPECT_EQ(h[1], want) << name << " SM " << id;
  };
  for (unsigned id : {ids.front(), ids.back()}) {
    run("cg", id, [&](memscope::sm_target on) {
      lt::chase<lt::load_path::global_cg>(ring.data(), 0, slots, start, iters, true, out.data(), nullptr, on);
    });
    run("default", id, [&](memscope::sm_target on) {
      lt::chase<lt::load_path::global_default>(ring.data(), 0, slots, start, iters, true, out.data(), nullptr, on);
    });
    run("shared", id, [&](memscope::sm_target on) {
      lt::shared_chase(ring.data(), static_cast<std::uint32_t>(ring.size()), start, iters, out.data(), nullptr, on);
    });
  }
  // No SM has this id: nothing runs, and the end word keeps its poison.
  out.poison();
  MEMSCOPE_CUDA_CALL(cudaMemset(out.data() + 2, 0, 2 * sizeof(unsigned long long)));
  lt::chase<lt::load_path::global_cg>(ring.data(), 0, slots, start, iters, true, out.data(), nullptr,
                                      memscope::sm_target{ids.back() + 4096, out.data() + 3});
  MEMSCOPE_CUDA_CALL(cudaDeviceSynchronize());
  EXPECT_EQ(out.to_host()[3], 0u);
  EXPECT_EQ(out.to_host()[1], ~0ull);
}
