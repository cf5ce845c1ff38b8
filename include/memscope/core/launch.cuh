#pragma once
// Grid sizing shared by the launchers.

#include "memscope/core/cuda_check.hpp"
#include "memscope/core/memo.hpp"

#include <cstddef>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>

namespace memscope {

__host__ __device__ constexpr std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

/// Blocks of `kernel` the whole GPU holds at once at its occupancy. The occupancy query is
/// cached per kernel and device: launchers run inside timed loops.
template <class Kernel>
status try_resident_blocks(Kernel kernel, int block_threads, std::size_t dynamic_smem, unsigned& resident) {
  // Keyed by the kernel's address: kernels of one signature share the template instance.
  static thread_local memo<std::tuple<const void*, int, std::size_t>, unsigned> cache;
  int device = 0;
  MEMSCOPE_RETURN_IF_CUDA_ERROR(cudaGetDevice(&device));
  return cache.try_get(
      {reinterpret_cast<const void*>(kernel), device, dynamic_smem}, resident, [&](unsigned& v) -> status {
        int per_sm = 0, sms = 0;
        MEMSCOPE_RETURN_IF_CUDA_ERROR(
            cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, block_threads, dynamic_smem));
        MEMSCOPE_RETURN_IF_CUDA_ERROR(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
        if (per_sm == 0)
          return status::invalid("kernel cannot run with " + std::to_string(block_threads) + " threads and " +
                                 std::to_string(dynamic_smem) + " bytes of shared memory");
        v = static_cast<unsigned>(per_sm * sms);
        return {};
      });
}

template <class Kernel>
unsigned resident_blocks(Kernel kernel, int block_threads, std::size_t dynamic_smem) {
  unsigned resident = 1;
  throw_if_error(try_resident_blocks(kernel, block_threads, dynamic_smem, resident));
  return resident;
}

/// Blocks for a grid-stride kernel: enough to fill every SM at the kernel's occupancy, never
/// more than the work needs (`items` units of `items_per_block`). At least one block.
template <class Kernel>
status try_persistent_grid(Kernel kernel, int block_threads, std::size_t dynamic_smem, std::size_t items,
                           std::size_t items_per_block, unsigned& grid) {
  unsigned resident = 0;
  if (auto st = try_resident_blocks(kernel, block_threads, dynamic_smem, resident); !st.ok()) return st;
  const std::size_t needed = ceil_div(items, items_per_block);
  const std::size_t blocks = needed < resident ? needed : resident;
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

/// The most dynamic shared memory `kernel` may use per block: the device's opt-in limit less
/// the kernel's static shared memory (asking for more fails with an invalid value).
template <class Kernel>
status try_dynamic_smem_room(Kernel kernel, std::size_t& room) {
  int device = 0, optin = 0;
  MEMSCOPE_RETURN_IF_CUDA_ERROR(cudaGetDevice(&device));
  MEMSCOPE_RETURN_IF_CUDA_ERROR(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  cudaFuncAttributes attr{};
  MEMSCOPE_RETURN_IF_CUDA_ERROR(cudaFuncGetAttributes(&attr, kernel));
  room = static_cast<std::size_t>(optin) > attr.sharedSizeBytes ? static_cast<std::size_t>(optin) - attr.sharedSizeBytes
                                                                : 0;
  return {};
}

/// Lets `kernel` use `bytes` of dynamic shared memory: above the default 48 KB (static and
/// dynamic together) it must opt in
/// (cudaFuncSetAttribute); above the device's opt-in limit (less the kernel's static shared
/// memory) it cannot run at all, and that is a clear error here rather than a failed launch later.
template <class Kernel>
status try_prepare_dynamic_smem(Kernel kernel, std::size_t bytes) {
  int device = 0, optin = 0;
  MEMSCOPE_RETURN_IF_CUDA_ERROR(cudaGetDevice(&device));
  MEMSCOPE_RETURN_IF_CUDA_ERROR(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  if (bytes > static_cast<std::size_t>(optin))
    return status::invalid("kernel needs " + std::to_string(bytes) +
                           " bytes of shared memory per block; this GPU allows " + std::to_string(optin) +
                           " (cudaDevAttrMaxSharedMemoryPerBlockOptin)");
  cudaFuncAttributes attr{};
  MEMSCOPE_RETURN_IF_CUDA_ERROR(cudaFuncGetAttributes(&attr, kernel));
  // The 48 KB a kernel may use without opting in counts its static shared memory too.
  if (bytes + attr.sharedSizeBytes <= 48 * 1024) return {};
  // Only ever raised: lowering it would break a caller that prepared the same kernel for more
  // (the cluster occupancy query sets the opt-in ceiling once and caches its answer).
  if (bytes + attr.sharedSizeBytes > static_cast<std::size_t>(optin))
    return status::invalid(
        "kernel needs " + std::to_string(bytes) + " bytes of dynamic shared memory per block beside its " +
        std::to_string(attr.sharedSizeBytes) + " static; this GPU allows " + std::to_string(optin) + " in all");
  if (static_cast<std::size_t>(attr.maxDynamicSharedSizeBytes) < bytes)
    MEMSCOPE_RETURN_IF_CUDA_ERROR(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
  return {};
}

template <class Kernel>
void prepare_dynamic_smem(Kernel kernel, std::size_t bytes) {
  throw_if_error(try_prepare_dynamic_smem(kernel, bytes));
}

/// cudaDeviceGetAttribute, cached per device and attribute: for launchers that must ask on
/// every call (a launch's host work is on the timed path).
inline int device_attribute(cudaDeviceAttr attr, int device) {
  static thread_local memo<std::pair<int, int>, int> cache;
  return cache.get({static_cast<int>(attr), device}, [&] {
    int value = 0;
    MEMSCOPE_CUDA_CALL(cudaDeviceGetAttribute(&value, attr, device));
    return value;
  });
}

// ---- programmatic dependent launch (PDL) ---------------------------------------------------
// A kernel launched with programmatic stream serialization may be set up, and start, while
// the kernel before it in the stream drains; it must wait before it reads that kernel's
// output. Hides the gap between two dependent launches (sm_90 and later).

/// Waits until the grid launched before this one in the stream has finished and its writes
/// are visible. Nothing below sm_90, where launch_dependent never launches early.
__device__ __forceinline__ void wait_for_prior_grid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

/// Whether launch_dependent may start `kernel` early on the current device: the GPU is sm_90
/// or later and the kernel was built from PTX 9.0 or later, so its wait_for_prior_grid() is
/// in the code. A kernel JIT-compiled from older PTX (an 80-virtual build on sm_90) has no
/// wait and must be launched the ordinary way, or it would read its input before it is written.
template <class Kernel>
bool programmatic_launch_ok(Kernel kernel) {
  static thread_local memo<std::pair<const void*, int>, bool> cache;
  int device = 0;
  MEMSCOPE_CUDA_CALL(cudaGetDevice(&device));
  return cache.get({reinterpret_cast<const void*>(kernel), device}, [&] {
    cudaFuncAttributes attr{};
    MEMSCOPE_CUDA_CALL(cudaFuncGetAttributes(&attr, kernel));
    return device_attribute(cudaDevAttrComputeCapabilityMajor, device) >= 9 && attr.ptxVersion >= 90;
  });
}

/// kernel<<<grid, block, 0, s>>>(args...), as a programmatic dependent launch where
/// programmatic_launch_ok says it may be; the kernel calls wait_for_prior_grid() before it
/// reads what the previous kernel in `s` wrote.
template <class... Params, class... Args>
void launch_dependent(void (*kernel)(Params...), unsigned grid, unsigned block, cudaStream_t s, Args... args) {
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(grid);
  config.blockDim = dim3(block);
  config.stream = s;
  cudaLaunchAttribute early{};
  early.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  early.val.programmaticStreamSerializationAllowed = 1;
  config.attrs = &early;
  config.numAttrs = programmatic_launch_ok(kernel) ? 1 : 0;
  MEMSCOPE_CUDA_CALL(cudaLaunchKernelEx(&config, kernel, static_cast<Params>(args)...));
}

}  // namespace memscope
