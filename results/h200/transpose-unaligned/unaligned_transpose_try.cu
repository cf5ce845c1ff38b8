// Throw-away experiment: the transpose of a matrix whose output rows do not start on 32-byte
// sectors (packed 12289 x 9973 floats: every row of the output starts at a different offset in
// its sector) runs at ~0.55x the copy ceiling in every library kernel, against 0.90-0.97x where
// rows are aligned (docs/global-and-shared.md). coalescing/offset measures the same 0.55x for
// writes one element off alignment, and 1.00x for reads: the cost is partial-sector writes.
// The idea tried here: each output row's window of the tile is shifted back by its row's
// misalignment (0-7 elements), so every warp store covers whole sectors; the tile loads a halo
// of 8 input rows above it to serve the shifted windows (12.5% more loads, from L2 where the
// block above ran just before: blocks go down tile columns). Variants:
//   padded64          the library's fallback today (32 x 8 threads, blocks along tile rows)
//   sector<H,O,R,S>   H: halo rows (0 = no shift: padded64's kernel), O: block order (rows,
//                     columns), R: block rows (32 x R threads), S: streaming loads/stores
//   vsector<R>        sector<8, columns, R> with 16-byte stores
// Each variant on a poisoned output, checked on the GPU against the input's hash, then timed:
// 3 warm-ups, 15 launches each event-timed alone, median (min-max), against cudaMemcpy of the
// same bytes in the same round; two rounds.
// Built: nvcc -O3 -std=c++17 -arch=sm_90 -cudart static -I../../../include unaligned_transpose_try.cu
#include "../issue20/experiments/timing.cuh"
#include "memscope/shared/transpose.cuh"

#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace tp = memscope::transpose;
using tp::leading_dims;

__host__ __device__ inline unsigned hash_rc(unsigned r, unsigned c) {
  unsigned h = r * 0x9E3779B1u ^ (c + 0x7F4A7C15u) * 0x85EBCA77u;
  h ^= h >> 15;
  h *= 0x2C1B3C6Du;
  return h ^ (h >> 12);
}

__global__ void fill_kernel(unsigned* in, int rows, int cols, std::size_t ld) {
  const std::size_t n = static_cast<std::size_t>(rows) * cols;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x)
    in[(i / cols) * ld + i % cols] = hash_rc(static_cast<unsigned>(i / cols), static_cast<unsigned>(i % cols));
}

__global__ void check_kernel(const unsigned* out, int rows, int cols, std::size_t ld, unsigned long long* bad) {
  const std::size_t n = static_cast<std::size_t>(rows) * cols;  // out is cols x rows
  unsigned long long b = 0;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x) {
    const std::size_t c = i / rows, r = i % rows;
    b += out[c * ld + r] != hash_rc(static_cast<unsigned>(r), static_cast<unsigned>(c));
  }
  if (b) atomicAdd(bad, b);
}

template <int Halo, int Order, int BlockRows, bool Streaming>
__global__ void __launch_bounds__(32 * BlockRows)
    sector_kernel(const unsigned* __restrict__ in, unsigned* __restrict__ out, int rows, int cols, leading_dims ld,
                  unsigned out_base) {
  constexpr int tile = 64, pitch = tile + 1, trows = tile + Halo;
  __shared__ unsigned t[trows * pitch];
  int tx, ty;
  tp::tile_of<Order>(tx, ty, 0);
  const int bx = tx * tile, by = ty * tile;
#pragma unroll
  for (int cx = 0; cx < tile; cx += 32)
#pragma unroll
    for (int j = 0; j < trows; j += BlockRows) {
      const int lr = static_cast<int>(threadIdx.y) + j, r = by - Halo + lr, c = bx + cx + static_cast<int>(threadIdx.x);
      if (lr < trows && r >= 0 && r < rows && c < cols) {
        const unsigned* p = in + static_cast<std::size_t>(r) * ld.in + c;
        t[lr * pitch + cx + threadIdx.x] = Streaming ? __ldcs(p) : *p;
      }
    }
  __syncthreads();
#pragma unroll
  for (int j = 0; j < tile; j += BlockRows)
#pragma unroll
    for (int cx = 0; cx < tile; cx += 32) {
      const int oc = bx + static_cast<int>(threadIdx.y) + j;
      if (oc >= cols) continue;
      const int s = Halo ? static_cast<int>((out_base + static_cast<std::size_t>(oc) * ld.out) % 8) : 0;
      const int x = by - s + cx + static_cast<int>(threadIdx.x);
      if (x < 0 || x >= rows) continue;
      unsigned* p = out + static_cast<std::size_t>(oc) * ld.out + x;
      const unsigned v = t[(Halo - s + cx + static_cast<int>(threadIdx.x)) * pitch + threadIdx.y + j];
      if (Streaming) __stcs(p, v);
      else *p = v;
    }
}

template <int Halo, int Order, int BlockRows, bool Streaming>
void launch_sector(const unsigned* in, unsigned* out, int rows, int cols, leading_dims ld) {
  const unsigned out_base = static_cast<unsigned>(reinterpret_cast<std::uintptr_t>(out) % 32 / 4);
  const dim3 grid(static_cast<unsigned>((cols + 63) / 64), static_cast<unsigned>((rows + Halo + 63) / 64));
  sector_kernel<Halo, Order, BlockRows, Streaming><<<grid, dim3(32, BlockRows)>>>(in, out, rows, cols, ld, out_base);
}

// As sector<8, columns, R>, but each lane stores 4 elements as one 16-byte vector (the shifted
// windows are 32-byte aligned): a warp writes 256 bytes of each of two output rows per
// instruction; its tile reads (4 rows apart per lane) collide 2-4 ways in the banks.
template <int BlockRows>
__global__ void __launch_bounds__(32 * BlockRows)
    vsector_kernel(const unsigned* __restrict__ in, unsigned* __restrict__ out, int rows, int cols, leading_dims ld,
                   unsigned out_base) {
  constexpr int tile = 64, pitch = tile + 1, halo = 8, trows = tile + halo;
  __shared__ unsigned t[trows * pitch];
  int tx, ty;
  tp::tile_of<tp::block_order::columns>(tx, ty, 0);
  const int bx = tx * tile, by = ty * tile;
#pragma unroll
  for (int cx = 0; cx < tile; cx += 32)
#pragma unroll
    for (int j = 0; j < trows; j += BlockRows) {
      const int lr = static_cast<int>(threadIdx.y) + j, r = by - halo + lr, c = bx + cx + static_cast<int>(threadIdx.x);
      if (lr < trows && r >= 0 && r < rows && c < cols) t[lr * pitch + cx + threadIdx.x] = in[static_cast<std::size_t>(r) * ld.in + c];
    }
  __syncthreads();
  const int lane = static_cast<int>(threadIdx.x), half = lane / 16, q = lane % 16;
#pragma unroll
  for (int j = 2 * static_cast<int>(threadIdx.y); j < tile; j += 2 * BlockRows) {
    const int lc = j + half, oc = bx + lc;
    if (oc >= cols) continue;
    const int s = static_cast<int>((out_base + static_cast<std::size_t>(oc) * ld.out) % 8);
    const int x = by - s + 4 * q;
    uint4 v;
    unsigned* e = &v.x;
#pragma unroll
    for (int k = 0; k < 4; ++k) e[k] = t[(halo - s + 4 * q + k) * pitch + lc];
    unsigned* p = out + static_cast<std::size_t>(oc) * ld.out + x;
    if (x >= 0 && x + 3 < rows) {
      *reinterpret_cast<uint4*>(p) = v;
    } else {
#pragma unroll
      for (int k = 0; k < 4; ++k)
        if (x + k >= 0 && x + k < rows) p[k] = e[k];
    }
  }
}

template <int BlockRows>
void launch_vsector(const unsigned* in, unsigned* out, int rows, int cols, leading_dims ld) {
  const unsigned out_base = static_cast<unsigned>(reinterpret_cast<std::uintptr_t>(out) % 32 / 4);
  const dim3 grid(static_cast<unsigned>((cols + 63) / 64), static_cast<unsigned>((rows + 8 + 63) / 64));
  vsector_kernel<BlockRows><<<grid, dim3(32, BlockRows)>>>(in, out, rows, cols, ld, out_base);
}

struct shape {
  const char* name;
  int rows, cols;
  bool pitched;        // rows padded to 512 bytes (as cudaMallocPitch pads them)
  std::size_t offset;  // elements the bases are moved by
};

int main() {
  const shape shapes[] = {{"12289x9973 packed", 12289, 9973, false, 0},
                          {"9973x12289 packed", 9973, 12289, false, 0},
                          {"16383x16385 packed", 16383, 16385, false, 0},
                          {"16384x16384 base+1", 16384, 16384, false, 1},
                          {"16384x9973 packed", 16384, 9973, false, 0},  // output rows aligned, input not
                          {"12289x9973 pitched", 12289, 9973, true, 0},
                          {"16384x16384 packed", 16384, 16384, false, 0}};
  struct variant {
    std::string name;
    void (*run)(const unsigned*, unsigned*, int, int, leading_dims);
  };
  const std::vector<variant> variants = {
      {"padded64 (library fallback)",
       [](const unsigned* i, unsigned* o, int r, int c, leading_dims ld) {
         tp::transpose(tp::variant::padded64, i, ld.in, o, ld.out, r, c, nullptr);
       }},
      {"vector64 (library)",
       [](const unsigned* i, unsigned* o, int r, int c, leading_dims ld) {
         tp::transpose(tp::variant::vector64, i, ld.in, o, ld.out, r, c, nullptr);
       }},
      {"sector h0 rows 32x8", launch_sector<0, tp::block_order::rows, 8, false>},
      {"sector h0 cols 32x8", launch_sector<0, tp::block_order::columns, 8, false>},
      {"sector h8 rows 32x8", launch_sector<8, tp::block_order::rows, 8, false>},
      {"sector h8 cols 32x8", launch_sector<8, tp::block_order::columns, 8, false>},
      {"sector h8 cols 32x8 cs", launch_sector<8, tp::block_order::columns, 8, true>},
      {"sector h8 cols 32x16", launch_sector<8, tp::block_order::columns, 16, false>},
      {"sector h8 cols 32x16 cs", launch_sector<8, tp::block_order::columns, 16, true>},
      {"sector h8 cols 32x32", launch_sector<8, tp::block_order::columns, 32, false>},
      {"vsector cols 32x8", launch_vsector<8>},
      {"vsector cols 32x16", launch_vsector<16>},
  };
  cudaDeviceProp prop{};
  CK(cudaGetDeviceProperties(&prop, 0));
  std::printf("# %s, %d SMs; us median (min-max) of 15; fraction = cudaMemcpy time / kernel time\n", prop.name,
              prop.multiProcessorCount);
  unsigned long long* d_bad = nullptr;
  CK(cudaMalloc(&d_bad, sizeof *d_bad));
  for (const shape& sh : shapes) {
    const auto pitch = [&](int n) { return sh.pitched ? (static_cast<std::size_t>(n) + 127) / 128 * 128 : std::size_t(n); };
    const leading_dims ld{pitch(sh.cols), pitch(sh.rows)};
    const std::size_t in_elems = sh.rows * ld.in + sh.offset, out_elems = sh.cols * ld.out + sh.offset;
    unsigned *d_in0 = nullptr, *d_out0 = nullptr;
    CK(cudaMalloc(&d_in0, in_elems * 4));
    CK(cudaMalloc(&d_out0, out_elems * 4));
    unsigned *d_in = d_in0 + sh.offset, *d_out = d_out0 + sh.offset;
    fill_kernel<<<1024, 256>>>(d_in, sh.rows, sh.cols, ld.in);
    CK(cudaDeviceSynchronize());
    const std::size_t bytes = std::size_t{4} * sh.rows * sh.cols;
    std::printf("\n## %s (ld_in %zu, ld_out %zu, offset %zu), %.1f MiB\n", sh.name, ld.in, ld.out, sh.offset,
                bytes / 1048576.0);
    for (int round = 0; round < 2; ++round) {
      const auto copy = sorted_us([] {}, [&] { CK(cudaMemcpyAsync(d_out0, d_in0, bytes, cudaMemcpyDeviceToDevice)); }, 15);
      const float ceil_us = copy[copy.size() / 2];
      std::printf("round %d: cudaMemcpy %.1f us (%.1f-%.1f)\n", round, ceil_us, copy.front(), copy.back());
      for (const variant& v : variants) {
        CK(cudaMemset(d_out0, 0xFF, out_elems * 4));
        CK(cudaMemset(d_bad, 0, sizeof *d_bad));
        v.run(d_in, d_out, sh.rows, sh.cols, ld);
        CK(cudaGetLastError());
        check_kernel<<<1024, 256>>>(d_out, sh.rows, sh.cols, ld.out, d_bad);
        unsigned long long bad = 0;
        CK(cudaMemcpy(&bad, d_bad, sizeof bad, cudaMemcpyDeviceToHost));
        const auto t = sorted_us([] {}, [&] { v.run(d_in, d_out, sh.rows, sh.cols, ld); }, 15);
        const float med = t[t.size() / 2];
        std::printf("  %-28s %8.1f us (%.1f-%.1f)  %.3fx  %s\n", v.name.c_str(), med, t.front(), t.back(),
                    ceil_us / med, bad ? ("WRONG: " + std::to_string(bad)).c_str() : "ok");
      }
    }
    CK(cudaFree(d_in0));
    CK(cudaFree(d_out0));
  }
  return 0;
}
