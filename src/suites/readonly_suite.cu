// Suite `readonly`: a random gather from a table larger than L1 through plain loads,
// const __restrict__ and __ldg: does the read-only (non-coherent) path help irregular reads?

#include "harness/registry.hpp"
#include "harness/suite.hpp"
#include "advise/questions.hpp"
#include "harness/text_output.hpp"
#include "present/chart_spec.hpp"
#include "present/findings.hpp"

#include <fmt/format.h>
#include "harness/state.hpp"

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

std::optional<present::fact_value> random_gather_fact(const present::suite_view& v, std::optional<double>) {
  const auto plain = v.rows(present::axis_is("path", "plain"));
  const auto sizes = present::int_values(plain, "table_bytes");
  if (sizes.size() < 2) return std::nullopt;
  const double l2 = static_cast<double>(v.doc.device.l2_bytes);
  std::int64_t in_l2 = sizes.front();
  for (auto b : sizes)
    if (static_cast<double>(b) <= l2) in_l2 = b;
  const auto big = sizes.back();
  const auto at = [&](const char* path, std::int64_t b) {
    const auto r = v.rows(present::where("", {{"path", std::string(path)}, {"table_bytes", b}}));
    return r.empty() ? nullptr : r.front();
  };
  const auto *fast = at("plain", in_l2), *slow = at("plain", big), *ldg = at("ldg", big);
  if (!fast || !slow) return std::nullopt;
  return present::fact_value{
      fmt::format("random gather: {:.1f} G lookups/s from a {} table ({}), {:.1f} from {} (DRAM){}",
                  fast->elements_per_s / 1e9, format_bytes(static_cast<double>(in_l2)),
                  static_cast<double>(in_l2) <= l2 ? "fits L2" : "past L2", slow->elements_per_s / 1e9,
                  format_bytes(static_cast<double>(big)),
                  ldg ? fmt::format("; __ldg {:.3f}x plain", ldg->metric("speedup_vs_plain")) : ""),
      slow->elements_per_s, "", ""};
}

}  // namespace

void register_readonly(registry& reg) {
  suite s{reg, "readonly", "random gather through the read-only path"};
  s.add("gather", gather_case)
      .summary("out[i] = table[idx[i]], random idx, table past L1: plain vs const __restrict__ vs __ldg")
      .axis(axis::strings("path", {std::begin(path_names), std::end(path_names)}, "how the table is read"))
      .axis(axis::pow2("table_bytes", {20, 25, 29}, "table size: 1 MiB (L2), 32 MiB (L2), 512 MiB (DRAM)")
                .with_quick({std::int64_t{1} << 20, std::int64_t{1} << 29})
                .with_range(1024, std::int64_t{1} << 33))  // element indices are 32-bit: at most 2^31 floats
      .footprint(
          [](const axis_point& p) { return static_cast<std::uint64_t>(p.get_int("table_bytes")) + (3ull << 28); })
      .baseline("path", std::string("plain"), "speedup_vs_plain");

  present::chart_spec c;
  c.title = "Random gather: lookups per second by path and table size";
  c.label = [](const case_result& r) {
    return r.string_axis("path") + " " + format_bytes(static_cast<double>(r.int_axis("table_bytes").value_or(0)));
  };
  c.y = [](const case_result& r) { return r.elements_per_s / 1e9; };
  c.y_label = "G lookups/s";
  c.peer = present::axis_is("path", "plain");
  c.peer_key = "plain loads";
  c.with_sample_spread();
  s.chart(c).finding(present::spread_vs_baseline("speedup_vs_plain",
                                                 "gather through const __restrict__ / __ldg relative to plain loads"));
  s.fact(advise::question::random_gather, {"gather"}, "random gather from an L2-sized and a DRAM-sized table",
         random_gather_fact);
}

MEMSCOPE_REGISTER_SUITE(100, register_readonly);

}  // namespace memscope::suites
