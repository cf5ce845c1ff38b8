#pragma once
// Checks of one GPU counter against another on the GPU, for inputs whose host reference costs
// more than the count: the hash table and the dense table against the sort-and-count runs
// (sort_count.cuh), which share no code with them. Equal where every run's code has its count
// in the other counter and the other holds no code besides.

#include "memscope/core/cuda_check.hpp"
#include "memscope/core/device_buffer.hpp"
#include "memscope/core/launch.cuh"
#include "memscope/kmer/table.cuh"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace memscope::kmer {

struct counter_tally {
  unsigned long long wrong;  // runs whose code is missing or counted differently
  unsigned long long held;   // codes the other counter holds (occupied slots, non-zero bins)
};

namespace detail {

inline constexpr int check_threads = 256;

template <int = 0>
__global__ void table_vs_runs_kernel(table_view t, const std::uint64_t* unique, const std::uint32_t* counts,
                                     std::size_t runs, counter_tally* tally) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  unsigned long long wrong = 0, held = 0;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < runs || i <= t.mask;
       i += stride) {
    if (i < runs) {
      const long long s = table_find(t, unique[i]);
      wrong += s < 0 || t.slots[s].count != counts[i];
    }
    if (i <= t.mask) held += t.slots[i].key != no_kmer<std::uint64_t>;
  }
  atomicAdd(&tally->wrong, wrong);
  atomicAdd(&tally->held, held);
}

template <int = 0>
__global__ void dense_vs_runs_kernel(const std::uint32_t* dense, std::size_t bins, const std::uint64_t* unique,
                                     const std::uint32_t* counts, std::size_t runs, counter_tally* tally) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  unsigned long long wrong = 0, held = 0;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < runs || i < bins;
       i += stride) {
    if (i < runs) wrong += unique[i] >= bins || dense[unique[i]] != counts[i];
    if (i < bins) held += dense[i] != 0;
  }
  atomicAdd(&tally->wrong, wrong);
  atomicAdd(&tally->held, held);
}

template <class Kernel, class... Args>
counter_tally tally_of(Kernel kernel, std::size_t items, cudaStream_t stream, Args... args) {
  device_buffer<counter_tally> d_tally(1);
  MEMSCOPE_CUDA_CALL(cudaMemsetAsync(d_tally.data(), 0, sizeof(counter_tally), stream));
  const unsigned grid = persistent_grid(kernel, check_threads, 0, items, check_threads);
  kernel<<<grid, check_threads, 0, stream>>>(args..., d_tally.data());
  MEMSCOPE_CHECK_LAUNCH("k-mer counter check");
  counter_tally t{};
  MEMSCOPE_CUDA_CALL(cudaMemcpyAsync(&t, d_tally.data(), sizeof t, cudaMemcpyDeviceToHost, stream));
  MEMSCOPE_CUDA_CALL(cudaStreamSynchronize(stream));
  return t;
}

inline std::string tally_verdict(const counter_tally& t, std::size_t runs, const char* other) {
  if (t.wrong == 0 && t.held == runs) return {};
  return std::to_string(t.wrong) + " of " + std::to_string(runs) +
         " sorted runs missing or counted differently in the " + other + ", which holds " + std::to_string(t.held) +
         " k-mers";
}

}  // namespace detail

/// "" where `table` holds exactly the runs' codes with their counts, else what differs.
inline std::string table_matches_runs(kmer_table& table, const std::uint64_t* d_unique, const std::uint32_t* d_counts,
                                      std::size_t runs, cudaStream_t stream) {
  const table_view v = table.view();
  const std::size_t items = runs > table.slots() ? runs : table.slots();
  return detail::tally_verdict(
      detail::tally_of(detail::table_vs_runs_kernel<>, items, stream, v, d_unique, d_counts, runs), runs, "hash table");
}

/// "" where the dense counts d_dense[0, bins) are exactly the runs' counts, else what differs.
inline std::string dense_matches_runs(const std::uint32_t* d_dense, std::size_t bins, const std::uint64_t* d_unique,
                                      const std::uint32_t* d_counts, std::size_t runs, cudaStream_t stream) {
  const std::size_t items = runs > bins ? runs : bins;
  return detail::tally_verdict(
      detail::tally_of(detail::dense_vs_runs_kernel<>, items, stream, d_dense, bins, d_unique, d_counts, runs), runs,
      "dense table");
}

}  // namespace memscope::kmer
