// SeedResult: what one seed of an exploration or a sweep came to, small enough to send from a
// worker process and to keep for millions of seeds.
//
// A seed either ran (the checkers gave a verdict, judged against the scenario's expect), or the
// run stopped with an error (a limit such as the event budget), or the worker running it died
// (a crash of the simulator itself: an assertion, a signal). Failure details (the outcome
// sentence, each violated or undecided property's explanation) are kept only for seeds that did
// not go as expected.
#ifndef LOCKSTEP_HARNESS_EXPLORE_SEED_RESULT_H_
#define LOCKSTEP_HARNESS_EXPLORE_SEED_RESULT_H_

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/scenario/run.h"
#include "harness/scenario/scenario.h"
#include "sim/core/printable.h"
#include "sim/core/status.h"
#include "sim/kernel/coverage.h"

namespace lockstep::explore {

struct SeedResult {
  enum class Kind : uint8_t { kRan, kError, kCrashed };

  uint64_t seed = 0;
  Kind kind = Kind::kRan;
  std::string verdict;  // ok | violation | unknown (ran); error; crashed
  bool expected = true;
  int exit_code = 0;  // as `lockstep run` would exit: 0, 1, 3; 2 for an error; 1 for a crash
  std::vector<std::string> violated;  // properties with a violation, in report order
  std::vector<std::string> unknown;   // properties the checkers could not decide
  std::string outcome;                // not expected only: one sentence
  std::string explanation;            // not expected only: the first violation's story (capped)
  // Not expected only: the stories of the other properties violated or undecided, in report
  // order, each "<property>: <story>" (capped), so that each finding can be read without a replay.
  std::vector<std::string> more_explanations;
  std::string replay;                 // the command that replays the seed
  kernel::Coverage coverage;          // what the seed exercised (summed by the summary, not kept)

  nlohmann::json to_json() const;
  // Reads what to_json wrote; `where` names the place in messages.
  static Result<SeedResult> from_json(const nlohmann::json& j, const std::string& where);
};

// The longest explanation kept per failing seed (the run's own report has the whole story).
inline constexpr size_t kMaxExplanationBytes = 4000;

// The shell command that replays `seed` of the scenario file `file`.
std::string replay_command(const std::string& file, uint64_t seed);


// Runs one seed in memory (no files) and condenses the run. Never fails: run errors become an
// error result. With `source`, the history comes from there (a live run) instead of the
// simulator, and the replay command says so.
SeedResult run_seed(const scenario::Scenario& s, uint64_t seed, scenario::HistorySource* source = nullptr);

// The result of a seed whose worker died, with `how` (e.g. "killed by signal 6"): crashed, or an
// error (no verdict) when the worker ran out of memory.
SeedResult crashed_seed(const scenario::Scenario& s, uint64_t seed, const std::string& how, bool out_of_memory = false);

}  // namespace lockstep::explore

#endif  // LOCKSTEP_HARNESS_EXPLORE_SEED_RESULT_H_
