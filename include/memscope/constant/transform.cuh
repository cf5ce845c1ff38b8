#pragma once
// The seed's 4x4 transform: p' = M p for many points (float3 with w = 1, or float4), the matrix
// column-major as in the seed (x' = m0 x + m4 y + m8 z + m12 w), held in __constant__ memory,
// in global memory, or passed by value as a kernel parameter. Every lane of a warp reads the
// same matrix element at the same time: the constant cache's broadcast case.
// (__constant__ use in an anonymous namespace: see stencil.cuh.)

#include "memscope/core/cuda_check.hpp"
#include "memscope/core/launch.cuh"

#include <array>
#include <cstddef>

namespace memscope::transform {

struct policy {
  static constexpr int block_threads = 256;
};

enum class matrix_source { constant, global, param };

struct mat4 {
  float m[16];
};

namespace {

__constant__ float c_matrix[16];

__device__ __forceinline__ float4 widen(float3 p) { return make_float4(p.x, p.y, p.z, 1.0f); }
__device__ __forceinline__ float4 widen(float4 p) { return p; }
__device__ __forceinline__ void narrow(float3& out, float4 v) { out = make_float3(v.x, v.y, v.z); }
__device__ __forceinline__ void narrow(float4& out, float4 v) { out = v; }

template <class P, class M>
__device__ __forceinline__ void transform_point(const P* in, P* out, std::size_t n, M m) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float4 p = widen(in[i]);
  float4 r;
  r.x = m(0) * p.x + m(4) * p.y + m(8) * p.z + m(12) * p.w;
  r.y = m(1) * p.x + m(5) * p.y + m(9) * p.z + m(13) * p.w;
  r.z = m(2) * p.x + m(6) * p.y + m(10) * p.z + m(14) * p.w;
  r.w = m(3) * p.x + m(7) * p.y + m(11) * p.z + m(15) * p.w;
  narrow(out[i], r);
}

template <class P>
__global__ void __launch_bounds__(policy::block_threads) transform_constant_kernel(const P* in, P* out, std::size_t n) {
  transform_point(in, out, n, [](int k) { return c_matrix[k]; });
}
template <class P>
__global__ void __launch_bounds__(policy::block_threads)
    transform_global_kernel(const P* in, P* out, std::size_t n, const float* m) {
  transform_point(in, out, n, [&](int k) { return m[k]; });
}
template <class P>
__global__ void __launch_bounds__(policy::block_threads)
    transform_param_kernel(const P* in, P* out, std::size_t n, mat4 m) {
  transform_point(in, out, n, [&](int k) { return m.m[k]; });
}

/// Uploads the matrix to the __constant__ symbol (for matrix_source::constant).
inline void upload_matrix(const mat4& m) { MEMSCOPE_CUDA_CALL(cudaMemcpyToSymbol(c_matrix, m.m, sizeof m.m)); }

/// out[i] = M in[i]; `d_matrix` (16 floats on the device) is read by matrix_source::global.
template <class P>
void apply(matrix_source src, const P* in, P* out, std::size_t n, const mat4& m, const float* d_matrix,
           cudaStream_t s) {
  if (n == 0) return;
  const auto grid = static_cast<unsigned>(ceil_div(n, policy::block_threads));
  switch (src) {
    case matrix_source::constant:
      transform_constant_kernel<P><<<grid, policy::block_threads, 0, s>>>(in, out, n);
      break;
    case matrix_source::global:
      transform_global_kernel<P><<<grid, policy::block_threads, 0, s>>>(in, out, n, d_matrix);
      break;
    case matrix_source::param:
      transform_param_kernel<P><<<grid, policy::block_threads, 0, s>>>(in, out, n, m);
      break;
  }
  MEMSCOPE_CHECK_LAUNCH("transform kernel");
}

}  // namespace
}  // namespace memscope::transform
