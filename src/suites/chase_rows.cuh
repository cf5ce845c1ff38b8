#pragma once
// A row from one thread's pointer chase, for the suites that measure latency this way (latency,
// peer). Its figures are cycles from clock64 inside the kernel, over chases from SMs spread over
// the GPU that each start at another point of the ring, never the event time of a replay: a
// chase that walked the slots of the one before finds them in the L2 and reports an L2 hit for
// any working set.

#include "harness/gpu_timing.hpp"
#include "harness/state.hpp"
#include "harness/stats.hpp"

#include "memscope/cache/pointer_chase.cuh"
#include "memscope/core/device_buffer.hpp"
#include "memscope/core/on_device.hpp"
#include "memscope/core/placement.hpp"
#include "probes/sm_census.cuh"
#include "memscope/core/sm_id.cuh"
#include "probes/sm_clock.cuh"
#include "memscope/core/verify.hpp"
#include "present/chart_spec.hpp"
#include "present/figure.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace memscope::suites::chase_rows {

/// Cycles per load over the chases of one point, one from each SM of a spread.
struct chase_stats {
  double mean = 0, min = 0, max = 0;
  std::size_t sms = 0;
};

/// SMs each point is chased from: enough to cover both L2 partitions and every GPC of a large
/// GPU several times over (from one SM, a working set of a few lines reads a latency that
/// varies with which slices the allocation's lines land in and how far they are from that SM);
/// two under `verify`, where only the answer counts.
constexpr std::size_t sms_per_point = 16;
constexpr std::size_t verify_sms = 2;
/// The fastest and the slowest SM's chase of a point, which the row records beside their mean.
inline constexpr const char* min_metric = "cycles_min";
inline constexpr const char* max_metric = "cycles_max";
/// Their whisker on a chart, and what it spans.
inline present::row_spread spread() { return present::metric_spread(min_metric, max_metric); }
inline std::string spread_key() {
  return fmt::format(
      "the fastest to the slowest of a point's chases, one from each of {} SMs spread over the GPU (all of a smaller "
      "one)",
      sms_per_point);
}
/// The row's figure for compare and the fleet table: its timed launch is one further, unwarmed
/// chase (below), not the chases the figure comes from. Without a range: the SMs' spread is
/// the GPU's, while the mean over them repeats closely in a fresh process, so the effect alone
/// decides.
inline present::figure_def figure() { return present::cycles_figure("cycles_per_load"); }

/// Loads per chase: every chase of one point runs this many.
inline unsigned chase_iters(const case_state& st) { return st.verify_only() ? 1024 : 8192; }

/// The SMs a point is chased from: spread over the GPU's SM ids.
inline std::vector<unsigned> chase_sms(case_state& st) {
  return spread_pick(sm_census(st.stream()), st.verify_only() ? verify_sms : sms_per_point);
}

/// Runs launch(out, r, target, stream) for the r-th of `sms` (chase_sms; each launch writes total
/// cycles to out[0] and its end word to out[1]); chase r must end on want(r). A launch whose
/// SM no block reached is tried again, then that SM is left out. Cycles per load: the mean
/// over the SMs, which a point chased from one SM would not give: how far that SM is from the
/// few lines of a small working set decides its figure.
template <class Want, class Launch>
chase_stats repeat_chase(case_state& st, const std::vector<unsigned>& sms, unsigned iters, Want&& want,
                         Launch&& launch) {
  const cudaStream_t s = st.stream();
  device_buffer<unsigned long long> out(4);
  std::vector<double> per_load;
  aim_each(sms, [&](std::size_t r, unsigned sm) {
    out.poison(s);
    // out[2]: a warm-up checksum that kernels add to; out[3]: the claim of the SM.
    MEMSCOPE_CUDA_CALL(cudaMemsetAsync(out.data() + 2, 0, 2 * sizeof(unsigned long long), s));
    launch(out.data(), static_cast<int>(r), sm_target{sm, out.data() + 3}, s);
    MEMSCOPE_CUDA_CALL(cudaStreamSynchronize(s));
    const auto h = out.to_host();
    if (h[3] != sm + 1ull) return false;
    // The end word is 32 bits: its low half of out[1] (poisoned all-ones: never a valid word).
    const auto end = static_cast<std::uint32_t>(h[1]);
    st.check(
        compare_exact(&end, 1, [&](std::size_t) { return static_cast<std::uint32_t>(want(static_cast<int>(r))); }));
    per_load.push_back(static_cast<double>(h[0]) / iters);
    return true;
  });
  if (per_load.empty()) st.skip(no_sm_reached(sms.size()));
  const sample_stats over = summarize(per_load);
  return {over.mean, over.min, over.max, per_load.size()};
}

/// The timed part (so that reports and comparisons see the row) is one further, unwarmed chase
/// of `timed_iters` loads; the row's figures are the repeats' cycles.
constexpr unsigned timed_iters = 1024;

inline void report(case_state& st, const chase_stats& c,
                   const std::function<void(unsigned long long*, cudaStream_t)>& timed) {
  st.add_metric("cycles_per_load", c.mean);
  st.add_metric(min_metric, c.min);
  st.add_metric(max_metric, c.max);
  st.add_metric("chase_sms", static_cast<double>(c.sms));
  // Nanoseconds at the clock the SMs run at now (%globaltimer against clock64), not the peak.
  const double mhz = measure_sm_clock_mhz(st.stream());
  st.add_metric("sm_clock_mhz", mhz);
  st.add_metric("ns_per_load", mhz > 0 ? c.mean / (mhz * 1e-3) : c.mean / (st.device().sm_clock_khz * 1e-6));
  st.add_elements(timed_iters);
  device_buffer<unsigned long long> out(3);
  st.exec([&](cudaStream_t q) { timed(out.data(), q); });
}

/// Whether each SM reads a ring of `bytes` whole before its chase: only where the L2 that
/// caches it can keep a part of it. Past twice that L2 nothing of a lap stays, so each chase
/// starts from an L2 emptied of the ring instead.
inline bool warms(std::size_t bytes, std::size_t l2_bytes) { return bytes <= 2 * l2_bytes; }

/// Empties the L2 of the GPU that holds a ring (this one or a peer) before a chase: without it
/// a ring past twice the L2 is not all in DRAM. Its build leaves its last writes cached, and
/// the SM that built it would read part of it from L2.
class ring_evictor {
 public:
  ring_evictor(int holder, int self, std::size_t l2_bytes)
      : holder_(holder), self_(self), evictor_(made_on(holder, l2_bytes)) {}
  /// Before work on `s` (this GPU's stream): on a peer the sweep runs there, finished first.
  void evict(cudaStream_t s) {
    if (holder_ == self_) return evictor_.evict(s);
    on_device there(holder_);
    evictor_.evict(nullptr);
    MEMSCOPE_CUDA_CALL(cudaStreamSynchronize(nullptr));
  }

 private:
  /// Its sweep buffer lives on the GPU that holds the ring.
  static l2_evictor made_on(int device, std::size_t l2_bytes) {
    on_device there(device);
    return l2_evictor(l2_bytes);
  }

  int holder_, self_;
  l2_evictor evictor_;
};

/// The row of a chase through a ring that latency::build_ring laid out for `slots` and `seed`
/// in the memory of GPU `holder` (this GPU or a peer): `iters` loads from each SM of
/// chase_sms, each from its own point of the ring (evenly apart). A ring the holder's L2 can
/// keep a part of is read whole by that SM first; a larger one is chased from an L2 without it.
template <latency::load_path P>
void ring_row(case_state& st, const std::uint32_t* ring, cudaTextureObject_t tex, std::uint64_t slots,
              std::uint64_t seed, int holder) {
  namespace lt = memscope::latency;
  const unsigned iters = chase_iters(st);
  const std::vector<unsigned> sms = chase_sms(st);
  const std::size_t chases = sms.size();
  int l2_attr = 0;
  MEMSCOPE_CUDA_CALL(cudaDeviceGetAttribute(&l2_attr, cudaDevAttrL2CacheSize, holder));
  const auto l2 = static_cast<std::size_t>(l2_attr);
  const bool warm = warms(slots * lt::policy::slot_words * sizeof(std::uint32_t), l2);
  std::optional<ring_evictor> cold;
  if (!warm) cold.emplace(holder, st.device().ordinal, l2);
  const auto first_step = [&](int r) { return static_cast<std::uint64_t>(r) * slots / chases; };
  const chase_stats c = repeat_chase(
      st, sms, iters, [&](int r) { return lt::ring_position(slots, seed, first_step(r) + iters); },
      [&](unsigned long long* out, int r, sm_target on, cudaStream_t q) {
        if (cold) cold->evict(q);
        lt::chase<P>(ring, tex, slots, lt::ring_position(slots, seed, first_step(r)), iters, warm, out, q, on);
      });
  report(st, c, [&](unsigned long long* out, cudaStream_t q) {
    lt::chase<P>(ring, tex, slots, lt::ring_start(slots, seed), timed_iters, false, out, q);
  });
}

}  // namespace memscope::suites::chase_rows
