// Throw-away experiment (issue 20): a grid of several waves reads at the one-block-per-tile rate
// (reduce_grid_try.txt: 0.994-1.002 at 8-16 waves), but a last-block combine (fence, counter)
// costs every block a round trip before it exits and holds the sum at 0.988. Does a second
// kernel that adds the partials, launched as a programmatic dependent launch (PDL, sm_90:
// its launch overlaps the first kernel's tail), keep the read's rate?
//   pdl W trig: W waves write one partial per block; the first kernel lets its dependent
//               launch early (griddepcontrol.launch_dependents) or not; the second waits
//               (griddepcontrol.wait) and adds the partials in a fixed order (deterministic);
//   plain W:    the same two kernels, the second an ordinary launch;
//   red W:      each block adds its partial into an accumulator with one atomic (no return),
//               the PDL second kernel copies it out and zeroes it (floats not deterministic).
#include "memscope/bandwidth/stream_kernels.cuh"
#include "memscope/shared/reduce.cuh"

#include "sum_inputs.cuh"

#include <cub/device/device_reduce.cuh>
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <vector>

namespace rd = memscope::reduce;
template <class T> using vec_t = typename rd::vec4<T>::type;

__device__ __forceinline__ void pdl_trigger() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}
__device__ __forceinline__ void pdl_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

template <class T, bool Trigger, bool Red>
__global__ void __launch_bounds__(256) waves_kernel(const T* in, size_t n, T* partials, T* acc) {
  if (Trigger) pdl_trigger();
  const T s = rd::grid_stride_block_sum<T, 4>(in, n);
  if (threadIdx.x == 0) {
    if (Red) atomicAdd(acc, s);
    else partials[blockIdx.x] = s;
  }
}

template <class T>
__global__ void __launch_bounds__(1024) finish_kernel(const T* partials, unsigned count, T* out) {
  pdl_wait();
  constexpr int k = 8;
  T total = 0;
  for (unsigned b0 = threadIdx.x; b0 < count; b0 += k * 1024) {
    T p[k];
#pragma unroll
    for (int u = 0; u < k; ++u) p[u] = b0 + u * 1024 < count ? partials[b0 + u * 1024] : T(0);
#pragma unroll
    for (int u = 0; u < k; ++u) total += p[u];
  }
  total = rd::block_sum_shuffle(total);
  if (threadIdx.x == 0) *out = total;
}
template <class T>
__global__ void take_kernel(T* acc, T* out) {
  pdl_wait();
  *out = *acc;
  *acc = T(0);
}

template <class K, class... A>
void launch_pdl(K kernel, unsigned grid, unsigned block, bool pdl, A... args) {
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = grid;
  cfg.blockDim = block;
  cudaLaunchAttribute attr{};
  attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr.val.programmaticStreamSerializationAllowed = 1;
  cfg.attrs = &attr;
  cfg.numAttrs = pdl ? 1 : 0;
  CK(cudaLaunchKernelEx(&cfg, kernel, args...));
}

template <class T>
void run(const T* in, const std::vector<float>& h, int resident) {
  T *partials, *out, *acc;
  CK(cudaMalloc(&partials, 1 << 22));
  CK(cudaMalloc(&out, sizeof(T)));
  CK(cudaMalloc(&acc, sizeof(T)));
  CK(cudaMemset(acc, 0, sizeof(T)));
  float* fp;
  CK(cudaMalloc(&fp, 1 << 22));
  rd::reduce_workspace<T> ws(size_t(1) << 30);
  const char* name = T(0.5) != T(0) ? "f32" : "i32";
  for (int lg : {22, 24, 26, 28, 30}) {
    const size_t n = size_t(1) << lg, nv = n / 4;
    sum_checker checker(h, n);
    auto check = [&] { checker(out); };
    int& wrong = checker.wrong;
    void* cub_tmp = nullptr;
    size_t cub_bytes = 0;
    cub::DeviceReduce::Sum(nullptr, cub_bytes, in, out, (int64_t)n);
    CK(cudaMalloc(&cub_tmp, cub_bytes));
    const auto* v = reinterpret_cast<const vec_t<T>*>(in);
    const float tiles = median_us([&] { memscope::bandwidth::stream_sum(v, nv, fp, 0, memscope::bandwidth::read_order::tiles); });
    const float ro = median_us([&] { memscope::bandwidth::stream_sum(v, nv, fp, 0); });
    const float cb = median_us([&] { cub::DeviceReduce::Sum(cub_tmp, cub_bytes, in, out, (int64_t)n); });
    check();
    const float vec = median_us([&] { rd::sum(rd::variant::grid_stride_vec, in, n, out, ws, 0); });
    check();
    const float red = median_us([&] { rd::sum(rd::variant::grid_stride_red, in, n, out, ws, 0); });
    check();
    printf("%s 2^%d: read_tiles %.1f us = 1 | read_only %.3f CUB %.3f grid_stride_vec %.3f grid_stride_red %.3f\n", name, lg, tiles,
           tiles / ro, tiles / cb, tiles / vec, tiles / red);
    for (int waves : {1, 2, 4, 8, 16}) {
      const unsigned grid = (unsigned)std::min<size_t>((size_t)resident * waves, (nv + 1023) / 1024);
      auto two = [&](auto first, bool pdl) {
        first<<<grid, 256>>>(in, n, partials, acc);
        launch_pdl(finish_kernel<T>, 1, 1024, pdl, (const T*)partials, grid, out);
      };
      const float p_trig = median_us([&] { two(waves_kernel<T, true, false>, true); });
      check();
      const float p_late = median_us([&] { two(waves_kernel<T, false, false>, true); });
      check();
      const float plain = median_us([&] { two(waves_kernel<T, false, false>, false); });
      check();
      const float read = median_us([&] { waves_kernel<T, false, false><<<grid, 256>>>(in, n, partials, acc); });
      const float red_pdl = median_us([&] {
        waves_kernel<T, true, true><<<grid, 256>>>(in, n, partials, acc);
        launch_pdl(take_kernel<T>, 1, 1, true, acc, out);
      });
      check();
      printf("  %2d waves (%5u blocks): read alone %.3f | pdl+trigger %.3f pdl %.3f plain %.3f | red+pdl %.3f\n", waves, grid,
             tiles / read, tiles / p_trig, tiles / p_late, tiles / plain, tiles / red_pdl);
    }
    printf("  %d wrong\n", wrong);
    CK(cudaFree(cub_tmp));
  }
  CK(cudaFree(fp));
}

int main() {
  int sms, per_sm;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, waves_kernel<float, true, false>, 256, 0));
  const sum_inputs in;
  float* f = in.f;
  int* i = in.i;
  const std::vector<float>& h = in.h;
  printf("%d SMs x %d blocks of 256 resident\n", sms, per_sm);
  run(f, h, sms * per_sm);
  run(i, h, sms * per_sm);
  return 0;
}
