#pragma once

namespace memscope {

/// Exit codes: what scripts around memscope can rely on.
enum exit_code : int {
  exit_ok = 0,
  exit_check_failed = 1,  // a case failed verification or errored
  exit_usage = 2,         // bad command line, pattern, axis or size
  exit_no_device = 3,     // no GPU, no driver, --device out of range, or no code in this binary for the GPU
  exit_runtime = 4,       // a CUDA or I/O error
};

/// The whole command line; never lets an exception escape.
int run_cli(int argc, char** argv);

}  // namespace memscope
