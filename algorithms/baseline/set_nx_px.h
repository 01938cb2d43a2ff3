// The `set-nx-px` baseline: the Redis documentation's single-instance lock.
//
// Acquire: SET key token NX PX lease (a fresh token per acquisition: "<uuid>:<thread>:<n>").
// While the lock is taken, a waiting call (lock(), or tryLock with a wait budget) retries after a
// random delay in [retry_delay_ms/2, retry_delay_ms]. Release: the compare-and-delete script.
// Force release: DEL. Not reentrant: a second acquire by the holder waits like anyone else.
// Without an explicit lease (lease_ms = -1) the lease is the client's lock_watchdog_timeout_ms
// and a background task renews it every third of that with a compare-and-pexpire script; a
// renewal that finds another token reports the hold lost and stops.
//
// Options: {"retry_delay_ms": 50 (1..60000)}.
#ifndef LOCKSTEP_ALGORITHMS_BASELINE_SET_NX_PX_H_
#define LOCKSTEP_ALGORITHMS_BASELINE_SET_NX_PX_H_

#include "algorithms/algorithm.h"

namespace lockstep::algorithms::baseline {

AlgorithmInfo set_nx_px_algorithm();

}  // namespace lockstep::algorithms::baseline

#endif  // LOCKSTEP_ALGORITHMS_BASELINE_SET_NX_PX_H_
