#pragma once
// Which SM ids this GPU has: every block of a launch that fills the GPU marks its SM. The ids
// are what sm_target aims at; they need not run 0 .. SM count - 1.

#include "memscope/core/cuda_check.hpp"
#include "memscope/core/device_buffer.hpp"
#include "memscope/core/launch.cuh"
#include "memscope/core/memo.hpp"
#include "memscope/core/sm_id.cuh"

#include <vector>

namespace memscope {

struct sm_census_policy {
  static constexpr int block_threads = 1024;  // few blocks per SM: a full grid reaches them all
  static constexpr unsigned id_words = 64;    // ids 0 .. 2047, well past any %nsmid
};

template <int = 0>
__global__ void sm_census_kernel(unsigned* seen) {
  if (threadIdx.x != 0) return;
  const unsigned sm = sm_id();
  if (sm / 32 < sm_census_policy::id_words) atomicOr(seen + sm / 32, 1u << (sm % 32));
}

/// The SM ids of the current device, ascending (counted once per device and thread).
inline std::vector<unsigned> sm_census(cudaStream_t stream) {
  static thread_local memo<int, std::vector<unsigned>> cache;
  int device = 0;
  MEMSCOPE_CUDA_CALL(cudaGetDevice(&device));
  return cache.get(device, [&] {
    device_buffer<unsigned> seen(sm_census_policy::id_words);
    MEMSCOPE_CUDA_CALL(cudaMemsetAsync(seen.data(), 0, seen.bytes(), stream));
    const unsigned grid = resident_blocks(sm_census_kernel<>, sm_census_policy::block_threads, 0);
    sm_census_kernel<><<<grid, sm_census_policy::block_threads, 0, stream>>>(seen.data());
    MEMSCOPE_CHECK_LAUNCH("sm_census_kernel");
    MEMSCOPE_CUDA_CALL(cudaStreamSynchronize(stream));
    const auto h = seen.to_host();
    std::vector<unsigned> ids;
    for (unsigned w = 0; w < sm_census_policy::id_words; ++w)
      for (unsigned b = 0; b < 32; ++b)
        if (h[w] >> b & 1u) ids.push_back(w * 32 + b);
    return ids;
  });
}

}  // namespace memscope
