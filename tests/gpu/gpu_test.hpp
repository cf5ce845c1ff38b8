#pragma once
// Skips a GPU test, with the reason, on a machine without a usable GPU.

#include "core/device_query.hpp"
#include "memscope/core/cuda_check.hpp"
#include "memscope/dsmem/cluster_launch.cuh"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>

#define MEMSCOPE_REQUIRE_GPU()                          \
  do {                                                  \
    try {                                               \
      ::memscope::select_device(0);                     \
    } catch (const ::memscope::no_device_error& e) {    \
      GTEST_SKIP() << "needs a CUDA GPU: " << e.what(); \
    }                                                   \
  } while (0)

namespace memscope::testing {
/// New random inputs for every check: kernels must compute the same function on any data.
inline std::uint64_t fresh_seed() {
  static std::random_device rd;
  return (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
}

template <int = 0>
__global__ void cluster_code_probe_kernel() {}

/// Whether cluster kernels can run here: GPU 0 launches thread-block clusters (compute
/// capability 9.0 and newer) and this test binary's code was compiled for sm_90 or newer (a
/// build for an older architecture, JIT-compiled on Hopper, has no cluster instructions).
inline bool has_clusters() {
  MEMSCOPE_CUDA_CALL(cudaSetDevice(0));
  return clusters_usable(cluster_code_probe_kernel<>);
}
}  // namespace memscope::testing
