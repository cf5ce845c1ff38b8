#pragma once
// RAII owners for device memory, pinned host memory, streams and events.
// Move-only; destructors never throw (they report instead).

#include "memscope/core/cuda_check.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace memscope {

/// Typed device allocation of `size()` elements; allocation failure names the size asked for.
template <class T>
class device_buffer {
 public:
  device_buffer() = default;
  explicit device_buffer(std::size_t count) : count_(count) {
    if (count == 0) return;
    const cudaError_t rc = cudaMalloc(reinterpret_cast<void**>(&ptr_), count * sizeof(T));
    if (rc != cudaSuccess) {
      (void)cudaGetLastError();
      std::size_t free_b = 0, total_b = 0;
      (void)cudaMemGetInfo(&free_b, &total_b);
      throw cuda_error(rc, "cannot allocate " + std::to_string(count * sizeof(T)) + " bytes of device memory (" +
                               std::to_string(free_b) + " of " + std::to_string(total_b) +
                               " bytes free): " + cudaGetErrorString(rc));
    }
  }
  ~device_buffer() { reset(); }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
  device_buffer(device_buffer&& o) noexcept
      : ptr_(std::exchange(o.ptr_, nullptr)), count_(std::exchange(o.count_, 0)) {}
  device_buffer& operator=(device_buffer&& o) noexcept {
    if (this != &o) {
      reset();
      ptr_ = std::exchange(o.ptr_, nullptr);
      count_ = std::exchange(o.count_, 0);
    }
    return *this;
  }

  T* data() noexcept { return ptr_; }
  const T* data() const noexcept { return ptr_; }
  std::size_t size() const noexcept { return count_; }
  std::size_t bytes() const noexcept { return count_ * sizeof(T); }

  /// Fills every byte with `byte`; 0xFF makes floats NaN, which no correct kernel output equals.
  void poison(cudaStream_t stream = nullptr, int byte = 0xFF) {
    if (count_) MEMSCOPE_CUDA_CALL(cudaMemsetAsync(ptr_, byte, bytes(), stream));
  }

  std::vector<T> to_host() const {
    std::vector<T> h(count_);
    if (count_) MEMSCOPE_CUDA_CALL(cudaMemcpy(h.data(), ptr_, bytes(), cudaMemcpyDeviceToHost));
    return h;
  }
  void from_host(const std::vector<T>& h) {
    if (h.size() != count_) throw std::invalid_argument("device_buffer::from_host: size mismatch");
    if (count_) MEMSCOPE_CUDA_CALL(cudaMemcpy(ptr_, h.data(), bytes(), cudaMemcpyHostToDevice));
  }

 private:
  void reset() noexcept {
    if (ptr_) MEMSCOPE_CUDA_CALL_NOEXCEPT(cudaFree(ptr_));
    ptr_ = nullptr;
    count_ = 0;
  }
  T* ptr_ = nullptr;
  std::size_t count_ = 0;
};

/// Page-locked host memory, for transfers the DMA engines can run at full speed.
template <class T>
class pinned_buffer {
 public:
  pinned_buffer() = default;
  explicit pinned_buffer(std::size_t count) : count_(count) {
    if (count) MEMSCOPE_CUDA_CALL(cudaMallocHost(reinterpret_cast<void**>(&ptr_), count * sizeof(T)));
  }
  ~pinned_buffer() {
    if (ptr_) MEMSCOPE_CUDA_CALL_NOEXCEPT(cudaFreeHost(ptr_));
  }
  pinned_buffer(const pinned_buffer&) = delete;
  pinned_buffer& operator=(const pinned_buffer&) = delete;
  pinned_buffer(pinned_buffer&& o) noexcept
      : ptr_(std::exchange(o.ptr_, nullptr)), count_(std::exchange(o.count_, 0)) {}

  T* data() noexcept { return ptr_; }
  const T* data() const noexcept { return ptr_; }
  std::size_t size() const noexcept { return count_; }
  T& operator[](std::size_t i) noexcept { return ptr_[i]; }
  const T& operator[](std::size_t i) const noexcept { return ptr_[i]; }

 private:
  T* ptr_ = nullptr;
  std::size_t count_ = 0;
};

class cuda_stream {
 public:
  cuda_stream() { MEMSCOPE_CUDA_CALL(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
  ~cuda_stream() {
    if (stream_) MEMSCOPE_CUDA_CALL_NOEXCEPT(cudaStreamDestroy(stream_));
  }
  cuda_stream(const cuda_stream&) = delete;
  cuda_stream& operator=(const cuda_stream&) = delete;
  cuda_stream(cuda_stream&& o) noexcept : stream_(std::exchange(o.stream_, nullptr)) {}

  cudaStream_t get() const noexcept { return stream_; }
  void synchronize() const { MEMSCOPE_CUDA_CALL(cudaStreamSynchronize(stream_)); }

 private:
  cudaStream_t stream_ = nullptr;
};

class cuda_event {
 public:
  cuda_event() { MEMSCOPE_CUDA_CALL(cudaEventCreate(&event_)); }
  ~cuda_event() {
    if (event_) MEMSCOPE_CUDA_CALL_NOEXCEPT(cudaEventDestroy(event_));
  }
  cuda_event(const cuda_event&) = delete;
  cuda_event& operator=(const cuda_event&) = delete;
  cuda_event(cuda_event&& o) noexcept : event_(std::exchange(o.event_, nullptr)) {}

  cudaEvent_t get() const noexcept { return event_; }
  void record(cudaStream_t s) { MEMSCOPE_CUDA_CALL(cudaEventRecord(event_, s)); }
  void synchronize() const { MEMSCOPE_CUDA_CALL(cudaEventSynchronize(event_)); }

  /// Seconds from `start` to this event; both must have completed.
  double seconds_since(const cuda_event& start) const {
    float ms = 0.f;
    MEMSCOPE_CUDA_CALL(cudaEventElapsedTime(&ms, start.event_, event_));
    return static_cast<double>(ms) * 1e-3;
  }

 private:
  cudaEvent_t event_ = nullptr;
};

}  // namespace memscope
