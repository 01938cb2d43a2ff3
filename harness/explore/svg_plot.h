// A small SVG line-chart writer for `lockstep sweep`: axes with "nice" ticks, one polyline with
// point markers per series, a legend, a title and axis labels. The output is a standalone SVG
// file, a pure function of its input (coordinates printed with fixed precision), that browsers
// and image viewers open directly.
#ifndef LOCKSTEP_HARNESS_EXPLORE_SVG_PLOT_H_
#define LOCKSTEP_HARNESS_EXPLORE_SVG_PLOT_H_

#include <string>
#include <utility>
#include <vector>

namespace lockstep::explore {

struct PlotSeries {
  std::string name;
  std::vector<std::pair<double, double>> points;  // (x, y), in x order
};

struct PlotSpec {
  std::string title;
  std::string x_label;
  std::string y_label;
  // The y axis spans [y_min, y_max] (a rate: 0..1); y_percent labels its ticks as percentages.
  double y_min = 0;
  double y_max = 1;
  bool y_percent = true;
  int width = 760;
  int height = 440;
  std::vector<PlotSeries> series;
};

// The SVG document. Points outside the y range are clamped to it; an empty plot (no points)
// still draws its axes and says "no data".
std::string svg_line_plot(const PlotSpec& spec);

// Up to about `max_ticks` round tick values (steps of 1, 2 or 5 times a power of ten) covering
// [lo, hi]. REQUIRES: lo <= hi, 2 <= max_ticks <= 50.
std::vector<double> nice_ticks(double lo, double hi, int max_ticks);

}  // namespace lockstep::explore

#endif  // LOCKSTEP_HARNESS_EXPLORE_SVG_PLOT_H_
