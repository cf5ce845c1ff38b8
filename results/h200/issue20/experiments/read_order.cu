// Throw-away experiment: does a block-contiguous (tiled) persistent order read faster than the
// grid-stride order memscope's reduce and read-only ceiling use? Sums of float4 at 1 and 4 GiB.
#include <cstdio>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s at %d\n", cudaGetErrorString(e), __LINE__); return 1; } } while (0)
template <int K>
__global__ void __launch_bounds__(256) grid_stride_sum(const float4* in, size_t n, float* out) {
  const size_t step = (size_t)gridDim.x * blockDim.x;
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  float acc[K] = {};
  for (; i + (K - 1) * step < n; i += K * step) {
    float4 v[K];
#pragma unroll
    for (int u = 0; u < K; ++u) v[u] = in[i + u * step];
#pragma unroll
    for (int u = 0; u < K; ++u) acc[u] += (v[u].x + v[u].y) + (v[u].z + v[u].w);
  }
  for (; i < n; i += step) { float4 v = in[i]; acc[0] += (v.x + v.y) + (v.z + v.w); }
  float s = 0;
  for (int u = 0; u < K; ++u) s += acc[u];
  if (s == 1234.5f) out[0] = s;  // keep the loads
}
template <int K>
__global__ void __launch_bounds__(256) tiled_sum(const float4* in, size_t n, float* out) {
  const size_t tile = (size_t)blockDim.x * K;
  const size_t tiles = n / tile;
  float acc[K] = {};
  for (size_t t = blockIdx.x; t < tiles; t += gridDim.x) {
    const float4* p = in + t * tile + threadIdx.x;
    float4 v[K];
#pragma unroll
    for (int u = 0; u < K; ++u) v[u] = p[u * blockDim.x];
#pragma unroll
    for (int u = 0; u < K; ++u) acc[u] += (v[u].x + v[u].y) + (v[u].z + v[u].w);
  }
  for (size_t i = tiles * tile + (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    float4 v = in[i]; acc[0] += (v.x + v.y) + (v.z + v.w);
  }
  float s = 0;
  for (int u = 0; u < K; ++u) s += acc[u];
  if (s == 1234.5f) out[0] = s;
}
template <class F>
float median_us(F launch, int reps = 41) {
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  std::vector<float> t;
  for (int r = 0; r < reps + 3; ++r) {
    cudaEventRecord(a); launch(); cudaEventRecord(b); cudaEventSynchronize(b);
    float ms; cudaEventElapsedTime(&ms, a, b); if (r >= 3) t.push_back(ms * 1000);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}
int main() {
  int sms; CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  for (size_t bytes : {size_t(1) << 30, size_t(1) << 32}) {
    const size_t n = bytes / 16;
    float4* in; float* out; void* dst;
    CK(cudaMalloc(&in, bytes)); CK(cudaMalloc(&out, 4)); CK(cudaMalloc(&dst, bytes));
    CK(cudaMemset(in, 0, bytes));
    const float copy = median_us([&] { cudaMemcpyAsync(dst, in, bytes, cudaMemcpyDeviceToDevice); });
    printf("%zu MiB: memcpy d2d %.1f us (read+write %.0f GB/s)\n", bytes >> 20, copy, 2.0 * bytes / copy / 1e3);
    for (int bps : {4, 8}) {
      const unsigned grid = sms * bps;
      const float gs4 = median_us([&] { grid_stride_sum<4><<<grid, 256>>>(in, n, out); });
      const float gs8 = median_us([&] { grid_stride_sum<8><<<grid, 256>>>(in, n, out); });
      const float ti4 = median_us([&] { tiled_sum<4><<<grid, 256>>>(in, n, out); });
      const float ti8 = median_us([&] { tiled_sum<8><<<grid, 256>>>(in, n, out); });
      printf("  grid %u: grid-stride k4 %.1f us (%.0f GB/s), k8 %.1f; tiled k4 %.1f (%.0f GB/s), k8 %.1f (%.0f GB/s)\n", grid, gs4,
             bytes / gs4 / 1e3, gs8, ti4, bytes / ti4 / 1e3, ti8, bytes / ti8 / 1e3);
    }
    const unsigned oneshot = (unsigned)((n + 256 * 4 - 1) / (256 * 4));
    const float os = median_us([&] { tiled_sum<4><<<oneshot, 256>>>(in, n, out); });
    printf("  one block per tile (%u blocks), k4: %.1f us (%.0f GB/s)\n", oneshot, os, bytes / os / 1e3);
    CK(cudaGetLastError());
    cudaFree(in); cudaFree(out); cudaFree(dst);
  }
  return 0;
}
