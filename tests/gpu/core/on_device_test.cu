// on_device.hpp: a scope with another GPU current, and the one before it back afterwards.

#include "gpu/gpu_test.hpp"

#include "memscope/core/cuda_check.hpp"
#include "memscope/core/on_device.hpp"

using namespace memscope;

namespace {
int current() {
  int d = -1;
  MEMSCOPE_CUDA_CALL(cudaGetDevice(&d));
  return d;
}
}  // namespace

// Every GPU becomes current in its scope, and the last GPU's scope hands back the first.
TEST(OnDeviceGpu, EachGpuIsCurrentInItsScopeAndTheFormerComesBack) {
  MEMSCOPE_REQUIRE_GPU();
  int count = 0;
  MEMSCOPE_CUDA_CALL(cudaGetDeviceCount(&count));
  MEMSCOPE_CUDA_CALL(cudaSetDevice(0));
  for (int d = count - 1; d >= 0; --d) {
    {
      on_device there(d);
      EXPECT_EQ(current(), d);
    }
    EXPECT_EQ(current(), 0);
  }
}

// An ordinal past the last GPU throws where the scope opens, and the current GPU stays.
TEST(OnDeviceGpu, AGpuThatDoesNotExistThrowsAndLeavesTheCurrentOne) {
  MEMSCOPE_REQUIRE_GPU();
  int count = 0;
  MEMSCOPE_CUDA_CALL(cudaGetDeviceCount(&count));
  MEMSCOPE_CUDA_CALL(cudaSetDevice(0));
  EXPECT_THROW(on_device there(count), cuda_error);
  EXPECT_EQ(current(), 0);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess) << "the failed call's error is cleared: no later launch check reports it";
}
