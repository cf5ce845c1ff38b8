#pragma once
// What the L1/shared-memory split settings change: cudaFuncSetCacheConfig's four preferences
// and the cudaFuncAttributePreferredSharedMemoryCarveout percentage, applied to a kernel, with
// a guard that puts the kernel's defaults back. And the seed's test case: a shared-memory
// tiled matrix multiply (32x32 tiles), whose speed the seed says the preference moves by
// 5-20% depending on the matrix size.

#include "memscope/core/cuda_check.hpp"
#include "memscope/core/launch.cuh"

#include <cstddef>
#include <stdexcept>
#include <string>

namespace memscope::cache {

/// A kernel's split setting: a cache preference or an explicit carveout percentage.
struct split_setting {
  cudaFuncCache preference = cudaFuncCachePreferNone;
  int carveout = -1;  // cudaSharedmemCarveoutDefault, or 0..100 (% of the unified memory as shared)
};

/// "none", "prefer_shared", "prefer_l1", "prefer_equal", "carveout_N" (N in 0..100).
inline split_setting parse_split(const std::string& s) {
  if (s == "none") return {cudaFuncCachePreferNone, -1};
  if (s == "prefer_shared") return {cudaFuncCachePreferShared, -1};
  if (s == "prefer_l1") return {cudaFuncCachePreferL1, -1};
  if (s == "prefer_equal") return {cudaFuncCachePreferEqual, -1};
  if (s.rfind("carveout_", 0) == 0) {
    const std::string n = s.substr(9);
    if (!n.empty() && n.size() <= 3 && n.find_first_not_of("0123456789") == std::string::npos && std::stoi(n) <= 100)
      return {cudaFuncCachePreferNone, std::stoi(n)};
  }
  throw std::invalid_argument("cache setting '" + s +
                              "' is not none, prefer_shared, prefer_l1, prefer_equal or carveout_N (N = 0..100)");
}

/// Applies a split setting to `kernel` for the guard's lifetime; the destructor restores
/// PreferNone and the default carveout, so no later case inherits it.
template <class Kernel>
class split_guard {
 public:
  split_guard(Kernel kernel, const split_setting& s) : kernel_(kernel) {
    MEMSCOPE_CUDA_CALL(cudaFuncSetCacheConfig(kernel_, s.preference));
    MEMSCOPE_CUDA_CALL(cudaFuncSetAttribute(kernel_, cudaFuncAttributePreferredSharedMemoryCarveout, s.carveout));
  }
  ~split_guard() {
    MEMSCOPE_CUDA_CALL_NOEXCEPT(cudaFuncSetCacheConfig(kernel_, cudaFuncCachePreferNone));
    MEMSCOPE_CUDA_CALL_NOEXCEPT(cudaFuncSetAttribute(kernel_, cudaFuncAttributePreferredSharedMemoryCarveout, -1));
  }
  split_guard(const split_guard&) = delete;
  split_guard& operator=(const split_guard&) = delete;

 private:
  Kernel kernel_;
};

struct matmul_policy {
  static constexpr int tile = 32;
  static constexpr std::size_t smem_bytes = 2 * tile * tile * sizeof(float);
  static_assert(smem_bytes <= 48 * 1024, "the tiles must fit the default static shared memory limit");
};

/// C = A B for n x n row-major matrices, one 32x32 tile of C per block, both operands staged
/// through shared memory tile by tile; edges are zero-padded, so any n works.
template <int = 0>
__global__ void __launch_bounds__(matmul_policy::tile* matmul_policy::tile)
    tiled_matmul_kernel(const float* a, const float* b, float* c, int n) {
  constexpr int t = matmul_policy::tile;
  __shared__ float s_a[t][t];
  __shared__ float s_b[t][t];
  const int row = static_cast<int>(blockIdx.y) * t + static_cast<int>(threadIdx.y);
  const int col = static_cast<int>(blockIdx.x) * t + static_cast<int>(threadIdx.x);
  float acc = 0.0f;
  for (int k0 = 0; k0 < n; k0 += t) {
    const int ka = k0 + static_cast<int>(threadIdx.x), kb = k0 + static_cast<int>(threadIdx.y);
    s_a[threadIdx.y][threadIdx.x] = row < n && ka < n ? a[static_cast<std::size_t>(row) * n + ka] : 0.0f;
    s_b[threadIdx.y][threadIdx.x] = kb < n && col < n ? b[static_cast<std::size_t>(kb) * n + col] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < t; ++k) acc = fmaf(s_a[threadIdx.y][k], s_b[k][threadIdx.x], acc);
    __syncthreads();  // the tiles are overwritten next round only after everyone used them
  }
  if (row < n && col < n) c[static_cast<std::size_t>(row) * n + col] = acc;
}

inline void tiled_matmul(const float* a, const float* b, float* c, int n, cudaStream_t s) {
  if (n == 0) return;
  constexpr int t = matmul_policy::tile;
  const auto g = static_cast<unsigned>(ceil_div(static_cast<std::size_t>(n), t));
  tiled_matmul_kernel<><<<dim3(g, g), dim3(t, t), 0, s>>>(a, b, c, n);
  MEMSCOPE_CHECK_LAUNCH("tiled_matmul_kernel");
}

}  // namespace memscope::cache
