#pragma once
// Small, dependency-free SVG charts for the HTML report: line charts (log axes ticked at every
// decade, or at powers of two in binary units for byte axes) and horizontal bar charts with
// reference lines and a key for the highlighted bar. A figure may carry the spread behind it
// (the slowest and the fastest sample, the slowest and the fastest SM pair), drawn as a whisker
// and named once under the chart. Pure C++; the output is inline <svg> markup. Non-finite
// values never reach the page.

#include <cmath>
#include <string>
#include <utility>
#include <vector>

namespace memscope::report {

enum class axis_scale { linear, log10, log2, log2_bytes };

/// The range behind a plotted figure; a whisker is drawn only where both ends are drawable,
/// lo < hi and the figure lies between them.
struct spread {
  double lo = NAN, hi = NAN;
};

struct point {
  double x = 0, y = 0;
  spread range = {};
};

struct series {
  std::string name;
  std::vector<point> points;  // drawn in x order
  bool dashed = false;        // predictions, models
};

struct line_chart {
  std::string title, x_label, y_label;
  axis_scale x_scale = axis_scale::linear, y_scale = axis_scale::linear;
  std::vector<series> lines;
  std::vector<std::pair<double, std::string>> x_marks;  // labelled vertical rules (detected levels)
  std::vector<std::pair<std::string, double>> y_refs;   // labelled horizontal rules (a ceiling)
  std::string range_key;                                // what the whiskers span ("the slowest to the fastest sample")
};

struct bar {
  std::string label;
  double value = 0;
  bool highlight = false;  // the reference the others are read against
  spread range = {};
};

struct bar_chart {
  std::string title, value_label;
  std::vector<bar> bars;
  std::vector<std::pair<std::string, double>> reference_lines;  // ("copy ceiling", 4214)
  std::string peer_key;   // what the highlight colour means here ("CUB, the peer")
  std::string range_key;  // what the whiskers span
};

/// Empty when nothing finite is left to draw.
std::string render(const line_chart& c);
std::string render(const bar_chart& c);

/// Tick positions for [lo, hi]: round numbers (linear), every decade (log10; with 2 and 5
/// between when the range spans less than two decades), or powers of two (log2), at most about
/// a dozen; bounded for any finite range.
std::vector<double> ticks(double lo, double hi, axis_scale s);

/// Escapes &, <, >, " for HTML text and attributes.
std::string html_escape(const std::string& s);

}  // namespace memscope::report
