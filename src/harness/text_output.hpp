#pragma once
// Human and spreadsheet forms of a results document: the stdout table, CSV, Markdown.

#include "harness/results.hpp"

#include <ostream>
#include <string>
#include <vector>

namespace memscope {

/// "812.3 us", "1.204 ms"
std::string format_seconds(double s);

/// "16 B", "64.0 KiB", "1.0 GiB"
std::string format_bytes(double bytes);

void print_table(const results_doc& doc, std::ostream& out);
void write_csv(const results_doc& doc, std::ostream& out);
/// `findings` (sentences, prefixed by their suite) become a section above the table.
void write_markdown(const results_doc& doc, std::ostream& out, const std::vector<std::string>& findings = {});
void print_device(const device_info& d, std::ostream& out);

/// "N passed, N failed[, N skipped]": the closing line of run and verify.
std::string summary_line(const results_doc& doc);

}  // namespace memscope
