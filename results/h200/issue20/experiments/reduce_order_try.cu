// Throw-away experiment (issue 20): one block per tile reads 1-3% faster than a persistent
// grid (tma_try.txt, read_order.txt), but giving every tile's block its own fence and counter
// costs more than it gains. Does a persistent grid whose blocks take tiles in order from a
// work counter (so the blocks in flight read one compact window, as one-block-per-tile does)
// read at the one-block-per-tile rate, and does a one-launch sum built on it reach it?
#include "memscope/shared/reduce.cuh"
#include "timing.cuh"

#include <algorithm>
#include <cstdio>
#include <vector>

template <int K>
__device__ __forceinline__ float tile_part(const float4* in, size_t nv, size_t tile) {
  const size_t i0 = tile * 256 * K + threadIdx.x;
  float4 v[K];
#pragma unroll
  for (int u = 0; u < K; ++u) v[u] = i0 + u * 256 < nv ? in[i0 + u * 256] : make_float4(0, 0, 0, 0);
  float s = 0;
#pragma unroll
  for (int u = 0; u < K; ++u) s += (v[u].x + v[u].y) + (v[u].z + v[u].w);
  return s;
}
template <int K>
__global__ void __launch_bounds__(256) read_tiles(const float4* in, size_t nv, float* partials) {
  float s = tile_part<K>(in, nv, blockIdx.x);
  s = memscope::reduce::block_sum_shuffle(s);
  if (threadIdx.x == 0) partials[blockIdx.x] = s;
}
// Persistent grid; block b starts at tile b, then takes the next tile from `work` (asked one
// tile ahead, so the atomic's round trip overlaps the loads). With Sum, the last block to
// finish adds the partials and resets both counters.
template <int K, bool Sum>
__global__ void __launch_bounds__(256) dynamic_tiles(const float4* in, size_t nv, float* partials, unsigned* work,
                                                     unsigned* done, float* out) {
  __shared__ unsigned next[2];
  const unsigned tiles = (unsigned)((nv + 256 * K - 1) / (256 * K));
  float acc = 0;
  int slot = 0;
  for (unsigned tile = blockIdx.x; tile < tiles; slot ^= 1) {
    unsigned ask = 0;
    if (threadIdx.x == 0) ask = atomicAdd(work, 1u) + gridDim.x;
    acc += tile_part<K>(in, nv, tile);
    if (threadIdx.x == 0) next[slot] = ask;
    __syncthreads();
    tile = next[slot];
  }
  acc = memscope::reduce::block_sum_shuffle(acc);
  __shared__ bool last;
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = acc;
    if (Sum) {
      __threadfence();
      last = atomicAdd(done, 1u) == gridDim.x - 1;
    } else {
      last = false;
    }
  }
  __syncthreads();
  if (!last) return;
  __threadfence();
  float t = 0;
  for (unsigned b = threadIdx.x; b < gridDim.x; b += 256) t += __ldcg(partials + b);
  t = memscope::reduce::block_sum_shuffle(t);
  if (threadIdx.x == 0) {
    *out = t;
    *done = 0;
    *work = 0;
  }
}
__global__ void reset(unsigned* w) { *w = 0; }

__global__ void fill_kernel(float* p, size_t n) {
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    p[i] = (float)((i * 2654435761u >> 7) % 17) - 8.0f;
}

int main() {
  int sms;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const size_t max_n = size_t(1) << 30;
  float *in, *partials, *d_sum;
  unsigned *work, *done;
  CK(cudaMalloc(&in, max_n * 4));
  CK(cudaMalloc(&partials, 1 << 24));
  CK(cudaMalloc(&d_sum, 4));
  CK(cudaMalloc(&work, 4));
  CK(cudaMalloc(&done, 4));
  CK(cudaMemset(work, 0, 4));
  CK(cudaMemset(done, 0, 4));
  fill_kernel<<<4096, 256>>>(in, max_n);
  CK(cudaDeviceSynchronize());
  std::vector<float> h(max_n);
  CK(cudaMemcpy(h.data(), in, max_n * 4, cudaMemcpyDeviceToHost));
  int per_sm4 = 0, per_sm8 = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm4, dynamic_tiles<4, true>, 256, 0));
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm8, dynamic_tiles<8, true>, 256, 0));
  memscope::reduce::reduce_workspace<float> ws(max_n);
  for (int lg : {24, 26, 28, 30}) {
    const size_t n = size_t(1) << lg, nv = n / 4;
    double want = 0;
    for (size_t i = 0; i < n; ++i) want += h[i];
    auto got = [&] {
      float g;
      CK(cudaMemcpy(&g, d_sum, 4, cudaMemcpyDeviceToHost));
      return g == (float)want ? "ok" : "WRONG";
    };
    const float t4 = median_us([&] { read_tiles<4><<<(nv + 1023) / 1024, 256>>>((const float4*)in, nv, partials); });
    const float t8 = median_us([&] { read_tiles<8><<<(nv + 2047) / 2048, 256>>>((const float4*)in, nv, partials); });
    const float ms = median_us([&] { memscope::reduce::sum(memscope::reduce::variant::grid_stride_vec, in, n, d_sum, ws, 0); });
    const char* ms_ok = got();
    const float ms8 = median_us([&] { memscope::reduce::sum(memscope::reduce::variant::grid_stride_vec8, in, n, d_sum, ws, 0); });
    char line[512];
    int len = snprintf(line, sizeof line, "2^%d f32: one block per tile k4 %.1f us = 1 (k8 %.3f); memscope vec %.3f (%s) vec8 %.3f;", lg, t4,
                       t4 / t8, t4 / ms, ms_ok, t4 / ms8);
    for (int k : {4, 8}) {
      const int per_sm = k == 4 ? per_sm4 : per_sm8;
      for (int g : {per_sm, per_sm / 2}) {
        const unsigned grid = sms * g;
        const float rd = median_us([&] {
          reset<<<1, 1>>>(work);
          if (k == 4) dynamic_tiles<4, false><<<grid, 256>>>((const float4*)in, nv, partials, work, done, d_sum);
          else dynamic_tiles<8, false><<<grid, 256>>>((const float4*)in, nv, partials, work, done, d_sum);
        });
        const float sm = median_us([&] {
          if (k == 4) dynamic_tiles<4, true><<<grid, 256>>>((const float4*)in, nv, partials, work, done, d_sum);
          else dynamic_tiles<8, true><<<grid, 256>>>((const float4*)in, nv, partials, work, done, d_sum);
        });
        len += snprintf(line + len, sizeof line - len, " dyn k%d x%d: read(+reset) %.3f sum %.3f (%s);", k, g, t4 / rd, t4 / sm, got());
      }
    }
    puts(line);
  }
  return 0;
}
