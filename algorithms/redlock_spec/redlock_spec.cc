#include "algorithms/redlock_spec/redlock_spec.h"

#include <algorithm>
#include <map>
#include <utility>

#include "algorithms/algorithm.h"
#include "algorithms/redisson/join.h"
#include "sim/core/assert.h"

namespace lockstep::algorithms {
namespace lua {
extern const std::string_view redlock_release;
extern const std::string_view redlock_extend;
}  // namespace lua

namespace redlock_spec {
namespace {

using redisson::join_all;

const Script& release_script() {
  static const Script s = make_script("redlock_release", lua::redlock_release);
  return s;
}
const Script& extend_script() {
  static const Script s = make_script("redlock_extend", lua::redlock_extend);
  return s;
}

// Bounds one call's attempts and one hold's extensions.
constexpr int64_t kMaxAttempts = 10'000'000;

class RedlockSpec : public LockClient {
 public:
  RedlockSpec(Runtime& rt, const SpecOptions& o) : rt_(rt), o_(o), n_(rt.endpoints()) {
    LS_ASSERT(n_ >= 1);
    LS_ASSERT(o_.node_timeout_ms >= 1);
  }

  Task<LockOutcome> acquire(const Thread& thread, const LockRequest& req) override;
  Task<LockOutcome> release(const Thread& thread, const LockRequest& req) override;
  Task<LockOutcome> force_release(const Thread& thread, const LockRequest& req) override;

 private:
  struct Hold {
    std::string value;
    int64_t ttl_ms = 0;
    TaskId extender;
  };
  using Key = std::pair<uint32_t, std::string>;

  size_t quorum() const { return n_ / 2 + 1; }
  std::string random_value();
  // SET NX PX on every master in turn; returns how many said OK.
  Task<size_t> set_all(std::string lock, std::string value, int64_t ttl_ms, int64_t op);
  // Runs `script` on every master in parallel; returns how many replied 1.
  Task<size_t> script_all(const Script* script, std::string lock, std::vector<std::string> args,
                          int64_t op);
  Task<void> extend_loop(const Thread* thread, std::string lock, std::string value,
                         int64_t ttl_ms);

  Runtime& rt_;
  const SpecOptions o_;
  const size_t n_;
  std::map<Key, Hold> holds_;
};

std::string RedlockSpec::random_value() {
  // 22 characters from [A-Za-z0-9], like the reference clients' random values.
  static const char kChars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  std::string v;
  for (int i = 0; i < 22; ++i) v += kChars[rt_.rng().below(62)];
  return v;
}

Task<size_t> RedlockSpec::set_all(std::string lock, std::string value, int64_t ttl_ms,
                                  int64_t op) {
  size_t ok = 0;
  CallOptions opts;
  opts.op = op;
  opts.timeout_ms = o_.node_timeout_ms;
  opts.retry_attempts = 0;
  for (size_t e = 0; e < n_; ++e) {
    std::vector<std::string> argv = {"SET", lock, value, "NX", "PX", std::to_string(ttl_ms)};
    CallResult r = co_await rt_.conn(e).call(std::move(argv), opts);
    ok += r.ok() && r.reply.type == Reply::Type::kStatus;
  }
  co_return ok;
}

Task<size_t> RedlockSpec::script_all(const Script* script, std::string lock,
                                     std::vector<std::string> args, int64_t op) {
  std::vector<Task<CallResult>> calls;
  CallOptions opts;
  opts.op = op;
  opts.timeout_ms = o_.node_timeout_ms;
  opts.retry_attempts = 0;
  for (size_t e = 0; e < n_; ++e) {
    std::vector<std::string> keys = {lock};
    calls.push_back(rt_.conn(e).evalsha(*script, std::move(keys), args, opts));
  }
  std::vector<CallResult> results = co_await join_all(rt_, std::move(calls));
  size_t ok = 0;
  for (const CallResult& r : results) {
    ok += r.ok() && r.reply.type == Reply::Type::kInteger && r.reply.integer == 1;
  }
  co_return ok;
}

Task<LockOutcome> RedlockSpec::acquire(const Thread& thread, const LockRequest& req) {
  if (req.mode != LockMode::kExclusive) co_return LockOutcome::fail("redlock-spec has no read/write modes");
  const std::string lock(req.lock);
  const bool extend = req.lease_ms < 0 && o_.extend;
  const int64_t ttl_ms = req.lease_ms < 0 ? rt_.options().lock_watchdog_timeout_ms : req.lease_ms;
  const int64_t call_start_ms = rt_.now_ms();
  for (int64_t attempt = 0; attempt < kMaxAttempts; ++attempt) {
    const std::string value = random_value();
    const int64_t start_ms = rt_.now_ms();
    const size_t granted = co_await set_all(lock, value, ttl_ms, req.op);
    const int64_t validity = validity_ms(o_, ttl_ms, rt_.now_ms() - start_ms);
    rt_.cover(granted < quorum() ? coverage::kQuorumShort
              : validity > 0       ? coverage::kQuorumReached
                                   : coverage::kValidityNotPositive);
    if (granted >= quorum() && validity > 0) {
      Hold& h = holds_[Key{thread.index, lock}];
      rt_.cancel(h.extender);  // an extender of an earlier, lost hold
      h.value = value;
      h.ttl_ms = ttl_ms;
      h.extender = extend ? rt_.spawn(extend_loop(&thread, lock, value, ttl_ms)) : TaskId{};
      LockOutcome out;
      out.acquired = true;
      out.validity_ms = validity;
      co_return out;
    }
    // Failed: unlock every instance, even those that did not answer.
    std::vector<std::string> args = {value};
    co_await script_all(&release_script(), lock, std::move(args), -1);
    const int64_t remaining_ms = req.wait_ms < 0 ? INT64_MAX : req.wait_ms - (rt_.now_ms() - call_start_ms);
    if (remaining_ms <= 0) {
      rt_.cover(req.wait_ms == 0 ? coverage::kBusyNoWait : coverage::kWaitTimeRanOut);
      co_return LockOutcome{};
    }
    rt_.cover(coverage::kRetrySleep);
    const int64_t delay_ms = rt_.rng().between(std::max<int64_t>(0, o_.retry_delay_ms - o_.retry_jitter_ms),
                                               o_.retry_delay_ms + o_.retry_jitter_ms);
    // At least 1 ms: with a zero-latency network a zero pause would retry at the same instant.
    co_await rt_.sleep_ms(std::max<int64_t>(1, std::min(delay_ms, remaining_ms)));
  }
  co_return LockOutcome::fail("redlock-spec: gave up after " + std::to_string(kMaxAttempts) + " attempts");
}

Task<LockOutcome> RedlockSpec::release(const Thread& thread, const LockRequest& req) {
  auto it = holds_.find(Key{thread.index, std::string(req.lock)});
  if (it == holds_.end()) co_return LockOutcome::fail("lock not held by this thread");
  const std::string value = std::move(it->second.value);
  rt_.cancel(it->second.extender);
  holds_.erase(it);
  std::vector<std::string> args = {value};
  const size_t released = co_await script_all(&release_script(), std::string(req.lock),
                                              std::move(args), req.op);
  LockOutcome out;
  out.released = released >= quorum();
  rt_.cover(out.released ? coverage::kReleased : coverage::kUnlockNotHeld);
  if (out.released) out.count = 0;
  co_return out;
}

Task<LockOutcome> RedlockSpec::force_release(const Thread& thread, const LockRequest& req) {
  std::vector<Task<CallResult>> calls;
  CallOptions opts;
  opts.op = req.op;
  opts.timeout_ms = o_.node_timeout_ms;
  opts.retry_attempts = 0;
  for (size_t e = 0; e < n_; ++e) {
    std::vector<std::string> argv = {"DEL", std::string(req.lock)};
    calls.push_back(rt_.conn(e).call(std::move(argv), opts));
  }
  std::vector<CallResult> results = co_await join_all(rt_, std::move(calls));
  LockOutcome out;
  for (const CallResult& r : results) out.released |= r.ok() && r.reply.integer > 0;
  co_return out;
}

Task<void> RedlockSpec::extend_loop(const Thread* thread, std::string lock, std::string value,
                                    int64_t ttl_ms) {
  const int64_t period_ms = std::max<int64_t>(1, ttl_ms / 3);
  for (int64_t round = 0; round < kMaxAttempts; ++round) {
    co_await rt_.sleep_ms(period_ms);
    OpRecord rec;
    rec.thread = thread;
    rec.lock = lock;
    rec.op = history::OpKind::kRenew;
    rec.lease_ms = ttl_ms;
    const int64_t op = rt_.begin_op(rec);
    const int64_t start_ms = rt_.now_ms();
    std::vector<std::string> args = {value, std::to_string(ttl_ms)};
    const size_t extended = co_await script_all(&extend_script(), lock, std::move(args), op);
    const bool ok = extended >= quorum() && validity_ms(o_, ttl_ms, rt_.now_ms() - start_ms) > 0;
    OpResult res;
    res.renewed = ok ? 1 : 0;
    rt_.end_op(op, res);
    rt_.cover(ok ? coverage::kRenewed : coverage::kRenewalLost);
    if (!ok) {
      // The spec: an extension counts only on a majority within the validity. The client now
      // knows it may have lost the lock.
      rt_.hold_lost(*thread, lock);
      co_return;
    }
  }
}

}  // namespace

// `elapsed_ms` is measured on the client's local clock, as the spec's clients read the wall
// clock: a clock stepped back during the acquisition makes it negative and the validity longer
// than the TTL — the fault's real effect, which the quorum property then reports (a window that
// outlasted the keys). It is a fault to survive, not a programming error.
int64_t validity_ms(const SpecOptions& o, int64_t ttl_ms, int64_t elapsed_ms) {
  LS_ASSERT(ttl_ms >= 0);
  const int64_t drift_ms = ttl_ms * o.drift_factor_ppm / 1'000'000 + o.drift_constant_ms;
  return ttl_ms - elapsed_ms - drift_ms;
}

AlgorithmInfo redlock_spec_algorithm() {
  AlgorithmInfo info;
  info.name = "redlock-spec";
  info.lock_kind = "simple";
  info.description =
      "RedLock as the Redis documentation specifies it: SET NX PX on N masters, quorum, "
      "validity = TTL - elapsed - drift, release everywhere, random retry delay";
  info.multi_master = true;
  const SpecOptions d;
  info.option_defaults = {
      {"node_timeout_ms", {{"default", d.node_timeout_ms}, {"doc", "per-master reply timeout (no retry)"}}},
      {"retry_delay_ms", {{"default", d.retry_delay_ms}, {"doc", "mean pause before a retry"}}},
      {"retry_jitter_ms", {{"default", d.retry_jitter_ms}, {"doc", "the pause is uniform in delay +- jitter"}}},
      {"drift_factor_ppm", {{"default", d.drift_factor_ppm}, {"doc", "clock drift factor (10000 = 0.01)"}}},
      {"drift_constant_ms", {{"default", d.drift_constant_ms}, {"doc", "added to the drift (the spec's 2 ms)"}}},
      {"extend", {{"default", d.extend}, {"doc", "without a lease, extend every ttl/3 on a quorum"}}}};
  info.scripts = [](const nlohmann::json&) {
    return std::vector<const Script*>{&release_script(), &extend_script()};
  };
  info.coverage_points = coverage::declare(
      {coverage::kQuorumReached, coverage::kQuorumShort, coverage::kValidityNotPositive,
       coverage::kBusyNoWait, coverage::kRetrySleep, coverage::kWaitTimeRanOut, coverage::kRenewed,
       coverage::kRenewalLost, coverage::kReleased, coverage::kUnlockNotHeld});
  info.validate = [](const nlohmann::json& options, const std::string& path) -> Status {
    Status s = check_known_fields(options, path,
                                  {"node_timeout_ms", "retry_delay_ms", "retry_jitter_ms",
                                   "drift_factor_ppm", "drift_constant_ms", "extend"});
    if (s.ok()) s = check_int_field(options, path, "node_timeout_ms", 1, 600'000);
    if (s.ok()) s = check_int_field(options, path, "retry_delay_ms", 0, 600'000);
    if (s.ok()) s = check_int_field(options, path, "retry_jitter_ms", 0, 600'000);
    if (s.ok()) s = check_int_field(options, path, "drift_factor_ppm", 0, 1'000'000);
    if (s.ok()) s = check_int_field(options, path, "drift_constant_ms", 0, 600'000);
    if (s.ok()) s = check_bool_field(options, path, "extend");
    return s;
  };
  info.make = [](Runtime& rt, const nlohmann::json& options) -> std::unique_ptr<LockClient> {
    SpecOptions o;
    o.node_timeout_ms = options.value("node_timeout_ms", o.node_timeout_ms);
    o.retry_delay_ms = options.value("retry_delay_ms", o.retry_delay_ms);
    o.retry_jitter_ms = options.value("retry_jitter_ms", o.retry_jitter_ms);
    o.drift_factor_ppm = options.value("drift_factor_ppm", o.drift_factor_ppm);
    o.drift_constant_ms = options.value("drift_constant_ms", o.drift_constant_ms);
    o.extend = options.value("extend", o.extend);
    return std::make_unique<RedlockSpec>(rt, o);
  };
  return info;
}

}  // namespace redlock_spec
}  // namespace lockstep::algorithms
