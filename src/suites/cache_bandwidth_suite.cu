// Suite `cache_bandwidth`: read bandwidth against working-set size. `same_buffer`: every SM
// reads the whole buffer (L1, then L2, then DRAM as it grows). `own_slice`: each SM re-reads
// its own slice of the buffer. `spread`: each pass every SM moves on to another SM's slice, so
// only L2 and DRAM can serve. One 1024-thread block per SM, 16-byte loads; every block's
// wrapping sum is checked exactly. Findings label the plateaus L1 / L2 / DRAM.

#include "harness/registry.hpp"
#include "harness/state.hpp"
#include "suites/suites.hpp"

#include "memscope/cache/cache_bandwidth.cuh"
#include "memscope/core/device_buffer.hpp"
#include "memscope/core/verify.hpp"

#include <algorithm>
#include <vector>

namespace memscope::suites {
namespace {

namespace cb = memscope::cache;

const char* const sharing_names[] = {"same_buffer", "own_slice", "spread"};

template <cb::sharing S>
void read_case(case_state& st, std::size_t bytes) {
  const std::size_t vecs = bytes / 16;
  const auto blocks = static_cast<unsigned>(st.device().sm_count);
  const cudaStream_t s = st.stream();
  const std::uint64_t seed = st.seed();
  // Bytes one pass moves; passes bring a launch to about 4 GiB (at least 1).
  const double per_pass = 16.0 * static_cast<double>(vecs) * (S == cb::sharing::same_buffer ? blocks : 1);
  const unsigned passes =
      st.verify_only() ? 3u : static_cast<unsigned>(std::clamp(4.0 * (1 << 30) / std::max(per_pass, 1.0), 1.0, 65536.0));
  device_buffer<std::uint32_t> words(vecs * 4), sums(blocks);
  cb::fill_words(words.data(), words.size(), seed, s);
  const auto* buf = reinterpret_cast<const uint4*>(words.data());
  MEMSCOPE_CUDA_CALL(cudaMemsetAsync(sums.data(), 0, sums.bytes(), s));
  cb::read_ws<S>(buf, vecs, passes, blocks, sums.data(), s);
  MEMSCOPE_CUDA_CALL(cudaStreamSynchronize(s));
  // Expected: the wrapping sum of each slice (or of the whole buffer), times what each block read.
  const std::vector<std::uint32_t> slice_sum = cb::slice_sums(vecs, blocks, seed);
  std::uint32_t total = 0;
  for (auto v : slice_sum) total += v;
  const auto h = sums.to_host();
  st.check(compare_exact(h.data(), h.size(), [&](std::size_t b) {
    std::uint32_t want = 0;
    for (unsigned p = 0; p < passes; ++p) {
      if (S == cb::sharing::same_buffer) want += total;
      else if (S == cb::sharing::own_slice) want += slice_sum[b];
      else want += slice_sum[(b + p) % blocks];
    }
    return want;
  }));
  st.add_bytes_read(static_cast<std::uint64_t>(per_pass) * passes);
  st.add_metric("passes", passes);
  st.add_metric("bytes_per_sm", S == cb::sharing::same_buffer ? static_cast<double>(bytes) : static_cast<double>(bytes) / blocks);
  st.exec([&](cudaStream_t q) { cb::read_ws<S>(buf, vecs, passes, blocks, sums.data(), q); });
}

void bandwidth_case(case_state& st) {
  const auto bytes = static_cast<std::size_t>(st.get_int("ws_bytes"));
  if (bytes < 16) st.skip("a working set needs at least one 16-byte vector");
  const auto sharing = choice<cb::sharing>(sharing_names, st.get_string("sharing"));
  // Below this each pass is a few loads per thread: the loop and the launch are timed, not memory.
  constexpr std::size_t min_per_sm = 16 * 1024;
  const std::size_t per_sm = sharing == cb::sharing::same_buffer ? bytes : bytes / st.device().sm_count;
  if (!st.verify_only() && per_sm < min_per_sm)
    st.skip("under 16 KB per SM a pass is a few loads per thread and the loop is what gets timed");
  switch (sharing) {
    case cb::sharing::same_buffer:
      if (bytes > 4 * static_cast<std::size_t>(st.device().l2_bytes))
        st.skip("every SM reading the whole buffer past 4x the L2 takes minutes and shows nothing new; use spread");
      read_case<cb::sharing::same_buffer>(st, bytes);
      break;
    case cb::sharing::own_slice: read_case<cb::sharing::own_slice>(st, bytes); break;
    case cb::sharing::spread: read_case<cb::sharing::spread>(st, bytes); break;
  }
}

}  // namespace

void register_cache_bandwidth(registry& reg) {
  case_def c;
  c.suite = "cache_bandwidth";
  c.name = "read";
  c.summary = "read bandwidth vs working set: every SM the same buffer, its own slice, or rotating slices";
  c.axes.push_back(axis::strings("sharing", {std::begin(sharing_names), std::end(sharing_names)},
                                 "every SM reads the whole buffer; each its own slice; slices rotate between SMs"));
  axis ws = axis::integers("ws_bytes", {}, "buffer bytes (rounded down to 16-byte vectors)").with_range(16, std::int64_t{1} << 42);
  ws.kind = axis_kind::pow2;
  ws.full = octave_values(16384, std::int64_t{4} << 30);
  for (std::int64_t p = 16384; p <= (std::int64_t{4} << 30); p *= 4) ws.quick.emplace_back(p);
  ws.verify = {std::int64_t{16}, std::int64_t{4112}, std::int64_t{1000016}, std::int64_t{3} << 22};
  c.axes.push_back(std::move(ws));
  c.body = bandwidth_case;
  c.footprint = [](const axis_point& p) { return static_cast<std::uint64_t>(p.get_int("ws_bytes")); };
  reg.add(std::move(c));
}

}  // namespace memscope::suites
