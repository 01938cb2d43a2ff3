// Test support: a scenario run through the whole pipeline, with its history parsed into JSON
// lines for timeline assertions (fault_timeline_test, interrupt_test).
#ifndef LOCKSTEP_HARNESS_SCENARIO_RAN_TEST_UTIL_H_
#define LOCKSTEP_HARNESS_SCENARIO_RAN_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "harness/scenario/parse.h"
#include "harness/scenario/run.h"

namespace lockstep::scenario::testing {

struct Ran {
  RunReport report;
  std::vector<nlohmann::json> lines;
  // The events of one type, optionally only those whose `field` equals `value`.
  std::vector<nlohmann::json> of(const std::string& type, const std::string& field = "",
                                 const nlohmann::json& value = nullptr) const {
    std::vector<nlohmann::json> out;
    for (const nlohmann::json& l : lines) {
      if (l.value("type", "") != type) continue;
      if (!field.empty() && (!l.contains(field) || l[field] != value)) continue;
      out.push_back(l);
    }
    return out;
  }
  // The `complete` of operation `id` (a test failure unless there is exactly one).
  nlohmann::json completion(int64_t id) const {
    auto c = of("complete", "id", id);
    EXPECT_EQ(c.size(), 1u) << "operation " << id;
    return c.empty() ? nlohmann::json() : c[0];
  }
};

// Runs the parsed scenario with default options; a parse or run error, or an outcome other than
// the scenario's `expect`, is a test failure (`name` says which scenario).
inline Ran run_checked(const Result<Scenario>& s, const std::string& name) {
  EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.status().message());
  Ran r;
  if (!s.ok()) return r;
  Result<RunReport> rep = run_scenario(s.value(), RunOptions{});
  EXPECT_TRUE(rep.ok()) << (rep.ok() ? "" : rep.status().message());
  if (!rep.ok()) return r;
  r.report = rep.value();
  std::istringstream in(r.report.history);
  std::string line;
  while (std::getline(in, line)) r.lines.push_back(nlohmann::json::parse(line));
  EXPECT_TRUE(r.report.expected) << name << ": " << r.report.outcome;
  return r;
}

// The library scenario scenarios/<dir>/<name>.json, run.
inline Ran run_library(const std::string& dir, const std::string& name) {
  const std::string path = std::string(LOCKSTEP_SOURCE_DIR) + "/scenarios/" + dir + "/" + name + ".json";
  return run_checked(load_scenario(path), name);
}

inline int64_t t_of(const nlohmann::json& l) { return l["t"].get<int64_t>(); }

}  // namespace lockstep::scenario::testing

#endif  // LOCKSTEP_HARNESS_SCENARIO_RAN_TEST_UTIL_H_
