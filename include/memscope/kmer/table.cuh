#pragma once
// Counting k-mers of any k up to 32 in a hash table in global memory: each window's canonical
// code is computed from the text (encode.cuh's tile) and added to its slot in one pass; no code
// array is written or read. Open addressing with linear probing; a slot holds its key and its
// count side by side (16 bytes), so an insert touches one 32-byte sector where it finds its key
// at the first probe. Keys are claimed with atomicCAS and never change afterwards.

#include "memscope/core/cuda_check.hpp"
#include "memscope/core/device_buffer.hpp"
#include "memscope/core/launch.cuh"
#include "memscope/kmer/encode.cuh"
#include "memscope/kmer/table_plan.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace memscope::kmer {

struct table_slot {
  unsigned long long key;    // a canonical code, or no_kmer<std::uint64_t> while free
  unsigned long long count;  // occurrences of key
};

struct table_view {
  table_slot* slots = nullptr;
  std::uint64_t mask = 0;              // slots - 1 (a power of two)
  unsigned long long* lost = nullptr;  // k-mers that found no free slot (a table too small: 0 when sized here)
};

__device__ inline void table_add(table_view t, std::uint64_t code) {
  constexpr unsigned long long free_key = no_kmer<std::uint64_t>;
  std::uint64_t s = slot_hash(code) & t.mask;
  for (std::uint64_t probe = 0; probe <= t.mask; ++probe, s = (s + 1) & t.mask) {
    unsigned long long key = t.slots[s].key;  // a stale free key only sends us to the CAS
    if (key == free_key) key = atomicCAS(&t.slots[s].key, free_key, static_cast<unsigned long long>(code));
    if (key == free_key || key == code) {
      atomicAdd(&t.slots[s].count, 1ull);
      return;
    }
  }
  atomicAdd(t.lost, 1ull);
}

/// The slot of `code`, or -1 where it is not in the table.
__device__ inline long long table_find(table_view t, std::uint64_t code) {
  std::uint64_t s = slot_hash(code) & t.mask;
  for (std::uint64_t probe = 0; probe <= t.mask; ++probe, s = (s + 1) & t.mask) {
    const unsigned long long key = t.slots[s].key;
    if (key == code) return static_cast<long long>(s);
    if (key == no_kmer<std::uint64_t>) return -1;
  }
  return -1;
}

template <int = 0>
__global__ void __launch_bounds__(table_policy::block_threads) clear_table_kernel(table_view t) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i <= t.mask; i += stride)
    t.slots[i] = table_slot{no_kmer<std::uint64_t>, 0};
  if (blockIdx.x == 0 && threadIdx.x == 0) *t.lost = 0;
}

template <int = 0>
__global__ void __launch_bounds__(table_policy::block_threads)
    count_table_kernel(const char* text, std::size_t n, int k, table_view t) {
  extern __shared__ char tile[];
  for_each_window<std::uint64_t>(text, n, k, tile, [&](std::size_t, std::uint64_t code) {
    if (code != no_kmer<std::uint64_t>) table_add(t, code);
  });
}

/// A table of counted k-mers on the GPU.
class kmer_table {
 public:
  explicit kmer_table(std::size_t slots) : slots_(slots), lost_(1) {
    if (slots == 0 || (slots & (slots - 1)) != 0)
      throw std::invalid_argument("a k-mer table's slots must be a power of two, not " + std::to_string(slots));
  }
  table_view view() { return {slots_.data(), slots_.size() - 1, lost_.data()}; }
  std::size_t slots() const { return slots_.size(); }
  std::size_t bytes() const { return slots_.bytes(); }
  const table_slot* data() const { return slots_.data(); }
  /// k-mers that found no free slot in the last count (0 for a table sized by table_slots_for).
  unsigned long long lost() const { return lost_.to_host()[0]; }
  /// The counted k-mers, copied to the host: codes[i] occurred counts[i] times (slot order).
  void entries(std::vector<std::uint64_t>& codes, std::vector<unsigned long long>& counts) const {
    codes.clear();
    counts.clear();
    for (const table_slot& s : slots_.to_host())
      if (s.key != no_kmer<std::uint64_t>) {
        codes.push_back(s.key);
        counts.push_back(s.count);
      }
  }

 private:
  device_buffer<table_slot> slots_;
  device_buffer<unsigned long long> lost_;
};

/// Counts every canonical k-mer (k 1 to 32) of d_text[0, n) into `table`, emptied first.
inline void count_kmers_in_table(const char* d_text, std::size_t n, int k, kmer_table& table, cudaStream_t stream) {
  check_k(k, max_k);
  const table_view v = table.view();
  const unsigned clear_grid =
      persistent_grid(clear_table_kernel<>, table_policy::block_threads, 0, table.slots(), table_policy::block_threads);
  clear_table_kernel<><<<clear_grid, table_policy::block_threads, 0, stream>>>(v);
  MEMSCOPE_CHECK_LAUNCH("clear_table_kernel");
  const std::size_t windows = text_windows(n, k);
  if (windows == 0) return;
  const std::size_t smem = encode_tile_bytes(k);
  const unsigned grid =
      persistent_grid(count_table_kernel<>, table_policy::block_threads, smem, windows, encode_policy::tile_windows);
  count_table_kernel<><<<grid, table_policy::block_threads, smem, stream>>>(d_text, n, k, v);
  MEMSCOPE_CHECK_LAUNCH("count_table_kernel");
}

}  // namespace memscope::kmer
