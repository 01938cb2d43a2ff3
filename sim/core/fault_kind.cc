#include "sim/core/fault_kind.h"

#include <array>

#include "sim/core/assert.h"

namespace lockstep {
namespace {

constexpr std::array<std::string_view, kFaultKindCount> kNames = {
    "delay",       "drop",       "partition", "pause",           "crash",      "restart",   "clock_offset",
    "clock_drift", "clock_jump", "failover",  "replication_lag", "lose_reply", "interrupt", "cancel"};

}  // namespace

std::string_view fault_kind_name(FaultKind kind) {
  const size_t i = static_cast<size_t>(kind);
  LS_ASSERT(i < kNames.size());
  return kNames[i];
}

std::optional<FaultKind> parse_fault_kind(std::string_view name) {
  for (size_t i = 0; i < kNames.size(); ++i) {
    if (kNames[i] == name) return static_cast<FaultKind>(i);
  }
  return std::nullopt;
}

bool is_clock_fault(FaultKind kind) {
  return kind == FaultKind::kClockOffset || kind == FaultKind::kClockDrift || kind == FaultKind::kClockJump;
}

bool is_network_fault(FaultKind kind) {
  return kind == FaultKind::kDelay || kind == FaultKind::kDrop || kind == FaultKind::kPartition ||
         kind == FaultKind::kLoseReply;
}

}  // namespace lockstep
