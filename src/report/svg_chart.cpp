#include "report/svg_chart.hpp"

#include "harness/text_output.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace memscope::report {
namespace {

const char* const palette[] = {"#2563eb", "#dc2626", "#16a34a", "#d97706", "#7c3aed",
                               "#0891b2", "#db2777", "#4b5563", "#65a30d", "#9333ea"};

constexpr double width = 760, height = 360, left = 70, right = 190, top = 46, bottom = 50;
constexpr double char_px = 6.6;  // average glyph width of the 11-12 px labels

bool is_log(axis_scale s) { return s != axis_scale::linear; }

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

std::string number(double v) {
  const double a = std::fabs(v);
  if (a >= 1e15) return fmt::format("{:.2e}", v);
  if (a >= 1e9) return fmt::format("{:.3g}G", v / 1e9);
  if (a >= 1e6) return fmt::format("{:.3g}M", v / 1e6);
  if (a >= 1e4) return fmt::format("{:.3g}k", v / 1e3);
  return fmt::format("{:.4g}", v);
}

std::string tick_text(double v, axis_scale s) {
  if (s == axis_scale::log2_bytes) {
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    int u = 0;
    while (v >= 1024 && u < 5) {
      v /= 1024;
      ++u;
    }
    return fmt::format("{:g} {}", v, units[u]);
  }
  return number(v);
}

/// Shortens text to about `px` pixels, with an ellipsis; the full text goes in a <title>.
std::string fit(const std::string& s, double px) {
  const auto max_chars = static_cast<std::size_t>(std::max(4.0, px / char_px));
  if (s.size() <= max_chars) return s;
  return s.substr(0, max_chars - 1) + "\u2026";
}

std::string frame(const std::string& title, double h) {
  // Long titles get a smaller font rather than running off the chart.
  const double avail = width - left - 10;
  const double size = std::clamp(avail / std::max<double>(1.0, static_cast<double>(title.size()) * 0.55), 9.0, 14.0);
  return fmt::format(
      "<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {0} {1}\" width=\"{0}\" height=\"{1}\" "
      "role=\"img\" aria-label=\"{2}\"><rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>"
      "<text x=\"{3}\" y=\"22\" class=\"title\" style=\"font-size:{4:.1f}px\">{2}</text>",
      width, h, html_escape(title), 10, size);
}

bool drawable(double v, axis_scale s) { return std::isfinite(v) && (!is_log(s) || v > 0) && std::fabs(v) < 1e300; }

/// A spread is drawn only where it brackets its figure: a range that does not hold the median
/// it is drawn around says the row is inconsistent, not that the figure is uncertain.
bool has_whisker(double v, const spread& r, axis_scale s) {
  const double slack = 1e-9 * std::fabs(v);
  return drawable(r.lo, s) && drawable(r.hi, s) && r.lo < r.hi && r.lo <= v + slack && v <= r.hi + slack;
}

std::string range_text(double v, const spread& r, axis_scale s) {
  return has_whisker(v, r, s) ? fmt::format("{} ({} to {})", number(v), number(r.lo), number(r.hi)) : number(v);
}

/// Inline, so a chart copied out of the page keeps its whiskers.
constexpr const char* bar_whisker = "stroke=\"#1f2937\" stroke-width=\"1.2\" fill=\"none\" class=\"whisker\"";

std::string whisker_note(const std::string& key) {
  return "whiskers: " + (key.empty() ? std::string("the spread") : key);
}

}  // namespace

std::vector<double> ticks(double lo, double hi, axis_scale s) {
  if (!std::isfinite(lo) || !std::isfinite(hi) || hi < lo) return {};
  if (is_log(s)) {
    if (lo <= 0) return {};
    std::vector<double> t;
    if (s == axis_scale::log10) {
      const double decades = std::log10(hi) - std::log10(lo);
      const double step = std::pow(10.0, std::max(1.0, std::ceil(decades / 12)));  // at most ~12 ticks
      const bool subdivide = decades < 2;
      for (double d = std::pow(10.0, std::floor(std::log10(lo))); d <= hi * 1.0001 && t.size() < 64; d *= step)
        for (double m : subdivide ? std::vector<double>{1, 2, 5} : std::vector<double>{1})
          if (d * m >= lo * 0.9999 && d * m <= hi * 1.0001) t.push_back(d * m);
    } else {
      const double octaves = std::log2(hi) - std::log2(lo);
      const double step = std::max(1.0, std::ceil(octaves / 10));
      for (double e = std::floor(std::log2(lo)); e <= std::log2(hi) + 1e-9 && t.size() < 64; e += step) {
        const double v = std::exp2(e);
        if (v >= lo * 0.9999) t.push_back(v);
      }
    }
    if (t.size() < 2) t = {lo, hi};
    return t;
  }
  const double span = hi - lo;
  if (!(span > 0)) return {lo};
  const double raw = span / 5, mag = std::pow(10.0, std::floor(std::log10(raw)));
  const double step = raw / mag < 2 ? 2 * mag : raw / mag < 5 ? 5 * mag : 10 * mag;
  std::vector<double> t;
  // Counted, not accumulated: lo + step can equal lo where step is below lo's precision.
  const double first = std::ceil(lo / step);
  for (int i = 0; i < 64; ++i) {
    const double v = (first + i) * step;
    if (v > hi + step * 1e-9) break;
    t.push_back(v);
  }
  if (t.size() < 2) t = {lo, hi};
  return t;
}

std::string html_escape(const std::string& s) {
  std::string o;
  o.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&':
        o += "&amp;";
        break;
      case '<':
        o += "&lt;";
        break;
      case '>':
        o += "&gt;";
        break;
      case '"':
        o += "&quot;";
        break;
      default:
        o += c;
    }
  }
  return o;
}

std::string render(const line_chart& c) {
  double xlo = std::numeric_limits<double>::max(), xhi = -xlo, ylo = xlo, yhi = -xlo;
  bool whiskers = false;
  for (const auto& s : c.lines)
    for (const auto& p : s.points) {
      if (!drawable(p.x, c.x_scale) || !drawable(p.y, c.y_scale)) continue;
      xlo = std::min(xlo, p.x);
      xhi = std::max(xhi, p.x);
      ylo = std::min(ylo, p.y);
      yhi = std::max(yhi, p.y);
      if (has_whisker(p.y, p.range, c.y_scale)) {
        whiskers = true;
        ylo = std::min(ylo, p.range.lo);
        yhi = std::max(yhi, p.range.hi);
      }
    }
  if (xlo > xhi) return "";
  for (const auto& [name, v] : c.y_refs)
    if (drawable(v, c.y_scale)) yhi = std::max(yhi, v);
  if (!is_log(c.y_scale)) {
    ylo = std::min(0.0, ylo);
    yhi *= 1.08;
  } else {
    ylo /= 1.3;
    yhi *= 1.3;
  }
  if (yhi <= ylo) yhi = ylo + 1;
  const axis_map mx{xlo, xhi, is_log(c.x_scale), left, width - right},
      my{ylo, yhi, is_log(c.y_scale), height - bottom, top};
  std::string o = frame(c.title, height);
  for (double t : ticks(ylo, yhi, c.y_scale)) {
    o += fmt::format("<line x1=\"{}\" x2=\"{}\" y1=\"{:.1f}\" y2=\"{:.1f}\" class=\"grid\"/>", left, width - right,
                     my(t), my(t));
    o += fmt::format("<text x=\"{}\" y=\"{:.1f}\" class=\"tick\" text-anchor=\"end\">{}</text>", left - 6, my(t) + 4,
                     tick_text(t, c.y_scale));
  }
  for (double t : ticks(xlo, xhi, c.x_scale))
    o += fmt::format(
        "<line x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1}\" y2=\"{2}\" class=\"axis\"/>"
        "<text x=\"{0:.1f}\" y=\"{3}\" class=\"tick\" text-anchor=\"middle\">{4}</text>",
        mx(t), height - bottom, height - bottom + 4, height - bottom + 16, tick_text(t, c.x_scale));
  for (const auto& [x, label] : c.x_marks) {
    if (!(x >= xlo && x <= xhi)) continue;
    o += fmt::format(
        "<line x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1}\" y2=\"{2}\" class=\"mark\"/>"
        "<text x=\"{3:.1f}\" y=\"{4}\" class=\"marklabel\">{5}</text>",
        mx(x), top, height - bottom, mx(x) + 3, top + 12, html_escape(label));
  }
  for (const auto& [name, v] : c.y_refs)
    if (drawable(v, c.y_scale))
      o += fmt::format(
          "<line x1=\"{0}\" x2=\"{1}\" y1=\"{2:.1f}\" y2=\"{2:.1f}\" class=\"ref\"/>"
          "<text x=\"{1}\" y=\"{3:.1f}\" class=\"marklabel\" text-anchor=\"end\">{4}</text>",
          left, width - right, my(v), my(v) - 3, html_escape(name + " " + number(v)));
  o += fmt::format("<line x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\" class=\"axis\"/>", left, width - right,
                   height - bottom);
  o += fmt::format("<line x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\" class=\"axis\"/>", left, top, height - bottom);
  o += fmt::format("<text x=\"{}\" y=\"{}\" class=\"label\" text-anchor=\"middle\">{}</text>",
                   (left + width - right) / 2, height - 12,
                   html_escape(c.x_label + (is_log(c.x_scale) ? " (log)" : "")));
  o += fmt::format("<text transform=\"translate(16,{}) rotate(-90)\" class=\"label\" text-anchor=\"middle\">{}</text>",
                   (top + height - bottom) / 2, html_escape(c.y_label + (is_log(c.y_scale) ? " (log)" : "")));
  // Models (dashed) first, as a wide translucent band, so measured lines drawn over them stay
  // visible where the two agree.
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < c.lines.size(); ++i)
    if (c.lines[i].dashed) order.push_back(i);
  for (std::size_t i = 0; i < c.lines.size(); ++i)
    if (!c.lines[i].dashed) order.push_back(i);
  for (const std::size_t i : order) {
    const auto& s = c.lines[i];
    auto pts = s.points;
    pts.erase(std::remove_if(pts.begin(), pts.end(),
                             [&](const point& p) { return !drawable(p.x, c.x_scale) || !drawable(p.y, c.y_scale); }),
              pts.end());
    std::stable_sort(pts.begin(), pts.end(), [](const point& a, const point& b) { return a.x < b.x; });
    const char* color = palette[i % 10];
    if (!pts.empty()) {
      std::string path;
      for (const auto& p : pts) path += fmt::format("{}{:.1f},{:.1f}", path.empty() ? "M" : " L", mx(p.x), my(p.y));
      o += fmt::format("<path d=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"{}\"{} class=\"series\"/>", path,
                       color, s.dashed ? 5 : 2, s.dashed ? " stroke-dasharray=\"6 4\" stroke-opacity=\"0.45\"" : "");
      for (const auto& p : pts) {
        const auto tip =
            fmt::format("{}: {}, {}", s.name, tick_text(p.x, c.x_scale), range_text(p.y, p.range, c.y_scale));
        if (has_whisker(p.y, p.range, c.y_scale))
          o += fmt::format(
              "<path d=\"M{0:.1f},{1:.1f} L{0:.1f},{2:.1f} M{3:.1f},{1:.1f} L{4:.1f},{1:.1f} M{3:.1f},{2:.1f} "
              "L{4:.1f},{2:.1f}\" "
              "stroke=\"{5}\" stroke-width=\"1.2\" fill=\"none\" class=\"whisker\"><title>{6}</title></path>",
              mx(p.x), my(p.range.lo), my(p.range.hi), mx(p.x) - 3, mx(p.x) + 3, color, html_escape(tip));
        o += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"2.5\" fill=\"{}\"><title>{}</title></circle>",
                         mx(p.x), my(p.y), color, html_escape(tip));
      }
    }
    const double ly = top + 14 + 16.0 * static_cast<double>(i);
    o += fmt::format(
        "<line x1=\"{0}\" x2=\"{1}\" y1=\"{2:.1f}\" y2=\"{2:.1f}\" stroke=\"{3}\" stroke-width=\"2\"{4}/>"
        "<text x=\"{5}\" y=\"{6:.1f}\" class=\"legend\"><title>{8}</title>{7}</text>",
        width - right + 10, width - right + 30, ly, color, s.dashed ? " stroke-dasharray=\"6 4\"" : "",
        width - right + 34, ly + 4, html_escape(fit(s.name, right - 40)), html_escape(s.name));
  }
  if (whiskers)  // between the title and the plot, where nothing else is drawn
    o += fmt::format("<text x=\"{}\" y=\"{}\" class=\"legend\">{}</text>", left, top - 8,
                     html_escape(whisker_note(c.range_key)));
  return o + "</svg>";
}

std::string render(const bar_chart& c) {
  std::vector<bar> bars;
  for (const auto& b : c.bars)
    if (drawable(b.value, axis_scale::linear)) bars.push_back(b);
  if (bars.empty()) return "";
  constexpr double row = 20, label_w = 300, bar_left = label_w + 10;
  const bool key =
      !c.peer_key.empty() && std::any_of(bars.begin(), bars.end(), [](const bar& b) { return b.highlight; });
  const auto whisker = [](const bar& b) { return has_whisker(b.value, b.range, axis_scale::linear); };
  const bool whiskers = std::any_of(bars.begin(), bars.end(), whisker);
  const double h = top + row * static_cast<double>(bars.size()) + bottom + (key ? 16 : 0) + (whiskers ? 16 : 0) +
                   12.0 * static_cast<double>(c.reference_lines.size());
  double vmax = 0;
  for (const auto& b : bars) vmax = std::max(vmax, whisker(b) ? b.range.hi : b.value);
  for (const auto& r : c.reference_lines)
    if (drawable(r.second, axis_scale::linear)) vmax = std::max(vmax, r.second);
  vmax = vmax > 0 ? vmax * 1.05 : 1;
  const double bar_right = width - 60;
  auto px = [&](double v) { return bar_left + std::max(0.0, v) / vmax * (bar_right - bar_left); };
  std::string o = frame(c.title, h);
  for (std::size_t i = 0; i < bars.size(); ++i) {
    const auto& b = bars[i];
    const double y = top + row * static_cast<double>(i);
    o += fmt::format("<text x=\"{}\" y=\"{:.1f}\" class=\"tick\" text-anchor=\"end\"><title>{}</title>{}</text>",
                     label_w, y + 14, html_escape(b.label), html_escape(fit(b.label, label_w - 10)));
    const auto tip = html_escape(b.label + ": " + range_text(b.value, b.range, axis_scale::linear));
    o += fmt::format(
        "<rect x=\"{}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{}\" class=\"bar{}\"><title>{}</title></rect>", bar_left,
        y + 3, std::max(0.0, px(b.value) - bar_left), row - 6, b.highlight ? " peer" : "", tip);
    if (whisker(b))
      o += fmt::format(
          "<path d=\"M{0:.1f},{2:.1f} L{1:.1f},{2:.1f} M{0:.1f},{3:.1f} L{0:.1f},{4:.1f} M{1:.1f},{3:.1f} "
          "L{1:.1f},{4:.1f}\" "
          "{6}><title>{5}</title></path>",
          px(b.range.lo), px(b.range.hi), y + row / 2, y + 6, y + row - 6, tip, bar_whisker);
    o += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" class=\"tick\">{}</text>",
                     px(whisker(b) ? b.range.hi : b.value) + 4, y + 14, number(b.value));
  }
  const double y1 = top + row * static_cast<double>(bars.size());
  for (std::size_t k = 0; k < c.reference_lines.size(); ++k) {
    const auto& [name, v] = c.reference_lines[k];
    if (!drawable(v, axis_scale::linear)) continue;
    o += fmt::format(
        "<line x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1}\" y2=\"{2:.1f}\" class=\"ref\"/>"
        "<text x=\"{0:.1f}\" y=\"{3:.1f}\" class=\"marklabel\" text-anchor=\"middle\">{4}</text>",
        px(v), top - 4, y1, y1 + 14 + 12.0 * static_cast<double>(k), html_escape(name + " " + number(v)));
  }
  double y_text = h - 8;
  if (whiskers) {
    o += fmt::format(
        "<path d=\"M{0},{1:.1f} L{2},{1:.1f} M{0},{3:.1f} L{0},{4:.1f} M{2},{3:.1f} L{2},{4:.1f}\" {8}/>"
        "<text x=\"{5}\" y=\"{6:.1f}\" class=\"legend\">{7}</text>",
        bar_left, y_text - 4, bar_left + 12, y_text - 8, y_text, bar_left + 16, y_text,
        html_escape(whisker_note(c.range_key)), bar_whisker);
    y_text -= 16;
  }
  if (key) {
    o += fmt::format(
        "<rect x=\"{}\" y=\"{:.1f}\" width=\"12\" height=\"10\" class=\"bar peer\"/>"
        "<text x=\"{}\" y=\"{:.1f}\" class=\"legend\">{}</text>",
        bar_left, y_text - 9, bar_left + 16, y_text, html_escape("the reference: " + c.peer_key));
    y_text -= 16;
  }
  o += fmt::format("<text x=\"{}\" y=\"{:.1f}\" class=\"label\">{}</text>", bar_left, y_text,
                   html_escape(c.value_label));
  return o + "</svg>";
}

}  // namespace memscope::report
