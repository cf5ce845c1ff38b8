// Cases that exist to test memscope itself, registered only when MEMSCOPE_SELFTEST=1 (never
// listed, never in '*' otherwise): `fault` makes an illegal memory access, which leaves the
// CUDA context unusable, so the journal and --resume can be shown to keep and finish a run.
#include "harness/registry.hpp"
#include "harness/state.hpp"
#include "harness/suite.hpp"
#include "memscope/core/cuda_check.hpp"
#include "memscope/core/device_buffer.hpp"

#include <cstdlib>
#include <string>
#include <vector>

namespace memscope::suites {
namespace {

__global__ void selftest_iota_kernel(int* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 3 * i + 1;
}

__global__ void selftest_fault_kernel(int* out) {
  // An address no allocation covers: the access is illegal, and the context is lost for good.
  out[threadIdx.x] = 1;
}

void iota_case(case_state& state) {
  const int n = static_cast<int>(state.get_int("n"));
  device_buffer<int> d_out(static_cast<std::size_t>(n));
  const auto launch = [&](cudaStream_t s) {
    selftest_iota_kernel<<<(n + 255) / 256, 256, 0, s>>>(d_out.data(), n);
    MEMSCOPE_CHECK_LAUNCH("selftest_iota_kernel");
  };
  MEMSCOPE_CUDA_CALL(cudaMemsetAsync(d_out.data(), 0xFF, sizeof(int) * n, state.stream()));
  launch(state.stream());
  std::vector<int> h_out(static_cast<std::size_t>(n));
  MEMSCOPE_CUDA_CALL(
      cudaMemcpyAsync(h_out.data(), d_out.data(), sizeof(int) * n, cudaMemcpyDeviceToHost, state.stream()));
  MEMSCOPE_CUDA_CALL(cudaStreamSynchronize(state.stream()));
  verify_result v;
  for (int i = 0; i < n && v.passed; ++i)
    if (h_out[i] != 3 * i + 1)
      v = verify_result::fail("element " + std::to_string(i) + " is " + std::to_string(h_out[i]));
  state.check(v);
  state.add_bytes_written(sizeof(int) * static_cast<std::uint64_t>(n));
  state.exec(launch);
}

void fault_case(case_state& state) {
  selftest_fault_kernel<<<1, 32, 0, state.stream()>>>(reinterpret_cast<int*>(std::uintptr_t{1} << 47));
  MEMSCOPE_CHECK_LAUNCH("selftest_fault_kernel");
  MEMSCOPE_CUDA_CALL(cudaStreamSynchronize(state.stream()));
  state.check(verify_result::fail("the fault kernel returned: the illegal access was not caught"));
}

}  // namespace

void register_selftest(registry& reg) {
  const char* on = std::getenv("MEMSCOPE_SELFTEST");
  if (!on || std::string(on) != "1") return;
  suite s{reg, "selftest", "memscope's own checks (MEMSCOPE_SELFTEST=1 only)"};
  s.add("before", iota_case).summary("a verified fill, before the fault").axis(axis::integers("n", {1, 1000, 100003}));
  s.add("fault", fault_case).summary("an illegal address: the CUDA context is lost");
  s.add("after", iota_case)
      .summary("a verified fill, after the fault (reached by --resume)")
      .axis(axis::integers("n", {1, 1000}));
}

MEMSCOPE_REGISTER_SUITE(230, register_selftest);

}  // namespace memscope::suites
