// A user's program built without exceptions (-fno-exceptions): only the cudaError_t forms of
// histogram_even, CUB's way. Bad levels are refused with cudaErrorInvalidValue and a message,
// with or without a GPU; exit 77 where there is no GPU to run the rest on.

#include <memscope/histogram/histogram.cuh>

#include <cuda_runtime_api.h>

#include <cstdint>
#include <cstdio>
#include <vector>

#if defined(__cpp_exceptions) || defined(__EXCEPTIONS)
#error "this consumer must be compiled with -fno-exceptions"
#endif

int main() {
  namespace hg = memscope::histogram;
  hg::outcome why;
  // Levels 5..5: no bins. Checked before any CUDA call, so this runs without a GPU too.
  const cudaError_t bad = hg::try_histogram_even(
      static_cast<const float*>(nullptr), static_cast<std::uint32_t*>(nullptr), 11, 5.0f, 5.0f, 10, nullptr, {}, &why);
  if (bad != cudaErrorInvalidValue || why.message.empty()) {
    std::printf("histogram_user_noexcept: bad levels gave %s, message '%s'\n", cudaGetErrorName(bad),
                why.message.c_str());
    return 1;
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::puts("histogram_user_noexcept: built without exceptions; bad levels refused; no GPU to run on");
    return 77;
  }
  const int n = 100003, bins = 10;
  std::vector<std::uint8_t> h(n);
  for (int i = 0; i < n; ++i) h[i] = static_cast<std::uint8_t>(i % bins);
  std::uint8_t* d_samples = nullptr;
  std::uint32_t* d_hist = nullptr;
  if (cudaMalloc(&d_samples, n) != cudaSuccess || cudaMalloc(&d_hist, bins * sizeof(std::uint32_t)) != cudaSuccess)
    return 1;
  if (cudaMemcpy(d_samples, h.data(), n, cudaMemcpyHostToDevice) != cudaSuccess) return 1;
  std::size_t temp_bytes = 0;
  cudaError_t rc = hg::try_histogram_even<std::uint8_t>(nullptr, temp_bytes, d_samples, d_hist, bins + 1, 0, bins, n);
  void* d_temp = nullptr;
  if (rc == cudaSuccess) rc = cudaMalloc(&d_temp, temp_bytes);
  if (rc == cudaSuccess)
    rc = hg::try_histogram_even<std::uint8_t>(d_temp, temp_bytes, d_samples, d_hist, bins + 1, 0, bins, n, nullptr, {},
                                              &why);
  if (rc == cudaSuccess) rc = cudaDeviceSynchronize();
  cudaFree(d_temp);
  if (rc != cudaSuccess) {
    std::printf("histogram_user_noexcept: %s: %s\n", cudaGetErrorName(rc), why.message.c_str());
    return 1;
  }
  std::vector<std::uint32_t> got(bins);
  cudaMemcpy(got.data(), d_hist, bins * sizeof(std::uint32_t), cudaMemcpyDeviceToHost);
  int wrong = 0;
  for (int b = 0; b < bins; ++b) wrong += got[b] != static_cast<std::uint32_t>(n / bins + (b < n % bins ? 1 : 0));
  std::printf("histogram_user_noexcept: %s (%s)\n", wrong ? "wrong counts" : "counts right",
              hg::to_string(why.ran.kind));
  return wrong ? 1 : 0;
}
