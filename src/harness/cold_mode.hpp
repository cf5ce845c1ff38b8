#pragma once
// What L2 holds when a timed sample starts: the regime a run's figures belong to.

#include <string>

namespace memscope {

/// off: whatever the previous launch left (launches back to back, the warm regime).
/// clean (--cold): a read of twice the L2's size evicted everything, and no line is dirty.
/// dirty (--cold=dirty): a write of twice the L2's size left it full of another buffer's dirty
/// lines, as a producer kernel does; the sample pays for their write-back (nvbench's flush).
enum class cold_mode { off, clean, dirty };

/// "clean" or "dirty", the results file's `cold_flush`; meaningful for a cold run only.
inline const char* flush_name(cold_mode m) { return m == cold_mode::dirty ? "dirty" : "clean"; }

/// A sentence for reports: what L2 held at the start of every sample ("" for a warm run).
inline std::string describe(cold_mode m) {
  switch (m) {
    case cold_mode::clean:
      return "L2 at every sample's start: flushed by a read of twice its size, no line dirty (--cold)";
    case cold_mode::dirty:
      return "L2 at every sample's start: full of another buffer's dirty lines, whose write-back each sample pays "
             "(--cold=dirty)";
    case cold_mode::off:
      break;
  }
  return {};
}

}  // namespace memscope
