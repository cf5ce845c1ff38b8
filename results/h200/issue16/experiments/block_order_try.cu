// Throw-away experiment: at 256 bins the automatic choice (one block's shared memory) runs at
// 0.96x CUB on hot/cold runs, its worst adversarial point, while it reads 1 GiB in ~264 us and a
// pure read takes ~243 us. Where does the gap go, and does a block-contiguous read order (the
// reduce's fastest, results/h200/issue20/experiments/read_order.txt) close it?
//   nvcc -O3 -std=c++17 -arch=sm_90 --expt-relaxed-constexpr -I include \
//        results/h200/issue16/experiments/block_order_try.cu -o block_order_try
// Every variant's counts are compared (exact) with CUB's on the same samples.
#include "memscope/dsmem/histogram.cuh"
#include "memscope/dsmem/histogram_inputs.cuh"

#include <cub/device/device_histogram.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "../../issue20/experiments/timing.cuh"  // CK: a checked CUDA call

namespace hist = memscope::histogram;
using rule_t = hist::even_rule<float>;
using vec = hist::sample_vector<float>;
constexpr int kThreads = 1024;

/// Block-contiguous tiles of K vectors a thread: block b takes tiles b, b + G, ... (persistent),
/// or one tile each (grid = tiles). n is a multiple of 4 and the samples 16-byte aligned here.
template <int K, bool Bin, bool Atomics, int MinBlocks>
__global__ void __launch_bounds__(kThreads, MinBlocks)
    tiles_kernel(const float* __restrict__ samples, std::size_t n, rule_t rule, std::uint32_t* __restrict__ histogram) {
  std::uint32_t* counters = hist::shared_counters();
  for (int i = threadIdx.x; i < rule.num_bins; i += blockDim.x) counters[i] = 0;
  __syncthreads();
  unsigned sink = 0;
  auto add = [&](int bin, std::uint32_t count) {
    if constexpr (Atomics) atomicAdd(counters + bin, count);
    else sink += static_cast<unsigned>(bin) * count;
  };
  hist::pending_run run;
  hist::nothing_local local;
  const auto* vectors = reinterpret_cast<const vec*>(samples);
  const std::size_t num_vectors = n / 4;
  const std::size_t tile = static_cast<std::size_t>(K) * blockDim.x;
  const std::size_t tiles = (num_vectors + tile - 1) / tile;
  for (std::size_t t = blockIdx.x; t < tiles; t += gridDim.x) {
    vec v[K];
#pragma unroll
    for (int u = 0; u < K; ++u) {
      const std::size_t i = t * tile + u * blockDim.x + threadIdx.x;
      if (i < num_vectors) {
        const uint4 raw = __ldcs(reinterpret_cast<const uint4*>(vectors + i));
        std::memcpy(&v[u], &raw, sizeof(raw));
      }
    }
#pragma unroll
    for (int u = 0; u < K; ++u) {
      const std::size_t i = t * tile + u * blockDim.x + threadIdx.x;
      if (i >= num_vectors) continue;
      if constexpr (Bin) {
        hist::bin_vector<false, false, -1>(v[u], 0, rule, add, run, local);
      } else {
        sink += v[u].v[0] + v[u].v[1] + v[u].v[2] + v[u].v[3] > 1e30f;
      }
    }
  }
  if (sink == 0x7fffffffu) histogram[0] = sink;  // keeps the work
  __syncthreads();
  if constexpr (Atomics)
    for (int i = threadIdx.x; i < rule.num_bins; i += blockDim.x)
      if (const std::uint32_t c = counters[i]) atomicAdd(histogram + i, c);
}

/// The library's grid-stride loop (for_each_bin) with the binning or the atomics left out, or
/// with runs of warp-wide one-bin vectors held per thread (HoldRuns, as the global kernels).
template <bool Bin, bool Atomics, bool HoldRuns = false>
__global__ void __launch_bounds__(kThreads)
    stride_kernel(const float* __restrict__ samples, std::size_t n, rule_t rule, std::uint32_t* __restrict__ histogram) {
  std::uint32_t* counters = hist::shared_counters();
  for (int i = threadIdx.x; i < rule.num_bins; i += blockDim.x) counters[i] = 0;
  __syncthreads();
  unsigned sink = 0;
  auto add = [&](int bin, std::uint32_t count) {
    if constexpr (Atomics) atomicAdd(counters + bin, count);
    else sink += static_cast<unsigned>(bin) * count;
  };
  if constexpr (Bin) {
    hist::for_each_bin<HoldRuns>(samples, n, rule, hist::global_thread_rank(), hist::global_thread_count(), add);
  } else {
    const auto* vectors = reinterpret_cast<const uint4*>(samples);
    const std::size_t num_vectors = n / 4, threads = hist::global_thread_count();
    for (std::size_t base = hist::global_thread_rank(); base < num_vectors; base += threads * 4) {
      uint4 v[4];
#pragma unroll
      for (int u = 0; u < 4; ++u)
        if (base + u * threads < num_vectors) v[u] = __ldcs(vectors + base + u * threads);
#pragma unroll
      for (int u = 0; u < 4; ++u)
        if (base + u * threads < num_vectors) sink += v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
    }
  }
  if (sink == 0x7fffffffu) histogram[0] = sink;
  __syncthreads();
  if constexpr (Atomics)
    for (int i = threadIdx.x; i < rule.num_bins; i += blockDim.x)
      if (const std::uint32_t c = counters[i]) atomicAdd(histogram + i, c);
}

template <class Kernel>
unsigned resident(Kernel k, std::size_t smem) {
  return memscope::resident_blocks(k, kThreads, smem);
}

int main() {
  const std::size_t n = std::size_t{1} << 28;
  const int bins = 256;
  float* d_samples = nullptr;
  std::uint32_t *d_ref = nullptr, *d_out = nullptr;
  CK(cudaMalloc(&d_samples, n * 4));
  CK(cudaMalloc(&d_ref, bins * 4));
  CK(cudaMalloc(&d_out, bins * 4));
  const auto rule = hist::make_even_rule<float>(bins + 1, 0.0f, 1.0f);
  const std::size_t smem = bins * 4;
  void* d_temp = nullptr;
  std::size_t temp_bytes = 0;
  CK(cub::DeviceHistogram::HistogramEven(d_temp, temp_bytes, d_samples, d_ref, bins + 1, 0.0f, 1.0f, static_cast<int>(n)));
  CK(cudaMalloc(&d_temp, temp_bytes));
  const std::size_t vectors = n / 4;
  std::printf("%-40s %-9s %s\n", "variant", "input", "median us (min-max, 31 runs)");
  for (auto d : {hist::distribution::uniform, hist::distribution::hot_cold}) {
    hist::make_samples(d_samples, n, hist::shape_of(d), bins, 12345, nullptr);
    CK(cudaMemset(d_ref, 0, bins * 4));
    CK(cub::DeviceHistogram::HistogramEven(d_temp, temp_bytes, d_samples, d_ref, bins + 1, 0.0f, 1.0f, static_cast<int>(n)));
    std::vector<std::uint32_t> ref(bins), got(bins);
    CK(cudaMemcpy(ref.data(), d_ref, bins * 4, cudaMemcpyDeviceToHost));
    struct entry {
      std::string name;
      bool counts;  // produces the histogram (else a part of the work: no check)
      std::function<void()> run;
    };
    std::vector<entry> v;
    v.push_back({"cub HistogramEven", true, [&] {
                   CK(cub::DeviceHistogram::HistogramEven(d_temp, temp_bytes, d_samples, d_out, bins + 1, 0.0f, 1.0f,
                                                          static_cast<int>(n)));
                 }});
    v.push_back({"library histogram_even (auto)", true, [&] { hist::histogram_even(d_samples, d_out, bins + 1, 0.0f, 1.0f, static_cast<std::int64_t>(n)); }});
    const auto stride = [&](auto k, const char* name, bool counts) {
      const unsigned g = resident(k, smem);
      v.push_back({name, counts, [=] { k<<<g, kThreads, smem>>>(d_samples, n, rule, d_out); }});
    };
    stride(stride_kernel<true, true>, "grid-stride: bin + atomics (library)", true);
    stride(stride_kernel<true, true, true>, "grid-stride: bin + atomics, runs held", true);
    stride(stride_kernel<true, false>, "grid-stride: bin, no atomics", false);
    stride(stride_kernel<false, false>, "grid-stride: read only", false);
    const auto tiled = [&](auto k, const char* name, bool counts, bool one_per_tile, int per_thread) {
      const std::size_t tiles = (vectors + std::size_t(per_thread) * kThreads - 1) / (std::size_t(per_thread) * kThreads);
      const unsigned g = one_per_tile ? static_cast<unsigned>(tiles) : resident(k, smem);
      v.push_back({name, counts, [=] { k<<<g, kThreads, smem>>>(d_samples, n, rule, d_out); }});
    };
    tiled(tiles_kernel<4, true, true, 2>, "tiles k4 persistent: bin + atomics", true, false, 4);
    tiled(tiles_kernel<8, true, true, 2>, "tiles k8 persistent: bin + atomics", true, false, 8);
    tiled(tiles_kernel<4, true, true, 2>, "tiles k4 one block per tile", true, true, 4);
    tiled(tiles_kernel<16, true, true, 2>, "tiles k16 one block per tile", true, true, 16);
    tiled(tiles_kernel<4, true, false, 2>, "tiles k4 persistent: bin, no atomics", false, false, 4);
    tiled(tiles_kernel<4, false, false, 2>, "tiles k4 persistent: read only", false, false, 4);
    tiled(tiles_kernel<4, false, false, 2>, "tiles k4 one block per tile: read only", false, true, 4);
    for (auto& e : v) {
      CK(cudaMemset(d_out, 0xff, bins * 4));
      CK(cudaMemset(d_out, 0, bins * 4));
      e.run();
      CK(cudaGetLastError());
      CK(cudaDeviceSynchronize());
      CK(cudaMemcpy(got.data(), d_out, bins * 4, cudaMemcpyDeviceToHost));
      const char* check = !e.counts ? "-" : got == ref ? "ok" : "WRONG";
      const auto t = sorted_us([&] { CK(cudaMemsetAsync(d_out, 0, bins * 4)); }, e.run, 31);
      std::printf("%-40s %-9s %7.1f (%.1f-%.1f) %s\n", e.name.c_str(), d == hist::distribution::uniform ? "uniform" : "hot_cold",
                  t[t.size() / 2], t.front(), t.back(), check);
    }
  }
  std::fflush(stdout);
  return 0;
}
