// Tests of include/memscope/core/cuda_check on the GPU.

#include "gpu/gpu_test.hpp"

#include "memscope/core/cuda_check.hpp"
#include "memscope/core/device_buffer.hpp"
#include "memscope/core/fill.cuh"
#include "memscope/core/random.hpp"
#include "memscope/core/verify.hpp"

using namespace memscope;

TEST(CoreGpu, CudaCallThrowsWithLocationCallAndReason) {
  MEMSCOPE_REQUIRE_GPU();
  try {
    MEMSCOPE_CUDA_CALL(cudaSetDevice(12345));
    FAIL() << "no exception";
  } catch (const cuda_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("cuda_check_test.cu:"), std::string::npos) << what;
    EXPECT_NE(what.find("cudaSetDevice(12345)"), std::string::npos) << what;
    EXPECT_NE(what.find("cudaErrorInvalidDevice"), std::string::npos) << what;
    EXPECT_EQ(e.code(), cudaErrorInvalidDevice);
  }
  // The error was cleared: the next call succeeds.
  EXPECT_NO_THROW(MEMSCOPE_CUDA_CALL(cudaSetDevice(0)));
}
