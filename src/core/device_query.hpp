#pragma once
// Opening a device and describing it. Errors (no GPU, no driver, bad ordinal) are
// memscope::usage_error-style exceptions with one clear line.

#include "core/code_here.hpp"
#include "memscope/core/device_info.hpp"

#include <stdexcept>
#include <string>

namespace memscope {

/// The machine cannot run GPU work: no driver, no device, or the ordinal does not exist.
class no_device_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Number of usable GPUs; throws no_device_error with the reason when there are none.
int require_devices();

/// Selects `ordinal` (after checking it exists) and creates its context.
void select_device(int ordinal);

/// Describes `ordinal`, including the cluster limits the occupancy API reports. Its
/// cluster_launch is true only where this binary's code can use clusters there.
device_info query_device_info(int ordinal);

/// The architecture this binary's code for the current device was compiled from (80 for a
/// build for sm_80 JIT-compiled on sm_90, 90 for sm_90 code); 0 when the binary holds no
/// code that runs on it.
int binary_arch();

/// The binary's code for the current device: the architecture it was compiled from and the one
/// its machine code is for (they differ where the driver JIT-compiled PTX); zeros when none.
code_here binary_code();

/// Throws no_code_error (one line: the GPU, the architectures built in, how to rebuild) when
/// the binary holds no code for the current device.
void require_code_for_device(const device_info& d);

/// Why cluster cases skip on `d`: no clusters on the GPU, or code compiled below sm_90.
std::string cluster_skip_reason(const device_info& d);

/// The binary has no code for the GPU it was asked to run on.
class no_code_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace memscope
