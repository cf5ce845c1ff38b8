// Throw-away check (issue 20): tiles_pdl's second kernel is a programmatic dependent launch only
// where its griddepcontrol.wait was compiled in. Built from PTX 8.0 (-arch=compute_80) and
// JIT-compiled on an H200, the kernel has no wait, so memscope must launch it the ordinary way;
// built for sm_90 it may launch early. Either way, sums queued back to back on one stream, each
// over new values, must all be right.
#include "memscope/core/device_buffer.hpp"
#include "memscope/shared/reduce.cuh"

#include <cstdio>
#include <vector>

namespace rd = memscope::reduce;

__global__ void fill_kernel(int* p, std::size_t n, unsigned salt) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x)
    p[i] = static_cast<int>(((i + salt) * 2654435761u >> 9) % 7) - 3;
}

int main() {
  const std::size_t n = (std::size_t{1} << 26) + 5;
  constexpr int sums = 50;
  memscope::device_buffer<int> in(n), out(sums);
  rd::reduce_workspace<int> ws(n);
  cudaFuncAttributes attr{};
  MEMSCOPE_CUDA_CALL(cudaFuncGetAttributes(&attr, rd::reduce_partials_kernel<int>));
  std::printf("reduce_partials_kernel: PTX %d, binary %d; launched early (PDL): %s\n", attr.ptxVersion, attr.binaryVersion,
              memscope::programmatic_launch_ok(rd::reduce_partials_kernel<int>) ? "yes" : "no");
  std::vector<long long> want(sums);
  std::vector<int> h(n);
  for (int k = 0; k < sums; ++k) {
    fill_kernel<<<1024, 256>>>(in.data(), n, 977u * k);
    rd::sum(rd::variant::tiles_pdl, in.data(), n, out.data() + k, ws, nullptr);
  }
  MEMSCOPE_CUDA_CALL(cudaDeviceSynchronize());
  const auto got = out.to_host();
  int wrong = 0;
  for (int k = 0; k < sums; ++k) {
    long long w = 0;
    for (std::size_t i = 0; i < n; ++i) w += static_cast<int>(((i + 977u * k) * 2654435761u >> 9) % 7) - 3;
    if (got[k] != w) ++wrong;
  }
  std::printf("%d sums of %zu ints queued back to back: %d wrong\n", sums, n, wrong);
  return wrong != 0;
}
