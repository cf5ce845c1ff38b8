#include "harness/launcher.hpp"

#include "harness/axis.hpp"  // usage_error
#include "harness/gzip.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <set>

namespace memscope {
namespace {

int as_int(const char* text) {
  if (text == nullptr || *text == '\0') return -1;
  char* end = nullptr;
  const long v = std::strtol(text, &end, 10);
  return (*end == '\0' && v >= 0 && v < (1L << 30)) ? static_cast<int>(v) : -1;
}

}  // namespace

launcher_rank detect_launcher(const std::function<const char*(const char*)>& get_fn) {
  const auto get = [&](const char* name) { return get_fn ? get_fn(name) : std::getenv(name); };
  struct scheme {
    const char* name;
    const char *rank, *local, *size;
  };
  // Open MPI and MPICH first: under `srun --mpi` or inside an allocation the Slurm variables
  // are set too, and the MPI launcher's are the ones that describe this process.
  const scheme schemes[] = {
      {"Open MPI", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_SIZE"},
      {"MPICH/Intel MPI", "PMI_RANK", "MPI_LOCALRANKID", "PMI_SIZE"},
      {"Slurm", "SLURM_PROCID", "SLURM_LOCALID", "SLURM_NTASKS"},
      {"PMIx", "PMIX_RANK", "PMIX_LOCAL_RANK", "PMIX_SIZE"},
  };
  for (const auto& s : schemes) {
    const int rank = as_int(get(s.rank));
    if (rank < 0) continue;
    launcher_rank r;
    r.launcher = s.name;
    r.rank = rank;
    r.local_rank = as_int(get(s.local));
    r.size = as_int(get(s.size));
    if (r.local_rank < 0) r.local_rank = rank;  // one node: the rank is the local rank
    return r;
  }
  return {};
}

std::string host_name() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0 || name[0] == '\0') return "localhost";
  std::string s = name;
  // Only characters that are safe in a file name.
  for (char& c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '_')) c = '_';
  return s;
}

std::vector<int> parse_device_list(const std::string& text, int device_count) {
  const std::string have = device_count == 1
                               ? "1 GPU (0)"
                               : std::to_string(device_count) + " GPUs (0-" + std::to_string(device_count - 1) + ")";
  std::vector<int> out;
  if (text == "all") {
    for (int d = 0; d < device_count; ++d) out.push_back(d);
    if (out.empty()) throw usage_error("--device all: this system has no GPU");
    return out;
  }
  std::set<int> seen;
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t comma = std::min(text.find(',', at), text.size());
    const std::string item = text.substr(at, comma - at);
    const int d = as_int(item.c_str());
    if (d < 0) throw usage_error("--device '" + text + "': give GPU ordinals separated by commas (0,2) or all");
    if (d >= device_count) throw usage_error("--device " + item + ": this system has " + have);
    if (!seen.insert(d).second) throw usage_error("--device '" + text + "' names GPU " + item + " twice");
    out.push_back(d);
    at = comma + 1;
  }
  return out;
}

std::string per_board_path(const std::string& path, const std::string& host, int device) {
  if (path.empty()) return path;
  const std::filesystem::path p(path);
  const std::string tag = "." + host + ".gpu" + std::to_string(device);
  std::filesystem::path stem = p.stem();
  std::string extension = p.extension().string();
  if (names_gzip(extension)) {
    extension = stem.extension().string() + extension;
    stem = stem.stem();
  }
  return (p.parent_path() / (stem.string() + tag + extension)).string();
}

}  // namespace memscope
