// Chart axes: decades and binary units, bounded for any range (no endless tick loop).
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
