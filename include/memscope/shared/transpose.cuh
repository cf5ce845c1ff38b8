#pragma once
// Matrix transpose out[c][r] = in[r][c] (row-major, any rows x cols, packed or with leading
// dimensions of their own: pitched rows): naive (coalesced reads, scattered writes), through a
// shared-memory tile (both sides coalesced, but the tile's column reads collide in one bank),
// the tile padded to 33 columns, and the tile XOR-swizzled; the last two also with 64 x 64
// tiles; 64 x 64 tiles whose output rows are written in whole 32-byte sectors however the rows
// are aligned (sector64); and 64 x 64 tiles moved as 16-byte vectors on both sides (vector64).

#include "memscope/core/cuda_check.hpp"
#include "memscope/core/launch.cuh"
#include "memscope/shared/bank_model.hpp"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>

namespace memscope::transpose {

struct policy {
  static constexpr int tile = 32;       // a warp covers one tile row
  static constexpr int block_rows = 8;  // 32 x 8 threads; each moves tile / block_rows = 4 elements
  static_assert(tile % block_rows == 0, "rows must divide the tile");
};

enum class variant { naive, tiled, padded, swizzled, padded64, swizzled64, sector64, vector64 };

/// The grid of tile_rows x tile_cols tiles over a rows x cols input.
inline dim3 tile_grid(int rows, int cols, int tile_rows, int tile_cols) {
  const dim3 grid(static_cast<unsigned>(ceil_div(cols, tile_cols)), static_cast<unsigned>(ceil_div(rows, tile_rows)));
  if (grid.y > 65535) throw std::invalid_argument("transpose: too many rows for the grid");
  return grid;
}

/// Where the elements lie: row r of the input at in + r * ld_in, row c of the output at
/// out + c * ld_out (packed: ld_in = cols, ld_out = rows; pitched: more, the padding never
/// touched).
struct leading_dims {
  std::size_t in = 0, out = 0;
};

template <class T>
__global__ void __launch_bounds__(policy::tile* policy::block_rows)
    transpose_naive_kernel(const T* __restrict__ in, T* __restrict__ out, int rows, int cols, leading_dims ld) {
  const int c = blockIdx.x * policy::tile + threadIdx.x;
#pragma unroll
  for (int j = 0; j < policy::tile; j += policy::block_rows) {
    const int r = blockIdx.y * policy::tile + threadIdx.y + j;
    if (r < rows && c < cols)
      out[static_cast<std::size_t>(c) * ld.out + r] = in[static_cast<std::size_t>(r) * ld.in + c];
  }
}

/// Layout selects the tile's shape: naive pitch Tile, padded pitch Tile + 1, swizzled pitch Tile
/// with the column XORed by the row (banks::tile_index), so a column read hits 32 banks.
/// A 32 x 8 block moves a Tile x Tile tile: Tile = 64 gives each thread 16 loads in flight.
template <class T, banks::tile_layout Layout, int Tile>
__global__ void __launch_bounds__(32 * policy::block_rows)
    transpose_tiled_kernel(const T* __restrict__ in, T* __restrict__ out, int rows, int cols, leading_dims ld) {
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
        tile[banks::tile_index<Tile>(Layout, threadIdx.y + j, cx + threadIdx.x)] =
            in[static_cast<std::size_t>(r) * ld.in + c];
    }
  __syncthreads();
#pragma unroll
  for (int cx = 0; cx < Tile; cx += 32)
#pragma unroll
    for (int j = 0; j < Tile; j += policy::block_rows) {
      const int r = bx + threadIdx.y + j, c = by + cx + threadIdx.x;  // r, c in the output (cols x rows)
      if (r < cols && c < rows)
        out[static_cast<std::size_t>(r) * ld.out + c] =
            tile[banks::tile_index<Tile>(Layout, cx + threadIdx.x, threadIdx.y + j)];
    }
}

template <class T, banks::tile_layout Layout, int Tile>
void launch_tiled(const T* in, T* out, int rows, int cols, leading_dims ld, cudaStream_t s) {
  transpose_tiled_kernel<T, Layout, Tile>
      <<<tile_grid(rows, cols, Tile, Tile), dim3(32, policy::block_rows), 0, s>>>(in, out, rows, cols, ld);
}

/// The block orders of the vector transpose (vector_policy's `Band`; a positive Band is a band
/// of that many tile rows, consecutive blocks taking the tiles below each other).
namespace block_order {
constexpr int rows = 0;       // consecutive blocks along a tile row: reads in long runs, writes scattered
constexpr int diagonal = -1;  // consecutive blocks from every tile row and column
// Consecutive blocks down a whole tile column: the blocks running at once write long runs of
// few output rows and read short pieces of many input rows, which is faster than along rows
// (writes suffer more from scatter than reads), except where the input's row pitch is a
// multiple of 128 KiB: the many rows read at once then share every address bit up to bit 16
// and fall on few DRAM channels (docs/tuning.md, "Transpose block order").
constexpr int columns = -2;
// Down tile columns, consecutive tile columns taken in turn from column_regions(pitch)
// regions of the matrix's width, so where the input pitch is a multiple of 128 KiB the rows
// read at once sit 64 KiB apart in their rows (as in a 64 KiB-pitch matrix), which recovers
// most of what `columns` and `rows` lose there (docs/tuning.md, "Transpose block order").
// Elsewhere the same as `columns`.
constexpr int regions = -3;
}  // namespace block_order

/// log2 of the regions block_order::regions interleaves for an input row pitch in bytes: the
/// largest power of two <= pitch / 64 KiB where the pitch is a multiple of 128 KiB, else 0
/// (one region). A power of two, so a block finds its tile with shifts and masks: a division
/// by a run-time count there costs a measurable share of the transpose.
inline int column_region_shift(std::size_t ld_in_bytes) {
  constexpr std::size_t k64 = std::size_t{64} << 10;
  if (ld_in_bytes == 0 || ld_in_bytes % (2 * k64) != 0) return 0;
  const std::size_t q = ld_in_bytes / k64;
  int shift = 0;
  while ((q >> (shift + 1)) != 0) ++shift;
  return shift;
}
inline int column_regions(std::size_t ld_in_bytes) { return 1 << column_region_shift(ld_in_bytes); }

/// Tiles of 4-byte elements moved as 16-byte vectors on both sides. A tile is TileRows input
/// rows x TileCols input columns; a warp reads whole 16-byte chunks of input rows and writes
/// StoreRun bytes (128: 8 chunks of each of 4 output rows; 256: 16 chunks of each of 2) per
/// instruction, each thread with `passes` 16-byte loads in flight, so the transpose issues a
/// quarter of the scalar kernels' memory instructions. The tile holds 16-byte chunks, chunk j
/// of row r at j ^ (r / 4 % 8): a quarter-warp's chunk stores cover 32 banks, and a warp's
/// column reads (8 output chunks x 4 columns) 32 different banks (16 x 2 with 256-byte runs:
/// two lanes a bank). `Band` picks the order the blocks take the tiles in (block_order): along
/// tile rows, down bands of Band tile rows, diagonally, down whole tile columns, or down tile
/// columns taken in turn from regions of the width (block_order::regions). `Streaming`
/// marks loads and stores evict-first. Rows whose vectors could not be 16-byte aligned (a
/// leading dimension not a multiple of 4, a misaligned base) go to sector64 instead
/// (launch_vector); the matrix's ragged edges move element by element.
template <int TileRows, int TileCols, int Threads, int Band = block_order::rows, bool Streaming = true,
          int StoreRun = 128>
struct vector_policy {
  static constexpr int tile_rows = TileRows, tile_cols = TileCols, threads = Threads, band = Band;
  static constexpr bool streaming = Streaming;
  static constexpr int chunks = tile_cols / 4;  // 16-byte chunks per input tile row
  static constexpr int load_passes = tile_rows * chunks / threads;
  static constexpr int run_chunks = StoreRun / 16;             // a warp's chunks of one output row
  static constexpr int run_rows = 32 / run_chunks;             // output rows a warp writes at once
  static constexpr int q_groups = tile_rows / 4 / run_chunks;  // runs per output tile row
  static constexpr int store_passes = load_passes;             // the same chunks, transposed
  // Four chunks a thread fit 32 registers, a full SM of threads; more would spill under that
  // bound (8 chunks hold 32 registers alone), so they leave the count to the compiler.
  static constexpr int blocks_per_sm = load_passes <= 4 ? 2048 / threads : 1;
  static_assert(StoreRun == 128 || StoreRun == 256, "a warp writes runs of 8 or 16 chunks");
  static_assert(tile_rows % (4 * run_chunks) == 0 && tile_cols % 32 == 0, "whole runs per output tile row");
  static_assert(threads % chunks == 0 && (tile_rows * chunks) % threads == 0, "whole tile rows per pass");
  static_assert(threads % 32 == 0 && (threads / 32) % q_groups == 0, "a pass's warps cover whole output tile rows");
};

/// The library's vector transpose (the `vector64` variant): 64 x 64 tiles, 512 threads, 256-byte
/// output runs, blocks down tile columns, taken from 64 KiB regions in turn where the input
/// pitch is a multiple of 128 KiB (block_order::regions). Chosen by transpose/vector_tiles. No
/// evict-first hints: they helped only a warm re-run on the kernel's own L2-resident data, cost
/// large matrices from an emptied or dirty L2, and gave the next kernel nothing (docs/tuning.md,
/// "Transpose tile").
using default_vector_policy = vector_policy<64, 64, 512, block_order::regions, false, 256>;

/// The tile (tx, ty) this block takes when the blocks take tiles in `Order` (block_order);
/// `region_shift`: column_region_shift of the input pitch (block_order::regions only).
template <int Order>
__device__ __forceinline__ void tile_of(int& tx, int& ty, int region_shift) {
  if constexpr (Order == block_order::rows) {
    tx = static_cast<int>(blockIdx.x);
    ty = static_cast<int>(blockIdx.y);
  } else {
    const int tiles_x = static_cast<int>(gridDim.x), tiles_y = static_cast<int>(gridDim.y);
    const int b = static_cast<int>(blockIdx.y) * tiles_x + static_cast<int>(blockIdx.x);
    if constexpr (Order == block_order::columns || Order == block_order::regions) {
      // The k-th tile column taken is tile column k / regions of region k % regions; the
      // first tiles_x % regions regions are one tile column wider, so every tile is taken once.
      // `columns` is one region (the kernel passes a constant 0 shift, which folds this away).
      ty = b % tiles_y;
      const int k = b / tiles_y, mask = (1 << region_shift) - 1, r = k & mask;
      tx = r * (tiles_x >> region_shift) + min(r, tiles_x & mask) + (k >> region_shift);
    } else if constexpr (Order == block_order::diagonal) {
      // The blocks running at once (consecutive ids) take tiles from every tile row and
      // column, so their reads and their writes both spread over the whole matrix.
      ty = b % tiles_y;
      tx = (b / tiles_y + ty) % tiles_x;
    } else {
      static_assert(Order > 0, "a band is a positive number of tile rows");
      const int band = b / (Order * tiles_x), in_band = b % (Order * tiles_x);
      const int band_rows = min(Order, tiles_y - band * Order);
      ty = band * Order + in_band % band_rows;
      tx = in_band / band_rows;
    }
  }
}

/// `region_shift`: column_region_shift of the input pitch, found once by the launcher (a
/// per-block computation of it cost every block a few instructions on the hot path).
template <class T, class P>
__global__ void __launch_bounds__(P::threads, P::blocks_per_sm)
    transpose_vector_kernel(const T* __restrict__ in, T* __restrict__ out, int rows, int cols, leading_dims ld,
                            int region_shift) {
  static_assert(sizeof(T) == 4, "16-byte chunks of four 4-byte elements");
  __shared__ uint4 tile[P::tile_rows][P::chunks];
  int tx, ty;
  tile_of<P::band>(tx, ty, P::band == block_order::regions ? region_shift : 0);
  const int bx = tx * P::tile_cols, by = ty * P::tile_rows;
  const int t = threadIdx.x;
  uint4 v[P::load_passes];
#pragma unroll
  for (int i = 0; i < P::load_passes; ++i) {
    const int r = t / P::chunks + i * (P::threads / P::chunks), j = t % P::chunks;
    const int gr = by + r, gc = bx + 4 * j;
    v[i] = make_uint4(0, 0, 0, 0);
    if (gr < rows) {
      const T* src = in + static_cast<std::size_t>(gr) * ld.in + gc;
      if (gc + 3 < cols) {
        v[i] = P::streaming ? __ldcs(reinterpret_cast<const uint4*>(src)) : *reinterpret_cast<const uint4*>(src);
      } else {
        unsigned* e = &v[i].x;
#pragma unroll
        for (int k = 0; k < 4; ++k)
          if (gc + k < cols) std::memcpy(e + k, src + k, 4);
      }
    }
  }
#pragma unroll
  for (int i = 0; i < P::load_passes; ++i) {
    const int r = t / P::chunks + i * (P::threads / P::chunks), j = t % P::chunks;
    tile[r][j ^ (r / 4 % 8)] = v[i];
  }
  __syncthreads();
  // Unit u: output chunk q (elements by + 4q..4q+3) of output row bx + c; a warp takes
  // run_rows columns x run_chunks chunks.
#pragma unroll
  for (int i = 0; i < P::store_passes; ++i) {
    const int w = i * (P::threads / 32) + t / 32, lane = t % 32;
    const int q = (w % P::q_groups) * P::run_chunks + lane % P::run_chunks;
    const int c = (w / P::q_groups) * P::run_rows + lane / P::run_chunks;
    const int oc = bx + c, orow = by + 4 * q;
    if (oc >= cols || orow >= rows) continue;
    uint4 o;
    unsigned* e = &o.x;
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      const int r = 4 * q + k;
      e[k] = reinterpret_cast<const unsigned*>(&tile[r][(c / 4) ^ (r / 4 % 8)])[c % 4];
    }
    T* dst = out + static_cast<std::size_t>(oc) * ld.out + orow;
    if (orow + 3 < rows) {
      if constexpr (P::streaming) __stcs(reinterpret_cast<uint4*>(dst), o);
      else *reinterpret_cast<uint4*>(dst) = o;
    } else {
#pragma unroll
      for (int k = 0; k < 4; ++k)
        if (orow + k < rows) std::memcpy(dst + k, e + k, 4);
    }
  }
}

/// Every row start `align`-byte aligned: the base and the leading dimension.
template <class T>
bool rows_aligned(const T* p, std::size_t ld, std::size_t align) {
  return reinterpret_cast<std::uintptr_t>(p) % align == 0 && ld * sizeof(T) % align == 0;
}
/// 16-byte vectors need every row start 16-byte aligned.
template <class T>
bool vector_aligned(const T* p, std::size_t ld) {
  return rows_aligned(p, ld, 16);
}

/// The sector64 transpose: padded64's tile (64 x 64, pitch 65, 32 x 8 threads), the blocks
/// taking tiles in vector64's order (down tile columns), and output rows written in whole
/// 32-byte sectors however they are aligned. A warp store that covers part of a sector costs
/// as if it moved the whole sector again: output rows off the sector grid ran every other
/// kernel at about the speed of coalescing/offset's misaligned writes. So where the rows are off
/// the grid (Halo > 0), the window of output row c is shifted back by its phase s_c (elements
/// from the sector boundary before it): this tile writes out[c][by - s_c, by - s_c + 64), which
/// starts on a sector, and loads Halo input rows above its own to serve it. The windows of one
/// output row partition it (s_c does not depend on the tile), one more tile row covers the
/// shifted tail (docs/tuning.md, "Transpose of unaligned rows").
template <class T, int Halo>
__global__ void __launch_bounds__(32 * policy::block_rows)
    transpose_sector_kernel(const T* __restrict__ in, T* __restrict__ out, int rows, int cols, leading_dims ld,
                            unsigned out_phase, int region_shift) {
  constexpr int tile = 64, pitch = tile + 1, tile_rows = tile + Halo;
  __shared__ T t[tile_rows * pitch];
  int tx, ty;
  tile_of<block_order::regions>(tx, ty, region_shift);
  const int bx = tx * tile, by = ty * tile;
  const int lane = static_cast<int>(threadIdx.x), wy = static_cast<int>(threadIdx.y);
#pragma unroll
  for (int cx = 0; cx < tile; cx += 32)
#pragma unroll
    for (int j = 0; j < tile_rows; j += policy::block_rows) {
      const int lr = wy + j, r = by - Halo + lr, c = bx + cx + lane;
      if (lr < tile_rows && r >= 0 && r < rows && c < cols)
        t[lr * pitch + cx + lane] = in[static_cast<std::size_t>(r) * ld.in + c];
    }
  __syncthreads();
#pragma unroll
  for (int j = 0; j < tile; j += policy::block_rows) {
    const int lc = wy + j, oc = bx + lc;
    if (oc >= cols) continue;
    int phase = 0;
    if constexpr (Halo > 0) phase = static_cast<int>((out_phase + static_cast<std::size_t>(oc) * ld.out) % Halo);
#pragma unroll
    for (int cx = 0; cx < tile; cx += 32) {
      const int x = by - phase + cx + lane;  // lanes read 32 tile rows in one column: 32 banks
      if (x >= 0 && x < rows)
        out[static_cast<std::size_t>(oc) * ld.out + x] = t[(Halo - phase + cx + lane) * pitch + lc];
    }
  }
}

template <class T>
void launch_sector(const T* in, T* out, int rows, int cols, leading_dims ld, cudaStream_t s) {
  constexpr int sector = 32;
  const int region_shift = column_region_shift(ld.in * sizeof(T));
  const dim3 threads(32, policy::block_rows);
  // Elements of a sector need sizeof(T) to divide it, and the base a whole number of elements
  // past a sector boundary; other element types are written unshifted.
  if constexpr (sector % sizeof(T) == 0) {
    const auto base = reinterpret_cast<std::uintptr_t>(out) % sector;
    if (!rows_aligned(out, ld.out, sector) && base % sizeof(T) == 0) {
      constexpr int halo = sector / sizeof(T);
      const dim3 grid = tile_grid(rows + halo - 1, cols, 64, 64);
      transpose_sector_kernel<T, halo>
          <<<grid, threads, 0, s>>>(in, out, rows, cols, ld, static_cast<unsigned>(base / sizeof(T)), region_shift);
      return;
    }
  }
  transpose_sector_kernel<T, 0>
      <<<tile_grid(rows, cols, 64, 64), threads, 0, s>>>(in, out, rows, cols, ld, 0, region_shift);
}

/// The vector transpose with policy P where both matrices' rows are 16-byte aligned; otherwise
/// sector64 (the vector kernel's element-by-element path is far slower than padded64 there,
/// and sector64 faster than both: docs/tuning.md, "Transpose of unaligned rows").
template <class P, class T>
void launch_vector(const T* in, T* out, int rows, int cols, leading_dims ld, cudaStream_t s) {
  if (!vector_aligned(in, ld.in) || !vector_aligned(out, ld.out)) return launch_sector(in, out, rows, cols, ld, s);
  const dim3 grid = tile_grid(rows, cols, P::tile_rows, P::tile_cols);
  const int region_shift = P::band == block_order::regions ? column_region_shift(ld.in * sizeof(T)) : 0;
  transpose_vector_kernel<T, P><<<grid, P::threads, 0, s>>>(in, out, rows, cols, ld, region_shift);
}

/// out (cols x rows, row c at out + c * ld_out) = transpose of in (rows x cols, row r at
/// in + r * ld_in); leading dimensions in elements, at least the row lengths.
template <class T>
void transpose(variant v, const T* in, std::size_t ld_in, T* out, std::size_t ld_out, int rows, int cols,
               cudaStream_t s) {
  if (rows < 0 || cols < 0) throw std::invalid_argument("transpose: a negative dimension");
  if (rows == 0 || cols == 0) return;
  if (ld_in < static_cast<std::size_t>(cols) || ld_out < static_cast<std::size_t>(rows))
    throw std::invalid_argument("transpose: a leading dimension shorter than its rows (ld_in >= cols, ld_out >= rows)");
  const leading_dims ld{ld_in, ld_out};
  using banks::tile_layout;
  switch (v) {
    case variant::naive: {
      const dim3 grid = tile_grid(rows, cols, policy::tile, policy::tile);
      transpose_naive_kernel<T><<<grid, dim3(policy::tile, policy::block_rows), 0, s>>>(in, out, rows, cols, ld);
      break;
    }
    case variant::tiled:
      launch_tiled<T, tile_layout::naive, 32>(in, out, rows, cols, ld, s);
      break;
    case variant::padded:
      launch_tiled<T, tile_layout::padded, 32>(in, out, rows, cols, ld, s);
      break;
    case variant::swizzled:
      launch_tiled<T, tile_layout::swizzled, 32>(in, out, rows, cols, ld, s);
      break;
    case variant::padded64:
      launch_tiled<T, tile_layout::padded, 64>(in, out, rows, cols, ld, s);
      break;
    case variant::swizzled64:
      launch_tiled<T, tile_layout::swizzled, 64>(in, out, rows, cols, ld, s);
      break;
    case variant::sector64:
      launch_sector(in, out, rows, cols, ld, s);
      break;
    case variant::vector64:
      if constexpr (sizeof(T) == 4) {
        launch_vector<default_vector_policy>(in, out, rows, cols, ld, s);
      } else {
        throw std::invalid_argument("transpose: vector64 moves 4-byte elements");
      }
      break;
  }
  MEMSCOPE_CHECK_LAUNCH("transpose kernel");
}

/// Packed matrices: out (cols x rows) = transpose of in (rows x cols).
template <class T>
void transpose(variant v, const T* in, T* out, int rows, int cols, cudaStream_t s) {
  transpose(v, in, static_cast<std::size_t>(cols), out, static_cast<std::size_t>(rows), rows, cols, s);
}

}  // namespace memscope::transpose
