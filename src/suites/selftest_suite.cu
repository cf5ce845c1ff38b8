// Cases that exist to test memscope itself, registered only when MEMSCOPE_SELFTEST=1 (never
// listed, never in '*' otherwise): `fault` makes an illegal memory access, which leaves the
// CUDA context unusable, so the journal and --resume can be shown to keep and finish a run.
// `planted_read` and `planted_spin` slow themselves down by `planted_pct` percent, so that two
// runs differing only in it measure what `memscope compare --ignore-axis planted_pct` can find
// (docs/how-memscope-measures.md, "What compare can find").
#include "harness/registry.hpp"
#include "harness/state.hpp"
#include "harness/suite.hpp"
#include "memscope/core/cuda_check.hpp"
#include "memscope/core/device_buffer.hpp"
#include "memscope/core/launch.cuh"
#include "memscope/core/random.hpp"

#include <algorithm>
#include <cmath>
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

/// Sums in[0, n) and then the first `planted` words again (mod 2^32): the planted words are
/// the slowdown, read from wherever the data lives, as the unplanted ones are.
__global__ void selftest_planted_read_kernel(const std::uint32_t* in, std::size_t n, std::size_t planted,
                                             std::uint32_t* sum) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  std::uint32_t acc = 0;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n + planted; i += stride)
    acc += in[i < n ? i : i - n];
  // One atomic per block: same-address atomics from every warp would set the time instead.
  for (int o = 16; o > 0; o >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, o);
  __shared__ std::uint32_t warp_sums[32];
  if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x >> 5] = acc;
  __syncthreads();
  if (threadIdx.x == 0) {
    std::uint32_t block = 0;
    for (unsigned w = 0; w < blockDim.x / 32; ++w) block += warp_sums[w];
    atomicAdd(sum, block);
  }
}

/// One warp per SM spinning `cycles` SM cycles: a time set by the clock alone.
__global__ void selftest_planted_spin_kernel(long long cycles, unsigned* done) {
  const long long start = clock64();
  while (clock64() - start < cycles) {}
  if (threadIdx.x == 0) atomicAdd(done, 1u);
}

/// The planted share of a point: round(n * planted_pct / 100).
std::size_t planted_share(const case_state& st, std::size_t n) {
  return static_cast<std::size_t>(
      std::llround(static_cast<double>(n) * static_cast<double>(st.get_int("planted_pct")) / 100.0));
}

void planted_read_case(case_state& st) {
  const auto n = static_cast<std::size_t>(st.get_int("elements"));
  const std::size_t planted = planted_share(st, n);
  const cudaStream_t s = st.stream();
  device_buffer<std::uint32_t> in(n), sum(1);
  std::vector<std::uint32_t> h(n);
  std::uint32_t want = 0;
  for (std::size_t i = 0; i < n; ++i) want += h[i] = hash_u32(st.seed(), i);
  for (std::size_t i = 0; i < planted; ++i) want += h[i];
  in.from_host(h);
  const unsigned blocks = static_cast<unsigned>(
      std::min<std::size_t>(ceil_div(n, 256), 4 * static_cast<std::size_t>(st.device().sm_count)));
  const auto launch = [&](cudaStream_t q) {
    selftest_planted_read_kernel<<<blocks, 256, 0, q>>>(in.data(), n, planted, sum.data());
    MEMSCOPE_CHECK_LAUNCH("selftest_planted_read_kernel");
  };
  MEMSCOPE_CUDA_CALL(cudaMemsetAsync(sum.data(), 0, sizeof(std::uint32_t), s));
  launch(s);
  MEMSCOPE_CUDA_CALL(cudaStreamSynchronize(s));
  const std::uint32_t got = sum.to_host()[0];
  st.check(got == want ? verify_result::pass()
                       : verify_result::fail("sum " + std::to_string(got) + ", want " + std::to_string(want)));
  st.add_label("planted", std::to_string(planted) + " words read again");
  st.add_bytes_read((n + planted) * sizeof(std::uint32_t));
  st.exec(launch);
}

void planted_spin_case(case_state& st) {
  const double mhz = st.device().sm_clock_khz / 1e3;
  const auto base = static_cast<long long>(static_cast<double>(st.get_int("microseconds")) * mhz);
  const auto cycles = base + static_cast<long long>(std::llround(
                                 static_cast<double>(base) * static_cast<double>(st.get_int("planted_pct")) / 100.0));
  const cudaStream_t s = st.stream();
  const auto blocks = static_cast<unsigned>(st.device().sm_count);
  device_buffer<unsigned> done(1);
  const auto launch = [&](cudaStream_t q) {
    selftest_planted_spin_kernel<<<blocks, 32, 0, q>>>(cycles, done.data());
    MEMSCOPE_CHECK_LAUNCH("selftest_planted_spin_kernel");
  };
  MEMSCOPE_CUDA_CALL(cudaMemsetAsync(done.data(), 0, sizeof(unsigned), s));
  launch(s);
  MEMSCOPE_CUDA_CALL(cudaStreamSynchronize(s));
  const unsigned got = done.to_host()[0];
  st.check(got == blocks ? verify_result::pass()
                         : verify_result::fail(std::to_string(got) + " of " + std::to_string(blocks) + " warps ran"));
  st.add_metric("cycles", static_cast<double>(cycles));
  st.exec(launch);
}

axis planted_axis() {
  return axis::integers("planted_pct", {0}, "percent of extra work planted (compare runs that differ only in it)")
      .with_range(0, 100);
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
  s.add("planted_read", planted_read_case)
      .summary("a sum of n words plus planted_pct percent of them read again: a known slowdown for compare")
      .axis(axis::pow2("elements", {16, 18, 20, 22, 24, 26, 28}, "words summed").with_range(1, std::int64_t{1} << 30))
      .axis(planted_axis());
  s.add("planted_spin", planted_spin_case)
      .summary("one warp per SM spinning microseconds x (1 + planted_pct / 100) at the peak SM clock")
      .axis(axis::integers("microseconds", {2, 10, 100, 1000}, "spin at the peak clock").with_range(1, 1000000))
      .axis(planted_axis());
}

MEMSCOPE_REGISTER_SUITE(230, register_selftest);

}  // namespace memscope::suites
