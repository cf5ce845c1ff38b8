#pragma once
// Sum reductions, from the seed's global-memory halving to grid-stride kernels at the read's rate.
// Every variant is a block-level building block plus a kernel; multi-pass variants reduce the
// per-block partials again until one value is left. Works for any n, including 0.
//
// The seed's code had three bugs, fixed here: the halving loop must start at blockDim/2 (not
// N<<1), the block's result is the shared (or scratch) element 0 (not x[0] of the input), and
// the grid must cover any n (elements past n count as zero).

#include "memscope/core/cuda_check.hpp"
#include "memscope/core/device_buffer.hpp"
#include "memscope/core/launch.cuh"

#include <cub/device/device_reduce.cuh>
#include <cuda/atomic>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace memscope::reduce {

struct policy {
  static constexpr int block_threads = 256;  // a power of two: the halving loops need it
  static constexpr int vec_items = 4;        // 16-byte loads in flight per thread (grid_stride_vec; vec8 doubles it)
  static constexpr int tail_vectors = 4;     // 16-byte loads of partials in flight per thread, adding them
  // tiles_pdl: each block reads up to chunk_tiles consecutive tiles (block_threads * vec_items
  // vectors each), blocks in launch order, as long as that leaves min_waves waves of blocks.
  // A block per few tiles keeps the one-block-per-tile read's rate with several times fewer
  // partials (docs/tuning.md, "Reduce chunks").
  static constexpr int chunk_tiles = 8;
  static constexpr int min_waves = 4;
  static constexpr int finish_threads = 1024;  // the one block that adds tiles_pdl's partials
  static_assert((block_threads & (block_threads - 1)) == 0, "halving needs a power-of-two block");
  static_assert(block_threads * 8 <= 48 * 1024, "static shared memory must fit the default 48 KB");
};

enum class variant {
  global_inplace,
  interleaved,
  static_smem,
  dynamic_smem,
  warp_shuffle,
  grid_stride_vec,
  grid_stride_vec8,
  grid_stride_red,
  tiles_pdl
};

// ---- block-level building blocks -------------------------------------------------------------

/// Sequential addressing: active threads are contiguous, so whole warps retire together and
/// shared-memory accesses stay conflict-free. Leaves the block's sum in s[0].
template <class T>
__device__ __forceinline__ void block_halving_sequential(T* s) {
  for (int offset = blockDim.x / 2; offset > 0; offset >>= 1) {
    if (threadIdx.x < offset) s[threadIdx.x] += s[threadIdx.x + offset];
    __syncthreads();
  }
}

/// Interleaved addressing (the textbook first attempt): threads whose index is a multiple of
/// 2*stride work, so every warp stays divergent and accesses collide in shared-memory banks.
template <class T>
__device__ __forceinline__ void block_halving_interleaved(T* s) {
  for (int stride = 1; stride < blockDim.x; stride <<= 1) {
    if (threadIdx.x % (2 * stride) == 0) s[threadIdx.x] += s[threadIdx.x + stride];
    __syncthreads();
  }
}

template <class T>
__device__ __forceinline__ T warp_sum(T v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xFFFFFFFFu, v, offset);
  return v;
}

/// Shuffles within warps, one shared slot per warp, shuffles again. Result valid in thread 0.
template <class T>
__device__ __forceinline__ T block_sum_shuffle(T v) {
  __shared__ T warp_sums[32];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  v = warp_sum(v);
  if (lane == 0) warp_sums[warp] = v;
  __syncthreads();
  const int warps = blockDim.x >> 5;
  v = threadIdx.x < warps ? warp_sums[lane] : T(0);
  if (warp == 0) v = warp_sum(v);
  return v;
}

template <class T>
struct vec4;
template <>
struct vec4<float> {
  using type = float4;
};
template <>
struct vec4<int> {
  using type = int4;
};

template <class V>
__device__ __forceinline__ auto vector_sum(V v) {
  return (v.x + v.y) + (v.z + v.w);
}

/// The block's sum of p[0..count), valid in thread 0; p 16-byte aligned. A serial tail after a
/// whole read, so the loads (from L2, where the partials were stored) are 16 bytes wide and
/// policy::tail_vectors of them are in flight per thread.
template <class T>
__device__ __forceinline__ T block_sum_of(const T* __restrict__ p, unsigned count) {
  using V = typename vec4<T>::type;
  constexpr int k = policy::tail_vectors;
  const V* pv = reinterpret_cast<const V*>(p);
  const unsigned vectors = count / 4;
  T total = T(0);
  for (unsigned b0 = threadIdx.x; b0 < vectors; b0 += k * blockDim.x) {
    V part[k];
#pragma unroll
    for (int u = 0; u < k; ++u) {
      const unsigned b = b0 + u * blockDim.x;
      part[u] = b < vectors ? __ldcg(pv + b) : V{};
    }
#pragma unroll
    for (int u = 0; u < k; ++u) total += vector_sum(part[u]);
  }
  if (threadIdx.x < count % 4) total += __ldcg(p + vectors * 4 + threadIdx.x);
  return block_sum_shuffle(total);
}

// ---- kernels: one pass, partials[blockIdx.x] = sum of the block's blockDim.x elements ----------

/// The seed's version: halving in place in global memory. It must not destroy the input, so each
/// block first copies its segment to `scratch` (same size as the grid's coverage).
template <class T>
__global__ void reduce_global_inplace_kernel(const T* __restrict__ in, std::size_t n, T* scratch, T* partials) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  T* x = scratch + static_cast<std::size_t>(blockIdx.x) * blockDim.x;
  x[threadIdx.x] = i < n ? in[i] : T(0);
  __syncthreads();
  for (int offset = blockDim.x / 2; offset > 0; offset >>= 1) {
    if (threadIdx.x < offset) x[threadIdx.x] += x[threadIdx.x + offset];
    __syncthreads();
  }
  if (threadIdx.x == 0) partials[blockIdx.x] = x[0];
}

template <class T, bool Interleaved>
__global__ void __launch_bounds__(policy::block_threads)
    reduce_static_smem_kernel(const T* __restrict__ in, std::size_t n, T* __restrict__ partials) {
  __shared__ T s[policy::block_threads];
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  s[threadIdx.x] = i < n ? in[i] : T(0);
  __syncthreads();
  if constexpr (Interleaved) block_halving_interleaved(s);
  else block_halving_sequential(s);
  if (threadIdx.x == 0) partials[blockIdx.x] = s[0];
}

/// As static_smem, but the array is sized at launch (third <<<>>> argument). It must be declared
/// as an unsized extern array, not a pointer; a byte array avoids clashes between the T's.
template <class T>
__global__ void __launch_bounds__(policy::block_threads)
    reduce_dynamic_smem_kernel(const T* __restrict__ in, std::size_t n, T* __restrict__ partials) {
  extern __shared__ __align__(16) unsigned char dynamic_smem[];
  T* s = reinterpret_cast<T*>(dynamic_smem);
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  s[threadIdx.x] = i < n ? in[i] : T(0);
  __syncthreads();
  block_halving_sequential(s);
  if (threadIdx.x == 0) partials[blockIdx.x] = s[0];
}

template <class T>
__global__ void __launch_bounds__(policy::block_threads)
    reduce_warp_shuffle_kernel(const T* __restrict__ in, std::size_t n, T* __restrict__ partials) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const T v = block_sum_shuffle(i < n ? in[i] : T(0));
  if (threadIdx.x == 0) partials[blockIdx.x] = v;
}

/// How the 16-byte-load sums end: block 0 adds the n % 4 elements past the last whole vector,
/// each thread folds its per-load accumulators (one per load in flight, so the loads do not
/// wait on one another's adds), and the block's sum comes by shuffle (valid in thread 0).
template <class T, int K>
__device__ __forceinline__ T block_total(T (&acc)[K], const T* __restrict__ in, std::size_t n) {
  if (blockIdx.x == 0 && threadIdx.x < n % 4) acc[0] += in[n / 4 * 4 + threadIdx.x];
  T sum = T(0);
#pragma unroll
  for (int u = 0; u < K; ++u) sum += acc[u];
  return block_sum_shuffle(sum);
}

/// One round of K 16-byte loads, inv[i + u * step] for u < K where that is below nv (zero
/// beyond), all issued before any add, then acc[u] += each vector's sum: a round costs one
/// memory latency however many of its loads are live.
template <class V, class T, int K>
__device__ __forceinline__ void load_round(const V* __restrict__ inv, std::size_t i, std::size_t step, std::size_t nv,
                                           T (&acc)[K]) {
  V v[K];
#pragma unroll
  for (int u = 0; u < K; ++u) v[u] = i + u * step < nv ? inv[i + u * step] : V{};
#pragma unroll
  for (int u = 0; u < K; ++u) acc[u] += vector_sum(v[u]);
}

/// A persistent grid's share of the sum: 16-byte loads, k in flight per thread, the block's
/// sum by shuffle (valid in thread 0).
template <class T, int Items>
__device__ __forceinline__ T grid_stride_block_sum(const T* __restrict__ in, std::size_t n) {
  using V = typename vec4<T>::type;
  constexpr int k = Items;
  T acc[k] = {};
  // cudaMalloc gives 256-byte alignment, so the vector part starts aligned; the tail (n % 4)
  // is read as scalars.
  const std::size_t nv = n / 4;
  const V* inv = reinterpret_cast<const V*>(in);
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (; i + (k - 1) * stride < nv; i += k * stride) {
    V v[k];
#pragma unroll
    for (int u = 0; u < k; ++u) v[u] = inv[i + u * stride];
#pragma unroll
    for (int u = 0; u < k; ++u) acc[u] += vector_sum(v[u]);
  }
  // Fewer than k vectors are left per thread: one predicated round keeps them in flight
  // together (one at a time costs a memory latency each at the end of every sum).
  if (i < nv) load_round(inv, i, stride, nv, acc);
  return block_total(acc, in, n);
}

/// One launch for the whole sum: a persistent grid (grid_stride_block_sum), then the last block
/// to finish (a counter, after a fence) adds the partials: deterministic, at the cost of a
/// dependent chain after the last read (fence, counter, the partials' loads).
/// `counter` must be zero before the launch; the last block resets it for the next one.
template <class T, int Items>
__global__ void __launch_bounds__(policy::block_threads)
    reduce_grid_stride_vec_kernel(const T* __restrict__ in, std::size_t n, T* __restrict__ partials,
                                  unsigned* __restrict__ counter, T* __restrict__ out) {
  const T sum = grid_stride_block_sum<T, Items>(in, n);
  __shared__ bool is_last;
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = sum;
    __threadfence();  // the partial is visible device-wide before the counter says so
    is_last = atomicAdd(counter, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!is_last) return;
  __threadfence();
  const T total = block_sum_of(partials, gridDim.x);
  if (threadIdx.x == 0) {
    *out = total;
    *counter = 0;
  }
}

/// One launch whose end costs no more than a read kernel's: every block adds its partial into
/// *out with one atomic (fire-and-forget, like the read's store of its partial) instead of
/// leaving it for a last block. Block 0 zeroes *out first and opens gate[0]; the others wait at
/// the gate (open long before any block has read its share) before their add, then count
/// themselves in gate[1]; the last one closes the gate for the next launch. It must be a
/// cooperative launch (every block resident, so block 0 runs). Integers are exact; float adds
/// happen in the order the blocks finish, so the last bits of a float sum can differ from run
/// to run (and global float atomics flush subnormals to zero). `gate` must be zero before the
/// first launch.
template <class T, int Items>
__global__ void __launch_bounds__(policy::block_threads)
    reduce_grid_stride_red_kernel(const T* __restrict__ in, std::size_t n, unsigned* __restrict__ gate,
                                  T* __restrict__ out) {
  cuda::atomic_ref<unsigned, cuda::thread_scope_device> open(gate[0]);
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    *out = T(0);
    open.store(1u, cuda::memory_order_release);  // the zero is visible before the gate opens
  }
  const T sum = grid_stride_block_sum<T, Items>(in, n);
  if (threadIdx.x != 0) return;
  while (open.load(cuda::memory_order_acquire) == 0) {}
  atomicAdd(out, sum);
  if (atomicAdd(gate + 1, 1u) == gridDim.x - 1) {
    gate[0] = 0;
    gate[1] = 0;
  }
}

/// tiles_pdl's first kernel: block b reads tiles [b * chunk, (b + 1) * chunk) of
/// block_threads * Items vectors, Items loads in flight per thread, and leaves one partial. The
/// blocks start in launch order, so the blocks in flight read one compact window, as one block
/// per tile does (the fastest read order); no combine here (a fence and a counter's round trip
/// before every block's exit cost more than the second launch, docs/tuning.md, "Reduce chunks").
template <class T, int Items>
__global__ void __launch_bounds__(policy::block_threads)
    reduce_tiles_kernel(const T* __restrict__ in, std::size_t n, unsigned chunk, T* __restrict__ partials) {
  using V = typename vec4<T>::type;
  constexpr std::size_t tile = std::size_t{policy::block_threads} * Items;
  const std::size_t nv = n / 4;
  const V* inv = reinterpret_cast<const V*>(in);
  T acc[Items] = {};
  const std::size_t first = std::size_t{blockIdx.x} * chunk * tile + threadIdx.x;
#pragma unroll 1
  for (unsigned c = 0; c < chunk; ++c) load_round(inv, first + c * tile, policy::block_threads, nv, acc);
  const T sum = block_total(acc, in, n);
  if (threadIdx.x == 0) partials[blockIdx.x] = sum;
}

/// tiles_pdl's second kernel: one block adds the partials in a fixed order (deterministic).
/// Launched as a programmatic dependent launch, it is set up while the first kernel drains.
template <class T>
__global__ void __launch_bounds__(policy::finish_threads)
    reduce_partials_kernel(const T* __restrict__ partials, unsigned count, T* __restrict__ out) {
  wait_for_prior_grid();
  const T total = block_sum_of(partials, count);
  if (threadIdx.x == 0) *out = total;
}

// ---- launchers ---------------------------------------------------------------------------------

/// Scratch a reduction needs; allocate once, reuse across launches (like CUB's temp storage).
template <class T>
struct reduce_workspace {
  device_buffer<T> ping, pong, scratch;
  device_buffer<unsigned> counter;  // [0]: grid_stride_vec's blocks done; [1], [2]: grid_stride_red's gate
  explicit reduce_workspace(std::size_t n)
      : ping(ceil_div(n, policy::block_threads) + 1),
        pong(ceil_div(ceil_div(n, policy::block_threads), policy::block_threads) + 1),
        scratch(ceil_div(n, policy::block_threads) * policy::block_threads + policy::block_threads),
        counter(3) {
    MEMSCOPE_CUDA_CALL(cudaMemset(counter.data(), 0, counter.bytes()));
  }
};

/// Why grid_stride_red cannot run on `device` (it needs a cooperative launch), or "".
inline std::string red_unsupported(int device) {
  return device_attribute(cudaDevAttrCooperativeLaunch, device)
             ? ""
             : "grid_stride_red needs a cooperative launch, which this GPU or driver does not offer";
}

/// tiles_pdl's first grid for n values: `chunk` consecutive tiles per block, at most
/// policy::chunk_tiles and at least 1, and as many as leave policy::min_waves waves of blocks.
struct tiles_grid {
  unsigned blocks, chunk;
};
template <class T>
tiles_grid tiles_pdl_grid(std::size_t n) {
  constexpr std::size_t tile = std::size_t{policy::block_threads} * policy::vec_items;
  const std::size_t tiles = ceil_div(n / 4, tile);
  const std::size_t resident = resident_blocks(reduce_tiles_kernel<T, policy::vec_items>, policy::block_threads, 0);
  std::size_t chunk = tiles / (std::size_t{policy::min_waves} * resident);
  chunk = chunk < 1 ? 1 : chunk > policy::chunk_tiles ? policy::chunk_tiles : chunk;
  const std::size_t blocks = ceil_div(tiles, chunk);
  return {static_cast<unsigned>(blocks > 0 ? blocks : 1), static_cast<unsigned>(chunk)};
}

namespace detail {
template <class T>
void one_pass(variant v, const T* in, std::size_t n, T* partials, T* scratch, cudaStream_t s) {
  const unsigned grid = static_cast<unsigned>(ceil_div(n, policy::block_threads));
  constexpr int b = policy::block_threads;
  switch (v) {
    case variant::global_inplace:
      reduce_global_inplace_kernel<T><<<grid, b, 0, s>>>(in, n, scratch, partials);
      break;
    case variant::interleaved:
      reduce_static_smem_kernel<T, true><<<grid, b, 0, s>>>(in, n, partials);
      break;
    case variant::static_smem:
      reduce_static_smem_kernel<T, false><<<grid, b, 0, s>>>(in, n, partials);
      break;
    case variant::dynamic_smem:
      reduce_dynamic_smem_kernel<T><<<grid, b, b * sizeof(T), s>>>(in, n, partials);
      break;
    case variant::warp_shuffle:
      reduce_warp_shuffle_kernel<T><<<grid, b, 0, s>>>(in, n, partials);
      break;
    default:
      throw std::logic_error("one_pass: not a multi-pass variant");
  }
  MEMSCOPE_CHECK_LAUNCH("reduce pass");
}
}  // namespace detail

/// *d_out = sum of in[0..n). n = 0 gives 0. The grid-stride variants (and tiles_pdl) read
/// 16-byte vectors and need `in` 16-byte aligned (cudaMalloc memory is); others take any
/// pointer. grid_stride_red throws `unsupported` where a cooperative launch is not offered.
template <class T>
void sum(variant v, const T* in, std::size_t n, T* d_out, reduce_workspace<T>& ws, cudaStream_t s) {
  const bool vectors = v == variant::grid_stride_vec || v == variant::grid_stride_vec8 ||
                       v == variant::grid_stride_red || v == variant::tiles_pdl;
  if (vectors && reinterpret_cast<std::uintptr_t>(in) % 16 != 0)
    throw std::invalid_argument(
        "reduce: the grid-stride variants need a 16-byte aligned input (got an address 4 bytes off "
        "an aligned one?); use another variant or an aligned buffer");
  if (n == 0) {
    MEMSCOPE_CUDA_CALL(cudaMemsetAsync(d_out, 0, sizeof(T), s));
    return;
  }
  if (v == variant::grid_stride_red) {
    int device = 0;
    MEMSCOPE_CUDA_CALL(cudaGetDevice(&device));
    if (const auto why = red_unsupported(device); !why.empty()) MEMSCOPE_THROW(unsupported(why));
    const auto kernel = reduce_grid_stride_red_kernel<T, policy::vec_items>;
    // persistent_grid never asks for more blocks than can be resident: a cooperative launch's rule.
    const unsigned grid = persistent_grid(kernel, policy::block_threads, 0, ceil_div(n, 4),
                                          std::size_t{policy::block_threads} * policy::vec_items);
    unsigned* gate = ws.counter.data() + 1;
    void* args[] = {&in, &n, &gate, &d_out};
    MEMSCOPE_CUDA_CALL(
        cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(kernel), grid, policy::block_threads, args, 0, s));
    return;
  }
  if (v == variant::tiles_pdl) {
    const tiles_grid grid = tiles_pdl_grid<T>(n);
    reduce_tiles_kernel<T, policy::vec_items>
        <<<grid.blocks, policy::block_threads, 0, s>>>(in, n, grid.chunk, ws.ping.data());
    MEMSCOPE_CHECK_LAUNCH("reduce_tiles_kernel");
    launch_dependent(reduce_partials_kernel<T>, 1, policy::finish_threads, s, ws.ping.data(), grid.blocks, d_out);
    return;
  }
  if (v == variant::grid_stride_vec || v == variant::grid_stride_vec8) {
    auto launch = [&](auto kernel, int items) {
      const unsigned grid =
          persistent_grid(kernel, policy::block_threads, 0, ceil_div(n, 4), std::size_t{policy::block_threads} * items);
      kernel<<<grid, policy::block_threads, 0, s>>>(in, n, ws.ping.data(), ws.counter.data(), d_out);
      MEMSCOPE_CHECK_LAUNCH("reduce_grid_stride_vec_kernel");
    };
    if (v == variant::grid_stride_vec) launch(reduce_grid_stride_vec_kernel<T, policy::vec_items>, policy::vec_items);
    else launch(reduce_grid_stride_vec_kernel<T, 2 * policy::vec_items>, 2 * policy::vec_items);
    return;
  }
  // Multi-pass: partials ping-pong until one value is left.
  const T* src = in;
  T* bufs[2] = {ws.ping.data(), ws.pong.data()};
  int which = 0;
  std::size_t count = n;
  while (true) {
    const std::size_t blocks = ceil_div(count, policy::block_threads);
    T* dst = blocks == 1 ? d_out : bufs[which];
    detail::one_pass(v, src, count, dst, ws.scratch.data(), s);
    if (blocks == 1) return;
    src = dst;
    count = blocks;
    which ^= 1;
  }
}

/// CUB's DeviceReduce::Sum with its temp storage kept between calls.
template <class T>
class cub_sum {
 public:
  cub_sum(const T* in, std::size_t n, T* d_out) : in_(in), n_(n), out_(d_out) {
    std::size_t bytes = 0;
    MEMSCOPE_CUDA_CALL(cub::DeviceReduce::Sum(nullptr, bytes, in_, out_, static_cast<std::int64_t>(n_)));
    temp_ = device_buffer<unsigned char>(bytes);
  }
  void operator()(cudaStream_t s) {
    std::size_t bytes = temp_.size();
    MEMSCOPE_CUDA_CALL(cub::DeviceReduce::Sum(temp_.data(), bytes, in_, out_, static_cast<std::int64_t>(n_), s));
  }

 private:
  const T* in_;
  std::size_t n_;
  T* out_;
  device_buffer<unsigned char> temp_;
};

}  // namespace memscope::reduce
