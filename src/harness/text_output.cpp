#include "harness/text_output.hpp"

#include "harness/nvml_telemetry.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <vector>

namespace memscope {

std::vector<std::string> split_lines(const std::string& s) {
  std::vector<std::string> out;
  std::size_t a = 0;
  while (a <= s.size()) {
    const std::size_t b = s.find('\n', a);
    out.push_back(s.substr(a, b == std::string::npos ? std::string::npos : b - a));
    if (b == std::string::npos) break;
    a = b + 1;
  }
  return out;
}

std::string format_seconds(double s) {
  if (s < 1e-6) return fmt::format("{:.1f} ns", s * 1e9);
  if (s < 1e-3) return fmt::format("{:.2f} us", s * 1e6);
  if (s < 1.0) return fmt::format("{:.3f} ms", s * 1e3);
  return fmt::format("{:.3f} s", s);
}

std::string format_bytes(double b) {
  if (!std::isfinite(b) || b < 0) return fmt::format("{} B", b);
  const char* unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int u = 0;
  while (b >= 1024 && u < 6) {
    b /= 1024;
    ++u;
  }
  return u == 0 ? fmt::format("{:.0f} B", b) : fmt::format("{:.1f} {}", b, unit[u]);
}

std::string figure_span(double lo, double hi, int digits) {
  const std::string a = fmt::format("{:.{}f}", lo, digits), b = fmt::format("{:.{}f}", hi, digits);
  return a == b ? a : a + "-" + b;
}

std::string terminal_safe(const std::string& s) {
  std::string o = s;
  for (auto& c : o)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  return o;
}

std::string markdown_cell(const std::string& s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '|':
        o += "\\|";
        break;
      case '<':
        o += "&lt;";
        break;
      case '>':
        o += "&gt;";
        break;
      case '&':
        o += "&amp;";
        break;
      case '\n':
      case '\r':
      case '\t':
        o += ' ';
        break;
      default:
        o += static_cast<unsigned char>(c) < 0x20 || c == 0x7f ? '?' : c;
    }
  }
  return o;
}

namespace {

bool unconverged(const case_result& r) { return r.unconverged(); }

const char* check_word(const case_result& r) {
  switch (r.status) {
    case case_status::ok:
      return "ok";
    case case_status::fail:
      return "FAIL";
    case case_status::skipped:
      return "skip";
    case case_status::error:
      return "ERROR";
  }
  return "?";
}

struct row_text {
  std::vector<std::string> cells;
  std::string note;  // failure detail or skip reason, printed under the row
};

const std::vector<std::string> header = {"case", "axes",  "n",    "median",     "min",
                                         "max",  "noise", "GB/s", "of ceiling", "check"};

row_text render(const case_result& r) {
  row_text t;
  t.cells = {terminal_safe(r.id()), terminal_safe(r.axes_label)};
  if (r.timed) {
    t.cells.push_back(std::to_string(r.stats.count));
    t.cells.push_back(format_seconds(r.stats.median));
    t.cells.push_back(format_seconds(r.stats.min));
    t.cells.push_back(format_seconds(r.stats.max));
    // '~': the point did not meet the stopping rule (timed out, capped, or run once).
    t.cells.push_back(fmt::format("{:.1f}%{}", 100 * r.stats.noise, unconverged(r) ? "~" : ""));
    const bool has_bytes = r.bytes_read + r.bytes_written > 0;
    t.cells.push_back(has_bytes ? fmt::format("{:.1f}", r.gbps) : "-");
    t.cells.push_back(ceiling_cell(r));
  } else {
    for (int i = 0; i < 7; ++i) t.cells.push_back("-");
  }
  t.cells.push_back(check_word(r));
  if (r.status == case_status::fail) t.note = "verification: " + r.verification_detail;
  else if (r.status == case_status::skipped) t.note = "skipped: " + r.message;
  else if (r.status == case_status::error) t.note = "error: " + r.message;
  if (r.clock_throttled)
    t.note += (t.note.empty() ? "" : "; ") +
              fmt::format("throttled: the SM clock fell to {:.0f} MHz during the samples", r.clock_min_mhz);
  for (const auto& [k, v] : r.metrics) t.note += (t.note.empty() ? "" : "; ") + fmt::format("{} = {:.4g}", k, v);
  for (const auto& [k, v] : r.labels) t.note += (t.note.empty() ? "" : "; ") + k + " = " + v;
  t.note = terminal_safe(t.note);
  return t;
}

std::string csv_escape(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

const char* const ceiling_legend =
    "'link' rows against the theoretical bandwidth of the link their bytes crossed (host memory, a peer GPU), for "
    "the directions they moved; 'copy' rows against the copy ceiling";

/// A row shown against its link (not merely naming one: verify's untimed rows have no figure).
bool any_link_row(const results_doc& doc) {
  return std::any_of(doc.results.begin(), doc.results.end(), [](const case_result& r) {
    const auto c = ceiling_of(r);
    return c && c->name == "link";
  });
}

}  // namespace

void print_table(const results_doc& doc, std::ostream& out) {
  std::vector<row_text> rows;
  for (const auto& r : doc.results) rows.push_back(render(r));
  std::vector<std::size_t> width(header.size());
  for (std::size_t c = 0; c < header.size(); ++c) width[c] = header[c].size();
  for (const auto& r : rows)
    for (std::size_t c = 0; c < r.cells.size(); ++c) width[c] = std::max(width[c], r.cells[c].size());
  auto line = [&](const std::vector<std::string>& cells) {
    std::string s;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      // Text columns left-aligned, figures right-aligned.
      s += c < 2 ? fmt::format("{:<{}}", cells[c], width[c]) : fmt::format("{:>{}}", cells[c], width[c]);
      if (c + 1 < cells.size()) s += "  ";
    }
    out << s << '\n';
  };
  if (doc.mode == "run" && doc.copy_ceiling_gbps > 0)
    out << fmt::format("copy ceiling (cudaMemcpy device-to-device, {} MiB, read+write): {:.1f} GB/s\n",
                       doc.copy_ceiling_bytes >> 20, doc.copy_ceiling_gbps);
  line(header);
  for (const auto& r : rows) {
    line(r.cells);
    if (!r.note.empty()) out << "    " << r.note << '\n';
  }
  if (std::any_of(doc.results.begin(), doc.results.end(), unconverged))
    out << "~ did not meet the stopping rule (noise: relative standard deviation of the samples)\n";
  if (any_link_row(doc)) out << "of ceiling: " << ceiling_legend << '\n';
}

std::string timing_summary(const results_doc& doc) {
  std::size_t timed = 0, converged = 0, throttled = 0, clocked = 0, with_nvml = 0;
  std::map<std::string, std::size_t> stops;
  double lo = 0, hi = 0, p_lo = 0, p_hi = 0, t_lo = 0, t_hi = 0;
  std::set<std::string> limits;
  const auto widen = [](double& a, double& b, double v, bool first) {
    a = first ? v : std::min(a, v);
    b = first ? v : std::max(b, v);
  };
  for (const auto& r : doc.results) {
    if (!r.timed) continue;
    ++timed;
    if (!r.unconverged()) ++converged;
    else ++stops[r.stop];
    if (r.clock_mhz > 0) {
      widen(lo, hi, r.clock_min_mhz, clocked == 0);
      hi = std::max(hi, r.clock_mhz);
      ++clocked;
    }
    throttled += r.clock_throttled;
    if (r.has_telemetry) {
      widen(p_lo, p_hi, r.power_w, with_nvml == 0);
      widen(t_lo, t_hi, r.temperature_c, with_nvml == 0);
      for (const auto& l : r.clock_limits)
        if (is_throttle_reason(l)) limits.insert(l);
      ++with_nvml;
    }
  }
  std::string s = fmt::format("timing: {} of {} timed points met the stopping rule", converged, timed);
  if (doc.timing)
    s += doc.timing->run_once
             ? " (--run-once: one launch each)"
             : fmt::format(
                   " (at least {} samples and {:g} s of GPU time, relative standard error at most "
                   "{:g}%, within {:g} s)",
                   doc.timing->min_samples, doc.timing->min_time_s, 100 * doc.timing->max_noise, doc.timing->timeout_s);
  if (!stops.empty()) {
    std::vector<std::string> parts;
    for (const auto& [k, n] : stops)
      parts.push_back(fmt::format("{} {}", n, k == "fixed" ? "compared (fixed count)" : k));
    s += fmt::format("; not met: {}", fmt::join(parts, ", "));
  }
  if (const std::string l2 = describe(doc.cold); !l2.empty()) s += "\n" + l2;
  const double peak = doc.device.sm_clock_khz / 1e3;
  if (clocked > 0) {
    s += fmt::format("\nSM clock while timing: {} MHz (peak {:.0f} MHz)", figure_span(lo, hi), peak);
    const double thr = doc.timing ? doc.timing->throttle_threshold : 0.75;
    s += throttled ? fmt::format("; {} point{} ran below {:.0f}% of the peak (throttled, marked)", throttled,
                                 throttled == 1 ? "" : "s", 100 * thr)
                   : fmt::format("; no point ran below {:.0f}% of the peak", 100 * thr);
  }
  if (with_nvml > 0) {
    s += fmt::format("\nNVML: power {} W, temperature {} C", figure_span(p_lo, p_hi), figure_span(t_lo, t_hi));
    s += limits.empty() ? std::string(", no power or thermal clock limit seen")
                        : fmt::format(", clock limits seen: {}", fmt::join(limits, ", "));
  } else if (!doc.telemetry_note.empty()) {
    s += "\n" + terminal_safe(doc.telemetry_note);
  }
  return s;
}

void write_csv(const results_doc& doc, std::ostream& out) {
  out << "suite,case,variant,axes,status,verification,samples,median_s,min_s,max_s,noise,bytes_read,bytes_written,"
         "elements,gbps,fraction_of_copy,ceiling,fraction_of_ceiling,elements_per_s,converged,stop,sm_clock_mhz,"
         "throttled,"
         "l2_start,detail\n";
  for (const auto& r : doc.results) {
    const auto ceiling = ceiling_of(r);
    const std::string detail =
        r.status == case_status::ok ? "" : (r.message.empty() ? r.verification_detail : r.message);
    // What L2 held as each sample began: a row read alone must not lose its regime.
    const char* l2 = r.timed ? to_string(r.cold) : "";
    out << fmt::format(
        "{},{},{},{},{},{},{},{:.9g},{:.9g},{:.9g},{:.6g},{},{},{},{:.6g},{:.6g},{},{},{:.6g},{},{},{:.0f},{},{},{}\n",
        csv_escape(r.suite), csv_escape(r.name), csv_escape(r.variant), csv_escape(r.axes_label), to_string(r.status),
        to_string(r.verification), r.stats.count, r.stats.median, r.stats.min, r.stats.max, r.stats.noise, r.bytes_read,
        r.bytes_written, r.elements, r.gbps, r.fraction_of_copy, ceiling ? ceiling->name : "",
        ceiling ? fmt::format("{:.6g}", ceiling->fraction) : std::string(), r.elements_per_s,
        r.timed ? (unconverged(r) ? "no" : "yes") : "", csv_escape(r.stop), r.clock_mhz, r.clock_throttled ? "yes" : "",
        l2, csv_escape(detail));
  }
}

void write_markdown(const results_doc& doc, std::ostream& out, const std::vector<std::string>& findings) {
  out << "# memscope results\n\n";
  out << fmt::format("- device: {} (sm_{}{}, {} SMs, {:.0f} MiB L2)\n", markdown_cell(doc.device.name),
                     doc.device.cc_major, doc.device.cc_minor, doc.device.sm_count, doc.device.l2_bytes / 1048576.0);
  out << fmt::format("- memscope {} ({}), {}, command: {}\n", markdown_cell(doc.tool_version),
                     markdown_cell(doc.commit), markdown_cell(doc.created_utc), markdown_cell(doc.command));
  if (doc.copy_ceiling_gbps > 0) out << fmt::format("- copy ceiling: {:.1f} GB/s\n", doc.copy_ceiling_gbps);
  if (!doc.incomplete.empty()) out << "- **incomplete**: " << markdown_cell(doc.incomplete) << '\n';
  if (any_link_row(doc)) out << "- of ceiling: " << ceiling_legend << '\n';
  if (!findings.empty()) {
    out << "\n## Findings\n\n";
    for (const auto& f : findings) out << "- " << markdown_cell(f) << '\n';
  }
  out << "\n| " << fmt::format("{}", fmt::join(header, " | ")) << " |\n|";
  for (std::size_t i = 0; i < header.size(); ++i) out << (i < 2 ? " --- |" : " ---: |");
  out << '\n';
  for (const auto& r : doc.results) {
    auto t = render(r);
    for (auto& c : t.cells) c = markdown_cell(c);
    out << "| " << fmt::format("{}", fmt::join(t.cells, " | ")) << " |\n";
  }
  if (std::any_of(doc.results.begin(), doc.results.end(), unconverged)) out << "\n~ did not meet the stopping rule\n";
  if (doc.mode == "run") {
    out << '\n';
    for (const auto& l : split_lines(timing_summary(doc))) out << "- " << markdown_cell(l) << '\n';
  }
  out << '\n' << summary_line(doc) << '\n';
}

void print_device(const device_info& d, std::ostream& out) {
  auto kv = [&](const char* k, const std::string& v) { out << fmt::format("  {:<34} {}\n", k, v); };
  auto mib = [](double b) { return fmt::format("{:.1f} MiB", b / 1048576.0); };
  auto kib = [](double b) { return fmt::format("{:.0f} KiB", b / 1024.0); };
  out << fmt::format("device {}: {}\n", d.ordinal, terminal_safe(d.name));
  kv("compute capability", fmt::format("{}.{}", d.cc_major, d.cc_minor));
  kv("multiprocessors", std::to_string(d.sm_count));
  kv("SM clock (peak)", fmt::format("{} MHz", d.sm_clock_khz / 1000));
  kv("memory clock (peak)", fmt::format("{} MHz", d.memory_clock_khz / 1000));
  kv("memory bus width", fmt::format("{} bits", d.memory_bus_width_bits));
  kv("theoretical DRAM bandwidth", fmt::format("{:.1f} GB/s", d.theoretical_dram_gbps));
  kv("global memory", fmt::format("{:.1f} GiB", d.total_global_mem / 1073741824.0));
  kv("constant memory (totalConstMem)", kib(static_cast<double>(d.total_const_mem)));
  kv("L2 cache", mib(d.l2_bytes));
  kv("persisting L2 max", mib(d.persisting_l2_max_bytes));
  kv("access policy window max", mib(d.access_policy_max_window_bytes));
  kv("shared memory per block", kib(static_cast<double>(d.shared_per_block)));
  kv("shared memory per block (opt-in)", kib(static_cast<double>(d.shared_per_block_optin)));
  kv("shared memory per SM", kib(static_cast<double>(d.shared_per_sm)));
  kv("shared memory reserved per block", fmt::format("{} B", d.reserved_shared_per_block));
  kv("registers per SM", std::to_string(d.regs_per_sm));
  kv("registers per block", std::to_string(d.regs_per_block));
  kv("max threads per block", std::to_string(d.max_threads_per_block));
  kv("max threads per SM", std::to_string(d.max_threads_per_sm));
  kv("max blocks per SM", std::to_string(d.max_blocks_per_sm));
  kv("warp size", std::to_string(d.warp_size));
  kv("globals cached in L1", d.global_l1_cache ? "yes" : "no");
  kv("ECC", d.ecc_enabled ? "on" : "off");
  kv("thread-block clusters", d.cluster_launch ? "yes" : "no");
  if (d.cluster_launch) {
    kv("max cluster size (portable)", std::to_string(d.max_cluster_size_portable));
    kv("max cluster size (non-portable)", std::to_string(d.max_cluster_size_nonportable));
  }
  kv("driver / runtime", format_cuda_version(d.driver_version) + " / " + format_cuda_version(d.runtime_version));
  kv("PCI bus", std::to_string(d.pci_bus_id));
}

std::string summary_line(const results_doc& doc) {
  std::size_t passed = 0, failed = 0, skipped = 0;
  for (const auto& r : doc.results) {
    if (r.status == case_status::ok) ++passed;
    else if (r.status == case_status::skipped) ++skipped;
    else ++failed;
  }
  std::string s = fmt::format("{} passed, {} failed", passed, failed);
  if (skipped) s += fmt::format(", {} skipped", skipped);
  return s;
}

}  // namespace memscope
