#pragma once
// What L2 holds when a timed sample starts: the regime a run's figures belong to.

#include <optional>
#include <string>
#include <string_view>

namespace memscope {

/// off: whatever the previous launch left (launches back to back, the warm regime).
/// clean (--cold): a read of twice the L2's size evicted everything, and no line is dirty.
/// dirty (--cold=dirty): a write of twice the L2's size left it full of another buffer's dirty
/// lines, as a producer kernel does; the sample pays for their write-back (nvbench's flush).
enum class cold_mode { off, clean, dirty };

/// "warm", "clean" or "dirty": the CSV's `l2_start`; a cold run's `cold_flush` and `--cold=` value.
inline const char* to_string(cold_mode m) {
  return m == cold_mode::dirty ? "dirty" : m == cold_mode::clean ? "clean" : "warm";
}

/// A cold flush by its name ("clean" or "dirty"), as --cold=, the results file and the journal
/// spell it; nothing for any other text.
inline std::optional<cold_mode> flush_from(std::string_view name) {
  if (name == "clean") return cold_mode::clean;
  if (name == "dirty") return cold_mode::dirty;
  return std::nullopt;
}

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
