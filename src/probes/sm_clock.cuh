#pragma once
// The SM clock as it runs, not as the data sheet says: one thread spins on %globaltimer
// (nanoseconds) for a fixed time and counts clock64 cycles meanwhile. Latencies measured in
// cycles become nanoseconds at this rate rather than at the peak clock.

#include "memscope/core/cuda_check.hpp"
#include "memscope/core/device_buffer.hpp"

namespace memscope {

template <int = 0>
__global__ void sm_clock_kernel(unsigned long long spin_ns, unsigned long long* out) {
  unsigned long long g0 = 0, g1 = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g0));
  const long long c0 = clock64();
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g1));
  } while (g1 - g0 < spin_ns);
  const long long c1 = clock64();
  out[0] = static_cast<unsigned long long>(c1 - c0);
  out[1] = g1 - g0;
}

/// MHz over a 200 us spin (after one warm-up spin), synchronising `stream`.
inline double measure_sm_clock_mhz(cudaStream_t stream) {
  device_buffer<unsigned long long> out(2);
  for (int i = 0; i < 2; ++i) {
    sm_clock_kernel<><<<1, 1, 0, stream>>>(200000ull, out.data());
    MEMSCOPE_CHECK_LAUNCH("sm_clock_kernel");
  }
  MEMSCOPE_CUDA_CALL(cudaStreamSynchronize(stream));
  const auto h = out.to_host();
  return h[1] > 0 ? static_cast<double>(h[0]) / static_cast<double>(h[1]) * 1000.0 : 0.0;
}

}  // namespace memscope
