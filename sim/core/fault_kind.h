// The fault kinds: the names a scenario's faults and a history's `fault` events use.
//
// This is the vocabulary only. What each kind targets, its parameters and what it does in the
// simulator and against real redis-servers is the fault table, harness/scenario/fault_table.h.
// The checker reads kinds from histories, which may come from other tools: an unknown name is
// no kind (std::nullopt), never an error.
#ifndef LOCKSTEP_SIM_CORE_FAULT_KIND_H_
#define LOCKSTEP_SIM_CORE_FAULT_KIND_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace lockstep {

enum class FaultKind : uint8_t {
  kDelay,
  kDrop,
  kPartition,
  kPause,
  kCrash,
  kRestart,
  kClockOffset,
  kClockDrift,
  kClockJump,
  kFailover,
  kReplicationLag,
  kLoseReply,
  kInterrupt,
  kCancel,
};
inline constexpr size_t kFaultKindCount = 14;

// "delay", "clock_jump", ... as scenarios and histories spell it.
std::string_view fault_kind_name(FaultKind kind);

// The kind named `name`, or nullopt.
std::optional<FaultKind> parse_fault_kind(std::string_view name);

// A clock fault: clock_offset, clock_drift or clock_jump.
bool is_clock_fault(FaultKind kind);

// A fault on the network between processes: delay, drop, partition or lose_reply.
bool is_network_fault(FaultKind kind);

}  // namespace lockstep

#endif  // LOCKSTEP_SIM_CORE_FAULT_KIND_H_
