#include "algorithms/redisson/lock_flows.h"

#include <algorithm>
#include <memory>
#include <utility>

#include "algorithms/algorithm.h"
#include "sim/core/assert.h"

namespace lockstep::algorithms::redisson {
namespace {

// A TTL of 0 (the key expires within the millisecond) is waited as 1 ms: Redisson spins through
// it in real time, but on a network with zero latency simulated time would not move at all.
constexpr int64_t kMinLatchWaitMs = 1;

LockOutcome acquired_outcome(const AcquireReply& a) {
  LockOutcome out;
  out.acquired = true;
  out.token = a.token;
  return out;
}

LockOutcome error_outcome(Outcome outcome, const std::string& error) {
  LS_ASSERT(outcome != Outcome::kOk);
  return outcome == Outcome::kUnknown ? LockOutcome::unknown(error) : LockOutcome::fail(error);
}

// What the application sees when an interrupt or cancel ends a wait (no command in flight: the
// call certainly acquired nothing). `redis_exception`: the wait was commandExecutor.get(), which
// wraps the InterruptedException (lock()'s subscription).
LockOutcome interrupted_outcome(Interrupt by, bool redis_exception) {
  LS_ASSERT(by != Interrupt::kNone);
  if (by == Interrupt::kCancel) return LockOutcome::fail("java.util.concurrent.CancellationException");
  return LockOutcome::fail(redis_exception ? "RedisException: java.lang.InterruptedException"
                                           : "java.lang.InterruptedException");
}

// A grant that reached a caller who was interrupted or cancelled meanwhile is undone the way
// Redisson's unlockAsync does it, in the background: nobody's thread waits for it, and its
// commands belong to no operation of the history.
Task<void> unlock_late_grant(LockType& type, size_t endpoint, const Thread* thread, std::string lock,
                             int64_t lease_ms) {
  co_await type.unlock(endpoint, std::move(lock), thread, /*op=*/-1, lease_ms);
}

// tryAcquireAsync: one run of the acquire script; an acquisition without a lease starts the
// watchdog, and with sync_replicas an unconfirmed one is undone (handleNoSync) and fails.
Task<AcquireReply> try_acquire(LockType& type, size_t endpoint, const Thread* thread,
                               const LockCall& call, bool once) {
  ClientContext& ctx = type.ctx();
  // -1 is "no lease": the watchdog's. Any other value goes to the script as it is, as Redisson
  // passes it (RedLock's classic newLeaseTime can be 0 or -2: PEXPIRE then deletes the key).
  const bool watchdog = call.lease_ms == -1;
  const int64_t watchdog_ms = ctx.rt.options().lock_watchdog_timeout_ms;
  int64_t lease_ms = watchdog ? watchdog_ms : call.lease_ms;
  // The object's internalLockLeaseTime (docs/algorithms.md "Lock objects"): seed 001 sets it
  // from every attempt; later versions pass it as the watchdog path's lease.
  if (call.object != nullptr) {
    if (ctx.options.object_lease == ObjectLease::kEveryAttempt) {
      call.object->internal_lease_ms = lease_ms;
    } else if (watchdog) {
      lease_ms = call.object->internal_lease_ms;
    }
  }
  AcquireReply a =
      co_await type.try_acquire(endpoint, call.lock, thread, lease_ms, call.wait_ms, once, call.op);
  if (a.outcome == Outcome::kOk && a.acquired && !a.no_sync && !watchdog && call.object != nullptr &&
      ctx.options.object_lease != ObjectLease::kEveryAttempt) {
    call.object->internal_lease_ms = call.lease_ms;
  }
  if (a.outcome == Outcome::kOk && a.no_sync) {
    ctx.rt.cover(coverage::kNotSynced);
    co_await type.unlock(endpoint, call.lock, thread, call.op, call.object != nullptr ? call.object->internal_lease_ms : watchdog_ms);
    a.outcome = Outcome::kFail;
    a.acquired = false;
    a.error = std::string(kNoSyncError);
    co_return a;
  }
  // An interrupt or cancel that landed while the command was in flight: the caller already has
  // its exception, and the reply's callback decides what becomes of a grant.
  const Interrupt interrupted = ctx.rt.take_interrupt(*thread);
  if (interrupted != Interrupt::kNone) {
    ctx.rt.cover(coverage::kInterruptedInFlight);
    const bool undo = interrupted == Interrupt::kCancel ||
                      ctx.options.interrupted_grant == InterruptedGrant::kUnlocked;
    if (a.outcome == Outcome::kOk && a.acquired) {
      if (undo) {
        ctx.rt.spawn(unlock_late_grant(type, endpoint, thread, call.lock,
                                       call.object != nullptr ? call.object->internal_lease_ms : watchdog_ms));
      } else if (watchdog && ctx.options.interrupted_grant == InterruptedGrant::kRenews) {
        ctx.watchdog.schedule(endpoint, call.lock, *thread, &type);
      }
    }
    a.outcome = Outcome::kUnknown;
    a.acquired = false;
    a.interrupted = interrupted;
    a.error = interrupted == Interrupt::kCancel ? "java.util.concurrent.CancellationException"
                                                : "RedisException: java.lang.InterruptedException";
    co_return a;
  }
  if (a.outcome == Outcome::kOk && a.acquired && watchdog) {
    ctx.watchdog.schedule(endpoint, call.lock, *thread, &type);
  }
  co_return a;
}

}  // namespace

// Not a coroutine: it hands back the chosen flow's Task, so a waiting thread keeps no dispatcher
// frame (~600 bytes per waiting client in bench B5). Tasks are lazy and resume by symmetric
// transfer, so awaiting the flow directly runs exactly what awaiting a wrapper would.
Task<LockOutcome> acquire(LockType& type, size_t endpoint, const Thread* thread, LockCall call) {
  LS_ASSERT(thread != nullptr);
  if (call.wait_ms < 0) return lock(type, endpoint, thread, std::move(call));
  if (call.wait_ms == 0 && call.lease_ms == -1) {
    return try_lock_once(type, endpoint, thread, std::move(call));
  }
  return try_lock(type, endpoint, thread, std::move(call));
}

Task<LockOutcome> try_lock_once(LockType& type, size_t endpoint, const Thread* thread,
                                LockCall call) {
  LS_ASSERT(thread != nullptr);
  AcquireReply a = co_await try_acquire(type, endpoint, thread, call, /*once=*/true);
  if (a.outcome != Outcome::kOk) co_return error_outcome(a.outcome, a.error);
  if (a.acquired) co_return acquired_outcome(a);
  type.ctx().rt.cover(coverage::kBusyNoWait);
  co_return LockOutcome{};
}

Task<LockOutcome> try_lock(LockType& type, size_t endpoint, const Thread* thread, LockCall call) {
  LS_ASSERT(thread != nullptr);
  ClientContext& ctx = type.ctx();
  Runtime& rt = ctx.rt;
  int64_t time = call.wait_ms;
  int64_t current = rt.now_ms();
  AcquireReply a = co_await try_acquire(type, endpoint, thread, call, false);
  if (a.outcome != Outcome::kOk) co_return error_outcome(a.outcome, a.error);
  if (a.acquired) co_return acquired_outcome(a);
  rt.cover(coverage::kWaitForUnlock);
  time -= rt.now_ms() - current;
  if (time <= 0) {
    co_await type.acquire_failed(endpoint, call.lock, thread, call.wait_ms, call.op);
    co_return LockOutcome{};
  }
  current = rt.now_ms();
  // The subscription is released explicitly on every way out (not by a destructor: a crash
  // destroys this frame, and a dead client must not send anything).
  LockPubSub& pubsub = ctx.pubsub(endpoint);
  std::shared_ptr<LockEntry> entry = pubsub.acquire_entry(type.channel(call.lock, *thread));
  Interrupt interrupted = Interrupt::kNone;
  const bool subscribed = co_await rt.interruptible(*thread, pubsub.await_subscribed(entry, time), &interrupted);
  if (interrupted != Interrupt::kNone) {
    pubsub.release_entry(entry);
    co_return interrupted_outcome(interrupted, false);
  }
  time -= rt.now_ms() - current;
  bool gave_up = !subscribed || time <= 0;
  for (int64_t attempt = 0; !gave_up && attempt < kMaxLockAttempts; ++attempt) {
    int64_t current_time = rt.now_ms();
    a = co_await try_acquire(type, endpoint, thread, call, false);
    if (a.outcome != Outcome::kOk) {
      // 4.7.0: a timeout inside the loop leaves the fair queue instead of blocking it.
      if (a.outcome == Outcome::kUnknown && a.interrupted == Interrupt::kNone && type.queued() &&
          ctx.options.fair_acquire_failed_on_timeout) {
        co_await type.acquire_failed(endpoint, call.lock, thread, call.wait_ms, call.op);
      }
      pubsub.release_entry(entry);
      co_return error_outcome(a.outcome, a.error);
    }
    if (a.acquired) {
      pubsub.release_entry(entry);
      co_return acquired_outcome(a);
    }
    time -= rt.now_ms() - current_time;
    if (time <= 0) break;
    current_time = rt.now_ms();
    const int64_t wait_ms = a.ttl_ms >= 0 && a.ttl_ms < time ? a.ttl_ms : time;
    const bool woken = co_await rt.interruptible(
        *thread, entry->wait_latch(std::max<int64_t>(wait_ms, kMinLatchWaitMs)), &interrupted);
    if (interrupted != Interrupt::kNone) {
      pubsub.release_entry(entry);
      co_return interrupted_outcome(interrupted, false);
    }
    rt.cover(woken ? coverage::kWokenByMessage : coverage::kWokenByTtl);
    time -= rt.now_ms() - current_time;
    gave_up = time <= 0;
  }
  rt.cover(subscribed ? coverage::kWaitTimeRanOut : coverage::kSubscribeFailed);
  co_await type.acquire_failed(endpoint, call.lock, thread, call.wait_ms, call.op);
  pubsub.release_entry(entry);
  co_return LockOutcome{};
}

// lock()'s rare ways out, built outside its frame: a string temporary in a coroutine's
// full-expression becomes a frame slot that a waiting thread would carry.
LockOutcome subscribe_timeout(int64_t sub_timeout_ms) {
  LS_ASSERT(sub_timeout_ms >= 0);
  return LockOutcome::fail("RedisTimeoutException: Subscribe timeout: (" +
                           std::to_string(sub_timeout_ms) + "ms)");
}

LockOutcome gave_up() {
  return LockOutcome::fail("lock(): gave up after " + std::to_string(kMaxLockAttempts) +
                           " attempts");
}

// One await site for every attempt (the first, before the subscription, included), so the frame
// holds one reply slot instead of two: the order of commands is the same as the unrolled form.
Task<LockOutcome> lock(LockType& type, size_t endpoint, const Thread* thread, LockCall call) {
  LS_ASSERT(thread != nullptr);
  ClientContext& ctx = type.ctx();
  LockPubSub& pubsub = ctx.pubsub(endpoint);
  std::shared_ptr<LockEntry> entry;
  // Attempt 0 is the one before subscribing; then kMaxLockAttempts more, as before.
  for (int64_t attempt = 0; attempt <= kMaxLockAttempts; ++attempt) {
    AcquireReply a = co_await try_acquire(type, endpoint, thread, call, false);
    if (a.outcome != Outcome::kOk || a.acquired) {
      if (entry != nullptr) pubsub.release_entry(entry);
      co_return a.acquired ? acquired_outcome(a) : error_outcome(a.outcome, a.error);
    }
    if (entry == nullptr) {
      entry = pubsub.acquire_entry(type.channel(call.lock, *thread));
      // commandExecutor.get() / getInterrupted(): an interrupt ends lock() here either way.
      Interrupt interrupted = Interrupt::kNone;
      const bool subscribed = co_await ctx.rt.interruptible(
          *thread, pubsub.await_subscribed(entry, ctx.rt.options().subscription_timeout_ms), &interrupted);
      if (!subscribed) {
        pubsub.release_entry(entry);
        if (interrupted != Interrupt::kNone) co_return interrupted_outcome(interrupted, !call.interruptibly);
        ctx.rt.cover(coverage::kSubscribeFailed);
        co_return subscribe_timeout(ctx.rt.options().subscription_timeout_ms);
      }
      ctx.rt.cover(coverage::kWaitForUnlock);
      continue;
    }
    const int64_t latch_ms = a.ttl_ms >= 0 ? std::max<int64_t>(a.ttl_ms, kMinLatchWaitMs) : -1;
    // lockInterruptibly() throws; lock() catches the InterruptedException of a timed wait and
    // waits the ttl again (the interrupt is spent), and waits without a ttl uninterruptibly (the
    // interrupt stays pending for the next command).
    if (!call.interruptibly && latch_ms < 0) {
      co_await entry->wait_latch(latch_ms);
      ctx.rt.cover(coverage::kWokenByMessage);
      continue;
    }
    Interrupt interrupted = Interrupt::kNone;
    const bool woken = co_await ctx.rt.interruptible(*thread, entry->wait_latch(latch_ms), &interrupted);
    if (interrupted == Interrupt::kNone) {
      ctx.rt.cover(woken ? coverage::kWokenByMessage : coverage::kWokenByTtl);
      continue;
    }
    if (call.interruptibly) {
      pubsub.release_entry(entry);
      co_return interrupted_outcome(interrupted, false);
    }
    co_await entry->wait_latch(latch_ms);
  }
  LS_ASSERT(entry != nullptr);
  pubsub.release_entry(entry);
  co_return gave_up();
}

Task<LockOutcome> release(LockType& type, size_t endpoint, const Thread* thread, LockCall call) {
  LS_ASSERT(thread != nullptr);
  ClientContext& ctx = type.ctx();
  const int64_t watchdog_ms = ctx.rt.options().lock_watchdog_timeout_ms;
  UnlockReply u = co_await type.unlock(endpoint, call.lock, thread, call.op,
                                       call.object != nullptr ? call.object->internal_lease_ms : watchdog_ms);
  ctx.watchdog.cancel(endpoint, call.lock, thread);
  // cancelExpirationRenewal resets the object's lease: after every unlock up to 3.27.1, only
  // after a full release since (#5623).
  if (call.object != nullptr) {
    const bool reset = ctx.options.object_lease == ObjectLease::kResetOnUnlock ||
                       (ctx.options.object_lease == ObjectLease::kResetOnRelease && u.outcome == Outcome::kOk && u.result == 1);
    if (reset) call.object->internal_lease_ms = watchdog_ms;
  }
  if (u.outcome != Outcome::kOk) co_return error_outcome(u.outcome, u.error);
  if (u.no_sync) co_return LockOutcome::fail(std::string(kNoSyncError));
  if (u.result < 0) {
    ctx.rt.cover(coverage::kUnlockNotHeld);
    co_return LockOutcome::fail(illegal_monitor_state(ctx.rt.uuid(), thread->id));
  }
  ctx.rt.cover(u.result == 1 ? coverage::kReleased : coverage::kCountDecremented);
  LockOutcome out;
  out.released = u.result == 1;
  if (out.released) out.count = 0;
  co_return out;
}

Task<LockOutcome> force_release(LockType& type, size_t endpoint, LockCall call) {
  ClientContext& ctx = type.ctx();
  ctx.watchdog.cancel(endpoint, call.lock, nullptr);
  UnlockReply u = co_await type.force_unlock(endpoint, call.lock, call.op);
  if (u.outcome != Outcome::kOk) co_return error_outcome(u.outcome, u.error);
  LockOutcome out;
  out.released = u.result == 1;
  co_return out;
}

}  // namespace lockstep::algorithms::redisson
