#include "report/html_report.hpp"
#include "report/map.hpp"

#include "harness/text_output.hpp"
#include "report/findings.hpp"
#include "report/charts.hpp"
#include "report/svg_chart.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace memscope::report {
namespace {

const char* const style = R"css(
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;background:#f4f5f7;color:#111827}
header{background:#111827;color:#fff;padding:18px 32px}header h1{margin:0;font-size:22px}
header p{margin:4px 0 0;color:#9ca3af;font-size:13px}
header details{font-size:12px;color:#9ca3af;margin-top:4px}header details summary{color:#93c5fd;margin:0}
header code{color:#d1d5db;white-space:pre-wrap;word-break:break-all}
main{padding:16px 32px;max-width:1280px}
section{background:#fff;border-radius:8px;padding:16px 20px;margin:16px 0;box-shadow:0 1px 2px rgba(0,0,0,.08)}
h2{margin:0 0 8px;font-size:18px}.cards{display:flex;flex-wrap:wrap;gap:10px}
.card{background:#f9fafb;border:1px solid #e5e7eb;border-radius:6px;padding:8px 12px;min-width:150px}
.card b{display:block;font-size:17px}.card span{font-size:12px;color:#6b7280}
table{border-collapse:collapse;font-size:12px;width:100%;margin-top:8px}
th,td{padding:3px 8px;border-bottom:1px solid #eee;text-align:right;white-space:nowrap}
th:nth-child(-n+2),td:nth-child(-n+2){text-align:left}td.metrics{text-align:left;white-space:normal;color:#4b5563}
tr.fail td{background:#fee2e2}tr.skipped td{color:#9ca3af}p.skips{font-size:13px;color:#6b7280;margin:6px 0}
details summary{cursor:pointer;color:#2563eb;font-size:13px;margin-top:8px}
svg.chart{display:block;margin:10px 0;max-width:100%;height:auto}
svg .title{font-size:14px;font-weight:600}svg .tick{font-size:11px;fill:#374151}svg .label{font-size:12px;fill:#374151}
svg .legend{font-size:11px;fill:#111827}svg .grid{stroke:#e5e7eb}svg .axis{stroke:#6b7280}
svg .mark{stroke:#9333ea;stroke-dasharray:3 3}svg .marklabel{font-size:10px;fill:#7e22ce}
svg .bar{fill:#60a5fa}svg .bar.peer{fill:#f59e0b}svg .ref{stroke:#dc2626;stroke-width:1.5;stroke-dasharray:5 3}
.ok{color:#16a34a}.bad{color:#dc2626}ul.findings{margin:4px 0 8px;padding-left:20px;font-size:14px}
ul.findings li{margin:2px 0}
)css";

std::string card(const std::string& value, const std::string& what) {
  return fmt::format("<div class=\"card\"><b>{}</b><span>{}</span></div>", html_escape(value), html_escape(what));
}

std::string device_section(const results_doc& doc) {
  const auto& d = doc.device;
  std::string o = "<section id=\"device\"><h2>Device and ceilings</h2><div class=\"cards\">";
  o += card(d.name, fmt::format("sm_{}{}, {} SMs", d.cc_major, d.cc_minor, d.sm_count));
  if (doc.copy_ceiling_gbps > 0)
    o += card(fmt::format("{:.0f} GB/s", doc.copy_ceiling_gbps),
              fmt::format("copy ceiling (cudaMemcpy D2D, {} MiB, same run)", doc.copy_ceiling_bytes >> 20));
  o += card(fmt::format("{:.0f} GB/s", d.theoretical_dram_gbps),
            fmt::format("theoretical DRAM ({}-bit, {} MHz)", d.memory_bus_width_bits, d.memory_clock_khz / 1000));
  o += card(fmt::format("{:.1f} GiB", d.total_global_mem / 1073741824.0), "global memory");
  o += card(fmt::format("{:.0f} MiB", d.l2_bytes / 1048576.0),
            fmt::format("L2 ({:.1f} MiB persisting max)", d.persisting_l2_max_bytes / 1048576.0));
  o += card(fmt::format("{} KiB", d.shared_per_block_optin / 1024),
            fmt::format("shared per block opt-in ({} KiB per SM)", d.shared_per_sm / 1024));
  o += card(fmt::format("{} KiB", d.total_const_mem / 1024), "constant memory");
  o += card(
      d.cluster_launch ? fmt::format("{} / {}", d.max_cluster_size_portable, d.max_cluster_size_nonportable) : "none",
      "max cluster (portable / non-portable)");
  o += card(fmt::format("{} MHz", d.sm_clock_khz / 1000), "SM clock (peak)");
  o += card(format_cuda_version(d.driver_version) + " / " + format_cuda_version(d.runtime_version), "driver / runtime");
  o += "</div>";
  // How the timing went: the stopping rule met or not, the clock range, NVML (runs of format 4),
  // what L2 held as each sample began (cold runs).
  if (doc.timing || doc.telemetry_note.size() || doc.cold != cold_mode::off) {
    o += "<ul class=\"findings\">";
    for (const auto& line : split_lines(timing_summary(doc))) o += "<li>" + html_escape(line) + "</li>";
    o += "</ul>";
  }
  if (!doc.incomplete.empty()) o += "<p class=\"bad\">Incomplete run: " + html_escape(doc.incomplete) + "</p>";
  return o + "</section>";
}

/// Why a suite's points were skipped, once per reason, above its charts: a suite skipped
/// everywhere (peer on a one-GPU machine) says so in a line instead of in each of its rows.
std::string skip_summary(const std::vector<const case_result*>& rows) {
  std::vector<std::pair<std::string, std::size_t>> reasons;  // in the order first seen
  std::size_t skipped = 0;
  for (const auto* r : rows) {
    if (r->status != case_status::skipped) continue;
    ++skipped;
    auto it = std::find_if(reasons.begin(), reasons.end(), [&](const auto& e) { return e.first == r->message; });
    if (it == reasons.end()) reasons.emplace_back(r->message, 1);
    else ++it->second;
  }
  if (skipped == 0) return "";
  std::string o = fmt::format("<p class=\"skips\">{} of {} points skipped: ", skipped, rows.size());
  constexpr std::size_t shown = 4;  // reasons that differ only in a size would fill the page
  for (std::size_t i = 0; i < reasons.size() && i < shown; ++i) {
    const auto& [why, n] = reasons[i];
    o += (i ? "; " : "") + html_escape(why.empty() ? "no reason given" : why);
    if (reasons.size() > 1) o += fmt::format(" ({})", n);
  }
  if (reasons.size() > shown) o += fmt::format("; {} more reasons in the rows", reasons.size() - shown);
  return o + "</p>";
}

std::string table(const std::vector<const case_result*>& rows) {
  std::string o =
      "<table><thead><tr><th>case</th><th>axes</th><th>n</th><th>median</th><th>min</th><th>max</th><th>noise</th>"
      "<th>GB/s</th><th title=\"link rows: against the theoretical bandwidth of the link their bytes crossed; copy "
      "rows: against the copy ceiling\">of ceiling</th><th>check</th><th>figures</th></tr></thead><tbody>";
  for (const auto* r : rows) {
    const char* cls = r->status == case_status::ok        ? ""
                      : r->status == case_status::skipped ? " class=\"skipped\""
                                                          : " class=\"fail\"";
    std::string metrics;
    for (const auto& [k, v] : r->metrics) metrics += fmt::format("{}{} = {:.4g}", metrics.empty() ? "" : "; ", k, v);
    if (!r->message.empty()) metrics += (metrics.empty() ? "" : "; ") + r->message;
    if (r->status == case_status::fail) metrics += (metrics.empty() ? "" : "; ") + r->verification_detail;
    if (r->unconverged())
      metrics += (metrics.empty() ? "" : "; ") + std::string("~ stopping rule not met (") + r->stop + ")";
    if (r->clock_throttled)
      metrics +=
          (metrics.empty() ? "" : "; ") + fmt::format("throttled: SM clock down to {:.0f} MHz", r->clock_min_mhz);
    const bool bytes = r->timed && r->bytes_read + r->bytes_written > 0;
    o += fmt::format(
        "<tr{}><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</"
        "td><td>{}</td><td class=\"metrics\">{}</td></tr>",
        cls, html_escape(r->name), html_escape(r->axes_label), r->timed ? std::to_string(r->stats.count) : "-",
        r->timed ? format_seconds(r->stats.median) : "-", r->timed ? format_seconds(r->stats.min) : "-",
        r->timed ? format_seconds(r->stats.max) : "-",
        r->timed ? fmt::format("{:.1f}%{}", 100 * r->stats.noise, r->unconverged() ? "~" : "") : "-",
        bytes ? fmt::format("{:.0f}", r->gbps) : "-", ceiling_cell(*r), to_string(r->status), html_escape(metrics));
  }
  return o + "</tbody></table>";
}

}  // namespace

std::string render_html(const results_doc& doc, const registry& reg) {
  std::vector<std::string> order;
  std::map<std::string, std::vector<const case_result*>> by_suite;
  for (const auto& r : doc.results) {
    if (!by_suite.count(r.suite)) order.push_back(r.suite);
    by_suite[r.suite].push_back(&r);
  }
  std::size_t passed = 0, failed = 0;
  for (const auto& r : doc.results)
    (r.status == case_status::ok || r.status == case_status::skipped ? passed : failed)++;

  std::string o = "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>memscope report: " +
                  html_escape(doc.device.name) + "</title><style>" + style + "</style></head><body>";
  // The device and the date up front; how the figures were made folded away below them.
  o += fmt::format(
      "<header><h1>memscope: the memory hierarchy of {}</h1><p>{} &middot; measured {} &middot; "
      "<span class=\"{}\">{} passed, {} failed</span></p>"
      "<details><summary>how these figures were made</summary><p>memscope {} (commit {}), results format {}</p>"
      "<p><code>{}</code></p></details></header><main>",
      html_escape(doc.device.name),
      html_escape(fmt::format("sm_{}{}, {} SMs", doc.device.cc_major, doc.device.cc_minor, doc.device.sm_count)),
      html_escape(doc.created_utc.substr(0, 10)), failed ? "bad" : "ok", passed, failed, html_escape(doc.tool_version),
      html_escape(doc.commit), doc.format_version, html_escape(doc.command));
  // The hierarchy first, drawn to scale, where the rows describe any of it.
  const auto h = derive_hierarchy(doc, reg);
  if (const std::string svg = map_svg(h, doc.device); !svg.empty()) {
    std::string text;
    for (const auto& line : map_lines(h, doc.device)) text += html_escape(line) + "\n";
    o += "<section id=\"map\"><h2>the memory hierarchy</h2>" + svg +
         "<details><summary>the map as text (memscope map)</summary><pre>" + text + "</pre></details></section>";
  }
  o += device_section(doc);
  const auto all_findings = findings(doc, reg);
  for (const auto& suite : order) {
    const auto& rows = by_suite[suite];
    o += fmt::format("<section id=\"suite-{0}\"><h2>{0}</h2>", html_escape(suite));
    std::string items;
    for (const auto& f : all_findings)
      if (f.suite == suite) items += "<li>" + html_escape(f.text) + "</li>";
    if (!items.empty()) o += "<ul class=\"findings\">" + items + "</ul>";
    o += skip_summary(rows);
    for (const auto& svg : charts_for(reg.find_suite(suite), present::suite_view{doc, suite})) o += svg;
    const bool all_skipped =
        std::all_of(rows.begin(), rows.end(), [](const case_result* r) { return r->status == case_status::skipped; });
    o += fmt::format("<details{}><summary>{} rows</summary>{}</details></section>",
                     rows.size() <= 40 && !all_skipped ? " open" : "", rows.size(), table(rows));
  }
  // The page checks itself: a headless browser reads data-charts (tests/report).
  o +=
      "</main><script>document.body.setAttribute('data-charts', String(document.querySelectorAll('svg.chart').length));"
      "</script></body></html>\n";
  return o;
}

}  // namespace memscope::report
