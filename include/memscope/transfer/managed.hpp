#pragma once
// Managed (unified) memory: an owner for cudaMallocManaged, and the locations, prefetches and
// hints of CUDA 12.2+'s cudaMemLocation API, spelled once.

#include "memscope/core/cuda_check.hpp"

#include <cstddef>
#include <string>
#include <utility>

namespace memscope::transfer {

inline cudaMemLocation gpu_location(int device) {
  cudaMemLocation l{};
  l.type = cudaMemLocationTypeDevice;
  l.id = device;
  return l;
}

inline cudaMemLocation host_location() {
  cudaMemLocation l{};
  l.type = cudaMemLocationTypeHost;
  l.id = 0;
  return l;
}

inline void prefetch(const void* p, std::size_t bytes, cudaMemLocation to, cudaStream_t stream) {
  if (bytes) MEMSCOPE_CUDA_CALL(cudaMemPrefetchAsync(p, bytes, to, 0, stream));
}

/// Tells the driver that the bytes' contents are no longer needed, then prefetches them to
/// `to`: pages about to be overwritten move without their data. The error is returned, not
/// thrown, so that a caller can skip where the driver lacks it (before CUDA 12.8).
inline cudaError_t try_discard_and_prefetch(void* p, std::size_t bytes, cudaMemLocation to, cudaStream_t stream) {
  if (!bytes) return cudaSuccess;
  void* ptrs[1] = {p};
  std::size_t sizes[1] = {bytes}, first[1] = {0};
  return cudaMemDiscardAndPrefetchBatchAsync(ptrs, sizes, 1, &to, first, 1, 0, stream);
}

inline void discard_and_prefetch(void* p, std::size_t bytes, cudaMemLocation to, cudaStream_t stream) {
  MEMSCOPE_CUDA_CALL(try_discard_and_prefetch(p, bytes, to, stream));
}

/// Why `discard_and_prefetch` cannot run here (empty when it can), tried on the first page of
/// managed memory `p` whose contents may be lost. Synchronises `stream`.
inline std::string discard_unsupported(void* p, std::size_t bytes, cudaMemLocation to, cudaStream_t stream) {
  const cudaError_t e = try_discard_and_prefetch(p, bytes < 4096 ? bytes : 4096, to, stream);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();  // not sticky: the context stays usable
    return std::string("cudaMemDiscardAndPrefetchBatchAsync failed here: ") + cudaGetErrorString(e);
  }
  MEMSCOPE_CUDA_CALL(cudaStreamSynchronize(stream));
  return {};
}

inline void advise(const void* p, std::size_t bytes, cudaMemoryAdvise advice, cudaMemLocation where) {
  if (bytes) MEMSCOPE_CUDA_CALL(cudaMemAdvise(p, bytes, advice, where));
}

/// Prefetches managed pages to `to` leaving no copy anywhere else. A prefetch alone keeps the
/// read-only duplicates of read-mostly pages where they were (measured: the next GPU read ran at
/// device-memory speed), so for `read_mostly` pages the hint is lifted first, which collapses
/// each page to one copy, and set again once the pages have moved (the hint is not
/// stream-ordered: `stream` is synchronised around it).
inline void prefetch_sole_copy(void* p, std::size_t bytes, cudaMemLocation to, bool read_mostly, cudaStream_t stream) {
  if (!bytes) return;
  if (read_mostly) {
    MEMSCOPE_CUDA_CALL(cudaStreamSynchronize(stream));
    advise(p, bytes, cudaMemAdviseUnsetReadMostly, to);
  }
  prefetch(p, bytes, to, stream);
  if (read_mostly) {
    MEMSCOPE_CUDA_CALL(cudaStreamSynchronize(stream));
    advise(p, bytes, cudaMemAdviseSetReadMostly, to);
  }
}

/// Why managed memory cannot be measured on `device` (empty when it can): the prefetches,
/// hints and GPU page faults need concurrent managed access (Pascal or newer, not Windows).
inline std::string managed_unsupported(int device) {
  int managed = 0, concurrent = 0;
  MEMSCOPE_CUDA_CALL(cudaDeviceGetAttribute(&managed, cudaDevAttrManagedMemory, device));
  MEMSCOPE_CUDA_CALL(cudaDeviceGetAttribute(&concurrent, cudaDevAttrConcurrentManagedAccess, device));
  if (!managed) return "this GPU does not support managed memory";
  if (!concurrent)
    return "this system has no concurrent managed access (cudaDevAttrConcurrentManagedAccess = 0): no GPU page faults "
           "or prefetches to measure";
  return {};
}

class managed_buffer {
 public:
  explicit managed_buffer(std::size_t bytes) : bytes_(bytes) {
    if (bytes) MEMSCOPE_CUDA_CALL(cudaMallocManaged(&ptr_, bytes, cudaMemAttachGlobal));
  }
  ~managed_buffer() {
    if (ptr_) MEMSCOPE_CUDA_CALL_NOEXCEPT(cudaFree(ptr_));
  }
  managed_buffer(const managed_buffer&) = delete;
  managed_buffer& operator=(const managed_buffer&) = delete;

  void* data() noexcept { return ptr_; }
  std::size_t bytes() const noexcept { return bytes_; }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

}  // namespace memscope::transfer
