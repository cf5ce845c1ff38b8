#pragma once
// Texture vs global vs __ldg on the access patterns of the seed's table (sequential, random,
// strided) and on 2D-local reads (a 3x3 box filter), where a cudaArray's block-linear layout
// is the texture path's classic advantage.
//
// gather_kernel<S, P>: out[i] = table[index_of<P>(i)] through source S (throughput).
// pattern_latency_kernel<S, P>: one warp, each lane `iters` dependent loads in pattern P; the
// table holds zeros and each load's value joins the next address, so no load can be overlapped
// or removed (the seed's table reports nanoseconds per access).
// box3x3_kernel<S>: out(x, y) = the sum of the 3x3 neighbourhood with clamped edges, in a fixed
// order, so the CPU reference in float (box_reference, texture_reference.hpp) matches exactly.

#include "memscope/core/cuda_check.hpp"
#include "memscope/core/host_device.hpp"
#include "memscope/core/launch.cuh"
#include "memscope/core/random.hpp"

#include <cstddef>
#include <cstdint>

namespace memscope::texture {

enum class source { global, ldg, texture };
enum class pattern { sequential, strided, random };

struct access_policy {
  static constexpr int block_threads = 256;
  static constexpr std::uint64_t stride_elements = 33;  // 132 bytes: every lane on its own line
  static constexpr int box_tile_x = 32, box_tile_y = 8;
};

/// Element read by access i of a table of n elements (n > 0).
template <pattern P>
MEMSCOPE_HD std::uint64_t index_of(std::uint64_t i, std::uint64_t n, std::uint64_t seed) {
  if constexpr (P == pattern::sequential) return i % n;
  else if constexpr (P == pattern::strided) return (i * access_policy::stride_elements) % n;
  else return hash_u32(seed, i) % n;
}

template <source S>
__device__ __forceinline__ float read(const float* table, cudaTextureObject_t tex, std::uint64_t i) {
  if constexpr (S == source::global) return table[i];
  else if constexpr (S == source::ldg) return __ldg(table + i);
  else return tex1Dfetch<float>(tex, static_cast<int>(i));
}

template <source S, pattern P>
__global__ void __launch_bounds__(access_policy::block_threads)
    gather_kernel(const float* table, cudaTextureObject_t tex, std::uint64_t n, std::uint64_t count, std::uint64_t seed,
                  float* out) {
  const std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < count) out[i] = read<S>(table, tex, index_of<P>(i, n, seed));
}

template <source S, pattern P>
void gather(const float* table, cudaTextureObject_t tex, std::uint64_t n, std::uint64_t count, std::uint64_t seed,
            float* out, cudaStream_t s) {
  if (count == 0) return;
  gather_kernel<S, P>
      <<<static_cast<unsigned>(ceil_div(count, access_policy::block_threads)), access_policy::block_threads, 0, s>>>(
          table, tex, n, count, seed, out);
  MEMSCOPE_CHECK_LAUNCH("gather_kernel");
}

/// out[0] = clock64 cycles of lane 0's chain; out[1 + lane] = the last index each lane read.
template <source S, pattern P>
__global__ void pattern_latency_kernel(const float* zeros, cudaTextureObject_t tex, std::uint64_t n, unsigned iters,
                                       std::uint64_t seed, unsigned long long* out) {
  const unsigned lane = threadIdx.x;
  std::uint64_t at = 0;
  std::uint32_t carry = 0;  // the previous load's bits (0): the next address waits for that load
  const long long t0 = clock64();
  for (unsigned k = 0; k < iters; ++k) {
    at = index_of<P>(std::uint64_t{k} * 32 + lane, n, seed) + carry;
    carry = __float_as_uint(read<S>(zeros, tex, at));
  }
  const long long t1 = clock64();
  if (lane == 0) out[0] = static_cast<unsigned long long>(t1 - t0);
  out[1 + lane] = at + carry;
}

template <source S, pattern P>
void pattern_latency(const float* zeros, cudaTextureObject_t tex, std::uint64_t n, unsigned iters, std::uint64_t seed,
                     unsigned long long* out, cudaStream_t s) {
  pattern_latency_kernel<S, P><<<1, 32, 0, s>>>(zeros, tex, n, iters, seed, out);
  MEMSCOPE_CHECK_LAUNCH("pattern_latency_kernel");
}

template <source S>
__device__ __forceinline__ float read2d(const float* img, cudaTextureObject_t tex, int x, int y, int w, int h) {
  if constexpr (S == source::texture) {
    return tex2D<float>(tex, static_cast<float>(x) + 0.5f, static_cast<float>(y) + 0.5f);  // clamp mode, texel centres
  } else {
    x = x < 0 ? 0 : (x >= w ? w - 1 : x);
    y = y < 0 ? 0 : (y >= h ? h - 1 : y);
    const std::size_t i = static_cast<std::size_t>(y) * w + x;
    if constexpr (S == source::ldg) return __ldg(img + i);
    else return img[i];
  }
}

/// Row-major 3x3 sum, rows top to bottom, columns left to right (box_reference does the same).
template <source S>
__global__ void __launch_bounds__(access_policy::box_tile_x* access_policy::box_tile_y)
    box3x3_kernel(const float* img, cudaTextureObject_t tex, int w, int h, float* out) {
  const int x = static_cast<int>(blockIdx.x) * access_policy::box_tile_x + static_cast<int>(threadIdx.x);
  const int y = static_cast<int>(blockIdx.y) * access_policy::box_tile_y + static_cast<int>(threadIdx.y);
  if (x >= w || y >= h) return;
  float sum = 0.0f;
#pragma unroll
  for (int dy = -1; dy <= 1; ++dy)
#pragma unroll
    for (int dx = -1; dx <= 1; ++dx) sum = __fadd_rn(sum, read2d<S>(img, tex, x + dx, y + dy, w, h));
  out[static_cast<std::size_t>(y) * w + x] = sum;
}

template <source S>
void box3x3(const float* img, cudaTextureObject_t tex, int w, int h, float* out, cudaStream_t s) {
  if (w == 0 || h == 0) return;
  const dim3 block(access_policy::box_tile_x, access_policy::box_tile_y);
  const dim3 grid(static_cast<unsigned>(ceil_div(static_cast<std::size_t>(w), access_policy::box_tile_x)),
                  static_cast<unsigned>(ceil_div(static_cast<std::size_t>(h), access_policy::box_tile_y)));
  box3x3_kernel<S><<<grid, block, 0, s>>>(img, tex, w, h, out);
  MEMSCOPE_CHECK_LAUNCH("box3x3_kernel");
}

}  // namespace memscope::texture
