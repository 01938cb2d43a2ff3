// Materialising a seed's random fault schedule: the scenario file a seed "really" ran.
//
// A scenario with a random fault profile draws a different schedule for every seed. To shrink a
// failure (or to keep it as a regression test that no longer depends on the profile's draws),
// the schedule the seed drew is written out as explicit faults: the result is the same scenario
// with no random profile, every drawn fault in /faults/schedule, and the seed set. Running it
// with that seed does exactly what the original run did — the same faults with the same numbers
// in the same order, so every other random draw (network, workload) is unchanged too; only the
// faults' recorded `origin` differs.
//
// Clock jumps given in clock specs (/nodes/*/clock/jumps, /clients/.../clock/jumps) are moved
// into the schedule as well, behind the file's own entries and before the drawn ones, which is
// the order (and so the numbering) the world gives them; shrinking can then remove them too.
#ifndef LOCKSTEP_HARNESS_EXPLORE_MATERIALIZE_H_
#define LOCKSTEP_HARNESS_EXPLORE_MATERIALIZE_H_

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "harness/scenario/scenario.h"

namespace lockstep::explore {

// A schedule entry (docs/scenarios.md) that parses back into `f`.
nlohmann::json fault_to_json(const scenario::FaultSpec& f);

// `doc` (the scenario file's JSON, which parsed into `parsed`) with the faults `seed` draws
// written out as a fixed schedule and "seed" set to `seed`.
// REQUIRES: parsed is what doc parses into.
nlohmann::json materialize_faults(const nlohmann::json& doc, const scenario::Scenario& parsed,
                                  uint64_t seed);

// `doc` (a scenario with a generated workload, no random faults left: materialize_faults first)
// with the workload `seed` generated written out as an explicit script: for every thread, its
// start delay, then for each operation it began the acquire call with the lock, mode, wait and
// lease it drew, `then` the write(s), the hold it drew and the unlock, and the think time. Each
// thread's draws are replayed from its own stream; whether an acquisition succeeded (the
// generator draws a hold only after a success) is read from `history`, the history of running
// `doc` with `seed`. Running the result with `seed` makes the same calls at the same times (the
// same history, but for the header's scenario). Operations the run never began are left out;
// an acquisition that failed gets the shortest hold in its `then`, which that run never used.
// Returns nullopt when the scenario is not one to write out: no generator, or interrupt/cancel
// faults (a script's sleeps are interruptible, the generator's are not).
// REQUIRES: parsed is what doc parses into.
std::optional<nlohmann::json> materialize_workload(const nlohmann::json& doc, const scenario::Scenario& parsed,
                                                   uint64_t seed, const std::string& history);

}  // namespace lockstep::explore

#endif  // LOCKSTEP_HARNESS_EXPLORE_MATERIALIZE_H_
