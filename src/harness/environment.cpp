#include "harness/environment.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace memscope {

run_environment::run_environment(device_info dev, timing_policy policy, bool cold)
    : device_(std::move(dev)), policy_(policy), cold_(cold),
      // Only cold runs flush; the buffer is twice the L2 so nothing that was there survives.
      flush_(cold ? static_cast<std::size_t>(std::max(device_.l2_bytes, 1 << 20)) * 2 : 0) {}

void run_environment::flush_l2() {
  if (flush_.size() == 0) throw std::logic_error("flush_l2 outside a cold run");
  // A different byte each round, so no layer can treat the write as redundant.
  MEMSCOPE_CUDA_CALL(cudaMemsetAsync(flush_.data(), static_cast<int>(++flush_round_ & 0xFF), flush_.bytes(), stream()));
}

timed_samples run_environment::time(const std::function<void(cudaStream_t)>& launch) {
  const cudaStream_t s = stream();
  // Warm-up: module load, first-touch of pages, clocks ramping.
  for (int i = 0; i < std::max(1, policy_.warmup_launches); ++i) launch(s);
  MEMSCOPE_CUDA_CALL(cudaStreamSynchronize(s));

  int batch = 1;
  if (!cold_) {
    start_.record(s);
    launch(s);
    stop_.record(s);
    stop_.synchronize();
    const double one = stop_.seconds_since(start_);
    if (one < policy_.min_sample_s)
      batch = static_cast<int>(std::min(1000.0, std::ceil(policy_.min_sample_s / std::max(one, 1e-7))));
  }

  std::vector<double> samples;
  samples.reserve(static_cast<std::size_t>(policy_.max_samples));
  const auto t0 = std::chrono::steady_clock::now();
  while (static_cast<int>(samples.size()) < policy_.max_samples) {
    if (cold_) flush_l2();
    start_.record(s);
    for (int b = 0; b < batch; ++b) launch(s);
    stop_.record(s);
    stop_.synchronize();
    samples.push_back(stop_.seconds_since(start_) / batch);

    if (static_cast<int>(samples.size()) >= policy_.min_samples) {
      const double spent = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
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
