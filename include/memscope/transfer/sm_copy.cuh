#pragma once
// Copies and pattern checks run by the SMs on any pointers a kernel can address: device
// memory, mapped pinned host memory (zero-copy over PCIe or NVLink-C2C), a peer GPU's memory
// (over NVLink or PCIe). The copy engine's counterpart is cudaMemcpyAsync; the transfer and
// peer suites time both on the same bytes.

#include "memscope/core/cuda_check.hpp"
#include "memscope/core/launch.cuh"
#include "memscope/transfer/byte_pattern.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

namespace memscope::transfer {

struct policy {
  static constexpr int block_threads = 512;
  /// 16-byte loads each thread keeps in flight: a remote read (PCIe, NVLink) waits microseconds,
  /// so the SMs must hold more than a link's bandwidth-delay product (~64 KB per SM here).
  static constexpr int vectors_per_thread = 8;
  /// From this many bytes per copy, both copies of a launch (both directions of a link) are
  /// served by every thread, half its loads in flight for each; below it the grid's blocks
  /// split between them, since a thread's writes would wait behind its reads' latency
  /// (docs/tuning.md, "SM copy both ways"). Unmeasured over NVLink.
  static constexpr std::size_t every_thread_both_min_bytes = std::size_t{1} << 30;
  /// Pointers that are not all 16-byte aligned: bytes one by one bring the destination onto a
  /// whole line of this many bytes, the rest goes in 16-byte stores. Onto 16 bytes only, a
  /// warp's device-to-host stores straddle the link's lines (docs/tuning.md, "SM copy
  /// alignment").
  static constexpr unsigned shifted_align = 128;
};

namespace detail {
inline bool aligned16(const void* p) { return (reinterpret_cast<std::uintptr_t>(p) & 15u) == 0; }

/// Bytes 4q + r .. 4q + r + 15 of lo:hi (sel = 0x3210 + r * 0x1111 for __byte_perm).
__device__ __forceinline__ uint4 join_shifted(uint4 lo, uint4 hi, unsigned q, unsigned sel) {
  const unsigned w[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
  unsigned v[5];
#pragma unroll
  for (int j = 0; j < 5; ++j) v[j] = q == 0 ? w[j] : q == 1 ? w[j + 1] : q == 2 ? w[j + 2] : w[j + 3];
  return make_uint4(__byte_perm(v[0], v[1], sel), __byte_perm(v[1], v[2], sel), __byte_perm(v[2], v[3], sel),
                    __byte_perm(v[3], v[4], sel));
}

/// dst[0, bytes) = src[0, bytes) for pointers of any alignment, still in 16-byte stores: a head
/// of bytes brings dst onto policy::shifted_align, then each thread loads the two aligned
/// 16-byte chunks of src that its 16 bytes straddle (the next thread loads the same lines, so
/// the link moves each once) and joins them with __byte_perm. Byte by byte ran at a fraction of
/// cudaMemcpyAsync (docs/tuning.md, "SM copy alignment").
__device__ __forceinline__ void shifted_copy(std::uint8_t* __restrict__ dst, const std::uint8_t* __restrict__ src,
                                             std::size_t bytes, std::size_t tid, std::size_t stride) {
  constexpr unsigned align = policy::shifted_align;
  constexpr int k = policy::vectors_per_thread / 2;  // two loads a chunk
  std::size_t head = (align - (reinterpret_cast<std::uintptr_t>(dst) & (align - 1))) & (align - 1);
  const auto phase = [&](std::size_t h) {
    return static_cast<unsigned>(reinterpret_cast<std::uintptr_t>(src + h) & 15u);
  };
  if (phase(head) > head) head += align;  // the first chunk loaded may not start before src
  head = head < bytes ? head : bytes;
  const unsigned o = phase(head);
  const std::size_t rem = bytes - head;
  // Chunk i loads aligned chunks i and (where o != 0) i + 1, both within the source.
  const std::size_t n = o == 0 ? rem / 16 : (rem + o >= 32 ? (rem + o - 16) / 16 : 0);
  auto* __restrict__ d = reinterpret_cast<uint4*>(dst + head);
  const auto* __restrict__ a = reinterpret_cast<const uint4*>(src + head - o);
  const unsigned q = o >> 2, sel = 0x3210u + (o & 3u) * 0x1111u;
  const uint4 zero = make_uint4(0, 0, 0, 0);
  std::size_t i = tid;
  for (; i + (k - 1) * stride < n; i += k * stride) {
    uint4 lo[k], hi[k];
#pragma unroll
    for (int j = 0; j < k; ++j) lo[j] = a[i + j * stride];
#pragma unroll
    for (int j = 0; j < k; ++j) hi[j] = o ? a[i + j * stride + 1] : zero;
#pragma unroll
    for (int j = 0; j < k; ++j) d[i + j * stride] = join_shifted(lo[j], hi[j], q, sel);
  }
  for (; i < n; i += stride) d[i] = join_shifted(a[i], o ? a[i + 1] : zero, q, sel);
  if (tid < head) dst[tid] = src[tid];
  for (std::size_t b = head + 16 * n + tid; b < bytes; b += stride) dst[b] = src[b];
}
}  // namespace detail

/// One copy of `bytes` from src to dst.
struct copy_job {
  std::uint8_t* dst;
  const std::uint8_t* src;
};

/// dst[0, bytes) = src[0, bytes) for each job, so two copies (both directions of a link) share
/// the GPU in one launch instead of queueing behind each other: blockIdx.y picks a block's job,
/// or with EveryThreadBoth every thread copies both (policy::every_thread_both_min_bytes says
/// where each wins). Vector: every pointer 16-byte aligned; otherwise detail::shifted_copy.
template <bool Vector, bool EveryThreadBoth = false>
__global__ void __launch_bounds__(policy::block_threads)
    sm_copy_kernel(copy_job first, copy_job second, std::size_t bytes) {
  static_assert(Vector || !EveryThreadBoth, "unaligned jobs take the grid's blocks split between them");
  // Restrict-qualified pointers per job, not an array of jobs: without them ptxas took twice
  // the registers for one job and the blocks-split copy ran slower. All four at function
  // scope: declared inside the vector branch, the loads lost their .nc form and the registers
  // doubled again.
  const copy_job a = EveryThreadBoth || blockIdx.y == 0 ? first : second;
  std::uint8_t* __restrict__ dst = a.dst;
  const std::uint8_t* __restrict__ src = a.src;
  std::uint8_t* __restrict__ dst_b = second.dst;
  const std::uint8_t* __restrict__ src_b = second.src;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t tid = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if constexpr (!Vector) {
    detail::shifted_copy(dst, src, bytes, tid, stride);
  } else {
    const std::size_t n = bytes / 16;
    auto* d = reinterpret_cast<uint4*>(dst);
    const auto* s = reinterpret_cast<const uint4*>(src);
    auto* d_b = reinterpret_cast<uint4*>(dst_b);
    const auto* s_b = reinterpret_cast<const uint4*>(src_b);
    constexpr int k = policy::vectors_per_thread / (EveryThreadBoth ? 2 : 1);
    std::size_t i = tid;
    for (; i + (k - 1) * stride < n; i += k * stride) {
      uint4 v[k], v_b[k];
#pragma unroll
      for (int j = 0; j < k; ++j) v[j] = s[i + j * stride];
      if constexpr (EveryThreadBoth)
#pragma unroll
        for (int j = 0; j < k; ++j) v_b[j] = s_b[i + j * stride];
#pragma unroll
      for (int j = 0; j < k; ++j) d[i + j * stride] = v[j];
      if constexpr (EveryThreadBoth)
#pragma unroll
        for (int j = 0; j < k; ++j) d_b[i + j * stride] = v_b[j];
    }
    for (; i < n; i += stride) {
      d[i] = s[i];
      if constexpr (EveryThreadBoth) d_b[i] = s_b[i];
    }
    for (std::size_t t = n * 16 + tid; t < bytes; t += stride) {
      dst[t] = src[t];
      if constexpr (EveryThreadBoth) dst_b[t] = src_b[t];
    }
  }
}

/// Enqueues SM copies of `bytes` each, one per job (one or two), in one launch; any pointers a
/// kernel can address (device, mapped host, peer), of any alignment. Two aligned jobs of at
/// least `every_thread_both_from` bytes are served by every thread, else by the grid's blocks
/// split between them (a parameter so that tests reach both kernels at small sizes).
inline void sm_copy_jobs(copy_job first, const copy_job* second, std::size_t bytes, cudaStream_t stream,
                         std::size_t every_thread_both_from = policy::every_thread_both_min_bytes) {
  if (bytes == 0) return;
  const copy_job other = second ? *second : first;
  const bool vector = detail::aligned16(first.dst) && detail::aligned16(first.src) && detail::aligned16(other.dst) &&
                      detail::aligned16(other.src);
  const std::size_t units = bytes / 16 + 1;
  const bool every_thread = vector && second && bytes >= every_thread_both_from;
  const auto kernel = every_thread ? sm_copy_kernel<true, true> : vector ? sm_copy_kernel<true> : sm_copy_kernel<false>;
  // Split, the GPU's resident blocks are shared between the jobs (a grid row each); with every
  // thread copying both, or loading two chunks a chunk (unaligned), a thread holds half as
  // many chunks of each.
  const unsigned rows = second && !every_thread ? 2 : 1;
  const std::size_t per_block =
      std::size_t{policy::block_threads} * policy::vectors_per_thread / (every_thread || !vector ? 2 : 1);
  const unsigned full = persistent_grid(kernel, policy::block_threads, 0, units * rows, per_block);
  const dim3 grid(std::max(1u, full / rows), rows);
  kernel<<<grid, policy::block_threads, 0, stream>>>(first, other, bytes);
  MEMSCOPE_CHECK_LAUNCH("sm_copy_kernel");
}

inline void sm_copy(void* dst, const void* src, std::size_t bytes, cudaStream_t stream) {
  sm_copy_jobs({static_cast<std::uint8_t*>(dst), static_cast<const std::uint8_t*>(src)}, nullptr, bytes, stream);
}

/// Two copies of `bytes` at once (both directions of a link), sharing the GPU.
inline void sm_copy_both(void* dst_a, const void* src_a, void* dst_b, const void* src_b, std::size_t bytes,
                         cudaStream_t stream,
                         std::size_t every_thread_both_from = policy::every_thread_both_min_bytes) {
  const copy_job b{static_cast<std::uint8_t*>(dst_b), static_cast<const std::uint8_t*>(src_b)};
  sm_copy_jobs({static_cast<std::uint8_t*>(dst_a), static_cast<const std::uint8_t*>(src_a)}, &b, bytes, stream,
               every_thread_both_from);
}

// Word-wise where the buffer is 4-byte aligned (every allocation is): byte-wise stores to
// mapped host memory would cross the link as partial writes.
template <int = 0>  // a template: the header may be included by several files of one program
__global__ void fill_pattern_kernel(std::uint8_t* __restrict__ dst, std::size_t bytes, std::uint64_t seed) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t tid = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const bool words = (reinterpret_cast<std::uintptr_t>(dst) & 3u) == 0;
  const std::size_t body = words ? bytes / 4 : 0;
  for (std::size_t w = tid; w < body; w += stride) reinterpret_cast<std::uint32_t*>(dst)[w] = pattern_word(seed, w);
  for (std::size_t i = body * 4 + tid; i < bytes; i += stride) dst[i] = pattern_byte(seed, i);
}

template <int = 0>
__global__ void count_mismatches_kernel(const std::uint8_t* __restrict__ src, std::size_t bytes, std::uint64_t seed,
                                        unsigned long long* __restrict__ out) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t tid = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const bool words = (reinterpret_cast<std::uintptr_t>(src) & 3u) == 0;
  const std::size_t body = words ? bytes / 4 : 0;
  unsigned long long bad = 0, first = ~0ull;
  const auto wrong = [&](std::size_t i) {
    first = bad == 0 ? i : first;
    ++bad;
  };
  for (std::size_t w = tid; w < body; w += stride) {
    const std::uint32_t got = reinterpret_cast<const std::uint32_t*>(src)[w], want = pattern_word(seed, w);
    if (got != want)
      for (int b = 0; b < 4; ++b)
        if (((got ^ want) >> (8 * b)) & 0xFFu) wrong(4 * w + b);
  }
  for (std::size_t i = body * 4 + tid; i < bytes; i += stride)
    if (src[i] != pattern_byte(seed, i)) wrong(i);
  if (bad) {
    atomicAdd(&out[0], bad);
    atomicMin(&out[1], first);
  }
}

/// Fills any addressable memory with the pattern from the GPU.
inline void fill_pattern(void* dst, std::size_t bytes, std::uint64_t seed, cudaStream_t stream) {
  if (bytes == 0) return;
  const auto kernel = fill_pattern_kernel<>;
  const unsigned grid = persistent_grid(kernel, 256, 0, bytes / 4 + 1, 256);
  kernel<<<grid, 256, 0, stream>>>(static_cast<std::uint8_t*>(dst), bytes, seed);
  MEMSCOPE_CHECK_LAUNCH("fill_pattern_kernel");
}

/// Bytes of any addressable memory that differ from the pattern, and the first one (bytes when
/// none): checked by the GPU, so gigabytes cost milliseconds. Synchronises `stream`.
inline std::pair<std::size_t, std::size_t> count_pattern_mismatches(const void* src, std::size_t bytes,
                                                                    std::uint64_t seed, cudaStream_t stream) {
  if (bytes == 0) return {0, 0};
  unsigned long long* d_out = nullptr;
  MEMSCOPE_CUDA_CALL(cudaMallocAsync(reinterpret_cast<void**>(&d_out), 2 * sizeof(unsigned long long), stream));
  const unsigned long long init[2] = {0, ~0ull};
  unsigned long long got[2] = {0, 0};
  MEMSCOPE_CUDA_CALL(cudaMemcpyAsync(d_out, init, sizeof init, cudaMemcpyHostToDevice, stream));
  const unsigned grid = persistent_grid(count_mismatches_kernel<>, 256, 0, bytes, 256 * 16);
  count_mismatches_kernel<><<<grid, 256, 0, stream>>>(static_cast<const std::uint8_t*>(src), bytes, seed, d_out);
  MEMSCOPE_CHECK_LAUNCH("count_mismatches_kernel");
  MEMSCOPE_CUDA_CALL(cudaMemcpyAsync(got, d_out, sizeof got, cudaMemcpyDeviceToHost, stream));
  MEMSCOPE_CUDA_CALL(cudaFreeAsync(d_out, stream));
  MEMSCOPE_CUDA_CALL(cudaStreamSynchronize(stream));
  return {static_cast<std::size_t>(got[0]), got[0] ? static_cast<std::size_t>(got[1]) : bytes};
}

/// Checks any addressable memory against the pattern on the GPU. Synchronises `stream`.
inline verify_result verify_pattern(const void* src, std::size_t bytes, std::uint64_t seed, cudaStream_t stream,
                                    const std::string& what) {
  const auto bad = count_pattern_mismatches(src, bytes, seed, stream);
  return pattern_verdict(bad.first, bad.second, bytes, what);
}

}  // namespace memscope::transfer
