#pragma once
// The fleet check: the same points measured on several boards (every GPU of a node, every node
// of a job), compared row by row, so that one slow board among its siblings stands out.

#include "harness/registry.hpp"
#include "harness/results.hpp"

#include <string>
#include <vector>

namespace memscope::report {

struct board_summary {
  std::string board;         // "host GPU 3 (NVIDIA H200, 0000:19:00.0)"
  std::size_t compared = 0;  // rows this board shares with at least one sibling
  std::size_t off = 0;       // rows where it differs from the boards' median by more than the threshold
  double worst = 0;          // its largest relative difference (signed: below 0 is slower)
  std::string worst_row;     // which row
};

struct fleet_options {
  /// A board stands out on a row where it is this much faster or slower than the median of all
  /// boards, and by more than four relative standard errors of the two figures.
  double threshold = 0.05;
};

/// One summary per document (board), in the order given. Rows are matched by suite, case and
/// axes; the figure is 1 / the case's own figure where `reg` declares one (a chase's cycles:
/// the threshold alone decides, there being no standard error), else GB/s where the row has
/// one, else 1 / median time (higher is better).
std::vector<board_summary> compare_boards(const std::vector<results_doc>& boards, const registry& reg,
                                          const fleet_options& opt = {});

/// The per-board table as text lines (a header, one line per board, a closing verdict).
std::vector<std::string> fleet_table(const std::vector<results_doc>& boards, const registry& reg,
                                     const fleet_options& opt = {});

/// Where a document was measured: its host (when recorded) and GPU.
std::string board_name(const results_doc& d);

}  // namespace memscope::report
