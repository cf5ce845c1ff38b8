#pragma once
// 1D central-difference stencil of radius R (1..8), out[x] = sum c[i-1] * (in[x+i] - in[x-i]),
// the seed's 9-point case being R = 4 with c = {-1, -2, 2, 1}. Boundary: zero outside [0, n)
// (stencil_reference.hpp). Works for any n >= 2R + 1.
//
// One shared-memory tile body; thin kernels differ only in where the coefficients come from:
//   global    a plain pointer (may alias `out`, so every load is a coherent global load)
//   constant  a __constant__ array filled with cudaMemcpyToSymbol (warp-uniform: broadcast)
//   restrict  a `const float* __restrict__` parameter (the compiler may use the read-only path)
//   ldg       __ldg() on a plain pointer (the read-only path, explicitly)
//   param     by value in the kernel's parameter space (itself constant memory)
// plus `l1`: no shared memory, neighbours re-read from global memory through L1.
//
// Everything that touches the __constant__ symbol (kernels, the upload, the launchers) sits in
// an anonymous namespace: without separable compilation a __constant__ variable belongs to one
// translation unit, and an inline function shared between units could upload to one unit's copy
// and launch the other's kernel. Each including unit gets its own, complete set.

#include "memscope/core/cuda_check.hpp"
#include "memscope/core/launch.cuh"

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace memscope::stencil {

struct policy {
  static constexpr int block_threads = 256;
  static constexpr int items_per_group = 4;  // one float4 of outputs per thread and group
  // A block's tile: 1024 points (one group of 4 a thread) or 2048 (two groups, a block apart),
  // plus 2R halo values; the suite's `tile` axis measures both.
  static constexpr int default_tile = block_threads * items_per_group;
  static constexpr int max_groups = 2;
  /// The tile apply() takes unless told: 1024 points for small radii, 2048 from R = 3 on, where
  /// the halo and the barrier, paid once per tile, weigh more (docs/tuning.md, "Stencil tile").
  static constexpr int tile_for(int radius) { return radius >= 3 ? max_groups * default_tile : default_tile; }
  static constexpr int max_radius = 8;
  static_assert(2 * max_radius <= block_threads, "one thread per halo value");
};

enum class coef_source { global, constant, restrict_ptr, ldg, param, l1 };

template <int R>
struct coef_array {
  float c[R];
};

namespace {

__constant__ float c_stencil_coef[policy::max_radius];

/// The tile body: a block computes points [x0, x0 + tile) from shared memory, tile =
/// Groups x 1024. `coef(i)` returns c[i] and is inlined, so each source compiles to its own
/// load instruction.
template <int R, int Groups, class Coef>
__device__ __forceinline__ void stencil_tile(const float* in, float* out, std::size_t n, Coef coef) {
  constexpr int items = policy::items_per_group * Groups;
  constexpr int tile = policy::block_threads * items;
  // Rounded up so that the compute stage's 16-byte window reads never run past the array.
  constexpr int window = policy::items_per_group + 2 * R;
  constexpr int window_vecs = (window + 3) / 4;
  __shared__ __align__(16) float s[tile + 4 * window_vecs];
  const std::size_t x0 = static_cast<std::size_t>(blockIdx.x) * tile;
  // The tile as the copy kernel reads it (docs/bandwidth.md): `items` aligned, coalesced loads
  // in flight per thread before any is used; then the 2R halo values, which neighbouring
  // blocks also read (L2 serves the second read). Zero outside [0, n).
  float v[items];
#pragma unroll
  for (int k = 0; k < items; ++k) {
    const std::size_t g = x0 + k * policy::block_threads + threadIdx.x;
    v[k] = g < n ? in[g] : 0.0f;
  }
  if (threadIdx.x < 2 * R) {
    const bool left = threadIdx.x < R;
    const long long g =
        left ? static_cast<long long>(x0) - R + threadIdx.x : static_cast<long long>(x0) + tile + (threadIdx.x - R);
    s[left ? threadIdx.x : tile + threadIdx.x] = g >= 0 && g < static_cast<long long>(n) ? in[g] : 0.0f;
  }
#pragma unroll
  for (int k = 0; k < items; ++k) s[R + k * policy::block_threads + threadIdx.x] = v[k];
  // The window's round-up past the halo is read but never used: define it anyway.
  if (threadIdx.x < 4 * window_vecs - 2 * R) s[tile + 2 * R + threadIdx.x] = 0.0f;
  __syncthreads();
  float c[R];
#pragma unroll
  for (int i = 0; i < R; ++i) c[i] = coef(i);
    // Each thread computes 4 consecutive points per group (groups a block's 1024 points apart,
    // so a warp's 16-byte window reads stay contiguous: no bank conflicts) from a register
    // window of 4 + 2R values, read as 16-byte vectors: (4 + 2R) / 4 shared loads instead of 2R
    // per point, which is what bounds large radii (docs/constant-and-readonly.md).
#pragma unroll
  for (int grp = 0; grp < Groups; ++grp) {
    // s[lx] holds in[x0 + lx - R]
    const int lx = policy::items_per_group * threadIdx.x + grp * policy::default_tile;
    float w[4 * window_vecs];
#pragma unroll
    for (int q = 0; q < window_vecs; ++q) {
      const float4 f = reinterpret_cast<const float4*>(s + lx)[q];
      w[4 * q] = f.x;
      w[4 * q + 1] = f.y;
      w[4 * q + 2] = f.z;
      w[4 * q + 3] = f.w;
    }
    float r[4];
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      float acc = 0;
#pragma unroll
      for (int i = 1; i <= R; ++i) acc += c[i - 1] * (w[R + j + i] - w[R + j - i]);
      r[j] = acc;
    }
    const std::size_t x = x0 + lx;
    if (x + 4 <= n) {
      *reinterpret_cast<float4*>(out + x) = make_float4(r[0], r[1], r[2], r[3]);  // x is a multiple of 4
    } else {
#pragma unroll
      for (int j = 0; j < 4; ++j)
        if (x + j < n) out[x + j] = r[j];
    }
  }
}

template <int R, int G>
__global__ void __launch_bounds__(policy::block_threads)
    stencil_global_kernel(const float* in, float* out, std::size_t n, const float* coef) {
  stencil_tile<R, G>(in, out, n, [&](int i) { return coef[i]; });
}
template <int R, int G>
__global__ void __launch_bounds__(policy::block_threads)
    stencil_constant_kernel(const float* in, float* out, std::size_t n) {
  stencil_tile<R, G>(in, out, n, [](int i) { return c_stencil_coef[i]; });
}
template <int R, int G>
__global__ void __launch_bounds__(policy::block_threads)
    stencil_restrict_kernel(const float* in, float* out, std::size_t n, const float* __restrict__ coef) {
  stencil_tile<R, G>(in, out, n, [&](int i) { return coef[i]; });
}
template <int R, int G>
__global__ void __launch_bounds__(policy::block_threads)
    stencil_ldg_kernel(const float* in, float* out, std::size_t n, const float* coef) {
  stencil_tile<R, G>(in, out, n, [&](int i) { return __ldg(coef + i); });
}
template <int R, int G>
__global__ void __launch_bounds__(policy::block_threads)
    stencil_param_kernel(const float* in, float* out, std::size_t n, coef_array<R> coef) {
  stencil_tile<R, G>(in, out, n, [&](int i) { return coef.c[i]; });
}

/// No shared memory: each thread reads its 2R neighbours from global memory; the reuse is left
/// to L1 (each value is loaded by 2R + 1 threads).
template <int R>
__global__ void __launch_bounds__(policy::block_threads)
    stencil_l1_kernel(const float* __restrict__ in, float* __restrict__ out, std::size_t n) {
  const std::size_t x = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (x >= n) return;
  float v = 0;
#pragma unroll
  for (int i = 1; i <= R; ++i) {
    const float right = x + i < n ? in[x + i] : 0.0f;
    const float left = x >= static_cast<std::size_t>(i) ? in[x - i] : 0.0f;
    v += c_stencil_coef[i - 1] * (right - left);
  }
  out[x] = v;
}

/// Coefficients, where each source wants them. Upload once, launch many times.
class coefficients {
 public:
  /// Throws std::invalid_argument unless 1 <= c.size() <= 8.
  explicit coefficients(std::vector<float> c) : host_(std::move(c)) {
    if (host_.empty() || host_.size() > static_cast<std::size_t>(policy::max_radius))
      throw std::invalid_argument("stencil radius must be 1.." + std::to_string(policy::max_radius) + ", got " +
                                  std::to_string(host_.size()) + " coefficients");
    MEMSCOPE_CUDA_CALL(cudaMalloc(&device_, host_.size() * sizeof(float)));
    MEMSCOPE_CUDA_CALL(cudaMemcpy(device_, host_.data(), host_.size() * sizeof(float), cudaMemcpyHostToDevice));
    MEMSCOPE_CUDA_CALL(cudaMemcpyToSymbol(c_stencil_coef, host_.data(), host_.size() * sizeof(float)));
  }
  ~coefficients() {
    if (device_) MEMSCOPE_CUDA_CALL_NOEXCEPT(cudaFree(device_));
  }
  coefficients(const coefficients&) = delete;
  coefficients& operator=(const coefficients&) = delete;

  int radius() const { return static_cast<int>(host_.size()); }
  const std::vector<float>& host() const { return host_; }
  const float* device() const { return device_; }

 private:
  std::vector<float> host_;
  float* device_ = nullptr;
};

namespace detail {
template <int R, int G>
void launch(coef_source src, const float* in, float* out, std::size_t n, const coefficients& c, cudaStream_t s) {
  constexpr std::size_t tile = std::size_t{policy::block_threads} * policy::items_per_group * G;
  const auto grid = static_cast<unsigned>(ceil_div(n, tile));
  constexpr int b = policy::block_threads;
  switch (src) {
    case coef_source::global:
      stencil_global_kernel<R, G><<<grid, b, 0, s>>>(in, out, n, c.device());
      break;
    case coef_source::constant:
      stencil_constant_kernel<R, G><<<grid, b, 0, s>>>(in, out, n);
      break;
    case coef_source::restrict_ptr:
      stencil_restrict_kernel<R, G><<<grid, b, 0, s>>>(in, out, n, c.device());
      break;
    case coef_source::ldg:
      stencil_ldg_kernel<R, G><<<grid, b, 0, s>>>(in, out, n, c.device());
      break;
    case coef_source::param: {
      coef_array<R> a;
      for (int i = 0; i < R; ++i) a.c[i] = c.host()[i];
      stencil_param_kernel<R, G><<<grid, b, 0, s>>>(in, out, n, a);
      break;
    }
    case coef_source::l1:
      stencil_l1_kernel<R><<<static_cast<unsigned>(ceil_div(n, b)), b, 0, s>>>(in, out, n);
      break;
  }
  MEMSCOPE_CHECK_LAUNCH("stencil kernel");
}

template <int R = 1>
void dispatch(coef_source src, const float* in, float* out, std::size_t n, const coefficients& c, int groups,
              cudaStream_t s) {
  if constexpr (R <= policy::max_radius) {
    if (c.radius() != R) return dispatch<R + 1>(src, in, out, n, c, groups, s);
    if (groups == 2) launch<R, 2>(src, in, out, n, c, s);
    else launch<R, 1>(src, in, out, n, c, s);
  }
}
}  // namespace detail

/// out[x] for every x < n, the shared-memory sources in tiles of `tile_points` points a block
/// (1024 or 2048; 0: policy::tile_for the radius). Throws std::invalid_argument when n < 2R + 1
/// (smaller than the stencil), when `out` is not 16-byte aligned (the tile kernels store
/// float4s) or for another tile.
inline void apply(coef_source src, const float* in, float* out, std::size_t n, const coefficients& c, cudaStream_t s,
                  int tile_points = 0) {
  if (tile_points == 0) tile_points = policy::tile_for(c.radius());
  if (tile_points != policy::default_tile && tile_points != policy::default_tile * policy::max_groups)
    throw std::invalid_argument("stencil tile must be " + std::to_string(policy::default_tile) + " or " +
                                std::to_string(policy::default_tile * policy::max_groups) + " points, got " +
                                std::to_string(tile_points));
  if (reinterpret_cast<std::uintptr_t>(out) % 16 != 0)
    throw std::invalid_argument("stencil output must be 16-byte aligned (cudaMalloc memory is)");
  if (n < static_cast<std::size_t>(2 * c.radius() + 1))
    throw std::invalid_argument("stencil of radius " + std::to_string(c.radius()) +
                                " needs n >= " + std::to_string(2 * c.radius() + 1) + ", got n = " + std::to_string(n));
  detail::dispatch(src, in, out, n, c, tile_points / policy::default_tile, s);
}

}  // namespace
}  // namespace memscope::stencil
