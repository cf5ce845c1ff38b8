#pragma once
// The canonical k-mer of every window of a text on the GPU: the first step of each GPU
// counter. The text is the reads joined by a separator byte (joined_bases, reads.hpp), so a
// window that crosses from one read into the next holds the separator and, like a window
// holding N, is no k-mer. Window i is text[i, i + k); a text of n bytes has n - k + 1 windows.

#include "memscope/core/cuda_check.hpp"
#include "memscope/core/launch.cuh"
#include "memscope/kmer/kmer.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace memscope::kmer {

struct encode_policy {
  static constexpr int block_threads = 256;
  /// Windows each thread codes per tile: a block stages block_threads * items + k - 1 bytes of
  /// the text in shared memory once, then every thread reads its windows' bytes from there.
  static constexpr int items = 4;
  static constexpr int tile_windows = block_threads * items;
};

/// Calls sink(window, code) for every window of text[0, n), a tile of encode_policy::tile_windows
/// windows per block and trip. Every thread of the block must call it (it synchronises).
/// `tile` is shared memory of encode_tile_bytes(k) bytes.
template <class Code, class Sink>
__device__ void for_each_window(const char* text, std::size_t n, int k, char* tile, Sink&& sink) {
  constexpr int T = encode_policy::tile_windows;
  const std::size_t windows = text_windows(n, k);
  for (std::size_t first = static_cast<std::size_t>(blockIdx.x) * T; first < windows;
       first += static_cast<std::size_t>(gridDim.x) * T) {
    const std::size_t bytes = (windows - first < T ? windows - first : T) + static_cast<std::size_t>(k) - 1;
    __syncthreads();  // the last trip's reads of the tile are done
    for (std::size_t b = threadIdx.x; b < bytes; b += blockDim.x) tile[b] = text[first + b];
    __syncthreads();
    for (int w = threadIdx.x; w < T && first + w < windows; w += blockDim.x)
      sink(first + w, window_code<Code>(tile + w, k));
  }
}

MEMSCOPE_HD constexpr std::size_t encode_tile_bytes(int k) {
  return static_cast<std::size_t>(encode_policy::tile_windows) + static_cast<std::size_t>(k) - 1;
}

template <class Code>
__global__ void __launch_bounds__(encode_policy::block_threads)
    encode_kmers_kernel(const char* text, std::size_t n, int k, Code* codes) {
  extern __shared__ char tile[];
  for_each_window<Code>(text, n, k, tile, [&](std::size_t i, Code c) { codes[i] = c; });
}

inline void check_k(int k, int widest) {
  if (k < 1 || k > widest)
    throw std::invalid_argument("k must be 1 to " + std::to_string(widest) + " for this code type, not " +
                                std::to_string(k));
}

/// codes[i] = the canonical code of window i of d_text[0, n) (no_kmer<Code> where it holds
/// another byte), for the text_windows(n, k) windows; Code is 32-bit (k <= 16) or 64-bit.
template <class Code>
void encode_kmers(const char* d_text, std::size_t n, int k, Code* d_codes, cudaStream_t stream) {
  static_assert(std::is_same_v<Code, std::uint32_t> || std::is_same_v<Code, std::uint64_t>,
                "k-mer codes are 32- or 64-bit unsigned");
  check_k(k, max_k_for<Code>);
  const std::size_t windows = text_windows(n, k);
  if (windows == 0) return;
  const std::size_t smem = encode_tile_bytes(k);
  const unsigned grid = persistent_grid(encode_kmers_kernel<Code>, encode_policy::block_threads, smem, windows,
                                        encode_policy::tile_windows);
  encode_kmers_kernel<Code><<<grid, encode_policy::block_threads, smem, stream>>>(d_text, n, k, d_codes);
  MEMSCOPE_CHECK_LAUNCH("encode_kmers_kernel");
}

}  // namespace memscope::kmer
