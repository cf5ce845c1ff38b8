#include "harness/environment.hpp"

#include "harness/stop_signal.hpp"

#include "memscope/core/cuda_check.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <thread>
#include <vector>

namespace memscope {

run_environment::run_environment(device_info dev, timing_policy policy, cold_mode cold)
    : device_(std::move(dev)), policy_(policy), cold_(cold), telemetry_(device_.uuid) {
  if (cold_ != cold_mode::off) evictor_.emplace(static_cast<std::size_t>(std::max(device_.l2_bytes, 0)));
}

void run_environment::flush_l2() {
  if (!evictor_) throw std::logic_error("flush_l2 outside a cold run");
  if (cold_ == cold_mode::dirty) evictor_->evict_dirty(stream());
  else evictor_->evict(stream());
}

timed_samples run_environment::time(const std::function<void(cudaStream_t)>& launch, exec_tag tag, bool compared,
                                    const std::function<void(cudaStream_t)>& prepare) {
  const cudaStream_t s = stream();
  const timing_policy& p = policy_;
  // Run-once (for profilers) launches once, unheld and unwarmed: a first launch may load its
  // module, which a held stream would wait on.
  const bool held = tag == exec_tag::held && !p.run_once;
  const double peak_mhz = device_.sm_clock_khz / 1e3;
  // The clock below which a sample counts as throttled; judged only on samples long enough
  // for the global timer's resolution (about a microsecond).
  const double throttle_mhz = p.throttle_threshold * peak_mhz;
  constexpr double judge_ns = 20e3;

  struct one_sample {
    double seconds;  // per launch
    std::optional<sm_clock_probe::reading> clock;
  };
  // One sample: `batch` launches between two events, the clock stamped just outside them.
  // Cold samples flush first; held samples enqueue everything while the stream waits.
  const auto sample = [&](int batch) {
    if (prepare) {
      prepare(s);
      MEMSCOPE_CUDA_CALL(cudaStreamSynchronize(s));
    }
    if (cold_ != cold_mode::off) flush_l2();
    if (held) hold_.engage(s);
    try {
      if (!p.run_once) clock_.start(s);  // run-once: the profiler sees the case's launch alone
      start_.record(s);
      for (int b = 0; b < batch; ++b) launch(s);
      stop_.record(s);
      if (!p.run_once) clock_.stop(s);
    } catch (...) {
      if (held) hold_.release();  // never leave the stream waiting on a flag nobody will set
      throw;
    }
    if (held) hold_.release();
    MEMSCOPE_CUDA_CALL(cudaStreamSynchronize(s));  // the stop stamp too, not just the event
    if (held && hold_.timed_out())
      throw std::runtime_error(
          "the host blocked for seconds while the stream was held for timing (a launch that waits "
          "for the GPU must be timed with exec_tag::sync)");
    throw_if_stop_requested();  // the sample is whole and the stream free: drop the point here
    return one_sample{stop_.seconds_since(start_) / batch, p.run_once ? std::nullopt : clock_.read()};
  };

  // The stopping rule, stated once: enough samples, enough GPU time, a small enough error.
  const auto meets_rule = [&](int n, double rse, double gpu_s) {
    return n >= p.min_samples && rse <= p.max_noise && gpu_s >= p.min_time_s;
  };
  timed_samples out;
  running_stats run;
  sm_clock_probe::reading clock_sum;
  double clock_min = 0;
  const auto keep = [&](const one_sample& x) {
    out.times.push_back(x.seconds);
    run.add(x.seconds);
    if (x.clock) {
      clock_sum.cycles += x.clock->cycles;
      clock_sum.ns += x.clock->ns;
      if (x.clock->ns >= judge_ns) clock_min = clock_min > 0 ? std::min(clock_min, x.clock->mhz()) : x.clock->mhz();
    }
  };
  const auto throttled = [&](const one_sample& x) {
    return peak_mhz > 0 && x.clock && x.clock->ns >= judge_ns && x.clock->mhz() < throttle_mhz;
  };

  if (p.run_once) {
    keep(sample(1));
    out.stop = stop_run_once;
  } else {
    // Warm-up: module load, first-touch of pages, clocks ramping.
    for (int i = 0; i < std::max(1, p.warmup_launches); ++i) {
      if (prepare) prepare(s);
      launch(s);
    }
    MEMSCOPE_CUDA_CALL(cudaStreamSynchronize(s));
    throw_if_stop_requested();

    int batch = 1;
    if (cold_ == cold_mode::off && !prepare) {
      const double one = sample(1).seconds;
      // Capped so a held batch never fills the launch queue (the host would block on it).
      if (one < p.min_sample_s)
        batch = static_cast<int>(std::min<double>(p.max_batch, std::ceil(p.min_sample_s / std::max(one, 1e-7))));
    }
    out.batch = batch;

    // Compared points take at least compared_samples, so both sides of a ratio rest on alike
    // evidence; past that floor every point follows the same rule.
    const int floor_n = compared ? std::max({1, p.compared_samples, p.min_samples}) : p.min_samples;
    const int max_discards = 2 * std::max(p.min_samples, 10);
    const auto t0 = std::chrono::steady_clock::now();
    const auto wall = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
    out.stop = stop_max_samples;
    while (static_cast<int>(out.times.size()) < p.max_samples) {
      const one_sample x = sample(batch);
      if (throttled(x) && p.resample_throttled && out.throttle_discards < max_discards && wall() < p.timeout_s) {
        ++out.throttle_discards;  // dropped: taken again once the clock has had a moment
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        continue;
      }
      keep(x);
      const int n = static_cast<int>(out.times.size());
      if (n >= floor_n) {
        if (meets_rule(n, run.rse(), run.sum() * batch)) {
          out.stop = stop_converged;
          break;
        }
        if (wall() > p.timeout_s) {
          out.stop = stop_timeout;
          break;
        }
      } else if (n >= p.min_samples && wall() > std::max(p.compared_cap_s, p.timeout_s)) {
        out.stop = stop_timeout;  // samples so long that the floor would take too long
        break;
      }
    }
  }
  MEMSCOPE_CUDA_CALL(cudaGetLastError());
  out.stats = summarize(out.times);
  out.converged = !p.run_once && meets_rule(static_cast<int>(out.times.size()), out.stats.rse, run.sum() * out.batch);
  if (clock_sum.ns > 0) {
    out.clock_mhz = clock_sum.mhz();
    out.clock_min_mhz = clock_min > 0 ? clock_min : out.clock_mhz;
    out.throttled = peak_mhz > 0 && out.clock_min_mhz < throttle_mhz;
  }
  return out;
}

void run_environment::measure_copy_ceiling(std::size_t bytes) {
  device_buffer<unsigned char> src(bytes), dst(bytes);
  MEMSCOPE_CUDA_CALL(cudaMemsetAsync(src.data(), 0x5A, bytes, stream()));
  // The ceiling is sampled in full even in a run-once run: every row's fraction divides by it.
  // Not behind the stream hold there: a profiler that serializes launches would replay the
  // hold kernel itself, which then spins until its timeout (seen under ncu without a filter).
  // A dirty run's ceiling is the clean one: the hardware's copy, not the regime's.
  // The run's own settings come back however time() returns.
  struct restore {
    run_environment& env;
    const timing_policy policy;
    const cold_mode cold;
    ~restore() {
      env.policy_ = policy;
      env.cold_ = cold;
    }
  } const keep{*this, policy_, cold_};
  policy_.run_once = false;
  if (cold_ == cold_mode::dirty) cold_ = cold_mode::clean;
  const timed_samples t = time(
      [&](cudaStream_t st) {
        MEMSCOPE_CUDA_CALL(cudaMemcpyAsync(dst.data(), src.data(), bytes, cudaMemcpyDeviceToDevice, st));
      },
      keep.policy.run_once ? exec_tag::sync : exec_tag::held);
  copy_bytes_ = bytes;
  copy_gbps_ = 2.0 * static_cast<double>(bytes) / t.stats.median / 1e9;
}

}  // namespace memscope
