#include "report/map.hpp"

#include "harness/text_output.hpp"
#include "report/svg_chart.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace memscope::report {
namespace {

using present::hierarchy;
using present::map_figure;
using present::map_level;

/// The SM clock the rows' cycle figures were counted at: the median of what they measured,
/// else the device's peak clock.
double measured_clock_mhz(const results_doc& doc) {
  std::vector<double> mhz;
  for (const auto& r : doc.results) {
    const double m = r.metric("sm_clock_mhz");
    if (std::isfinite(m) && m > 0) mhz.push_back(m);
    else if (r.clock_mhz > 0) mhz.push_back(r.clock_mhz);
  }
  if (mhz.empty()) return doc.device.sm_clock_khz > 0 ? doc.device.sm_clock_khz * 1e-3 : present::no_figure;
  std::nth_element(mhz.begin(), mhz.begin() + static_cast<std::ptrdiff_t>(mhz.size() / 2), mhz.end());
  return mhz[mhz.size() / 2];
}

/// "1.0 KiB"; "192.0-256.0 KiB" for an edge between two sizes of one unit.
std::string bytes_span(double lo, double hi) {
  const std::string a = format_bytes(lo), b = format_bytes(hi);
  const auto unit = [](const std::string& s) { return s.substr(s.find(' ')); };
  if (!std::isfinite(hi) || a == b) return a;
  return unit(a) == unit(b) ? a.substr(0, a.find(' ')) + "-" + b : a + "-" + b;
}

std::string gbps_text(double g) {
  if (!std::isfinite(g)) return "-";
  return g >= 1000 ? fmt::format("{:.1f} TB/s", g / 1000) : fmt::format("{:.1f} GB/s", g);
}

/// A bar of up to `width` cells for `v` on a log scale from `lo` to `hi`.
std::string log_bar(double v, double lo, double hi, int width) {
  if (!(v > 0)) return std::string(static_cast<std::size_t>(width), ' ');
  const double f = std::clamp(std::log(v / lo) / std::log(hi / lo), 0.0, 1.0);
  const int n = std::max(1, static_cast<int>(std::lround(f * width)));
  return std::string(static_cast<std::size_t>(n), '#') + std::string(static_cast<std::size_t>(width - n), ' ');
}

/// The detected edge, or the bracket that holds it.
std::string detected_text(const map_level& l) {
  if (std::isfinite(l.detected_bytes)) return format_bytes(l.detected_bytes);
  return std::isfinite(l.detected_lo) ? bytes_span(l.detected_lo, l.detected_hi) : "-";
}

std::string capacity_text(const map_level& l) {
  std::string t = detected_text(l);
  if (std::isfinite(l.driver_bytes)) t += " (" + format_bytes(l.driver_bytes) + ")";
  return t;
}

std::string latency_text(const hierarchy& h, const map_level& l) {
  if (!l.latency_cycles.known()) return "-";
  const double ns = h.latency_ns(l);
  return std::isfinite(ns) ? fmt::format("{:.0f} cy {:.0f} ns", l.latency_cycles.value, ns)
                           : fmt::format("{:.0f} cy", l.latency_cycles.value);
}

nlohmann::json figure_json(const map_figure& f) {
  if (!f.known()) return nullptr;
  nlohmann::json j{{"value", f.value}, {"measured_by", f.source}};
  if (std::isfinite(f.lo)) j["lo"] = f.lo;
  if (std::isfinite(f.hi)) j["hi"] = f.hi;
  return j;
}

nlohmann::json number_or_null(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

/// The suite a figure's source row belongs to: the text before the first slash.
std::string source_suite(const std::string& source) { return source.substr(0, source.find('/')); }

}  // namespace

hierarchy derive_hierarchy(const results_doc& doc, const registry& reg) {
  hierarchy h = present::empty_hierarchy(doc.device);
  h.sm_clock_mhz = measured_clock_mhz(doc);
  for (const auto& s : reg.suite_infos())
    for (const auto& read : s.map_readers) read(present::suite_view{doc, s.name}, h);
  for (auto& l : h.levels)
    if (!l.measured() && l.missing.empty() && !std::isfinite(l.driver_bytes))
      l.missing.push_back("no row of this run describes it");
  return h;
}

std::vector<std::string> map_lines(const hierarchy& h, const device_info& d) {
  std::vector<std::string> out;
  out.push_back(
      fmt::format("memory hierarchy of {} (sm_{}{}, {} SMs); cycles at {}", d.name, d.cc_major, d.cc_minor, d.sm_count,
                  std::isfinite(h.sm_clock_mhz) ? fmt::format("{:.0f} MHz, the SM clock measured", h.sm_clock_mhz)
                                                : std::string("an unknown SM clock")));
  out.push_back(fmt::format("  {:<19} {:<11} {:<28} {:<27} {}", "level", "one per", "capacity (driver's)",
                            "latency (log scale)", "read bandwidth (log scale)"));
  for (const auto& l : h.levels) {
    if (!l.measured() && !std::isfinite(l.driver_bytes)) continue;
    out.push_back(fmt::format("  {:<19} {:<11} {:<28} {:<16} {} {:<10} {}", l.name, l.scope, capacity_text(l),
                              latency_text(h, l), log_bar(l.latency_cycles.value, 10, 2000, 10),
                              gbps_text(l.bandwidth_gbps.value), log_bar(l.bandwidth_gbps.value, 10, 1e5, 10)));
  }
  bool any_note = false;
  for (const auto& l : h.levels) {
    std::vector<std::string> notes = l.notes;
    if (!l.bandwidth_what.empty() && l.bandwidth_gbps.known()) notes.insert(notes.begin(), "read: " + l.bandwidth_what);
    if (std::isfinite(l.detected_lo) && !l.detected_from.empty())
      notes.push_back("capacity " + detected_text(l) +
                      (std::isfinite(l.detected_bytes)
                           ? " (between the points measured at " + bytes_span(l.detected_lo, l.detected_hi) + ")"
                           : std::string()) +
                      ": " + l.detected_from);
    for (const auto& n : notes) {
      if (!any_note) out.push_back("");
      any_note = true;
      out.push_back(fmt::format("  {}: {}", l.name, n));
    }
  }
  std::vector<std::string> missing;
  for (const auto& l : h.levels)
    for (const auto& m : l.missing) missing.push_back(fmt::format("  {}: {}", l.name, m));
  if (!missing.empty()) {
    out.push_back("");
    out.push_back("not measured:");
    out.insert(out.end(), missing.begin(), missing.end());
  }
  if (!h.findings.empty()) {
    out.push_back("");
    out.push_back("what matters most:");
    for (const auto& f : h.findings) out.push_back("  " + f);
  }
  return out;
}

nlohmann::json map_json(const hierarchy& h) {
  nlohmann::json levels = nlohmann::json::array();
  for (const auto& l : h.levels) {
    const double ns = h.latency_ns(l);
    levels.push_back({{"level", l.key},
                      {"name", l.name},
                      {"one_per", l.scope},
                      {"driver_bytes", number_or_null(l.driver_bytes)},
                      {"detected_bytes",
                       {{"edge", number_or_null(l.detected_bytes)},
                        {"last_on_level", number_or_null(l.detected_lo)},
                        {"first_past_it", number_or_null(l.detected_hi)},
                        {"how", l.detected_from}}},
                      {"latency_cycles", figure_json(l.latency_cycles)},
                      {"latency_ns", number_or_null(ns)},
                      {"read_gbps", figure_json(l.bandwidth_gbps)},
                      {"read_what", l.bandwidth_what},
                      {"notes", l.notes},
                      {"missing", l.missing}});
  }
  return {{"sm_clock_mhz", number_or_null(h.sm_clock_mhz)}, {"levels", levels}, {"findings", h.findings}};
}

std::string map_svg(const hierarchy& h, const device_info& d) {
  std::vector<const map_level*> shown;
  bool any = false;
  for (const auto& l : h.levels) {
    any = any || l.measured();
    if (l.measured() || std::isfinite(l.driver_bytes)) shown.push_back(&l);
  }
  if (!any) return {};
  // Box width: capacity on a log scale from 1 KiB to 1 TiB; levels without one (a link) span
  // the page, as what they connect to does.
  const double left = 10, full = 940, row = 58, top = 34;
  const double height = top + row * static_cast<double>(shown.size()) + 10;
  std::string o = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"hierarchy\" viewBox=\"0 0 960 {0:.0f}\" width=\"100%\" "
      "role=\"img\" aria-label=\"memory hierarchy of {1}\">"
      "<text x=\"10\" y=\"20\" font-size=\"14\" font-weight=\"bold\">{1}: each box as wide as its capacity (log "
      "scale, 1 KiB to 1 TiB; dashed: a link)</text>",
      height, html_escape(d.name));
  double y = top;
  for (const auto* l : shown) {
    const double cap = std::isfinite(l->detected_bytes) ? l->detected_bytes
                       : std::isfinite(l->detected_lo)  ? l->detected_lo
                                                        : l->driver_bytes;
    const bool link = !(std::isfinite(cap) && cap > 0);  // a link has no capacity: drawn dashed, full width
    const double f = link ? 1.0 : std::clamp(std::log2(cap / 1024.0) / 30.0, 0.05, 1.0);
    const double w = full * f;
    // Shade by latency: darker is slower.
    const double lat = l->latency_cycles.known()
                           ? std::clamp(std::log(l->latency_cycles.value / 10) / std::log(200.0), 0.0, 1.0)
                           : 0.3;
    const int shade = 235 - static_cast<int>(lat * 120);
    const std::string src = l->latency_cycles.known()   ? l->latency_cycles.source
                            : l->bandwidth_gbps.known() ? l->bandwidth_gbps.source
                                                        : std::string();
    const std::string label1 = fmt::format("{} (one per {}) {}", l->name, l->scope, capacity_text(*l));
    const std::string label2 =
        fmt::format("latency {}   read {}", latency_text(h, *l), gbps_text(l->bandwidth_gbps.value));
    if (!src.empty()) o += "<a href=\"#suite-" + html_escape(source_suite(src)) + "\">";
    o += fmt::format(
        "<rect x=\"{:.0f}\" y=\"{:.0f}\" width=\"{:.0f}\" height=\"{:.0f}\" rx=\"4\" fill=\"rgb({},{},255)\" "
        "stroke=\"#335\"{}><title>{}</title></rect>"
        "<text x=\"{:.0f}\" y=\"{:.0f}\" font-size=\"13\" font-weight=\"bold\">{}</text>"
        "<text x=\"{:.0f}\" y=\"{:.0f}\" font-size=\"12\">{}</text>",
        left, y, w, row - 8, shade, shade, link ? " stroke-dasharray=\"6 4\"" : "",
        html_escape(src.empty() ? l->name : "measured by " + src), left + 6, y + 19, html_escape(label1), left + 6,
        y + 38, html_escape(label2));
    if (!src.empty()) o += "</a>";
    y += row;
  }
  return o + "</svg>";
}

}  // namespace memscope::report
