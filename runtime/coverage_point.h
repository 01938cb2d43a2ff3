// Coverage points: the client-side states lock clients report with Runtime::cover, declared with
// each algorithm (AlgorithmInfo::coverage_points) so that coverage can also list the states a
// run or an exploration never reached (docs/coverage.md).
#ifndef LOCKSTEP_RUNTIME_COVERAGE_POINT_H_
#define LOCKSTEP_RUNTIME_COVERAGE_POINT_H_

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace lockstep::runtime {

struct CoveragePoint {
  const char* name;     // snake_case, as Runtime::cover is called with it
  const char* meaning;  // one line for people
};

namespace coverage {

// Reported by every client's runtime itself (sim/kernel/client_process.cc).
inline constexpr const char* kCommandResent = "command_resent";
inline constexpr const char* kCommandTimedOut = "command_timed_out";
// Acquiring.
inline constexpr const char* kBusyNoWait = "busy_no_wait";
inline constexpr const char* kWaitForUnlock = "wait_for_unlock";
inline constexpr const char* kWokenByMessage = "woken_by_message";
inline constexpr const char* kWokenByTtl = "woken_by_ttl";
inline constexpr const char* kRetrySleep = "retry_sleep";
inline constexpr const char* kWaitTimeRanOut = "wait_time_ran_out";
inline constexpr const char* kSubscribeFailed = "subscribe_failed";
inline constexpr const char* kNotSynced = "not_synced";
inline constexpr const char* kInterruptedInFlight = "interrupted_in_flight";
// Quorum locks.
inline constexpr const char* kQuorumReached = "quorum_reached";
inline constexpr const char* kQuorumShort = "quorum_short";
inline constexpr const char* kValidityNotPositive = "validity_not_positive";
inline constexpr const char* kSubLockUnknown = "sub_lock_unknown";
inline constexpr const char* kRedlockWaitRanOut = "redlock_wait_ran_out";
// Keeping the lock.
inline constexpr const char* kRenewed = "renewed";
inline constexpr const char* kRenewalLost = "renewal_lost";
inline constexpr const char* kRenewalError = "renewal_error";
// Releasing.
inline constexpr const char* kReleased = "released";
inline constexpr const char* kCountDecremented = "count_decremented";
inline constexpr const char* kUnlockNotHeld = "unlock_not_held";

// The declarations of `names` (each must be one of the points above), followed by the
// runtime's own points. Its order is the order reports list them in.
std::vector<CoveragePoint> declare(std::initializer_list<const char*> names);
// The same for names read at run time (a Lua algorithm's declaration). REQUIRES: known(each).
std::vector<CoveragePoint> declare(const std::vector<std::string>& names);
// True when `name` is one of the points above.
bool known(std::string_view name);

}  // namespace coverage
}  // namespace lockstep::runtime

#endif  // LOCKSTEP_RUNTIME_COVERAGE_POINT_H_
