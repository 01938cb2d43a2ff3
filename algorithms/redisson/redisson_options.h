// RedissonOptions: the behaviour switches of the Redisson lock clients, with version profiles.
//
// Redisson's lock behaviour changed between versions (see /work/shared/reference, section 1).
// A scenario picks a `profile` — `classic` (the seed documents, Redisson ~3.10) or `current`
// (Redisson 3.52 / 4.x) — and may override any single behaviour, so a user can replay the exact
// version they run. Connection settings that belong to Redisson's Config (command timeout,
// retry interval, subscription timeout, lockWatchdogTimeout) stay in the scenario's client
// options (docs/scenarios.md); only the retry policy, which the profiles change, is here.
//
// Every option, its meaning and both profile defaults are listed in docs/algorithms.md;
// `describe()` returns the same table for `lockstep list`.
#ifndef LOCKSTEP_ALGORITHMS_REDISSON_REDISSON_OPTIONS_H_
#define LOCKSTEP_ALGORITHMS_REDISSON_REDISSON_OPTIONS_H_

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/core/status.h"

namespace lockstep::algorithms::redisson {

enum class Profile : uint8_t { kClassic, kCurrent };
// How long to wait before re-sending a command that timed out.
enum class RetryDelay : uint8_t {
  kFixed,        // the client's retry_interval_ms (classic Redisson: retryInterval)
  kEqualJitter,  // Redisson 3.40+: EqualJitterDelay(base, max): d = min(max, base*2^n); d/2 + rand(d/2)
};
enum class UnlockScript : uint8_t {
  kExistsCheck,  // seed 001: an unlock of a lock that does not exist returns 1 (and publishes)
  kOwnerCheck,   // seed 003: no leading EXISTS, so the same unlock returns nil (IllegalMonitorState)
};
enum class LatchRequestId : uint8_t {
  kPerCall,     // 3.52+: one requestId per unlock() call, shared by its retries
  kPerAttempt,  // 3.24-3.51: every retry made a fresh requestId, so the latch never matched
};
enum class FairScript : uint8_t {
  kSeed,     // seed 002: no guard for a queue entry without a score; a re-try refreshes its score
  kCurrent,  // 3.32 guard and `max(0, pttl)` for a queued waiter, 3.45 enqueue rule
};
enum class ReadRenew : uint8_t {
  kAllFields,  // seed 004: renews the timeout keys of every field of the hash (any client's)
  kOwnOnly,    // 4.4.0+: renews only this client's threads' timeout keys
};
enum class RedlockLease : uint8_t {
  kWaitTimesTwo,     // seed 001: with a lease, each sub-lock's lease is waitTime*2, whatever it is
  kLeaseUnlessWait,  // 3.11.1+ (#2172): waitTime*2 only when waitTime > 0, else the lease
};
// What a lock object's internalLockLeaseTime holds (the lease its unlocks re-arm a re-entered
// hold with, and in later versions the lease of its watchdog-path acquisitions).
enum class ObjectLease : uint8_t {
  kEveryAttempt,    // seed 001: tryLockInnerAsync sets it to each attempt's lease (the watchdog
                    // timeout without one) before the script runs; unlocks never reset it
  kResetOnUnlock,   // 3.x to 3.27.1: set by an acquisition with a lease; every unlock resets it
                    // to lockWatchdogTimeout
  kResetOnRelease,  // 3.27.2+ (#5623): set by an acquisition with a lease; reset only by an
                    // unlock that fully releases (testRemainTimeToLive2)
};
// What the acquire script's reply does when its caller was interrupted while the command was in
// flight (docs/algorithms.md "Interrupts"): the grant is nobody's, since the thread got an
// exception and believes it holds nothing.
enum class InterruptedGrant : uint8_t {
  kRenews,    // <= 3.16.2 (#2714) and 3.20.1+ (#7272, open): the reply's callback still runs
              // scheduleExpirationRenewal, so a watchdog renews a lock nobody holds
  kDropped,   // 3.16.3 - 3.20.0 (#3826): get() cancels the acquire future, so the callback never
              // runs: no watchdog, the key lives out its lease
  kUnlocked,  // the fix proposed upstream (#7277): the late grant drops its watchdog and unlocks
};
enum class WatchdogAfterFailure : uint8_t {
  kStop,        // <= 3.43: a renewal that errors or times out stops the watchdog for good
  kReschedule,  // >= 3.44: the next renewal is scheduled anyway
};

struct RedissonOptions {
  // The 8-byte fields first, then the 1-byte ones: every client keeps a copy (64 bytes, not 88).
  // Command retry policy: the delay between attempts.
  int64_t retry_delay_base_ms = 1000;
  int64_t retry_delay_max_ms = 2000;
  // Replica synchronisation (below): the WAIT's timeout.
  int64_t slaves_sync_timeout_ms = 1000;
  // Fair lock (below): how long a queued thread's turn waits for it.
  int64_t fair_thread_wait_ms = 5000;
  // RedLock (redisson-redlock): Redisson's lower bound of the per-lock wait (2.11.3+: 1 ms).
  int64_t redlock_min_lock_wait_ms = 1;
  // Command retry policy. retry_attempts < 0: the client's retry_attempts.
  int32_t retry_attempts = -1;
  Profile profile = Profile::kClassic;
  RetryDelay retry_delay = RetryDelay::kFixed;
  // RLock scripts.
  bool merged_acquire = false;  // the single `exists == 0 or hexists == 1` test (same semantics)
  UnlockScript unlock_script = UnlockScript::kExistsCheck;
  bool unlock_latch = false;    // 3.24+: idempotent unlock through redisson_unlock_latch keys
  LatchRequestId latch_request_id = LatchRequestId::kPerCall;
  // Replica synchronisation after lock scripts (3.12.5+).
  bool sync_replicas = false;
  bool check_lock_synced_slaves = true;
  // lockstep's own instrumentation, not a Redisson behaviour: RLock and fenced lock scripts
  // record the lock key's `state` after they run (its hash and TTL), as the fair and read-write
  // locks always do.
  bool record_states = false;
  // Lock objects (docs/algorithms.md "Lock objects").
  ObjectLease object_lease = ObjectLease::kEveryAttempt;
  // Watchdog.
  WatchdogAfterFailure watchdog_after_failure = WatchdogAfterFailure::kStop;
  InterruptedGrant interrupted_grant = InterruptedGrant::kRenews;
  // Fair lock.
  FairScript fair_script = FairScript::kSeed;
  bool fair_acquire_failed_on_timeout = false;
  // Read-write lock.
  bool read_lease_max = true;
  ReadRenew read_renew = ReadRenew::kAllFields;
  // RedLock: how the sub-locks' lease is derived.
  RedlockLease redlock_lease = RedlockLease::kWaitTimesTwo;
  bool retry_attempts_given = false;  // the scenario's algorithm options set retry_attempts

  // The retry attempts to use given the client's setting.
  // Which retry count wins: the algorithm option given in the scenario, then the client option
  // given in the scenario, then the profile's default, then the client's default (explicit
  // options always beat a profile, docs/algorithms.md).
  int32_t effective_retry_attempts(int32_t client_retry_attempts, bool client_given) const {
    if (retry_attempts >= 0 && (retry_attempts_given || !client_given)) return retry_attempts;
    return client_retry_attempts;
  }
};

// The defaults of a profile.
RedissonOptions profile_defaults(Profile profile);

// Parses `options` (the scenario's algorithm.options object): `profile` first, then each
// override. `allowed` names the option keys this algorithm accepts (see option_names()).
// Errors name the JSON path under `path` ("/algorithm/options/fair_thread_wait_ms"), what was
// expected and what was found.
Result<RedissonOptions> parse_options(const nlohmann::json& options, const std::string& path,
                                      const std::vector<std::string>& allowed);

// What make() builds a client with: parse_options() of the validated options.
// REQUIRES: the options passed parse_options().
RedissonOptions client_options(const nlohmann::json& options,
                               const std::vector<std::string>& allowed);

// Option groups: every algorithm takes the common ones plus its own.
std::vector<std::string> common_option_names();
std::vector<std::string> fair_option_names();
std::vector<std::string> rwlock_option_names();
std::vector<std::string> redlock_option_names();

// For `lockstep list` and docs: {"option": {"classic": v, "current": v, "doc": "..."}} for the
// given option names, in the given order (as a JSON array of objects with "name").
nlohmann::json describe(const std::vector<std::string>& names);

}  // namespace lockstep::algorithms::redisson

#endif  // LOCKSTEP_ALGORITHMS_REDISSON_REDISSON_OPTIONS_H_
