#include "algorithms/redisson/redisson_lock.h"

#include <algorithm>
#include <utility>

#include "algorithms/algorithm.h"
#include "algorithms/redisson/scripts.h"
#include "sim/core/assert.h"

namespace lockstep::algorithms::redisson {

RedissonLock::RedissonLock(Runtime& rt, const RedissonOptions& options, LockKind kind)
    : kind_(kind), ctx_(rt, options) {
  switch (kind_) {
    case LockKind::kPlain:
      exclusive_ = std::make_unique<RLockType>(ctx_);
      break;
    case LockKind::kFair:
      exclusive_ = std::make_unique<FairType>(ctx_);
      break;
    case LockKind::kFenced:
      exclusive_ = std::make_unique<FencedType>(ctx_);
      break;
    case LockKind::kReadWrite:
      read_ = std::make_unique<ReadType>(ctx_);
      write_ = std::make_unique<WriteType>(ctx_);
      break;
  }
  LS_ASSERT(exclusive_ != nullptr || (read_ != nullptr && write_ != nullptr));
}

LockType* RedissonLock::type_for(LockMode mode) {
  switch (mode) {
    case LockMode::kExclusive:
      return exclusive_.get();
    case LockMode::kRead:
      return read_.get();
    case LockMode::kWrite:
      return write_.get();
  }
  return nullptr;
}

LockType& RedissonLock::type(LockMode mode) {
  LockType* t = type_for(mode);
  LS_ASSERT(t != nullptr);
  return *t;
}

LockCall RedissonLock::to_call(const LockRequest& request) {
  LockCall call;
  call.lock = std::string(request.lock);
  call.wait_ms = request.wait_ms;
  call.lease_ms = request.lease_ms;
  call.op = request.op;
  call.interruptibly = request.interruptibly;
  // Without a name, each call goes through a fresh object, as redissonClient.getLock(name).lock()
  // does (seed 001's MONITOR trace: tryLock(600000, ...) then an unlock re-arming 30000).
  if (request.object.empty()) return call;
  auto [it, fresh] = objects_.for_write().try_emplace(std::string(request.object));
  if (fresh) it->second.internal_lease_ms = ctx_.rt.options().lock_watchdog_timeout_ms;
  call.object = &it->second;
  return call;
}

namespace {

LockOutcome no_such_mode(LockMode mode) {
  return LockOutcome::fail("this lock has no " + std::string(history::to_string(mode)) +
                           " mode");
}

// An already-finished answer as a Task.
Task<LockOutcome> ready(LockOutcome out) { co_return out; }

}  // namespace

// Not a coroutine outside read mode: it hands back the flow's Task, so a waiting thread keeps no
// frame here (bench B5's memory per client). Tasks are lazy, so the flow still starts only when
// the caller awaits it, with the same arguments.
Task<LockOutcome> RedissonLock::acquire(const Thread& thread, const LockRequest& request) {
  LockType* type = type_for(request.mode);
  if (type == nullptr) return ready(no_such_mode(request.mode));
  if (request.mode == LockMode::kRead) return acquire_read(*type, thread, request);
  return redisson::acquire(*type, 0, &thread, to_call(request));
}

Task<LockOutcome> RedissonLock::acquire_read(LockType& type, const Thread& thread,
                                             const LockRequest& request) {
  LS_ASSERT(request.mode == LockMode::kRead);
  LockOutcome out = co_await redisson::acquire(type, 0, &thread, to_call(request));
  if (out.outcome == Outcome::kOk && out.acquired) {
    out.count = ++read_holds_.for_write()[{thread.index, std::string(request.lock)}];
  }
  co_return out;
}

Task<LockOutcome> RedissonLock::release(const Thread& thread, const LockRequest& request) {
  LockType* type = type_for(request.mode);
  if (type == nullptr) co_return no_such_mode(request.mode);
  LockOutcome out = co_await redisson::release(*type, 0, &thread, to_call(request));
  if (request.mode == LockMode::kRead) {
    // The thread gave up one read hold when it called unlock, whatever the answer (its hold in
    // the history ended then too): an unlock that failed or timed out must not leave a count
    // the next read acquisition would build on.
    auto& holds = read_holds_.for_write();
    auto it = holds.find({thread.index, std::string(request.lock)});
    const int64_t left = it == holds.end() ? 0 : std::max<int64_t>(0, it->second - 1);
    if (it != holds.end() && left == 0) holds.erase(it);
    if (left > 0) it->second = left;
    if (out.outcome == Outcome::kOk) {
      out.released = out.released || left == 0;
      out.count = left;
    }
  }
  co_return out;
}

Task<LockOutcome> RedissonLock::force_release(const Thread& thread, const LockRequest& request) {
  LockType* type = type_for(request.mode);
  if (type == nullptr) co_return no_such_mode(request.mode);
  co_return co_await redisson::force_release(*type, 0, to_call(request));
}

namespace {

Status no_answer(const CallResult& r) {
  if (!r.ok()) return Status::error(std::string(kTimeoutError));
  return Status::error("RedisException: " + r.reply.str);
}

}  // namespace

Task<Result<bool>> RedissonLock::is_locked(std::string lock) {
  std::vector<std::string> argv = {"EXISTS", lock};
  CallResult r = co_await ctx_.exec.command(0, std::move(argv), CallOptions{});
  if (!r.ok() || r.reply.type != Reply::Type::kInteger) co_return no_answer(r);
  co_return r.reply.integer == 1;
}

Task<Result<bool>> RedissonLock::is_held_by_thread(const Thread* thread, std::string lock) {
  LS_ASSERT(thread != nullptr && exclusive_ != nullptr);
  std::vector<std::string> argv = {"HEXISTS", lock, exclusive_->lock_name(*thread)};
  CallResult r = co_await ctx_.exec.command(0, std::move(argv), CallOptions{});
  if (!r.ok() || r.reply.type != Reply::Type::kInteger) co_return no_answer(r);
  co_return r.reply.integer == 1;
}

Task<Result<int64_t>> RedissonLock::hold_count(const Thread* thread, std::string lock) {
  LS_ASSERT(thread != nullptr && exclusive_ != nullptr);
  std::vector<std::string> argv = {"HGET", lock, exclusive_->lock_name(*thread)};
  CallResult r = co_await ctx_.exec.command(0, std::move(argv), CallOptions{});
  if (!r.ok() || r.reply.is_error()) co_return no_answer(r);
  if (r.reply.type == Reply::Type::kNil) co_return int64_t{0};
  co_return static_cast<int64_t>(std::stoll(r.reply.str));
}

// --- registry entries ---------------------------------------------------------------------------

namespace {

nlohmann::json defaults_object(const std::vector<std::string>& names) {
  nlohmann::json out = nlohmann::json::object();
  for (const nlohmann::json& d : describe(names)) {
    nlohmann::json item = {{"classic", d["classic"]}, {"current", d["current"]}, {"doc", d["doc"]}};
    if (d.contains("values")) item["values"] = d["values"];
    out[d["name"].get<std::string>()] = std::move(item);
  }
  return out;
}

}  // namespace

std::vector<const Script*> redisson_scripts(LockKind kind, const RedissonOptions& o) {
  namespace s = scripts;
  const bool latch = o.unlock_latch;
  const Script* rlock_unlock = latch ? &s::rlock_unlock_latch()
                               : o.unlock_script == UnlockScript::kExistsCheck ? &s::rlock_unlock()
                                                                               : &s::rlock_unlock_owner_check();
  const Script* rlock_acquire = o.merged_acquire ? &s::rlock_acquire_merged() : &s::rlock_acquire();
  switch (kind) {
    case LockKind::kPlain:
      return {rlock_acquire, rlock_unlock, &s::rlock_renew(), &s::rlock_force_unlock()};
    case LockKind::kFenced:
      return {&s::fenced_acquire(), rlock_unlock, &s::rlock_renew(), &s::rlock_force_unlock()};
    case LockKind::kFair: {
      const bool current = o.fair_script == FairScript::kCurrent;
      return {current ? &s::fair_acquire_current() : &s::fair_acquire(),
              current ? &s::fair_try_acquire_current() : &s::fair_try_acquire(),
              latch ? &s::fair_unlock_latch() : &s::fair_unlock(),
              &s::rlock_renew(),
              &s::fair_acquire_failed(),
              &s::fair_force_unlock()};
    }
    case LockKind::kReadWrite:
      return {o.read_lease_max ? &s::read_acquire() : &s::read_acquire_plain_pexpire(),
              latch ? &s::read_unlock_latch() : &s::read_unlock(),
              o.read_renew == ReadRenew::kOwnOnly ? &s::read_renew_own() : &s::read_renew(),
              &s::read_force_unlock(),
              &s::write_acquire(),
              latch ? &s::write_unlock_latch() : &s::write_unlock(),
              &s::rlock_renew(),
              &s::write_force_unlock()};
  }
  return {};
}

std::vector<CoveragePoint> redisson_coverage_points(bool redlock) {
  namespace c = coverage;
  if (redlock) {
    return c::declare({c::kQuorumReached, c::kQuorumShort, c::kSubLockUnknown, c::kRedlockWaitRanOut,
                       c::kBusyNoWait, c::kWaitForUnlock, c::kWokenByMessage, c::kWokenByTtl,
                       c::kWaitTimeRanOut, c::kSubscribeFailed, c::kRenewed, c::kRenewalLost,
                       c::kRenewalError, c::kReleased, c::kCountDecremented, c::kUnlockNotHeld});
  }
  return c::declare({c::kBusyNoWait, c::kWaitForUnlock, c::kWokenByMessage, c::kWokenByTtl,
                     c::kWaitTimeRanOut, c::kSubscribeFailed, c::kNotSynced, c::kInterruptedInFlight,
                     c::kRenewed, c::kRenewalLost, c::kRenewalError, c::kReleased,
                     c::kCountDecremented, c::kUnlockNotHeld});
}

namespace {

AlgorithmInfo make_info(std::string name, std::string lock_kind, std::string description,
                        std::vector<std::string> option_names, LockKind kind) {
  AlgorithmInfo info;
  info.name = std::move(name);
  info.lock_kind = std::move(lock_kind);
  info.description = std::move(description);
  info.fair = kind == LockKind::kFair;
  info.modes = kind == LockKind::kReadWrite;
  info.lock_objects = true;  // internalLockLeaseTime (LockObject)
  info.interrupts = true;    // lock_flows.h, "Interrupts"
  info.option_defaults = defaults_object(option_names);
  info.validate = [option_names](const nlohmann::json& options, const std::string& path) {
    Result<RedissonOptions> r = parse_options(options, path, option_names);
    return r.ok() ? Status::ok_status() : r.status();
  };
  info.scripts = [option_names, kind](const nlohmann::json& options) {
    return redisson_scripts(kind, client_options(options, option_names));
  };
  info.coverage_points = redisson_coverage_points(/*redlock=*/false);
  if (kind == LockKind::kFair) {
    // The checker classifies reorderings and evictions by threadWaitTime, which the profile
    // decides (classic 5 s, current 5 min): the history says which.
    info.history_header = [option_names](const nlohmann::json& options) {
      return nlohmann::json{{"thread_wait_ms", client_options(options, option_names).fair_thread_wait_ms}};
    };
  }
  info.make = [option_names, kind](Runtime& rt,
                                   const nlohmann::json& options) -> std::unique_ptr<LockClient> {
    return std::make_unique<RedissonLock>(rt, client_options(options, option_names), kind);
  };
  return info;
}

}  // namespace

AlgorithmInfo redisson_lock_algorithm() {
  return make_info("redisson-lock", "reentrant",
                   "Redisson RLock (seeds 001, 003): reentrant hash lock, watchdog renewal, "
                   "pub/sub wake-ups",
                   common_option_names(), LockKind::kPlain);
}

AlgorithmInfo redisson_fair_lock_algorithm() {
  return make_info("redisson-fair-lock", "reentrant",
                   "Redisson fair lock (seed 002): FIFO queue list + timeout zset, per-waiter "
                   "wake-ups, stale-waiter eviction",
                   fair_option_names(), LockKind::kFair);
}

AlgorithmInfo redisson_fenced_lock_algorithm() {
  return make_info("redisson-fenced-lock", "reentrant",
                   "Redisson RFencedLock: RLock whose every acquisition returns a fencing token "
                   "(INCR); resources may reject stale tokens",
                   common_option_names(), LockKind::kFenced);
}

AlgorithmInfo redisson_rwlock_algorithm() {
  return make_info("redisson-rwlock", "rwlock",
                   "Redisson read-write lock (seed 004): mode field, per-hold timeout keys, "
                   "read-lock watchdog, write unlock wakes all",
                   rwlock_option_names(), LockKind::kReadWrite);
}

}  // namespace lockstep::algorithms::redisson
