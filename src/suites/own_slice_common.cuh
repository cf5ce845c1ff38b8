#pragma once
// What `cache_config/reuse` and `cache_control/l1_hints` share: each SM re-reads its own
// window of the buffer 64 times (read_ws_kernel<own_slice>), checked exactly, then timed.

#include "harness/state.hpp"

#include "memscope/cache/cache_bandwidth.cuh"
#include "memscope/core/device_buffer.hpp"
#include "memscope/core/verify.hpp"

#include <cstddef>
#include <cstdint>

namespace memscope::suites {

/// One block per SM, each re-reading `window` bytes with load hint H; `smem` bytes of dynamic
/// shared memory are allocated beside it (the caller has prepared the kernel for them).
template <cache::load_hint H = cache::load_hint::plain>
void own_slice_rereads(case_state& st, std::size_t window, std::size_t smem = 0) {
  namespace cc = memscope::cache;
  const auto blocks = static_cast<unsigned>(st.device().sm_count);
  const std::size_t vecs = window / 16 * blocks;
  const unsigned passes = st.verify_only() ? 3 : 64;
  const cudaStream_t s = st.stream();
  device_buffer<std::uint32_t> words(vecs * 4), sums(blocks);
  cc::fill_words(words.data(), words.size(), st.seed(), s);
  const auto* buf = reinterpret_cast<const uint4*>(words.data());
  MEMSCOPE_CUDA_CALL(cudaMemsetAsync(sums.data(), 0, sums.bytes(), s));
  cc::read_ws<cc::sharing::own_slice, H>(buf, vecs, passes, blocks, sums.data(), s, smem);
  MEMSCOPE_CUDA_CALL(cudaStreamSynchronize(s));
  const auto h = sums.to_host();
  const auto want = cc::slice_sums(vecs, blocks, st.seed());
  st.check(compare_exact(h.data(), h.size(), [&](std::size_t b) { return want[b] * passes; }));
  st.add_bytes_read(std::uint64_t{16} * vecs * passes);
  st.exec(
      [&](cudaStream_t q) { cc::read_ws<cc::sharing::own_slice, H>(buf, vecs, passes, blocks, sums.data(), q, smem); });
}

}  // namespace memscope::suites
