// A program of memscope's users: histogram_even in both of its forms, through the installed
// (find_package) or the added (add_subdirectory) header library. Exit 77 without a GPU.

#include <memscope/histogram/histogram.cuh>

#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstdint>
#include <vector>

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::puts("histogram_user: built; no GPU to run on");
    return 77;
  }
  namespace hg = memscope::histogram;
  const int n = 100003, bins = 10;
  std::vector<float> h(n);
  for (int i = 0; i < n; ++i) h[i] = static_cast<float>(i % bins) + 0.5f;
  float* d_samples = nullptr;
  std::uint32_t* d_hist = nullptr;
  if (cudaMalloc(&d_samples, n * sizeof(float)) != cudaSuccess ||
      cudaMalloc(&d_hist, bins * sizeof(std::uint32_t)) != cudaSuccess)
    return 1;
  cudaMemcpy(d_samples, h.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  try {
    // CUB's two-phase form, then the direct one.
    std::size_t temp_bytes = 0;
    hg::histogram_even<float>(nullptr, temp_bytes, d_samples, d_hist, bins + 1, 0.0f, static_cast<float>(bins), n);
    void* d_temp = nullptr;
    cudaMalloc(&d_temp, temp_bytes);
    hg::histogram_even<float>(d_temp, temp_bytes, d_samples, d_hist, bins + 1, 0.0f, static_cast<float>(bins), n);
    cudaFree(d_temp);
    hg::histogram_even(d_samples, d_hist, bins + 1, 0.0f, static_cast<float>(bins), std::int64_t{n});
  } catch (const std::exception& e) {
    std::printf("histogram_user: %s\n", e.what());
    return 1;
  }
  std::vector<std::uint32_t> got(bins);
  cudaMemcpy(got.data(), d_hist, bins * sizeof(std::uint32_t), cudaMemcpyDeviceToHost);
  int bad = 0;
  for (int b = 0; b < bins; ++b) bad += got[b] != static_cast<std::uint32_t>(n / bins + (b < n % bins ? 1 : 0));
  std::printf("histogram_user: %s\n", bad ? "wrong counts" : "counts right");
  return bad ? 1 : 0;
}
