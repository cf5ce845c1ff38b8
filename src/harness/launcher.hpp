#pragma once
// Where this process sits in a job: the rank a launcher gave it (srun, mpirun, mpiexec; no MPI
// library is linked, the launchers' environment variables say it), the host, and the GPUs a
// run measures (--device N, N,M or all). Each board's results go to their own file, with the
// host and GPU in its name, so ranks never write the same file.

#include <functional>
#include <string>
#include <vector>

namespace memscope {

struct launcher_rank {
  std::string launcher;  // "Slurm", "Open MPI", "MPICH/Intel MPI", "PMIx"; empty outside a launcher
  int rank = -1, local_rank = -1, size = -1;
  bool found() const { return rank >= 0; }
};

/// Reads the launcher's variables through `get` (std::getenv by default; tests pass their own).
launcher_rank detect_launcher(const std::function<const char*(const char*)>& get = {});

/// This machine's host name ("localhost" when the system will not say).
std::string host_name();

/// "--device" text to GPU ordinals, in the order given: "2", "0,2", "all". Throws usage_error
/// for a GPU that does not exist, the same GPU twice, or text that is not a list of ordinals.
std::vector<int> parse_device_list(const std::string& text, int device_count);

/// out.json -> out.<host>.gpu<device>.json (the suffix goes before the last extension, or
/// before the one ahead of .gz: out.json.gz -> out.<host>.gpu<device>.json.gz).
std::string per_board_path(const std::string& path, const std::string& host, int device);

}  // namespace memscope
