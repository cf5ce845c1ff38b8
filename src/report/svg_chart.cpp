#include "report/svg_chart.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace memscope::report {
namespace {

const char* const palette[] = {"#2563eb", "#dc2626", "#16a34a", "#d97706", "#7c3aed",
                               "#0891b2", "#db2777", "#4b5563", "#65a30d", "#9333ea"};

constexpr double width = 760, height = 360, left = 70, right = 190, top = 40, bottom = 50;

struct axis_map {
  double lo, hi;
  bool log;
  double px0, px1;
  double operator()(double v) const {
    const double a = log ? std::log10(std::max(v, 1e-300)) : v;
    const double l = log ? std::log10(lo) : lo, h = log ? std::log10(hi) : hi;
    return px0 + (h > l ? (a - l) / (h - l) : 0.5) * (px1 - px0);
  }
};

/// Round-number ticks for a linear axis, decades for a log axis.
std::vector<double> ticks(double lo, double hi, bool log) {
  std::vector<double> t;
  if (log) {
    for (double d = std::pow(10.0, std::floor(std::log10(lo))); d <= hi * 1.0001; d *= 10)
      if (d >= lo * 0.9999) t.push_back(d);
    if (t.size() < 2) t = {lo, hi};
    return t;
  }
  const double span = hi - lo;
  if (span <= 0) return {lo};
  const double raw = span / 5, mag = std::pow(10.0, std::floor(std::log10(raw)));
  const double step = raw / mag < 2 ? 2 * mag : raw / mag < 5 ? 5 * mag : 10 * mag;
  for (double v = std::ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) t.push_back(v);
  return t;
}

std::string number(double v) {
  const double a = std::fabs(v);
  if (a >= 1e9) return fmt::format("{:.3g}G", v / 1e9);
  if (a >= 1e6) return fmt::format("{:.3g}M", v / 1e6);
  if (a >= 1e4) return fmt::format("{:.3g}k", v / 1e3);
  return fmt::format("{:.4g}", v);
}

std::string frame(const std::string& title, double h) {
  return fmt::format(
      "<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {0} {1}\" width=\"{0}\" height=\"{1}\" "
      "role=\"img\" aria-label=\"{2}\"><rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>"
      "<text x=\"{3}\" y=\"22\" class=\"title\">{2}</text>",
      width, h, html_escape(title), left);
}

}  // namespace

std::string html_escape(const std::string& s) {
  std::string o;
  o.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      default: o += c;
    }
  }
  return o;
}

std::string render(const line_chart& c) {
  double xlo = std::numeric_limits<double>::max(), xhi = -xlo, ylo = xlo, yhi = -xlo;
  for (const auto& s : c.lines)
    for (const auto& [x, y] : s.points) {
      if ((c.log_x && x <= 0) || (c.log_y && y <= 0) || !std::isfinite(x) || !std::isfinite(y)) continue;
      xlo = std::min(xlo, x); xhi = std::max(xhi, x); ylo = std::min(ylo, y); yhi = std::max(yhi, y);
    }
  if (xlo > xhi) return "";
  if (!c.log_y) { ylo = std::min(0.0, ylo); yhi *= 1.08; }
  else { ylo /= 1.3; yhi *= 1.3; }
  if (yhi <= ylo) yhi = ylo + 1;
  const axis_map mx{xlo, xhi, c.log_x, left, width - right}, my{ylo, yhi, c.log_y, height - bottom, top};
  std::string o = frame(c.title, height);
  for (double t : ticks(ylo, yhi, c.log_y)) {
    o += fmt::format("<line x1=\"{}\" x2=\"{}\" y1=\"{:.1f}\" y2=\"{:.1f}\" class=\"grid\"/>", left, width - right, my(t), my(t));
    o += fmt::format("<text x=\"{}\" y=\"{:.1f}\" class=\"tick\" text-anchor=\"end\">{}</text>", left - 6, my(t) + 4, number(t));
  }
  for (double t : ticks(xlo, xhi, c.log_x))
    o += fmt::format("<text x=\"{:.1f}\" y=\"{}\" class=\"tick\" text-anchor=\"middle\">{}</text>", mx(t), height - bottom + 16, number(t));
  for (const auto& [x, label] : c.x_marks) {
    if (x < xlo || x > xhi) continue;
    o += fmt::format("<line x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1}\" y2=\"{2}\" class=\"mark\"/>"
                     "<text x=\"{3:.1f}\" y=\"{4}\" class=\"marklabel\">{5}</text>",
                     mx(x), top, height - bottom, mx(x) + 3, top + 12, html_escape(label));
  }
  o += fmt::format("<line x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\" class=\"axis\"/>", left, width - right, height - bottom);
  o += fmt::format("<line x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\" class=\"axis\"/>", left, top, height - bottom);
  o += fmt::format("<text x=\"{}\" y=\"{}\" class=\"label\" text-anchor=\"middle\">{}</text>", (left + width - right) / 2,
                   height - 12, html_escape(c.x_label + (c.log_x ? " (log)" : "")));
  o += fmt::format("<text transform=\"translate(16,{}) rotate(-90)\" class=\"label\" text-anchor=\"middle\">{}</text>",
                   (top + height - bottom) / 2, html_escape(c.y_label + (c.log_y ? " (log)" : "")));
  for (std::size_t i = 0; i < c.lines.size(); ++i) {
    const auto& s = c.lines[i];
    auto pts = s.points;
    std::sort(pts.begin(), pts.end());
    std::string path;
    for (const auto& [x, y] : pts) {
      if ((c.log_x && x <= 0) || (c.log_y && y <= 0)) continue;
      path += fmt::format("{}{:.1f},{:.1f}", path.empty() ? "M" : " L", mx(x), my(y));
    }
    const char* color = palette[i % 10];
    o += fmt::format("<path d=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\"{} class=\"series\"/>", path, color,
                     s.dashed ? " stroke-dasharray=\"6 4\"" : "");
    for (const auto& [x, y] : pts)
      if (!((c.log_x && x <= 0) || (c.log_y && y <= 0)))
        o += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"2.5\" fill=\"{}\"><title>{}: {} , {}</title></circle>",
                         mx(x), my(y), color, html_escape(s.name), number(x), number(y));
    const double ly = top + 14 + 16.0 * static_cast<double>(i);
    o += fmt::format("<line x1=\"{0}\" x2=\"{1}\" y1=\"{2:.1f}\" y2=\"{2:.1f}\" stroke=\"{3}\" stroke-width=\"2\"{4}/>"
                     "<text x=\"{5}\" y=\"{6:.1f}\" class=\"legend\">{7}</text>",
                     width - right + 10, width - right + 30, ly, color, s.dashed ? " stroke-dasharray=\"6 4\"" : "",
                     width - right + 34, ly + 4, html_escape(s.name));
  }
  return o + "</svg>";
}

std::string render(const bar_chart& c) {
  if (c.bars.empty()) return "";
  constexpr double row = 20, label_w = 300, bar_left = label_w + 10;
  const double h = top + row * static_cast<double>(c.bars.size()) + bottom;
  double vmax = 0;
  for (const auto& b : c.bars) vmax = std::max(vmax, b.value);
  for (const auto& r : c.reference_lines) vmax = std::max(vmax, r.second);
  vmax = vmax > 0 ? vmax * 1.05 : 1;
  const double bar_right = width - 60;
  auto px = [&](double v) { return bar_left + v / vmax * (bar_right - bar_left); };
  std::string o = frame(c.title, h);
  for (std::size_t i = 0; i < c.bars.size(); ++i) {
    const auto& b = c.bars[i];
    const double y = top + row * static_cast<double>(i);
    o += fmt::format("<text x=\"{}\" y=\"{:.1f}\" class=\"tick\" text-anchor=\"end\">{}</text>", label_w, y + 14, html_escape(b.label));
    o += fmt::format("<rect x=\"{}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{}\" class=\"bar{}\"><title>{}: {}</title></rect>",
                     bar_left, y + 3, std::max(0.0, px(b.value) - bar_left), row - 6, b.highlight ? " peer" : "",
                     html_escape(b.label), number(b.value));
    o += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" class=\"tick\">{}</text>", px(b.value) + 4, y + 14, number(b.value));
  }
  const double y1 = top + row * static_cast<double>(c.bars.size());
  for (std::size_t k = 0; k < c.reference_lines.size(); ++k) {
    const auto& [name, v] = c.reference_lines[k];
    o += fmt::format("<line x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1}\" y2=\"{2:.1f}\" class=\"ref\"/>"
                     "<text x=\"{0:.1f}\" y=\"{3:.1f}\" class=\"marklabel\" text-anchor=\"middle\">{4}</text>",
                     px(v), top - 4, y1, y1 + 14 + 12.0 * static_cast<double>(k), html_escape(name + " " + number(v)));
  }
  o += fmt::format("<text x=\"{}\" y=\"{:.1f}\" class=\"label\">{}</text>", bar_left, h - 8, html_escape(c.value_label));
  return o + "</svg>";
}

}  // namespace memscope::report
