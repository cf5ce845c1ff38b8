#pragma once
// A reference histogram computed on the GPU: one global atomic per binned sample, no plan, no
// privatisation, no shared memory. It shares only the bin rules with the library (as the CPU
// reference does), so it checks every strategy the way reference.hpp does, for inputs of a
// gigabyte that would cost more to copy to the host than to count.

#include "memscope/core/cuda_check.hpp"
#include "memscope/histogram/rules.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace memscope::histogram {

namespace detail {

template <class CountT>
__device__ void count_one(CountT* c) {
  if constexpr (sizeof(CountT) == 8) atomicAdd(reinterpret_cast<unsigned long long*>(c), 1ull);
  else atomicAdd(reinterpret_cast<unsigned int*>(c), 1u);
}

template <class CountT, class SampleT, class Rule>
__global__ void reference_count_kernel(const SampleT* samples, std::size_t n, Rule rule, CountT* counts) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const int bin = rule(samples[i]);
    if (bin >= 0) count_one(counts + bin);
  }
}

/// Pixel p of row r is samples[r * row_stride + p * Channels + a] for channel a; channel a's
/// counts start at counts + a * rules[0].num_bins (every channel has as many bins).
template <int Active, class Rule>
struct rule_set {
  Rule rules[Active];
};

template <class CountT, int Channels, int Active, class SampleT, class Rule>
__global__ void reference_pixels_kernel(const SampleT* samples, std::size_t rows, std::size_t row_pixels,
                                        std::size_t row_stride, rule_set<Active, Rule> r, CountT* counts) {
  const std::size_t n = rows * row_pixels, stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const SampleT* px = samples + (i / row_pixels) * row_stride + (i % row_pixels) * Channels;
#pragma unroll
    for (int a = 0; a < Active; ++a) {
      const int bin = r.rules[a](px[a]);
      if (bin >= 0) count_one(counts + static_cast<std::size_t>(a) * r.rules[0].num_bins + bin);
    }
  }
}

inline unsigned reference_grid(std::size_t n) {
  const std::size_t blocks = (n + 255) / 256;
  return static_cast<unsigned>(blocks < 8192 ? (blocks > 0 ? blocks : 1) : 8192);
}

}  // namespace detail

/// d_counts[0, rule.num_bins) = the histogram of d_samples[0, n) by `rule` (whose levels, for
/// a range rule, are in device memory), enqueued on `stream`.
template <class CountT, class SampleT, class Rule>
void histogram_reference_on_device(const SampleT* d_samples, std::size_t n, const Rule& rule, CountT* d_counts,
                                   cudaStream_t stream) {
  MEMSCOPE_CUDA_CALL(cudaMemsetAsync(d_counts, 0, static_cast<std::size_t>(rule.num_bins) * sizeof(CountT), stream));
  if (n == 0) return;
  detail::reference_count_kernel<<<detail::reference_grid(n), 256, 0, stream>>>(d_samples, n, rule, d_counts);
  MEMSCOPE_CHECK_LAUNCH("reference_count_kernel");
}

/// CUB's multi-channel forms: channel a's histogram at d_counts + a * rules[0].num_bins, over
/// rows of row_pixels pixels of Channels interleaved samples, row r at r * row_stride samples.
template <class CountT, int Channels, int Active, class SampleT, class Rule>
void multi_histogram_reference_on_device(const SampleT* d_samples, std::size_t rows, std::size_t row_pixels,
                                         std::size_t row_stride, const Rule (&rules)[Active], CountT* d_counts,
                                         cudaStream_t stream) {
  detail::rule_set<Active, Rule> r;
  for (int a = 0; a < Active; ++a) r.rules[a] = rules[a];
  const std::size_t bins = static_cast<std::size_t>(rules[0].num_bins);
  MEMSCOPE_CUDA_CALL(cudaMemsetAsync(d_counts, 0, bins * Active * sizeof(CountT), stream));
  if (rows * row_pixels == 0) return;
  detail::reference_pixels_kernel<CountT, Channels, Active>
      <<<detail::reference_grid(rows * row_pixels), 256, 0, stream>>>(d_samples, rows, row_pixels, row_stride, r,
                                                                      d_counts);
  MEMSCOPE_CHECK_LAUNCH("reference_pixels_kernel");
}

}  // namespace memscope::histogram
