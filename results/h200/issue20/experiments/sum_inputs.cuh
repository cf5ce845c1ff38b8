#pragma once
// The inputs issue 20's sum experiments share: 2^30 whole numbers in [-8, 8] as floats (every
// partial sum exact) and the same as ints, on the device, and the floats on the host for the
// reference sums.
#include "timing.cuh"

#include <cstddef>
#include <vector>

__global__ void fill_kernel(float* p, size_t n) {
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    const int v = (int)((i * 2654435761u >> 7) % 17) - 8;
    p[i] = (float)v;
  }
}
__global__ void to_int(const float* f, int* p, size_t n) {
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) p[i] = (int)f[i];
}

struct sum_inputs {
  static constexpr size_t max_n = size_t(1) << 30;
  float* f = nullptr;
  int* i = nullptr;
  std::vector<float> h;
  sum_inputs() : h(max_n) {
    CK(cudaMalloc(&f, max_n * 4));
    CK(cudaMalloc(&i, max_n * 4));
    fill_kernel<<<4096, 256>>>(f, max_n);
    to_int<<<4096, 256>>>(f, i, max_n);
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(h.data(), f, max_n * 4, cudaMemcpyDeviceToHost));
  }
};

/// Counts the results read back from `out` that differ from the exact sum of the first n inputs.
struct sum_checker {
  double want = 0;
  int wrong = 0;
  sum_checker(const std::vector<float>& h, size_t n) {
    for (size_t k = 0; k < n; ++k) want += h[k];
  }
  template <class T>
  void operator()(const T* out) {
    T g;
    CK(cudaMemcpy(&g, out, sizeof(T), cudaMemcpyDeviceToHost));
    if ((double)g != want) ++wrong;
  }
};
