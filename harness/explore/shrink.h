// Shrinking a failing seed to a minimal scenario file.
//
// The seed's random fault schedule is first materialised (materialize.h), so the scenario no
// longer depends on the profile's draws. Then, greedily and deterministically, smaller variants
// are tried and kept when they still fail with the SAME property under the same seed:
//   1. fewer faults (remove halves, then quarters, ... then single entries of /faults/schedule);
//   2. fewer clients and threads;
//   3. fewer operations (generator ops_per_thread; script entries, steps and repeat counts);
//   4. smaller faults (durations, restart delays, extra latency; clock jumps, offsets and
//      drifts toward zero; lost replies down to one) and a shorter run;
// and the passes repeat while they make progress. A failure that needs faults (the same seed
// without any does not fail) must keep needing the faults of its cause, proven by replay
// (counterfactual.h) and kept by shape (kind, and node or client): a variant that fails by
// itself (a lease shortened below the work) or without them (a restart where the start had a
// pause) shows another bug and is not kept (one more run per failing candidate). Clients given as a count are written as the list they stand for, so a
// client the failure does not need can go while the others keep their names.
// A candidate the scenario parser rejects
// costs nothing; every candidate that parses is one run, and the runs are bounded
// (ShrinkOptions::max_runs), so shrinking always ends. Each run happens in a forked worker, so
// a candidate that crashes the simulator counts as "does not fail that way" instead of
// killing the exploration.
#ifndef LOCKSTEP_HARNESS_EXPLORE_SHRINK_H_
#define LOCKSTEP_HARNESS_EXPLORE_SHRINK_H_

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/explore/seed_result.h"
#include "harness/scenario/scenario.h"
#include "sim/core/status.h"

namespace lockstep::explore {

struct ShrinkOptions {
  int max_runs = 300;               // candidate runs at most (the default of --shrink-runs)
  std::string file = "shrunk.json"; // the name candidates carry (in messages and replay commands)
};

// The size of a scenario, as shrinking measures it.
struct ScenarioSize {
  int64_t faults = 0;      // fixed faults after materialising
  int64_t clients = 0;
  int64_t threads = 0;
  int64_t operations = 0;  // lock operations the run invoked
  int64_t duration_ms = 0;

  nlohmann::json to_json() const;
  // "3 faults, 2 clients, 2 threads, 14 operations, 60000 ms"
  std::string to_text() const;
};

struct ShrinkResult {
  uint64_t seed = 0;
  std::string property;
  bool reproduced = false;   // the materialised scenario failed with `property`
  nlohmann::json scenario;   // the smallest failing variant (the materialised one at worst)
  int runs = 0;              // candidate runs spent
  bool exhausted = false;    // stopped by max_runs, not because nothing smaller failed
  ScenarioSize before;       // the materialised scenario
  ScenarioSize after;        // the result
  std::vector<std::string> log;  // each accepted reduction, one line

  nlohmann::json to_json() const;
};

// Shrinks the failure of `seed` of the scenario `doc` (its file's JSON, already parsed into
// `parsed`): keeps variants that still violate `property`. Errors only if the worker process
// cannot be started.
Result<ShrinkResult> shrink_failure(const nlohmann::json& doc, const scenario::Scenario& parsed,
                                    uint64_t seed, const std::string& property,
                                    const ShrinkOptions& options);

// Which failing seed to shrink for `property`: of the failures that violate it (the first
// kShrinkCandidates of them, in seed order), the one whose random profile drew the fewest faults
// (the lowest seed among equals). A smaller start shrinks further in the same number of runs.
// Returns `fallback` when none of `failures` violates `property`.
inline constexpr size_t kShrinkCandidates = 16;
uint64_t pick_seed_to_shrink(const std::vector<SeedResult>& failures, const scenario::Scenario& parsed,
                             const std::string& property, uint64_t fallback);

}  // namespace lockstep::explore

#endif  // LOCKSTEP_HARNESS_EXPLORE_SHRINK_H_
