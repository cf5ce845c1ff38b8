#include "report/findings.hpp"

#include "harness/text_output.hpp"
#include "memscope/core/levels.hpp"
#include "report/html_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <optional>

namespace memscope::report {
namespace {

using pred = std::function<bool(const case_result&)>;

std::vector<const case_result*> rows_of(const results_doc& doc, const std::string& suite, const pred& keep) {
  std::vector<const case_result*> out;
  for (const auto& r : doc.results)
    if (r.suite == suite && r.timed && r.status == case_status::ok && keep(r)) out.push_back(&r);
  return out;
}

std::int64_t largest(const std::vector<const case_result*>& rows, const std::string& axis_name) {
  std::int64_t m = 0;
  for (const auto* r : rows) m = std::max(m, r->int_axis(axis_name).value_or(0));
  return m;
}

const case_result* best_by(const std::vector<const case_result*>& rows, const std::function<double(const case_result&)>& score) {
  const case_result* best = nullptr;
  for (const auto* r : rows)
    if (std::isfinite(score(*r)) && (!best || score(*r) > score(*best))) best = r;
  return best;
}

void bandwidth(const results_doc& doc, std::vector<finding>& out) {
  const auto all = rows_of(doc, "bandwidth", [](const case_result&) { return true; });
  const auto size = largest(all, "bytes");
  auto at_size = [&](const std::string& name) {
    return rows_of(doc, "bandwidth", [&](const case_result& r) { return r.name == name && r.int_axis("bytes") == size; });
  };
  if (const auto* b = best_by(at_size("copy"), [](const case_result& r) { return r.gbps; }))
    out.push_back({"bandwidth", fmt::format("best copy kernel at {} per array: {} ({}), {:.0f} GB/s = {:.3f}x the same-run "
                                            "cudaMemcpy ceiling", format_bytes(static_cast<double>(size)), b->name,
                                            b->variant, b->gbps, b->fraction_of_copy)});
  for (const char* name : {"read", "write"})
    if (const auto* b = best_by(at_size(name), [](const case_result& r) { return r.gbps; }))
      out.push_back({"bandwidth", fmt::format("{}-only traffic: {:.0f} GB/s = {:.3f}x the copy ceiling ({:.0f}% of the "
                                              "theoretical {:.0f} GB/s)", name, b->gbps, b->fraction_of_copy,
                                              100 * b->gbps / std::max(1.0, doc.device.theoretical_dram_gbps),
                                              doc.device.theoretical_dram_gbps)});
}

void reduce(const results_doc& doc, std::vector<finding>& out) {
  const auto all = rows_of(doc, "reduce", [](const case_result&) { return true; });
  const auto n = largest(all, "elements");
  for (const std::string type : {"f32", "i32"}) {
    const auto rows = rows_of(doc, "reduce", [&](const case_result& r) {
      return r.int_axis("elements") == n && r.string_axis("type") == type && r.string_axis("kernel") != "cub";
    });
    if (const auto* b = best_by(rows, [](const case_result& r) { return r.metric("speedup_vs_cub"); }))
      out.push_back({"reduce", fmt::format("best memscope sum of {} {}: {}, {:.3f}x CUB DeviceReduce::Sum (same run; noise "
                                           "{:.1f}%)", n, type, b->string_axis("kernel"), b->metric("speedup_vs_cub"),
                                           100 * b->stats.noise)});
    const auto dyn = rows_of(doc, "reduce", [&](const case_result& r) {
      return r.int_axis("elements") == n && r.string_axis("type") == type && r.string_axis("kernel") == "dynamic_smem";
    });
    if (!dyn.empty() && std::isfinite(dyn[0]->metric("speedup_vs_static_smem")))
      out.push_back({"reduce", fmt::format("dynamic vs static shared memory ({}): {:.3f}x", type,
                                           dyn[0]->metric("speedup_vs_static_smem"))});
  }
}

void coalescing(const results_doc& doc, std::vector<finding>& out) {
  for (const std::string dir : {"read", "write"}) {
    const auto rows = rows_of(doc, "coalescing", [&](const case_result& r) {
      return r.name == "offset" && r.int_axis("elem_bytes") == 4 && r.string_axis("direction") == dir && r.int_axis("offset") == 1;
    });
    if (!rows.empty())
      out.push_back({"coalescing", fmt::format("4-byte {}s starting one element off alignment: {:.2f}x the aligned bandwidth "
                                               "(sector model: {:.2f})", dir, rows[0]->metric("relative_to_aligned"),
                                               rows[0]->metric("predicted_efficiency"))});
  }
  for (const auto& r : doc.results)
    if (r.suite == "coalescing" && r.name == "malloc_alignment" && r.metrics.count("alignment_bytes"))
      out.push_back({"coalescing", fmt::format("cudaMalloc alignment observed: {:.0f} bytes (at least 256 promised)",
                                               r.metrics.at("alignment_bytes"))});
}

void bank_conflicts(const results_doc& doc, std::vector<finding>& out) {
  for (const std::string op : {"load", "store"}) {
    const auto rows = rows_of(doc, "bank_conflicts", [&](const case_result& r) {
      return r.name == "stride" && r.string_axis("op") == op && r.metric("predicted_wavefronts") > 1;
    });
    if (rows.empty()) continue;
    std::size_t close = 0;
    for (const auto* r : rows)
      close += std::fabs(r->metric("cycles_per_access") / r->metric("predicted_wavefronts") - 1) <= 0.1;
    out.push_back({"bank_conflicts", fmt::format("{}s: measured cycles per warp-access within 10% of the predicted "
                                                 "wavefronts at {} of {} conflicted points", op, close, rows.size())});
  }
}

void transpose(const results_doc& doc, std::vector<finding>& out) {
  const auto rows = rows_of(doc, "transpose", [](const case_result&) { return true; });
  std::vector<std::string> shapes;
  for (const auto* r : rows)
    if (std::find(shapes.begin(), shapes.end(), r->string_axis("shape")) == shapes.end()) shapes.push_back(r->string_axis("shape"));
  for (const auto& s : shapes) {
    const auto at = rows_of(doc, "transpose", [&](const case_result& r) { return r.string_axis("shape") == s; });
    if (const auto* b = best_by(at, [](const case_result& r) { return r.fraction_of_copy; }))
      out.push_back({"transpose", fmt::format("{}: best {} at {:.3f}x the copy ceiling, {:.1f}x the naive kernel", s,
                                              b->string_axis("kernel"), b->fraction_of_copy, b->metric("speedup_vs_naive"))});
  }
}

void stencil(const results_doc& doc, std::vector<finding>& out) {
  const auto all = rows_of(doc, "stencil", [](const case_result&) { return true; });
  const auto n = largest(all, "elements");
  for (std::int64_t radius : {1, 4, 8}) {
    const auto at = rows_of(doc, "stencil", [&](const case_result& r) {
      return r.int_axis("elements") == n && r.int_axis("radius") == radius;
    });
    const auto* b = best_by(at, [](const case_result& r) { return r.fraction_of_copy; });
    const auto* w = best_by(at, [](const case_result& r) { return -r.fraction_of_copy; });
    if (b && w)
      out.push_back({"stencil", fmt::format("radius {} at {} points: best {} {:.3f}x the copy ceiling, worst {} {:.3f}x", radius, n,
                                            b->string_axis("source"), b->fraction_of_copy, w->string_axis("source"),
                                            w->fraction_of_copy)});
  }
}

void constant(const results_doc& doc, std::vector<finding>& out) {
  // Fit cycles = a + b (k - 1) to the constant-memory broadcast rows by least squares.
  const auto rows = rows_of(doc, "constant", [](const case_result& r) {
    return r.name == "broadcast" && r.string_axis("space") == "constant";
  });
  if (rows.size() >= 2) {
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (const auto* r : rows) {
      const double x = static_cast<double>(r->int_axis("distinct").value_or(1) - 1), y = r->metric("cycles_per_load");
      sx += x; sy += y; sxx += x * x; sxy += x * y;
    }
    const double m = static_cast<double>(rows.size()), slope = (m * sxy - sx * sy) / (m * sxx - sx * sx),
                 icept = (sy - slope * sx) / m;
    out.push_back({"constant", fmt::format("constant cache: {:.1f} cycles for a broadcast, +{:.1f} cycles for each further "
                                           "distinct address in a warp (least-squares fit over k = 1..32)", icept, slope)});
  }
  std::vector<std::pair<double, double>> curve;
  for (const auto* r : rows_of(doc, "constant", [](const case_result& r) { return r.name == "working_set"; }))
    curve.push_back({static_cast<double>(r->int_axis("ws_bytes").value_or(0)), r->metric("cycles_per_load")});
  std::sort(curve.begin(), curve.end());
  if (!curve.empty()) {
    std::string levels;
    double start_latency = curve.front().second;
    for (double edge : level_edges(curve)) {
      levels += fmt::format("{}up to {} at {:.0f} cycles", levels.empty() ? "" : "; ", format_bytes(edge), start_latency);
      for (const auto& [x, y] : curve)
        if (x > edge) { start_latency = y; break; }
    }
    levels += fmt::format("{}up to {} at {:.0f}-{:.0f} cycles", levels.empty() ? "" : "; ",
                          format_bytes(curve.back().first), start_latency, curve.back().second);
    out.push_back({"constant", "constant-memory levels (pointer chase): " + levels});
  }
}

std::string plan_name(const case_result& r) {
  const double kind = r.metric("plan_strategy");
  if (kind == 1) return "global atomics";
  if (kind == 2) return "block shared memory";
  if (kind == 3) return fmt::format("a {}-block DSMEM cluster", static_cast<int>(r.metric("plan_cluster_size")));
  if (kind == 4) return fmt::format("a {}-block split cluster", static_cast<int>(r.metric("plan_cluster_size")));
  return "?";
}

void histogram(const results_doc& doc, std::vector<finding>& out) {
  const auto all = rows_of(doc, "histogram", [](const case_result& r) { return r.name == "even"; });
  const auto n = largest(all, "samples");
  std::vector<std::int64_t> bins;
  for (const auto* r : all)
    if (r->int_axis("samples") == n && std::find(bins.begin(), bins.end(), *r->int_axis("bins")) == bins.end())
      bins.push_back(*r->int_axis("bins"));
  std::sort(bins.begin(), bins.end());
  for (const auto b : bins) {
    const auto at = [&](const std::string& dist) {
      return rows_of(doc, "histogram", [&](const case_result& r) {
        return r.name == "even" && r.int_axis("samples") == n && r.int_axis("bins") == b && r.string_axis("distribution") == dist &&
               r.string_axis("strategy") != "cub";
      });
    };
    const auto rows = at("uniform");
    const case_result* autop = nullptr;
    for (const auto* r : rows)
      if (r->string_axis("strategy") == "auto") autop = r;
    const auto* best = best_by(rows, [](const case_result& r) { return r.metric("speedup_vs_cub"); });
    if (!autop || !best) continue;
    std::string text = fmt::format("{} bins, {} uniform samples: automatic choice ({}) {:.2f}x CUB HistogramEven", b, n,
                                   plan_name(*autop), autop->metric("speedup_vs_cub"));
    if (best != autop && best->string_axis("strategy") != "auto")
      text += fmt::format("; fastest forced strategy {} {:.2f}x", best->string_axis("strategy"), best->metric("speedup_vs_cub"));
    const auto skew = at("one_bin");
    for (const auto* r : skew)
      if (r->string_axis("strategy") == "auto")
        text += fmt::format("; all samples in one bin: {:.2f}x", r->metric("speedup_vs_cub"));
    out.push_back({"histogram", text});
  }
  const auto seed = rows_of(doc, "histogram", [](const case_result& r) { return r.name == "seed_table"; });
  if (!seed.empty()) {
    std::string text = "the seed's table (10M floats, 2048 bins):";
    for (const auto* r : seed) text += fmt::format(" {} {}", r->string_axis("strategy"), format_seconds(r->stats.median));
    out.push_back({"histogram", text});
  }
}

void dsmem(const results_doc& doc, std::vector<finding>& out) {
  const auto lat = rows_of(doc, "dsmem", [](const case_result& r) { return r.name == "latency"; });
  if (!lat.empty()) {
    std::string text = "dependent-load latency:";
    for (const auto* r : lat) text += fmt::format(" {} {:.0f} cycles;", r->string_axis("target"), r->metric("cycles_per_load"));
    text.pop_back();
    out.push_back({"dsmem", text});
  }
  for (const std::string op : {"read", "write"}) {
    const auto rows = rows_of(doc, "dsmem", [&](const case_result& r) {
      return r.name == "bandwidth" && r.string_axis("op") == op && r.string_axis("target").rfind("dsmem_c", 0) == 0;
    });
    if (const auto* b = best_by(rows, [](const case_result& r) { return r.gbps; }))
      out.push_back({"dsmem", fmt::format("fastest remote {}: {} with {}-byte accesses, {:.0f} GB/s over the GPU "
                                          "({:.2f}x the same access to the block's own shared memory)", op,
                                          b->string_axis("target"), b->int_axis("width").value_or(0), b->gbps,
                                          b->metric("ratio_to_shared"))});
  }
  const auto tp = rows_of(doc, "dsmem", [](const case_result& r) {
    return r.name == "transpose" && r.string_axis("kernel").rfind("dsmem_c", 0) == 0;
  });
  if (const auto* b = best_by(tp, [](const case_result& r) { return r.gbps; }))
    out.push_back({"dsmem", fmt::format("DSMEM transpose ({}, {}): {:.2f}x the naive global-memory transpose, {:.2f}x the "
                                        "padded 64x64 shared-memory tile (the seed claims ~2x over global memory)",
                                        b->string_axis("kernel"), b->string_axis("shape"), b->metric("speedup_vs_naive"),
                                        b->metric("speedup_vs_padded64"))});
}

/// A name for a plateau of a latency or bandwidth curve, from where it ends: L1 up to the
/// SM's unified L1/shared size, L2 up to 1.5x the L2 (a level ends where the next begins, so
/// its last point may pass the nominal size), DRAM beyond. per_sm: x is bytes per SM.
std::string level_name(const latency_level& l, const device_info& d, bool per_sm, bool shared_lines = false) {
  const double l1 = d.shared_per_sm > 0 ? static_cast<double>(d.shared_per_sm) + 32 * 1024 : 256.0 * 1024;
  const double l2 = d.l2_bytes > 0 ? static_cast<double>(d.l2_bytes) : 50.0 * (1 << 20);
  const double x = l.last_bytes;
  if (x <= l1) return "L1";
  if (shared_lines) return "L2";  // every SM reads the same lines: past L1, L2 serves them
  if (per_sm) return x * d.sm_count <= 1.5 * l2 ? "L2" : "DRAM";
  return x <= 1.5 * l2 ? "L2" : "DRAM";
}

/// bandwidth: plateaus of one level are merged whatever their values, keeping the highest
/// (small buffers ramp up to a level's bandwidth); latency: only within 10% of each other (the
/// detector starts a new run at a 12% step, and a slow drift can cross that).
std::string describe_levels(const std::vector<latency_level>& levels, const device_info& d, bool per_sm,
                            const std::function<std::string(double)>& value, double largest_x, bool bandwidth = false,
                            bool shared_lines = false) {
  std::vector<latency_level> merged;
  for (const auto& l : levels) {
    const bool same = !merged.empty() && level_name(merged.back(), d, per_sm, shared_lines) == level_name(l, d, per_sm, shared_lines);
    if (same && (bandwidth || std::fabs(l.cycles - merged.back().cycles) < 0.1 * merged.back().cycles)) {
      merged.back().last_bytes = l.last_bytes;
      merged.back().points += l.points;
      if (bandwidth) merged.back().cycles = std::max(merged.back().cycles, l.cycles);
    } else {
      merged.push_back(l);
    }
  }
  std::string text;
  for (const auto& l : merged) {
    const bool open_end = l.last_bytes >= largest_x;
    text += fmt::format("{}{} {} {} {}", text.empty() ? "" : "; ", level_name(l, d, per_sm, shared_lines), value(l.cycles),
                        open_end ? "from" : "up to", format_bytes(open_end ? l.first_bytes : l.last_bytes));
  }
  return text;
}

void latency(const results_doc& doc, std::vector<finding>& out) {
  // ns at the SM clock the rows measured (median), or the peak clock for rows without it.
  std::vector<double> clocks;
  for (const auto* r : rows_of(doc, "latency", [](const case_result& r) { return std::isfinite(r.metric("sm_clock_mhz")); }))
    clocks.push_back(r->metric("sm_clock_mhz") * 1e-3);
  std::sort(clocks.begin(), clocks.end());
  const double ghz = clocks.empty() ? doc.device.sm_clock_khz * 1e-6 : clocks[clocks.size() / 2];
  std::map<std::string, std::vector<std::pair<double, double>>> curves;
  std::vector<std::string> order;
  for (const auto* r : rows_of(doc, "latency", [](const case_result&) { return true; })) {
    const std::string key = r->name == "global" ? r->string_axis("path") + " loads" : r->name + " memory";
    if (!curves.count(key)) order.push_back(key);
    curves[key].push_back({static_cast<double>(r->int_axis("ws_bytes").value_or(0)), r->metric("cycles_per_load")});
  }
  for (const auto& key : order) {
    auto& c = curves[key];
    std::sort(c.begin(), c.end());
    // Three points at least: two neighbours within 12% on a rising stretch are a transition.
    const auto levels = detect_levels(c, 0.12, 3);
    if (levels.empty()) continue;
    auto value = [&](double cycles) { return fmt::format("{:.0f} cycles ({:.0f} ns)", cycles, ghz > 0 ? cycles / ghz : 0.0); };
    std::string text = key.rfind("shared", 0) == 0 || key.rfind("constant", 0) == 0
                           ? ""
                           : describe_levels(levels, doc.device, false, value, c.back().first);
    if (text.empty())  // shared and constant memory: their own levels, named by order
      for (std::size_t i = 0; i < levels.size(); ++i)
        text += fmt::format("{}level {}: {} up to {}", i ? "; " : "", i + 1, value(levels[i].cycles),
                            format_bytes(levels[i].last_bytes));
    // Between two plateaus: the working sets where latency climbs (on Hopper, past the near L2
    // partition: far-partition hits and DRAM misses mixed), reported as measured.
    for (std::size_t i = 0; i + 1 < levels.size(); ++i) {
      double lo = 0, hi = 0, first = 0, last = 0;
      for (const auto& [x, y] : c)
        if (x > levels[i].last_bytes && x < levels[i + 1].first_bytes) {
          if (first == 0) { first = x; lo = y; }
          last = x;
          hi = y;
        }
      if (first > 0)
        text += fmt::format("; between, {}-{}: {:.0f} to {:.0f} cycles", format_bytes(first), format_bytes(last), lo, hi);
    }
    out.push_back({"latency", fmt::format("pointer chase, {}: {}", key, text)});
  }
}

void cache_bandwidth(const results_doc& doc, std::vector<finding>& out) {
  for (const std::string mode : {"same_buffer", "own_slice", "spread"}) {
    std::vector<std::pair<double, double>> c;
    for (const auto* r : rows_of(doc, "cache_bandwidth", [&](const case_result& r) { return r.string_axis("sharing") == mode; }))
      c.push_back({mode == "spread" ? static_cast<double>(r->int_axis("ws_bytes").value_or(0)) : r->metric("bytes_per_sm"), r->gbps});
    if (c.size() < 2) continue;
    std::sort(c.begin(), c.end());
    const auto levels = detect_levels(c, 0.15);
    if (levels.empty()) continue;
    auto value = [&](double gbps) {
      return doc.copy_ceiling_gbps > 0 ? fmt::format("{:.0f} GB/s ({:.1f}x copy)", gbps, gbps / doc.copy_ceiling_gbps)
                                       : fmt::format("{:.0f} GB/s", gbps);
    };
    const char* what = mode == "same_buffer" ? "every SM reads the whole buffer (x = buffer)"
                       : mode == "own_slice" ? "each SM re-reads its own slice (x = bytes per SM)"
                                             : "slices rotate between SMs (x = buffer)";
    out.push_back({"cache_bandwidth", fmt::format("{}: {}", what, describe_levels(levels, doc.device, mode == "own_slice", value, c.back().first, true, mode == "same_buffer"))});
  }
}

void texture(const results_doc& doc, std::vector<finding>& out) {
  std::size_t fetch_ok = 0;
  for (const auto& r : doc.results)
    if (r.suite == "texture" && r.name == "fetch" && r.status == case_status::ok) ++fetch_ok;
  if (fetch_ok)
    out.push_back({"texture", fmt::format("{} texture-fetch configurations (source x filter x address mode x read mode) match the "
                                          "CPU reference, bilinear within the 9-bit weight bound", fetch_ok)});
  for (const std::string name : {"access", "latency"}) {
    const auto rows = rows_of(doc, "texture", [&](const case_result& r) { return r.name == name && r.string_axis("source") != "global"; });
    const auto size = largest(rows, "table_bytes");
    std::string text;
    for (const auto* r : rows)
      if (r->int_axis("table_bytes") == size) {
        text += fmt::format("{}{} {} {:.2f}x", text.empty() ? "" : ", ", r->string_axis("pattern"), r->string_axis("source"),
                            r->metric("speedup_vs_global"));
        if (name == "latency") text += fmt::format(" ({:.0f} ns)", r->metric("ns_per_load"));
      }
    if (!text.empty())
      out.push_back({"texture", fmt::format("{} relative to plain global loads, {} table: {}", name == "access" ? "gather throughput" : "dependent-load latency",
                                            format_bytes(static_cast<double>(size)), text)});
  }
  const auto box = rows_of(doc, "texture", [](const case_result& r) { return r.name == "box3x3" && r.string_axis("source") != "global"; });
  std::string text;
  for (const auto* r : box) text += fmt::format("{}{} {:.2f}x", text.empty() ? "" : ", ", r->string_axis("source"), r->metric("speedup_vs_global"));
  if (!text.empty()) out.push_back({"texture", "3x3 box filter relative to row-major global loads: " + text});
}

void cache_config(const results_doc& doc, std::vector<finding>& out) {
  // The seed's table: gains by size class for the preference it recommends.
  struct size_class {
    const char* name;
    std::int64_t lo, hi;
    const char* seed_pick;
    const char* seed_gain;
  };
  const size_class classes[] = {{"n < 512", 0, 511, "prefer_l1", "15-20%"},
                                {"512 <= n <= 2048", 512, 2048, "prefer_shared", "10-15%"},
                                {"n > 2048", 2049, INT64_MAX, "none", "5-8%"}};
  const auto mm = rows_of(doc, "cache_config", [](const case_result& r) { return r.name == "matmul"; });
  for (const auto& k : classes) {
    double lo = 1e300, hi = -1e300;
    std::size_t count = 0;
    for (const auto* r : mm) {
      const auto n = r->int_axis("n").value_or(0);
      if (n < k.lo || n > k.hi) continue;
      lo = std::min(lo, r->metric("speedup_vs_none"));
      hi = std::max(hi, r->metric("speedup_vs_none"));
      ++count;
    }
    if (count)
      out.push_back({"cache_config", fmt::format("tiled matmul, {}: every preference runs at {:.3f}x-{:.3f}x PreferNone "
                                                 "(the seed recommends {} for a {} gain)", k.name, lo, hi, k.seed_pick, k.seed_gain)});
  }
  const auto reuse = rows_of(doc, "cache_config", [](const case_result& r) { return r.name == "reuse"; });
  const auto* best = best_by(reuse, [](const case_result& r) { return r.metric("speedup_vs_none"); });
  const auto* worst = best_by(reuse, [](const case_result& r) { return -r.metric("speedup_vs_none"); });
  if (best && worst)
    out.push_back({"cache_config", fmt::format("L1 re-read of a per-SM window: from {:.2f}x ({} with {} of shared memory allocated, "
                                               "{} window) to {:.2f}x ({}, {} allocated, {} window) of PreferNone",
                                               worst->metric("speedup_vs_none"), worst->string_axis("setting"),
                                               format_bytes(static_cast<double>(worst->int_axis("smem_bytes").value_or(0))),
                                               format_bytes(static_cast<double>(worst->int_axis("window_bytes").value_or(0))),
                                               best->metric("speedup_vs_none"), best->string_axis("setting"),
                                               format_bytes(static_cast<double>(best->int_axis("smem_bytes").value_or(0))),
                                               format_bytes(static_cast<double>(best->int_axis("window_bytes").value_or(0))))});
}

void cache_control(const results_doc& doc, std::vector<finding>& out) {
  for (const auto& [policy, what] : {std::pair<const char*, const char*>{"persisting", "L2 persisting window over the hot table"},
                                     {"streaming", "the same window marked streaming (control)"}}) {
    std::string text;
    for (const auto* r : rows_of(doc, "cache_control", [p = policy](const case_result& r) {
           return r.name == "persistence" && r.string_axis("policy") == p;
         }))
      text += fmt::format("{}{} hot: {:.2f}x", text.empty() ? "" : ", ",
                          format_bytes(static_cast<double>(r->int_axis("hot_bytes").value_or(0))), r->metric("speedup_vs_normal"));
    if (!text.empty()) out.push_back({"cache_control", fmt::format("{}, relative to none: {}", what, text)});
  }
  const auto hints = rows_of(doc, "cache_control", [](const case_result& r) { return r.name == "hints"; });
  const auto* b = best_by(hints, [](const case_result& r) { return r.metric("speedup_vs_default"); });
  const auto* w = best_by(hints, [](const case_result& r) { return -r.metric("speedup_vs_default"); });
  if (b && w)
    out.push_back({"cache_control", fmt::format("cache hints on a stream beside an L2-resident table: {:.3f}x ({}) to {:.3f}x ({}) of the "
                                                "default load and store", w->metric("speedup_vs_default"), w->axes_label,
                                                b->metric("speedup_vs_default"), b->axes_label)});
  std::string l1;
  for (const auto* r : rows_of(doc, "cache_control", [](const case_result& r) { return r.name == "l1_hints"; }))
    l1 += fmt::format("{}{} {:.0f} GB/s ({:.2f}x)", l1.empty() ? "" : ", ", r->string_axis("hint"), r->gbps, r->metric("speedup_vs_plain"));
  if (!l1.empty()) out.push_back({"cache_control", "re-reading a per-SM window that fits L1, by load hint (x plain ld.global): " + l1});
  if (const auto* p = best_by(rows_of(doc, "cache_control", [](const case_result& r) { return r.name == "prefetch" && r.string_axis("prefetch") == "l2"; }),
                              [](const case_result& r) { return r.metric("speedup_vs_none"); }))
    out.push_back({"cache_control", fmt::format("prefetch.global.L2 {} steps ahead speeds a latency-bound walk up {:.2f}x",
                                                p->int_axis("distance").value_or(0), p->metric("speedup_vs_none"))});
  for (const auto* r : rows_of(doc, "cache_control", [](const case_result& r) { return r.name == "alignment" && r.string_axis("layout") == "aligned128"; }))
    out.push_back({"cache_control", fmt::format("__align__(128) records (30 floats padded to 128 B) vs packed 120-byte records, {} records: {:.3f}x",
                                                r->int_axis("records").value_or(0), r->metric("speedup_vs_packed"))});
}

void spread_vs_baseline(const results_doc& doc, const std::string& suite, const std::string& metric_name,
                        const std::string& what, std::vector<finding>& out) {
  const auto rows = rows_of(doc, suite, [&](const case_result& r) { return std::isfinite(r.metric(metric_name)); });
  if (rows.empty()) return;
  double lo = 1e300, hi = -1e300;
  for (const auto* r : rows) { lo = std::min(lo, r->metric(metric_name)); hi = std::max(hi, r->metric(metric_name)); }
  out.push_back({suite, fmt::format("{}: {:.3f}x to {:.3f}x over {} points", what, lo, hi, rows.size())});
}

}  // namespace

std::vector<finding> findings(const results_doc& doc) {
  std::vector<finding> out;
  bandwidth(doc, out);
  reduce(doc, out);
  coalescing(doc, out);
  bank_conflicts(doc, out);
  transpose(doc, out);
  stencil(doc, out);
  constant(doc, out);
  spread_vs_baseline(doc, "transform", "speedup_vs_constant", "matrix outside __constant__, speed relative to __constant__", out);
  histogram(doc, out);
  dsmem(doc, out);
  spread_vs_baseline(doc, "readonly", "speedup_vs_plain", "gather through const __restrict__ / __ldg relative to plain loads", out);
  latency(doc, out);
  cache_bandwidth(doc, out);
  texture(doc, out);
  cache_config(doc, out);
  cache_control(doc, out);
  return out;
}

}  // namespace memscope::report
