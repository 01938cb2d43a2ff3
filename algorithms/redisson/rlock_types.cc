// RLockType and FencedType (lock_types.h).
#include <utility>

#include "algorithms/redisson/lock_types.h"
#include "algorithms/redisson/scripts.h"
#include "sim/core/assert.h"

namespace lockstep::algorithms::redisson {

Task<AcquireReply> RLockType::try_acquire(size_t endpoint, std::string lock,
                                          const Thread* thread, int64_t lease_ms,
                                          int64_t wait_ms, bool once, int64_t op) {
  LS_ASSERT(thread != nullptr);
  LS_ASSERT(lease_ms != -1);
  bool no_sync = false;
  // The call is built outside the frame: a waiter's frame is small (issue 14, B5).
  co_return acquire_reply(
      co_await ctx_.run_script(endpoint, acquire_call(lock, thread, lease_ms, op), true, &no_sync),
      no_sync);
}

// GCC 12 miscompiles braced lists inside co_await expressions: arguments are built here.
ScriptCall RLockType::acquire_call(const std::string& lock, const Thread* thread,
                                   int64_t lease_ms, int64_t op) const {
  ScriptCall call;
  call.script = ctx_.options.merged_acquire ? &scripts::rlock_acquire_merged()
                                            : &scripts::rlock_acquire();
  call.keys = {lock};
  call.args = {std::to_string(lease_ms), lock_name(*thread)};
  call.options.op = op;
  if (ctx_.options.record_states) call.options.state_keys = {lock};
  return call;
}

Task<UnlockReply> RLockType::unlock(size_t endpoint, std::string lock, const Thread* thread,
                                    int64_t op, int64_t lease_ms) {
  LS_ASSERT(thread != nullptr);
  const std::string lease = std::to_string(lease_ms);
  ScriptCall call;
  call.keys = {lock, prefix_name("redisson_lock__channel", lock)};
  call.options.op = op;
  if (ctx_.options.record_states) call.options.state_keys = {lock};
  std::shared_ptr<std::string> latch;
  if (ctx_.options.unlock_latch) {
    call.script = &scripts::rlock_unlock_latch();
    call.args = {std::string(kUnlockMessage), lease, lock_name(*thread), "publish",
                 std::to_string(ctx_.exec.latch_ttl_ms())};
    latch = add_latch(call, lock);
  } else {
    call.script = ctx_.options.unlock_script == UnlockScript::kExistsCheck
                      ? &scripts::rlock_unlock()
                      : &scripts::rlock_unlock_owner_check();
    call.args = {std::string(kUnlockMessage), lease, lock_name(*thread)};
  }
  bool no_sync = false;
  CallResult r = co_await ctx_.run_script(endpoint, std::move(call), true, &no_sync);
  if (latch != nullptr && r.ok()) delete_latch(endpoint, latch);
  co_return unlock_reply(r, no_sync);
}

Task<UnlockReply> RLockType::force_unlock(size_t endpoint, std::string lock, int64_t op) {
  ScriptCall call;
  call.script = &scripts::rlock_force_unlock();
  call.keys = {lock, prefix_name("redisson_lock__channel", lock)};
  call.args = {std::string(kUnlockMessage)};
  call.options.op = op;
  if (ctx_.options.record_states) call.options.state_keys = {lock};
  bool no_sync = false;
  CallResult r = co_await ctx_.run_script(endpoint, std::move(call), false, &no_sync);
  co_return unlock_reply(r, false);
}

Task<RenewReply> RLockType::renew(size_t endpoint, std::string lock, const Thread* first,
                                  std::vector<const Thread*> threads, int64_t lease_ms,
                                  int64_t op) {
  LS_ASSERT(first != nullptr);
  LS_ASSERT(lease_ms >= 3);
  ScriptCall call;
  call.script = &scripts::rlock_renew();
  call.keys = {lock};
  call.args = {std::to_string(lease_ms), lock_name(*first)};
  call.options.op = op;
  if (ctx_.options.record_states) call.options.state_keys = {lock};
  bool no_sync = false;
  CallResult r = co_await ctx_.run_script(endpoint, std::move(call), false, &no_sync);
  co_return renew_reply(r);
}

Task<AcquireReply> FencedType::try_acquire(size_t endpoint, std::string lock,
                                           const Thread* thread, int64_t lease_ms,
                                           int64_t wait_ms, bool once, int64_t op) {
  LS_ASSERT(thread != nullptr);
  LS_ASSERT(lease_ms != -1);
  ScriptCall call;
  call.script = &scripts::fenced_acquire();
  call.keys = {lock, prefix_name("redisson_lock_token", lock)};
  call.args = {std::to_string(lease_ms), lock_name(*thread)};
  call.options.op = op;
  if (ctx_.options.record_states) call.options.state_keys = {lock};
  bool no_sync = false;
  CallResult r = co_await ctx_.run_script(endpoint, std::move(call), true, &no_sync);
  AcquireReply a;
  a.no_sync = no_sync;
  const Reply& reply = r.reply;
  if (r.ok() && reply.type == Reply::Type::kArray && reply.elements.size() == 2 &&
      reply.elements[0].type == Reply::Type::kInteger &&
      reply.elements[1].type == Reply::Type::kInteger) {
    a.acquired = reply.elements[0].integer == -1;
    if (a.acquired) {
      a.token = reply.elements[1].integer;
    } else {
      a.ttl_ms = reply.elements[0].integer;
    }
    co_return a;
  }
  a = acquire_reply(r, no_sync);
  if (a.outcome == Outcome::kOk) {
    a.outcome = Outcome::kFail;
    a.acquired = false;
    a.error = "unexpected reply to the fenced acquire script: " + redis::describe(reply);
  }
  co_return a;
}

}  // namespace lockstep::algorithms::redisson
