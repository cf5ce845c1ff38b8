// Throw-away experiment: the shared-memory kernels' two builds (histogram_kernels.cuh) where
// shared memory admits two blocks per SM but the kernel's registers do not. The plan picks the
// build by shared memory alone (shared_blocks_per_sm), so a kernel that needs more than 32
// registers (level ranges' binary search, doubles) runs its two-blocks build at one block per
// SM, where the one-block build ((1024, 1): up to 64 registers) might be faster.
// For each interface the library's own plan runs twice, once per build, on the same input:
// registers, spills and resident blocks of each build, the median time of each, counts checked
// exactly against the CPU reference.
//   nvcc -O3 -std=c++17 -arch=sm_90 --expt-relaxed-constexpr -lineinfo -I include \
//        results/h200/issue16/experiments/heavy_build_try.cu -o heavy_build_try
//   ./heavy_build_try
// Output and reading: heavy_build_try.txt.
#include "memscope/dsmem/histogram.cuh"
#include "memscope/dsmem/histogram_reference.hpp"

#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "../../issue20/experiments/timing.cuh"  // CK, sorted_us

namespace hist = memscope::histogram;

template <class T>
const char* type_name() {
  if constexpr (std::is_same_v<T, double>) return "f64";
  else if constexpr (std::is_same_v<T, float>) return "f32";
  else if constexpr (std::is_same_v<T, int>) return "i32";
  else if constexpr (std::is_same_v<T, std::uint64_t>) return "u64";
  else return "u32";
}

struct build_info {
  int regs = 0, local = 0, per_sm = 0;
};

template <class Kernel>
build_info info_of(Kernel kernel, std::size_t smem) {
  build_info b;
  cudaFuncAttributes a{};
  CK(cudaFuncGetAttributes(&a, kernel));
  b.regs = a.numRegs;
  b.local = static_cast<int>(a.localSizeBytes);
  CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&b.per_sm, kernel, hist::policy::block_threads, smem));
  return b;
}

template <class Source, class Rule, class CounterT>
build_info build_of(const hist::plan& p) {
  if (p.kind == hist::strategy::block_smem) return info_of(hist::block_kernel_for<Source, Rule, CounterT>(p.blocks_per_sm), p.smem_bytes);
  if (p.kind == hist::strategy::cluster_dsmem) return info_of(hist::cluster_kernel_for<Source, Rule, CounterT>(p.blocks_per_sm), p.smem_bytes);
  return info_of(hist::split_kernel_for<Source, Rule, CounterT>(p.blocks_per_sm), p.smem_bytes);
}

/// One interface at one bin count: both builds of the plan's kernel, timed alternately.
template <class SampleT, class LevelT, class CounterT, bool Range>
void run_case(const char* what, int bins, std::size_t n, const std::vector<SampleT>& h_samples, const SampleT* d_samples,
              LevelT lo, LevelT hi) {
  std::vector<LevelT> h_levels(static_cast<std::size_t>(bins) + 1);
  for (int i = 0; i <= bins; ++i) h_levels[i] = static_cast<LevelT>(lo + (hi - lo) * static_cast<double>(i) / bins);
  LevelT* d_levels = nullptr;
  CK(cudaMalloc(&d_levels, h_levels.size() * sizeof(LevelT)));
  CK(cudaMemcpy(d_levels, h_levels.data(), h_levels.size() * sizeof(LevelT), cudaMemcpyHostToDevice));
  CounterT* d_hist = nullptr;
  CK(cudaMalloc(&d_hist, static_cast<std::size_t>(bins) * sizeof(CounterT)));

  using source = hist::linear_samples<SampleT>;
  using rule_t = std::conditional_t<Range, hist::range_rule<SampleT, LevelT>, hist::even_rule<SampleT, LevelT>>;
  rule_t rule, host_rule;
  if constexpr (Range) {
    memscope::throw_if_error(hist::try_make_range_rule<SampleT>(bins + 1, d_levels, rule));
    memscope::throw_if_error(hist::try_make_range_rule<SampleT>(bins + 1, h_levels.data(), host_rule));
  } else {
    memscope::throw_if_error(hist::try_make_even_rule<SampleT>(bins + 1, lo, hi, rule));
    host_rule = rule;
  }
  source src{n};
  hist::options opt;
  hist::plan p;
  memscope::throw_if_error(hist::detail::prepare<source, rule_t, CounterT>(src, rule, static_cast<std::int64_t>(n), opt, p));
  if (p.kind != hist::strategy::block_smem && p.kind != hist::strategy::cluster_dsmem && p.kind != hist::strategy::cluster_split) {
    std::printf("%-22s %6d bins  %-14s (no shared-memory kernel)\n", what, bins, hist::to_string(p.kind));
    CK(cudaFree(d_levels));
    CK(cudaFree(d_hist));
    return;
  }
  const std::vector<CounterT> want = hist::histogram_reference<CounterT>(h_samples.data(), n, host_rule);
  hist::plan builds[2] = {p, p};
  builds[0].blocks_per_sm = 2;
  builds[1].blocks_per_sm = 1;
  std::vector<float> t[2];
  build_info info[2];
  bool exact[2] = {true, true};
  for (int b = 0; b < 2; ++b) info[b] = build_of<source, rule_t, CounterT>(builds[b]);
  for (int round = 0; round < 2; ++round)  // alternate, so neither build always runs first
    for (int b = 0; b < 2; ++b) {
      hist::plan q = builds[b];
      const auto launch = [&] {
        memscope::throw_if_error(hist::detail::launch_histogram(nullptr, d_samples, src, d_hist, rule, nullptr, opt, q));
      };
      CK(cudaMemset(d_hist, 0xA5, static_cast<std::size_t>(bins) * sizeof(CounterT)));  // poisoned
      launch();
      CK(cudaDeviceSynchronize());
      std::vector<CounterT> got(static_cast<std::size_t>(bins));
      CK(cudaMemcpy(got.data(), d_hist, got.size() * sizeof(CounterT), cudaMemcpyDeviceToHost));
      exact[b] = exact[b] && got == want;
      const std::vector<float> s = sorted_us([] {}, launch, 21);
      t[b].insert(t[b].end(), s.begin(), s.end());
    }
  const auto med = [](std::vector<float> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  const float m2 = med(t[0]), m1 = med(t[1]);
  std::printf("%-22s %6d bins  %-14s c%-2d  two: %2d regs %3d B local %d/SM %8.1f us   one: %2d regs %3d B local %d/SM %8.1f us"
              "   one/two %.3f  %s\n",
              what, bins, hist::to_string(p.kind), p.cluster_size, info[0].regs, info[0].local, info[0].per_sm, m2,
              info[1].regs, info[1].local, info[1].per_sm, m1, m1 / m2, exact[0] && exact[1] ? "exact" : "MISMATCH");
  CK(cudaFree(d_levels));
  CK(cudaFree(d_hist));
}

template <class SampleT>
void uniform(std::vector<SampleT>& h, double lo, double hi, unsigned seed) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(lo, hi);
  for (auto& v : h) v = static_cast<SampleT>(u(g));
}

template <class SampleT>
SampleT* upload(const std::vector<SampleT>& h) {
  SampleT* d = nullptr;
  CK(cudaMalloc(&d, h.size() * sizeof(SampleT)));
  CK(cudaMemcpy(d, h.data(), h.size() * sizeof(SampleT), cudaMemcpyHostToDevice));
  return d;
}

int main() {
  const std::size_t n = std::size_t{1} << 28;
  const int bin_counts[] = {256, 4096, 16384, 65536};
  {
    std::vector<double> h(n);
    uniform(h, -0.01, 1.01, 1);
    double* d = upload(h);
    for (int bins : bin_counts) run_case<double, double, std::uint32_t, true>("range f64 u32", bins, n, h, d, 0.0, 1.0);
    for (int bins : bin_counts) run_case<double, double, std::uint64_t, true>("range f64 u64", bins, n, h, d, 0.0, 1.0);
    for (int bins : bin_counts) run_case<double, double, std::uint32_t, false>("even f64 u32", bins, n, h, d, 0.0, 1.0);
    CK(cudaFree(d));
  }
  {
    std::vector<float> h(n);
    uniform(h, -0.01, 1.01, 2);
    float* d = upload(h);
    for (int bins : bin_counts) run_case<float, float, std::uint32_t, true>("range f32 u32", bins, n, h, d, 0.0f, 1.0f);
    for (int bins : bin_counts) run_case<float, float, std::uint64_t, false>("even f32 u64", bins, n, h, d, 0.0f, 1.0f);
    for (int bins : bin_counts) run_case<float, float, std::uint32_t, false>("even f32 u32", bins, n, h, d, 0.0f, 1.0f);
    CK(cudaFree(d));
  }
  {
    std::vector<int> h(n);
    std::mt19937_64 g(3);
    std::uniform_int_distribution<int> u(-1000, 1 << 20);
    for (auto& v : h) v = u(g);
    int* d = upload(h);
    for (int bins : bin_counts) run_case<int, int, std::uint32_t, true>("range i32 u32", bins, n, h, d, 0, 1 << 20);
    CK(cudaFree(d));
  }
  return 0;
}
