#pragma once
// Controlling what the caches keep.
//
// Cache hints: hinted_scale_kernel streams x (read once) with a load hint and writes out with a
// store hint while it reuses a table y that fits L2: out[i] = x[i] * y[hot_index(i)]. Evict-first
// hints on the stream (__ldcs, __stcs) should leave y resident; the others show their cost
// (hints.cuh lists them). Where hints decide L1 hits, see read_ws_kernel (cache_bandwidth.cuh).
//
// L2 prefetch: prefetch_sum_kernel walks an array with few threads and one load in flight
// each (latency-bound), optionally issuing PTX prefetch.global.L2 `distance` iterations
// ahead. (The seed's `__prefetch` is not a CUDA function; the PTX instruction is.)
//
// L2 persistence: persistence_guard sets aside persisting L2 lines and puts an access-policy
// window on a stream, and undoes both (limit, window, persisting lines) when it goes.
//
// Alignment: record<Aligned> is 30 floats, packed (120 bytes, 4-byte aligned) or padded to a
// 128-byte cache line with __align__(128); record_sum_kernel sums each thread's record.

#include "memscope/cache/hints.cuh"
#include "memscope/core/cuda_check.hpp"
#include "memscope/core/host_device.hpp"
#include "memscope/core/launch.cuh"
#include "memscope/core/random.hpp"

#include <cstddef>
#include <cstdint>

namespace memscope::cache {

struct control_policy {
  static constexpr int block_threads = 256;
  static constexpr int prefetch_threads = 128;
};

/// Which hot element access i reads (host and device agree): a random one, the same for 16
/// consecutive accesses, so between two visits to a hot sector about 16x the hot table's size
/// streams by: plain LRU loses the hot table, a policy that protects it keeps it.
MEMSCOPE_HD std::size_t hot_index(std::uint64_t seed, std::uint64_t i, std::size_t hot_n) {
  return hash_u32(seed, i / 16) % hot_n;
}

template <load_hint L, store_hint S>
__global__ void __launch_bounds__(control_policy::block_threads)
    hinted_scale_kernel(const float* x, const float* y, std::size_t m, std::uint64_t seed, float* out, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) store_hinted<S>(out + i, __fmul_rn(load_hinted<L>(x + i), y[hot_index(seed, i, m)]));
}

template <load_hint L, store_hint S>
void hinted_scale(const float* x, const float* y, std::size_t m, std::uint64_t seed, float* out, std::size_t n,
                  cudaStream_t s) {
  if (n == 0) return;
  hinted_scale_kernel<L, S>
      <<<static_cast<unsigned>(ceil_div(n, control_policy::block_threads)), control_policy::block_threads, 0, s>>>(
          x, y, m, seed, out, n);
  MEMSCOPE_CHECK_LAUNCH("hinted_scale_kernel");
}

/// sums[thread] = the wrapping sum of a[thread], a[thread + T], ... (T threads in all).
template <bool Prefetch>
__global__ void __launch_bounds__(control_policy::prefetch_threads)
    prefetch_sum_kernel(const std::uint32_t* a, std::size_t n, unsigned distance, std::uint32_t* sums) {
  const std::size_t t = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t ahead = static_cast<std::size_t>(distance) * stride;
  std::uint32_t acc = 0;
#pragma unroll 1
  for (std::size_t i = t; i < n; i += stride) {
    if (Prefetch && i + ahead < n) asm volatile("prefetch.global.L2 [%0];" ::"l"(a + i + ahead));
    acc = acc * 31u + a[i];  // a serial chain: one load in flight per thread
  }
  sums[t] = acc;
}

template <bool Prefetch>
void prefetch_sum(const std::uint32_t* a, std::size_t n, unsigned distance, unsigned blocks, std::uint32_t* sums,
                  cudaStream_t s) {
  prefetch_sum_kernel<Prefetch><<<blocks, control_policy::prefetch_threads, 0, s>>>(a, n, distance, sums);
  MEMSCOPE_CHECK_LAUNCH("prefetch_sum_kernel");
}

/// out[i] = stream[i] + hot[hot_index(i)]: a stream read once, a hot table read at random.
template <int = 0>
__global__ void __launch_bounds__(control_policy::block_threads)
    hot_stream_kernel(const float* stream, const float* hot, std::size_t hot_n, std::uint64_t seed, float* out,
                      std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = __fadd_rn(stream[i], hot[hot_index(seed, i, hot_n)]);
}

inline void hot_stream(const float* stream, const float* hot, std::size_t hot_n, std::uint64_t seed, float* out,
                       std::size_t n, cudaStream_t s) {
  if (n == 0) return;
  hot_stream_kernel<>
      <<<static_cast<unsigned>(ceil_div(n, control_policy::block_threads)), control_policy::block_threads, 0, s>>>(
          stream, hot, hot_n, seed, out, n);
  MEMSCOPE_CHECK_LAUNCH("hot_stream_kernel");
}

/// Sets aside `set_aside` bytes of L2 for persisting lines and gives accesses to
/// [base, base + window) on `stream` the property `hit_prop` (persisting, or streaming as a
/// control) with probability `hit_ratio`, streaming otherwise. The destructor clears the
/// window, evicts the persisting lines and restores the previous set-aside limit.
class persistence_guard {
 public:
  persistence_guard(cudaStream_t stream, const void* base, std::size_t window, std::size_t set_aside, float hit_ratio,
                    cudaAccessProperty hit_prop = cudaAccessPropertyPersisting)
      : stream_(stream) {
    MEMSCOPE_CUDA_CALL(cudaDeviceGetLimit(&previous_limit_, cudaLimitPersistingL2CacheSize));
    MEMSCOPE_CUDA_CALL(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, set_aside));
    cudaStreamAttrValue attr{};
    attr.accessPolicyWindow.base_ptr = const_cast<void*>(base);
    attr.accessPolicyWindow.num_bytes = window;
    attr.accessPolicyWindow.hitRatio = hit_ratio;
    attr.accessPolicyWindow.hitProp = hit_prop;
    attr.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
    MEMSCOPE_CUDA_CALL(cudaStreamSetAttribute(stream_, cudaStreamAttributeAccessPolicyWindow, &attr));
  }
  ~persistence_guard() {
    cudaStreamAttrValue attr{};
    attr.accessPolicyWindow.num_bytes = 0;  // a zero-size window turns the policy off
    MEMSCOPE_CUDA_CALL_NOEXCEPT(cudaStreamSetAttribute(stream_, cudaStreamAttributeAccessPolicyWindow, &attr));
    MEMSCOPE_CUDA_CALL_NOEXCEPT(cudaStreamSynchronize(stream_));
    MEMSCOPE_CUDA_CALL_NOEXCEPT(cudaCtxResetPersistingL2Cache());
    MEMSCOPE_CUDA_CALL_NOEXCEPT(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, previous_limit_));
  }
  persistence_guard(const persistence_guard&) = delete;
  persistence_guard& operator=(const persistence_guard&) = delete;

  /// The set-aside size the driver actually granted (it rounds).
  static std::size_t granted() {
    std::size_t v = 0;
    MEMSCOPE_CUDA_CALL(cudaDeviceGetLimit(&v, cudaLimitPersistingL2CacheSize));
    return v;
  }

 private:
  cudaStream_t stream_;
  std::size_t previous_limit_ = 0;
};

constexpr int record_floats = 30;

template <bool Aligned>
struct record;
template <>
struct record<false> {
  float v[record_floats];
};
template <>
struct __align__(128) record<true> {
  float v[record_floats];
};
static_assert(sizeof(record<false>) == 120 && sizeof(record<true>) == 128, "record layouts");

/// out[i] = v[0] + v[1] + ... + v[29] of record i, in that order.
template <bool Aligned>
__global__ void __launch_bounds__(control_policy::block_threads)
    record_sum_kernel(const record<Aligned>* recs, float* out, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const record<Aligned> r = recs[i];
  float s = 0.0f;
#pragma unroll
  for (int k = 0; k < record_floats; ++k) s = __fadd_rn(s, r.v[k]);
  out[i] = s;
}

template <bool Aligned>
void record_sum(const record<Aligned>* recs, float* out, std::size_t n, cudaStream_t s) {
  if (n == 0) return;
  record_sum_kernel<Aligned>
      <<<static_cast<unsigned>(ceil_div(n, control_policy::block_threads)), control_policy::block_threads, 0, s>>>(
          recs, out, n);
  MEMSCOPE_CHECK_LAUNCH("record_sum_kernel");
}

}  // namespace memscope::cache
