// Throw-away experiment: on an H100 the 256-bin float kernel (one block's shared memory) reads
// 2^28 samples at 0.98x of the copy ceiling where CUB reads at 1.00x: 0.97-0.99x CUB on 9 of
// the 17 adversarial inputs (results/h100/dealt-rank/), where an H200 gives 1.01-1.74x. Is it
// the loop's load shape? The library's launch runs beside CUB and beside kernels that bin each
// vector with the library's own bin_vector (so only the loads and the loop differ):
//   grid_apart       the library's loop: a thread's V loads lie one grid of threads apart
//   thread_adjacent  CUB's BLOCK_LOAD_DIRECT: a thread's V loads are adjacent; a block's tile
//                    of threads x V vectors is contiguous; tiles go round the grid
//   warp_adjacent    a block's tile is contiguous and each load instruction of a warp reads
//                    512 adjacent bytes
// with 16-byte loads marked evict-first (__ldcs, as the library) or not (__ldg), 4 or 8 loads
// in flight, 1024 or fewer threads, a grid of every resident block or four times that (blocks
// then start as others finish, balancing the end), and a pipelined form (the next trip's loads issued before
// this trip is binned); and the same loops reading only (no binning), to show each shape's
// ceiling. Every binning kernel's counts equal CUB's (checked on each input and on awkward
// sizes). Each launch is timed alone after 256 MiB written past L2, the kernels taking turns.
//   nvcc -O3 -std=c++17 -arch=sm_90 -cudart static --expt-relaxed-constexpr -I include \
//        results/h100/read-shape/read_shape_try.cu -o read_shape_try
//   ./read_shape_try [reps]     the timings
//   ./read_shape_try profile    one launch of each on uniform samples (for ncu)
#include "memscope/dsmem/histogram.cuh"
#include "memscope/dsmem/histogram_inputs.cuh"

#include <cub/device/device_histogram.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "../../h200/issue20/experiments/timing.cuh"  // CK: a checked CUDA call


namespace hist = memscope::histogram;
using vec = hist::sample_vector<float>;
using rule_t = hist::even_bins<float>;

enum class shape { grid_apart, thread_adjacent, warp_adjacent };
enum class load { cs, ldg };

template <load L>
__device__ __forceinline__ vec load_vec(const vec* p) {
  const uint4 raw = L == load::cs ? __ldcs(reinterpret_cast<const uint4*>(p)) : __ldg(reinterpret_cast<const uint4*>(p));
  vec v;
  memcpy(&v, &raw, sizeof(raw));
  return v;
}

/// Where this thread's first vector lies, and how far apart its V vectors of one trip lie (the
/// library's loop form: one base advanced by a trip, so that the index costs no registers).
template <shape S, int Threads, int V>
__device__ __forceinline__ std::size_t first_vector() {
  if constexpr (S == shape::grid_apart) return std::size_t{blockIdx.x} * Threads + threadIdx.x;
  const std::size_t tile = std::size_t{blockIdx.x} * Threads * V;
  if constexpr (S == shape::thread_adjacent) return tile + std::size_t{threadIdx.x} * V;
  return tile + (threadIdx.x / 32) * 32 * V + threadIdx.x % 32;
}
template <shape S>
__device__ __forceinline__ std::size_t vector_gap(std::size_t grid_threads) {
  if constexpr (S == shape::grid_apart) return grid_threads;
  if constexpr (S == shape::thread_adjacent) return 1;
  return 32;
}

/// Bin = false: reads only, folding the bits so that the loads stay. MinBlocks: launch bounds'
/// minimum blocks per SM (0: none, as the library's two-block build).
template <shape S, load L, int Threads, int V, bool Pipe, bool Bin, int MinBlocks = 0>
__global__ void __launch_bounds__(Threads, MinBlocks) shape_kernel(const float* __restrict__ samples, std::size_t n,
                                                                   rule_t rule, unsigned* __restrict__ histogram) {
  __shared__ std::uint32_t counters[256];
  for (int i = threadIdx.x; i < 256; i += Threads) counters[i] = 0;
  __syncthreads();
  auto add = [&](int bin, std::uint32_t count) { atomicAdd(counters + bin, count); };
  hist::pending_run run;
  const hist::nothing_local local;
  unsigned fold = 0;
  const auto* vectors = reinterpret_cast<const vec*>(samples);
  const std::size_t nv = n / vec::size;
  const std::size_t grid_threads = std::size_t{gridDim.x} * Threads;
  const std::size_t step = grid_threads * V, gap = vector_gap<S>(grid_threads);
  auto consume = [&](const vec& v, std::size_t i) {
    if constexpr (Bin) hist::bin_vector<false, false, -1>(v, i * vec::size, rule, add, run, local);
    else fold ^= __float_as_uint(v.v[0]) ^ __float_as_uint(v.v[1]) ^ __float_as_uint(v.v[2]) ^ __float_as_uint(v.v[3]);
  };
  const std::size_t first = first_vector<S, Threads, V>();
  auto load_trip = [&](std::size_t base, vec (&v)[V]) {
#pragma unroll
    for (int u = 0; u < V; ++u)
      if (base + u * gap < nv) v[u] = load_vec<L>(vectors + base + u * gap);
  };
  auto bin_trip = [&](std::size_t base, const vec (&v)[V]) {
#pragma unroll
    for (int u = 0; u < V; ++u)
      if (base + u * gap < nv) consume(v[u], base + u * gap);
  };
  if constexpr (!Pipe) {
    for (std::size_t base = first; base < nv; base += step) {
      vec v[V];
      load_trip(base, v);
      bin_trip(base, v);
    }
  } else {
    vec cur[V];
    load_trip(first, cur);
    for (std::size_t base = first; base < nv; base += step) {
      vec next[V];
      load_trip(base + step, next);
      bin_trip(base, cur);
#pragma unroll
      for (int u = 0; u < V; ++u) cur[u] = next[u];
    }
  }
  if (blockIdx.x == 0)
    for (std::size_t i = nv * vec::size + threadIdx.x; i < n; i += Threads) {
      const int b = rule(samples[i]);
      if (b >= 0) add(b, 1u);
    }
  if constexpr (!Bin)
    if (fold == 0x9e3779b9u) add(0, 1u);  // never on these inputs; keeps the loads
  __syncthreads();
  for (int i = threadIdx.x; i < 256; i += Threads)
    if (const std::uint32_t c = counters[i]) atomicAdd(histogram + i, c);
}

struct variant {
  std::string name;
  std::function<void(const float*, std::size_t, unsigned*, cudaStream_t)> launch;
  bool bins = true;
  std::vector<float> us;
};

int sm_count() {
  int dev = 0, sms = 0;
  CK(cudaGetDevice(&dev));
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  return sms;
}

template <shape S, load L, int Threads, int V, bool Pipe, bool Bin, int MinBlocks = 0>
variant make_variant(const char* name, unsigned grid_mult = 1) {
  auto kernel = shape_kernel<S, L, Threads, V, Pipe, Bin, MinBlocks>;
  int per_sm = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, Threads, 0));
  cudaFuncAttributes attr{};
  CK(cudaFuncGetAttributes(&attr, kernel));
  const unsigned resident = static_cast<unsigned>(per_sm * sm_count()) * grid_mult;
  std::printf("  %-34s %4d threads, %d blocks/SM, %3d registers, %d B local\n", name, Threads, per_sm, attr.numRegs,
              static_cast<int>(attr.localSizeBytes));
  const rule_t rule = rule_t::make(257, 0.0f, 1.0f);
  variant v;
  v.name = name;
  v.bins = Bin;
  v.launch = [=](const float* d_in, std::size_t n, unsigned* d_hist, cudaStream_t s) {
    CK(cudaMemsetAsync(d_hist, 0, 256 * sizeof(unsigned), s));
    const std::size_t need = (n / vec::size + std::size_t{Threads} * V - 1) / (std::size_t{Threads} * V);
    const unsigned grid = static_cast<unsigned>(std::max<std::size_t>(1, std::min<std::size_t>(need, resident)));
    kernel<<<grid, Threads, 0, s>>>(d_in, n, rule, d_hist);
    CK(cudaGetLastError());
  };
  return v;
}

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::atoi(argv[1]) : 25;
  cudaDeviceProp prop{};
  CK(cudaGetDeviceProperties(&prop, 0));
  int khz = 0;
  CK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0));
  std::printf("%s, %d SMs, %d MHz, L2 %d MiB\n", prop.name, prop.multiProcessorCount, khz / 1000, prop.l2CacheSize >> 20);
  const std::size_t n = std::size_t{1} << 28;
  float* d_in = nullptr;
  unsigned *d_hist = nullptr, *d_ref = nullptr;
  char* d_flush = nullptr;
  const std::size_t flush_bytes = std::size_t{256} << 20;
  CK(cudaMalloc(&d_in, n * sizeof(float) + 64));
  CK(cudaMalloc(&d_hist, 256 * sizeof(unsigned)));
  CK(cudaMalloc(&d_ref, 256 * sizeof(unsigned)));
  CK(cudaMalloc(&d_flush, flush_bytes));
  cudaStream_t s;
  CK(cudaStreamCreate(&s));

  void* d_temp = nullptr;
  std::size_t temp_bytes = 0;
  CK(cub::DeviceHistogram::HistogramEven(nullptr, temp_bytes, d_in, d_ref, 257, 0.0f, 1.0f, static_cast<int>(n), s));
  CK(cudaMalloc(&d_temp, temp_bytes));
  auto cub_launch = [&](const float* in, std::size_t m, unsigned* out, cudaStream_t st) {
    std::size_t b = temp_bytes;
    CK(cub::DeviceHistogram::HistogramEven(d_temp, b, in, out, 257, 0.0f, 1.0f, static_cast<int>(m), st));
  };

  std::printf("kernels:\n");
  std::vector<variant> vs;
  vs.push_back({"library (histogram_even, auto)", [](const float* in, std::size_t m, unsigned* out, cudaStream_t st) {
                  hist::histogram_even(in, out, 257, 0.0f, 1.0f, static_cast<std::int64_t>(m), st);
                }});
  vs.push_back({"cub::DeviceHistogram::HistogramEven", cub_launch});
  vs.push_back(make_variant<shape::grid_apart, load::cs, 1024, 4, false, true>("grid_apart cs V4 (library's loop)"));
  vs.push_back(make_variant<shape::grid_apart, load::cs, 1024, 8, false, true>("grid_apart cs V8"));
  vs.push_back(make_variant<shape::grid_apart, load::ldg, 1024, 4, false, true>("grid_apart ldg V4"));
  vs.push_back(make_variant<shape::grid_apart, load::cs, 1024, 4, true, true>("grid_apart cs V4 pipelined"));
  vs.push_back(make_variant<shape::grid_apart, load::cs, 1024, 8, false, true, 2>("grid_apart cs V8 2 blocks/SM"));
  vs.push_back(make_variant<shape::grid_apart, load::cs, 1024, 4, true, true, 2>("grid_apart cs V4 pipelined 2 blocks/SM"));
  vs.push_back(make_variant<shape::grid_apart, load::cs, 512, 4, false, true>("grid_apart cs V4 512 threads"));
  vs.push_back(make_variant<shape::grid_apart, load::cs, 512, 4, false, true, 4>("grid_apart cs V4 512 threads 4/SM"));
  vs.push_back(make_variant<shape::grid_apart, load::cs, 1024, 4, false, true>("grid_apart cs V4 4x resident grid", 4));
  vs.push_back(make_variant<shape::thread_adjacent, load::cs, 1024, 4, false, true>("thread_adjacent cs V4"));
  vs.push_back(make_variant<shape::thread_adjacent, load::ldg, 384, 4, false, true>("thread_adjacent ldg V4 384 (CUB's)"));
  vs.push_back(make_variant<shape::warp_adjacent, load::cs, 1024, 4, false, true>("warp_adjacent cs V4"));
  vs.push_back(make_variant<shape::warp_adjacent, load::cs, 1024, 8, false, true>("warp_adjacent cs V8"));
  vs.push_back(make_variant<shape::warp_adjacent, load::ldg, 1024, 4, false, true>("warp_adjacent ldg V4"));
  vs.push_back(make_variant<shape::warp_adjacent, load::cs, 1024, 4, false, true>("warp_adjacent cs V4 4x resident grid", 4));
  vs.push_back(make_variant<shape::grid_apart, load::cs, 1024, 4, false, false>("read only: grid_apart cs V4"));
  vs.push_back(make_variant<shape::grid_apart, load::cs, 1024, 8, false, false>("read only: grid_apart cs V8"));
  vs.push_back(make_variant<shape::thread_adjacent, load::cs, 1024, 4, false, false>("read only: thread_adjacent cs V4"));
  vs.push_back(make_variant<shape::warp_adjacent, load::cs, 1024, 4, false, false>("read only: warp_adjacent cs V4"));

  if (argc > 1 && std::string(argv[1]) == "profile") {
    hist::make_samples(d_in, n, hist::input_shapes[0], 256, 7, s);
    for (auto& v : vs) v.launch(d_in, n, d_hist, s);
    CK(cudaStreamSynchronize(s));
    return 0;
  }

  // Counts: every binning kernel equals CUB on awkward sizes (output poisoned first).
  int failures = 0;
  std::vector<unsigned> got(256), want(256);
  for (const std::size_t m : {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{1000003}, std::size_t{(1u << 24) + 13}}) {
    hist::make_samples(d_in, m, hist::input_shapes[0], 256, 11 + m, s);
    CK(cudaMemsetAsync(d_ref, 0xff, 256 * sizeof(unsigned), s));
    cub_launch(d_in, m, d_ref, s);
    CK(cudaMemcpyAsync(want.data(), d_ref, 1024, cudaMemcpyDeviceToHost, s));
    for (auto& v : vs) {
      if (!v.bins) continue;
      CK(cudaMemsetAsync(d_hist, 0xff, 1024, s));
      v.launch(d_in, m, d_hist, s);
      CK(cudaMemcpyAsync(got.data(), d_hist, 1024, cudaMemcpyDeviceToHost, s));
      CK(cudaStreamSynchronize(s));
      if (got != want) {
        ++failures;
        std::printf("MISMATCH %s at n=%zu\n", v.name.c_str(), m);
      }
    }
  }
  std::printf("awkward sizes: %s\n", failures ? "FAILED" : "all binning kernels equal CUB");

  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  const char* inputs[] = {"uniform", "normal_1pct", "zipf_1", "hot_cold", "dirty"};
  for (const char* name : inputs) {
    const auto shape_in = *hist::find_input_shape(name);
    hist::make_samples(d_in, n, shape_in, 256, 7, s);
    CK(cudaMemsetAsync(d_ref, 0, 1024, s));
    cub_launch(d_in, n, d_ref, s);
    CK(cudaMemcpyAsync(want.data(), d_ref, 1024, cudaMemcpyDeviceToHost, s));
    for (auto& v : vs) {
      v.us.clear();
      if (!v.bins) continue;
      v.launch(d_in, n, d_hist, s);
      CK(cudaMemcpyAsync(got.data(), d_hist, 1024, cudaMemcpyDeviceToHost, s));
      CK(cudaStreamSynchronize(s));
      if (got != want) {
        ++failures;
        std::printf("MISMATCH %s on %s\n", v.name.c_str(), name);
      }
    }
    for (int r = 0; r < reps + 2; ++r)
      for (auto& v : vs) {
        CK(cudaMemsetAsync(d_flush, r & 0xff, flush_bytes, s));
        CK(cudaEventRecord(a, s));
        v.launch(d_in, n, d_hist, s);
        CK(cudaEventRecord(b, s));
        CK(cudaEventSynchronize(b));
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, a, b));
        if (r >= 2) v.us.push_back(ms * 1000);
      }
    const auto median = [](std::vector<float> t) {
      std::sort(t.begin(), t.end());
      return t[t.size() / 2];
    };
    const float cub_us = median(vs[1].us);
    std::printf("\n%s, 2^28 floats, 256 bins, %d launches each (us: median min max; GB/s; CUB's time / this)\n", name, reps);
    for (const auto& v : vs) {
      const float med = median(v.us);
      std::printf("  %-38s %8.2f %8.2f %8.2f  %7.1f  %.3fx\n", v.name.c_str(), med, *std::min_element(v.us.begin(), v.us.end()),
                  *std::max_element(v.us.begin(), v.us.end()), n * 4.0 / (med * 1e3), cub_us / med);
    }
  }
  std::printf("\n%s\n", failures ? "FAILED: some counts differ from CUB" : "every count equals CUB's");
  return failures ? 1 : 0;
}
