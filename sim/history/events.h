// The vocabulary of a history: lock modes, operation kinds and outcomes.
//
// Shared by the simulator (which records) and the lock clients (which report outcomes), and
// spelled exactly as docs/history-format.md spells them.
#ifndef LOCKSTEP_SIM_HISTORY_EVENTS_H_
#define LOCKSTEP_SIM_HISTORY_EVENTS_H_

#include <cstdint>
#include <string_view>

namespace lockstep::history {

enum class LockMode : uint8_t { kExclusive, kRead, kWrite };
enum class OpKind : uint8_t { kLock, kTryLock, kUnlock, kForceUnlock, kRenew };
enum class Outcome : uint8_t { kOk, kFail, kUnknown };
enum class HoldEnd : uint8_t { kUnlock, kCrash, kLost, kEnd };

std::string_view to_string(LockMode m);
std::string_view to_string(OpKind k);
std::string_view to_string(Outcome o);
std::string_view to_string(HoldEnd r);

// A field that may be absent from a line.
constexpr int64_t kAbsent = INT64_MIN;

// The largest duration (a lease, a wait, a validity) a history may hold: docs/history-format.md,
// "Limits". The checker's reader (checker/history_parse.h) refuses more.
constexpr int64_t kMaxDurationMs = int64_t{1} << 42;

}  // namespace lockstep::history

#endif  // LOCKSTEP_SIM_HISTORY_EVENTS_H_
