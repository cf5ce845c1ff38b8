#pragma once
// One read-and-reduce building block: each thread keeps kItems independent loads of
// in[offset + i * stride] in flight, the block sums what it read into partials[blockIdx.x].
// The loads cannot be removed and the sum checks them. bandwidth's read-only kernel is the unit
// stride; coalescing's strided reads are the general case.

#include <cub/block/block_reduce.cuh>

#include <cstddef>

namespace memscope {

__device__ __forceinline__ float lanes_sum(float v) { return v; }
__device__ __forceinline__ float lanes_sum(float2 v) { return v.x + v.y; }
__device__ __forceinline__ float lanes_sum(float4 v) { return (v.x + v.y) + (v.z + v.w); }
__device__ __forceinline__ float lanes_sum(int4 v) { return static_cast<float>((v.x + v.y) + (v.z + v.w)); }

/// kStrided = false: offset and stride are ignored (unit stride), so the index needs no multiply.
template <int kThreads, int kItems, bool kStrided, class T>
__global__ void __launch_bounds__(kThreads)
    read_reduce_kernel(const T* __restrict__ in, std::size_t n, std::size_t offset, std::size_t stride,
                       float* __restrict__ partials) {
  using block_reduce = cub::BlockReduce<float, kThreads>;
  __shared__ typename block_reduce::TempStorage temp;
  const auto at = [&](std::size_t i) -> const T& { return kStrided ? in[offset + i * stride] : in[i]; };
  const std::size_t step = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  float part[kItems] = {};
  for (; i + (kItems - 1) * step < n; i += kItems * step) {
    T v[kItems];
#pragma unroll
    for (int u = 0; u < kItems; ++u) v[u] = at(i + u * step);
#pragma unroll
    for (int u = 0; u < kItems; ++u) part[u] += lanes_sum(v[u]);
  }
  // What is left is fewer than kItems loads per thread: one predicated round keeps them all in
  // flight (a scalar loop would wait out one memory latency per load at the end of every read).
  if (i < n) {
    T v[kItems];
#pragma unroll
    for (int u = 0; u < kItems; ++u) v[u] = i + u * step < n ? at(i + u * step) : T{};
#pragma unroll
    for (int u = 0; u < kItems; ++u) part[u] += lanes_sum(v[u]);
  }
  float acc = 0;
#pragma unroll
  for (int u = 0; u < kItems; ++u) acc += part[u];
  const float s = block_reduce(temp).Sum(acc);
  if (threadIdx.x == 0) partials[blockIdx.x] = s;
}

/// The same reads in another order: one block per tile of kThreads * kItems elements, no grid
/// stride. The blocks in flight then read one compact window of memory, which reads faster
/// than a persistent grid (docs/tuning.md, "Stream kernels"), so it is the fastest pure read to
/// hold a reduction against. partials[blockIdx.x] = the tile's sum.
template <int kThreads, int kItems, class T>
__global__ void __launch_bounds__(kThreads)
    read_tiles_kernel(const T* __restrict__ in, std::size_t n, float* __restrict__ partials) {
  using block_reduce = cub::BlockReduce<float, kThreads>;
  __shared__ typename block_reduce::TempStorage temp;
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * kThreads * kItems + threadIdx.x;
  T v[kItems];
#pragma unroll
  for (int u = 0; u < kItems; ++u) v[u] = i + u * kThreads < n ? in[i + u * kThreads] : T{};
  float acc = 0;
#pragma unroll
  for (int u = 0; u < kItems; ++u) acc += lanes_sum(v[u]);
  const float s = block_reduce(temp).Sum(acc);
  if (threadIdx.x == 0) partials[blockIdx.x] = s;
}

}  // namespace memscope
