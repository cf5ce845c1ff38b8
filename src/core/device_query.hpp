#pragma once
// Opening a device and describing it. Errors (no GPU, no driver, bad ordinal) are
// memscope::usage_error-style exceptions with one clear line.

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

/// Describes `ordinal`, including the cluster limits the occupancy API reports.
device_info query_device_info(int ordinal);

}  // namespace memscope
