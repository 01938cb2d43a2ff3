// Causes proven by replay (issue 9, docs/checker.md "Causes proven by replay").
//
// The simulator is deterministic, so a violation's cause can be tested instead of guessed. The
// seed's fault schedule is materialised (materialize.h), then the same seed is replayed with
// faults removed: with none at all (does the algorithm fail by itself?), without each one in
// turn (which faults are necessary?), and with only the necessary ones (are they sufficient?).
// When no single fault is necessary (redundant faults), faults are dropped one at a time while
// the violation stays, which leaves a minimal sufficient set. "This violation" means the same
// property violated again, on the same lock for mutual exclusion and linearizability (a run with
// two locks may break one by a fault and the other by design). Every replay is one run; their
// number is bounded, and a result that ran out says so.
#ifndef LOCKSTEP_HARNESS_EXPLORE_COUNTERFACTUAL_H_
#define LOCKSTEP_HARNESS_EXPLORE_COUNTERFACTUAL_H_

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "checker/result.h"
#include "harness/scenario/scenario.h"
#include "sim/core/status.h"

namespace lockstep::explore {

struct CounterfactualOptions {
  int max_replays = 16;  // replay runs at most (lockstep run --replays)
  std::string mutant;    // the mutant the run used, if any: its replays use it too
  // The lock the violation is on (violated_lock): a replay counts a violation of that lock only.
  // Empty: of any lock.
  std::string lock;
  // The two threads whose holds overlapped (violated_holders): a replay counts a
  // mutual_exclusion violation only when these two overlap again. Empty: any two.
  std::vector<std::string> holders;
};

// The lock a mutual_exclusion or linearizability violation is on (its counterexample's), else "".
std::string violated_lock(const checker::PropertyResult& property);

// The two threads a mutual_exclusion violation's first overlap is between (its counterexample's),
// else none: "this violation" is then that overlap, not any on the same lock (a redsync run whose
// lock breaks by design elsewhere, where a pause was what let these two overlap: seed 61).
std::vector<std::string> violated_holders(const checker::PropertyResult& property);

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
  // What the violation's story (checker/explain.h) named as its first inevitable event, against
  // the proof: the fault it named (0: none, or no story), and whether the proof bears it out.
  // Set by compare_with_story.
  bool has_story = false;
  int64_t story_fault = 0;
  bool story_agrees = true;
  // Where the proof over the lock parts from a story that named a fault, whether that fault is
  // needed for the story's own overlap (its two holders overlapping again). Set by
  // prove_story_on_overlap.
  bool overlap_proven = false;
  bool overlap_agrees = false;

  nlohmann::json to_json() const;
};

// Proves the cause of `property`'s violation in the run of `parsed` (whose file's JSON is
// `doc`) with `seed`. REQUIRES: that run violated `property`.
Result<Cause> prove_cause(const nlohmann::json& doc, const scenario::Scenario& parsed, uint64_t seed,
                          const std::string& property, const CounterfactualOptions& options);

// Compares `cause` with the story of `property`'s violation and says in its text where they part:
// the story named a fault that the violation did not need (it happens without any fault, or
// without that one), or named none while the violation needs one. A cause not proven (the
// budget ran out) is compared with nothing.
void compare_with_story(const checker::PropertyResult& property, Cause* cause);

// A second proof where the first parts from the story: the lock's violation may happen without
// the fault the story named (the lock breaks by design elsewhere, or another way), while the
// overlap the story tells needs it (redsync seed 61: a pause let c1/t0 and c3/t1 overlap, and the
// lock broke by design later). For a mutual_exclusion violation whose story named a fault that the
// proof over the lock did not bear out, replays whether its two holders overlap again
// (violated_holders) and adds to the cause's text whether that overlap needs the story's fault.
// Proving over the two holders alone throughout was tried and dropped: it credits faults that
// only moved which thread met a lease outlived by design (docs/checker.md).
void prove_story_on_overlap(const nlohmann::json& doc, const scenario::Scenario& parsed, uint64_t seed,
                            const checker::PropertyResult& property, const CounterfactualOptions& options, Cause* cause);

}  // namespace lockstep::explore

#endif  // LOCKSTEP_HARNESS_EXPLORE_COUNTERFACTUAL_H_
