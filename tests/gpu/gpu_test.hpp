#pragma once
// Skips a GPU test, with the reason, on a machine without a usable GPU.

#include "core/device_query.hpp"

#include <gtest/gtest.h>

#define MEMSCOPE_REQUIRE_GPU()                                      \
  do {                                                              \
    try {                                                           \
      ::memscope::select_device(0);                                 \
    } catch (const ::memscope::no_device_error& e) {                \
      GTEST_SKIP() << "needs a CUDA GPU: " << e.what();             \
    }                                                               \
  } while (0)
