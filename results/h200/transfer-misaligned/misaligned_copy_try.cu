// Throw-away experiment: what does the library's SM copy (memscope/transfer/sm_copy.cuh) cost
// when its pointers are not 16-byte aligned? It then copies byte by byte, one byte per thread
// per step. Against it, a copy that stays in 16-byte vectors whatever the alignment: a byte head
// brings the destination onto 16 bytes, then each thread loads the two aligned 16-byte chunks
// of the source that its 16 output bytes straddle and extracts them with __byte_perm (the
// neighbouring thread loads the same chunks: the second load is served by the same lines), K
// chunks in flight; the last bytes go one by one. Device to device, host to device and device
// to host (mapped pinned memory), 256 MiB; a second run (misaligned_copy_try.txt; the first,
// without it, is .run1.txt) added the head that brings the destination onto 128 bytes (whole
// lines) instead of 16. Where the first chunk would start before src, that head grows by 16
// here, which leaves the destination 16 bytes off its line: offsets (0,1) and (0,4), the two
// device-to-host points the 128-byte head did not lift; the library grows it by 128 instead.
// Pointer offsets (destination, source) in bytes; every copy checked against the pattern, the
// bytes around the destination checked untouched, then 3 warm-ups and 9 event-timed copies,
// median. Boards: GPU-0019a929 (run 1), GPU-542388cf (run 2).
// Built: nvcc -O3 -std=c++17 -arch=sm_90 -cudart static -I../../../include misaligned_copy_try.cu
#include "../issue20/experiments/timing.cuh"
#include "memscope/transfer/sm_copy.cuh"

#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace tr = memscope::transfer;

template <int K, int Align = 16>
__global__ void __launch_bounds__(512)
    shifted_copy_kernel(std::uint8_t* __restrict__ dst, const std::uint8_t* __restrict__ src, std::size_t bytes) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t tid = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  std::size_t head = (Align - (reinterpret_cast<std::uintptr_t>(dst) & (Align - 1))) & (Align - 1);
  const unsigned o = static_cast<unsigned>(reinterpret_cast<std::uintptr_t>(src + head) & 15);
  if (o != 0 && head < o) head += 16;  // the first chunk loaded must not start before src
  head = head < bytes ? head : bytes;
  const std::size_t rem = bytes - head;
  // Chunk i reads aligned chunks i and i + 1 (when o != 0): both must end within the source.
  const std::size_t n = o == 0 ? rem / 16 : (rem + o >= 32 ? (rem + o - 16) / 16 : 0);
  auto* d = reinterpret_cast<uint4*>(dst + head);
  const auto* a = reinterpret_cast<const uint4*>(src + head - o);
  const unsigned q = o >> 2, sel = 0x3210u + (o & 3) * 0x1111u;
  std::size_t i = tid;
  for (; i + (K - 1) * stride < n; i += K * stride) {
    uint4 lo[K], hi[K];
#pragma unroll
    for (int j = 0; j < K; ++j) lo[j] = a[i + j * stride];
#pragma unroll
    for (int j = 0; j < K; ++j) hi[j] = o ? a[i + j * stride + 1] : make_uint4(0, 0, 0, 0);
#pragma unroll
    for (int j = 0; j < K; ++j) {
      const unsigned w[8] = {lo[j].x, lo[j].y, lo[j].z, lo[j].w, hi[j].x, hi[j].y, hi[j].z, hi[j].w};
      unsigned v[5];
#pragma unroll
      for (int k = 0; k < 5; ++k) v[k] = q == 0 ? w[k] : q == 1 ? w[k + 1] : q == 2 ? w[k + 2] : w[k + 3];
      d[i + j * stride] = make_uint4(__byte_perm(v[0], v[1], sel), __byte_perm(v[1], v[2], sel),
                                     __byte_perm(v[2], v[3], sel), __byte_perm(v[3], v[4], sel));
    }
  }
  for (; i < n; i += stride) {
    const uint4 l = a[i], h = o ? a[i + 1] : make_uint4(0, 0, 0, 0);
    const unsigned w[8] = {l.x, l.y, l.z, l.w, h.x, h.y, h.z, h.w};
    unsigned v[5];
#pragma unroll
    for (int k = 0; k < 5; ++k) v[k] = q == 0 ? w[k] : q == 1 ? w[k + 1] : q == 2 ? w[k + 2] : w[k + 3];
    d[i] = make_uint4(__byte_perm(v[0], v[1], sel), __byte_perm(v[1], v[2], sel), __byte_perm(v[2], v[3], sel),
                      __byte_perm(v[3], v[4], sel));
  }
  if (tid < head) dst[tid] = src[tid];
  for (std::size_t b = head + 16 * n + tid; b < bytes; b += stride) dst[b] = src[b];
}

__global__ void set_kernel(std::uint8_t* p, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x)
    p[i] = 0xA5;
}

template <int K, int Align = 16>
void shifted_copy(void* dst, const void* src, std::size_t bytes) {
  const auto kernel = shifted_copy_kernel<K, Align>;
  const unsigned grid = memscope::persistent_grid(kernel, 512, 0, bytes / 16 + 1, 512 * K);
  kernel<<<grid, 512>>>(static_cast<std::uint8_t*>(dst), static_cast<const std::uint8_t*>(src), bytes);
}

int main() {
  constexpr std::size_t bytes = std::size_t{256} << 20, slack = 64;
  cudaDeviceProp prop{};
  CK(cudaGetDeviceProperties(&prop, 0));
  std::printf("# %s; %zu MiB per copy; GB/s from the median of 9 (min-max GB/s)\n", prop.name, bytes >> 20);
  std::uint8_t *d_a = nullptr, *d_b = nullptr, *h_a = nullptr, *h_b = nullptr;
  CK(cudaMalloc(&d_a, bytes + slack));
  CK(cudaMalloc(&d_b, bytes + slack));
  CK(cudaHostAlloc(&h_a, bytes + slack, cudaHostAllocMapped));
  CK(cudaHostAlloc(&h_b, bytes + slack, cudaHostAllocMapped));
  std::uint8_t *m_a = nullptr, *m_b = nullptr;
  CK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&m_a), h_a, 0));
  CK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&m_b), h_b, 0));
  struct path {
    const char* name;
    std::uint8_t *dst, *src;  // as the kernel sees them
  };
  const path paths[] = {{"d2d", d_b, d_a}, {"h2d", d_b, m_a}, {"d2h", m_b, d_a}};
  const std::pair<int, int> offsets[] = {{0, 0}, {0, 1}, {1, 0}, {1, 1}, {4, 0}, {0, 4}, {8, 8}, {3, 7}, {15, 2}};
  struct variant {
    const char* name;
    void (*run)(void*, const void*, std::size_t);
  };
  const variant variants[] = {
      {"cudaMemcpyAsync", [](void* d, const void* s, std::size_t n) { CK(cudaMemcpyAsync(d, s, n, cudaMemcpyDefault)); }},
      {"library sm_copy", [](void* d, const void* s, std::size_t n) { tr::sm_copy(d, s, n, nullptr); }},
      {"shifted K=4", shifted_copy<4>},
      {"shifted K=8", shifted_copy<8>},
      {"shifted K=4 head to 128 B", shifted_copy<4, 128>},
  };
  std::uint64_t seed = 1;
  for (const path& p : paths) {
    std::printf("\n## %s\n%-8s", p.name, "dst,src");
    for (const variant& v : variants) std::printf("  %-26s", v.name);
    std::printf("\n");
    for (const auto& off : offsets) {
      const int od = off.first, os = off.second;
      std::printf("%3d,%-4d", od, os);
      for (const variant& v : variants) {
        ++seed;
        tr::fill_pattern(p.src + os, bytes, seed, nullptr);
        set_kernel<<<1024, 256>>>(p.dst, bytes + slack);
        v.run(p.dst + od, p.src + os, bytes);
        CK(cudaGetLastError());
        const auto bad = tr::count_pattern_mismatches(p.dst + od, bytes, seed, nullptr);
        // The bytes around the destination must be untouched.
        std::vector<std::uint8_t> edge(slack);
        CK(cudaMemcpy(edge.data(), p.dst, od, cudaMemcpyDefault));
        bool edges_ok = true;
        for (int k = 0; k < od; ++k) edges_ok &= edge[k] == 0xA5;
        CK(cudaMemcpy(edge.data(), p.dst + od + bytes, slack - od, cudaMemcpyDefault));
        for (std::size_t k = 0; k < slack - od; ++k) edges_ok &= edge[k] == 0xA5;
        const std::vector<float> t = sorted_us([] {}, [&] { v.run(p.dst + od, p.src + os, bytes); }, 9);
        const double gb = [&](float us) { return bytes / (us * 1e3); }(t[t.size() / 2]);
        std::printf("  %6.1f (%6.1f-%6.1f) %-6s", gb, bytes / (t.back() * 1e3), bytes / (t.front() * 1e3),
                    bad.first == 0 && edges_ok ? "ok" : "WRONG");
      }
      std::printf("\n");
    }
  }
  return 0;
}
