// Throw-away experiment (issue 20): do Hopper's bulk copies (TMA, cp.async.bulk) bring an SM
// copy and an SM transpose to the copy engine's rate, and which combine leaves a one-launch sum
// at the rate of a pure read? Every variant timed by events, median of 41 after 3 warm-ups.
#include "timing.cuh"

#include <cuda_runtime.h>
#include <cub/device/device_reduce.cuh>
#include <algorithm>
#include <cstdio>
#include <cstdint>
#include <vector>

__device__ __forceinline__ unsigned smem_addr(const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }
__device__ __forceinline__ void mbar_init(uint64_t* b, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_addr(b)), "r"(count));
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}
__device__ __forceinline__ void mbar_expect(uint64_t* b, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_addr(b)), "r"(bytes) : "memory");
}
__device__ __forceinline__ void mbar_wait(uint64_t* b, unsigned parity) {
  asm volatile(
      "{\n .reg .pred p;\n W: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n @!p bra W;\n}" ::"r"(smem_addr(b)),
      "r"(parity)
      : "memory");
}
__device__ __forceinline__ void bulk_load(void* dst, const void* src, unsigned bytes, uint64_t* b) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(smem_addr(dst)),
               "l"(src), "r"(bytes), "r"(smem_addr(b))
               : "memory");
}
__device__ __forceinline__ void bulk_store(void* dst, const void* src, unsigned bytes) {
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(dst), "r"(smem_addr(src)), "r"(bytes) : "memory");
}
__device__ __forceinline__ void bulk_commit_wait() {
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
  asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
}
__device__ __forceinline__ void fence_async_smem() { asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); }

// ---- copies ----
template <int K>
__global__ void __launch_bounds__(256) vec_copy(const float4* in, float4* out, size_t n) {
  const size_t i0 = (size_t)blockIdx.x * 256 * K + threadIdx.x;
  float4 v[K];
#pragma unroll
  for (int u = 0; u < K; ++u) if (i0 + u * 256 < n) v[u] = in[i0 + u * 256];
#pragma unroll
  for (int u = 0; u < K; ++u) if (i0 + u * 256 < n) out[i0 + u * 256] = v[u];
}
template <int Chunk>
__global__ void __launch_bounds__(32) tma_copy(const char* in, char* out) {
  extern __shared__ __align__(128) char buf[];
  __shared__ uint64_t bar;
  const size_t off = (size_t)blockIdx.x * Chunk;
  if (threadIdx.x == 0) {
    mbar_init(&bar, 1);
    mbar_expect(&bar, Chunk);
    bulk_load(buf, in + off, Chunk, &bar);
    mbar_wait(&bar, 0);
    bulk_store(out + off, buf, Chunk);
    bulk_commit_wait();
  }
}

// ---- transposes: out (cols x rows) = in (rows x cols)^T, rows, cols multiples of the tile ----
template <int T>
__global__ void __launch_bounds__(256) reg_transpose(const float* in, float* out, int rows, int cols) {
  __shared__ float t[T][T + 1];
  const int r0 = blockIdx.y * T, c0 = blockIdx.x * T;
  for (int i = threadIdx.x / T; i < T; i += 256 / T) t[i][threadIdx.x % T] = in[(size_t)(r0 + i) * cols + c0 + threadIdx.x % T];
  __syncthreads();
  for (int j = threadIdx.x / T; j < T; j += 256 / T) out[(size_t)(c0 + j) * rows + r0 + threadIdx.x % T] = t[threadIdx.x % T][j];
}
// Tile T rows x T cols, rows loaded by bulk copies into a pitch of T+4 floats (16-byte rows
// that spread a column over the banks), transposed by threads, stored by bulk copies.
template <int T>
__global__ void __launch_bounds__(256) tma_transpose(const float* in, float* out, int rows, int cols) {
  constexpr int P = T + 4;
  __shared__ __align__(128) float a[T][P];
  __shared__ __align__(128) float b[T][P];
  __shared__ uint64_t bar;
  const int r0 = blockIdx.y * T, c0 = blockIdx.x * T;
  if (threadIdx.x == 0) {
    mbar_init(&bar, 1);
    mbar_expect(&bar, T * T * 4);
  }
  __syncthreads();
  if (threadIdx.x < T) bulk_load(&a[threadIdx.x][0], in + (size_t)(r0 + threadIdx.x) * cols + c0, T * 4, &bar);
  mbar_wait(&bar, 0);
  // lane -> row i of a (32 at a time), the rest -> a 4-column group q
  for (int w = threadIdx.x; w < T * (T / 4); w += 256) {
    const int i = w % T, q = w / T;
    const float4 v = *reinterpret_cast<const float4*>(&a[i][4 * q]);
    b[4 * q + 0][i] = v.x;
    b[4 * q + 1][i] = v.y;
    b[4 * q + 2][i] = v.z;
    b[4 * q + 3][i] = v.w;
  }
  fence_async_smem();
  __syncthreads();
  if (threadIdx.x < T) {
    bulk_store(out + (size_t)(c0 + threadIdx.x) * rows + r0, &b[threadIdx.x][0], T * 4);
    bulk_commit_wait();
  }
}

// ---- reads and sums ----
template <int K>
__global__ void __launch_bounds__(256) read_grid_stride(const float4* in, size_t n, float* partials) {
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
  using BR = cub::BlockReduce<float, 256>;
  __shared__ BR::TempStorage tmp;
  s = BR(tmp).Sum(s);
  if (threadIdx.x == 0) partials[blockIdx.x] = s;
}
template <int K>
__device__ __forceinline__ float tile_sum(const float4* in, size_t n) {
  const size_t i0 = (size_t)blockIdx.x * 256 * K + threadIdx.x;
  float4 v[K];
#pragma unroll
  for (int u = 0; u < K; ++u) v[u] = i0 + u * 256 < n ? in[i0 + u * 256] : make_float4(0, 0, 0, 0);
  float s = 0;
#pragma unroll
  for (int u = 0; u < K; ++u) s += (v[u].x + v[u].y) + (v[u].z + v[u].w);
  using BR = cub::BlockReduce<float, 256>;
  __shared__ BR::TempStorage tmp;
  return BR(tmp).Sum(s);
}
template <int K>
__global__ void __launch_bounds__(256) read_tiles(const float4* in, size_t n, float* partials) {
  const float s = tile_sum<K>(in, n);
  if (threadIdx.x == 0) partials[blockIdx.x] = s;
}
template <int K>
__global__ void __launch_bounds__(256) sum_tiles_atomic(const float4* in, size_t n, float* out) {
  const float s = tile_sum<K>(in, n);
  if (threadIdx.x == 0) atomicAdd(out, s);
}
// one block per tile, the last block (counter) adds the partials
template <int K>
__global__ void __launch_bounds__(256) sum_tiles_last(const float4* in, size_t n, float* partials, unsigned* counter, float* out) {
  const float s = tile_sum<K>(in, n);
  __shared__ bool last;
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = s;
    __threadfence();
    last = atomicAdd(counter, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last) return;
  __threadfence();
  float t = 0;
  for (unsigned b = threadIdx.x; b < gridDim.x; b += 256) t += __ldcg(partials + b);
  using BR = cub::BlockReduce<float, 256>;
  __shared__ BR::TempStorage tmp;
  t = BR(tmp).Sum(t);
  if (threadIdx.x == 0) { *out = t; *counter = 0; }
}
// groups of G blocks: the last of a group adds the group's partials, the last group the groups'
template <int K, int G>
__global__ void __launch_bounds__(256) sum_tiles_two_level(const float4* in, size_t n, float* partials, float* group_partials,
                                                          unsigned* counters, float* out) {
  const float s = tile_sum<K>(in, n);
  using BR = cub::BlockReduce<float, 256>;
  __shared__ BR::TempStorage tmp;
  __shared__ int stage;
  const unsigned groups = (gridDim.x + G - 1) / G, g = blockIdx.x / G;
  const unsigned in_group = min(G, gridDim.x - g * G);
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = s;
    __threadfence();
    stage = atomicAdd(counters + 1 + g, 1u) == in_group - 1 ? 1 : 0;
  }
  __syncthreads();
  if (!stage) return;
  __threadfence();
  float t = 0;
  for (unsigned b = threadIdx.x; b < in_group; b += 256) t += __ldcg(partials + g * G + b);
  t = BR(tmp).Sum(t);
  __syncthreads();
  if (threadIdx.x == 0) {
    counters[1 + g] = 0;
    group_partials[g] = t;
    __threadfence();
    stage = atomicAdd(counters, 1u) == groups - 1 ? 2 : 0;
  }
  __syncthreads();
  if (stage != 2) return;
  __threadfence();
  float u = 0;
  for (unsigned b = threadIdx.x; b < groups; b += 256) u += __ldcg(group_partials + b);
  u = BR(tmp).Sum(u);
  if (threadIdx.x == 0) { *out = u; *counters = 0; }
}


__global__ void fill_kernel(float* p, size_t n) {
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    p[i] = (float)((i * 2654435761u >> 7) % 17) - 8.0f;
}

int check_transpose(const float* d_out, int rows, int cols, const std::vector<float>& h_in) {
  std::vector<float> h((size_t)rows * cols);
  CK(cudaMemcpy(h.data(), d_out, h.size() * 4, cudaMemcpyDeviceToHost));
  size_t bad = 0;
  for (size_t c = 0; c < (size_t)cols; ++c)
    for (size_t r = 0; r < (size_t)rows; ++r)
      if (h[c * rows + r] != h_in[r * cols + c]) ++bad;
  return (int)std::min<size_t>(bad, 1 << 30);
}

int main() {
  int sms;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const size_t bytes = size_t(1) << 30;
  float *in, *out;
  CK(cudaMalloc(&in, bytes));
  CK(cudaMalloc(&out, bytes));
  fill_kernel<<<1024, 256>>>(in, bytes / 4);
  CK(cudaDeviceSynchronize());
  std::vector<float> h_in(bytes / 4);
  CK(cudaMemcpy(h_in.data(), in, bytes, cudaMemcpyDeviceToHost));

  const float ce = median_us([&] { cudaMemcpyAsync(out, in, bytes, cudaMemcpyDeviceToDevice); });
  printf("copy 1 GiB: cudaMemcpy D2D %.1f us (%.0f GB/s read+write)\n", ce, 2.0 * bytes / ce / 1e3);
  const size_t n4 = bytes / 16;
  const float v4 = median_us([&] { vec_copy<4><<<(n4 + 1023) / 1024, 256>>>((const float4*)in, (float4*)out, n4); });
  const float v8 = median_us([&] { vec_copy<8><<<(n4 + 2047) / 2048, 256>>>((const float4*)in, (float4*)out, n4); });
  printf("  SM vec copy k4 %.3fx, k8 %.3fx\n", ce / v4, ce / v8);
  {
    constexpr int C1 = 16384, C2 = 32768, C3 = 65536;
    CK(cudaFuncSetAttribute(tma_copy<C3>, cudaFuncAttributeMaxDynamicSharedMemorySize, C3));
    CK(cudaFuncSetAttribute(tma_copy<C2>, cudaFuncAttributeMaxDynamicSharedMemorySize, C2));
    const float t1 = median_us([&] { tma_copy<C1><<<bytes / C1, 32, C1>>>((const char*)in, (char*)out); });
    const float t2 = median_us([&] { tma_copy<C2><<<bytes / C2, 32, C2>>>((const char*)in, (char*)out); });
    const float t3 = median_us([&] { tma_copy<C3><<<bytes / C3, 32, C3>>>((const char*)in, (char*)out); });
    std::vector<float> h(bytes / 4);
    CK(cudaMemcpy(h.data(), out, bytes, cudaMemcpyDeviceToHost));
    printf("  TMA bulk copy 16K %.3fx, 32K %.3fx, 64K %.3fx (check: %s)\n", ce / t1, ce / t2, ce / t3, h == h_in ? "ok" : "WRONG");
  }
  for (auto shape : {std::pair<int, int>{16384, 16384}, {32768, 8192}, {8192, 32768}}) {
    const int rows = shape.first, cols = shape.second;
    const float r32 = median_us([&] { reg_transpose<32><<<dim3(cols / 32, rows / 32), 256>>>(in, out, rows, cols); });
    const float r64 = median_us([&] { reg_transpose<64><<<dim3(cols / 64, rows / 64), 256>>>(in, out, rows, cols); });
    CK(cudaMemset(out, 0xFF, bytes));
    const float t32 = median_us([&] { tma_transpose<32><<<dim3(cols / 32, rows / 32), 256>>>(in, out, rows, cols); });
    const int bad32 = check_transpose(out, rows, cols, h_in);
    CK(cudaMemset(out, 0xFF, bytes));
    const float t64 = median_us([&] { tma_transpose<64><<<dim3(cols / 64, rows / 64), 256>>>(in, out, rows, cols); });
    const int bad64 = check_transpose(out, rows, cols, h_in);
    printf("transpose %dx%d: smem32 %.3fx, smem64 %.3fx, TMA32 %.3fx (%d wrong), TMA64 %.3fx (%d wrong) of cudaMemcpy\n", rows, cols,
           ce / r32, ce / r64, ce / t32, bad32, ce / t64, bad64);
  }

  float *partials, *groups, *d_sum;
  unsigned* counters;
  CK(cudaMalloc(&partials, 1 << 24));
  CK(cudaMalloc(&groups, 1 << 20));
  CK(cudaMalloc(&d_sum, 4));
  CK(cudaMalloc(&counters, 1 << 20));
  CK(cudaMemset(counters, 0, 1 << 20));
  void* cub_tmp = nullptr;
  size_t cub_bytes = 0;
  cub::DeviceReduce::Sum(nullptr, cub_bytes, in, d_sum, (int64_t)(bytes / 4));
  CK(cudaMalloc(&cub_tmp, cub_bytes));
  for (int lg : {24, 26, 28}) {
    const size_t n = size_t(1) << lg, nv = n / 4;
    double want = 0;
    for (size_t i = 0; i < n; ++i) want += h_in[i];
    auto got = [&] { float g; CK(cudaMemcpy(&g, d_sum, 4, cudaMemcpyDeviceToHost)); return g == (float)want ? "ok" : "WRONG"; };
    const unsigned pg = sms * 4;
    const float rg = median_us([&] { read_grid_stride<4><<<pg, 256>>>((const float4*)in, nv, partials); });
    const float rt4 = median_us([&] { read_tiles<4><<<(nv + 1023) / 1024, 256>>>((const float4*)in, nv, partials); });
    const float rt8 = median_us([&] { read_tiles<8><<<(nv + 2047) / 2048, 256>>>((const float4*)in, nv, partials); });
    const float rt16 = median_us([&] { read_tiles<16><<<(nv + 4095) / 4096, 256>>>((const float4*)in, nv, partials); });
    const float cb = median_us([&] { cub::DeviceReduce::Sum(cub_tmp, cub_bytes, in, d_sum, (int64_t)n); });
    const char* cub_ok = got();
    const float at4 = median_us([&] {
      cudaMemsetAsync(d_sum, 0, 4);
      sum_tiles_atomic<4><<<(nv + 1023) / 1024, 256>>>((const float4*)in, nv, d_sum);
    });
    const char* at_ok = got();
    const float at4n = median_us([&] { sum_tiles_atomic<4><<<(nv + 1023) / 1024, 256>>>((const float4*)in, nv, d_sum); });
    const float l8 = median_us([&] { sum_tiles_last<8><<<(nv + 2047) / 2048, 256>>>((const float4*)in, nv, partials, counters, d_sum); });
    const char* l8_ok = got();
    const float l16 = median_us([&] { sum_tiles_last<16><<<(nv + 4095) / 4096, 256>>>((const float4*)in, nv, partials, counters, d_sum); });
    const char* l16_ok = got();
    const float g4 = median_us(
        [&] { sum_tiles_two_level<4, 256><<<(nv + 1023) / 1024, 256>>>((const float4*)in, nv, partials, groups, counters, d_sum); });
    const char* g4_ok = got();
    const float g8 = median_us(
        [&] { sum_tiles_two_level<8, 256><<<(nv + 2047) / 2048, 256>>>((const float4*)in, nv, partials, groups, counters, d_sum); });
    const char* g8_ok = got();
    printf("sum 2^%d f32 (%.0f us grid-stride read = 1): read tiles k4 %.3f k8 %.3f k16 %.3f; CUB %.3f (%s); "
           "atomic k4 +memset %.3f (%s), no memset %.3f; last-block k8 %.3f (%s) k16 %.3f (%s); two-level k4 %.3f (%s) k8 %.3f (%s)\n",
           lg, rg, rg / rt4, rg / rt8, rg / rt16, rg / cb, cub_ok, rg / at4, at_ok, rg / at4n, rg / l8, l8_ok, rg / l16, l16_ok, rg / g4,
           g4_ok, rg / g8, g8_ok);
  }
  return 0;
}
