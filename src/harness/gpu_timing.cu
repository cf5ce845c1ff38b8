#include "harness/gpu_timing.hpp"

#include "memscope/core/sm_id.cuh"

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace memscope {
namespace {

__device__ unsigned long long global_ns() {
  unsigned long long t = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void stream_hold_kernel(volatile int* flags, unsigned long long timeout_ns) {
  const unsigned long long t0 = global_ns();
  while (flags[0] == 0) {
    if (global_ns() - t0 > timeout_ns) {
      flags[1] = 1;
      return;
    }
  }
}

__global__ void l2_evict_kernel(const uint4* __restrict__ buf, std::size_t n, unsigned* sink) {
  unsigned acc = 0;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x) {
    const uint4 v = buf[i];
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  // The buffer holds one byte value everywhere, so this never writes: the loads stay live,
  // and the sweep dirties nothing.
  if (acc == 0x9E3779B9u) *sink = acc;
}

// The same sweep writing: L2 is left holding the buffer's last lines, all dirty. The byte
// value is the evict sweep's, so a clean sweep after a dirty one still never writes its sink.
__global__ void l2_dirty_kernel(uint4* __restrict__ buf, std::size_t n) {
  const uint4 v = make_uint4(0x5A5A5A5Au, 0x5A5A5A5Au, 0x5A5A5A5Au, 0x5A5A5A5Au);
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x)
    buf[i] = v;
}

// One block per SM: the block's first thread stamps its SM's slot (SM ids may run past the SM
// count, so slots cover %nsmid's range and anything beyond is left out).
__global__ void clock_stamp_kernel(sm_clock_probe::stamp* out, int slots, unsigned long long seq) {
  if (threadIdx.x != 0) return;
  const unsigned smid = sm_id();
  if (smid >= static_cast<unsigned>(slots)) return;
  const unsigned long long ns = global_ns();
  const unsigned long long cycles = clock64();
  volatile sm_clock_probe::stamp* s = out + smid;
  s->ns = ns;
  s->cycles = cycles;
  s->seq = seq;
}

}  // namespace

sm_clock_probe::sm_clock_probe() {
  int device = 0, sms = 0;
  MEMSCOPE_CUDA_CALL(cudaGetDevice(&device));
  MEMSCOPE_CUDA_CALL(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  blocks_ = static_cast<unsigned>(std::max(sms, 1));
  slots_ = std::max(4 * sms, 256);
  void* h = nullptr;
  const std::size_t bytes = 2 * static_cast<std::size_t>(slots_) * sizeof(stamp);
  MEMSCOPE_CUDA_CALL(cudaHostAlloc(&h, bytes, cudaHostAllocMapped | cudaHostAllocPortable));
  std::memset(h, 0, bytes);
  h_stamps_ = static_cast<stamp*>(h);
  MEMSCOPE_CUDA_CALL(cudaHostGetDevicePointer(reinterpret_cast<void**>(&d_stamps_), h, 0));
  // Loaded now, outside any held stream: lazy module loading would wait for a running hold.
  start(nullptr);
  stop(nullptr);
  MEMSCOPE_CUDA_CALL(cudaDeviceSynchronize());
}

sm_clock_probe::~sm_clock_probe() {
  if (h_stamps_) MEMSCOPE_CUDA_CALL_NOEXCEPT(cudaFreeHost(h_stamps_));
}

void sm_clock_probe::launch(cudaStream_t stream, int which) {
  clock_stamp_kernel<<<blocks_, 32, 0, stream>>>(d_stamps_ + static_cast<std::size_t>(which) * slots_, slots_, seq_);
  MEMSCOPE_CHECK_LAUNCH("clock_stamp_kernel");
}

void sm_clock_probe::start(cudaStream_t stream) {
  ++seq_;
  launch(stream, 0);
}

void sm_clock_probe::stop(cudaStream_t stream) { launch(stream, 1); }

std::optional<sm_clock_probe::reading> sm_clock_probe::read() const {
  reading r;
  const volatile stamp* a = h_stamps_;
  const volatile stamp* b = h_stamps_ + slots_;
  for (int i = 0; i < slots_; ++i) {
    if (a[i].seq != seq_ || b[i].seq != seq_ || b[i].ns <= a[i].ns || b[i].cycles < a[i].cycles) continue;
    r.cycles += static_cast<double>(b[i].cycles - a[i].cycles);
    r.ns += static_cast<double>(b[i].ns - a[i].ns);
  }
  if (!(r.ns > 0)) return std::nullopt;
  return r;
}

stream_hold::stream_hold(double timeout_s) : timeout_ns_(static_cast<unsigned long long>(timeout_s * 1e9)) {
  void* h = nullptr;
  MEMSCOPE_CUDA_CALL(cudaHostAlloc(&h, 2 * sizeof(int), cudaHostAllocMapped | cudaHostAllocPortable));
  h_flags_ = static_cast<volatile int*>(h);
  h_flags_[0] = 1;
  h_flags_[1] = 0;
  MEMSCOPE_CUDA_CALL(cudaHostGetDevicePointer(reinterpret_cast<void**>(&d_flags_), h, 0));
}

stream_hold::~stream_hold() {
  if (h_flags_) {
    h_flags_[0] = 1;  // never leave a kernel spinning
    MEMSCOPE_CUDA_CALL_NOEXCEPT(cudaFreeHost(const_cast<int*>(h_flags_)));
  }
}

void stream_hold::engage(cudaStream_t stream) {
  h_flags_[0] = 0;
  h_flags_[1] = 0;
  stream_hold_kernel<<<1, 1, 0, stream>>>(d_flags_, timeout_ns_);
  MEMSCOPE_CHECK_LAUNCH("stream_hold_kernel");
}

void stream_hold::release() { h_flags_[0] = 1; }

bool stream_hold::timed_out() const { return h_flags_[1] != 0; }

l2_evictor::l2_evictor(std::size_t l2_bytes) : buffer_(2 * std::max<std::size_t>(l2_bytes, 1 << 20)), sink_(1) {
  int device = 0, sms = 0;
  MEMSCOPE_CUDA_CALL(cudaGetDevice(&device));
  MEMSCOPE_CUDA_CALL(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  blocks_ = static_cast<unsigned>(std::max(sms, 1)) * 4;
  MEMSCOPE_CUDA_CALL(cudaMemset(buffer_.data(), 0x5A, buffer_.bytes()));
  MEMSCOPE_CUDA_CALL(cudaDeviceSynchronize());
}

void l2_evictor::evict(cudaStream_t stream) {
  l2_evict_kernel<<<blocks_, 512, 0, stream>>>(reinterpret_cast<const uint4*>(buffer_.data()),
                                               buffer_.bytes() / sizeof(uint4), sink_.data());
  MEMSCOPE_CHECK_LAUNCH("l2_evict_kernel");
}

void l2_evictor::evict_dirty(cudaStream_t stream) {
  l2_dirty_kernel<<<blocks_, 512, 0, stream>>>(reinterpret_cast<uint4*>(buffer_.data()),
                                               buffer_.bytes() / sizeof(uint4));
  MEMSCOPE_CHECK_LAUNCH("l2_dirty_kernel");
}

}  // namespace memscope
