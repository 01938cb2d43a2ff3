// The scenario parser's parts (parse.cc, parse_workload.cc, parse_faults.cc). Internal.
#ifndef LOCKSTEP_HARNESS_SCENARIO_PARSE_INTERNAL_H_
#define LOCKSTEP_HARNESS_SCENARIO_PARSE_INTERNAL_H_

#include <string>

#include "harness/scenario/json_reader.h"
#include "harness/scenario/scenario.h"

namespace lockstep::scenario::internal {

// A latency distribution: an integer (fixed microseconds) or {"kind": ...}.
kernel::LatencyDist read_dist(const nlohmann::json& j, const std::string& path, Errors& errors);
// A clock: {"offset_ms", "drift_ppm", "jumps": [{"at_ms", "delta_ms"}]}.
ClockSpec read_clock(const nlohmann::json& j, const std::string& path, Errors& errors,
                     int64_t duration_ms);
// A range: an integer n (= [n, n]) or [lo, hi].
Range read_range(const nlohmann::json& j, const std::string& path, Errors& errors, int64_t lo,
                 int64_t hi, const std::string& unit);

void parse_workload(const nlohmann::json& j, const std::string& path, Errors& errors,
                    Scenario& s);
void parse_faults(const nlohmann::json& j, const std::string& path, Errors& errors, Scenario& s);
// Adds the clock specs' jumps to the schedule and numbers the faults. Call once, last.
void finish_faults(Scenario& s);

// Is `name` something a fault may target with this kind ("node", "client", "process")?
bool is_process(const Scenario& s, const std::string& name);

}  // namespace lockstep::scenario::internal

#endif  // LOCKSTEP_HARNESS_SCENARIO_PARSE_INTERNAL_H_
