#pragma once
// Matrix transpose out[c][r] = in[r][c] (row-major, any rows x cols): naive (coalesced reads,
// scattered writes), through a shared-memory tile (both sides coalesced, but the tile's column
// reads collide in one bank), the tile padded to 33 columns, and the tile XOR-swizzled.

#include "memscope/core/cuda_check.hpp"
#include "memscope/core/launch.cuh"
#include "memscope/shared/bank_model.hpp"

#include <cstddef>

namespace memscope::transpose {

struct policy {
  static constexpr int tile = 32;       // a warp covers one tile row
  static constexpr int block_rows = 8;  // 32 x 8 threads; each moves tile / block_rows = 4 elements
  static_assert(tile % block_rows == 0, "rows must divide the tile");
};

enum class variant { naive, tiled, padded, swizzled };

template <class T>
__global__ void __launch_bounds__(policy::tile * policy::block_rows)
    transpose_naive_kernel(const T* __restrict__ in, T* __restrict__ out, int rows, int cols) {
  const int c = blockIdx.x * policy::tile + threadIdx.x;
#pragma unroll
  for (int j = 0; j < policy::tile; j += policy::block_rows) {
    const int r = blockIdx.y * policy::tile + threadIdx.y + j;
    if (r < rows && c < cols) out[static_cast<std::size_t>(c) * rows + r] = in[static_cast<std::size_t>(r) * cols + c];
  }
}

/// Layout selects the tile's shape: naive pitch 32, padded pitch 33, swizzled pitch 32 with the
/// column XORed by the row (banks::tile_index), so a column read hits 32 different banks.
template <class T, banks::tile_layout Layout>
__global__ void __launch_bounds__(policy::tile * policy::block_rows)
    transpose_tiled_kernel(const T* __restrict__ in, T* __restrict__ out, int rows, int cols) {
  constexpr int pitch = Layout == banks::tile_layout::padded ? policy::tile + 1 : policy::tile;
  __shared__ T tile[policy::tile * pitch];
  const int bx = blockIdx.x * policy::tile, by = blockIdx.y * policy::tile;
#pragma unroll
  for (int j = 0; j < policy::tile; j += policy::block_rows) {
    const int r = by + threadIdx.y + j, c = bx + threadIdx.x;
    if (r < rows && c < cols)
      tile[banks::tile_index(Layout, threadIdx.y + j, threadIdx.x)] = in[static_cast<std::size_t>(r) * cols + c];
  }
  __syncthreads();
#pragma unroll
  for (int j = 0; j < policy::tile; j += policy::block_rows) {
    const int r = bx + threadIdx.y + j, c = by + threadIdx.x;  // r, c in the output (cols x rows)
    if (r < cols && c < rows)
      out[static_cast<std::size_t>(r) * rows + c] = tile[banks::tile_index(Layout, threadIdx.x, threadIdx.y + j)];
  }
}

/// out (cols x rows) = transpose of in (rows x cols).
template <class T>
void transpose(variant v, const T* in, T* out, int rows, int cols, cudaStream_t s) {
  if (rows <= 0 || cols <= 0) return;
  const dim3 block(policy::tile, policy::block_rows);
  const dim3 grid(static_cast<unsigned>(ceil_div(cols, policy::tile)), static_cast<unsigned>(ceil_div(rows, policy::tile)));
  if (grid.y > 65535) throw std::invalid_argument("transpose: more than 65535 x 32 rows");
  switch (v) {
    case variant::naive: transpose_naive_kernel<T><<<grid, block, 0, s>>>(in, out, rows, cols); break;
    case variant::tiled: transpose_tiled_kernel<T, banks::tile_layout::naive><<<grid, block, 0, s>>>(in, out, rows, cols); break;
    case variant::padded: transpose_tiled_kernel<T, banks::tile_layout::padded><<<grid, block, 0, s>>>(in, out, rows, cols); break;
    case variant::swizzled: transpose_tiled_kernel<T, banks::tile_layout::swizzled><<<grid, block, 0, s>>>(in, out, rows, cols); break;
  }
  MEMSCOPE_CHECK_LAUNCH("transpose kernel");
}

}  // namespace memscope::transpose
