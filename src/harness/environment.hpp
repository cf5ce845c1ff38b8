#pragma once
// The device-side context of a run: stream, events, the L2-flush buffer, and the sampler.

#include "harness/cold_mode.hpp"
#include "harness/gpu_timing.hpp"
#include "harness/nvml_telemetry.hpp"
#include "harness/state.hpp"
#include "harness/stats.hpp"
#include "memscope/core/device_buffer.hpp"
#include "memscope/core/device_info.hpp"

#include <functional>
#include <optional>
#include <vector>

namespace memscope {

struct timed_samples {
  sample_stats stats;         // seconds per launch
  std::vector<double> times;  // each sample, seconds per launch
  int batch = 1;
  bool converged = false;
  const char* stop = stop_converged;
  double clock_mhz = 0, clock_min_mhz = 0;  // 0: the probe saw no SM at both ends
  bool throttled = false;
  int throttle_discards = 0;
};

class run_environment {
 public:
  run_environment(device_info dev, timing_policy policy, cold_mode cold);

  const device_info& device() const { return device_; }
  cudaStream_t stream() const { return stream_.get(); }
  const timing_policy& policy() const { return policy_; }
  cold_mode cold() const { return cold_; }
  const nvml_telemetry& telemetry() const { return telemetry_; }

  /// Evicts whatever earlier work left in L2, leaving it clean or full of dirty lines as the
  /// run's cold mode says (cold runs only).
  void flush_l2();

  /// Warm-up, then samples per the stopping rule; a cold run flushes L2 before each sample. With
  /// exec_tag::held (the default) the stream is held while the launches of a sample are
  /// enqueued, so only GPU time is measured; exec_tag::sync is for launches that wait on the
  /// GPU themselves. `compared` points (a baseline compares them with a sibling) take exactly
  /// policy().compared_samples samples, so compared rows are sampled alike. The SM clock is
  /// probed around every sample.
  /// `prepare`, where given, runs before every launch (warm-up and samples), outside the timed
  /// span, and makes every sample one launch: state a launch consumes (pages a migration moved,
  /// caches it filled) is restored each time.
  timed_samples time(const std::function<void(cudaStream_t)>& launch, exec_tag tag = exec_tag::held,
                     bool compared = false, const std::function<void(cudaStream_t)>& prepare = {});

  /// Device-to-device cudaMemcpy bandwidth (bytes read + written per second, 1e9), measured
  /// once per run on buffers past L2: the ceiling every row is compared with. A --cold=dirty
  /// run measures it after a clean flush, so its rows' fractions show what the dirty lines cost.
  void measure_copy_ceiling(std::size_t bytes);
  double copy_ceiling_gbps() const { return copy_gbps_; }
  std::size_t copy_ceiling_bytes() const { return copy_bytes_; }

 private:
  device_info device_;
  timing_policy policy_;
  cold_mode cold_;
  cuda_stream stream_;
  cuda_event start_, stop_;
  stream_hold hold_;
  sm_clock_probe clock_;
  nvml_telemetry telemetry_;
  std::optional<l2_evictor> evictor_;
  double copy_gbps_ = 0;
  std::size_t copy_bytes_ = 0;
};

}  // namespace memscope
