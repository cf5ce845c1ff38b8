#pragma once
// STREAM-like kernels that set the bandwidth ceilings: copy, scale, add, triad, write-only
// and read-only (sum), on float or on 16-byte float4 elements.
//
// One grid-stride kernel serves every element-wise operation (the Op says how many arrays it
// reads); each thread issues `items_per_thread` independent loads before its first store, so
// enough bytes are in flight per SM to cover DRAM latency.

#include "memscope/core/cuda_check.hpp"
#include "memscope/core/read_reduce.cuh"
#include "memscope/core/host_device.hpp"
#include "memscope/core/launch.cuh"

#include <cub/block/block_reduce.cuh>

#include <cstddef>

namespace memscope::bandwidth {

struct policy {
  static constexpr int block_threads = 256;
  static constexpr int items_per_thread = 4;
};

// ---- operations, on one float lane -------------------------------------------------------
struct copy_op {
  static constexpr int reads = 1;
  MEMSCOPE_HD float operator()(float a, float) const { return a; }
};
struct scale_op {
  static constexpr int reads = 1;
  float scalar;
  MEMSCOPE_HD float operator()(float a, float) const { return scalar * a; }
};
struct add_op {
  static constexpr int reads = 2;
  MEMSCOPE_HD float operator()(float a, float b) const { return a + b; }
};
struct triad_op {
  static constexpr int reads = 2;
  float scalar;
  MEMSCOPE_HD float operator()(float a, float b) const { return a + scalar * b; }
};
struct write_op {
  static constexpr int reads = 0;
  float value;
  MEMSCOPE_HD float operator()(float, float) const { return value; }
};

template <class Op>
__device__ __forceinline__ float apply(const Op& op, float a, float b) {
  return op(a, b);
}
template <class Op>
__device__ __forceinline__ float4 apply(const Op& op, float4 a, float4 b) {
  return make_float4(op(a.x, b.x), op(a.y, b.y), op(a.z, b.z), op(a.w, b.w));
}

// ---- kernels -------------------------------------------------------------------------------
/// How a grid walks the arrays. grid_stride: thread t touches t, t+S, t+2S... (S = all threads),
/// so one thread's loads are megabytes apart. tiled: a block owns a contiguous tile of
/// block_threads x items elements at a time (CUB's layout), so DRAM pages are swept in order.
enum class stream_layout { grid_stride, tiled };

/// A kernel variant: layout, independent loads per thread, whether loads/stores carry the
/// evict-first (.cs, streaming) cache hint (each byte is touched once), and the grid: persistent
/// (sized to fill the GPU once, looping over the rest) or one block per tile.
template <stream_layout Layout, int Items, bool Streaming, bool Persistent>
struct stream_variant {
  static constexpr stream_layout layout = Layout;
  static constexpr int items = Items;
  static constexpr bool streaming = Streaming;
  static constexpr bool persistent = Persistent;
};

template <bool Streaming, class T>
__device__ __forceinline__ T load(const T* p) {
  if constexpr (Streaming) return __ldcs(p);
  else return *p;
}
template <bool Streaming, class T>
__device__ __forceinline__ void store(T* p, T v) {
  if constexpr (Streaming) __stcs(p, v);
  else *p = v;
}

template <class V, class T, class Op>
__device__ __forceinline__ void map_items(const Op& op, T* __restrict__ out, const T* __restrict__ a,
                                          const T* __restrict__ b, std::size_t i, std::size_t step) {
  T va[V::items] = {}, vb[V::items] = {};
#pragma unroll
  for (int u = 0; u < V::items; ++u) {
    if constexpr (Op::reads >= 1) va[u] = load<V::streaming>(a + i + u * step);
    if constexpr (Op::reads >= 2) vb[u] = load<V::streaming>(b + i + u * step);
  }
#pragma unroll
  for (int u = 0; u < V::items; ++u) store<V::streaming>(out + i + u * step, apply(op, va[u], vb[u]));
}

template <class V, class T, class Op>
__device__ __forceinline__ void map_one(const Op& op, T* __restrict__ out, const T* __restrict__ a,
                                        const T* __restrict__ b, std::size_t i) {
  T va = {}, vb = {};
  if constexpr (Op::reads >= 1) va = load<V::streaming>(a + i);
  if constexpr (Op::reads >= 2) vb = load<V::streaming>(b + i);
  store<V::streaming>(out + i, apply(op, va, vb));
}

template <class V, class T, class Op>
__global__ void __launch_bounds__(policy::block_threads)
    stream_map_kernel(Op op, T* __restrict__ out, const T* __restrict__ a, const T* __restrict__ b, std::size_t n) {
  if constexpr (V::layout == stream_layout::grid_stride) {
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    for (; i + (V::items - 1) * stride < n; i += V::items * stride) map_items<V>(op, out, a, b, i, stride);
    for (; i < n; i += stride) map_one<V>(op, out, a, b, i);
  } else {
    const std::size_t tile = static_cast<std::size_t>(blockDim.x) * V::items;
    for (std::size_t base = blockIdx.x * tile; base < n; base += gridDim.x * tile) {
      if (base + tile <= n) {
        map_items<V>(op, out, a, b, base + threadIdx.x, blockDim.x);
      } else {
        for (std::size_t i = base + threadIdx.x; i < n; i += blockDim.x) map_one<V>(op, out, a, b, i);
      }
    }
  }
}

// ---- launchers -----------------------------------------------------------------------------
/// The variant the suites use unless told otherwise: one block per tile, which beat every
/// persistent grid on large copies (docs/tuning.md, "Stream kernels").
using default_variant = stream_variant<stream_layout::tiled, 4, false, false>;

/// out[i] = op(a[i], b[i]) for i < n; pointers an Op does not read may be null.
template <class V = default_variant, class T, class Op>
void stream_map(Op op, T* out, const T* a, const T* b, std::size_t n, cudaStream_t stream) {
  if (n == 0) return;
  auto kernel = stream_map_kernel<V, T, Op>;
  const std::size_t per_block = std::size_t{policy::block_threads} * V::items;
  std::size_t grid = ceil_div(n, per_block);
  if (V::persistent || grid > 0x7FFFFFFFu) grid = persistent_grid(kernel, policy::block_threads, 0, n, per_block);
  kernel<<<static_cast<unsigned>(grid), policy::block_threads, 0, stream>>>(op, out, a, b, n);
  MEMSCOPE_CHECK_LAUNCH("stream_map_kernel");
}

/// The order a read's blocks take the array in: a persistent grid striding over it (the
/// sums' order), or one block per tile (read_tiles_kernel: the blocks in flight read one
/// compact window, the fastest read order measured).
enum class read_order { persistent, tiles };

/// Number of partial sums stream_sum writes for n elements (its grid size, at least 1).
template <class T>
unsigned stream_sum_partials(std::size_t n, read_order order = read_order::persistent) {
  constexpr std::size_t tile = std::size_t{policy::block_threads} * policy::items_per_thread;
  if (order == read_order::tiles) return static_cast<unsigned>(n > tile ? ceil_div(n, tile) : 1);
  return persistent_grid(read_reduce_kernel<policy::block_threads, policy::items_per_thread, false, T>,
                         policy::block_threads, 0, n, tile);
}

/// partials[0 .. stream_sum_partials(n, order)) receive per-block sums of a[0..n); n may be 0.
template <class T>
void stream_sum(const T* a, std::size_t n, float* partials, cudaStream_t stream,
                read_order order = read_order::persistent) {
  constexpr int threads = policy::block_threads, k = policy::items_per_thread;
  const unsigned grid = stream_sum_partials<T>(n, order);
  if (order == read_order::tiles) read_tiles_kernel<threads, k, T><<<grid, threads, 0, stream>>>(a, n, partials);
  else read_reduce_kernel<threads, k, false, T><<<grid, threads, 0, stream>>>(a, n, 0, 1, partials);
  MEMSCOPE_CHECK_LAUNCH("stream_sum");
}

}  // namespace memscope::bandwidth
