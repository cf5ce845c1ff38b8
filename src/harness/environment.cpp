#include "harness/environment.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace memscope {

run_environment::run_environment(device_info dev, timing_policy policy, bool cold)
    : device_(std::move(dev)), policy_(policy), cold_(cold) {
  if (cold_) evictor_.emplace(static_cast<std::size_t>(std::max(device_.l2_bytes, 0)));
}

void run_environment::flush_l2() {
  if (!evictor_) throw std::logic_error("flush_l2 outside a cold run");
  evictor_->evict(stream());
}

timed_samples run_environment::time(const std::function<void(cudaStream_t)>& launch, exec_tag tag, bool compared) {
  const cudaStream_t s = stream();
  const bool held = tag == exec_tag::held;
  // One sample: `batch` launches between two events. Cold samples flush first, outside the
  // events; held samples enqueue everything while the stream waits, then let it run.
  const auto sample = [&](int batch) {
    if (cold_) flush_l2();
    if (held) hold_.engage(s);
    try {
      start_.record(s);
      for (int b = 0; b < batch; ++b) launch(s);
      stop_.record(s);
    } catch (...) {
      if (held) hold_.release();  // never leave the stream waiting on a flag nobody will set
      throw;
    }
    if (held) hold_.release();
    stop_.synchronize();
    if (held && hold_.timed_out())
      throw std::runtime_error("the host blocked for seconds while the stream was held for timing (a launch that waits "
                               "for the GPU must be timed with exec_tag::sync)");
    return stop_.seconds_since(start_) / batch;
  };

  // Warm-up: module load, first-touch of pages, clocks ramping.
  for (int i = 0; i < std::max(1, policy_.warmup_launches); ++i) launch(s);
  MEMSCOPE_CUDA_CALL(cudaStreamSynchronize(s));

  int batch = 1;
  if (!cold_) {
    const double one = sample(1);
    // Capped so a held batch never fills the launch queue (the host would block on it).
    if (one < policy_.min_sample_s)
      batch = static_cast<int>(std::min<double>(policy_.max_batch, std::ceil(policy_.min_sample_s / std::max(one, 1e-7))));
  }

  const int want = compared ? std::max(1, policy_.compared_samples) : policy_.max_samples;
  std::vector<double> samples;
  samples.reserve(static_cast<std::size_t>(want));
  const auto t0 = std::chrono::steady_clock::now();
  while (static_cast<int>(samples.size()) < want) {
    samples.push_back(sample(batch));
    if (static_cast<int>(samples.size()) >= policy_.min_samples) {
      const double spent = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      // Compared points stop early only when their samples are very long (a safety cap).
      if (compared) {
        if (spent > policy_.compared_cap_s) break;
        continue;
      }
      if (spent > policy_.budget_s) break;
      if (summarize(samples).noise < policy_.target_noise && spent > 0.1 * policy_.budget_s) break;
    }
  }
  MEMSCOPE_CUDA_CALL(cudaGetLastError());
  return {summarize(std::move(samples)), batch};
}

void run_environment::measure_copy_ceiling(std::size_t bytes) {
  device_buffer<unsigned char> src(bytes), dst(bytes);
  MEMSCOPE_CUDA_CALL(cudaMemsetAsync(src.data(), 0x5A, bytes, stream()));
  const auto t = time([&](cudaStream_t st) {
    MEMSCOPE_CUDA_CALL(cudaMemcpyAsync(dst.data(), src.data(), bytes, cudaMemcpyDeviceToDevice, st));
  });
  copy_bytes_ = bytes;
  copy_gbps_ = 2.0 * static_cast<double>(bytes) / t.stats.median / 1e9;
}

}  // namespace memscope
