#pragma once
// Launching thread-block clusters (compute capability 9.0+): the cluster dimension is a launch
// attribute of cudaLaunchKernelEx, and whether a cluster can run at all is an occupancy
// question (cudaOccupancyMaxActiveClusters), not a device constant: it depends on the
// kernel's shared memory and registers, and on how many SMs each GPC has.

#include "memscope/core/cuda_check.hpp"
#include "memscope/core/launch.cuh"
#include "memscope/core/memo.hpp"
#include "memscope/core/placement.hpp"

#include <cstddef>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>

namespace memscope {

/// The architecture (major x 10 + minor, e.g. 80, 90) whose instructions the code of `kernel`
/// that runs on the current device was compiled from: cudaFuncAttributes::ptxVersion, which is
/// __CUDA_ARCH__ / 10 of that code. A binary built for sm_80 and JIT-compiled on sm_90 says
/// 80 here (its binaryVersion says 90). 0 when the binary holds no code for this device.
/// Cached per kernel and device.
template <class Kernel>
status try_compiled_arch(Kernel kernel, int& arch) {
  static thread_local memo<std::pair<const void*, int>, int> cache;
  int device = 0;
  MEMSCOPE_RETURN_IF_CUDA_ERROR(cudaGetDevice(&device));
  return cache.try_get({reinterpret_cast<const void*>(kernel), device}, arch, [&](int& v) -> status {
    cudaFuncAttributes a{};
    const cudaError_t rc = cudaFuncGetAttributes(&a, reinterpret_cast<const void*>(kernel));
    if (rc == cudaErrorNoKernelImageForDevice || rc == cudaErrorInvalidDeviceFunction) {
      (void)cudaGetLastError();
      v = 0;
      return {};
    }
    MEMSCOPE_RETURN_IF_CUDA_ERROR(rc);
    v = a.ptxVersion;
    return {};
  });
}

template <class Kernel>
int compiled_arch(Kernel kernel) {
  int arch = 0;
  throw_if_error(try_compiled_arch(kernel, arch));
  return arch;
}

/// Whether `kernel` may be launched in clusters here: the device launches clusters and the
/// kernel's code was compiled for sm_90 or newer. Code compiled for an older architecture has
/// no cluster instructions (memscope's cluster kernels trap there), even on a Hopper GPU.
template <class Kernel>
status try_clusters_usable(Kernel kernel, bool& usable) {
  int device = 0, cluster = 0, arch = 0;
  MEMSCOPE_RETURN_IF_CUDA_ERROR(cudaGetDevice(&device));
  MEMSCOPE_RETURN_IF_CUDA_ERROR(cudaDeviceGetAttribute(&cluster, cudaDevAttrClusterLaunch, device));
  MEMSCOPE_RETURN_IF_ERROR(try_compiled_arch(kernel, arch));
  usable = cluster != 0 && arch >= 90;
  return {};
}

template <class Kernel>
bool clusters_usable(Kernel kernel) {
  bool usable = false;
  throw_if_error(try_clusters_usable(kernel, usable));
  return usable;
}

/// A launch configuration with a cluster of `cluster_size` blocks along x; `attr` must outlive it.
inline cudaLaunchConfig_t cluster_config(dim3 grid, dim3 block, int cluster_size, std::size_t smem, cudaStream_t stream,
                                         cudaLaunchAttribute& attr) {
  attr = {};
  attr.id = cudaLaunchAttributeClusterDimension;
  attr.val.clusterDim.x = static_cast<unsigned>(cluster_size);
  attr.val.clusterDim.y = 1;
  attr.val.clusterDim.z = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = smem;
  config.stream = stream;
  config.attrs = &attr;
  config.numAttrs = 1;
  return config;
}

/// Lets `kernel` run in clusters above the portable 8 blocks where the GPU allows it.
template <class Kernel>
status try_allow_nonportable_clusters(Kernel kernel, int cluster_size) {
  if (cluster_size > 8)
    MEMSCOPE_RETURN_IF_CUDA_ERROR(cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  return {};
}

/// How many clusters of `cluster_size` blocks (`block_threads` threads and `smem` bytes of
/// dynamic shared memory each) the GPU runs at once; 0 when none can be co-scheduled.
/// Cached per kernel, device and shape: launchers call it inside timed loops.
template <class Kernel>
status try_max_active_clusters(Kernel kernel, int block_threads, int cluster_size, std::size_t smem, int& clusters) {
  static thread_local memo<std::tuple<const void*, int, int, int, std::size_t>, int> cache;
  int device = 0;
  MEMSCOPE_RETURN_IF_CUDA_ERROR(cudaGetDevice(&device));
  return cache.try_get({reinterpret_cast<const void*>(kernel), device, block_threads, cluster_size, smem}, clusters,
                       [&](int& v) -> status {
                         // The kernel's whole room, not `smem`: the attribute is per kernel, and a later query for
                         // less shared memory must not lower it under a size an earlier query approved for launch.
                         std::size_t room = 0;
                         MEMSCOPE_RETURN_IF_ERROR(try_dynamic_smem_room(kernel, room));
                         v = 0;
                         if (smem > room) return {};
                         MEMSCOPE_RETURN_IF_ERROR(try_prepare_dynamic_smem(kernel, room));
                         MEMSCOPE_RETURN_IF_ERROR(try_allow_nonportable_clusters(kernel, cluster_size));
                         cudaLaunchAttribute attr;
                         const cudaLaunchConfig_t config = cluster_config(dim3(static_cast<unsigned>(cluster_size)),
                                                                          dim3(static_cast<unsigned>(block_threads)),
                                                                          cluster_size, smem, nullptr, attr);
                         // A cluster shape the GPU cannot take at all is an answer (0), not a failure.
                         if (cudaOccupancyMaxActiveClusters(&v, kernel, &config) != cudaSuccess) {
                           (void)cudaGetLastError();
                           v = 0;
                         }
                         return {};
                       });
}

template <class Kernel>
int max_active_clusters(Kernel kernel, int block_threads, int cluster_size, std::size_t smem) {
  int clusters = 0;
  throw_if_error(try_max_active_clusters(kernel, block_threads, cluster_size, smem, clusters));
  return clusters;
}

/// How a latency measurement launches clusters of `cluster_size` blocks of `kernel`: with each
/// block alone on its SM where the GPU holds such clusters (placement.hpp; the kernel's static
/// shared memory counts), else with `needed` bytes, where blocks may share SMs. smem: the
/// dynamic shared memory to launch with; clusters: how many run at once (0: none can).
struct cluster_placement {
  std::size_t smem = 0;
  int clusters = 0;
  bool sole = false;  // each block alone on its SM
};

template <class Kernel>
cluster_placement place_one_block_per_sm(Kernel kernel, int block_threads, int cluster_size, std::size_t needed) {
  int device = 0;
  MEMSCOPE_CUDA_CALL(cudaGetDevice(&device));
  cudaFuncAttributes attr{};
  MEMSCOPE_CUDA_CALL(cudaFuncGetAttributes(&attr, kernel));
  const auto per_sm = static_cast<std::size_t>(device_attribute(cudaDevAttrMaxSharedMemoryPerMultiprocessor, device));
  const auto reserved = static_cast<std::size_t>(device_attribute(cudaDevAttrReservedSharedMemoryPerBlock, device));
  cluster_placement p;
  p.smem = sole_block_smem(needed, per_sm, reserved, attr.sharedSizeBytes);
  p.clusters = max_active_clusters(kernel, block_threads, cluster_size, p.smem);
  if (p.clusters == 0) {
    p.smem = needed;
    p.clusters = max_active_clusters(kernel, block_threads, cluster_size, p.smem);
  }
  p.sole = p.clusters > 0 && keeps_sm_alone(p.smem, per_sm, reserved, attr.sharedSizeBytes);
  return p;
}

/// Enqueues kernel<<<grid, block, smem, stream>>> in clusters of `cluster_size` blocks along x
/// (grid.x must be a multiple). The caller has prepared the kernel (max_active_clusters does).
/// Refuses (invalid argument), before anything is enqueued, where clusters_usable(kernel) is
/// false: a cluster kernel compiled below sm_90 would trap and lose the context.
template <class... Params, class... Args>
status try_launch_cluster(void (*kernel)(Params...), dim3 grid, dim3 block, int cluster_size, std::size_t smem,
                          cudaStream_t stream, Args&&... args) {
  bool usable = false;
  MEMSCOPE_RETURN_IF_ERROR(try_clusters_usable(kernel, usable));
  if (!usable) {
    int arch = 0;
    MEMSCOPE_RETURN_IF_ERROR(try_compiled_arch(kernel, arch));
    return status::invalid(
        "a cluster launch needs a GPU with thread-block clusters and code compiled for sm_90 or newer "
        "(this kernel's code: sm_" +
        std::to_string(arch) + ")");
  }
  cudaLaunchAttribute attr;
  const cudaLaunchConfig_t config = cluster_config(grid, block, cluster_size, smem, stream, attr);
  MEMSCOPE_RETURN_IF_CUDA_ERROR(cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...));
  return {};
}

template <class... Params, class... Args>
void launch_cluster(void (*kernel)(Params...), dim3 grid, dim3 block, int cluster_size, std::size_t smem,
                    cudaStream_t stream, Args&&... args) {
  throw_if_error(try_launch_cluster(kernel, grid, block, cluster_size, smem, stream, std::forward<Args>(args)...));
}

}  // namespace memscope
