#pragma once
// `memscope advise`: the seeds' memory-choice decision tree (001, section 4), corrected by what
// memscope measured, answering with the memory space, the technique, the reason, a figure
// measured on a GPU (the user's results, or the bundled reference profile), and where memscope
// shows it (header and suite). Pure C++.

#include "harness/registry.hpp"
#include "harness/results.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace memscope::advise {

enum class mutability { unknown, read_only, written };
enum class warp_access { unknown, uniform, coalesced, irregular };  // uniform: a warp reads one address
enum class sharing { unknown, thread, block, grid };                // who uses the same data
/// Where the data starts, before any kernel: on the GPU already, or produced by the host once
/// or anew every iteration.
enum class host_origin { none, once, every_iteration };

struct query {
  std::optional<std::uint64_t> bytes;
  mutability mut = mutability::unknown;
  warp_access access = warp_access::unknown;
  sharing share = sharing::unknown;
  bool temporary = false;  // short-lived per-thread values, written often
  /// Threads that update one address at a time (--contention low = 1, high = the whole grid).
  std::optional<std::uint64_t> threads_per_address;
  // Before the kernel: where the data comes from, whether it fits the GPU, how many GPUs share it.
  host_origin origin = host_origin::none;
  bool larger_than_gpu = false;
  int gpus = 1;
  /// Whether the query asks the device-side tree (read-only, written or temporary data).
  bool asks_kernel_side() const { return temporary || mut != mutability::unknown; }
  bool asks_host_side() const { return origin != host_origin::none || larger_than_gpu || gpus > 1; }
};

struct answer {
  std::string branch;     // which leaf of the tree (stable, for tests and scripts)
  std::string memory;     // "constant memory", "shared memory", ...
  std::string technique;  // what to write
  std::string reason;
  std::vector<std::string> evidence;  // measured figures, each naming its source
  std::string header;                 // where memscope demonstrates it
  std::string suite;                  // the suites whose facts were cited, comma-separated
  std::string measure;  // `memscope run` patterns measuring every cited figure: "transfer/copy transfer/engines"
};

/// Throws usage_error for contradictory or missing facts. `profile` may be null (no figures).
/// Figures come from the facts the suites of `reg` declare (questions.hpp names them).
answer advise(const query& q, const results_doc* profile, const registry& reg);

/// The data path before the kernel: pinned or pageable host memory, zero-copy, overlap,
/// managed memory and prefetches, peer access. Throws usage_error when the query says nothing
/// about the host side (q.asks_host_side() is false) or contradicts itself.
answer advise_host(const query& q, const results_doc* profile, const registry& reg);

/// Parses "once"/"every-iteration"; throws usage_error.
host_origin parse_origin(const std::string& s);

/// Parses "uniform"/"coalesced"/"irregular" and "thread"/"block"/"grid"; throws usage_error.
warp_access parse_access(const std::string& s);
sharing parse_sharing(const std::string& s);

}  // namespace memscope::advise
