#pragma once
// --concurrent: every selected GPU measured at the same time, one process per GPU (the same
// memscope, the same arguments), so that boards sharing a PCIe switch, a host bridge or NVLink
// show the contention a job running on all of them meets. A process per board, rather than a
// thread per board, keeps each board's CUDA context, telemetry and files apart, exactly as
// ranks under srun/mpirun are.

#include <string>
#include <vector>

namespace memscope {

/// The variables a board process finds in its environment: which GPU it measures, and where to
/// write its results when the user named no --json (the parent reads them for the fleet table).
inline constexpr const char* concurrent_board_variable = "MEMSCOPE_CONCURRENT_BOARD";
inline constexpr const char* concurrent_json_variable = "MEMSCOPE_CONCURRENT_JSON";

struct board_process {
  int device = 0;
  std::string stdout_path, stderr_path;  // what the process printed
  int exit_code = 0;                     // its exit status; 128 + N when signal N ended it
  bool killed = false;                   // a signal ended it (128 + N from a stop it asked for is not)
  double seconds = 0;
};

/// Starts this executable (`args`, args[0] excluded, as given to the parent) once per device,
/// all at once, with `concurrent_board_variable` set to the device (and
/// `concurrent_json_variable` to `json` when not empty), stdout and stderr to files in `dir`;
/// `on_exit` is called as each one ends. Throws std::runtime_error when a process cannot start.
std::vector<board_process> run_boards_at_once(const std::vector<std::string>& args, const std::vector<int>& devices,
                                              const std::string& json, const std::string& dir,
                                              void (*on_exit)(const board_process&));

}  // namespace memscope
