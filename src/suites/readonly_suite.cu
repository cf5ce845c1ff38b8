// Suite `readonly`: a random gather from a table larger than L1 through plain loads,
// const __restrict__ and __ldg: does the read-only (non-coherent) path help irregular reads?

#include "harness/registry.hpp"
#include "harness/state.hpp"
#include "suites/suites.hpp"

#include "memscope/core/device_buffer.hpp"
#include "memscope/core/fill.cuh"
#include "memscope/core/random.hpp"
#include "memscope/core/verify.hpp"
#include "memscope/global/readonly_gather.cuh"

#include <algorithm>

namespace memscope::suites {
namespace {

namespace ga = memscope::gather;

const char* const path_names[] = {"plain", "restrict", "ldg"};

__global__ void fill_indices_kernel(unsigned* idx, std::size_t n, std::uint64_t seed, unsigned range) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    idx[i] = hash_u32(seed, i) % range;
}

void gather_case(case_state& st) {
  const auto p = choice<ga::path>(path_names, st.get_string("path"));
  const std::size_t m = static_cast<std::size_t>(st.get_int("table_bytes")) / sizeof(float);
  const std::size_t n = st.verify_only() ? 1000003 : (std::size_t{1} << 26);
  const cudaStream_t s = st.stream();
  const std::uint64_t seed_t = st.seed(), seed_i = st.seed() ^ 0x1D3Aull;
  device_buffer<float> table(m), out(n);
  device_buffer<unsigned> idx(n);
  fill_hash(table.data(), m, seed_t, fill_kind::uniform, s);
  fill_indices_kernel<<<1024, 256, 0, s>>>(idx.data(), n, seed_i, static_cast<unsigned>(m));
  MEMSCOPE_CHECK_LAUNCH("fill_indices_kernel");
  out.poison(s);
  ga::gather(p, table.data(), idx.data(), out.data(), n, s);
  MEMSCOPE_CUDA_CALL(cudaStreamSynchronize(s));
  const auto h = out.to_host();
  st.check(compare_exact(h.data(), n, [&](std::size_t i) {
    return hash_uniform(seed_t, hash_u32(seed_i, i) % static_cast<std::uint32_t>(m));
  }));
  st.add_bytes_read(n * (sizeof(unsigned) + sizeof(float)));  // the index and the element it names
  st.add_bytes_written(n * sizeof(float));
  st.add_elements(n);
  st.exec([&](cudaStream_t st_) { ga::gather(p, table.data(), idx.data(), out.data(), n, st_); });
}

}  // namespace

void register_readonly(registry& reg) {
  case_def c;
  c.suite = "readonly";
  c.name = "gather";
  c.summary = "out[i] = table[idx[i]], random idx, table past L1: plain vs const __restrict__ vs __ldg";
  c.axes = {axis::strings("path", {std::begin(path_names), std::end(path_names)}, "how the table is read"),
            axis::pow2("table_bytes", {20, 25, 29}, "table size: 1 MiB (L2), 32 MiB (L2), 512 MiB (DRAM)")
                .with_quick({std::int64_t{1} << 20, std::int64_t{1} << 29})
                .with_range(1024, std::int64_t{1} << 33)};  // element indices are 32-bit: at most 2^31 floats
  c.body = gather_case;
  c.footprint = [](const axis_point& p) { return static_cast<std::uint64_t>(p.get_int("table_bytes")) + (3ull << 28); };
  c.baselines.push_back({"path", std::string("plain"), "speedup_vs_plain", speedup});
  reg.add(std::move(c));
}

}  // namespace memscope::suites
