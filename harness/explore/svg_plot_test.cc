#include "harness/explore/svg_plot.h"

#include <gtest/gtest.h>

namespace lockstep::explore {
namespace {

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

TEST(SvgPlotTest, NiceTicksAreRoundAndCoverTheRange) {
  const std::vector<double> unit = nice_ticks(0, 1, 6);
  ASSERT_EQ(unit.size(), 6u);
  for (size_t i = 0; i < unit.size(); ++i) EXPECT_NEAR(unit[i], 0.2 * static_cast<double>(i), 1e-12);
  EXPECT_EQ(nice_ticks(0, 40000, 8), (std::vector<double>{0, 10000, 20000, 30000, 40000}));
  EXPECT_EQ(nice_ticks(-5000, 5000, 6), (std::vector<double>{-4000, -2000, 0, 2000, 4000}));
  EXPECT_EQ(nice_ticks(7, 7, 6), (std::vector<double>{7}));
  for (double t : nice_ticks(1234, 98765, 8)) {
    EXPECT_GE(t, 1234);
    EXPECT_LE(t, 98765);
  }
}

TEST(SvgPlotTest, DrawsAxesOneLinePerSeriesAndALegend) {
  PlotSpec spec;
  spec.title = "rate <vs> pause";
  spec.x_label = "/faults/schedule/0/duration_ms";
  spec.y_label = "seeds with a violation";
  spec.series = {{"any property", {{0, 0}, {20000, 0.25}, {40000, 1}}},
                 {"mutual_exclusion", {{0, 0}, {20000, 0.2}, {40000, 0.9}}}};
  const std::string svg = svg_line_plot(spec);
  EXPECT_EQ(svg.rfind("<?xml", 0), 0u);
  EXPECT_NE(svg.find("<svg xmlns=\"http://www.w3.org/2000/svg\""), std::string::npos);
  EXPECT_EQ(count(svg, "<g class=\"series\""), 2u);
  EXPECT_EQ(count(svg, "<circle"), 6u);
  EXPECT_NE(svg.find("rate &lt;vs&gt; pause"), std::string::npos);  // escaped
  EXPECT_NE(svg.find(">100%</text>"), std::string::npos);             // y ticks as percentages
  EXPECT_NE(svg.find(">40000</text>"), std::string::npos);            // x ticks
  EXPECT_NE(svg.find(">mutual_exclusion</text>"), std::string::npos); // legend
  // The first point of the first series sits at the plot's bottom-left corner (72, 376).
  EXPECT_NE(svg.find("points=\"72.00,376.00 "), std::string::npos) << svg;
  EXPECT_EQ(svg.substr(svg.size() - 7), "</svg>\n");
}

TEST(SvgPlotTest, OneValueAndNoDataStillDraw) {
  PlotSpec one;
  one.series = {{"any property", {{5, 0.5}}}};
  const std::string a = svg_line_plot(one);
  EXPECT_NE(a.find("<circle cx=\"321.00\""), std::string::npos) << a;  // centred
  PlotSpec none;
  EXPECT_NE(svg_line_plot(none).find(">no data</text>"), std::string::npos);
}

TEST(SvgPlotTest, ValuesOutsideTheAxisAreClamped) {
  PlotSpec spec;
  spec.series = {{"s", {{0, -1}, {1, 2}}}};
  const std::string svg = svg_line_plot(spec);
  EXPECT_NE(svg.find("points=\"72.00,376.00 570.00,48.00\""), std::string::npos) << svg;
}

}  // namespace
}  // namespace lockstep::explore
