// The Redisson lock algorithms as LockClients: redisson-lock (RLock), redisson-fair-lock,
// redisson-fenced-lock and redisson-rwlock, one client object per simulated Redisson client.
//
// Each wraps one lock type (lock_types.h) — two for the read-write lock, chosen by the
// request's mode — and runs the shared flows (lock_flows.h) against endpoint 0. RedissonLock
// also offers RLock's query methods, which the workload does not need but tests and users of
// the library can call.
#ifndef LOCKSTEP_ALGORITHMS_REDISSON_REDISSON_LOCK_H_
#define LOCKSTEP_ALGORITHMS_REDISSON_REDISSON_LOCK_H_

#include <map>
#include <memory>
#include <string>
#include <utility>

#include "algorithms/algorithm.h"
#include "algorithms/redisson/lock_flows.h"
#include "algorithms/redisson/lock_types.h"
#include "sim/core/on_demand.h"

namespace lockstep::algorithms::redisson {

enum class LockKind : uint8_t { kPlain, kFair, kFenced, kReadWrite };

// Coverage (AlgorithmInfo): the scripts a lock of `kind` sends with these options, and the
// client-side states Redisson's clients report (with `redlock`, RedissonRedLock's too).
std::vector<const Script*> redisson_scripts(LockKind kind, const RedissonOptions& options);
std::vector<CoveragePoint> redisson_coverage_points(bool redlock);

class RedissonLock : public LockClient {
 public:
  RedissonLock(Runtime& rt, const RedissonOptions& options, LockKind kind);

  Task<LockOutcome> acquire(const Thread& thread, const LockRequest& request) override;
  Task<LockOutcome> release(const Thread& thread, const LockRequest& request) override;
  Task<LockOutcome> force_release(const Thread& thread, const LockRequest& request) override;

  // isLocked(): the lock key exists. Unknown/fail when the command got no answer.
  Task<Result<bool>> is_locked(std::string lock);
  // isHeldByCurrentThread(): the hash has this thread's field.
  Task<Result<bool>> is_held_by_thread(const Thread* thread, std::string lock);
  // getHoldCount(): the thread's reentrancy count (0 when not held).
  Task<Result<int64_t>> hold_count(const Thread* thread, std::string lock);

  ClientContext& context() { return ctx_; }
  // The lock type serving `mode` (for tests that drive single script runs). REQUIRES: exists.
  LockType& type(LockMode mode);

 private:
  // The type serving `mode`, or nullptr if this algorithm has no such mode.
  LockType* type_for(LockMode mode);
  // The call, through the lock object the request names (created on first use).
  LockCall to_call(const LockRequest& request);
  // acquire() in read mode: the flow, then the client-side read hold count.
  Task<LockOutcome> acquire_read(LockType& type, const Thread& thread,
                                 const LockRequest& request);

  LockKind kind_;
  ClientContext ctx_;
  // Read holds per (thread index, lock), counted client-side: the read unlock script answers 0
  // while *any* reader remains, so whether this thread's own count reached zero (the history's
  // `released`) comes from here. Allocated on first use, as the objects below: every client
  // has a RedissonLock, few take read locks or name their lock objects (B5: bytes per client).
  OnDemand<std::map<std::pair<uint32_t, std::string>, int64_t>> read_holds_;
  // The named lock objects of this client process (a map: calls keep pointers to them).
  OnDemand<std::map<std::string, LockObject>> objects_;
  std::unique_ptr<LockType> exclusive_;
  std::unique_ptr<LockType> read_;
  std::unique_ptr<LockType> write_;
};

// Registry entries.
AlgorithmInfo redisson_lock_algorithm();
AlgorithmInfo redisson_fair_lock_algorithm();
AlgorithmInfo redisson_fenced_lock_algorithm();
AlgorithmInfo redisson_rwlock_algorithm();

}  // namespace lockstep::algorithms::redisson

#endif  // LOCKSTEP_ALGORITHMS_REDISSON_REDISSON_LOCK_H_
