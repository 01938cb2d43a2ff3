// Parsing and validating scenario files (docs/scenarios.md, docs/scenario.schema.json).
//
// Every problem is reported as one message naming the file, the JSON path, what was expected
// and what was found; the first problem found is the one reported. Nothing is ever half-parsed:
// either a complete, consistent Scenario or an error.
#ifndef LOCKSTEP_HARNESS_SCENARIO_PARSE_H_
#define LOCKSTEP_HARNESS_SCENARIO_PARSE_H_

#include <string>
#include <string_view>

#include "harness/scenario/scenario.h"
#include "sim/core/status.h"

namespace lockstep::scenario {

// Parses scenario JSON text; `file` names it in messages.
Result<Scenario> parse_scenario_text(std::string_view text, const std::string& file);
// Reads and parses a scenario file (at most 64 MiB).
Result<Scenario> load_scenario(const std::string& path);

}  // namespace lockstep::scenario

#endif  // LOCKSTEP_HARNESS_SCENARIO_PARSE_H_
