// src/harness/gpu_timing and the sampler around it: the stream hold keeps host time out of
// every sample, gives up when the host never releases it, and the L2 eviction runs.

#include "gpu/gpu_test.hpp"

#include "core/device_query.hpp"
#include "harness/environment.hpp"
#include "harness/gpu_timing.hpp"
#include "memscope/core/device_buffer.hpp"

#include <chrono>
#include <vector>
#include <string>
#include <thread>

using namespace memscope;

namespace {

__global__ void set_flag_kernel(int* flag) { *flag = 1; }

void sleep_ms(int ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }

}  // namespace

TEST(GpuTiming, TheHoldKeepsTheStreamWaitingUntilReleased) {
  MEMSCOPE_REQUIRE_GPU();
  cuda_stream s;
  cuda_event start, stop;
  device_buffer<int> flag(1);
  // Loaded before the hold: with lazy loading, the first launch of a kernel loads its module,
  // which waits for the running hold kernel (the sampler's warm-up launches do the same).
  set_flag_kernel<<<1, 1, 0, s.get()>>>(flag.data());
  MEMSCOPE_CHECK_LAUNCH("set_flag_kernel");
  s.synchronize();
  MEMSCOPE_CUDA_CALL(cudaMemset(flag.data(), 0, sizeof(int)));
  stream_hold hold;
  hold.engage(s.get());
  start.record(s.get());
  set_flag_kernel<<<1, 1, 0, s.get()>>>(flag.data());
  MEMSCOPE_CHECK_LAUNCH("set_flag_kernel");
  stop.record(s.get());
  sleep_ms(50);  // host time that must not be measured
  EXPECT_EQ(cudaStreamQuery(s.get()), cudaErrorNotReady) << "the stream ran while held";
  hold.release();
  stop.synchronize();
  EXPECT_FALSE(hold.timed_out());
  EXPECT_EQ(flag.to_host()[0], 1);
  EXPECT_LT(stop.seconds_since(start), 5e-3) << "host time leaked into the events";
}

TEST(GpuTiming, AHoldNeverReleasedGivesUpAndSaysSo) {
  MEMSCOPE_REQUIRE_GPU();
  cuda_stream s;
  stream_hold hold(0.05);
  hold.engage(s.get());
  s.synchronize();  // returns once the kernel gives up, 50 ms on
  EXPECT_TRUE(hold.timed_out());
  hold.engage(s.get());
  hold.release();
  s.synchronize();
  EXPECT_FALSE(hold.timed_out());
}

TEST(GpuTiming, SamplesExcludeHostWorkBetweenLaunches) {
  MEMSCOPE_REQUIRE_GPU();
  run_environment env(query_device_info(0), timing_policy::quick(), cold_mode::off);
  device_buffer<int> flag(1);
  // 1 ms of host work per launch (a planner, a slow argument marshal): outside every sample.
  const auto t = env.time([&](cudaStream_t q) {
    sleep_ms(1);
    set_flag_kernel<<<1, 1, 0, q>>>(flag.data());
    MEMSCOPE_CHECK_LAUNCH("set_flag_kernel");
  });
  EXPECT_LT(t.stats.median, 200e-6) << "host time per launch was measured";
  // Compared points take at least the policy's compared sample count.
  const auto c = env.time([&](cudaStream_t q) { set_flag_kernel<<<1, 1, 0, q>>>(flag.data()); }, exec_tag::held, true);
  EXPECT_GE(c.stats.count, static_cast<std::size_t>(timing_policy::quick().compared_samples));
  // Without the hold the host work is on the clock: that is what exec_tag::sync is for.
  const auto unheld = env.time(
      [&](cudaStream_t q) {
        sleep_ms(1);
        set_flag_kernel<<<1, 1, 0, q>>>(flag.data());
      },
      exec_tag::sync);
  EXPECT_GT(unheld.stats.median, 0.5e-3);
}

TEST(GpuTiming, ColdRunsEvictWithoutError) {
  MEMSCOPE_REQUIRE_GPU();
  for (const cold_mode m : {cold_mode::clean, cold_mode::dirty}) {
    run_environment env(query_device_info(0), timing_policy::quick(), m);
    device_buffer<float> a(1 << 20), b(1 << 20);
    const auto t = env.time([&](cudaStream_t q) {
      MEMSCOPE_CUDA_CALL(cudaMemcpyAsync(b.data(), a.data(), a.bytes(), cudaMemcpyDeviceToDevice, q));
    });
    EXPECT_EQ(t.batch, 1) << to_string(m);  // cold samples are never batched
    EXPECT_GE(t.stats.count, static_cast<std::size_t>(timing_policy::quick().min_samples));
    env.measure_copy_ceiling(std::size_t{64} << 20);  // measured from a clean L2, then the run's mode again
    EXPECT_GT(env.copy_ceiling_gbps(), 0);
    EXPECT_EQ(env.cold(), m);
  }
}

// The dirty flush writes its own buffer only: data a case left in device memory is untouched.
TEST(GpuTiming, TheDirtyFlushLeavesOtherBuffersAlone) {
  MEMSCOPE_REQUIRE_GPU();
  run_environment env(query_device_info(0), timing_policy::quick(), cold_mode::dirty);
  const std::size_t n = 1000003;
  device_buffer<unsigned> d(n);
  std::vector<unsigned> h(n);
  for (std::size_t i = 0; i < n; ++i) h[i] = static_cast<unsigned>(i * 2654435761u);
  MEMSCOPE_CUDA_CALL(cudaMemcpy(d.data(), h.data(), d.bytes(), cudaMemcpyHostToDevice));
  env.flush_l2();
  MEMSCOPE_CUDA_CALL(cudaStreamSynchronize(env.stream()));
  std::vector<unsigned> back(n, 0xDEADBEEFu);
  MEMSCOPE_CUDA_CALL(cudaMemcpy(back.data(), d.data(), d.bytes(), cudaMemcpyDeviceToHost));
  EXPECT_EQ(back, h);
}

TEST(GpuTiming, StoppingRuleAndClockAreRecorded) {
  MEMSCOPE_REQUIRE_GPU();
  const auto dev = query_device_info(0);
  device_buffer<float> a(1 << 22), b(1 << 22);
  const auto copy = [&](cudaStream_t q) {
    MEMSCOPE_CUDA_CALL(cudaMemcpyAsync(b.data(), a.data(), a.bytes(), cudaMemcpyDeviceToDevice, q));
  };
  timing_policy many = timing_policy::quick();
  many.min_samples = many.max_samples = 33;  // a rule that can only stop at 33
  run_environment env(dev, many, cold_mode::off);
  const auto t = env.time(copy);
  EXPECT_EQ(t.stats.count, 33u);
  EXPECT_EQ(t.times.size(), 33u);
  EXPECT_TRUE(std::string(t.stop) == stop_max_samples || std::string(t.stop) == stop_converged) << t.stop;
  // The probe saw the SM clock, and it is a clock this GPU can run at.
  EXPECT_GT(t.clock_mhz, 0.2 * dev.sm_clock_khz / 1e3);
  EXPECT_LT(t.clock_mhz, 1.1 * dev.sm_clock_khz / 1e3);
  EXPECT_LE(t.clock_min_mhz, t.clock_mhz * 1.0001);

  timing_policy loose = timing_policy::quick();
  loose.max_noise = 0.5;  // 50%: met as soon as min_samples and min_time are
  run_environment env2(dev, loose, cold_mode::off);
  const auto l = env2.time(copy);
  EXPECT_TRUE(l.converged);
  EXPECT_STREQ(l.stop, stop_converged);

  timing_policy once = timing_policy::full();
  once.run_once = true;
  run_environment env3(dev, once, cold_mode::off);
  const auto o = env3.time(copy);
  EXPECT_EQ(o.stats.count, 1u);
  EXPECT_EQ(o.batch, 1);
  EXPECT_FALSE(o.converged);
  EXPECT_STREQ(o.stop, stop_run_once);
}
