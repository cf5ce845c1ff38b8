#pragma once
// Two devices the sampler needs around every timed sample, so that what it times is GPU work
// alone: a hold that keeps the stream idle while the host enqueues the launches (nvbench's
// blocking kernel), and an L2 eviction that leaves no dirty line behind (cold runs), or one
// that leaves L2 full of dirty lines (--cold=dirty).

#include "memscope/core/device_buffer.hpp"

#include <cstddef>
#include <optional>

namespace memscope {

/// Holds a stream with a one-thread kernel spinning on a flag in mapped host memory. Between
/// engage() and release() the host enqueues the timed launches; the start event, recorded
/// after the hold, then sees them already queued back to back, so host enqueue and planning
/// time never enter a sample. The kernel gives up after `timeout_s` (the host blocked while
/// the stream was held: a launch that waits for the GPU, a full launch queue, or the first
/// launch of a kernel whose module CUDA's lazy loading must load, which waits for the running
/// hold: the sampler's warm-up launches load every module first) and timed_out() says so; such
/// a sample is not usable.
class stream_hold {
 public:
  explicit stream_hold(double timeout_s = 4.0);
  ~stream_hold();
  stream_hold(const stream_hold&) = delete;
  stream_hold& operator=(const stream_hold&) = delete;

  void engage(cudaStream_t stream);
  void release();
  /// After the stream has synchronised: whether the last hold ended by its timeout.
  bool timed_out() const;

 private:
  volatile int* h_flags_ = nullptr;  // [0] release, [1] timed out
  int* d_flags_ = nullptr;
  unsigned long long timeout_ns_;
};

/// Evicts L2 by streaming reads over a buffer of twice its size: no line the sweep leaves is
/// dirty, so no write-back of the sweep lands in the next timed sample, and lines a timed
/// launch dirtied are written back during the sweep, before the next start event.
/// evict_dirty() writes the buffer instead, as a producer kernel (or nvbench's memset flush)
/// would: the lines a timed launch dirtied are still written back during the sweep, and the
/// next sample starts with an L2 of the sweep's own dirty lines, whose write-back it pays.
class l2_evictor {
 public:
  explicit l2_evictor(std::size_t l2_bytes);
  void evict(cudaStream_t stream);
  void evict_dirty(cudaStream_t stream);
  std::size_t bytes() const { return buffer_.bytes(); }

 private:
  device_buffer<unsigned char> buffer_;
  device_buffer<unsigned> sink_;
  unsigned blocks_ = 1;
};

/// The SM clock over a stretch of stream work (nvbench's GPU-frequency probe, per SM): a stamp
/// kernel with one block per SM records %globaltimer and clock64 on every SM it lands on,
/// before and after the work; an SM stamped both times gives cycles over nanoseconds. Stamps go
/// to mapped host memory, so reading them costs no copy; read() after the stream synchronised.
class sm_clock_probe {
 public:
  sm_clock_probe();
  ~sm_clock_probe();
  sm_clock_probe(const sm_clock_probe&) = delete;
  sm_clock_probe& operator=(const sm_clock_probe&) = delete;

  void start(cudaStream_t stream);
  void stop(cudaStream_t stream);

  struct reading {
    double cycles = 0;  // summed over the SMs stamped both times
    double ns = 0;      // the same SMs' elapsed global time
    double mhz() const { return ns > 0 ? cycles / ns * 1e3 : 0; }
  };
  /// Nothing when no SM was stamped at both ends (or the global timer did not advance).
  std::optional<reading> read() const;

  struct stamp {
    unsigned long long ns, cycles, seq;
  };

 private:
  void launch(cudaStream_t stream, int which);
  stamp* h_stamps_ = nullptr;  // [2][slots]: start, stop
  stamp* d_stamps_ = nullptr;
  int slots_ = 0;
  unsigned blocks_ = 1;
  unsigned long long seq_ = 0;
};

}  // namespace memscope
