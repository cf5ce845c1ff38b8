#pragma once
// Exact comparison of a device array against an expected value per index, on the GPU: for
// outputs of a gigabyte, where copying them to the host and comparing there costs more than
// the measurement. The expectation is a __host__ __device__ callable of the index (a hash of
// it, or index arithmetic), so the check stays independent of the kernel under test. The
// verdict reads like compare_exact's: how many differ, and the first (lowest) index that does.

#include "memscope/core/cuda_check.hpp"
#include "memscope/core/device_buffer.hpp"
#include "memscope/core/verify.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <sstream>

namespace memscope {

namespace detail {

struct device_tally {
  unsigned long long bad;
  unsigned long long first_bad;
};

template <class T, class Want>
__global__ void compare_exact_kernel(const T* got, std::size_t n, Want want, device_tally* tally) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  unsigned long long bad = 0, first = ~0ull;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    if (!(got[i] == want(i))) {
      if (bad++ == 0) first = i;
    }
  if (bad) {
    atomicAdd(&tally->bad, bad);
    atomicMin(&tally->first_bad, first);
  }
}

}  // namespace detail

/// got[i] == want(i) for every i < n, checked on the GPU in `stream` (which this waits for).
/// `want` must be callable on both sides: the first mismatch is described on the host.
template <class T, class Want>
verify_result compare_exact_on_device(const T* d_got, std::size_t n, Want want, cudaStream_t stream) {
  if (n == 0) return verify_result::pass();
  device_buffer<detail::device_tally> d_tally(1);
  const detail::device_tally zero{0, ~0ull};
  MEMSCOPE_CUDA_CALL(cudaMemcpyAsync(d_tally.data(), &zero, sizeof zero, cudaMemcpyHostToDevice, stream));
  const std::size_t blocks = (n + 255) / 256;
  detail::compare_exact_kernel<<<static_cast<unsigned>(blocks < 4096 ? blocks : 4096), 256, 0, stream>>>(
      d_got, n, want, d_tally.data());
  MEMSCOPE_CHECK_LAUNCH("compare_exact_kernel");
  detail::device_tally t{};
  MEMSCOPE_CUDA_CALL(cudaMemcpyAsync(&t, d_tally.data(), sizeof t, cudaMemcpyDeviceToHost, stream));
  MEMSCOPE_CUDA_CALL(cudaStreamSynchronize(stream));
  if (t.bad == 0) return verify_result::pass();
  T first{};
  MEMSCOPE_CUDA_CALL(cudaMemcpy(&first, d_got + t.first_bad, sizeof first, cudaMemcpyDeviceToHost));
  std::ostringstream os;
  os.precision(9);
  os << t.bad << " of " << n << " elements differ; first at index " << t.first_bad << ": got "
     << static_cast<double>(first) << ", want " << static_cast<double>(want(static_cast<std::size_t>(t.first_bad)))
     << " (checked on the GPU)";
  return verify_result::fail(os.str());
}

}  // namespace memscope
