#include "report/fleet.hpp"

#include "present/rows.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

namespace memscope::report {
namespace {

/// (figure, relative standard error), higher is better.
std::pair<double, double> figure(const case_result& r, const registry& reg) {
  if (const auto* f = reg.figure_for(r))
    if (const auto own = present::figure_of(*f, r); own.usable()) return {1.0 / own.value, 0.0};
  return {r.gbps > 0 ? r.gbps : 1.0 / r.stats.median, r.stats.rse};
}

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

std::string board_name(const results_doc& d) {
  return fmt::format("{}GPU {} ({}, {})", d.host.empty() ? "" : d.host + " ", d.device.ordinal, d.device.name,
                     d.device.uuid.substr(0, std::min<std::size_t>(d.device.uuid.size(), 12)));
}

std::vector<board_summary> compare_boards(const std::vector<results_doc>& boards, const registry& reg,
                                          const fleet_options& opt) {
  // row key -> per board: (figure, relative standard error); and the row's name for people
  std::map<std::string, std::map<std::size_t, std::pair<double, double>>> by_row;
  std::map<std::string, std::string> names;
  for (std::size_t b = 0; b < boards.size(); ++b)
    for (const auto& r : boards[b].results)
      if (present::usable(r)) {
        by_row[row_key(r)][b] = figure(r, reg);
        names[row_key(r)] = r.suite + "/" + r.name + (r.axes_label.empty() ? "" : " " + r.axes_label);
      }
  std::vector<board_summary> out(boards.size());
  for (std::size_t b = 0; b < boards.size(); ++b) out[b].board = board_name(boards[b]);
  for (const auto& [key, per] : by_row) {
    if (per.size() < 2) continue;
    // The reference is the median of every board's figure: with three or more boards one slow
    // board cannot drag it (the median of the *others* would include the slow one).
    std::vector<double> all, all_rse;
    for (const auto& [o, theirs] : per) {
      all.push_back(theirs.first);
      all_rse.push_back(theirs.second);
    }
    const double ref = median_of(all);
    const double ref_rse = median_of(all_rse);
    if (!(ref > 0)) continue;
    // Four standard errors of a board's distance from the median. With two boards the median
    // is their mean and each is half their difference from it, whose error is the same for
    // both: they stand out together or not at all (the table then says it cannot tell which).
    // A bound from each board's own error would excuse the noisier of two and flag the other.
    const double pair_noise = per.size() == 2 ? 2 * std::sqrt(all_rse[0] * all_rse[0] + all_rse[1] * all_rse[1]) : 0;
    for (const auto& [b, mine] : per) {
      const double rel = mine.first / ref - 1;
      auto& s = out[b];
      ++s.compared;
      const double noise = per.size() == 2 ? pair_noise : 4 * std::sqrt(mine.second * mine.second + ref_rse * ref_rse);
      if (std::abs(rel) > std::max(opt.threshold, noise)) ++s.off;
      if (std::abs(rel) > std::abs(s.worst)) {
        s.worst = rel;
        s.worst_row = names[key];
      }
    }
  }
  return out;
}

std::vector<std::string> fleet_table(const std::vector<results_doc>& boards, const registry& reg,
                                     const fleet_options& opt) {
  const auto s = compare_boards(boards, reg, opt);
  std::vector<std::string> lines;
  lines.push_back(
      fmt::format("per board ({} boards; a row stands out at more than {:.0f}% from the boards' median "
                  "and beyond four standard errors):",
                  boards.size(), 100 * opt.threshold));
  std::size_t width = 5;
  for (const auto& b : s) width = std::max(width, b.board.size());
  lines.push_back(
      fmt::format("  {:<{}}  {:>8}  {:>12}  {}", "board", width, "compared", "stand out", "largest difference"));
  std::size_t flagged = 0;
  for (const auto& b : s) {
    flagged += b.off > 0;
    lines.push_back(fmt::format(
        "  {:<{}}  {:>8}  {:>12}  {}", b.board, width, b.compared, b.off,
        b.worst_row.empty() ? std::string("-") : fmt::format("{:+.1f}% at {}", 100 * b.worst, b.worst_row)));
  }
  // A board whose run stopped early is compared on the points it finished: said, not hidden.
  for (std::size_t i = 0; i < boards.size(); ++i)
    if (!boards[i].incomplete.empty())
      lines.push_back(fmt::format("  {}: incomplete ({})", s[i].board, boards[i].incomplete));
  // A board's rows measured on other boards too are compared as its own: said, so that a row
  // that stands out is not pinned on a board that never ran it.
  for (std::size_t i = 0; i < boards.size(); ++i)
    if (const auto n = boards_named(boards[i]); n > 1)
      lines.push_back(
          fmt::format("  {}: its rows come from {} boards of its model (runs merged with --replace, or a run resumed "
                      "on another board), all counted as this board's; each row's run names its board",
                      s[i].board, n));
  if (boards.size() == 2 && flagged)
    lines.push_back("  with two boards a difference cannot say which one is off: measure a third");
  else if (flagged == 0) lines.push_back("  no board stands out");
  return lines;
}

}  // namespace memscope::report
