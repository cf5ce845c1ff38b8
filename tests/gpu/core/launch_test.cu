// Tests of include/memscope/core/launch on the GPU.

#include "gpu/gpu_test.hpp"

#include "memscope/core/device_buffer.hpp"
#include "memscope/core/fill.cuh"
#include "memscope/core/random.hpp"
#include "memscope/core/verify.hpp"
#include "memscope/shared/bank_conflicts.cuh"
#include "memscope/shared/reduce.cuh"
#include "memscope/shared/transpose.cuh"

#include <random>

using namespace memscope;


TEST(SharedGpu, DynamicSharedMemoryBeyondTheOptInLimitIsAClearError) {
  MEMSCOPE_REQUIRE_GPU();
  auto kernel = banks::smem_pattern_kernel<4, true, banks::strided_pattern>;
  try {
    prepare_dynamic_smem(kernel, std::size_t{1} << 20);
    FAIL() << "1 MiB of shared memory accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("this GPU allows"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(prepare_dynamic_smem(kernel, 100 * 1024));  // above 48 KB: opt-in
}
