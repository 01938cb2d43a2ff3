// redlock-spec: RedLock as the Redis documentation specifies it ("Distributed Locks with
// Redis"), the reference next to Redisson's RedissonRedLock.
//
// Acquire: note the local time; SET key <random value> NX PX ttl on each of the N independent
// masters in turn, each with a small per-node timeout (node_timeout_ms, no retry); elapsed =
// now - start; validity = ttl - elapsed - drift, with drift = ttl * drift_factor + 2 ms. The lock
// is acquired iff at least N/2+1 masters said OK and validity > 0; the call then returns the
// validity (LockOutcome::validity_ms) — the time the client may trust it. Otherwise the value is
// deleted on every master (compare-and-delete) and, while the caller's wait budget lasts (lock():
// forever), the client retries after a random delay in [retry_delay - jitter, retry_delay +
// jitter]. A new random value is drawn per attempt. Not reentrant.
// Release: compare-and-delete on every master in parallel; `released` when a quorum deleted it.
// Force release: DEL on every master.
// Without a lease (lease_ms = -1) the ttl is the client's lock_watchdog_timeout_ms and the
// client extends it every ttl/3 with compare-and-pexpire on every master; the extension counts
// only if a quorum succeeded within the new validity — otherwise the client stops believing it
// holds the lock (a `lost` hold) and stops extending.
//
// Options: node_timeout_ms 50, retry_delay_ms 200, retry_jitter_ms 100, drift_factor_ppm 10000
// (0.01), drift_constant_ms 2, extend true.
#ifndef LOCKSTEP_ALGORITHMS_REDLOCK_SPEC_REDLOCK_SPEC_H_
#define LOCKSTEP_ALGORITHMS_REDLOCK_SPEC_REDLOCK_SPEC_H_

#include "algorithms/algorithm.h"

namespace lockstep::algorithms::redlock_spec {

struct SpecOptions {
  int64_t node_timeout_ms = 50;
  int64_t retry_delay_ms = 200;
  int64_t retry_jitter_ms = 100;
  int64_t drift_factor_ppm = 10'000;
  int64_t drift_constant_ms = 2;
  bool extend = true;
};

// validity = ttl - elapsed - (ttl * drift_factor_ppm / 1e6 + drift_constant_ms).
int64_t validity_ms(const SpecOptions& o, int64_t ttl_ms, int64_t elapsed_ms);

AlgorithmInfo redlock_spec_algorithm();

}  // namespace lockstep::algorithms::redlock_spec

#endif  // LOCKSTEP_ALGORITHMS_REDLOCK_SPEC_REDLOCK_SPEC_H_
