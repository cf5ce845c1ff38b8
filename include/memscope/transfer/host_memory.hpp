#pragma once
// Host memory of the kinds a transfer can start from: pageable (malloc), pinned
// (cudaHostAlloc), write-combined pinned, and pageable memory registered with
// cudaHostRegister. Every pinned kind is mapped, so an SM kernel can read or write it directly
// (zero-copy) through device_pointer().

#include "memscope/core/cuda_check.hpp"

#include <cstddef>
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>

namespace memscope::transfer {

enum class host_kind { pageable, pinned, write_combined, registered };

inline const char* to_string(host_kind k) {
  switch (k) {
    case host_kind::pageable: return "pageable";
    case host_kind::pinned: return "pinned";
    case host_kind::write_combined: return "write_combined";
    case host_kind::registered: return "registered";
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

class host_memory {
 public:
  host_memory() = default;
  /// Throws memscope::cuda_error naming the size where the host cannot pin that much, and
  /// std::runtime_error where it cannot allocate it at all.
  host_memory(host_kind kind, std::size_t bytes) : kind_(kind), bytes_(bytes) {
    if (bytes == 0) return;
    constexpr std::size_t page = 4096;
    const std::size_t rounded = (bytes + page - 1) / page * page;
    const auto fail = [&](cudaError_t rc, const char* what) {
      (void)cudaGetLastError();
      release();
      MEMSCOPE_THROW(cuda_error(rc, std::string("cannot ") + what + " " + std::to_string(bytes) + " bytes of host memory (" +
                                        to_string(kind) + "): " + cudaGetErrorName(rc) + " (" + cudaGetErrorString(rc) +
                                        ")"));
    };
    switch (kind) {
      case host_kind::pageable:
      case host_kind::registered:
        ptr_ = std::aligned_alloc(page, rounded);
        if (ptr_ == nullptr)
          MEMSCOPE_THROW(std::runtime_error("cannot allocate " + std::to_string(bytes) + " bytes of host memory"));
        if (kind == host_kind::registered) {
          const cudaError_t rc = cudaHostRegister(ptr_, rounded, cudaHostRegisterMapped);
          if (rc != cudaSuccess) fail(rc, "register");
          registered_ = true;
        }
        break;
      case host_kind::pinned:
      case host_kind::write_combined: {
        const unsigned flags = cudaHostAllocMapped | (kind == host_kind::write_combined ? cudaHostAllocWriteCombined : 0u);
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

 private:
  void release() noexcept {
    if (ptr_ == nullptr) return;
    if (kind_ == host_kind::pinned || kind_ == host_kind::write_combined) {
      MEMSCOPE_CUDA_CALL_NOEXCEPT(cudaFreeHost(ptr_));
    } else {
      if (registered_) MEMSCOPE_CUDA_CALL_NOEXCEPT(cudaHostUnregister(ptr_));
      std::free(ptr_);
    }
    ptr_ = nullptr;
    device_ptr_ = nullptr;
    registered_ = false;
  }
  host_kind kind_ = host_kind::pageable;
  std::size_t bytes_ = 0;
  void* ptr_ = nullptr;
  void* device_ptr_ = nullptr;
  bool registered_ = false;
};

}  // namespace memscope::transfer
