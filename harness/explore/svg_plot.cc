#include "harness/explore/svg_plot.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "harness/explore/junit.h"
#include "sim/core/assert.h"

namespace lockstep::explore {
namespace {

// Colour-blind-friendly palette (Okabe–Ito), then greys.
const char* const kColours[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00",
                                "#56B4E9", "#F0E442", "#000000", "#777777", "#BBBBBB"};

std::string fmt(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

// A tick label: integers without decimals, others with as few as they need.
std::string label(double v, bool percent) {
  if (percent) v *= 100;
  char buf[32];
  if (std::fabs(v - std::round(v)) < 1e-9 * std::max(1.0, std::fabs(v))) {
    std::snprintf(buf, sizeof buf, "%.0f", std::round(v));
  } else {
    std::snprintf(buf, sizeof buf, "%.6g", v);
  }
  std::string s = buf;
  if (s == "-0") s = "0";
  return percent ? s + "%" : s;
}

struct Frame {
  double left, top, right, bottom;  // the plot area, in pixels
  double x_lo, x_hi, y_lo, y_hi;    // the data range it shows

  double px(double x) const { return left + (x - x_lo) / (x_hi - x_lo) * (right - left); }
  double py(double y) const {
    y = std::clamp(y, y_lo, y_hi);
    return bottom - (y - y_lo) / (y_hi - y_lo) * (bottom - top);
  }
};

Frame make_frame(const PlotSpec& spec) {
  Frame f{72, 48, static_cast<double>(spec.width) - 190, static_cast<double>(spec.height) - 64, 0, 1,
          spec.y_min, spec.y_max};
  bool any = false;
  for (const PlotSeries& s : spec.series) {
    for (const auto& [x, y] : s.points) {
      f.x_lo = any ? std::min(f.x_lo, x) : x;
      f.x_hi = any ? std::max(f.x_hi, x) : x;
      any = true;
    }
  }
  if (f.x_hi <= f.x_lo) {  // one x value (or none): centre it
    f.x_lo -= 1;
    f.x_hi += 1;
  }
  if (f.y_hi <= f.y_lo) f.y_hi = f.y_lo + 1;
  LS_ASSERT(f.x_hi > f.x_lo && f.y_hi > f.y_lo);
  LS_ASSERT(f.right > f.left && f.bottom > f.top);
  return f;
}

void axes(const PlotSpec& spec, const Frame& f, std::string& out) {
  for (double y : nice_ticks(f.y_lo, f.y_hi, 6)) {
    const std::string py = fmt(f.py(y));
    out += "<line class=\"grid\" x1=\"" + fmt(f.left) + "\" y1=\"" + py + "\" x2=\"" + fmt(f.right) + "\" y2=\"" + py + "\"/>\n";
    out += "<text class=\"tick\" x=\"" + fmt(f.left - 6) + "\" y=\"" + fmt(f.py(y) + 4) +
           "\" text-anchor=\"end\">" + xml_escape(label(y, spec.y_percent)) + "</text>\n";
  }
  for (double x : nice_ticks(f.x_lo, f.x_hi, 8)) {
    const std::string px = fmt(f.px(x));
    out += "<line class=\"axis\" x1=\"" + px + "\" y1=\"" + fmt(f.bottom) + "\" x2=\"" + px + "\" y2=\"" + fmt(f.bottom + 5) + "\"/>\n";
    out += "<text class=\"tick\" x=\"" + px + "\" y=\"" + fmt(f.bottom + 18) + "\" text-anchor=\"middle\">" +
           xml_escape(label(x, false)) + "</text>\n";
  }
  out += "<polyline class=\"axis\" fill=\"none\" points=\"" + fmt(f.left) + "," + fmt(f.top) + " " + fmt(f.left) +
         "," + fmt(f.bottom) + " " + fmt(f.right) + "," + fmt(f.bottom) + "\"/>\n";
  out += "<text class=\"label\" x=\"" + fmt((f.left + f.right) / 2) + "\" y=\"" + fmt(f.bottom + 44) +
         "\" text-anchor=\"middle\">" + xml_escape(spec.x_label) + "</text>\n";
  out += "<text class=\"label\" transform=\"translate(18," + fmt((f.top + f.bottom) / 2) +
         ") rotate(-90)\" text-anchor=\"middle\">" + xml_escape(spec.y_label) + "</text>\n";
}

void series(const PlotSpec& spec, const Frame& f, std::string& out) {
  for (size_t i = 0; i < spec.series.size(); ++i) {
    const PlotSeries& s = spec.series[i];
    const char* colour = kColours[i % (sizeof kColours / sizeof kColours[0])];
    std::string pts;
    for (const auto& [x, y] : s.points) pts += (pts.empty() ? "" : " ") + fmt(f.px(x)) + "," + fmt(f.py(y));
    out += "<g class=\"series\" data-name=\"" + xml_escape(s.name) + "\">\n";
    // The first series (the overall rate) is drawn wide and pale, so series lying on it show.
    const char* stroke = i == 0 && spec.series.size() > 1 ? "\" stroke-width=\"5\" stroke-opacity=\"0.45" : "\" stroke-width=\"2";
    out += "<polyline fill=\"none\" stroke=\"" + std::string(colour) + stroke + "\" points=\"" + pts + "\"/>\n";
    for (const auto& [x, y] : s.points) {
      out += "<circle cx=\"" + fmt(f.px(x)) + "\" cy=\"" + fmt(f.py(y)) + "\" r=\"3\" fill=\"" + colour + "\"><title>" +
             xml_escape(s.name + ": " + label(x, false) + " → " + label(y, spec.y_percent)) + "</title></circle>\n";
    }
    out += "</g>\n";
    // The legend entry, right of the plot area.
    const double ly = f.top + 8 + 20.0 * static_cast<double>(i);
    out += "<line x1=\"" + fmt(f.right + 16) + "\" y1=\"" + fmt(ly) + "\" x2=\"" + fmt(f.right + 40) + "\" y2=\"" +
           fmt(ly) + "\" stroke=\"" + colour + "\" stroke-width=\"2\"/>\n";
    out += "<text class=\"legend\" x=\"" + fmt(f.right + 46) + "\" y=\"" + fmt(ly + 4) + "\">" + xml_escape(s.name) + "</text>\n";
  }
}

}  // namespace

std::vector<double> nice_ticks(double lo, double hi, int max_ticks) {
  LS_ASSERT(lo <= hi);
  LS_ASSERT(max_ticks >= 2 && max_ticks <= 50);
  if (hi == lo) return {lo};
  const double raw = (hi - lo) / (max_ticks - 1);
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    step = m * mag;
    if (step >= raw) break;
  }
  std::vector<double> ticks;
  const double first = std::ceil(lo / step - 1e-9) * step;
  for (int i = 0; i < 100; ++i) {
    const double t = first + step * i;
    if (t > hi + step * 1e-9) break;
    ticks.push_back(std::fabs(t) < step * 1e-9 ? 0.0 : t);
  }
  return ticks;
}

std::string svg_line_plot(const PlotSpec& spec) {
  LS_ASSERT(spec.width >= 320 && spec.height >= 200);
  const Frame f = make_frame(spec);
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + std::to_string(spec.width) + "\" height=\"" +
         std::to_string(spec.height) + "\" viewBox=\"0 0 " + std::to_string(spec.width) + " " +
         std::to_string(spec.height) + "\" font-family=\"sans-serif\">\n";
  out += "<style>.grid{stroke:#e4e4e4}.axis{stroke:#333}.tick{font-size:11px;fill:#333}"
         ".label{font-size:13px;fill:#111}.legend{font-size:12px;fill:#111}.title{font-size:15px;font-weight:bold}</style>\n";
  out += "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n";
  out += "<text class=\"title\" x=\"" + fmt(f.left) + "\" y=\"28\">" + xml_escape(spec.title) + "</text>\n";
  axes(spec, f, out);
  bool any = false;
  for (const PlotSeries& s : spec.series) any = any || !s.points.empty();
  if (any) {
    series(spec, f, out);
  } else {
    out += "<text class=\"label\" x=\"" + fmt((f.left + f.right) / 2) + "\" y=\"" + fmt((f.top + f.bottom) / 2) +
           "\" text-anchor=\"middle\">no data</text>\n";
  }
  out += "</svg>\n";
  return out;
}

}  // namespace lockstep::explore
