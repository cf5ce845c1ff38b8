// Throw-away experiment: why does the SM copy of mapped pinned host memory reach only 0.56x the
// copy engine host-to-device on an H100 host (31 GB/s against 55), when the same kernel ran at
// 0.93x on the H200 hosts? One hypothesis each:
//  - too many bytes in flight over too wide a span (the grid-stride loop keeps 8 x 16 B per
//    thread of every resident thread, ~35 MB spread over the buffer): fewer blocks, fewer loads;
//  - the span itself: blocks taking contiguous chunks in order (the window moves as one);
//  - page translation: the same copy from a registered buffer of transparent huge pages.
// 1 GiB up (host to device), device to host for reference, each variant's median of 7 after 3
// warm-ups; the destination checked after each variant.
// Built: nvcc -O3 -std=c++17 -arch=sm_90 -cudart static -I../../../include zc_try.cu -o zc_try
#include "../../h200/issue20/experiments/timing.cuh"

#include <sys/mman.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

// Grid-stride, K loads in flight per thread, j * stride apart (the library's order).
template <int K>
__global__ void gs_copy(uint4* __restrict__ d, const uint4* __restrict__ s, size_t n) {
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  for (; i + (K - 1) * stride < n; i += K * stride) {
    uint4 v[K];
#pragma unroll
    for (int j = 0; j < K; ++j) v[j] = s[i + j * stride];
#pragma unroll
    for (int j = 0; j < K; ++j) d[i + j * stride] = v[j];
  }
  for (; i < n; i += stride) d[i] = s[i];
}

// Block b takes chunks b, b + G, ... of blockDim * K vectors, in order: the grid's window moves
// over the buffer as one compact span.
template <int K>
__global__ void chunk_copy(uint4* __restrict__ d, const uint4* __restrict__ s, size_t n) {
  const size_t chunk = size_t(blockDim.x) * K;
  for (size_t c = blockIdx.x; c * chunk < n; c += gridDim.x) {
    const size_t base = c * chunk + threadIdx.x;
    uint4 v[K];
#pragma unroll
    for (int j = 0; j < K; ++j) if (base + j * blockDim.x < n) v[j] = s[base + j * blockDim.x];
#pragma unroll
    for (int j = 0; j < K; ++j) if (base + j * blockDim.x < n) d[base + j * blockDim.x] = v[j];
  }
}

__global__ void fill(uint32_t* p, size_t n, uint32_t seed) {
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    p[i] = uint32_t(i * 2654435761u) ^ seed;
}
__global__ void check(const uint32_t* p, size_t n, uint32_t seed, unsigned long long* bad) {
  unsigned long long b = 0;
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    b += p[i] != (uint32_t(i * 2654435761u) ^ seed);
  if (b) atomicAdd(bad, b);
}

int main(int argc, char** argv) {
  const size_t bytes = size_t(1) << 30, n = bytes / 16;
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  void *h_pin = nullptr, *d_buf = nullptr;
  CK(cudaHostAlloc(&h_pin, bytes, cudaHostAllocMapped));
  CK(cudaMalloc(&d_buf, bytes));
  // Registered transparent huge pages.
  void* h_thp = nullptr;
  if (posix_memalign(&h_thp, size_t(2) << 20, bytes)) return 1;
  const int adv = madvise(h_thp, bytes, MADV_HUGEPAGE);
  std::memset(h_thp, 1, bytes);
  CK(cudaHostRegister(h_thp, bytes, cudaHostRegisterMapped));
  std::printf("madvise(MADV_HUGEPAGE) %s; ", adv == 0 ? "ok" : "failed");
  {
    FILE* f = std::fopen("/proc/meminfo", "r");
    char line[256];
    while (f && std::fgets(line, sizeof line, f))
      if (!std::strncmp(line, "AnonHugePages", 13)) std::printf("%s", line);
    if (f) std::fclose(f);
  }
  unsigned long long* d_bad = nullptr;
  CK(cudaMalloc(&d_bad, 8));
  struct host_buf { const char* name; void* p; } hosts[] = {{"pinned", h_pin}, {"thp_registered", h_thp}};
  for (auto& h : hosts) {
    uint32_t seed = 7;
    fill<<<sms * 4, 256>>>(static_cast<uint32_t*>(h.p), bytes / 4, seed);
    CK(cudaDeviceSynchronize());
    const float ce = median_us([&] { CK(cudaMemcpyAsync(d_buf, h.p, bytes, cudaMemcpyHostToDevice, 0)); }, 7);
    const float ce_down = median_us([&] { CK(cudaMemcpyAsync(h.p, d_buf, bytes, cudaMemcpyDeviceToHost, 0)); }, 7);
    std::printf("%s: copy engine h2d %.1f GB/s, d2h %.1f GB/s\n", h.name, bytes / ce / 1e3, bytes / ce_down / 1e3);
    auto run = [&](const char* kind, int k, int threads, int blocks, auto kernel) {
      CK(cudaMemset(d_buf, 0, bytes));
      const float up = median_us([&] { kernel<<<blocks, threads>>>(static_cast<uint4*>(d_buf), static_cast<const uint4*>(h.p), n); }, 7);
      CK(cudaMemset(d_bad, 0, 8));
      check<<<sms * 4, 256>>>(static_cast<const uint32_t*>(d_buf), bytes / 4, seed, d_bad);
      unsigned long long bad = 0;
      CK(cudaMemcpy(&bad, d_bad, 8, cudaMemcpyDeviceToHost));
      std::printf("  %-6s K=%d threads=%4d blocks=%4d (%5.1f MB in flight): h2d %5.1f GB/s = %.3fx CE%s\n", kind, k, threads,
                  blocks, double(blocks) * threads * k * 16 / 1e6, bytes / up / 1e3, ce / up, bad ? "  WRONG" : "");
    };
    const int per_sm[] = {1, 2, 4};
    for (int bps : per_sm) {
      run("gs", 8, 512, sms * bps, gs_copy<8>);
      run("gs", 4, 512, sms * bps, gs_copy<4>);
      run("gs", 2, 512, sms * bps, gs_copy<2>);
      run("gs", 1, 512, sms * bps, gs_copy<1>);
      run("chunk", 8, 512, sms * bps, chunk_copy<8>);
      run("chunk", 2, 512, sms * bps, chunk_copy<2>);
    }
    run("gs", 8, 512, 16, gs_copy<8>);
    run("gs", 8, 512, 32, gs_copy<8>);
    run("gs", 8, 512, 66, gs_copy<8>);
    run("gs", 8, 128, sms, gs_copy<8>);
    run("gs", 4, 128, sms, gs_copy<4>);
    run("chunk", 8, 128, sms, chunk_copy<8>);
    run("chunk", 8, 512, 32, chunk_copy<8>);
    run("chunk", 8, 512, 66, chunk_copy<8>);
  }
  std::printf("done\n");
  return 0;
}
