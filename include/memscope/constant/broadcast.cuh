#pragma once
// The constant cache's broadcast and serialisation, beside the other read paths.
//
// warp_load_kernel: each warp issues `iters` dependent loads in which its lanes read k distinct
// 4-byte words ((lane % k) consecutive words). The constant cache serves one address per cycle,
// so it should take k times as long as a broadcast; __ldg and plain global loads fetch one
// 128-byte line whatever k; shared memory puts the k words in k different banks.
// The tables hold zeros, and each load's index adds the previous load's value, so no load can
// be hoisted or removed.
//
// constant_chase_kernel: one thread chases a random cycle through `ws` bytes of the constant
// bank, one 64-byte line per step: latency per load as the working set outgrows each level.
//
// The __constant__ table and everything using it live in an anonymous namespace (see stencil.cuh).

#include "memscope/constant/symbols.cuh"
#include "memscope/cache/chase_ring.hpp"
#include "memscope/core/cuda_check.hpp"
#include "memscope/core/sm_id.cuh"

#include <cstdint>
#include <vector>

namespace memscope::broadcast {

struct policy {
  static constexpr int table_words = 16384;  // 64 KB of int: the whole constant bank
  static constexpr int shared_words = 1024;
  static constexpr int line_words = 16;  // 64-byte steps for the chase
};

enum class space { constant, ldg, shared, global };

namespace {

MEMSCOPE_CONSTANT_ARRAY(int, c_table, policy::table_words);

template <space S>
__device__ __forceinline__ int load(const int* g, const int* s, unsigned i) {
  if constexpr (S == space::constant) return c_table[i];
  else if constexpr (S == space::ldg) return __ldg(g + i);
  else if constexpr (S == space::shared) return s[i];
  else return g[i];
}

/// One warp per block. cycles[blockIdx.x] = clock64 cycles for `iters` warp-loads.
template <space S>
__global__ void warp_load_kernel(const int* g_table, unsigned k, unsigned iters, unsigned long long* cycles,
                                 int* sink) {
  __shared__ int s_table[policy::shared_words];
  // The shared space holds the head of the global table, so every space reads the same values.
  for (int i = threadIdx.x; i < policy::shared_words; i += blockDim.x) s_table[i] = g_table[i];
  __syncwarp();
  const unsigned lane = threadIdx.x & 31u;
  const unsigned base = lane % k;
  int zero = 0, acc = 0;
  const long long t0 = clock64();
  for (unsigned it = 0; it < iters; ++it) {
    zero = load<S>(g_table, s_table, base + static_cast<unsigned>(zero));
    acc += zero;
  }
  const long long t1 = clock64();
  if (threadIdx.x == 0) cycles[blockIdx.x] = static_cast<unsigned long long>(t1 - t0);
  sink[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

/// Thread 0 follows c_table[i] from index 0 for `iters` steps; *last receives the final index.
/// Where `warm`, it first follows the same `iters` steps untimed, which pulls the set into the
/// constant caches of its SM.
__global__ void constant_chase_kernel(unsigned iters, bool warm, unsigned long long* cycles, int* last, sm_target on) {
  if (!claim_sm(on) || threadIdx.x != 0) return;
  int i = 0;
  if (warm) {
    for (unsigned it = 0; it < iters; ++it) i = c_table[i];
    if (i == -1) *last = i;  // never: the table holds indices; keeps the warm-up loads
    i = 0;
  }
  const long long t0 = clock64();
  for (unsigned it = 0; it < iters; ++it) i = c_table[i];
  const long long t1 = clock64();
  *cycles = static_cast<unsigned long long>(t1 - t0);
  *last = i;
}

/// Fills the constant table: zeros for warp_load_kernel.
inline void upload_zeros() { symbols::to_symbol(c_table, std::vector<int>(policy::table_words, 0)); }

/// The check's table: word i holds i, so lane l's chain reads l%k, 2(l%k), 3(l%k), ... and its
/// sum names the addresses it visited (expected_warp_load_sum). The same table goes to the
/// constant bank and to `g_table` (whose head warp_load_kernel copies to shared memory).
inline void upload_index_table(int* g_table) {
  std::vector<int> t(policy::table_words);
  for (int i = 0; i < policy::table_words; ++i) t[i] = i;
  symbols::to_symbol(c_table, t);
  MEMSCOPE_CUDA_CALL(cudaMemcpy(g_table, t.data(), t.size() * sizeof(int), cudaMemcpyHostToDevice));
}

/// Longest chain the index table supports in every space: lane 31 reads up to 31 * iters, which
/// must stay inside the shared copy.
inline constexpr unsigned max_index_iters = policy::shared_words / 32;

/// What warp_load_kernel leaves in lane `lane`'s sink over the index table.
inline int expected_warp_load_sum(unsigned lane, unsigned k, unsigned iters) {
  const unsigned base = lane % k;
  return static_cast<int>(base * (iters * (iters + 1) / 2));
}

/// A random cyclic permutation of the 64-byte lines in the first `ws_bytes` of the table.
/// Returns where the chase stands after `iters` steps from 0, for the check.
inline int upload_chase(std::size_t ws_bytes, std::uint64_t seed, unsigned iters) {
  const std::size_t lines = ws_bytes / (policy::line_words * sizeof(int));
  std::vector<std::uint32_t> ring = chase_ring(lines, policy::line_words, seed);
  ring.resize(policy::table_words, 0);
  symbols::to_symbol(c_table, std::vector<int>(ring.begin(), ring.end()));
  return static_cast<int>(chase_position(ring, 0, iters));
}

template <space S>
void warp_loads(const int* g_table, unsigned k, unsigned iters, unsigned blocks, unsigned long long* cycles, int* sink,
                cudaStream_t s) {
  warp_load_kernel<S><<<blocks, 32, 0, s>>>(g_table, k, iters, cycles, sink);
  MEMSCOPE_CHECK_LAUNCH("warp_load_kernel");
}

inline void constant_chase(unsigned iters, unsigned long long* cycles, int* last, cudaStream_t s, bool warm = false,
                           sm_target on = {}) {
  constant_chase_kernel<<<target_grid(on, constant_chase_kernel, 32, 0), 32, 0, s>>>(iters, warm, cycles, last, on);
  MEMSCOPE_CHECK_LAUNCH("constant_chase_kernel");
}

}  // namespace
}  // namespace memscope::broadcast
