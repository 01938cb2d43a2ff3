// The fault table: one entry per fault kind, with what a fault of the kind targets, its
// parameters (units, bounds, the range a random profile draws from), how it unfolds in time, and
// what it does in the simulator and against real redis-servers (live mode makes every kind real).
//
// Everything that handles faults reads this table instead of comparing kind names: the scenario
// parser (targets, parameters, required durations), the random profile's draw (defaults), the
// history's and the materialised scenario's parameters, both injectors (phases) and `lockstep
// list faults`. Adding a kind is a row here, a case in each `switch` over
// FaultKind the compiler then points at (the simulator's and live mode's effects), and a line
// in docs/scenarios.md.
#ifndef LOCKSTEP_HARNESS_SCENARIO_FAULT_TABLE_H_
#define LOCKSTEP_HARNESS_SCENARIO_FAULT_TABLE_H_

#include <cstdint>
#include <span>
#include <string_view>

#include "harness/scenario/scenario.h"
#include "sim/core/fault_kind.h"

namespace lockstep::scenario {

// What a fault's target names.
enum class FaultTargets : uint8_t {
  kLink,            // "target": "all", a process, {"from", "to"} or {"between": [a, b]}
  kGroups,          // "groups": [[...], [...]] (no "target")
  kProcess,         // a client or a node
  kNode,            // a node
  kClient,          // a client
  kThread,          // a client's thread, "c1/t0"
  kReplicatedNode,  // a node of a "replicated" topology
};

// How a fault unfolds in time (its history phases).
enum class FaultShape : uint8_t {
  kInstant,       // one `instant` event
  kWindow,        // `start`, and `end` after duration_ms (none: it lasts to the end of the run)
  kStepOrWindow,  // a step (`instant`) without duration_ms; a window with one, undone at its end
  kUntilSpent,    // `start`, and `end` once its replies are lost or after duration_ms
  kCrash,         // a node: `start`, and `end` when restart_after_ms restarts it (none: it stays
                  // down); a client: `instant`, for good
};

// An integer parameter of a kind, held in FaultSpec::*field.
struct FaultParam {
  std::string_view name;  // "extra_ms"
  std::string_view unit;  // "milliseconds", as parse errors and `lockstep list faults` say it
  int64_t FaultSpec::*field;
  int64_t lo;
  int64_t hi;
  Range draw;  // what a random profile draws from when it gives no range
  bool required = false;
  bool node_only = false;  // read only when the target is a node (a crash's restart_after_ms)
  bool drawn = true;       // a random profile draws it
};

struct FaultKindInfo {
  FaultKind kind;
  FaultTargets targets;
  FaultShape shape;
  bool random;  // a random profile may draw it
  std::span<const FaultParam> params;
  std::string_view simulated;  // what it does in the simulator
  std::string_view live;       // what it does against real redis-servers (docs/live.md)
};

// The entry of `kind`.
const FaultKindInfo& fault_info(FaultKind kind);

// Every entry, in FaultKind order.
std::span<const FaultKindInfo> fault_table();

// Whether `f` has parameter `p`: a value outside its bounds means "not given" (duration_ms -1).
inline bool fault_has(const FaultSpec& f, const FaultParam& p) { return f.*p.field >= p.lo && f.*p.field <= p.hi; }

// The parameter `name` of `kind`, or nullptr.
const FaultParam* fault_param(FaultKind kind, std::string_view name);

// Whether a fault `f` is a single `instant` event (a crash's depends on whether it hits a node).
bool fault_is_instant(const FaultSpec& f, bool target_is_node);

// The time after its start at which a fault that is not instant ends by itself, in
// milliseconds, or -1 when nothing ends it (a window to the end of the run, a node that stays
// down, lose_reply without a window: its last lost reply ends it).
int64_t fault_end_after_ms(const FaultSpec& f);

}  // namespace lockstep::scenario

#endif  // LOCKSTEP_HARNESS_SCENARIO_FAULT_TABLE_H_
