#pragma once
// Host memory of the kinds a transfer can start from: pageable (malloc), pinned
// (cudaHostAlloc), write-combined pinned, and pageable memory registered with
// cudaHostRegister. Every pinned kind is mapped, so an SM kernel can read or write it directly
// (zero-copy) through device_pointer(). Any kind can be placed on a chosen NUMA node.

#include "memscope/core/cuda_check.hpp"
#include "memscope/transfer/numa.hpp"

#include <cstddef>
#include <cstdlib>
#include <stdexcept>
#include <optional>
#include <string>
#include <utility>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace memscope::transfer {

enum class host_kind { pageable, pinned, write_combined, registered };

inline const char* to_string(host_kind k) {
  switch (k) {
    case host_kind::pageable:
      return "pageable";
    case host_kind::pinned:
      return "pinned";
    case host_kind::write_combined:
      return "write_combined";
    case host_kind::registered:
      return "registered";
  }
  return "?";
}

inline std::optional<host_kind> host_kind_from(const std::string& s) {
  for (auto k : {host_kind::pageable, host_kind::pinned, host_kind::write_combined, host_kind::registered})
    if (s == to_string(k)) return k;
  return std::nullopt;
}

/// Whether the GPU can address this kind directly (page-locked and mapped).
constexpr bool is_mapped(host_kind k) { return k != host_kind::pageable; }

/// The system would not place memory on the NUMA node asked for (no such node, a container that
/// forbids memory policies).
class numa_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class host_memory {
 public:
  host_memory() = default;
  /// `numa_node` >= 0 places the pages on that node (pageable and registered memory are then
  /// mapped by memscope and bound with mbind; pinned memory is allocated under the thread's
  /// binding). Throws memscope::cuda_error naming the size where the host cannot pin that
  /// much, numa_error where the node cannot be bound, and std::runtime_error where the memory
  /// cannot be allocated at all.
  host_memory(host_kind kind, std::size_t bytes, int numa_node = -1) : kind_(kind), bytes_(bytes) {
    if (bytes == 0) return;
    constexpr std::size_t page = 4096;
    const std::size_t rounded = (bytes + page - 1) / page * page;
    const auto fail = [&](cudaError_t rc, const char* what) {
      (void)cudaGetLastError();
      release();
      MEMSCOPE_THROW(cuda_error(rc, std::string("cannot ") + what + " " + std::to_string(bytes) +
                                        " bytes of host memory (" + to_string(kind) + "): " + cudaGetErrorName(rc) +
                                        " (" + cudaGetErrorString(rc) + ")"));
    };
    switch (kind) {
      case host_kind::pageable:
      case host_kind::registered:
        if (numa_node >= 0) {
          map_on_node(rounded, numa_node);
        } else {
          ptr_ = std::aligned_alloc(page, rounded);
          if (ptr_ == nullptr)
            MEMSCOPE_THROW(std::runtime_error("cannot allocate " + std::to_string(bytes) + " bytes of host memory"));
        }
        if (kind == host_kind::registered) {
          const cudaError_t rc = cudaHostRegister(ptr_, rounded, cudaHostRegisterMapped);
          if (rc != cudaSuccess) fail(rc, "register");
          registered_ = true;
        }
        break;
      case host_kind::pinned:
      case host_kind::write_combined: {
        const unsigned flags =
            cudaHostAllocMapped | (kind == host_kind::write_combined ? cudaHostAllocWriteCombined : 0u);
        // The driver allocates and pins the pages inside the call, on the calling thread's policy.
        std::optional<thread_numa_binding> bound;
        if (numa_node >= 0) {
          bound.emplace(numa_node);
          if (!bound->error().empty())
            MEMSCOPE_THROW(numa_error("cannot place pinned memory on NUMA node " + std::to_string(numa_node) + ": " +
                                      bound->error()));
        }
        const cudaError_t rc = cudaHostAlloc(&ptr_, bytes, flags);
        if (rc != cudaSuccess) {
          ptr_ = nullptr;
          fail(rc, "pin");
        }
        break;
      }
    }
    if (is_mapped(kind)) MEMSCOPE_CUDA_CALL(cudaHostGetDevicePointer(&device_ptr_, ptr_, 0));
  }
  ~host_memory() { release(); }
  host_memory(const host_memory&) = delete;
  host_memory& operator=(const host_memory&) = delete;
  host_memory(host_memory&& o) noexcept { *this = std::move(o); }
  host_memory& operator=(host_memory&& o) noexcept {
    if (this != &o) {
      release();
      kind_ = o.kind_;
      bytes_ = std::exchange(o.bytes_, 0);
      mapped_bytes_ = std::exchange(o.mapped_bytes_, 0);
      ptr_ = std::exchange(o.ptr_, nullptr);
      device_ptr_ = std::exchange(o.device_ptr_, nullptr);
      registered_ = std::exchange(o.registered_, false);
    }
    return *this;
  }

  host_kind kind() const noexcept { return kind_; }
  void* data() noexcept { return ptr_; }
  const void* data() const noexcept { return ptr_; }
  std::size_t bytes() const noexcept { return bytes_; }
  /// The address kernels use for this memory (zero-copy); nullptr for pageable memory.
  void* device_pointer() const noexcept { return device_ptr_; }
  /// The NUMA node of the first page, once touched; below 0 where it is not known.
  int first_page_node() const noexcept { return ptr_ ? node_of_page(ptr_) : -1; }

 private:
  void map_on_node(std::size_t rounded, int node) {
#if defined(__linux__)
    void* p = mmap(nullptr, rounded, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
      MEMSCOPE_THROW(std::runtime_error("cannot map " + std::to_string(rounded) + " bytes of host memory"));
    ptr_ = p;
    mapped_bytes_ = rounded;
    if (const auto why = bind_range(p, rounded, node); !why.empty()) {
      release();
      MEMSCOPE_THROW(numa_error("cannot place host memory on NUMA node " + std::to_string(node) + ": " + why));
    }
#else
    (void)rounded;
    MEMSCOPE_THROW(numa_error("cannot place host memory on NUMA node " + std::to_string(node) + ": Linux only"));
#endif
  }

  void release() noexcept {
    if (ptr_ == nullptr) return;
    if (kind_ == host_kind::pinned || kind_ == host_kind::write_combined) {
      MEMSCOPE_CUDA_CALL_NOEXCEPT(cudaFreeHost(ptr_));
    } else {
      if (registered_) MEMSCOPE_CUDA_CALL_NOEXCEPT(cudaHostUnregister(ptr_));
#if defined(__linux__)
      if (mapped_bytes_) munmap(ptr_, mapped_bytes_);
      else
#endif
        std::free(ptr_);
    }
    mapped_bytes_ = 0;
    ptr_ = nullptr;
    device_ptr_ = nullptr;
    registered_ = false;
  }
  host_kind kind_ = host_kind::pageable;
  std::size_t bytes_ = 0;
  std::size_t mapped_bytes_ = 0;  // memory memscope mapped itself (placed on a NUMA node)
  void* ptr_ = nullptr;
  void* device_ptr_ = nullptr;
  bool registered_ = false;
};

}  // namespace memscope::transfer
