// LockClient: the interface every lock algorithm implements (set-nx-px, Redisson's RLock, fair
// lock, read-write lock, RedLock, ...): one lock call's request and outcome. The registry that
// names the algorithms is algorithms/algorithm.h.
//
// The workload driver calls acquire/release/force_release from a client thread and records the
// invoke, the completion and the holds itself; the algorithm only talks to Redis through its
// Runtime and reports what happened. An algorithm object belongs to one client process (one
// Redisson client) and serves all its threads; it may keep per-lock state (watchdog entries,
// pub/sub entries) shared between them, exactly as Redisson does.
#ifndef LOCKSTEP_RUNTIME_LOCK_CLIENT_H_
#define LOCKSTEP_RUNTIME_LOCK_CLIENT_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/runtime.h"

namespace lockstep::runtime {

using history::LockMode;
using history::Outcome;

// One lock call.
// The one-byte fields last: a waiting thread keeps one (64 bytes, not 72).
struct LockRequest {
  std::string_view lock;                // the lock's name (the Redis key or its base)
  int64_t wait_ms = -1;                 // acquire: -1 lock() (wait forever); >= 0 tryLock(wait)
  int64_t lease_ms = -1;                // acquire: -1 no lease, the watchdog keeps it; 0 none at all
                                        // (AlgorithmInfo::default_lease_ms); else the lease
  int64_t op = -1;                      // history operation id; pass it in CallOptions::op
  // The lock object the application calls through, by name within its client process (a
  // scenario step's "object"); empty: a fresh object for this call, as getLock(name).lock()
  // makes. Only algorithms whose objects carry state (Redisson's internalLockLeaseTime) use it.
  std::string_view object;
  LockMode mode = LockMode::kExclusive;
  // lock(): lockInterruptibly() — an interrupt ends the wait for the lock (lock() ignores one
  // that lands while it waits for a wake-up; docs/algorithms.md "Interrupts").
  bool interruptibly = false;
};

// What a lock call returned. Fields not meaningful for the call stay at their defaults.
struct LockOutcome {
  Outcome outcome = Outcome::kOk;  // ok: a definite answer; fail: an error; unknown: timed out
  bool acquired = false;           // acquire
  bool released = false;           // release: fully released / force_release: a lock existed
  int64_t count = -1;              // hold count after the call, when the algorithm knows it
  int64_t token = -1;              // fencing token of this acquisition (fenced locks)
  int64_t validity_ms = -1;        // RedLock spec: the validity the client computed
  std::string error;               // fail/unknown: the message the application would see

  static LockOutcome unknown(std::string error);
  static LockOutcome fail(std::string error);
};

class LockClient {
 public:
  virtual ~LockClient() = default;
  // lock() / lock(lease) / tryLock(wait, lease), in request.mode.
  virtual Task<LockOutcome> acquire(const Thread& thread, const LockRequest& request) = 0;
  // unlock() of one hold by this thread.
  virtual Task<LockOutcome> release(const Thread& thread, const LockRequest& request) = 0;
  // forceUnlock(): deletes the lock whoever holds it.
  virtual Task<LockOutcome> force_release(const Thread& thread, const LockRequest& request) = 0;
};

}  // namespace lockstep::runtime

#endif  // LOCKSTEP_RUNTIME_LOCK_CLIENT_H_
