// Exploration: many seeds of one scenario, each a deterministic run with its own random fault
// schedule drawn from the scenario's profile, run in parallel worker processes.
//
// The summary is a pure function of the scenario and the seeds run: results are folded in seed
// order whatever order the workers finish in, and nothing about the machine (jobs, wall time)
// goes into it, so --jobs 1 and --jobs 8 give the same bytes. Summaries of disjoint shards of
// one range merge into the summary of the whole range (merge_summaries).
#ifndef LOCKSTEP_HARNESS_EXPLORE_EXPLORE_H_
#define LOCKSTEP_HARNESS_EXPLORE_EXPLORE_H_

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/explore/junit.h"
#include "harness/explore/seed_result.h"
#include "harness/explore/seeds.h"
#include "harness/scenario/scenario.h"
#include "sim/core/status.h"

namespace lockstep::explore {

// The most failing seeds whose details a summary keeps (the rest are only counted).
inline constexpr uint64_t kMaxFailureRecords = 100'000;

// The outcome of exploring a seed range, or a shard of it. docs/cli.md documents its JSON.
struct ExploreSummary {
  std::string scenario;  // its name
  std::string file;
  scenario::ExpectSpec expect;
  SeedRange range;                // the whole range the exploration covers
  std::vector<SeedRange> slices;  // the parts of it that were run, in seed order
  uint64_t seeds_run = 0;
  uint64_t as_expected = 0;
  std::map<std::string, uint64_t> verdicts;    // ok, violation, unknown, error, crashed → seeds
  std::map<std::string, uint64_t> violations;  // property → seeds that violated it
  std::map<std::string, uint64_t> unknown;     // property → seeds where it was unknown
  std::vector<SeedResult> failures;  // not as expected, in seed order, at most kMaxFailureRecords
  uint64_t failures_total = 0;       // including those past the cap
  nlohmann::json shrunk = nullptr;   // what shrinking the first failure produced, if it ran
  // What the seeds exercised, summed (scenario/coverage_report.h's object); null if unknown
  // (a summary written before coverage existed).
  nlohmann::json coverage = nullptr;
  // Stopped before its seeds were all run (Ctrl-C): `slices` hold the seeds that finished (a
  // prefix of `planned`), and `lockstep explore --resume DIR` runs the rest of `planned`.
  bool interrupted = false;
  SeedRange planned;  // interrupted only: the seeds this run set out to cover
  // Interrupted only, if known: the working directory the exploration ran in, so that
  // `--resume` finds a scenario `file` given as a relative path from any directory.
  std::string dir;
  // Interrupted only, if known: the options that shape the final result (`lockstep explore`'s
  // --no-shrink, --shrink-runs, --shrink-property, --list, --live, --junit), as an object that
  // `--resume` applies again. The harness keeps it as it is; the CLI reads and writes it.
  nlohmann::json options = nullptr;

  // Folds in one seed's result. REQUIRES: seeds are added in increasing order.
  void add(const SeedResult& r);
  // 0 every seed as expected; 3 only unknowns went wrong; 1 anything else went wrong.
  int exit_code() const;
  // The first failing seed with a violation worth shrinking, and the property to keep failing:
  // the first violated property other than the one the scenario expects. False if none.
  bool shrink_target(uint64_t& seed, std::string& property) const;

  // With "interrupted": true and "planned" only when interrupted.
  nlohmann::json to_json() const;
  // Reads what to_json wrote; errors name `file` and the JSON path.
  static Result<ExploreSummary> from_json(const nlohmann::json& j, const std::string& file);
  // The summary for people: counts, violations by property, the first `max_listed` failing
  // seeds with their replay commands, the shrunk scenario.
  std::string to_text(size_t max_listed) const;
};

struct ExploreProgress {
  uint64_t done = 0;
  uint64_t total = 0;
  uint64_t failures = 0;    // not as expected so far
  uint64_t violations = 0;  // seeds with any violation so far
};

struct ExploreOptions {
  SeedRange range;  // REQUIRES: check_range(range) is ok
  Shard shard;
  int jobs = 1;  // worker processes, 1..kMaxJobs
  // Run exactly these seeds instead of the shard's slice (explore --resume: the rest of an
  // interrupted run). REQUIRES: inside `range`.
  std::optional<SeedRange> only;
  // Polled between seeds: true stops the exploration, which returns the summary of the seeds
  // that finished in order (interrupted, see ExploreSummary).
  std::function<bool()> stop;
  // Called in the parent after each seed (in completion order), e.g. to draw a progress line.
  std::function<void(const ExploreProgress&)> progress;
  // Runs one seed in a worker (default: run_seed, the simulator); `lockstep explore --live`
  // runs it against real redis-servers.
  std::function<SeedResult(const scenario::Scenario&, uint64_t)> run_seed;
  // A checkpoint, so that a run killed without warning (SIGKILL, the OOM killer, a lost machine)
  // loses little: after a seed is folded in, if checkpoint_due() says so, `checkpoint` gets the
  // summary of the seeds folded so far, marked interrupted exactly as a stopped run's is (so
  // `lockstep explore --resume` goes on from it). Both are called in the parent only.
  std::function<bool()> checkpoint_due;
  std::function<void(const ExploreSummary&)> checkpoint;
};

// Runs the seeds of `options.shard` of `options.range` and summarises them. Errors only when
// the worker pool fails; failing seeds are results.
Result<ExploreSummary> run_explore(const scenario::Scenario& s, const ExploreOptions& options);

// Merges summaries of disjoint parts of one exploration (the same scenario file, name, expect
// and seed range); adjacent slices join, so an interrupted run's summary merged with its
// resumption's equals the summary of one uninterrupted run. Errors name the file whose summary
// does not fit.
Result<ExploreSummary> merge_summaries(const std::vector<ExploreSummary>& parts,
                                       const std::vector<std::string>& files);

// Test cases for JUnit: one per seed run (failures in detail, passing seeds by number).
JUnitSuite junit_suite(const ExploreSummary& summary);

}  // namespace lockstep::explore

#endif  // LOCKSTEP_HARNESS_EXPLORE_EXPLORE_H_
