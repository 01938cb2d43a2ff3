// Timeline: what the HTML report draws, extracted from a history (docs/history-format.md) and
// the checkers' result, in compact arrays that embed into the page as JSON.
//
// Rows: one per client thread (natural order: c1/t0, c1/t1, c2/t0, ..., c10/t0), then one per
// Redis node, plus a "network" row for faults that touch links rather than one process.
// Layers: hold intervals (per thread, coloured by lock), operations (invoke to complete), the
// lock keys' lifetimes on each node (from the command that granted a hold on that node to the
// key's expiry, its loss in a restart or failover, or its release), expiries, data losses and
// node lifecycle events as markers, command executions as ticks, faults as spans over the time
// axis, and each violation's time window and rows (from the times and names its counterexample
// and explanation mention).
//
// Large histories stay drawable: each layer has a cap; past it, items inside a violation's
// window are kept first and the rest are thinned evenly (deterministically), and the page says
// how many of how many it shows.
#ifndef LOCKSTEP_CHECKER_REPORT_TIMELINE_H_
#define LOCKSTEP_CHECKER_REPORT_TIMELINE_H_

#include <cstdint>
#include <istream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/core/status.h"

namespace lockstep::report {

// The most items of each layer embedded in a page.
struct TimelineLimits {
  uint64_t holds = 200'000;
  uint64_t ops = 200'000;
  uint64_t keys = 200'000;
  uint64_t markers = 100'000;
  uint64_t execs = 100'000;
  uint64_t faults = 20'000;
  uint64_t history_lines = 200'000'000;  // a bound on the work; past it the page says so
};

// A violation to highlight: the property, its window in true time and the rows it involves.
struct ViolationMark {
  std::string property;
  int64_t t0_us = 0;
  int64_t t1_us = 0;
  // Mutual exclusion: exactly when the two holds overlapped (-1 when the property has no
  // overlap, or the counterexample does not say). The page shades this, not the whole story.
  int64_t overlap_t0_us = -1;
  int64_t overlap_t1_us = -1;
  std::vector<std::string> names;  // threads, clients, nodes the counterexample names
};

// The violations in a result (result.json's "properties"), with their windows.
std::vector<ViolationMark> violation_marks(const nlohmann::json& result);

// Reads the history from `in` (named `name` in messages) and builds the page data: the JSON
// object report.js draws. Errors name the line of a history that is not JSON Lines.
Result<nlohmann::json> build_timeline(std::istream& in, const std::string& name,
                                      const std::vector<ViolationMark>& violations,
                                      const TimelineLimits& limits);

// Compares names so that "c2" < "c10" and "c1/t2" < "c1/t10" (digit runs by value).
bool natural_less(const std::string& a, const std::string& b);

}  // namespace lockstep::report

#endif  // LOCKSTEP_CHECKER_REPORT_TIMELINE_H_
