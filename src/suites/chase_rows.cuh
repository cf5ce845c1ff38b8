#pragma once
// A row from one thread's pointer chase, for the suites that measure latency this way (latency,
// peer). Its figures are cycles from clock64 inside the kernel, over several chases that each
// start at another point of the ring, never the event time of a replay: a chase that walked the
// slots of the one before finds them in the L2 and reports an L2 hit for any working set.

#include "harness/state.hpp"

#include "memscope/cache/pointer_chase.cuh"
#include "memscope/core/device_buffer.hpp"
#include "memscope/core/sm_clock.cuh"
#include "memscope/core/verify.hpp"
#include "present/chart_spec.hpp"
#include "present/figure.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <vector>

namespace memscope::suites::chase_rows {

/// Cycles per load over the repeats of one point.
struct chase_stats {
  double median = 0, min = 0, max = 0;
};

constexpr int repeats_per_point = 5;
/// The fastest and the slowest chase of a point, which the row records beside its median.
inline constexpr const char* min_metric = "cycles_min";
inline constexpr const char* max_metric = "cycles_max";
/// Their whisker on a chart, and what it spans.
inline present::row_spread spread() { return present::metric_spread(min_metric, max_metric); }
inline constexpr const char* spread_key = "the fastest to the slowest of a point's five chases";
/// The row's figure for compare and the fleet table: its timed launch is one further, unwarmed
/// chase (below), not the chases the figure comes from.
inline present::figure_def figure() { return present::cycles_figure("cycles_per_load", min_metric, max_metric); }

/// Loads per repeat: every chase of one point runs this many.
inline unsigned chase_iters(const case_state& st) { return st.verify_only() ? 1024 : 8192; }

/// Runs launch(out, r, stream) for r = 0 .. repeats - 1 (each writes total cycles to out[0]
/// and its end word to out[1]); run r must end on want(r). Cycles per load over the runs.
template <class Want, class Launch>
chase_stats repeat_chase(case_state& st, unsigned iters, Want&& want, Launch&& launch) {
  const cudaStream_t s = st.stream();
  device_buffer<unsigned long long> out(3);
  const int repeats = st.verify_only() ? 1 : repeats_per_point;
  std::vector<double> per_load;
  for (int r = 0; r < repeats; ++r) {
    out.poison(s);
    MEMSCOPE_CUDA_CALL(cudaMemsetAsync(out.data() + 2, 0, sizeof(unsigned long long), s));
    launch(out.data(), r, s);
    MEMSCOPE_CUDA_CALL(cudaStreamSynchronize(s));
    const auto h = out.to_host();
    // The end word is 32 bits: its low half of out[1] (poisoned all-ones: never a valid word).
    const auto end = static_cast<std::uint32_t>(h[1]);
    st.check(compare_exact(&end, 1, [&](std::size_t) { return static_cast<std::uint32_t>(want(r)); }));
    per_load.push_back(static_cast<double>(h[0]) / iters);
  }
  std::sort(per_load.begin(), per_load.end());
  return {per_load[per_load.size() / 2], per_load.front(), per_load.back()};
}

/// The timed part (so that reports and comparisons see the row) is one further, unwarmed chase
/// of `timed_iters` loads; the row's figures are the repeats' cycles.
constexpr unsigned timed_iters = 1024;

inline void report(case_state& st, const chase_stats& c, const std::function<void(unsigned long long*, cudaStream_t)>& timed) {
  st.add_metric("cycles_per_load", c.median);
  st.add_metric(min_metric, c.min);
  st.add_metric(max_metric, c.max);
  // Nanoseconds at the clock the SMs run at now (%globaltimer against clock64), not the peak.
  const double mhz = measure_sm_clock_mhz(st.stream());
  st.add_metric("sm_clock_mhz", mhz);
  st.add_metric("ns_per_load", mhz > 0 ? c.median / (mhz * 1e-3) : c.median / (st.device().sm_clock_khz * 1e-6));
  st.add_elements(timed_iters);
  device_buffer<unsigned long long> out(3);
  st.exec([&](cudaStream_t q) { timed(out.data(), q); });
}

/// The row of a chase through a ring that latency::build_ring laid out for `slots` and `seed`
/// (in this GPU's memory or a peer's): repeats of `iters` loads from points slots/5 apart, the
/// whole ring read first where `warm`.
template <latency::load_path P>
void ring_row(case_state& st, const std::uint32_t* ring, cudaTextureObject_t tex, std::uint64_t slots, std::uint64_t seed, bool warm) {
  namespace lt = memscope::latency;
  const unsigned iters = chase_iters(st);
  const auto first_step = [&](int r) { return static_cast<std::uint64_t>(r) * slots / repeats_per_point; };
  const chase_stats c = repeat_chase(
      st, iters, [&](int r) { return lt::ring_position(slots, seed, first_step(r) + iters); },
      [&](unsigned long long* out, int r, cudaStream_t q) {
        lt::chase<P>(ring, tex, slots, lt::ring_position(slots, seed, first_step(r)), iters, warm, out, q);
      });
  report(st, c, [&](unsigned long long* out, cudaStream_t q) {
    lt::chase<P>(ring, tex, slots, lt::ring_start(slots, seed), timed_iters, false, out, q);
  });
}

}  // namespace memscope::suites::chase_rows
