// FairType (lock_types.h): RedissonFairLock.
#include <utility>

#include "algorithms/redisson/lock_types.h"
#include "algorithms/redisson/scripts.h"
#include "sim/core/assert.h"

namespace lockstep::algorithms::redisson {

std::string FairType::queue_name(const std::string& lock) {
  return prefix_name("redisson_lock_queue", lock);
}

std::string FairType::timeout_name(const std::string& lock) {
  return prefix_name("redisson_lock_timeout", lock);
}

std::string FairType::channel(const std::string& lock, const Thread& thread) const {
  return prefix_name("redisson_lock__channel", lock) + ":" + lock_name(thread);
}

int64_t FairType::charged_wait_ms(int64_t wait_ms) const {
  LS_ASSERT(ctx_.options.fair_thread_wait_ms >= 0);
  if (ctx_.options.fair_script == FairScript::kCurrent && wait_ms > 0) return wait_ms;
  return ctx_.options.fair_thread_wait_ms;
}

std::vector<std::string> FairType::state_keys(const std::string& lock) const {
  return {lock, queue_name(lock), timeout_name(lock)};
}

Task<AcquireReply> FairType::try_acquire(size_t endpoint, std::string lock, const Thread* thread,
                                         int64_t lease_ms, int64_t wait_ms, bool once,
                                         int64_t op) {
  LS_ASSERT(thread != nullptr);
  LS_ASSERT(lease_ms != -1);
  const bool current = ctx_.options.fair_script == FairScript::kCurrent;
  // The client's clock: deadlines in the timeout zset are client times (skew matters).
  const int64_t now_ms = ctx_.rt.now_ms();
  const int64_t wait = charged_wait_ms(wait_ms);
  ScriptCall call;
  call.keys = {lock, queue_name(lock), timeout_name(lock)};
  call.options.op = op;
  call.options.state_keys = state_keys(lock);
  std::vector<std::string> args = {std::to_string(lease_ms), lock_name(*thread)};
  if (once) {
    call.script = current ? &scripts::fair_try_acquire_current() : &scripts::fair_try_acquire();
    args.push_back(std::to_string(now_ms));
    if (current) args.push_back(std::to_string(wait));
  } else if (current) {
    call.script = &scripts::fair_acquire_current();
    args.push_back(std::to_string(wait));
    args.push_back(std::to_string(now_ms));
  } else {
    // Seed 002: ARGV[3] = currentTime + threadWaitTime, ARGV[4] = currentTime.
    call.script = &scripts::fair_acquire();
    args.push_back(std::to_string(now_ms + wait));
    args.push_back(std::to_string(now_ms));
  }
  call.args = std::move(args);
  bool no_sync = false;
  CallResult r = co_await ctx_.run_script(endpoint, std::move(call), true, &no_sync);
  AcquireReply a = acquire_reply(r, no_sync);
  // EVAL_NULL_BOOLEAN: nil is true, anything else (1) is false; there is no ttl to wait.
  if (once && a.outcome == Outcome::kOk && !a.acquired) a.ttl_ms = -1;
  co_return a;
}

Task<UnlockReply> FairType::unlock(size_t endpoint, std::string lock, const Thread* thread,
                                   int64_t op, int64_t lease_ms) {
  LS_ASSERT(thread != nullptr);
  const std::string lease = std::to_string(lease_ms);
  const std::string now = std::to_string(ctx_.rt.now_ms());
  ScriptCall call;
  call.keys = {lock, queue_name(lock), timeout_name(lock),
               prefix_name("redisson_lock__channel", lock)};
  call.options.op = op;
  call.options.state_keys = state_keys(lock);
  std::shared_ptr<std::string> latch;
  if (ctx_.options.unlock_latch) {
    call.script = &scripts::fair_unlock_latch();
    call.args = {std::string(kUnlockMessage), lease, lock_name(*thread), now, "publish",
                 std::to_string(ctx_.exec.latch_ttl_ms())};
    latch = add_latch(call, lock);
  } else {
    call.script = &scripts::fair_unlock();
    call.args = {std::string(kUnlockMessage), lease, lock_name(*thread), now};
  }
  bool no_sync = false;
  CallResult r = co_await ctx_.run_script(endpoint, std::move(call), true, &no_sync);
  if (latch != nullptr && r.ok()) delete_latch(endpoint, latch);
  co_return unlock_reply(r, no_sync);
}

Task<UnlockReply> FairType::force_unlock(size_t endpoint, std::string lock, int64_t op) {
  ScriptCall call;
  call.script = &scripts::fair_force_unlock();
  call.keys = {lock, queue_name(lock), timeout_name(lock),
               prefix_name("redisson_lock__channel", lock)};
  call.args = {std::string(kUnlockMessage), std::to_string(ctx_.rt.now_ms())};
  call.options.op = op;
  call.options.state_keys = state_keys(lock);
  bool no_sync = false;
  CallResult r = co_await ctx_.run_script(endpoint, std::move(call), false, &no_sync);
  co_return unlock_reply(r, false);
}

Task<void> FairType::acquire_failed(size_t endpoint, std::string lock, const Thread* thread,
                                    int64_t wait_ms, int64_t op) {
  LS_ASSERT(thread != nullptr);
  ScriptCall call;
  call.script = &scripts::fair_acquire_failed();
  call.keys = {queue_name(lock), timeout_name(lock)};
  call.args = {lock_name(*thread), std::to_string(charged_wait_ms(wait_ms))};
  call.options.op = op;
  call.options.state_keys = state_keys(lock);
  bool no_sync = false;
  // tryLock waits for it (get(acquireFailedAsync(threadId))) before returning false; its
  // outcome does not change the answer.
  co_await ctx_.run_script(endpoint, std::move(call), false, &no_sync);
}

}  // namespace lockstep::algorithms::redisson
