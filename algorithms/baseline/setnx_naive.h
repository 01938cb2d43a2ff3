// The `setnx-naive` baseline: the lock people write before they know better, kept so that the
// checker has something obviously unsafe to catch.
//
// Acquire: SETNX key token, then — as a second command — EXPIRE key <lease in whole seconds,
// rounded up>. A crash or a lost reply between the two leaves a key that never expires; the
// lease is only as fine as a second. While the key exists, a waiting call (lock(), or tryLock
// with a wait budget) retries after a random delay in [retry_delay_ms/2, retry_delay_ms].
// Release: a plain DEL, whoever holds the key (after an expiry it deletes the next holder's
// lock). Force release: the same DEL. No renewal: without a lease (lease_ms = -1) the key gets
// default_lease_ms. Not reentrant.
//
// Options: {"retry_delay_ms": 50, "default_lease_ms": 30000}.
#ifndef LOCKSTEP_ALGORITHMS_BASELINE_SETNX_NAIVE_H_
#define LOCKSTEP_ALGORITHMS_BASELINE_SETNX_NAIVE_H_

#include "algorithms/algorithm.h"

namespace lockstep::algorithms::baseline {

AlgorithmInfo setnx_naive_algorithm();

}  // namespace lockstep::algorithms::baseline

#endif  // LOCKSTEP_ALGORITHMS_BASELINE_SETNX_NAIVE_H_
