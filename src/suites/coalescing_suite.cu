// Suite `coalescing`: global-memory bandwidth as the start offset moves and as the stride grows,
// for 4-, 8- and 16-byte elements, reads and writes; beside each figure, the efficiency the
// 32-byte-sector model predicts. Plus cudaMalloc's alignment, checked.

#include "harness/registry.hpp"
#include "harness/state.hpp"
#include "suites/suites.hpp"

#include "memscope/core/device_buffer.hpp"
#include "memscope/core/fill.cuh"
#include "memscope/core/random.hpp"
#include "memscope/core/verify.hpp"
#include "memscope/global/coalescing.cuh"
#include "memscope/global/coalescing_model.hpp"

#include <cstring>

namespace memscope::suites {
namespace {

namespace co = memscope::coalescing;

constexpr std::size_t touched_budget = std::size_t{1} << 29;  // bytes one point spans: well past L2
constexpr std::size_t max_elements = std::size_t{1} << 26;

/// Elements a point processes: as many as fit the budget at this stride, so every point streams
/// from DRAM and none needs more than ~512 MiB.
std::size_t elements_for(std::size_t elem_bytes, std::size_t stride) {
  return std::max<std::size_t>(1, std::min(max_elements, touched_budget / (elem_bytes * stride)));
}

template <class Fn>
void with_elem_type(std::int64_t bytes, Fn&& fn) {
  if (bytes == 4) fn(float{});
  else if (bytes == 8) fn(float2{});
  else fn(float4{});
}

template <class T>
void strided_case(case_state& st, std::size_t offset, std::size_t stride, std::size_t n) {
  constexpr std::size_t lanes = sizeof(T) / sizeof(float);
  const bool write = st.get_string("direction") == "write";
  const cudaStream_t s = st.stream();
  const std::size_t span = offset + (n ? (n - 1) * stride + 1 : 0);  // elements of T the pattern spans
  device_buffer<T> buf(span);
  const std::uint64_t seed = st.seed();
  st.add_metric("predicted_efficiency", co::sector_efficiency(sizeof(T), offset, stride));
  st.add_elements(n);

  if (!write) {
    fill_hash(reinterpret_cast<float*>(buf.data()), span * lanes, seed, fill_kind::small_int, s);
    device_buffer<float> partials(co::strided_grid<T>(n));
    partials.poison(s);
    co::strided_read(buf.data(), n, offset, stride, partials.data(), s);
    MEMSCOPE_CUDA_CALL(cudaStreamSynchronize(s));
    double got = 0;
    for (float p : partials.to_host()) got += p;
    const double want = parallel_sum(n * lanes, [&](std::size_t k) {
      return static_cast<double>(hash_small_int(seed, (offset + (k / lanes) * stride) * lanes + k % lanes));
    });
    st.check(compare_scalar(got, want, 0.0, "sum of the strided elements"));
    st.add_bytes_read(n * sizeof(T));
    st.exec([&](cudaStream_t st_) { co::strided_read(buf.data(), n, offset, stride, partials.data(), st_); });
  } else {
    // 0x7F bytes: a finite float that no write produces, so untouched elements are visible.
    buf.poison(s, 0x7F);
    float poison;
    std::memset(&poison, 0x7F, sizeof poison);
    const float value = hash_uniform(seed, 0);
    co::strided_write(buf.data(), n, offset, stride, value, s);
    MEMSCOPE_CUDA_CALL(cudaStreamSynchronize(s));
    const auto h = buf.to_host();
    st.check(compare_exact(reinterpret_cast<const float*>(h.data()), span * lanes, [&](std::size_t k) {
      const std::size_t e = k / lanes;
      const bool written = e >= offset && (e - offset) % stride == 0;
      return written ? value : poison;
    }));
    st.add_bytes_written(n * sizeof(T));
    st.exec([&](cudaStream_t st_) { co::strided_write(buf.data(), n, offset, stride, value, st_); });
  }
}

void pattern_case(case_state& st, std::size_t offset, std::size_t stride) {
  const std::int64_t eb = st.get_int("elem_bytes");
  // verify mode shrinks the problem to awkward sizes: a prime count, past one grid.
  const std::size_t n = st.verify_only() ? 100003 : elements_for(static_cast<std::size_t>(eb), stride);
  with_elem_type(eb, [&](auto elem) { strided_case<decltype(elem)>(st, offset, stride, n); });
}

axis elem_axis() {
  return axis::integers("elem_bytes", {4, 8, 16}, "element size: float, float2, float4").with_only_listed();
}
axis direction_axis() { return axis::strings("direction", {"read", "write"}, "loads or stores"); }

void malloc_alignment_case(case_state& st) {
  // Many allocations of odd sizes: the largest power of two dividing every address.
  std::vector<device_buffer<unsigned char>> bufs;
  std::uintptr_t all = 0;
  for (std::size_t i = 1; i <= 64; ++i) {
    bufs.emplace_back(i * 13);
    all |= reinterpret_cast<std::uintptr_t>(bufs.back().data());
  }
  const std::uintptr_t alignment = all & (~all + 1);
  st.add_metric("alignment_bytes", static_cast<double>(alignment));
  st.check(alignment >= 256 ? verify_result::pass()
                            : verify_result::fail("cudaMalloc returned an address aligned to only " +
                                                  std::to_string(alignment) + " bytes"));
}

}  // namespace

void register_coalescing(registry& reg) {
  auto relative = [](const case_result& row, const case_result& base) { return base.gbps > 0 ? row.gbps / base.gbps : 0; };
  {
    case_def c;
    c.suite = "coalescing";
    c.name = "offset";
    c.summary = "element i at in[offset + i]: misaligned starts";
    c.axes = {elem_axis(), direction_axis(),
              axis::integers("offset", {0, 1, 2, 3, 4, 8, 16, 31, 32}, "start offset in elements").with_range(0, 4096)};
    c.axes.back().with_quick({std::int64_t{0}, std::int64_t{1}, std::int64_t{8}, std::int64_t{32}});
    c.body = [](case_state& st) { pattern_case(st, static_cast<std::size_t>(st.get_int("offset")), 1); };
    c.footprint = [](const axis_point&) { return std::uint64_t{touched_budget} + 4096 * 16; };
    c.baselines.push_back({"offset", std::int64_t{0}, "relative_to_aligned", relative});
    reg.add(std::move(c));
  }
  {
    case_def c;
    c.suite = "coalescing";
    c.name = "stride";
    c.summary = "element i at in[i * stride]: scattered warps";
    c.axes = {elem_axis(), direction_axis(),
              axis::integers("stride", {1, 2, 4, 8, 16, 32, 64, 128}, "stride in elements").with_range(1, 1 << 20)};
    c.axes.back().with_quick({std::int64_t{1}, std::int64_t{2}, std::int64_t{8}, std::int64_t{32}});
    c.body = [](case_state& st) { pattern_case(st, 0, static_cast<std::size_t>(st.get_int("stride"))); };
    c.footprint = [](const axis_point&) { return std::uint64_t{touched_budget} + 4096 * 16; };
    c.baselines.push_back({"stride", std::int64_t{1}, "relative_to_unit_stride", relative});
    reg.add(std::move(c));
  }
  {
    case_def c;
    c.suite = "coalescing";
    c.name = "malloc_alignment";
    c.summary = "cudaMalloc returns addresses aligned to at least 256 bytes (checked)";
    c.body = malloc_alignment_case;
    reg.add(std::move(c));
  }
}

}  // namespace memscope::suites
