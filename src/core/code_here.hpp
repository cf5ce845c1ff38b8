#pragma once
// Which of the binary's GPU code runs on a device, in words: its own machine code, machine code
// built for an older minor revision of the same major architecture (sm_100 code on an sm_103,
// sm_120 on an sm_121), or PTX the driver JIT-compiled on first use.

#include <string>

#include <fmt/format.h>

namespace memscope {

/// What cudaFuncGetAttributes reports for one of the binary's kernels on a device.
struct code_here {
  int ptx = 0;     ///< the virtual architecture the code was compiled from (0: no code for the device)
  int binary = 0;  ///< the machine code's architecture: the cubin's, or the device's own after a JIT
};

/// `cc` is the device's compute capability as major * 10 + minor. Machine code whose architecture
/// differs from its PTX's is read as JIT-compiled: memscope's builds compile each real
/// architecture from its own virtual one (CMake's `86-real` is compute_86 to sm_86).
inline std::string describe_code_here(const code_here& c, int cc) {
  if (c.ptx == 0) return "none: rebuild for this GPU";
  if (c.binary != c.ptx) return fmt::format("sm_{} (JIT-compiled from compute_{} PTX)", c.binary, c.ptx);
  if (c.binary == cc) return fmt::format("sm_{}", c.binary);
  return fmt::format("sm_{} (machine code for an earlier revision; runs unchanged on sm_{})", c.binary, cc);
}

}  // namespace memscope
