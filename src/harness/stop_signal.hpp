#pragma once
// A run stops cleanly when it is asked to: Ctrl-C (SIGINT), `kill`, `timeout` or a Slurm time
// limit (SIGTERM), a closed terminal (SIGHUP), or a job script's early warning (SIGUSR1, as
// `sbatch --signal=USR1@120` sends it). The handler only records the request; the sampler drops the point it is
// measuring at the end of the sample under way, the runner runs no further point, and the outputs are written with
// every row measured so far (the journal keeps them for --resume). A second signal a second or more after the first
// ends the process at once; one arriving sooner is the same request delivered twice (to the process group and forwarded
// by a --concurrent parent). Pure C++ (POSIX signals).

#include <string>

namespace memscope {

/// While alive, SIGINT, SIGTERM, SIGHUP and SIGUSR1 request a stop instead of ending the
/// process, except those ignored when it was made (nohup); the previous handlers come back when
/// it goes. The request, if any, outlives it (stop_signal()).
class stop_on_signals {
 public:
  stop_on_signals();
  ~stop_on_signals();
  stop_on_signals(const stop_on_signals&) = delete;
  stop_on_signals& operator=(const stop_on_signals&) = delete;
};

/// The signal that asked the run to stop (SIGTERM, ...), 0 while none has.
int stop_signal();

/// "SIGTERM", "SIGINT", "SIGHUP", "SIGUSR1", or "signal N".
std::string signal_name(int sig);

/// Thrown by the sampler at the end of a sample once a stop is requested: the point's samples
/// are dropped (its row is not written; --resume measures it again). Not a std::exception, so
/// that no case's error handling takes it for a failure of the case.
struct run_stopped {
  int signal;
};

/// Throws run_stopped when a stop has been requested.
void throw_if_stop_requested();

}  // namespace memscope
