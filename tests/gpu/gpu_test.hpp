#pragma once
// Skips a GPU test, with the reason, on a machine without a usable GPU.

#include "core/device_query.hpp"
#include "memscope/core/cuda_check.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>

#define MEMSCOPE_REQUIRE_GPU()                                      \
  do {                                                              \
    try {                                                           \
      ::memscope::select_device(0);                                 \
    } catch (const ::memscope::no_device_error& e) {                \
      GTEST_SKIP() << "needs a CUDA GPU: " << e.what();             \
    }                                                               \
  } while (0)

namespace memscope::testing {
/// New random inputs for every check: kernels must compute the same function on any data.
inline std::uint64_t fresh_seed() {
  static std::random_device rd;
  return (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
}

/// Whether GPU 0 launches thread-block clusters (compute capability 9.0 and newer).
inline bool has_clusters() {
  int v = 0;
  MEMSCOPE_CUDA_CALL(cudaDeviceGetAttribute(&v, cudaDevAttrClusterLaunch, 0));
  return v != 0;
}
}  // namespace memscope::testing
