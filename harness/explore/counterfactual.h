// Causes proven by replay (issue 9, docs/checker.md "Causes proven by replay").
//
// The simulator is deterministic, so a violation's cause can be tested instead of guessed. The
// seed's fault schedule is materialised (materialize.h), then the same seed is replayed with
// faults removed: with none at all (does the algorithm fail by itself?), without each one in
// turn (which faults are necessary?), and with only the necessary ones (are they sufficient?).
// When no single fault is necessary (redundant faults), faults are dropped one at a time while
// the violation stays, which leaves a minimal sufficient set. "This violation" means the same
// property violated again. Every replay is one run; their number is bounded, and a result that
// ran out says so.
#ifndef LOCKSTEP_HARNESS_EXPLORE_COUNTERFACTUAL_H_
#define LOCKSTEP_HARNESS_EXPLORE_COUNTERFACTUAL_H_

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/scenario/scenario.h"
#include "sim/core/status.h"

namespace lockstep::explore {

struct CounterfactualOptions {
  int max_replays = 16;  // replay runs at most (lockstep run --replays)
  std::string mutant;    // the mutant the run used, if any: its replays use it too
};

// One replay: the faults it kept (numbers as in the history, 1-based) and whether the property
// was violated again.
struct Replay {
  std::vector<int64_t> kept;
  bool violated = false;
};

struct Cause {
  std::string property;
  uint64_t seed = 0;
  int64_t faults = 0;                 // faults the run had
  std::vector<int64_t> cause;         // the proven cause (empty: the algorithm itself)
  std::vector<int64_t> necessary;     // faults whose removal alone ends the violation
  bool algorithm_itself = false;      // violated with no fault at all
  bool sufficient = false;            // a replay with only `cause` violated it
  bool exhausted = false;             // the replay budget ran out first
  std::vector<Replay> replays;
  std::string text;                   // "verified by replay: without fault #2 …"

  nlohmann::json to_json() const;
};

// Proves the cause of `property`'s violation in the run of `parsed` (whose file's JSON is
// `doc`) with `seed`. REQUIRES: that run violated `property`.
Result<Cause> prove_cause(const nlohmann::json& doc, const scenario::Scenario& parsed, uint64_t seed,
                          const std::string& property, const CounterfactualOptions& options);

}  // namespace lockstep::explore

#endif  // LOCKSTEP_HARNESS_EXPLORE_COUNTERFACTUAL_H_
