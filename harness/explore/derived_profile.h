// Profiles derived from the algorithm (issue 13; docs/cli.md "Profiles derived from the
// algorithm").
//
// The generic random profile draws pauses of at most 15 s, holds far shorter than any lease and
// no client crashes, so it cannot produce the classic lock bugs: a watchdog holder paused past
// its 30 s lease, a hold that outlives its lease, a fair-lock waiter dying at the head of the
// queue, a stale write after a pause. derive_profile() builds the scenario from the algorithm's
// own timings instead: every magnitude is a fraction or a multiple of the lease the algorithm
// keeps (the watchdog timeout, or the lease its acquisitions pass) or of the client's command
// timeout, and the topology fits the algorithm (a replica for single-master locks, independent
// masters for RedLocks). The result is an ordinary scenario: `lockstep explore --print-profile`
// shows it, so it can be saved, read and edited.
#ifndef LOCKSTEP_HARNESS_EXPLORE_DERIVED_PROFILE_H_
#define LOCKSTEP_HARNESS_EXPLORE_DERIVED_PROFILE_H_

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/core/status.h"

namespace lockstep::explore {

// The timings a profile is derived from.
struct ProfileTimings {
  int64_t lease_ms = 30000;       // the lease the lock keeps (watchdog timeout, or a typical lease)
  int64_t command_timeout_ms = 3000;  // the client's timeout_ms
  bool renews = true;  // a call without a lease is renewed (watchdog, renewal loop, extension)
};

// The timings of `algorithm` with `options` (its algorithm.options object) and the default
// client options.
ProfileTimings profile_timings(const std::string& algorithm, const nlohmann::json& options);

// The scenario JSON of the profile for `algorithm` (a registered name) with `options`, on
// `masters` independent masters for a RedLock (0: the default, 3; an odd number 3..9; other
// locks take no `masters`). Errors name an unknown algorithm, options the algorithm refuses, or
// a masters count that does not fit.
Result<nlohmann::json> derive_profile(const std::string& algorithm, const nlohmann::json& options, int masters = 0);

}  // namespace lockstep::explore

#endif  // LOCKSTEP_HARNESS_EXPLORE_DERIVED_PROFILE_H_
