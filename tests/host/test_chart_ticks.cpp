// Charts: axes in decades and binary units, bounded for any range (no endless tick loop);
// whiskers only where a spread brackets its figure.
#include "report/findings.hpp"
#include "report/svg_chart.hpp"

#include <gtest/gtest.h>

#include <cmath>

using namespace memscope::report;

TEST(ChartTicks, LogAxesTickEveryDecadeWithStepsInsideNarrowRanges) {
  const auto wide = ticks(1, 1e6, axis_scale::log10);
  ASSERT_EQ(wide.size(), 7u);
  for (std::size_t i = 0; i < wide.size(); ++i) EXPECT_DOUBLE_EQ(wide[i], std::pow(10.0, static_cast<double>(i)));
  const auto narrow = ticks(1, 32, axis_scale::log10);  // 1 2 5 10 20
  EXPECT_EQ(narrow, (std::vector<double>{1, 2, 5, 10, 20}));
}

TEST(ChartTicks, ByteAxesTickAtPowersOfTwo) {
  const auto t = ticks(1024, 4.0 * (1ull << 30), axis_scale::log2_bytes);
  ASSERT_GE(t.size(), 5u);
  EXPECT_LE(t.size(), 12u);
  for (double v : t) EXPECT_DOUBLE_EQ(std::exp2(std::round(std::log2(v))), v);
  EXPECT_DOUBLE_EQ(t.front(), 1024);
}

TEST(ChartTicks, HugeOrDegenerateRangesStayBounded) {
  EXPECT_LE(ticks(1e17, 1e17 + 16, axis_scale::linear).size(), 64u);
  EXPECT_LE(ticks(0, 1e300, axis_scale::linear).size(), 64u);
  EXPECT_LE(ticks(1e-300, 1e300, axis_scale::log10).size(), 64u);
  EXPECT_TRUE(ticks(NAN, 1, axis_scale::linear).empty());
  EXPECT_TRUE(ticks(0, 1, axis_scale::log2).empty());
}

TEST(ChartTicks, NonFiniteValuesNeverReachThePage) {
  line_chart c;
  c.title = "t";
  c.lines.push_back({"s", {{1, NAN}, {2, 3}, {INFINITY, 4}, {3, 5}}, false});
  const auto svg = render(c);
  EXPECT_EQ(svg.find("nan"), std::string::npos);
  EXPECT_EQ(svg.find("inf"), std::string::npos);
  bar_chart b;
  b.bars = {{"a", NAN, false}, {"b", 2, true}};
  b.peer_key = "the reference";
  const auto bs = render(b);
  EXPECT_EQ(bs.find("nan"), std::string::npos);
  EXPECT_NE(bs.find("the reference"), std::string::npos);
}

namespace {
std::size_t count_of(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (auto p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}
}  // namespace

TEST(ChartWhiskers, BarsDrawASpreadOnlyWhereItBracketsTheFigure) {
  bar_chart b;
  b.title = "t";
  b.range_key = "the slowest to the fastest sample";
  b.bars = {{"bracketed", 10, false, {8, 12}},
            {"none", 5, false, {}},
            {"misses its figure", 7, false, {8, 9}},
            {"empty", 6, false, {6, 6}},
            {"not finite", 6, false, {5, INFINITY}}};
  const auto svg = render(b);
  EXPECT_EQ(count_of(svg, "class=\"whisker\""), 2u);  // the bracketed bar and the key's glyph
  EXPECT_NE(svg.find("whiskers: the slowest to the fastest sample"), std::string::npos);
  EXPECT_NE(svg.find("bracketed: 10 (8 to 12)"), std::string::npos);
  EXPECT_NE(svg.find("misses its figure: 7<"), std::string::npos);
  EXPECT_FALSE(shows_non_finite(svg));
  b.bars.erase(b.bars.begin());
  const auto without = render(b);
  EXPECT_EQ(without.find("whisker"), std::string::npos);  // no key for whiskers not drawn
}

TEST(ChartWhiskers, LinesWidenTheAxisToHoldEveryWhisker) {
  line_chart c;
  c.title = "t";
  c.y_scale = axis_scale::log10;
  c.range_key = "the fastest to the slowest chase";
  c.lines.push_back({"s", {{1, 100, {90, 1000}}, {2, 200, {0, 300}}, {3, 300, {}}}, false});
  const auto svg = render(c);
  // The second point's spread reaches 0, which a log axis cannot draw: one whisker.
  EXPECT_EQ(count_of(svg, "class=\"whisker\""), 1u);
  EXPECT_NE(svg.find("whiskers: the fastest to the slowest chase"), std::string::npos);
  EXPECT_NE(svg.find("s: 1, 100 (90 to 1000)"), std::string::npos);
  // 1000 is on the axis: the top decade is ticked.
  EXPECT_NE(svg.find(">1000<"), std::string::npos);
}
