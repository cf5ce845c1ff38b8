#pragma once
// The run journal: every finished point appended as one JSON line the moment it is measured,
// next to the requested output, so a run that dies (a fault that kills the CUDA context, a
// killed job) keeps its rows and `memscope run --resume JOURNAL` finishes it in a fresh
// process. Lines: a header (what was asked, on which GPU), then per process a segment line
// (its copy ceiling, time, command) followed by its rows. Pure C++.

#include "harness/cold_mode.hpp"
#include "harness/results.hpp"
#include "harness/timing_policy.hpp"

#include <cstdio>
#include <stdexcept>
#include <optional>
#include <string>
#include <vector>

namespace memscope {

inline constexpr const char* journal_format_name = "memscope-journal";
inline constexpr int journal_format_version = 1;

/// What the run was asked to do: enough to plan it again.
struct journal_args {
  std::vector<std::string> patterns, axes;  // axes as typed: "NAME=V1,V2"
  bool quick = false, verify = false;
  bool map = false;  // the one-minute map's points (memscope map), not patterns
  cold_mode cold = cold_mode::off;
  int device = 0;
  timing_policy timing;
  std::string json_path, csv_path, markdown_path, report_path;
};

struct journal_segment {
  std::string created_utc, command, tool_version, commit, telemetry_note;
  /// The board this process measured on: a run may be resumed on another board of the model.
  /// Absent in journals written before it was recorded (the first process's is the header's).
  std::optional<device_info> device;
  std::string host;
  double copy_gbps = 0;
  std::uint64_t copy_bytes = 0;
  std::vector<case_result> rows;
};

struct journal_contents {
  std::string tool_version, commit, command;
  journal_args args;
  device_info device;
  std::vector<journal_segment> segments;
  std::size_t rows() const;
};

/// A journal that is missing, truncated, foreign or inconsistent (exit 2: nothing is run).
class journal_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Reads and validates a whole journal; throws journal_error naming the file and line.
journal_contents read_journal(const std::string& path);

/// Appends to a journal, flushing after every line (the rows survive the process, not a crash
/// of the machine: no fsync per row).
class journal_writer {
 public:
  /// A new journal (an old file at `path` is replaced) with its header line.
  journal_writer(const std::string& path, const journal_args& args, const device_info& dev, const std::string& command);
  /// An existing journal, to continue (--resume).
  explicit journal_writer(const std::string& path);
  ~journal_writer();
  journal_writer(const journal_writer&) = delete;
  journal_writer& operator=(const journal_writer&) = delete;

  /// The start of one process's rows: its header (ceiling, time, command, tool).
  void segment(const results_doc& header);
  void row(const case_result& r);
  const std::string& path() const { return path_; }

 private:
  void line(const std::string& text);
  std::string path_;
  std::FILE* f_ = nullptr;
};

/// The rows of a journal as one results document: one source per segment (process), so
/// same-run ratios never mix processes. `header` supplies mode and options.
results_doc journal_document(const journal_contents& j, const results_doc& header);

}  // namespace memscope
