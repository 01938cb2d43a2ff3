// LockType: what distinguishes Redisson's lock classes — RedissonLock, RedissonFencedLock,
// RedissonFairLock, RedissonReadLock, RedissonWriteLock — from one another: their Lua scripts,
// their lock names, the channel a waiter listens on. The flows that call them (tryLock's wait
// loop, lock(), unlock(), the watchdog) are shared and live in lock_flows.h, as in Redisson where
// the subclasses override tryLockInnerAsync / unlockInnerAsync / renewExpirationAsync and
// friends.
//
// ClientContext is one Redisson client instance's shared machinery: its options, its command
// executor, its watchdog map and its pub/sub entries per endpoint.
#ifndef LOCKSTEP_ALGORITHMS_REDISSON_LOCK_TYPE_H_
#define LOCKSTEP_ALGORITHMS_REDISSON_LOCK_TYPE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "algorithms/algorithm.h"
#include "algorithms/redisson/executor.h"
#include "algorithms/redisson/lock_pubsub.h"
#include "algorithms/redisson/redisson_options.h"
#include "algorithms/redisson/watchdog.h"

namespace lockstep::algorithms::redisson {

// Redisson's naming (RedissonObject.prefixName / suffixName).
std::string prefix_name(std::string_view prefix, std::string_view name);
std::string suffix_name(std::string_view name, std::string_view suffix);

// The message texts the client reports.
inline constexpr std::string_view kTimeoutError = "RedisTimeoutException: command timed out";
inline constexpr std::string_view kNoSyncError =
    "NoSyncedSlavesException: None of slaves were synced";
std::string illegal_monitor_state(std::string_view uuid, int64_t thread_id);

// What one acquire script run returned.
// The 8-byte fields first: a waiting thread's lock() frame keeps one (56 bytes, not 64).
struct AcquireReply {
  int64_t ttl_ms = -1;              // not acquired: the wait hint (may be negative)
  int64_t token = history::kAbsent;  // fenced lock
  std::string error;
  Outcome outcome = Outcome::kOk;  // kUnknown: no reply in time; kFail: an error reply
  bool acquired = false;
  bool no_sync = false;             // sync_replicas: no replica acknowledged (check enabled)
  // The caller was interrupted or cancelled while the command was in flight (outcome kUnknown:
  // it got an exception and cannot know whether the script ran).
  Interrupt interrupted = Interrupt::kNone;
};

// What one unlock (or forceUnlock) script run returned.
struct UnlockReply {
  Outcome outcome = Outcome::kOk;
  int64_t result = -1;  // -1 nil, 0 still held, 1 released
  bool no_sync = false;
  std::string error;
};

class ClientContext {
 public:
  ClientContext(Runtime& rt, const RedissonOptions& options);

  Runtime& rt;
  const RedissonOptions options;
  Executor exec;
  Watchdog watchdog;

  // REQUIRES: endpoint < rt.endpoints().
  LockPubSub& pubsub(size_t endpoint);

  // Runs a script through the executor and, for lock/unlock scripts with sync_replicas, the
  // WAIT after it. *no_sync is set when the check fails (no replica acknowledged).
  Task<CallResult> run_script(size_t endpoint, ScriptCall call, bool synced, bool* no_sync);

 private:
  Task<CallResult> synced_eval(size_t endpoint, ScriptCall call, bool* no_sync);

  std::vector<std::unique_ptr<LockPubSub>> pubsub_;
};

class LockType : public Renewer {
 public:
  explicit LockType(ClientContext& ctx) : ctx_(ctx) {}

  // Redisson's getLockName(threadId): "<uuid>:<threadId>" (the write lock appends ":write").
  virtual std::string lock_name(const Thread& thread) const;
  // The channel a waiting thread subscribes to.
  virtual std::string channel(const std::string& lock, const Thread& thread) const;
  // tryLockInnerAsync. `once`: tryLock() without waiting (EVAL_NULL_BOOLEAN); `wait_ms` is the
  // caller's wait budget (the current fair lock queues with it).
  virtual Task<AcquireReply> try_acquire(size_t endpoint, std::string lock, const Thread* thread,
                                         int64_t lease_ms, int64_t wait_ms, bool once,
                                         int64_t op) = 0;
  // unlockInnerAsync; `lease_ms` is the object's internalLockLeaseTime, which a partial unlock
  // re-arms the key with (the read lock's script does not use it).
  virtual Task<UnlockReply> unlock(size_t endpoint, std::string lock, const Thread* thread,
                                   int64_t op, int64_t lease_ms) = 0;
  virtual Task<UnlockReply> force_unlock(size_t endpoint, std::string lock, int64_t op) = 0;
  // acquireFailedAsync: only the fair lock has work to do (leave the queue).
  virtual Task<void> acquire_failed(size_t endpoint, std::string lock, const Thread* thread,
                                    int64_t wait_ms, int64_t op);
  // Whether acquireFailed matters for this type (fair lock).
  virtual bool queued() const { return false; }

  ClientContext& ctx() { return ctx_; }

 protected:
  // Turns an acquire script's reply into an AcquireReply: nil = acquired, an integer = ttl.
  static AcquireReply acquire_reply(const CallResult& r, bool no_sync);
  static UnlockReply unlock_reply(const CallResult& r, bool no_sync);
  // The 3.24+ latch: appends the latch key to KEYS for a request id drawn now (per call) or
  // per attempt, as latch_request_id says. Returns where the last attempt's key is kept.
  std::shared_ptr<std::string> add_latch(ScriptCall& call, const std::string& lock);
  // Fire-and-forget DEL of the latch key (Redisson deletes it after the unlock's reply).
  void delete_latch(size_t endpoint, std::shared_ptr<std::string> latch_key);
  // Renewal reply: 1 = renewed.
  static RenewReply renew_reply(const CallResult& r);

  ClientContext& ctx_;
};

}  // namespace lockstep::algorithms::redisson

#endif  // LOCKSTEP_ALGORITHMS_REDISSON_LOCK_TYPE_H_
