// Suite `transform`: the seed's 4x4 matrix applied to many float3 / float4 points, the matrix in
// __constant__ memory, in global memory, or passed as a kernel parameter.

#include "harness/registry.hpp"
#include "harness/suite.hpp"
#include "advise/questions.hpp"
#include "harness/text_output.hpp"
#include "present/chart_spec.hpp"
#include "present/findings.hpp"

#include <fmt/format.h>
#include "harness/state.hpp"

#include "memscope/constant/transform.cuh"
#include "memscope/core/device_buffer.hpp"
#include "memscope/core/fill.cuh"
#include "memscope/core/random.hpp"
#include "memscope/core/verify.hpp"

#include <algorithm>
#include <cmath>

namespace memscope::suites {
namespace {

namespace tf = memscope::transform;

const char* const source_names[] = {"constant", "global", "param"};

template <class P>
void points_case(case_state& st, std::size_t n) {
  constexpr std::size_t lanes = sizeof(P) / sizeof(float);
  const auto src = choice<tf::matrix_source>(source_names, st.get_string("matrix"));
  const cudaStream_t s = st.stream();
  tf::mat4 m;
  for (int k = 0; k < 16; ++k) m.m[k] = hash_uniform(st.seed() ^ 0xA11ull, static_cast<std::uint64_t>(k));
  tf::upload_matrix(m);
  device_buffer<float> d_matrix(16);
  MEMSCOPE_CUDA_CALL(cudaMemcpy(d_matrix.data(), m.m, sizeof m.m, cudaMemcpyHostToDevice));
  device_buffer<P> in(n), out(n);
  fill_hash(reinterpret_cast<float*>(in.data()), n * lanes, st.seed(), fill_kind::uniform, s);
  out.poison(s);
  tf::apply(src, in.data(), out.data(), n, m, d_matrix.data(), s);
  MEMSCOPE_CUDA_CALL(cudaStreamSynchronize(s));
  const auto h = out.to_host();
  st.check(compare_within(reinterpret_cast<const float*>(h.data()), n * lanes, [&](std::size_t k) {
    const std::size_t i = k / lanes, row = k % lanes;
    double p[4] = {0, 0, 0, 1};
    for (std::size_t c = 0; c < lanes; ++c) p[c] = hash_uniform(st.seed(), i * lanes + c);
    double v = 0, mag = 0;
    for (int c = 0; c < 4; ++c) {
      v += static_cast<double>(m.m[c * 4 + row]) * p[c];
      mag += std::fabs(static_cast<double>(m.m[c * 4 + row]) * p[c]);
    }
    return std::pair<double, double>{v, 5e-7 * mag + 1e-30};
  }));
  st.add_bytes_read(n * sizeof(P));
  st.add_bytes_written(n * sizeof(P));
  st.add_elements(n);
  st.exec([&](cudaStream_t st_) { tf::apply(src, in.data(), out.data(), n, m, d_matrix.data(), st_); });
}

}  // namespace

void register_transform(registry& reg) {
  suite s{reg, "transform", "the seed's 4x4 transform with the matrix in three places"};
  s.add("points",
        [](case_state& st) {
          const auto n = static_cast<std::size_t>(st.get_int("elements"));
          if (st.get_string("point") == "float3") points_case<float3>(st, n);
          else points_case<float4>(st, n);
        })
      .summary("p' = M p with a 4x4 matrix from __constant__, global memory or kernel parameters")
      .axis(axis::strings("matrix", {std::begin(source_names), std::end(source_names)}, "where the matrix lives"))
      .axis(axis::strings("point", {"float3", "float4"}, "12-byte (w = 1) or 16-byte points"))
      .axis(axis::pow2("elements", {24, 26}, "points")
                .with_quick({std::int64_t{1} << 24})
                .with_verify({std::int64_t{1}, std::int64_t{255}, std::int64_t{1000003}}))
      .footprint([](const axis_point& p) { return static_cast<std::uint64_t>(p.get_int("elements")) * 32; })
      .baseline("matrix", std::string("constant"), "speedup_vs_constant");

  auto c =
      present::gbps_bars("4x4 transform by matrix source ({fixed} points)", present::label_axes({"matrix", "point"}),
                         present::axis_is("matrix", "constant"), "the matrix in __constant__");
  c.fixed_axis = "elements";
  s.chart(c).finding(present::spread_vs_baseline("speedup_vs_constant",
                                                 "matrix outside __constant__, speed relative to __constant__"));
}

MEMSCOPE_REGISTER_SUITE(90, register_transform);

}  // namespace memscope::suites
