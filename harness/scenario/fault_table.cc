#include "harness/scenario/fault_table.h"

#include <array>

#include "sim/core/assert.h"
#include "sim/kernel/local_clock.h"

namespace lockstep::scenario {
namespace {

constexpr int64_t kDayMs = int64_t{24} * 3600 * 1000;
constexpr int64_t kMaxOffsetMs = kernel::LocalClock::kMaxOffsetUs / 1000;
constexpr int64_t kMaxDriftPpm = kernel::LocalClock::kMaxDriftPpm;
constexpr std::string_view kMs = "milliseconds";
constexpr std::string_view kPpm = "parts per million";

constexpr FaultParam duration(bool required) {
  return {"duration_ms", kMs, &FaultSpec::duration_ms, 0, Limits::kMaxDurationMs, {1000, 10'000}, required};
}
constexpr FaultParam kExtra{"extra_ms", kMs, &FaultSpec::extra_ms, 0, kDayMs, {100, 5000}, true};

constexpr std::array kDelayParams{duration(true), kExtra};
constexpr std::array kDropParams{duration(false),
                                 FaultParam{"rate_ppm", kPpm, &FaultSpec::rate_ppm, 0, 1'000'000, {1'000'000, 1'000'000}}};
constexpr std::array kWindowParams{duration(false)};
constexpr std::array kPauseParams{duration(true)};
constexpr std::array kCrashParams{FaultParam{"restart_after_ms", kMs, &FaultSpec::restart_after_ms, 0,
                                             Limits::kMaxDurationMs, {1000, 10'000}, false, true}};
constexpr std::array kOffsetParams{
    duration(false), FaultParam{"offset_ms", kMs, &FaultSpec::offset_ms, -kMaxOffsetMs, kMaxOffsetMs, {-10'000, 10'000}, true}};
constexpr std::array kDriftParams{
    duration(false), FaultParam{"drift_ppm", kPpm, &FaultSpec::drift_ppm, -kMaxDriftPpm, kMaxDriftPpm, {-1000, 1000}, true}};
constexpr std::array kJumpParams{
    FaultParam{"delta_ms", kMs, &FaultSpec::delta_ms, -kMaxOffsetMs, kMaxOffsetMs, {-30'000, 30'000}, true}};
constexpr std::array kLagParams{duration(true), kExtra};
// A random lose_reply has no window: its replies end it.
constexpr std::array kLoseParams{
    FaultParam{"duration_ms", kMs, &FaultSpec::duration_ms, 0, Limits::kMaxDurationMs, {1000, 10'000}, false, false, false},
    FaultParam{"replies", "replies", &FaultSpec::replies, 1, 1'000'000, {1, 1}}};
constexpr std::span<const FaultParam> kNone;

using T = FaultTargets;
using S = FaultShape;
using K = FaultKind;

const std::array<FaultKindInfo, kFaultKindCount> kTable = {{
    {K::kDelay, T::kLink, S::kWindow, true, kDelayParams,
     "messages sent on the target links during the window arrive extra_ms later, each connection's order kept",
     "lockstep's side of each client-node connection holds the bytes back by extra_ms, in order"},
    {K::kDrop, T::kLink, S::kWindow, true, kDropParams,
     "messages sent on the target links during the window are lost with probability rate_ppm",
     "lockstep's side of each client-node connection discards the message (a request never reaches the node)"},
    {K::kPartition, T::kGroups, S::kWindow, true, kWindowParams,
     "processes in different groups exchange no messages (one_way: only the first group's to the second)",
     "client-node links between the groups carry nothing; a master-replica link's stream waits in the replication proxy"},
    {K::kPause, T::kProcess, S::kWindow, true, kPauseParams,
     "stop-the-world: nothing of the process runs; arrivals and due timers wait for the end",
     "a node gets SIGSTOP, then SIGCONT; a client's coroutines are not resumed until the end"},
    {K::kCrash, T::kProcess, S::kCrash, true, kCrashParams,
     "a node loses its memory and what is in flight, and restarts from what its persistence kept; a client dies for good",
     "a node gets SIGKILL and starts again on its port and directory; a client's coroutines and connections are destroyed"},
    {K::kRestart, T::kNode, S::kInstant, false, kNone, "restarts a crashed node from what its persistence kept",
     "starts a killed redis-server again on its port and directory"},
    {K::kClockOffset, T::kProcess, S::kStepOrWindow, true, kOffsetParams,
     "steps the clock to true time + offset_ms (stepped back at the end of a window); timers are re-timed",
     "a node's wall clock through lockstep's clock shim; a client's clock inside lockstep, its waits re-timed"},
    {K::kClockDrift, T::kProcess, S::kStepOrWindow, true, kDriftParams,
     "the clock runs at rate 1 + drift_ppm / 10^6 (the old rate comes back at the end of a window)",
     "a node's wall clock through lockstep's clock shim; a client's clock inside lockstep, its waits re-timed"},
    {K::kClockJump, T::kProcess, S::kInstant, true, kJumpParams, "the clock steps by delta_ms; timers are re-timed",
     "a node's wall clock through lockstep's clock shim; a client's clock inside lockstep, its waits re-timed"},
    {K::kFailover, T::kReplicatedNode, S::kInstant, true, kNone,
     "promotes a replica of the target's shard (promote, else the one that received most); clients follow it",
     "REPLICAOF NO ONE on the chosen replica, the others follow it, the clients' connections move to it"},
    {K::kReplicationLag, T::kReplicatedNode, S::kWindow, true, kLagParams,
     "the replication stream towards the target replica takes extra_ms longer",
     "the replication proxy in front of the replica holds the stream back by extra_ms more"},
    {K::kLoseReply, T::kClient, S::kUntilSpent, true, kLoseParams,
     "the next replies matching match to the target client are lost after the command ran",
     "lockstep's side of the client's connections swallows the matching replies"},
    {K::kInterrupt, T::kThread, S::kInstant, false, kNone, "Thread.interrupt() of the target thread",
     "the same, inside lockstep's live client (kernel/thread_interrupts.h)"},
    {K::kCancel, T::kThread, S::kInstant, false, kNone, "Future.cancel() of the target thread's pending tryLock",
     "the same, inside lockstep's live client (kernel/thread_interrupts.h)"},
}};

}  // namespace

const FaultKindInfo& fault_info(FaultKind kind) {
  const size_t i = static_cast<size_t>(kind);
  LS_ASSERT(i < kTable.size());
  LS_ASSERT(kTable[i].kind == kind);
  return kTable[i];
}

std::span<const FaultKindInfo> fault_table() { return kTable; }

const FaultParam* fault_param(FaultKind kind, std::string_view name) {
  for (const FaultParam& p : fault_info(kind).params) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

bool fault_is_instant(const FaultSpec& f, bool target_is_node) {
  switch (fault_info(f.kind).shape) {
    case FaultShape::kInstant: return true;
    case FaultShape::kWindow: return false;
    case FaultShape::kStepOrWindow: return f.duration_ms < 0;
    case FaultShape::kUntilSpent: return false;
    case FaultShape::kCrash: return !target_is_node;
  }
  return false;
}

int64_t fault_end_after_ms(const FaultSpec& f) {
  return fault_info(f.kind).shape == FaultShape::kCrash ? f.restart_after_ms : f.duration_ms;
}

}  // namespace lockstep::scenario
