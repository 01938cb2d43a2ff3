// ReadType and WriteType (lock_types.h): RedissonReadLock and RedissonWriteLock (seed 004).
#include <utility>

#include "algorithms/redisson/lock_types.h"
#include "algorithms/redisson/scripts.h"
#include "sim/core/assert.h"

namespace lockstep::algorithms::redisson {
namespace {

std::string rw_channel(const std::string& lock) { return prefix_name("redisson_rwlock", lock); }

// The key prefix the read scripts build timeout keys from: "{name}" (getKeyPrefix).
std::string key_prefix(const std::string& lock) {
  const std::string full = suffix_name(lock, "x");
  return full.substr(0, full.size() - 2);
}

}  // namespace

// --- ReadType ---------------------------------------------------------------------------------

std::string ReadType::channel(const std::string& lock, const Thread& thread) const {
  return rw_channel(lock);
}

std::string ReadType::timeout_prefix(const std::string& lock, const Thread& thread) const {
  return suffix_name(lock, lock_name(thread)) + ":rwlock_timeout";
}

Task<AcquireReply> ReadType::try_acquire(size_t endpoint, std::string lock, const Thread* thread,
                                         int64_t lease_ms, int64_t wait_ms, bool once,
                                         int64_t op) {
  LS_ASSERT(thread != nullptr);
  LS_ASSERT(lease_ms != -1);
  ScriptCall call;
  call.script = ctx_.options.read_lease_max ? &scripts::read_acquire()
                                            : &scripts::read_acquire_plain_pexpire();
  call.keys = {lock, timeout_prefix(lock, *thread)};
  call.args = {std::to_string(lease_ms), lock_name(*thread), lock_name(*thread) + ":write"};
  call.options.op = op;
  call.options.state_keys = {lock};
  bool no_sync = false;
  CallResult r = co_await ctx_.run_script(endpoint, std::move(call), true, &no_sync);
  co_return acquire_reply(r, no_sync);
}

Task<UnlockReply> ReadType::unlock(size_t endpoint, std::string lock, const Thread* thread,
                                   int64_t op, int64_t lease_ms) {
  LS_ASSERT(thread != nullptr);
  ScriptCall call;
  call.keys = {lock, rw_channel(lock), timeout_prefix(lock, *thread), key_prefix(lock)};
  call.options.op = op;
  call.options.state_keys = {lock};
  std::shared_ptr<std::string> latch;
  if (ctx_.options.unlock_latch) {
    call.script = &scripts::read_unlock_latch();
    call.args = {std::string(kUnlockMessage), lock_name(*thread), "publish",
                 std::to_string(ctx_.exec.latch_ttl_ms())};
    latch = add_latch(call, lock);
  } else {
    call.script = &scripts::read_unlock();
    call.args = {std::string(kUnlockMessage), lock_name(*thread)};
  }
  bool no_sync = false;
  CallResult r = co_await ctx_.run_script(endpoint, std::move(call), true, &no_sync);
  if (latch != nullptr && r.ok()) delete_latch(endpoint, latch);
  co_return unlock_reply(r, no_sync);
}

Task<UnlockReply> ReadType::force_unlock(size_t endpoint, std::string lock, int64_t op) {
  ScriptCall call;
  call.script = &scripts::read_force_unlock();
  call.keys = {lock, rw_channel(lock)};
  call.args = {std::string(kUnlockMessage)};
  call.options.op = op;
  call.options.state_keys = {lock};
  bool no_sync = false;
  CallResult r = co_await ctx_.run_script(endpoint, std::move(call), false, &no_sync);
  co_return unlock_reply(r, false);
}

Task<RenewReply> ReadType::renew(size_t endpoint, std::string lock, const Thread* first,
                                 std::vector<const Thread*> threads, int64_t lease_ms,
                                 int64_t op) {
  LS_ASSERT(first != nullptr);
  LS_ASSERT(!threads.empty());
  ScriptCall call;
  call.keys = {lock, key_prefix(lock)};
  call.args = {std::to_string(lease_ms)};
  if (ctx_.options.read_renew == ReadRenew::kOwnOnly) {
    call.script = &scripts::read_renew_own();
    for (const Thread* t : threads) call.args.push_back(lock_name(*t));
  } else {
    call.script = &scripts::read_renew();
    call.args.push_back(lock_name(*first));
  }
  call.options.op = op;
  call.options.state_keys = {lock};
  bool no_sync = false;
  CallResult r = co_await ctx_.run_script(endpoint, std::move(call), false, &no_sync);
  co_return renew_reply(r);
}

// --- WriteType --------------------------------------------------------------------------------

std::string WriteType::lock_name(const Thread& thread) const {
  return ctx_.rt.owner_name(thread) + ":write";
}

std::string WriteType::channel(const std::string& lock, const Thread& thread) const {
  return rw_channel(lock);
}

Task<AcquireReply> WriteType::try_acquire(size_t endpoint, std::string lock,
                                          const Thread* thread, int64_t lease_ms,
                                          int64_t wait_ms, bool once, int64_t op) {
  LS_ASSERT(thread != nullptr);
  LS_ASSERT(lease_ms != -1);
  ScriptCall call;
  call.script = &scripts::write_acquire();
  call.keys = {lock};
  call.args = {std::to_string(lease_ms), lock_name(*thread)};
  call.options.op = op;
  call.options.state_keys = {lock};
  bool no_sync = false;
  CallResult r = co_await ctx_.run_script(endpoint, std::move(call), true, &no_sync);
  co_return acquire_reply(r, no_sync);
}

Task<UnlockReply> WriteType::unlock(size_t endpoint, std::string lock, const Thread* thread,
                                    int64_t op, int64_t lease_ms) {
  LS_ASSERT(thread != nullptr);
  const std::string lease = std::to_string(lease_ms);
  ScriptCall call;
  call.keys = {lock, rw_channel(lock)};
  call.options.op = op;
  call.options.state_keys = {lock};
  std::shared_ptr<std::string> latch;
  if (ctx_.options.unlock_latch) {
    call.script = &scripts::write_unlock_latch();
    call.args = {std::string(kReadUnlockMessage), lease, lock_name(*thread), "publish",
                 std::to_string(ctx_.exec.latch_ttl_ms())};
    latch = add_latch(call, lock);
  } else {
    call.script = &scripts::write_unlock();
    call.args = {std::string(kReadUnlockMessage), lease, lock_name(*thread)};
  }
  bool no_sync = false;
  CallResult r = co_await ctx_.run_script(endpoint, std::move(call), true, &no_sync);
  if (latch != nullptr && r.ok()) delete_latch(endpoint, latch);
  co_return unlock_reply(r, no_sync);
}

Task<UnlockReply> WriteType::force_unlock(size_t endpoint, std::string lock, int64_t op) {
  ScriptCall call;
  call.script = &scripts::write_force_unlock();
  call.keys = {lock, rw_channel(lock)};
  call.args = {std::string(kReadUnlockMessage)};
  call.options.op = op;
  call.options.state_keys = {lock};
  bool no_sync = false;
  CallResult r = co_await ctx_.run_script(endpoint, std::move(call), false, &no_sync);
  co_return unlock_reply(r, false);
}

Task<RenewReply> WriteType::renew(size_t endpoint, std::string lock, const Thread* first,
                                  std::vector<const Thread*> threads, int64_t lease_ms,
                                  int64_t op) {
  LS_ASSERT(first != nullptr);
  LS_ASSERT(lease_ms >= 3);
  ScriptCall call;
  call.script = &scripts::rlock_renew();
  call.keys = {lock};
  call.args = {std::to_string(lease_ms), lock_name(*first)};
  call.options.op = op;
  call.options.state_keys = {lock};
  bool no_sync = false;
  CallResult r = co_await ctx_.run_script(endpoint, std::move(call), false, &no_sync);
  co_return renew_reply(r);
}

}  // namespace lockstep::algorithms::redisson
