#include "report/compare.hpp"

#include "harness/axis.hpp"
#include "harness/stats.hpp"
#include "harness/text_output.hpp"
#include "present/rows.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

namespace memscope::report {

const char* to_string(verdict v) {
  switch (v) {
    case verdict::faster:
      return "faster";
    case verdict::slower:
      return "slower";
    case verdict::same:
      return "same";
  }
  return "?";
}

std::size_t comparison::count(verdict v) const {
  return static_cast<std::size_t>(
      std::count_if(rows.begin(), rows.end(), [&](const comparison_row& r) { return r.v == v; }));
}

namespace {

/// Judges a row on the runs of both sides (at least one side brought several): the medians of
/// the runs' medians, their spread as the effect floor, and ranges that do not overlap.
bool judge_on_runs(const case_result& ra, const case_result& rb, const compare_options& opt, comparison_row& row) {
  const auto a = ra.run_medians(), b = rb.run_medians();
  const auto [alo, ahi] = std::minmax_element(a.begin(), a.end());
  const auto [blo, bhi] = std::minmax_element(b.begin(), b.end());
  row.runs_a = a.size();
  row.runs_b = b.size();
  row.median_a = median_of(a);
  row.median_b = median_of(b);
  row.ratio = row.median_b / row.median_a;
  row.threshold = std::max({opt.min_effect, *ahi / *alo - 1, *bhi / *blo - 1});
  row.p = std::nan("");
  return std::fabs(row.ratio - 1) > row.threshold && (*bhi < *alo || *ahi < *blo);
}

/// A row's key without the axes a comparison ignores.
std::string match_key(const case_result& r, const std::vector<std::string>& ignore) {
  if (ignore.empty()) return row_key(r);
  case_result k;
  k.suite = r.suite;
  k.name = r.name;
  for (const auto& a : r.axes)
    if (std::find(ignore.begin(), ignore.end(), a.first) == ignore.end()) k.axes.push_back(a);
  return row_key(k);
}

/// The timed rows of a document by suite, case and axes (not by their label, which a file may
/// lack or share between points). A row twice, or an impossible time, is refused.
std::map<std::string, const case_result*> timed_rows(const results_doc& d, const char* which,
                                                     const std::vector<std::string>& ignore) {
  std::map<std::string, const case_result*> out;
  for (const auto& r : d.results) {
    if (!present::usable(r)) continue;
    if (!(r.stats.median > 0) || !std::isfinite(r.stats.median) || !(r.stats.noise >= 0) ||
        !std::isfinite(r.stats.noise))
      throw results_error(std::string("results ") + which + ": " + r.id() + " " + r.axes_label +
                          " has an impossible time or noise");
    if (!out.emplace(match_key(r, ignore), &r).second)
      throw results_error(std::string("results ") + which + " holds " + r.id() + " " + r.axes_label +
                          (ignore.empty() ? " twice" : " twice once the ignored axes are left out"));
  }
  return out;
}

}  // namespace

comparison compare(const results_doc& a, const results_doc& b, const registry& reg, const compare_options& opt) {
  if (!(std::isfinite(opt.min_effect) && opt.min_effect >= 0))
    throw usage_error("--min-effect takes a percentage of at least 0");
  if (!(std::isfinite(opt.alpha) && opt.alpha > 0 && opt.alpha <= compare_options::max_alpha))
    throw usage_error(fmt::format("--alpha must be above 0 and at most {}", compare_options::max_alpha));
  if (!(std::isfinite(opt.process_shift_s) && opt.process_shift_s >= 0))
    throw usage_error("--process-shift takes microseconds, at least 0");
  for (const auto& name : opt.ignore_axes) {
    const auto has = [&](const results_doc& d) {
      return std::any_of(d.results.begin(), d.results.end(), [&](const case_result& r) {
        return std::any_of(r.axes.begin(), r.axes.end(), [&](const auto& ax) { return ax.first == name; });
      });
    };
    if (!has(a) && !has(b)) throw usage_error("--ignore-axis " + name + ": no row of A or B has that axis");
  }
  // One launch with no warm-up (for a profiler) times the first launch's costs too: not a
  // figure another run's samples can be held against.
  for (const auto& [d, which] : {std::pair{&a, "A"}, std::pair{&b, "B"}})
    if (d->timing && d->timing->run_once)
      throw usage_error(
          fmt::format("results {} was taken with --run-once (one launch a point, no warm-up, for a "
                      "profiler): its times cannot be compared; compare runs without --run-once",
                      which));
  const auto in_a = timed_rows(a, "A", opt.ignore_axes);
  const auto in_b = timed_rows(b, "B", opt.ignore_axes);
  comparison c;
  c.ignored_axes = opt.ignore_axes;
  std::size_t matched_b = 0;
  const auto failed = [](const results_doc& d) {
    return static_cast<std::size_t>(std::count_if(d.results.begin(), d.results.end(),
                                                  [](const case_result& r) { return r.timed && !present::usable(r); }));
  };
  c.excluded_a = failed(a);
  c.excluded_b = failed(b);
  for (const auto& ra : a.results) {
    if (!present::usable(ra)) continue;
    const auto it = in_b.find(match_key(ra, opt.ignore_axes));
    if (it == in_b.end()) {
      ++c.only_a;
      continue;
    }
    ++matched_b;
    const case_result& rb = *it->second;
    comparison_row row;
    row.id = terminal_safe(ra.id());
    row.axes_label = terminal_safe(ra.axes_label);
    row.median_a = ra.stats.median;
    row.median_b = rb.stats.median;
    row.ratio = rb.stats.median / ra.stats.median;
    row.unconverged = ra.unconverged() || rb.unconverged();
    bool differs = false;
    const auto* fig = reg.figure_for(ra);
    const auto fa = fig ? present::figure_of(*fig, ra) : present::row_figure{};
    const auto fb = fig ? present::figure_of(*fig, rb) : present::row_figure{};
    if (fa.usable() && fb.usable()) {
      // The launch time is not what the case measures: its figure is (a chase's cycles).
      row.median_a = fa.value;
      row.median_b = fb.value;
      row.unit = fig->unit;
      row.ratio = fb.value / fa.value;
      row.threshold = opt.min_effect;
      row.p = std::nan("");
      row.ranges = fa.has_spread() && fb.has_spread();
      differs = std::fabs(row.ratio - 1) > row.threshold && (!row.ranges || fb.hi < fa.lo || fa.hi < fb.lo);
    } else if (ra.replicates.size() >= 2 || rb.replicates.size() >= 2) {
      // The spread between processes is measured: it, not an assumed shift, is the floor.
      differs = judge_on_runs(ra, rb, opt, row);
    } else if (ra.times.size() >= 2 && rb.times.size() >= 2) {
      // Judged on every sample of both runs, not on two medians: a run's noise counts. A
      // launch of a few microseconds also moves with the process, which no sample of one run
      // shows: its effect must pass that shift too.
      const double shift = std::min(compare_options::max_process_shift,
                                    opt.process_shift_s / std::min(ra.stats.median, rb.stats.median));
      row.short_launch = shift > opt.min_effect;
      row.threshold = std::max(opt.min_effect, shift);
      row.p = mann_whitney_p(ra.times, rb.times);
      differs = row.p < opt.alpha && std::fabs(row.ratio - 1) > row.threshold;
    } else {
      row.threshold =
          std::max(opt.min_effect, 2 * std::sqrt(ra.stats.noise * ra.stats.noise + rb.stats.noise * rb.stats.noise));
      row.p = std::nan("");
      differs = std::fabs(row.ratio - 1) > row.threshold;
    }
    row.v = !differs ? verdict::same : row.ratio < 1 ? verdict::faster : verdict::slower;
    c.rows.push_back(row);
  }
  c.only_b = in_b.size() - matched_b;  // every match is a distinct B row: keys are unique
  (void)in_a;
  if (c.rows.empty()) throw usage_error("the two results files have no timed case in common");
  return c;
}

std::vector<const comparison_row*> regressions(const comparison& c, double pct) {
  if (!std::isfinite(pct) || pct < 0) throw usage_error("--fail-on-regression takes a finite percentage of at least 0");
  std::vector<const comparison_row*> out;
  for (const auto& r : c.rows)
    if (r.v == verdict::slower && (r.ratio - 1) * 100 > pct) out.push_back(&r);
  return out;
}

std::string gpu_relation(const results_doc& a, const results_doc& b) {
  const auto& da = a.device;
  const auto& db = b.device;
  if (!same_model(da, db))
    return "different GPU models (" + terminal_safe(da.name) + " vs " + terminal_safe(db.name) +
           "): a comparison of GPUs, not of builds";
  if (!da.uuid.empty() && !db.uuid.empty() && da.uuid != db.uuid)
    return "two boards of one model (" + terminal_safe(da.name) + ", " + terminal_safe(da.uuid) + " vs " +
           terminal_safe(db.uuid) + "): board-to-board spread is part of every ratio";
  return "the same GPU (" + terminal_safe(da.name) + ")";
}

std::string l2_relation(const results_doc& a, const results_doc& b) {
  if (a.cold == b.cold) return {};
  const auto what = [](cold_mode m) -> std::string {
    switch (m) {
      case cold_mode::off:
        return "warm (what the previous launch left)";
      case cold_mode::clean:
        return "flushed clean (--cold)";
      case cold_mode::dirty:
        return "full of dirty lines (--cold=dirty)";
    }
    return {};
  };
  return "L2 at every sample's start: A " + what(a.cold) + ", B " + what(b.cold) +
         ": every ratio includes the change of regime, not only of code";
}

std::string stopping_relation(const results_doc& a, const results_doc& b) {
  if (a.quick == b.quick) return {};
  const auto what = [](bool quick) { return quick ? "--quick (fewer samples a point)" : "the full stopping rule"; };
  return fmt::format(
      "stopping rules: A {}, B {}: the points both measured are compared, with the rank test of the smaller "
      "sample; a --quick run's smaller samples call fewer small differences",
      what(a.quick), what(b.quick));
}

void print(const comparison& c, const results_doc& a, const results_doc& b, std::ostream& out) {
  // Names and commands come from files: never let them drive the terminal.
  out << fmt::format("A: {} on {} ({}, {})\nB: {} on {} ({}, {})\n", terminal_safe(a.command),
                     terminal_safe(a.device.name), terminal_safe(a.commit), terminal_safe(a.created_utc),
                     terminal_safe(b.command), terminal_safe(b.device.name), terminal_safe(b.commit),
                     terminal_safe(b.created_utc));
  std::size_t w0 = 4, w1 = 4;
  for (const auto& r : c.rows) {
    w0 = std::max(w0, r.id.size());
    w1 = std::max(w1, r.axes_label.size());
  }
  out << "GPUs: " << gpu_relation(a, b) << '\n';
  if (const auto l2 = l2_relation(a, b); !l2.empty()) out << l2 << '\n';
  if (const auto rule = stopping_relation(a, b); !rule.empty()) out << rule << '\n';
  if (!c.ignored_axes.empty()) {
    std::string names;
    for (const auto& n : c.ignored_axes) names += (names.empty() ? "" : ", ") + terminal_safe(n);
    out << "rows matched without " << names << ": each row shows A's axes\n";
  }
  out << fmt::format("{:<{}}  {:<{}}  {:>13}  {:>13}  {:>8}  {:>8}  {:>6}  {}\n", "case", w0, "axes", w1, "A median",
                     "B median", "B/A", "p", "effect", "verdict");
  std::size_t unconverged = 0, figures = 0, short_launches = 0, on_runs = 0;
  const auto value = [](const comparison_row& r, double v) {
    return r.unit.empty() ? format_seconds(v) : fmt::format("{:.1f} {}", v, r.unit);
  };
  for (const auto& r : c.rows) {
    unconverged += r.unconverged;
    figures += !r.unit.empty();
    short_launches += r.short_launch;
    on_runs += r.runs_a > 0;
    const std::string basis = !r.unit.empty()   ? (r.ranges ? "ranges" : "figures")
                              : r.runs_a > 0    ? fmt::format("{}+{} runs", r.runs_a, r.runs_b)
                              : std::isnan(r.p) ? std::string("medians")
                                                : fmt::format("{:.1e}", r.p);
    out << fmt::format("{:<{}}  {:<{}}  {:>13}  {:>13}  {:>7.3f}x  {:>8}  {:>5.1f}%  {}{}\n", r.id, w0, r.axes_label,
                       w1, value(r, r.median_a), value(r, r.median_b), r.ratio, basis, 100 * r.threshold,
                       to_string(r.v), r.unconverged ? " ~" : "");
  }
  out << fmt::format(
      "{} compared: {} faster, {} slower, {} same (a verdict needs both the effect and {}); "
      "{} only in A, {} only in B\n",
      c.rows.size(), c.count(verdict::faster), c.count(verdict::slower), c.count(verdict::same),
      figures == c.rows.size() ? "ranges that do not overlap, where recorded"
      : figures > 0            ? "the rank test, or for a case's own figure ranges that do not overlap"
                               : "the rank test",
      c.only_a, c.only_b);
  if (figures > 0)
    out << fmt::format(
        "{} row(s) judged on their case's own figure, not the launch time (a chase's cycles): the effect, and "
        "where both rows recorded the fastest and slowest chase (\"ranges\"), ranges that do not overlap\n",
        figures);
  if (on_runs > 0)
    out << fmt::format(
        "{} row(s) judged on runs in separate processes (merge --replicates; \"3+3 runs\"): the medians of the "
        "runs' medians, a verdict only where every run of one side lies beyond every run of the other by more than "
        "either side's spread between its runs\n",
        on_runs);
  if (short_launches > 0)
    out << fmt::format(
        "{} row(s) of short launches, whose effect floor is the shift a new process brings (--process-shift) over "
        "the launch time, not --min-effect: a few-microsecond launch moves by several percent between processes\n",
        short_launches);
  if (unconverged > 0)
    out << fmt::format("~ {} row(s) where A or B did not meet its run's stopping rule: read those verdicts with care\n",
                       unconverged);
  if (c.excluded_a + c.excluded_b > 0)
    out << fmt::format("not compared: {} timed row(s) of A and {} of B that did not pass their check\n", c.excluded_a,
                       c.excluded_b);
}

}  // namespace memscope::report
