#pragma once
// The GPU baseline every k-mer counter is measured against: sort the codes (CUB radix sort over
// their 2k bits) and count the runs of equal codes (CUB run-length encoding). It shares no code
// with the hash table, so each checks the other. Windows that are no k-mer (no_kmer, all bits
// set) sort last, past every canonical code, and make one run at the end that is dropped.

#include "memscope/core/cuda_check.hpp"
#include "memscope/core/device_buffer.hpp"
#include "memscope/kmer/encode.cuh"

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_run_length_encode.cuh>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace memscope::kmer {

/// Sorts and counts the codes of up to `capacity` windows; its buffers are allocated once.
class sort_counter {
 public:
  explicit sort_counter(std::size_t capacity) : sorted_(capacity), unique_(capacity), counts_(capacity), runs_(1) {
    std::size_t sort_bytes = 0, rle_bytes = 0;
    const auto n = static_cast<std::int64_t>(capacity);
    MEMSCOPE_CUDA_CALL(cub::DeviceRadixSort::SortKeys(nullptr, sort_bytes, static_cast<const std::uint64_t*>(nullptr),
                                                      sorted_.data(), n, 0, 64));
    MEMSCOPE_CUDA_CALL(cub::DeviceRunLengthEncode::Encode(nullptr, rle_bytes, sorted_.data(), unique_.data(),
                                                          counts_.data(), runs_.data(), n));
    temp_ = device_buffer<unsigned char>(std::max<std::size_t>(std::max(sort_bytes, rle_bytes), 1));
  }

  /// Counts the canonical codes d_codes[0, windows) of k-mers of length k (encode_kmers):
  /// unique() then holds each distinct code once, ascending, and counts() its occurrences.
  void count(const std::uint64_t* d_codes, std::size_t windows, int k, cudaStream_t stream) {
    check_k(k, max_k);
    if (windows > sorted_.size())
      throw std::invalid_argument("sort_counter: " + std::to_string(windows) + " windows for a counter of " +
                                  std::to_string(sorted_.size()));
    windows_ = windows;
    if (windows == 0) return;
    std::size_t bytes = temp_.size();
    const auto n = static_cast<std::int64_t>(windows);
    MEMSCOPE_CUDA_CALL(
        cub::DeviceRadixSort::SortKeys(temp_.data(), bytes, d_codes, sorted_.data(), n, 0, 2 * k, stream));
    bytes = temp_.size();
    MEMSCOPE_CUDA_CALL(cub::DeviceRunLengthEncode::Encode(temp_.data(), bytes, sorted_.data(), unique_.data(),
                                                          counts_.data(), runs_.data(), n, stream));
  }

  /// Distinct k-mers of the last count (waits for it): its runs less the run of windows that
  /// were no k-mer. Only the low 2k bits are sorted, and no_kmer's are all ones, so that run is
  /// the last where there is one.
  std::size_t distinct(cudaStream_t stream) const {
    if (windows_ == 0) return 0;
    std::int64_t runs = 0;
    MEMSCOPE_CUDA_CALL(cudaMemcpyAsync(&runs, runs_.data(), sizeof runs, cudaMemcpyDeviceToHost, stream));
    MEMSCOPE_CUDA_CALL(cudaStreamSynchronize(stream));
    if (runs == 0) return 0;
    std::uint64_t last = 0;
    MEMSCOPE_CUDA_CALL(cudaMemcpy(&last, unique_.data() + runs - 1, sizeof last, cudaMemcpyDeviceToHost));
    return static_cast<std::size_t>(runs) - (last == no_kmer<std::uint64_t> ? 1 : 0);
  }

  /// The distinct k-mers of the last count, copied to the host: codes[i] occurred counts[i]
  /// times, codes ascending (waits for the count).
  void entries(std::vector<std::uint64_t>& codes, std::vector<std::uint32_t>& counts, cudaStream_t stream) const {
    const std::size_t n = distinct(stream);
    codes.resize(n);
    counts.resize(n);
    if (n == 0) return;
    MEMSCOPE_CUDA_CALL(cudaMemcpy(codes.data(), unique_.data(), n * sizeof(std::uint64_t), cudaMemcpyDeviceToHost));
    MEMSCOPE_CUDA_CALL(cudaMemcpy(counts.data(), counts_.data(), n * sizeof(std::uint32_t), cudaMemcpyDeviceToHost));
  }

  const std::uint64_t* unique() const { return unique_.data(); }
  const std::uint32_t* counts() const { return counts_.data(); }
  /// Device memory the counter holds.
  std::size_t bytes() const { return sorted_.bytes() + unique_.bytes() + counts_.bytes() + temp_.bytes(); }

 private:
  device_buffer<std::uint64_t> sorted_, unique_;
  device_buffer<std::uint32_t> counts_;
  device_buffer<std::int64_t> runs_;
  device_buffer<unsigned char> temp_;
  std::size_t windows_ = 0;
};

}  // namespace memscope::kmer
