#pragma once
// Grid sizing shared by the launchers.

#include "memscope/core/cuda_check.hpp"

#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace memscope {

constexpr std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

/// Blocks for a grid-stride kernel: enough to fill every SM at the kernel's occupancy, never
/// more than the work needs (`items` units of `items_per_block`). At least one block.
/// The occupancy query is cached per kernel and device: launchers run inside timed loops.
template <class Kernel>
status try_persistent_grid(Kernel kernel, int block_threads, std::size_t dynamic_smem, std::size_t items,
                           std::size_t items_per_block, unsigned& grid) {
  // Keyed by the kernel's address: kernels of one signature share the template instance.
  struct key {
    const void* kernel;
    int device;
    std::size_t smem;
    bool operator==(const key& o) const { return kernel == o.kernel && device == o.device && smem == o.smem; }
  };
  static thread_local std::vector<std::pair<key, int>> cache;
  int device = 0;
  MEMSCOPE_RETURN_IF_CUDA_ERROR(cudaGetDevice(&device));
  const key k{reinterpret_cast<const void*>(kernel), device, dynamic_smem};
  int resident = 0;
  for (const auto& e : cache)
    if (e.first == k) resident = e.second;
  if (resident == 0) {
    int per_sm = 0, sms = 0;
    MEMSCOPE_RETURN_IF_CUDA_ERROR(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, block_threads, dynamic_smem));
    MEMSCOPE_RETURN_IF_CUDA_ERROR(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    if (per_sm == 0)
      return status::invalid("kernel cannot run with " + std::to_string(block_threads) + " threads and " +
                             std::to_string(dynamic_smem) + " bytes of shared memory");
    resident = per_sm * sms;
    cache.emplace_back(k, resident);
  }
  const std::size_t needed = ceil_div(items, items_per_block);
  const std::size_t blocks = needed < static_cast<std::size_t>(resident) ? needed : static_cast<std::size_t>(resident);
  grid = static_cast<unsigned>(blocks > 0 ? blocks : 1);
  return {};
}

template <class Kernel>
unsigned persistent_grid(Kernel kernel, int block_threads, std::size_t dynamic_smem, std::size_t items,
                         std::size_t items_per_block) {
  unsigned grid = 1;
  throw_if_error(try_persistent_grid(kernel, block_threads, dynamic_smem, items, items_per_block, grid));
  return grid;
}

/// Lets `kernel` use `bytes` of dynamic shared memory: above the default 48 KB it must opt in
/// (cudaFuncSetAttribute); above the device's opt-in limit it cannot run at all, and that is
/// a clear error here rather than a failed launch later.
template <class Kernel>
status try_prepare_dynamic_smem(Kernel kernel, std::size_t bytes) {
  int device = 0, optin = 0;
  MEMSCOPE_RETURN_IF_CUDA_ERROR(cudaGetDevice(&device));
  MEMSCOPE_RETURN_IF_CUDA_ERROR(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  if (bytes > static_cast<std::size_t>(optin))
    return status::invalid("kernel needs " + std::to_string(bytes) + " bytes of shared memory per block; this GPU allows " +
                           std::to_string(optin) + " (cudaDevAttrMaxSharedMemoryPerBlockOptin)");
  if (bytes <= 48 * 1024) return {};
  // Only ever raised: lowering it would break a caller that prepared the same kernel for more
  // (the cluster occupancy query sets the opt-in ceiling once and caches its answer).
  cudaFuncAttributes attr{};
  MEMSCOPE_RETURN_IF_CUDA_ERROR(cudaFuncGetAttributes(&attr, kernel));
  if (static_cast<std::size_t>(attr.maxDynamicSharedSizeBytes) < bytes)
    MEMSCOPE_RETURN_IF_CUDA_ERROR(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
  return {};
}

template <class Kernel>
void prepare_dynamic_smem(Kernel kernel, std::size_t bytes) {
  throw_if_error(try_prepare_dynamic_smem(kernel, bytes));
}

}  // namespace memscope
