#pragma once
// Skips a GPU test, with the reason, on a machine without a usable GPU.

#include "core/device_query.hpp"

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
}  // namespace memscope::testing
