// Suite `reduce`: sums from the seed's in-place halving in global memory to grid-stride
// kernels at the read's rate, against CUB's DeviceReduce::Sum and the read-only ceiling (bandwidth's
// pure read kernel over the same values) in the same run. Float sums of whole numbers and int
// sums are checked exactly.

#include "harness/registry.hpp"
#include "harness/suite.hpp"
#include "advise/questions.hpp"
#include "harness/text_output.hpp"
#include "present/chart_spec.hpp"
#include "present/findings.hpp"

#include <fmt/format.h>
#include "harness/state.hpp"

#include "memscope/bandwidth/stream_kernels.cuh"
#include "memscope/core/device_buffer.hpp"
#include "memscope/core/fill.cuh"
#include "memscope/core/random.hpp"
#include "memscope/core/verify.hpp"
#include "memscope/shared/reduce.cuh"

#include <cmath>
#include <cstdint>
#include <type_traits>

namespace memscope::suites {
namespace {

namespace rd = memscope::reduce;

// The first nine in rd::variant's order.
const char* const kernel_names[] = {
    "global_inplace",   "interleaved",     "static_smem", "dynamic_smem", "warp_shuffle", "grid_stride_vec",
    "grid_stride_vec8", "grid_stride_red", "tiles_pdl",   "cub",          "read_only",    "read_tiles"};

bool is_ceiling(const std::string& kernel) { return kernel == "read_only" || kernel == "read_tiles"; }

/// The values each type's input holds. Floats: whole numbers in [-8, 8] without 0, so every
/// partial sum is exact in float, the sum is checked by equality, and one dropped or doubled
/// element fails the check. Ints: small, so no sum of up to 2^31 of them overflows int32.
template <class T>
constexpr fill_kind input_kind = std::is_same_v<T, float> ? fill_kind::nonzero_int : fill_kind::small_int;

void fill_input(float* p, std::size_t n, std::uint64_t seed, cudaStream_t s) {
  fill_hash(p, n, seed, input_kind<float>, s);
}
void fill_input(int* p, std::size_t n, std::uint64_t seed, cudaStream_t s) {
  fill(p, n, hash_gen{seed, input_kind<int>}, s);
}

/// The exact sum of the input's first n values.
template <class T>
double input_sum(std::size_t n, std::uint64_t seed) {
  return parallel_sum(n, [&](std::size_t i) { return static_cast<double>(hash_value(input_kind<T>, seed, i)); });
}

verify_result check_sum(float got, std::size_t n, std::uint64_t seed) {
  return compare_scalar(got, input_sum<float>(n, seed), 0.0, "float sum of whole numbers (exact)");
}

verify_result check_sum(int got, std::size_t n, std::uint64_t seed) {
  return compare_scalar(got, input_sum<int>(n, seed), 0.0, "int sum");
}

/// The read-only ceilings in the same run: bandwidth's read kernel (16-byte loads, 4 in flight
/// per thread) over the same values, leaving one float partial per block, in the sums' own
/// order (`read_only`: a persistent grid) and in the fastest order (`read_tiles`: one block per
/// tile). Not a whole sum (the n % 4 tail is not read); checked by the partials, which hold
/// small whole numbers exactly.
template <class T>
void read_only_case(case_state& st, const device_buffer<T>& in, bandwidth::read_order order) {
  using V = std::conditional_t<std::is_same_v<T, float>, float4, int4>;
  const std::size_t n = in.size(), nv = n / 4;
  const cudaStream_t s = st.stream();
  const auto* vectors = reinterpret_cast<const V*>(in.data());
  const auto read = [&, order](float* partials, cudaStream_t q) {
    bandwidth::stream_sum(vectors, nv, partials, q, order);
  };
  device_buffer<float> partials(bandwidth::stream_sum_partials<V>(nv, order));
  partials.poison(s);
  read(partials.data(), s);
  MEMSCOPE_CUDA_CALL(cudaStreamSynchronize(s));
  const auto h = partials.to_host();
  double got = 0;
  for (float p : h) got += p;
  st.check(compare_scalar(got, input_sum<T>(nv * 4, st.seed()), 0.0,
                          "the read kernel's block partials (whole numbers, exact)"));
  st.add_bytes_read(nv * sizeof(V));
  st.add_elements(nv * 4);
  st.exec([&](cudaStream_t q) { read(partials.data(), q); });
}

template <class T>
void sum_case(case_state& st) {
  const std::size_t n = static_cast<std::size_t>(st.get_int("elements"));
  const std::string& kernel = st.get_string("kernel");
  const cudaStream_t s = st.stream();
  device_buffer<T> in(n), out(1);
  fill_input(in.data(), n, st.seed(), s);

  std::function<void(cudaStream_t)> launch;
  rd::reduce_workspace<T> ws(n);
  std::unique_ptr<rd::cub_sum<T>> cub;
  if (is_ceiling(kernel)) {
    read_only_case(st, in, kernel == "read_tiles" ? bandwidth::read_order::tiles : bandwidth::read_order::persistent);
    return;
  }
  if (kernel == "cub") {
    cub = std::make_unique<rd::cub_sum<T>>(in.data(), n, out.data());
    launch = [&](cudaStream_t st_) { (*cub)(st_); };
  } else {
    const auto v = choice<rd::variant>(kernel_names, kernel);
    if (v == rd::variant::grid_stride_red)
      if (const auto why = rd::red_unsupported(st.device().ordinal); !why.empty()) st.skip(why);
    launch = [&, v](cudaStream_t st_) { rd::sum(v, in.data(), n, out.data(), ws, st_); };
  }

  // Twice: the one-launch kernel resets its own counter, and the second result must be right too.
  for (int round = 0; round < 2; ++round) {
    out.poison(s);
    launch(s);
    MEMSCOPE_CUDA_CALL(cudaStreamSynchronize(s));
    st.check(check_sum(out.to_host()[0], n, st.seed()));
  }
  st.add_bytes_read(n * sizeof(T));
  st.add_elements(n);
  st.exec(launch);
}

void reduce_findings(const present::suite_view& v, std::vector<std::string>& out) {
  const auto n = present::largest(v.rows(), "elements");
  for (const std::string type : {"f32", "i32"}) {
    const auto at_n = v.rows(present::where("", {{"elements", n}, {"type", type}}));
    const auto rows = present::filter(at_n, [](const case_result& r) {
      return r.string_axis("kernel") != "cub" && !is_ceiling(r.string_axis("kernel"));
    });
    // Against both read ceilings: the same order as the sums, and the fastest order.
    const auto vs_reads = [](const case_result& r) {
      std::string text;
      for (const auto& [metric, what] :
           {std::pair<const char*, const char*>{"speedup_vs_read_only", "the read in its order"},
            {"speedup_vs_read_tiles", "the one-block-per-tile read"}})
        if (std::isfinite(r.metric(metric))) text += fmt::format(", {:.3f}x {}", r.metric(metric), what);
      return text;
    };
    if (const auto* b = present::best_by(rows, present::metric_of("speedup_vs_cub")))
      out.push_back(
          fmt::format("best memscope sum of {} {}: {}, {:.3f}x CUB DeviceReduce::Sum (same run; noise {:.1f}%){}", n,
                      type, b->string_axis("kernel"), b->metric("speedup_vs_cub"), 100 * b->stats.noise, vs_reads(*b)));
    const auto cub = present::filter(at_n, present::axis_is("kernel", "cub"));
    if (!cub.empty()) {
      const std::string reads = vs_reads(*cub[0]);
      if (!reads.empty()) out.push_back(fmt::format("CUB DeviceReduce::Sum of {} {}:{}", n, type, reads.substr(1)));
    }
    const auto dyn = present::filter(at_n, present::axis_is("kernel", "dynamic_smem"));
    if (!dyn.empty() && std::isfinite(dyn[0]->metric("speedup_vs_static_smem")))
      out.push_back(
          fmt::format("dynamic vs static shared memory ({}): {:.3f}x", type, dyn[0]->metric("speedup_vs_static_smem")));
  }
}

std::optional<present::fact_value> block_reduction_fact(const present::suite_view& v, std::optional<double>) {
  const auto n = present::largest(v.rows(), "elements");
  const auto rows = v.rows(present::where("", {{"elements", n}, {"type", std::string("f32")}}));
  const auto* best = present::best_by(present::filter(rows,
                                                      [](const case_result& r) {
                                                        return r.string_axis("kernel") != "cub" &&
                                                               r.string_axis("kernel") != "global_inplace" &&
                                                               !is_ceiling(r.string_axis("kernel"));
                                                      }),
                                      present::metric_of("speedup_vs_cub"));
  const auto global = present::filter(rows, present::axis_is("kernel", "global_inplace"));
  if (!best || global.empty()) return std::nullopt;
  return present::fact_value{
      fmt::format("sum of {} floats: the best memscope sum ({}) {:.3f}x CUB, the seed's global-memory "
                  "halving {:.3f}x CUB",
                  n, best->string_axis("kernel"), best->metric("speedup_vs_cub"), global[0]->metric("speedup_vs_cub")),
      best->metric("speedup_vs_cub"), "", ""};
}

}  // namespace

void register_reduce(registry& reg) {
  suite s{reg, "reduce", "sums through shared memory against CUB"};
  s.add("sum",
        [](case_state& st) {
          if (st.get_string("type") == "f32") sum_case<float>(st);
          else sum_case<int>(st);
        })
      .summary("sum of n values: 9 memscope variants and CUB DeviceReduce::Sum")
      .axis(
          axis::strings("kernel", {std::begin(kernel_names), std::end(kernel_names)},
                        "global-memory halving, interleaved/sequential shared, static/dynamic shared, "
                        "warp shuffle, grid-stride 16-byte one-launch (4 or 8 loads in flight; the last block adds "
                        "the partials), the same with every block's partial added by one atomic (grid_stride_red: "
                        "a float sum's last bits vary from run to run), one block per 1-8 consecutive tiles in launch "
                        "order (the fastest read's order), one partial each, added by a second kernel (tiles_pdl: a "
                        "programmatic dependent launch on sm_90+; deterministic), "
                        "CUB, and two "
                        "read-only ceilings (bandwidth's read kernel over the same values, block partials, not a sum: "
                        "a persistent grid like the sums, and one block per tile, the fastest read order)"))
      .axis(axis::strings("type", {"f32", "i32"}, "float (checked in double) or int (checked exactly)"))
      .axis(axis::pow2("elements", {20, 24, 28}, "values summed")
                .with_quick({std::int64_t{1} << 24})
                .with_verify({std::int64_t{0}, std::int64_t{1}, std::int64_t{2}, std::int64_t{31}, std::int64_t{256},
                              std::int64_t{257}, std::int64_t{65537}, std::int64_t{1000003},
                              std::int64_t{(1 << 22) + 3}}))
      // Input, plus scratch for the global-memory variant and the partials.
      .footprint(
          [](const axis_point& p) { return static_cast<std::uint64_t>(p.get_int("elements")) * 4 * 2 + (1 << 20); })
      .baseline("kernel", std::string("cub"), "speedup_vs_cub")
      .baseline("kernel", std::string("static_smem"), "speedup_vs_static_smem")
      .baseline("kernel", std::string("read_only"), "speedup_vs_read_only")
      .baseline("kernel", std::string("read_tiles"), "speedup_vs_read_tiles");

  auto c = present::gbps_bars("Sum of {fixed} values: memscope variants against CUB",
                              present::label_axes({"kernel", "type"}), present::axis_is("kernel", "cub"),
                              "CUB DeviceReduce::Sum");
  c.fixed_axis = "elements";
  s.chart(c).finding(reduce_findings);
  s.fact(advise::question::block_reduction, {"sum"}, "a block-wide reduction through shared memory against CUB",
         block_reduction_fact);
}

MEMSCOPE_REGISTER_SUITE(20, register_reduce);

}  // namespace memscope::suites
