// The client-side flows of RedissonLock, shared by every Redisson lock type (lock_type.h).
//
// acquire() dispatches a LockRequest the way the application's call would:
//   wait_ms < 0              lock() / lock(lease): retry until acquired
//   wait_ms == 0, no lease   tryLock(): one attempt (EVAL_NULL_BOOLEAN; the fair lock's
//                            non-queueing script)
//   otherwise                tryLock(wait, lease)
// tryLock(wait, lease) is seed 001's loop exactly: tryAcquire; if taken, subscribe to the
// channel (waiting at most the remaining budget for the confirmation), then loop {tryAcquire;
// block on the entry's latch for min(ttl, remaining) — or the remaining time when the ttl is
// negative}; every step subtracts the local time spent, and running out calls acquireFailed and
// returns false; the subscription is released on every way out. lock() is the same with no
// budget (a failed subscription is an error, as Redisson's syncSubscription raises). An
// acquisition without a lease starts the watchdog (scheduleExpirationRenewal).
//
// release() runs the unlock script, then cancels the thread's renewal whatever the result (seed
// 003's unlockAsync), and maps nil to Redisson's IllegalMonitorStateException. force_release()
// cancels the whole renewal entry and deletes the lock.
//
// A command that got no reply within the executor's attempts makes the call `unknown` (the
// client cannot know whether it ran), an error reply makes it `fail`.
//
// Interrupts (docs/algorithms.md "Interrupts"): an interrupt or cancel that lands while an
// acquire command is in flight ends the call `unknown` when the reply arrives (Redisson's thread
// throws at once; lockstep's thread runs the command's callback first, see the docs), and a
// grant in that reply is handled by `interrupted_grant` (interrupt) or unlocked (cancel: the
// async tryLock's `if (!result.complete(true)) unlockAsync()`). One that lands while the thread
// waits for its subscription or a wake-up ends the call `fail` at once, after unsubscribing and
// without acquireFailed — the fair lock's waiter stays queued, as in Redisson — except in lock(),
// whose wake-up waits swallow it. unlock() and forceUnlock() leave it pending.
#ifndef LOCKSTEP_ALGORITHMS_REDISSON_LOCK_FLOWS_H_
#define LOCKSTEP_ALGORITHMS_REDISSON_LOCK_FLOWS_H_

#include <string>

#include "algorithms/redisson/lock_type.h"

namespace lockstep::algorithms::redisson {

// The state Redisson keeps in one RLock object (docs/algorithms.md "Lock objects"): its
// internalLockLeaseTime. What sets and resets it is the profile's `object_lease`.
struct LockObject {
  int64_t internal_lease_ms = 0;
};

// One lock call with owned strings (coroutine frames outlive the caller's views).
struct LockCall {
  std::string lock;
  int64_t wait_ms = -1;
  int64_t lease_ms = -1;
  int64_t op = -1;
  LockObject* object = nullptr;  // the object called through; null: a fresh one (RedLock's)
  bool interruptibly = false;    // lock(): lockInterruptibly()
};

// Bounds the retries of one lock() / tryLock() call.
inline constexpr int64_t kMaxLockAttempts = 10'000'000;

Task<LockOutcome> acquire(LockType& type, size_t endpoint, const Thread* thread, LockCall call);
// tryLock(wait, lease) with any wait (also <= 0, as RedLock's sub-locks may pass).
Task<LockOutcome> try_lock(LockType& type, size_t endpoint, const Thread* thread, LockCall call);
// lock(lease).
Task<LockOutcome> lock(LockType& type, size_t endpoint, const Thread* thread, LockCall call);
// tryLock() with no wait.
Task<LockOutcome> try_lock_once(LockType& type, size_t endpoint, const Thread* thread,
                                LockCall call);
Task<LockOutcome> release(LockType& type, size_t endpoint, const Thread* thread, LockCall call);
Task<LockOutcome> force_release(LockType& type, size_t endpoint, LockCall call);

}  // namespace lockstep::algorithms::redisson

#endif  // LOCKSTEP_ALGORITHMS_REDISSON_LOCK_FLOWS_H_
