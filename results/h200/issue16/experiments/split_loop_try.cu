// Throw-away experiment: why is the split-cluster kernel 3-4% slower than a71360d's where one
// block holds an SM (split2 at 65536 bins, split8 at 262144), and 7-9% faster where many do?
// The library's kernel (histogram_kernels.cuh) runs beside a71360d's kernel, copied verbatim
// below, and variants of it; each is checked against the library's counts (exact), then timed
// on the same launch shape the dispatch uses (every co-resident cluster).
//   nvcc -O3 -std=c++17 -arch=sm_90 --expt-relaxed-constexpr -lineinfo -I include \
//        results/h200/issue16/experiments/split_loop_try.cu -o split_loop_try
//   ./split_loop_try            the split kernels' timings
//   ./split_loop_try others     the block and DSMEM-cluster kernels built three ways
//   ./split_loop_try profile    one launch of each split kernel (for ncu)
// Output and reading: split_loop_try.txt. What the library took from it: the shared-memory
// kernels built for one block per SM and for two (histogram_kernels.cuh).
#include "memscope/dsmem/histogram.cuh"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "../../issue20/experiments/timing.cuh"  // CK: a checked CUDA call

namespace hist = memscope::histogram;
using hist::sample_vector;
using hist::pending_run;
using hist::nothing_local;
namespace cg = cooperative_groups;

// ---- a71360d's loop and split kernel, verbatim but for names ---------------------------------
namespace old_loop {
template <bool HoldRuns, bool Aggregate, class SampleT, class Add, class Local>
__device__ __forceinline__ void bin_vector(const sample_vector<SampleT>& in, const hist::even_bins<SampleT>& rule, Add& add,
                                           pending_run& run, const Local& local) {
  constexpr int k_size = sample_vector<SampleT>::size;
  int bins[k_size];
#pragma unroll
  for (int k = 0; k < k_size; ++k) bins[k] = rule(in.v[k]);
  bool one_bin = bins[0] >= 0;
#pragma unroll
  for (int k = 1; k < k_size; ++k) one_bin = one_bin && bins[k] == bins[0];
  const auto warp = cg::coalesced_threads();
  const int lead_bin = warp.shfl(bins[0], 0);
  if (warp.all(one_bin && bins[0] == lead_bin)) {
    if (warp.thread_rank() == 0) {
      const auto count = static_cast<std::uint32_t>(warp.size() * k_size);
      if constexpr (HoldRuns) run.add(lead_bin, count, add);
      else add(lead_bin, count);
    }
    return;
  }
#pragma unroll
  for (int k = 0; k < k_size; ++k)
    if (bins[k] >= 0) add(bins[k], 1u);
}

template <bool HoldRuns = false, bool Aggregate = false, class SampleT, class Add, class Local = nothing_local>
__device__ __forceinline__ void for_each_bin(const SampleT* __restrict__ samples, std::size_t n,
                                             const hist::even_bins<SampleT>& rule, std::size_t rank, std::size_t threads,
                                             Add& add, const Local& local = {}) {
  using vec = sample_vector<SampleT>;
  constexpr int k_vectors = hist::policy::vectors_per_thread;
  const auto address = reinterpret_cast<std::uintptr_t>(samples);
  std::size_t head = ((16 - address % 16) % 16) / sizeof(SampleT);
  if (head > n) head = n;
  if (rank < head) {
    const int bin = rule(samples[rank]);
    if (bin >= 0) add(bin, 1u);
  }
  const auto* vectors = reinterpret_cast<const vec*>(samples + head);
  pending_run run;
  const std::size_t num_vectors = (n - head) / vec::size;
  for (std::size_t base = rank; base < num_vectors; base += threads * k_vectors) {
    vec v[k_vectors];
#pragma unroll
    for (int u = 0; u < k_vectors; ++u) {
      const std::size_t i = base + u * threads;
      if (i < num_vectors) {
        const uint4 raw = __ldcs(reinterpret_cast<const uint4*>(vectors + i));
        std::memcpy(&v[u], &raw, sizeof(raw));
      }
    }
#pragma unroll
    for (int u = 0; u < k_vectors; ++u)
      if (base + u * threads < num_vectors) bin_vector<HoldRuns, Aggregate>(v[u], rule, add, run, local);
  }
  if constexpr (HoldRuns) run.flush(add);
  for (std::size_t i = head + num_vectors * vec::size + rank; i < n; i += threads) {
    const int bin = rule(samples[i]);
    if (bin >= 0) add(bin, 1u);
  }
}

template <class SampleT>
__global__ void __launch_bounds__(hist::policy::block_threads)
    old_split_kernel(const SampleT* __restrict__ samples, std::size_t n, hist::even_bins<SampleT> rule, int log2_cluster,
                     int bins_per_block, std::uint32_t* __restrict__ histogram) {
  std::uint32_t* counters = hist::shared_counters();
  const int rank = static_cast<int>(cg::this_cluster().block_rank());
  const int first = rank * bins_per_block;
  const int owned = max(0, min(bins_per_block, rule.num_bins - first));
  for (int i = threadIdx.x; i < owned; i += blockDim.x) counters[i] = 0;
  __syncthreads();
  auto add = [&](int bin, std::uint32_t count) {
    const unsigned local = static_cast<unsigned>(bin - first);
    if (local < static_cast<unsigned>(owned)) atomicAdd(counters + local, count);
  };
  const std::size_t cluster_id = blockIdx.x >> log2_cluster;
  const std::size_t clusters = gridDim.x >> log2_cluster;
  for_each_bin(samples, n, rule, cluster_id * blockDim.x + threadIdx.x, clusters * blockDim.x, add);
  __syncthreads();
  for (int i = threadIdx.x; i < owned; i += blockDim.x)
    if (const std::uint32_t c = counters[i]) atomicAdd(histogram + first + i, c);
}
}  // namespace old_loop

// ---- the library's kernel with its loop's parts swapped one at a time -------------------------
namespace variant {
/// The library's kernel but its grid-stride loop binning with the old for_each_bin (tests the
/// kernel shell: rule type, Source, add_count).
__global__ void __launch_bounds__(hist::policy::block_threads)
    lib_shell_old_loop_kernel(const float* __restrict__ samples, hist::linear_samples<float> src, hist::even_rule<float> rule,
                              int log2_cluster, int bins_per_block, std::uint32_t* __restrict__ histogram) {
  std::uint32_t* counters = hist::shared_counters();
  const int rank = static_cast<int>(cg::this_cluster().block_rank());
  const int first = rank * bins_per_block;
  const int owned = max(0, min(bins_per_block, rule.num_bins - first));
  for (int i = threadIdx.x; i < owned; i += blockDim.x) counters[i] = 0;
  __syncthreads();
  auto add = [&](int bin, std::uint32_t count) {
    const unsigned local = static_cast<unsigned>(bin - first);
    if (local < static_cast<unsigned>(owned)) atomicAdd(counters + local, count);
  };
  const std::size_t cluster_id = blockIdx.x >> log2_cluster;
  const std::size_t clusters = gridDim.x >> log2_cluster;
  old_loop::for_each_bin<false, false>(samples, src.n, rule.rule, cluster_id * blockDim.x + threadIdx.x, clusters * blockDim.x, add);
  __syncthreads();
  for (int i = threadIdx.x; i < owned; i += blockDim.x)
    if (const std::uint32_t c = counters[i]) hist::add_count(histogram + first + i, c);
}

/// The old kernel shell around the library's for_each_bin (tests the loop itself).
__global__ void __launch_bounds__(hist::policy::block_threads)
    old_shell_lib_loop_kernel(const float* __restrict__ samples, std::size_t n, hist::even_bins<float> rule, int log2_cluster,
                              int bins_per_block, std::uint32_t* __restrict__ histogram) {
  std::uint32_t* counters = hist::shared_counters();
  const int rank = static_cast<int>(cg::this_cluster().block_rank());
  const int first = rank * bins_per_block;
  const int owned = max(0, min(bins_per_block, rule.num_bins - first));
  for (int i = threadIdx.x; i < owned; i += blockDim.x) counters[i] = 0;
  __syncthreads();
  auto add = [&](int bin, std::uint32_t count) {
    const unsigned local = static_cast<unsigned>(bin - first);
    if (local < static_cast<unsigned>(owned)) atomicAdd(counters + local, count);
  };
  const std::size_t cluster_id = blockIdx.x >> log2_cluster;
  const std::size_t clusters = gridDim.x >> log2_cluster;
  hist::for_each_bin(samples, n, rule, cluster_id * blockDim.x + threadIdx.x, clusters * blockDim.x, add);
  __syncthreads();
  for (int i = threadIdx.x; i < owned; i += blockDim.x)
    if (const std::uint32_t c = counters[i]) atomicAdd(histogram + first + i, c);
}
}  // namespace variant

// ---- the library's loop (one channel), its head as a loop or as a test ------------------------
namespace new_loop {
template <bool HeadIf, class SampleT, class Rule, class Add>
__device__ __forceinline__ void loop_copy(const SampleT* __restrict__ samples, std::size_t n, const Rule& rule,
                                             std::size_t rank, std::size_t threads, Add& add) {
  using vec = sample_vector<SampleT>;
  const auto address = reinterpret_cast<std::uintptr_t>(samples);
  std::size_t head = ((16 - address % 16) % 16) / sizeof(SampleT);
  if (head > n) head = n;
  if constexpr (HeadIf) {
    if (rank < head) {
      const int bin = rule(samples[rank]);
      if (bin >= 0) add(bin, 1u);
    }
  } else {
    for (std::size_t i = rank; i < head; i += threads) {
      const int bin = rule(samples[i]);
      if (bin >= 0) add(bin, 1u);
    }
  }
  const auto* vectors = reinterpret_cast<const vec*>(samples + head);
  pending_run run;
  std::size_t num_vectors = (n - head) / vec::size;
  nothing_local local;
  hist::bin_vectors<false, false, -1>(vectors, num_vectors, head, rule, rank, threads, add, run, local);
  for (std::size_t i = head + num_vectors * vec::size + rank; i < n; i += threads) {
    const int bin = rule(samples[i]);
    if (bin >= 0) add(bin, 1u);
  }
}

template <bool HeadIf, int MinBlocks>
__global__ void __launch_bounds__(hist::policy::block_threads, MinBlocks)
    split_kernel(const float* __restrict__ samples, std::size_t n, hist::even_bins<float> rule, int log2_cluster,
                 int bins_per_block, std::uint32_t* __restrict__ histogram) {
  std::uint32_t* counters = hist::shared_counters();
  const int rank = static_cast<int>(cg::this_cluster().block_rank());
  const int first = rank * bins_per_block;
  const int owned = max(0, min(bins_per_block, rule.num_bins - first));
  for (int i = threadIdx.x; i < owned; i += blockDim.x) counters[i] = 0;
  __syncthreads();
  auto add = [&](int bin, std::uint32_t count) {
    const unsigned local = static_cast<unsigned>(bin - first);
    if (local < static_cast<unsigned>(owned)) atomicAdd(counters + local, count);
  };
  const std::size_t cluster_id = blockIdx.x >> log2_cluster;
  const std::size_t clusters = gridDim.x >> log2_cluster;
  loop_copy<HeadIf>(samples, n, rule, cluster_id * blockDim.x + threadIdx.x, clusters * blockDim.x, add);
  __syncthreads();
  for (int i = threadIdx.x; i < owned; i += blockDim.x)
    if (const std::uint32_t c = counters[i]) atomicAdd(histogram + first + i, c);
}
}  // namespace new_loop

// ---- the block and DSMEM-cluster kernels, compiled three ways ---------------------------------
// As the library's (histogram_kernels.cuh) but for the launch bounds: (1024) as the library,
// (1024, 1) and (1024, 2). The split kernel's measurements above show the bound, not the loop,
// decides: ptxas gives (1024) 32 registers, (1024, 1) 48.
namespace bounds {
using src_t = hist::linear_samples<float>;
using rule_t = hist::even_rule<float>;
#define BLOCK_KERNEL(NAME, ...)                                                                                  \
  __global__ void __launch_bounds__(__VA_ARGS__)                                                                 \
      NAME(const float* __restrict__ samples, src_t src, rule_t rule, std::uint32_t* __restrict__ histogram) {   \
    std::uint32_t* counters = hist::shared_counters();                                                           \
    for (int i = threadIdx.x; i < rule.num_bins; i += blockDim.x) counters[i] = 0;                               \
    __syncthreads();                                                                                             \
    auto add = [&](int bin, std::uint32_t count) { atomicAdd(counters + bin, count); };                          \
    hist::for_each_source_bin(samples, src, rule, hist::global_thread_rank(), hist::global_thread_count(), add); \
    __syncthreads();                                                                                             \
    for (int i = threadIdx.x; i < rule.num_bins; i += blockDim.x)                                                \
      if (const std::uint32_t c = counters[i]) hist::add_count(histogram + i, c);                                \
  }
BLOCK_KERNEL(block_1024, 1024)
BLOCK_KERNEL(block_1024_1, 1024, 1)
BLOCK_KERNEL(block_1024_2, 1024, 2)

#define CLUSTER_KERNEL(NAME, ...)                                                                                 \
  __global__ void __launch_bounds__(__VA_ARGS__)                                                                  \
      NAME(const float* __restrict__ samples, src_t src, rule_t rule, int log2_cluster, int bins_per_block,       \
           std::uint32_t* __restrict__ histogram) {                                                               \
    std::uint32_t* counters = hist::shared_counters();                                                            \
    cg::cluster_group cluster = cg::this_cluster();                                                               \
    const int rank = static_cast<int>(cluster.block_rank());                                                      \
    for (int i = threadIdx.x; i < bins_per_block; i += blockDim.x) counters[i] = 0;                               \
    cluster.sync();                                                                                               \
    const unsigned owner_mask = (1u << log2_cluster) - 1u;                                                        \
    auto add = [&](int bin, std::uint32_t count) {                                                                \
      std::uint32_t* owner = cluster.map_shared_rank(counters, static_cast<unsigned>(bin) & owner_mask);          \
      atomicAdd(owner + (bin >> log2_cluster), count);                                                            \
    };                                                                                                            \
    hist::for_each_source_bin(samples, src, rule, hist::global_thread_rank(), hist::global_thread_count(), add);  \
    cluster.sync();                                                                                               \
    for (int i = threadIdx.x; i < bins_per_block; i += blockDim.x) {                                              \
      const int bin = (i << log2_cluster) | rank;                                                                 \
      if (bin < rule.num_bins)                                                                                    \
        if (const std::uint32_t c = counters[i]) hist::add_count(histogram + bin, c);                             \
    }                                                                                                             \
  }
CLUSTER_KERNEL(cluster_1024, 1024)
CLUSTER_KERNEL(cluster_1024_1, 1024, 1)
CLUSTER_KERNEL(cluster_1024_2, 1024, 2)
}  // namespace bounds

template <class Kernel>
void launch_block(Kernel k, std::size_t smem, const float* d_in, std::size_t n, const hist::even_rule<float>& rule,
                  std::uint32_t* d_out) {
  const unsigned grid = memscope::resident_blocks(k, hist::policy::block_threads, smem);
  k<<<grid, hist::policy::block_threads, smem>>>(d_in, hist::linear_samples<float>{n}, rule, d_out);
  CK(cudaGetLastError());
}

// ---- driver ---------------------------------------------------------------------------------
struct shape {
  int bins, cluster;
};

template <class Kernel, class... Args>
void launch(Kernel k, int cluster, std::size_t smem, Args... args) {
  int clusters = memscope::max_active_clusters(k, hist::policy::block_threads, cluster, smem);
  memscope::launch_cluster(k, dim3(static_cast<unsigned>(clusters * cluster)), dim3(hist::policy::block_threads), cluster, smem,
                           nullptr, args...);
}

int main(int argc, char** argv) {
  const bool profile = argc > 1 && std::string(argv[1]) == "profile";
  const bool others = argc > 1 && std::string(argv[1]) == "others";
  const std::size_t n = std::size_t{1} << 28;
  std::vector<float> h(n);
  std::mt19937_64 gen(42);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  for (auto& x : h) x = u(gen);
  // Reverse-sorted, evenly spread over [0, 1): the suite's reverse_sorted shape.
  std::vector<float> h_rev(n);
  for (std::size_t i = 0; i < n; ++i) h_rev[i] = static_cast<float>(static_cast<double>(n - 1 - i) / static_cast<double>(n));
  float *d_uniform = nullptr, *d_reverse = nullptr;
  std::uint32_t *d_ref = nullptr, *d_out = nullptr;
  CK(cudaMalloc(&d_uniform, n * 4));
  CK(cudaMalloc(&d_reverse, n * 4));
  CK(cudaMalloc(&d_ref, (1 << 18) * 4));
  CK(cudaMalloc(&d_out, (1 << 18) * 4));
  CK(cudaMemcpy(d_uniform, h.data(), n * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d_reverse, h_rev.data(), n * 4, cudaMemcpyHostToDevice));

  // others: block kernels (cluster 1) and DSMEM clusters, at one and two blocks per SM.
  const std::vector<shape> shapes = others ? std::vector<shape>{{32768, 1}, {16384, 1}, {4096, 1}, {65536, 2}, {131072, 4}, {16384, 2}}
                                           : std::vector<shape>{{65536, 2}, {262144, 8}, {4096, 2}};
  const char* inputs[] = {"uniform", "reverse_sorted"};
  std::printf("%-24s %-15s %8s %7s  %s\n", "kernel", "input", "bins", "cluster", "median us (min-max, 31 runs)");
  for (const shape s : shapes) {
    const int per_block = s.bins / s.cluster;
    const std::size_t smem = std::size_t(per_block) * 4;
    int log2c = 0;
    while ((1 << log2c) < s.cluster) ++log2c;
    const auto bins = hist::even_bins<float>::make(s.bins + 1, 0.0f, 1.0f);
    const auto rule = hist::for_samples<float>(bins);
    const hist::linear_samples<float> src{n};
    // a48de43's split kernel: this tree's two-blocks build, which compiles alike (32 registers).
    const auto lib = hist::histogram_split_kernel<hist::linear_samples<float>, hist::even_rule<float>, std::uint32_t, 2>;
    const auto old = old_loop::old_split_kernel<float>;
    for (int in = 0; in < 2; ++in) {
      const float* d_in = in == 0 ? d_uniform : d_reverse;
      // The reference: the library's own histogram (automatic choice), checked against CUB's
      // counts in the GPU tests.
      CK(cudaMemset(d_ref, 0, s.bins * 4));
      hist::histogram_even(d_in, d_ref, s.bins + 1, 0.0f, 1.0f, static_cast<std::int64_t>(n));
      std::vector<std::uint32_t> ref(s.bins), got(s.bins);
      CK(cudaMemcpy(ref.data(), d_ref, s.bins * 4, cudaMemcpyDeviceToHost));
      struct entry {
        const char* name;
        std::function<void()> run;
      };
      std::vector<entry> kernels;
      const std::size_t csmem = std::size_t((s.bins + s.cluster - 1) / s.cluster) * 4;
      if (others && s.cluster == 1) {
        for (auto* k : {bounds::block_1024, bounds::block_1024_1, bounds::block_1024_2}) {
          memscope::prepare_dynamic_smem(k, smem);
          kernels.push_back({k == bounds::block_1024 ? "block (1024)" : k == bounds::block_1024_1 ? "block (1024,1)" : "block (1024,2)",
                             [=] { launch_block(k, smem, d_in, n, rule, d_out); }});
        }
      } else if (others) {
        for (auto* k : {bounds::cluster_1024, bounds::cluster_1024_1, bounds::cluster_1024_2})
          kernels.push_back({k == bounds::cluster_1024 ? "cluster (1024)" : k == bounds::cluster_1024_1 ? "cluster (1024,1)" : "cluster (1024,2)",
                             [=] { launch(k, s.cluster, csmem, d_in, src, rule, log2c, (s.bins + s.cluster - 1) / s.cluster, d_out); }});
      } else kernels = {
          {"library", [&] { launch(lib, s.cluster, smem, d_in, src, rule, log2c, per_block, d_out); }},
          {"a71360d", [&] { launch(old, s.cluster, smem, d_in, n, bins, log2c, per_block, d_out); }},
          {"lib_shell+old_loop",
           [&] { launch(variant::lib_shell_old_loop_kernel, s.cluster, smem, d_in, src, rule, log2c, per_block, d_out); }},
          {"old_shell+lib_loop",
           [&] { launch(variant::old_shell_lib_loop_kernel, s.cluster, smem, d_in, n, bins, log2c, per_block, d_out); }},
          {"lib_loop",
           [&] { launch(new_loop::split_kernel<false, 1>, s.cluster, smem, d_in, n, bins, log2c, per_block, d_out); }},
          {"lib_loop+head_if",
           [&] { launch(new_loop::split_kernel<true, 1>, s.cluster, smem, d_in, n, bins, log2c, per_block, d_out); }},
          {"lib_loop,2/SM",
           [&] { launch(new_loop::split_kernel<false, 2>, s.cluster, smem, d_in, n, bins, log2c, per_block, d_out); }},
          {"lib_loop+head_if,2/SM",
           [&] { launch(new_loop::split_kernel<true, 2>, s.cluster, smem, d_in, n, bins, log2c, per_block, d_out); }},
      };
      (void)csmem;
      for (auto& k : kernels) {
        CK(cudaMemset(d_out, 0xff, s.bins * 4));  // poison, then the zero the kernels add to
        CK(cudaMemset(d_out, 0, s.bins * 4));
        k.run();
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(got.data(), d_out, s.bins * 4, cudaMemcpyDeviceToHost));
        const bool ok = got == ref;
        if (profile) {
          std::printf("%s %s %d: %s\n", k.name, inputs[in], s.bins, ok ? "ok" : "WRONG");
          continue;
        }
        const auto t = sorted_us([&] { CK(cudaMemsetAsync(d_out, 0, s.bins * 4)); }, k.run, 31);
        std::printf("%-24s %-15s %8d %7d  %8.1f (%.1f-%.1f) %s\n", k.name, inputs[in], s.bins, s.cluster, t[t.size() / 2],
                    t.front(), t.back(), ok ? "ok" : "WRONG");
      }
      if (profile) break;
    }
    if (profile) break;
  }
  std::fflush(stdout);
  return 0;
}
