// redisson-redlock: RedissonRedLock (seed 001) over N independent masters — one RLock per
// endpoint, all with the same name, each running RLock's own flows (pub/sub waits, watchdog).
//
// tryLock(waitTime, leaseTime), as the seed's source reads:
//   newLeaseTime = waitTime*2 when a lease is given (classic; current: waitTime*2 only if
//   waitTime > 0, else the lease); per-lock wait = max(remain/N, 1); failedLocksLimit = N -
//   (N/2+1). The locks are tried in order, each with tryLock(min(lockWaitTime, remainTime),
//   newLeaseTime) — or tryLock() when neither a wait nor a lease is given. A timeout on one
//   lock unlocks that lock and counts as a failure. After a failure: if the failures still fit
//   (N - acquired == failedLocksLimit) the loop ends with success; if the limit is exhausted the
//   acquired locks are unlocked and, with a wait budget, everything starts over from the first
//   lock (without one, false). The wait budget is charged after every lock; running out
//   unlocks and returns false. Finally, with a lease, every acquired lock gets PEXPIRE lease.
//   There is no validity check: the time the acquisition took is never subtracted from the
//   lease — that is how Redisson does it.
// lock(lease) loops tryLock(waitTime, lease) with waitTime = N*1500 without a lease, else
//   2000 for leases up to 2 s, a random value in [lease/2, lease] up to N*1500, and in
//   [N*1500, lease] beyond (lockInterruptibly).
// unlock() unlocks every lock in parallel and ignores their failures (RedissonRedLock.unlock).
// forceUnlock() force-unlocks every lock in parallel.
//
// Cleanup unlocks inside an acquisition are not attributed to its history operation (op -1),
// so that a checker reading an operation's execs sees only its grants.
#ifndef LOCKSTEP_ALGORITHMS_REDISSON_REDLOCK_H_
#define LOCKSTEP_ALGORITHMS_REDISSON_REDLOCK_H_

#include <memory>
#include <vector>

#include "algorithms/algorithm.h"
#include "algorithms/redisson/lock_flows.h"
#include "algorithms/redisson/lock_types.h"

namespace lockstep::algorithms::redisson {

class RedissonRedLock : public LockClient {
 public:
  // Bounds lock()'s retries and tryLock's restarts.
  static constexpr int64_t kMaxRounds = 1'000'000;

  RedissonRedLock(Runtime& rt, const RedissonOptions& options);

  Task<LockOutcome> acquire(const Thread& thread, const LockRequest& request) override;
  Task<LockOutcome> release(const Thread& thread, const LockRequest& request) override;
  Task<LockOutcome> force_release(const Thread& thread, const LockRequest& request) override;

  // RedissonMultiLock.tryLock(waitTime, leaseTime) (-1 = none for either).
  Task<LockOutcome> try_lock(const Thread* thread, std::string lock, int64_t wait_ms,
                             int64_t lease_ms, int64_t op);
  // lockInterruptibly(leaseTime).
  Task<LockOutcome> lock(const Thread* thread, std::string lock, int64_t lease_ms, int64_t op);

  int failed_locks_limit() const;
  int64_t lock_wait_ms(int64_t remain_ms) const;

 private:
  // Unlocks the given endpoints' locks in parallel, ignoring failures (unlockInner).
  Task<void> unlock_inner(const Thread* thread, std::string lock, std::vector<size_t> endpoints);
  Task<void> expire_all(std::string lock, std::vector<size_t> endpoints, int64_t lease_ms,
                        int64_t op);

  ClientContext ctx_;
  RLockType type_;
  const size_t n_;
};

AlgorithmInfo redisson_redlock_algorithm();

}  // namespace lockstep::algorithms::redisson

#endif  // LOCKSTEP_ALGORITHMS_REDISSON_REDLOCK_H_
