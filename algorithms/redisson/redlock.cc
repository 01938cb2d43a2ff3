#include "algorithms/redisson/redlock.h"

#include <algorithm>
#include <utility>

#include "algorithms/algorithm.h"
#include "algorithms/redisson/join.h"
#include "algorithms/redisson/redisson_lock.h"
#include "sim/core/assert.h"

namespace lockstep::algorithms::redisson {

RedissonRedLock::RedissonRedLock(Runtime& rt, const RedissonOptions& options)
    : ctx_(rt, options), type_(ctx_), n_(rt.endpoints()) {
  LS_ASSERT(n_ >= 1);
  LS_ASSERT(failed_locks_limit() >= 0);
}

int RedissonRedLock::failed_locks_limit() const {
  const int n = static_cast<int>(n_);
  return n - (n / 2 + 1);
}

int64_t RedissonRedLock::lock_wait_ms(int64_t remain_ms) const {
  // calcLockWaitTime: Math.max(remainTime / locks.size(), 1) (Java's division truncates).
  return std::max(remain_ms / static_cast<int64_t>(n_), ctx_.options.redlock_min_lock_wait_ms);
}

Task<LockOutcome> RedissonRedLock::acquire(const Thread& thread, const LockRequest& request) {
  if (request.mode != LockMode::kExclusive) co_return LockOutcome::fail("RedLock has no read/write modes");
  std::string lock(request.lock);
  if (request.wait_ms < 0) co_return co_await this->lock(&thread, lock, request.lease_ms, request.op);
  // tryLock() is tryLock(-1, -1); tryLock(wait, lease) passes them on.
  const int64_t wait_ms = request.wait_ms == 0 && request.lease_ms == -1 ? -1 : request.wait_ms;
  co_return co_await try_lock(&thread, lock, wait_ms, request.lease_ms, request.op);
}

Task<LockOutcome> RedissonRedLock::try_lock(const Thread* thread, std::string lock,
                                            int64_t wait_ms, int64_t lease_ms, int64_t op) {
  LS_ASSERT(thread != nullptr);
  Runtime& rt = ctx_.rt;
  int64_t new_lease_ms = -1;
  if (ctx_.options.redlock_lease == RedlockLease::kWaitTimesTwo) {
    if (lease_ms != -1) new_lease_ms = wait_ms * 2;
  } else if (lease_ms > 0) {
    new_lease_ms = wait_ms > 0 ? wait_ms * 2 : lease_ms;
  }
  int64_t time = rt.now_ms();
  int64_t remain_ms = wait_ms != -1 ? wait_ms : -1;
  const int64_t lock_wait = lock_wait_ms(remain_ms);
  int limit = failed_locks_limit();
  std::vector<size_t> acquired;
  size_t i = 0;
  for (int64_t round = 0; i < n_; ++round) {
    if (round >= kMaxRounds) {
      co_await unlock_inner(thread, lock, acquired);
      co_return LockOutcome::fail("RedLock tryLock: gave up after " + std::to_string(kMaxRounds) + " rounds");
    }
    LockCall call;
    call.lock = lock;
    call.op = op;
    LockOutcome o;
    if (wait_ms == -1 && lease_ms == -1) {
      call.wait_ms = 0;
      o = co_await try_lock_once(type_, i, thread, std::move(call));
    } else {
      call.wait_ms = std::min(lock_wait, remain_ms);
      call.lease_ms = new_lease_ms;
      o = co_await redisson::try_lock(type_, i, thread, std::move(call));
    }
    bool got = o.outcome == Outcome::kOk && o.acquired;
    if (o.outcome == Outcome::kUnknown) {
      rt.cover(coverage::kSubLockUnknown);
      // RedisResponseTimeoutException: it may have been acquired; unlock it to be sure.
      std::vector<size_t> just_this = {i};  // (no braced lists inside co_await: GCC 12)
      co_await unlock_inner(thread, lock, std::move(just_this));
      got = false;
    }
    bool restart = false;
    if (got) {
      acquired.push_back(i);
    } else {
      if (static_cast<int>(n_ - acquired.size()) == failed_locks_limit()) break;
      if (limit == 0) {
        rt.cover(coverage::kQuorumShort);
        co_await unlock_inner(thread, lock, acquired);
        if (wait_ms == -1 && lease_ms == -1) co_return LockOutcome{};
        limit = failed_locks_limit();
        acquired.clear();
        restart = true;
      } else {
        --limit;
      }
    }
    if (remain_ms != -1) {
      remain_ms -= rt.now_ms() - time;
      time = rt.now_ms();
      if (remain_ms <= 0) {
        rt.cover(coverage::kRedlockWaitRanOut);
        co_await unlock_inner(thread, lock, acquired);
        co_return LockOutcome{};
      }
    }
    i = restart ? 0 : i + 1;
  }
  rt.cover(coverage::kQuorumReached);
  if (lease_ms != -1) co_await expire_all(lock, acquired, lease_ms, op);
  LockOutcome out;
  out.acquired = true;
  co_return out;
}

Task<LockOutcome> RedissonRedLock::lock(const Thread* thread, std::string lock, int64_t lease_ms,
                                        int64_t op) {
  const int64_t base_wait_ms = static_cast<int64_t>(n_) * 1500;
  int64_t wait_ms = base_wait_ms;
  if (lease_ms != -1) {
    wait_ms = lease_ms;
    if (wait_ms <= 2000) {
      wait_ms = 2000;
    } else if (wait_ms <= base_wait_ms) {
      wait_ms = ctx_.rt.rng().between(wait_ms / 2, wait_ms);
    } else {
      wait_ms = ctx_.rt.rng().between(base_wait_ms, wait_ms);
    }
  }
  for (int64_t round = 0; round < kMaxRounds; ++round) {
    LockOutcome o = co_await try_lock(thread, lock, wait_ms, lease_ms, op);
    if (o.outcome != Outcome::kOk || o.acquired) co_return o;
  }
  co_return LockOutcome::fail("RedLock lock(): gave up after " + std::to_string(kMaxRounds) + " rounds");
}

Task<void> RedissonRedLock::unlock_inner(const Thread* thread, std::string lock,
                                         std::vector<size_t> endpoints) {
  std::vector<Task<LockOutcome>> tasks;
  for (size_t e : endpoints) {
    LockCall call;
    call.lock = lock;
    call.op = -1;  // cleanup: not part of the acquisition's grants
    tasks.push_back(redisson::release(type_, e, thread, std::move(call)));
  }
  co_await join_all(ctx_.rt, std::move(tasks));
}

Task<void> RedissonRedLock::expire_all(std::string lock, std::vector<size_t> endpoints,
                                       int64_t lease_ms, int64_t op) {
  std::vector<Task<CallResult>> tasks;
  for (size_t e : endpoints) {
    std::vector<std::string> argv = {"PEXPIRE", lock, std::to_string(lease_ms)};
    CallOptions opts;
    opts.op = op;
    tasks.push_back(ctx_.exec.command(e, std::move(argv), opts));
  }
  co_await join_all(ctx_.rt, std::move(tasks));
}

Task<LockOutcome> RedissonRedLock::release(const Thread& thread, const LockRequest& request) {
  std::vector<Task<LockOutcome>> tasks;
  for (size_t e = 0; e < n_; ++e) {
    LockCall call;
    call.lock = std::string(request.lock);
    call.op = request.op;
    tasks.push_back(redisson::release(type_, e, &thread, std::move(call)));
  }
  co_await join_all(ctx_.rt, std::move(tasks));
  // RedissonRedLock.unlock() swallows every sub-lock's failure: the caller always sees success.
  LockOutcome out;
  out.released = true;
  out.count = 0;
  co_return out;
}

Task<LockOutcome> RedissonRedLock::force_release(const Thread& thread, const LockRequest& request) {
  std::vector<Task<LockOutcome>> tasks;
  for (size_t e = 0; e < n_; ++e) {
    LockCall call;
    call.lock = std::string(request.lock);
    call.op = request.op;
    tasks.push_back(redisson::force_release(type_, e, std::move(call)));
  }
  std::vector<LockOutcome> results = co_await join_all(ctx_.rt, std::move(tasks));
  LockOutcome out;
  for (const LockOutcome& r : results) out.released |= r.outcome == Outcome::kOk && r.released;
  co_return out;
}

AlgorithmInfo redisson_redlock_algorithm() {
  AlgorithmInfo info;
  info.name = "redisson-redlock";
  info.lock_kind = "redlock";
  info.description =
      "RedissonRedLock (seed 001): RLock on N independent masters tried in order, quorum "
      "N/2+1, no validity check";
  info.multi_master = true;
  const std::vector<std::string> names = redlock_option_names();
  for (const nlohmann::json& d : describe(names)) {
    nlohmann::json item = {{"classic", d["classic"]}, {"current", d["current"]}, {"doc", d["doc"]}};
    if (d.contains("values")) item["values"] = d["values"];
    info.option_defaults[d["name"].get<std::string>()] = std::move(item);
  }
  info.validate = [names](const nlohmann::json& options, const std::string& path) {
    Result<RedissonOptions> r = parse_options(options, path, names);
    return r.ok() ? Status::ok_status() : r.status();
  };
  info.scripts = [names](const nlohmann::json& options) {
    return redisson_scripts(LockKind::kPlain, client_options(options, names));
  };
  info.coverage_points = redisson_coverage_points(/*redlock=*/true);
  info.make = [names](Runtime& rt, const nlohmann::json& options) -> std::unique_ptr<LockClient> {
    return std::make_unique<RedissonRedLock>(rt, client_options(options, names));
  };
  return info;
}

}  // namespace lockstep::algorithms::redisson
