#include "core/device_query.hpp"

#include "memscope/core/cuda_check.hpp"
#include "memscope/dsmem/cluster_launch.cuh"
#include "memscope/version.hpp"

#include <cstdio>

namespace memscope {
namespace {

// A do-nothing kernel: the cluster occupancy queries need a function to ask about.
__global__ void cluster_probe_kernel() {}

int attribute(cudaDeviceAttr attr, int ordinal) {
  int v = 0;
  MEMSCOPE_CUDA_CALL(cudaDeviceGetAttribute(&v, attr, ordinal));
  return v;
}

int max_cluster_size(const device_info& d, bool non_portable) {
  if (!d.cluster_launch) return 0;
  if (non_portable)
    MEMSCOPE_CUDA_CALL(cudaFuncSetAttribute(cluster_probe_kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(static_cast<unsigned>(d.sm_count) * 2);
  cfg.blockDim = dim3(128);
  int size = 0;
  MEMSCOPE_CUDA_CALL(cudaOccupancyMaxPotentialClusterSize(&size, cluster_probe_kernel, &cfg));
  if (non_portable)
    MEMSCOPE_CUDA_CALL(cudaFuncSetAttribute(cluster_probe_kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 0));
  return size;
}

std::string format_uuid(const cudaUUID_t& u) {
  static const char* hex = "0123456789abcdef";
  std::string s = "GPU-";
  for (int i = 0; i < 16; ++i) {
    const auto b = static_cast<unsigned char>(u.bytes[i]);
    s += hex[b >> 4];
    s += hex[b & 15];
    if (i == 3 || i == 5 || i == 7 || i == 9) s += '-';
  }
  return s;
}

}  // namespace

int require_devices() {
  int count = 0;
  const cudaError_t rc = cudaGetDeviceCount(&count);
  if (rc != cudaSuccess || count == 0) {
    (void)cudaGetLastError();
    std::string why = rc == cudaSuccess ? "the driver reports no CUDA device"
                                        : std::string(cudaGetErrorName(rc)) + ": " + cudaGetErrorString(rc);
    throw no_device_error("no usable CUDA GPU (" + why + ")");
  }
  return count;
}

void select_device(int ordinal) {
  const int count = require_devices();
  if (ordinal < 0 || ordinal >= count)
    throw no_device_error("--device " + std::to_string(ordinal) + " is out of range: this machine has " +
                          std::to_string(count) + " CUDA device" + (count == 1 ? "" : "s") + " (0.." +
                          std::to_string(count - 1) + ")");
  MEMSCOPE_CUDA_CALL(cudaSetDevice(ordinal));
  MEMSCOPE_CUDA_CALL(cudaFree(nullptr));  // create the context now, not inside a timed region
}

device_info query_device_info(int ordinal) {
  select_device(ordinal);
  cudaDeviceProp p{};
  MEMSCOPE_CUDA_CALL(cudaGetDeviceProperties(&p, ordinal));
  device_info d;
  d.ordinal = ordinal;
  d.name = p.name;
  d.uuid = format_uuid(p.uuid);
  d.cc_major = p.major;
  d.cc_minor = p.minor;
  d.sm_count = p.multiProcessorCount;
  // CUDA 13 removed clockRate/memoryClockRate from cudaDeviceProp: read the attributes.
  d.sm_clock_khz = attribute(cudaDevAttrClockRate, ordinal);
  d.memory_clock_khz = attribute(cudaDevAttrMemoryClockRate, ordinal);
  d.memory_bus_width_bits = p.memoryBusWidth;
  d.theoretical_dram_gbps = 2.0 * d.memory_clock_khz * 1e3 * (d.memory_bus_width_bits / 8.0) / 1e9;
  d.total_global_mem = p.totalGlobalMem;
  d.total_const_mem = static_cast<std::size_t>(attribute(cudaDevAttrTotalConstantMemory, ordinal));
  d.l2_bytes = p.l2CacheSize;
  d.persisting_l2_max_bytes = p.persistingL2CacheMaxSize;
  d.access_policy_max_window_bytes = p.accessPolicyMaxWindowSize;
  d.shared_per_block = p.sharedMemPerBlock;
  d.shared_per_block_optin = p.sharedMemPerBlockOptin;
  d.shared_per_sm = p.sharedMemPerMultiprocessor;
  d.reserved_shared_per_block = p.reservedSharedMemPerBlock;
  d.regs_per_sm = p.regsPerMultiprocessor;
  d.regs_per_block = p.regsPerBlock;
  d.max_threads_per_block = p.maxThreadsPerBlock;
  d.max_threads_per_sm = p.maxThreadsPerMultiProcessor;
  d.max_blocks_per_sm = p.maxBlocksPerMultiProcessor;
  d.warp_size = p.warpSize;
  d.global_l1_cache = p.globalL1CacheSupported != 0;
  d.ecc_enabled = p.ECCEnabled != 0;
  // Usable clusters: the device launches them and this binary's code has the instructions
  // (memscope built for sm_80 and JIT-compiled on Hopper has not; its suites then skip).
  d.cluster_launch = attribute(cudaDevAttrClusterLaunch, ordinal) != 0 && compiled_arch(cluster_probe_kernel) >= 90;
  d.pci_bus_id = p.pciBusID;
  MEMSCOPE_CUDA_CALL(cudaDriverGetVersion(&d.driver_version));
  MEMSCOPE_CUDA_CALL(cudaRuntimeGetVersion(&d.runtime_version));
  d.max_cluster_size_portable = max_cluster_size(d, false);
  d.max_cluster_size_nonportable = max_cluster_size(d, true);
  return d;
}

int binary_arch() { return compiled_arch(cluster_probe_kernel); }

code_here binary_code() {
  code_here c;
  c.ptx = binary_arch();
  if (c.ptx == 0) return c;
  cudaFuncAttributes a{};
  MEMSCOPE_CUDA_CALL(cudaFuncGetAttributes(&a, reinterpret_cast<const void*>(cluster_probe_kernel)));
  c.binary = a.binaryVersion;
  return c;
}

void require_code_for_device(const device_info& d) {
  if (binary_arch() > 0) return;
  throw no_code_error("this memscope holds GPU code for CUDA architectures " + std::string(cuda_architectures) +
                      " only; " + d.name + " is sm_" + std::to_string(d.cc_major) + std::to_string(d.cc_minor) +
                      ": rebuild for it with MEMSCOPE_CMAKE_ARGS=-DCMAKE_CUDA_ARCHITECTURES=" +
                      std::to_string(d.cc_major) + std::to_string(d.cc_minor) + " scripts/setup.sh");
}

std::string cluster_skip_reason(const device_info& d) {
  if (d.cc_major >= 9 && binary_arch() < 90)
    return "this build's code was compiled for sm_" + std::to_string(binary_arch()) + " (CUDA architectures " +
           std::string(cuda_architectures) + "), which has no thread-block clusters; rebuild with 90 among them";
  return "this GPU has no thread-block clusters (compute capability 9.0 or newer)";
}

}  // namespace memscope
