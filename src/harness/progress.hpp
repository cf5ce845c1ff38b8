#pragma once
// Progress of a run on stderr, wherever it goes: an in-place line on a terminal; one line per
// finished case otherwise (tee, CI logs, batch jobs), with points done, elapsed time and an
// estimate of the time left; nothing with --quiet. Pure C++.

#include <chrono>
#include <cstddef>
#include <cstdio>
#include <string>

namespace memscope {

class progress_printer {
 public:
  enum class style { terminal, lines, quiet };
  /// `total`: the points this process will run.
  progress_printer(style s, std::size_t total, std::FILE* out = stderr);
  static style style_for(std::FILE* out, bool quiet);

  /// Before each point: its case and axes.
  void point(const std::string& case_id, const std::string& axes);
  /// After a point's row is written; a point that never gets here (a run stopped during it)
  /// is not counted as done.
  void point_finished();
  /// After the last point (or a stop): the last case's line, and the terminal line cleared.
  void done();

  /// "1:05", "12:00:03"
  static std::string clock(double seconds);

 private:
  void case_line();
  style style_;
  std::size_t total_, started_ = 0, finished_ = 0, case_finished_ = 0;
  std::string case_;
  std::FILE* out_;
  std::chrono::steady_clock::time_point t0_, case_t0_;
  bool closed_ = false;
};

}  // namespace memscope
