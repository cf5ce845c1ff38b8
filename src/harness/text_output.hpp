#pragma once
// Human and spreadsheet forms of a results document: the stdout table, CSV, Markdown.

#include "harness/results.hpp"

#include <ostream>
#include <string>
#include <vector>

namespace memscope {

/// The lines of `s`, split at '\n' (a trailing newline gives a last empty line).
std::vector<std::string> split_lines(const std::string& s);

/// "812.3 us", "1.204 ms"
std::string format_seconds(double s);

/// "16 B", "64.0 KiB", "1.0 GiB", up to PiB; a non-finite or negative size prints as such.
std::string format_bytes(double bytes);

/// "104-111" for a span of figures at `digits` decimals, "107" where both ends print the same.
std::string figure_span(double lo, double hi, int digits = 0);

/// Text from a file made safe for a terminal: control characters (ESC and the rest) become '?'.
std::string terminal_safe(const std::string& s);

/// Text made safe for one Markdown table cell: '|' escaped, newlines folded, HTML escaped.
std::string markdown_cell(const std::string& s);

void print_table(const results_doc& doc, std::ostream& out);
void write_csv(const results_doc& doc, std::ostream& out);
/// `findings` (sentences, prefixed by their suite) become a section above the table.
void write_markdown(const results_doc& doc, std::ostream& out, const std::vector<std::string>& findings = {});
void print_device(const device_info& d, std::ostream& out);

/// How the timing went: points that met the stopping rule, the SM clock range seen, throttled
/// points, NVML's power and temperature (or why they are missing). Lines separated by '\n'.
std::string timing_summary(const results_doc& doc);

/// "N passed, N failed[, N skipped]": the closing line of run and verify.
std::string summary_line(const results_doc& doc);

}  // namespace memscope
