// Suite `stencil`: the seed's 1D central-difference stencil (radius 1, 4, 8) with a shared-memory
// tile and halos, the coefficients read from global memory, __constant__, a const __restrict__
// pointer, __ldg, or kernel parameters; and a variant without shared memory that leans on L1.
// Checked against a double CPU reference at every point, edges included.

#include "harness/registry.hpp"
#include "harness/state.hpp"
#include "suites/suites.hpp"

#include "memscope/constant/stencil.cuh"
#include "memscope/constant/stencil_reference.hpp"
#include "memscope/core/device_buffer.hpp"
#include "memscope/core/fill.cuh"
#include "memscope/core/random.hpp"
#include "memscope/core/verify.hpp"

#include <algorithm>

namespace memscope::suites {
namespace {

namespace sc = memscope::stencil;

const char* const source_names[] = {"global", "constant", "restrict", "ldg", "param", "l1"};

/// The seed's coefficients for R = 4; fresh random ones for other radii.
std::vector<float> stencil_coefficients(int radius, std::uint64_t seed) {
  if (radius == 4) return {-1.0f, -2.0f, 2.0f, 1.0f};
  std::vector<float> c(static_cast<std::size_t>(radius));
  for (int i = 0; i < radius; ++i) c[i] = hash_uniform(seed ^ 0x5EEDull, static_cast<std::uint64_t>(i));
  return c;
}

void stencil_case(case_state& st) {
  const std::size_t n = static_cast<std::size_t>(st.get_int("elements"));
  const int radius = static_cast<int>(st.get_int("radius"));
  const auto src = choice<sc::coef_source>(source_names, st.get_string("source"));
  const cudaStream_t s = st.stream();
  sc::coefficients coef(stencil_coefficients(radius, st.seed()));
  device_buffer<float> in(n), out(n);
  fill_hash(in.data(), n, st.seed(), fill_kind::uniform, s);
  out.poison(s);
  sc::apply(src, in.data(), out.data(), n, coef, s);
  MEMSCOPE_CUDA_CALL(cudaStreamSynchronize(s));
  const auto h = out.to_host();
  const auto h_in = in.to_host();  // reading it back beats re-hashing 2R neighbours per point
  const auto input = [&](long long j) { return h_in[static_cast<std::size_t>(j)]; };
  st.check(compare_within(h.data(), n, [&](std::size_t x) {
    double v = 0, mag = 0;
    stencil::reference::point(input, n, coef.host(), x, v, mag);
    return std::pair<double, double>{v, 4e-7 * mag * radius + 1e-30};  // a few float roundings of each term
  }));
  st.add_bytes_read(n * sizeof(float));
  st.add_bytes_written(n * sizeof(float));
  st.add_elements(n);
  st.exec([&](cudaStream_t st_) { sc::apply(src, in.data(), out.data(), n, coef, st_); });
}

}  // namespace

void register_stencil(registry& reg) {
  case_def c;
  c.suite = "stencil";
  c.name = "central_difference";
  c.summary = "out[x] = sum c[i-1] (in[x+i] - in[x-i]); coefficients from 5 sources, shared tile or L1";
  c.axes.push_back(axis::strings("source", {std::begin(source_names), std::end(source_names)},
                                 "coefficients: global pointer, __constant__, const __restrict__, __ldg, kernel "
                                 "parameter; l1 = no shared tile (constant coefficients)"));
  c.axes.push_back(axis::integers("radius", {1, 4, 8}, "stencil radius R (2R+1 points)").with_range(1, 8));
  c.axes.push_back(axis::pow2("elements", {20, 24, 28}, "points")
                       .with_quick({std::int64_t{1} << 24})
                       .with_verify({std::int64_t{17}, std::int64_t{31}, std::int64_t{257}, std::int64_t{1000003},
                                     std::int64_t{(1 << 22) + 5}})
                       .with_range(17, std::int64_t{1} << 33));
  c.body = stencil_case;
  c.footprint = [](const axis_point& p) { return static_cast<std::uint64_t>(p.get_int("elements")) * 8; };
  c.baselines.push_back({"source", std::string("constant"), "speedup_vs_constant", speedup});
  reg.add(std::move(c));
}

}  // namespace memscope::suites
