#pragma once
// Small, dependency-free SVG charts for the HTML report: line charts (optional log axes) and
// horizontal bar charts with reference lines. Pure C++; the output is inline <svg> markup.

#include <string>
#include <utility>
#include <vector>

namespace memscope::report {

struct series {
  std::string name;
  std::vector<std::pair<double, double>> points;  // (x, y), drawn in x order
  bool dashed = false;                            // predictions, models
};

struct line_chart {
  std::string title, x_label, y_label;
  bool log_x = false, log_y = false;
  std::vector<series> lines;
  std::vector<std::pair<double, std::string>> x_marks;  // labelled vertical rules (detected levels)
};

struct bar {
  std::string label;
  double value = 0;
  bool highlight = false;  // the peer (CUB, cudaMemcpy) or the best variant
};

struct bar_chart {
  std::string title, value_label;
  std::vector<bar> bars;
  std::vector<std::pair<std::string, double>> reference_lines;  // ("copy ceiling", 4214)
};

std::string render(const line_chart& c);
std::string render(const bar_chart& c);

/// Escapes &, <, >, " for HTML text and attributes.
std::string html_escape(const std::string& s);

}  // namespace memscope::report
