#include "harness/runner.hpp"

#include <fmt/format.h>

#include "harness/launcher.hpp"

#include "harness/environment.hpp"
#include "harness/stop_signal.hpp"
#include "harness/text_output.hpp"
#include "present/rows.hpp"
#include "memscope/core/cuda_check.hpp"
#include "memscope/version.hpp"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <map>
#include <random>
#include <set>
#include <variant>

namespace memscope {
namespace {

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

void finish_row(case_result& r, double copy_gbps) {
  if (r.status == case_status::ok) {
    if (r.verification == verification_status::failed) r.status = case_status::fail;
    else if (r.verification == verification_status::not_run) {
      r.status = case_status::fail;
      r.verification_detail = "the case did not verify its output";
    }
  }
  // A wrong answer gets no figure: a failed row is shown as failed and used by nothing.
  if (r.status == case_status::fail && r.timed) {
    r.timed = false;
    r.stats = {};
  }
  if (r.timed && r.stats.median > 0) {
    const double bytes = static_cast<double>(r.bytes_read + r.bytes_written);
    r.gbps = bytes / r.stats.median / 1e9;
    r.gbps_best = bytes / r.stats.min / 1e9;
    r.elements_per_s = static_cast<double>(r.elements) / r.stats.median;
    r.fraction_of_copy = copy_gbps > 0 ? r.gbps / copy_gbps : 0;
  }
}

bool same_except(const case_result& a, const case_result& b, const std::string& axis_name) {
  if (a.suite != b.suite || a.name != b.name || a.axes.size() != b.axes.size()) return false;
  for (std::size_t i = 0; i < a.axes.size(); ++i)
    if (a.axes[i].first != axis_name && a.axes[i] != b.axes[i]) return false;
  return true;
}

void apply_baselines(const std::map<std::string, const case_def*>& defs, results_doc& doc) {
  for (auto& row : doc.results) {
    const auto def = defs.find(row.id());
    if (def == defs.end()) continue;  // a case this memscope does not know: its figures stay
    for (const auto& rule : def->second->baselines) {
      row.metrics.erase(rule.metric);
      if (!present::usable(row)) continue;
      for (const auto& base : doc.results) {
        // Same run only, and a baseline that failed its check has no figure to compare with.
        const bool is_base = base.source == row.source && present::usable(base) && same_except(row, base, rule.axis) &&
                             std::any_of(base.axes.begin(), base.axes.end(),
                                         [&](const auto& e) { return e.first == rule.axis && e.second == rule.value; });
        if (is_base) row.metrics[rule.metric] = rule.ratio(row, base);
      }
    }
  }
}

}  // namespace

void apply_baselines(const registry& reg, results_doc& doc) {
  std::map<std::string, const case_def*> defs;
  for (const auto& c : reg.cases()) defs[c.id()] = &c;
  apply_baselines(defs, doc);
}

std::string planned_key(const planned_point& p) {
  case_result r;
  r.suite = p.def->suite;
  r.name = p.def->name;
  r.axes = p.point.entries();
  return row_key(r);
}

namespace {

/// The points of one comparison (every value of the case's baseline axes, the other axes
/// alike) back to back, in the order their first point had: they bin, sum or copy the same
/// input (one seed), which a case may then prepare once, and no minutes of other points pass
/// between the two sides of a ratio.
std::vector<axis_point> comparisons_together(const case_def& c, std::vector<axis_point> points) {
  if (c.baselines.empty()) return points;
  const auto compared = [&](const std::string& name) {
    return std::any_of(c.baselines.begin(), c.baselines.end(), [&](const baseline_rule& b) { return b.axis == name; });
  };
  std::vector<std::string> order;
  std::map<std::string, std::vector<axis_point>> groups;
  for (auto& p : points) {
    std::string key;
    for (const auto& [name, value] : p.entries())
      if (!compared(name))
        key += name + '=' +
               (std::holds_alternative<std::string>(value) ? std::get<std::string>(value)
                                                           : std::to_string(std::get<std::int64_t>(value))) +
               '\x1f';
    auto& g = groups[key];
    if (g.empty()) order.push_back(key);
    g.push_back(std::move(p));
  }
  std::vector<axis_point> out;
  out.reserve(points.size());
  for (const auto& key : order)
    for (auto& p : groups[key]) out.push_back(std::move(p));
  return out;
}

}  // namespace

std::vector<planned_point> plan_run(const registry& reg, const run_request& req) {
  const auto cases = reg.select(req.patterns, default_suites());
  check_overrides(cases, req.overrides);
  std::vector<planned_point> plan;
  for (const case_def* c : cases)
    for (auto& p :
         comparisons_together(*c, expand(c->axes, req.verify_only ? axis_set::verify : req.set, req.overrides)))
      plan.push_back({c, std::move(p)});
  return plan;
}

void check_footprints(const std::vector<planned_point>& plan, const device_info& dev) {
  for (const auto& p : plan) {
    if (!p.def->footprint) continue;
    const std::uint64_t need = p.def->footprint(p.point, dev);
    // Leave room for the context, the L2-flush buffer and the copy-ceiling buffers.
    const double usable = 0.85 * static_cast<double>(dev.total_global_mem);
    if (static_cast<double>(need) > usable)
      throw usage_error(p.def->id() + " at " + p.point.label(p.def->axes) + " needs " +
                        format_bytes(static_cast<double>(need)) + " of device memory; " + dev.name + " has " +
                        format_bytes(static_cast<double>(dev.total_global_mem)));
  }
}

results_doc new_results_doc(const run_request& req, const device_info& dev) {
  results_doc doc;
  doc.tool_version = tool_version;
  doc.commit = git_commit;
  doc.created_utc = utc_now();
  doc.command = req.command;
  doc.mode = req.verify_only ? "verify" : "run";
  doc.quick = req.set == axis_set::quick;
  doc.cold = req.cold;
  doc.device = dev;
  doc.host = host_name();
  doc.rank = detect_launcher().rank;
  if (!req.verify_only) doc.timing = req.timing;
  return doc;
}

results_doc execute_plan(const std::vector<planned_point>& plan, const run_request& req, const device_info& dev,
                         const run_hooks& hooks) {
  run_environment env(dev, req.timing, req.cold);
  results_doc doc = new_results_doc(req, dev);
  doc.telemetry_note = req.verify_only ? std::string() : env.telemetry().note();

  std::set<std::string> done;
  if (hooks.done) done.insert(hooks.done->begin(), hooks.done->end());
  // The points from plan[i] on that this process was to run: what a stop leaves undone.
  const auto left_from = [&](std::size_t i) {
    std::size_t n = 0;
    for (; i < plan.size(); ++i) n += done.count(planned_key(plan[i])) == 0;
    return n;
  };
  const auto stopped = [&](int sig, const std::string& where, std::size_t not_run) {
    doc.incomplete =
        "stopped by " + signal_name(sig) + " " + where + "; " + std::to_string(not_run) + " point(s) not run";
  };
  if (!req.verify_only) {
    const std::size_t want = doc.quick ? (std::size_t{256} << 20) : (std::size_t{1} << 30);
    const std::size_t bytes = std::min(want, dev.total_global_mem / 8);
    try {
      env.measure_copy_ceiling(bytes);
    } catch (const run_stopped& s) {
      // Nothing measured: no segment is journaled, and --resume starts the run afresh.
      stopped(s.signal, "while the copy ceiling was measured", left_from(0));
      return doc;
    }
    doc.copy_ceiling_gbps = env.copy_ceiling_gbps();
    doc.copy_ceiling_bytes = env.copy_ceiling_bytes();
  }
  if (hooks.on_start) hooks.on_start(doc);

  std::random_device rd;
  const std::uint64_t run_seed =
      (static_cast<std::uint64_t>(rd()) << 32) ^ rd() ^
      static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  for (std::size_t i = 0; i < plan.size(); ++i) {
    const auto& p = plan[i];
    if (done.count(planned_key(p))) continue;
    const std::string label = p.point.label(p.def->axes);
    const std::string where = p.def->id() + (label.empty() ? "" : " " + label);
    if (const int sig = stop_signal()) {
      stopped(sig, "before " + where, left_from(i));
      break;
    }
    case_state state(*p.def, p.point, env, req.verify_only, run_seed, req.set == axis_set::quick);
    case_result& r = state.result();
    if (hooks.progress) hooks.progress(i, plan.size(), p.def->id(), label);
    const auto started = std::chrono::steady_clock::now();
    try {
      p.def->body(state);
    } catch (const run_stopped& s) {
      // The point's samples are dropped, not recorded: --resume measures it whole.
      stopped(s.signal, "while measuring " + where + " (its samples are dropped)", left_from(i));
      break;
    } catch (const case_skipped& s) {
      r.status = case_status::skipped;
      r.message = s.reason;
    } catch (const std::exception& e) {
      r.status = case_status::error;
      r.message = e.what();
    }
    // A fault inside a kernel poisons the context for good: the run stops here, keeping what
    // it measured, instead of reporting noise.
    const cudaError_t sticky = r.status == case_status::error ? cudaDeviceSynchronize() : cudaSuccess;
    if (sticky != cudaSuccess) {
      r.message += std::string(" (the CUDA context is lost: ") + cudaGetErrorName(sticky) + ")";
      doc.incomplete = "stopped at " + where + ", which left the CUDA context unusable (" + cudaGetErrorName(sticky) +
                       "); " + std::to_string(left_from(i + 1)) + " later point(s) not run";
    }
    finish_row(r, doc.copy_ceiling_gbps);
    if (hooks.spent) {
      auto& spent = *hooks.spent;
      if (spent.empty() || spent.back().suite != r.suite) spent.push_back({r.suite});
      spent.back().points++;
      spent.back().wall_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      spent.back().samples_s += r.sampled_seconds();
    }
    doc.results.push_back(r);
    if (hooks.on_row) hooks.on_row(doc.results.back());
    if (!doc.incomplete.empty()) break;
  }
  std::map<std::string, const case_def*> defs;
  for (const auto& p : plan) defs[p.def->id()] = p.def;
  apply_baselines(defs, doc);
  return doc;
}

std::vector<std::string> time_lines(const std::vector<suite_time>& spent) {
  double wall = 0, samples = 0;
  for (const auto& s : spent) wall += s.wall_s, samples += s.samples_s;
  std::vector<std::string> out;
  if (spent.empty()) return out;
  out.push_back(fmt::format("where the time went: {:.1f} s in the points, {:.1f} s of it timed GPU samples{}", wall,
                            samples, samples > 0 ? fmt::format(" ({:.1f}x)", wall / samples) : std::string()));
  out.push_back(fmt::format("  {:<16} {:>6} {:>9} {:>9} {:>9}", "suite", "points", "wall", "samples", "other"));
  for (const auto& s : spent)
    out.push_back(fmt::format("  {:<16} {:>6} {:>8.1f}s {:>8.1f}s {:>8.1f}s", s.suite, s.points, s.wall_s, s.samples_s,
                              s.wall_s - s.samples_s));
  return out;
}

bool all_passed(const results_doc& doc) {
  return std::all_of(doc.results.begin(), doc.results.end(), [](const case_result& r) {
    return r.status == case_status::ok || r.status == case_status::skipped;
  });
}

}  // namespace memscope
