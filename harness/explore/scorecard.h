// The scorecard: the edge-case library run against every algorithm it applies to, as one matrix
// of verdicts (docs/cli.md "lockstep scorecard").
//
// Each cell is one deterministic run of a library scenario with the algorithm in place of the
// scenario's own, without the scenario's algorithm options (the algorithm's defaults apply); the
// scenario's own algorithm runs it exactly as written. A
// scenario the algorithm cannot run (a topology it does not fit, read/write modes, interrupts,
// lock objects) is a cell marked "does not apply" with the parser's reason. The same inputs give
// the same scorecard, byte for byte.
#ifndef LOCKSTEP_HARNESS_EXPLORE_SCORECARD_H_
#define LOCKSTEP_HARNESS_EXPLORE_SCORECARD_H_

#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/core/status.h"

namespace lockstep::explore {

// An algorithm to score: a registered one by name, or a Lua file (docs/lua-algorithms.md).
struct ScoredAlgorithm {
  std::string name;  // the name the scorecard shows (a Lua file's declared name)
  std::string file;  // a Lua algorithm's file, or "" for a registered one
};

struct ScorecardCell {
  std::string algorithm;
  std::string scenario;  // the scenario's file name without ".json"
  bool applies = true;
  std::string why_not;   // !applies: the parser's reason
  std::string verdict;   // ok, violation, unknown, or "error" (the run failed: `why_not` says why)
  std::map<std::string, std::string> properties;  // property -> verdict
  std::string report;    // the cell's report.html, relative to the scorecard's folder ("" if none)
};

struct Scorecard {
  std::vector<std::string> algorithms;  // columns, in the order given
  std::vector<std::string> scenarios;   // rows, in file order
  std::vector<ScorecardCell> cells;     // row by row

  nlohmann::json to_json() const;
  // One line per (algorithm, scenario, property): algorithm,scenario,property,verdict; a cell
  // that does not apply has one line with property "-" and verdict "not_applicable".
  std::string to_csv() const;
  // A self-contained page: the matrix, each cell linking to its run's report.
  std::string to_html() const;
};

// Runs every scenario in `scenario_files` against every algorithm. With `out_dir`, each cell's
// outputs go to OUT/runs/<algorithm>/<scenario>/ (history, result, report). `progress` is told
// after each cell (done, total). Errors: a scenario file that cannot be read as JSON.
Result<Scorecard> run_scorecard(const std::vector<std::string>& scenario_files,
                                const std::vector<ScoredAlgorithm>& algorithms, const std::string& out_dir,
                                const std::function<void(size_t, size_t)>& progress = nullptr);

}  // namespace lockstep::explore

#endif  // LOCKSTEP_HARNESS_EXPLORE_SCORECARD_H_
