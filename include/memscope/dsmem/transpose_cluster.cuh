#pragma once
// Matrix transpose through distributed shared memory, the seed's "about 2x a global-memory
// transpose" claim made concrete: a cluster of C blocks transposes one (32C x 32C) super-tile.
// Block r reads 32 input rows of it (coalesced, 32C floats each) into its own shared memory;
// after cluster.sync() it writes 32 output rows of 32C floats, gathering each from the block
// that holds the matching input row: 4-byte remote reads, one peer per warp instruction.
// Compared in the `dsmem` suite with the naive transpose and the best shared-memory one.

#include "memscope/core/cuda_check.hpp"
#include "memscope/core/launch.cuh"
#include "memscope/dsmem/cluster_launch.cuh"

#include <cooperative_groups.h>

#include <cstddef>
#include <stdexcept>
#include <string>

namespace memscope::dsmem {

namespace cg = cooperative_groups;

struct transpose_policy {
  static constexpr int tile = 32;
  static constexpr int rows_per_pass = 8;  // 32 x 8 threads
  static constexpr int threads = tile * rows_per_pass;
  /// Shared memory per block: 32 rows of 32C floats, padded by one so column reads spread
  /// over the banks.
  static constexpr std::size_t smem_bytes(int cluster) {
    return static_cast<std::size_t>(tile) * (tile * cluster + 1) * sizeof(float);
  }
};

/// in: rows x cols (row-major); out: cols x rows. grid.x = C x super-tiles across, grid.y = super-tiles down.
/// A template so that every .cu including this header may define it (no ODR clash).
template <int = 0>
__global__ void __launch_bounds__(transpose_policy::threads)
    transpose_cluster_kernel(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  extern __shared__ __align__(16) float memscope_transpose_smem[];
  constexpr int tile = transpose_policy::tile;
  cg::cluster_group cluster = cg::this_cluster();
  const int c = static_cast<int>(cluster.num_blocks());
  const int r = static_cast<int>(cluster.block_rank());
  const int span = tile * c;  // super-tile edge
  const int pitch = span + 1;
  const long long row0 = static_cast<long long>(blockIdx.y) * span;      // first input row of the super-tile
  const long long col0 = static_cast<long long>(blockIdx.x / c) * span;  // first input column
  float* own = memscope_transpose_smem;

  for (int i = threadIdx.y; i < tile; i += transpose_policy::rows_per_pass) {
    const long long row = row0 + r * tile + i;
    for (int j = threadIdx.x; j < span; j += tile) {
      const long long col = col0 + j;
      if (row < rows && col < cols) own[i * pitch + j] = in[row * cols + col];
    }
  }
  cluster.sync();  // every block's rows are in place before anyone gathers them

  // Output row (col0 + r*32 + i) is input column (col0 + r*32 + i); its element j comes from
  // input row row0 + j, which block j / 32 holds at [j % 32][r*32 + i].
  for (int i = threadIdx.y; i < tile; i += transpose_policy::rows_per_pass) {
    const long long out_row = col0 + r * tile + i;
    if (out_row >= cols) break;
    for (int j = threadIdx.x; j < span; j += tile) {
      const long long out_col = row0 + j;
      if (out_col >= rows) break;
      const float* holder = cluster.map_shared_rank(own, static_cast<unsigned>(j / tile));
      out[out_row * rows + out_col] = holder[(j % tile) * pitch + r * tile + i];
    }
  }
  cluster.sync();  // peers may still be reading this block's rows
#else
  __trap();
#endif
}

/// Transposes rows x cols floats with clusters of `cluster` blocks (1, 2, 4, 8 or 16).
/// Throws std::invalid_argument for a cluster this GPU cannot co-schedule.
inline void transpose_cluster(const float* in, float* out, int rows, int cols, int cluster, cudaStream_t stream) {
  if (rows <= 0 || cols <= 0) return;
  const std::size_t smem = transpose_policy::smem_bytes(cluster);
  if (max_active_clusters(transpose_cluster_kernel<0>, transpose_policy::threads, cluster, smem) == 0)
    throw std::invalid_argument("transpose_cluster: clusters of " + std::to_string(cluster) +
                                " blocks cannot be co-scheduled on this GPU");
  const long long span = static_cast<long long>(transpose_policy::tile) * cluster;
  const long long across = (cols + span - 1) / span, down = (rows + span - 1) / span;
  if (down > 65535) throw std::invalid_argument("transpose_cluster: more than 65535 super-tile rows");
  launch_cluster(
      transpose_cluster_kernel<0>, dim3(static_cast<unsigned>(across * cluster), static_cast<unsigned>(down)),
      dim3(transpose_policy::tile, transpose_policy::rows_per_pass), cluster, smem, stream, in, out, rows, cols);
}

}  // namespace memscope::dsmem
