// How coverage (sim/kernel/coverage.h) is shown: result.json's and explore.json's "coverage"
// object, read back for merging, and the lines printed under a summary (docs/coverage.md).
//
// The algorithm declares what there is to reach — the scripts its clients may send with the
// scenario's options and its client-side states — so coverage lists what was never reached as
// well as what was. Script lines are the lines of code Lua 5.1 reports for the script (its
// active lines); a line counts as reached when it was executed at least once.
#ifndef LOCKSTEP_HARNESS_SCENARIO_COVERAGE_REPORT_H_
#define LOCKSTEP_HARNESS_SCENARIO_COVERAGE_REPORT_H_

#include <string>

#include <nlohmann/json.hpp>

#include "sim/core/status.h"
#include "sim/kernel/coverage.h"

namespace lockstep::scenario {

struct Scenario;

// {"script_lines": {"reached", "total"}, "client_states": {"reached", "total"},
//  "scripts": [{"name", "lines_reached", "lines_total", "lines": [{"line", "hits", "code"}...]}...],
//  "states": [{"name", "hits", "meaning"}...]} — docs/coverage.md describes every field. Every
// declared script and state is listed, reached or not.
nlohmann::json coverage_json(const kernel::Coverage& coverage, const Scenario& s);
// Adds another run's counts to what coverage_json made (an exploration sums its seeds).
// Counts of scripts or states the object does not list are not added.
void add_coverage(nlohmann::json& into, const kernel::Coverage& counts);
// Reads the counts back from what coverage_json wrote (null: none); errors name `where` and
// the JSON path.
Result<kernel::Coverage> coverage_from_json(const nlohmann::json& j, const std::string& where);

// The bare counts, compact (a worker sends them with each seed's result), and back.
nlohmann::json coverage_counts_json(const kernel::Coverage& c);
Result<kernel::Coverage> coverage_from_counts_json(const nlohmann::json& j, const std::string& where);

// A few lines for people: the totals, then what was never reached (at most `max_items` script
// lines and every client state). Empty for a null `j`.
std::string coverage_text(const nlohmann::json& j, size_t max_items);
// Its first line alone: "coverage: 18/30 script lines, 5/16 client states reached\n".
std::string coverage_totals(const nlohmann::json& j);

}  // namespace lockstep::scenario

#endif  // LOCKSTEP_HARNESS_SCENARIO_COVERAGE_REPORT_H_
