#pragma once
// Matrix transpose out[c][r] = in[r][c] (row-major, any rows x cols): naive (coalesced reads,
// scattered writes), through a shared-memory tile (both sides coalesced, but the tile's column
// reads collide in one bank), the tile padded to 33 columns, and the tile XOR-swizzled; the last
// two also with 64 x 64 tiles.

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

enum class variant { naive, tiled, padded, swizzled, padded64, swizzled64 };

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

/// Layout selects the tile's shape: naive pitch Tile, padded pitch Tile + 1, swizzled pitch Tile
/// with the column XORed by the row (banks::tile_index), so a column read hits 32 banks.
/// A 32 x 8 block moves a Tile x Tile tile: Tile = 64 gives each thread 16 loads in flight.
template <class T, banks::tile_layout Layout, int Tile>
__global__ void __launch_bounds__(32 * policy::block_rows)
    transpose_tiled_kernel(const T* __restrict__ in, T* __restrict__ out, int rows, int cols) {
  static_assert(Tile % 32 == 0, "a warp covers 32 columns");
  constexpr int pitch = Layout == banks::tile_layout::padded ? Tile + 1 : Tile;
  __shared__ T tile[Tile * pitch];
  const int bx = blockIdx.x * Tile, by = blockIdx.y * Tile;
#pragma unroll
  for (int cx = 0; cx < Tile; cx += 32)
#pragma unroll
    for (int j = 0; j < Tile; j += policy::block_rows) {
      const int r = by + threadIdx.y + j, c = bx + cx + threadIdx.x;
      if (r < rows && c < cols)
        tile[banks::tile_index<Tile>(Layout, threadIdx.y + j, cx + threadIdx.x)] = in[static_cast<std::size_t>(r) * cols + c];
    }
  __syncthreads();
#pragma unroll
  for (int cx = 0; cx < Tile; cx += 32)
#pragma unroll
    for (int j = 0; j < Tile; j += policy::block_rows) {
      const int r = bx + threadIdx.y + j, c = by + cx + threadIdx.x;  // r, c in the output (cols x rows)
      if (r < cols && c < rows)
        out[static_cast<std::size_t>(r) * rows + c] = tile[banks::tile_index<Tile>(Layout, cx + threadIdx.x, threadIdx.y + j)];
    }
}

template <class T, banks::tile_layout Layout, int Tile>
void launch_tiled(const T* in, T* out, int rows, int cols, cudaStream_t s) {
  const dim3 grid(static_cast<unsigned>(ceil_div(cols, Tile)), static_cast<unsigned>(ceil_div(rows, Tile)));
  if (grid.y > 65535) throw std::invalid_argument("transpose: too many rows for the grid");
  transpose_tiled_kernel<T, Layout, Tile><<<grid, dim3(32, policy::block_rows), 0, s>>>(in, out, rows, cols);
}

/// out (cols x rows) = transpose of in (rows x cols).
template <class T>
void transpose(variant v, const T* in, T* out, int rows, int cols, cudaStream_t s) {
  if (rows <= 0 || cols <= 0) return;
  using banks::tile_layout;
  switch (v) {
    case variant::naive: {
      const dim3 grid(static_cast<unsigned>(ceil_div(cols, policy::tile)), static_cast<unsigned>(ceil_div(rows, policy::tile)));
      if (grid.y > 65535) throw std::invalid_argument("transpose: too many rows for the grid");
      transpose_naive_kernel<T><<<grid, dim3(policy::tile, policy::block_rows), 0, s>>>(in, out, rows, cols);
      break;
    }
    case variant::tiled: launch_tiled<T, tile_layout::naive, 32>(in, out, rows, cols, s); break;
    case variant::padded: launch_tiled<T, tile_layout::padded, 32>(in, out, rows, cols, s); break;
    case variant::swizzled: launch_tiled<T, tile_layout::swizzled, 32>(in, out, rows, cols, s); break;
    case variant::padded64: launch_tiled<T, tile_layout::padded, 64>(in, out, rows, cols, s); break;
    case variant::swizzled64: launch_tiled<T, tile_layout::swizzled, 64>(in, out, rows, cols, s); break;
  }
  MEMSCOPE_CHECK_LAUNCH("transpose kernel");
}

}  // namespace memscope::transpose
