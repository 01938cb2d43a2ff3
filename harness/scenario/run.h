// run_scenario: one deterministic run of a scenario — simulate, write the history, check it,
// compare the verdicts with the scenario's `expect`, and write the result (docs/run.md).
//
// With an output directory, DIR/history.jsonl and DIR/result.json are written through
// temporary names and renamed when complete; without one, everything stays in memory (tests,
// determinism checks, benchmarks). Same scenario + same seed = byte-identical outputs.
#ifndef LOCKSTEP_HARNESS_SCENARIO_RUN_H_
#define LOCKSTEP_HARNESS_SCENARIO_RUN_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "checker/result.h"
#include "harness/scenario/scenario.h"
#include "harness/scenario/world.h"
#include "sim/core/status.h"
#include "sim/history/recorder.h"
#include "sim/kernel/node_model.h"

namespace lockstep::scenario {

struct RunReport;

// What produces a run's history. The simulator (World) by default; `lockstep run --live` hands
// run_scenario a live run against real redis-servers (harness/live) instead, and everything after
// the history — the checks, the verdicts, result.json and the report — is the same.
class HistorySource {
 public:
  virtual ~HistorySource() = default;
  // Records the run of `s` with `seed` into `rec`, header to footer. An error names the file.
  virtual Status run(const Scenario& s, uint64_t seed, history::Recorder& rec) = 0;
  virtual RunStats stats() const = 0;
  // The faults the run injected (the schedule and the drawn ones), by time.
  virtual const std::vector<FaultSpec>& faults() const = 0;
  // Added to the replay command ("--live").
  virtual std::string replay_flags() const = 0;
  // What the run exercised (docs/coverage.md), as far as this source can tell.
  virtual kernel::Coverage coverage() const { return {}; }
};

// The names a run's history has in its output directory, plain and compressed.
inline constexpr const char* kHistoryFile = "history.jsonl";
inline constexpr const char* kCompressedHistoryFile = "history.jsonl.zst";

struct RunOptions {
  std::optional<uint64_t> seed;       // default: the scenario's seed
  std::string out_dir;                // empty: keep outputs in memory
  kernel::NodeModelFactory factory;   // empty: the real Redis model
  bool check = true;                  // run the checkers
  bool coverage = true;               // count coverage (it never changes the run)
  std::string mutant;                 // a mutant (algorithms/mutants) replacing one script
  // Called now and then while simulating ("simulating", virtual ms reached, events), once
  // before the checks ("checking") and once before report.html is written ("report"); for a
  // progress display only (it cannot change the run).
  std::function<void(const char* phase, int64_t virtual_ms, uint64_t events)> progress;
  // Called once the checks are judged and before result.json is written, to add what needs
  // more than this run (lockstep run's causes proven by replay: RunReport::causes).
  std::function<void(const Scenario&, RunReport&)> annotate;
  // When set, every hold the simulated clients believed in is logged here (the ground truth
  // tests compare it with what the checker reconstructs from the history).
  std::vector<kernel::Belief>* beliefs = nullptr;
  // When set, the history comes from here instead of the simulator (factory, coverage and
  // beliefs are then unused).
  HistorySource* source = nullptr;
  // Without an output directory: keep the history's text in RunReport::history. False hands the
  // events to the checkers as they are recorded (direct_history.h): the same verdicts, faster,
  // and no text to read back. Ignored with out_dir or a source.
  bool history_text = true;
  // Without an output directory: build RunReport::result (result.json's content). False leaves
  // it null, for callers that keep only the verdicts.
  bool result_json = true;
  // Properties checked at once (checker::CheckOptions::threads).
  int check_threads = 1;
  // Judge this lock only (checker::CheckOptions::lock): a replay asking whether the same lock's
  // violation happens again. Empty: every lock.
  std::string check_lock;
  // Judge only these threads' overlaps (checker::CheckOptions::holders): a replay asking whether
  // a mutual-exclusion violation's two holders overlap again. Empty: every hold.
  std::vector<std::string> check_holders;
  // With out_dir: write the history as one zstd frame, to history.jsonl.zst (`run --compress`).
  bool compress_history = false;
};

struct RunReport {
  uint64_t seed = 0;
  checker::CheckResult check;
  std::string verdict;     // overall: ok, violation, unknown
  bool expected = true;    // the outcome matches the scenario's expect
  int exit_code = 0;       // 0 expected, 1 unexpected violation (or missing one), 3 unknown
  std::string outcome;     // one sentence: what was expected and what happened
  std::string replay;      // "lockstep run FILE --seed N [--mutant NAME]"
  std::string mutant;      // the mutant that ran, if any
  nlohmann::json result;   // result.json
  std::string history;     // the history text (in-memory runs with history_text only)
  // The history's file name in the output directory: history.jsonl, or history.jsonl.zst with
  // RunOptions::compress_history.
  std::string history_file = kHistoryFile;
  nlohmann::json causes;   // per violated property, its cause proven by replay (annotate), or null
  RunStats stats;
  kernel::Coverage coverage;  // what the run exercised (result.json's "coverage")
};

// Runs `s`. Errors (the event budget, the history limit, an output that cannot be written, a
// mutant that does not exist or does not apply to the algorithm) are returned as a Status naming
// the file; no output is left half-written.
Result<RunReport> run_scenario(const Scenario& s, const RunOptions& options);

// The text `lockstep run` prints: verdicts, explanations, the outcome and the replay command.
std::string format_report(const RunReport& report, const std::string& out_dir);

}  // namespace lockstep::scenario

#endif  // LOCKSTEP_HARNESS_SCENARIO_RUN_H_
