// Throw-away experiment (issue 20): memscope's one-launch sum ends ~2 us after the read kernel
// of the same order (reduce.txt in ../tail). Which end of a sum costs no more than a read's
// end, and which read order is fastest for a persistent grid?
//  - last: memscope's kernel (partial, fence, counter, the last block adds the partials);
//  - red: every block adds its partial into *out with one atomic (a RED, like the read's
//    store); block 0 zeroes *out first and publishes a launch number, the others wait for it
//    before their atomic; a cooperative launch guarantees block 0 runs. Exact for ints; for
//    floats the order of the adds varies from run to run.
//  - even: each block of the persistent grid reads one contiguous share (CUB's even share).
// `reduce_tail_try grid` (reduce_grid_try.txt): on some leases a persistent grid reads 3%
// slower than one block per tile and CUB's sum is 2% faster than memscope's at 4 GiB
// (../final2/reduce.txt). Does a grid of several waves (as CUB launches) read at the
// one-block-per-tile rate, in grid-stride or even-share order, and what does the last-block
// combine cost there?
#include "memscope/bandwidth/stream_kernels.cuh"
#include "memscope/shared/reduce.cuh"

#include "sum_inputs.cuh"

#include <cub/device/device_reduce.cuh>
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>

namespace rd = memscope::reduce;
template <class T> using vec_t = typename rd::vec4<T>::type;

template <class T, int K, bool Even>
__device__ __forceinline__ T read_share(const vec_t<T>* in, size_t nv) {
  T acc[K] = {};
  if (Even) {
    const size_t tile = 256 * K, tiles = (nv + tile - 1) / tile;
    const size_t t0 = tiles * blockIdx.x / gridDim.x, t1 = tiles * (blockIdx.x + 1) / gridDim.x;
    for (size_t t = t0; t < t1; ++t) {
      const size_t i = t * tile + threadIdx.x;
      vec_t<T> v[K];
#pragma unroll
      for (int u = 0; u < K; ++u) v[u] = i + u * 256 < nv ? in[i + u * 256] : vec_t<T>{};
#pragma unroll
      for (int u = 0; u < K; ++u) acc[u] += (v[u].x + v[u].y) + (v[u].z + v[u].w);
    }
  } else {
    const size_t stride = (size_t)gridDim.x * 256;
    size_t i = (size_t)blockIdx.x * 256 + threadIdx.x;
    for (; i + (K - 1) * stride < nv; i += K * stride) {
      vec_t<T> v[K];
#pragma unroll
      for (int u = 0; u < K; ++u) v[u] = in[i + u * stride];
#pragma unroll
      for (int u = 0; u < K; ++u) acc[u] += (v[u].x + v[u].y) + (v[u].z + v[u].w);
    }
    if (i < nv) {
      vec_t<T> v[K];
#pragma unroll
      for (int u = 0; u < K; ++u) v[u] = i + u * stride < nv ? in[i + u * stride] : vec_t<T>{};
#pragma unroll
      for (int u = 0; u < K; ++u) acc[u] += (v[u].x + v[u].y) + (v[u].z + v[u].w);
    }
  }
  T s = 0;
#pragma unroll
  for (int u = 0; u < K; ++u) s += acc[u];
  return rd::block_sum_shuffle(s);
}

template <class T, int K, bool Even>
__global__ void __launch_bounds__(256) read_kernel(const vec_t<T>* in, size_t nv, T* partials) {
  const T s = read_share<T, K, Even>(in, nv);
  if (threadIdx.x == 0) partials[blockIdx.x] = s;
}
template <class T, int K, bool Even>
__global__ void __launch_bounds__(256) last_kernel(const vec_t<T>* in, size_t nv, T* partials, unsigned* counter, T* out) {
  const T s = read_share<T, K, Even>(in, nv);
  __shared__ bool last;
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = s;
    __threadfence();
    last = atomicAdd(counter, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last) return;
  __threadfence();
  T t = 0;
  for (unsigned b = threadIdx.x; b < gridDim.x; b += 256) t += __ldcg(partials + b);
  t = rd::block_sum_shuffle(t);
  if (threadIdx.x == 0) { *out = t; *counter = 0; }
}
__device__ __forceinline__ unsigned ld_acquire(const unsigned* p) {
  unsigned v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ void st_release(unsigned* p, unsigned v) {
  asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
template <class T, int K, bool Even>
__global__ void __launch_bounds__(256) red_kernel(const vec_t<T>* in, size_t nv, unsigned* flag, unsigned epoch, T* out) {
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    *out = T(0);
    st_release(flag, epoch);  // orders the zero before the launch number
  }
  const T s = read_share<T, K, Even>(in, nv);
  if (threadIdx.x == 0) {
    while (ld_acquire(flag) != epoch) {
    }
    atomicAdd(out, s);
  }
}

template <class T>
void run(const T* in, size_t max_n, const std::vector<float>& h, int sms) {
  T *partials, *out;
  unsigned *counter, *flag;
  CK(cudaMalloc(&partials, 1 << 20));
  CK(cudaMalloc(&out, sizeof(T)));
  CK(cudaMalloc(&counter, 4));
  CK(cudaMalloc(&flag, 4));
  CK(cudaMemset(counter, 0, 4));
  CK(cudaMemset(flag, 0, 4));
  unsigned epoch = 0;
  int per_sm = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, red_kernel<T, 4, false>, 256, 0));
  rd::reduce_workspace<T> ws(max_n);
  for (int lg : {24, 26, 28, 30}) {
    const size_t n = size_t(1) << lg, nv = n / 4;
    sum_checker checker(h, n);
    auto check = [&] { checker(out); };
    int& wrong = checker.wrong;
    const auto* v = reinterpret_cast<const vec_t<T>*>(in);
    const unsigned grid = std::min<size_t>(sms * per_sm, (nv + 1023) / 1024);
    float* fp;
    CK(cudaMalloc(&fp, 1 << 22));
    const float tiles = median_us([&] { memscope::bandwidth::stream_sum(v, nv, fp, 0, memscope::bandwidth::read_order::tiles); });
    const float ro = median_us([&] { memscope::bandwidth::stream_sum(v, nv, fp, 0); });
    const float mine = median_us([&] { rd::sum(rd::variant::grid_stride_vec, in, n, out, ws, 0); });
    check();
    const float rd_gs = median_us([&] { read_kernel<T, 4, false><<<grid, 256>>>(v, nv, partials); });
    const float rd_ev = median_us([&] { read_kernel<T, 4, true><<<grid, 256>>>(v, nv, partials); });
    const float last_gs = median_us([&] { last_kernel<T, 4, false><<<grid, 256>>>(v, nv, partials, counter, out); });
    check();
    const float last_ev = median_us([&] { last_kernel<T, 4, true><<<grid, 256>>>(v, nv, partials, counter, out); });
    check();
    auto red = [&](auto kernel) {
      ++epoch;
      void* args[] = {(void*)&v, (void*)&nv, (void*)&flag, (void*)&epoch, (void*)&out};
      CK(cudaLaunchCooperativeKernel((const void*)kernel, grid, 256, args, 0, 0));
    };
    const float red_gs = median_us([&] { red(red_kernel<T, 4, false>); });
    check();
    const float red_ev = median_us([&] { red(red_kernel<T, 4, true>); });
    check();
    const float red_plain = median_us([&] {
      ++epoch;
      red_kernel<T, 4, false><<<grid, 256>>>(v, nv, flag, epoch, out);
    });
    check();
    printf("%s 2^%d (grid %u; times against one-block-per-tile read %.1f us): read_only %.3f, memscope sum %.3f | grid-stride: read %.3f last %.3f "
           "red %.3f (plain launch %.3f) | even share: read %.3f last %.3f red %.3f | %d wrong\n",
           sizeof(T) == 4 && T(0.5) != T(0) ? "f32" : "i32", lg, grid, tiles, tiles / ro, tiles / mine, tiles / rd_gs, tiles / last_gs,
           tiles / red_gs, tiles / red_plain, tiles / rd_ev, tiles / last_ev, tiles / red_ev, wrong);
    CK(cudaFree(fp));
  }
}

template <class T>
void run_waves(const T* in, int sms) {
  T *partials, *out;
  unsigned* counter;
  CK(cudaMalloc(&partials, 1 << 22));
  CK(cudaMalloc(&out, sizeof(T)));
  CK(cudaMalloc(&counter, 4));
  CK(cudaMemset(counter, 0, 4));
  int per_sm = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, last_kernel<T, 4, false>, 256, 0));
  void* cub_tmp = nullptr;
  size_t cub_bytes = 0;
  cub::DeviceReduce::Sum(nullptr, cub_bytes, in, out, (int64_t)(size_t(1) << 30));
  CK(cudaMalloc(&cub_tmp, cub_bytes));
  float* fp;
  CK(cudaMalloc(&fp, 1 << 22));
  for (int lg : {28, 30}) {
    const size_t n = size_t(1) << lg, nv = n / 4;
    const auto* v = reinterpret_cast<const vec_t<T>*>(in);
    const float tiles = median_us([&] { memscope::bandwidth::stream_sum(v, nv, fp, 0, memscope::bandwidth::read_order::tiles); });
    const float ro = median_us([&] { memscope::bandwidth::stream_sum(v, nv, fp, 0); });
    const float cb = median_us([&] { cub::DeviceReduce::Sum(cub_tmp, cub_bytes, in, out, (int64_t)n); });
    printf("2^%d (one-block-per-tile read %.1f us = 1): read_only %.3f, CUB %.3f\n", lg, tiles, tiles / ro, tiles / cb);
    for (int waves : {1, 2, 4, 8, 16}) {
      const unsigned grid = std::min<size_t>((size_t)sms * per_sm * waves, (nv + 1023) / 1024);
      const float rg = median_us([&] { read_kernel<T, 4, false><<<grid, 256>>>(v, nv, partials); });
      const float re = median_us([&] { read_kernel<T, 4, true><<<grid, 256>>>(v, nv, partials); });
      const float lg_ = median_us([&] { last_kernel<T, 4, false><<<grid, 256>>>(v, nv, partials, counter, out); });
      const float le = median_us([&] { last_kernel<T, 4, true><<<grid, 256>>>(v, nv, partials, counter, out); });
      printf("  %2d waves (%u blocks): read grid-stride %.3f even-share %.3f | sum (last block) grid-stride %.3f even-share %.3f\n",
             waves, grid, tiles / rg, tiles / re, tiles / lg_, tiles / le);
    }
  }
}

int main(int argc, char** argv) {
  int sms;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const sum_inputs in;
  const size_t max_n = in.max_n;
  float* f = in.f;
  int* i = in.i;
  const std::vector<float>& h = in.h;
  if (argc > 1 && std::strcmp(argv[1], "grid") == 0) {
    run_waves(f, sms);
    return 0;
  }
  run(f, max_n, h, sms);
  run(i, max_n, h, sms);
  return 0;
}
