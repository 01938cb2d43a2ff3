// The Redisson lock types (see lock_type.h): which scripts each runs with which keys and
// arguments, following Redisson's classes.
//
//   RLockType   RedissonLock (seed 001; seed 003's unlock; the 3.24 latch; the merged acquire)
//   FencedType  RedissonFencedLock: RLock whose acquire also returns a token (INCR per grant)
//   FairType    RedissonFairLock (seed 002): queue list + timeout zset, per-waiter channels
//   ReadType    RedissonReadLock (seed 004): mode field, per-hold rwlock_timeout keys
//   WriteType   RedissonWriteLock (seed 004): lock name "<uuid>:<tid>:write"
//
// Unlock scripts get internalLockLeaseTime = lockWatchdogTimeout: the lock object is assumed
// fresh per call (`redisson.getLock(name)` per use), which is what seed 001's MONITOR trace
// shows ("30000" passed to the unlock of a lock taken with a 600000 lease).
#ifndef LOCKSTEP_ALGORITHMS_REDISSON_LOCK_TYPES_H_
#define LOCKSTEP_ALGORITHMS_REDISSON_LOCK_TYPES_H_

#include <string>
#include <vector>

#include "algorithms/redisson/lock_type.h"

namespace lockstep::algorithms::redisson {

class RLockType : public LockType {
 public:
  explicit RLockType(ClientContext& ctx) : LockType(ctx) {}
  Task<AcquireReply> try_acquire(size_t endpoint, std::string lock, const Thread* thread,
                                 int64_t lease_ms, int64_t wait_ms, bool once,
                                 int64_t op) override;
  Task<UnlockReply> unlock(size_t endpoint, std::string lock, const Thread* thread,
                           int64_t op, int64_t lease_ms) override;
  Task<UnlockReply> force_unlock(size_t endpoint, std::string lock, int64_t op) override;
  Task<RenewReply> renew(size_t endpoint, std::string lock, const Thread* first,
                         std::vector<const Thread*> threads, int64_t lease_ms,
                         int64_t op) override;
  LockMode renew_mode() const override { return LockMode::kExclusive; }

 private:
  ScriptCall acquire_call(const std::string& lock, const Thread* thread, int64_t lease_ms,
                          int64_t op) const;
};

class FencedType : public RLockType {
 public:
  explicit FencedType(ClientContext& ctx) : RLockType(ctx) {}
  Task<AcquireReply> try_acquire(size_t endpoint, std::string lock, const Thread* thread,
                                 int64_t lease_ms, int64_t wait_ms, bool once,
                                 int64_t op) override;
};

class FairType : public RLockType {
 public:
  explicit FairType(ClientContext& ctx) : RLockType(ctx) {}
  // The waiter's own channel: redisson_lock__channel:{name}:<uuid>:<tid>.
  std::string channel(const std::string& lock, const Thread& thread) const override;
  Task<AcquireReply> try_acquire(size_t endpoint, std::string lock, const Thread* thread,
                                 int64_t lease_ms, int64_t wait_ms, bool once,
                                 int64_t op) override;
  Task<UnlockReply> unlock(size_t endpoint, std::string lock, const Thread* thread,
                           int64_t op, int64_t lease_ms) override;
  Task<UnlockReply> force_unlock(size_t endpoint, std::string lock, int64_t op) override;
  Task<void> acquire_failed(size_t endpoint, std::string lock, const Thread* thread,
                            int64_t wait_ms, int64_t op) override;
  bool queued() const override { return true; }

  static std::string queue_name(const std::string& lock);
  static std::string timeout_name(const std::string& lock);

 private:
  // The wait charged per waiter: threadWaitTime, or (current) a positive tryLock wait.
  int64_t charged_wait_ms(int64_t wait_ms) const;
  std::vector<std::string> state_keys(const std::string& lock) const;
};

class ReadType : public LockType {
 public:
  explicit ReadType(ClientContext& ctx) : LockType(ctx) {}
  std::string channel(const std::string& lock, const Thread& thread) const override;
  Task<AcquireReply> try_acquire(size_t endpoint, std::string lock, const Thread* thread,
                                 int64_t lease_ms, int64_t wait_ms, bool once,
                                 int64_t op) override;
  Task<UnlockReply> unlock(size_t endpoint, std::string lock, const Thread* thread,
                           int64_t op, int64_t lease_ms) override;
  Task<UnlockReply> force_unlock(size_t endpoint, std::string lock, int64_t op) override;
  Task<RenewReply> renew(size_t endpoint, std::string lock, const Thread* first,
                         std::vector<const Thread*> threads, int64_t lease_ms,
                         int64_t op) override;
  LockMode renew_mode() const override { return LockMode::kRead; }

  // {name}:<uuid>:<tid>:rwlock_timeout (getReadWriteTimeoutNamePrefix).
  std::string timeout_prefix(const std::string& lock, const Thread& thread) const;
};

class WriteType : public LockType {
 public:
  explicit WriteType(ClientContext& ctx) : LockType(ctx) {}
  std::string lock_name(const Thread& thread) const override;
  std::string channel(const std::string& lock, const Thread& thread) const override;
  Task<AcquireReply> try_acquire(size_t endpoint, std::string lock, const Thread* thread,
                                 int64_t lease_ms, int64_t wait_ms, bool once,
                                 int64_t op) override;
  Task<UnlockReply> unlock(size_t endpoint, std::string lock, const Thread* thread,
                           int64_t op, int64_t lease_ms) override;
  Task<UnlockReply> force_unlock(size_t endpoint, std::string lock, int64_t op) override;
  Task<RenewReply> renew(size_t endpoint, std::string lock, const Thread* first,
                         std::vector<const Thread*> threads, int64_t lease_ms,
                         int64_t op) override;
  LockMode renew_mode() const override { return LockMode::kWrite; }
};

}  // namespace lockstep::algorithms::redisson

#endif  // LOCKSTEP_ALGORITHMS_REDISSON_LOCK_TYPES_H_
