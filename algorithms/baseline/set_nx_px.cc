#include "algorithms/baseline/set_nx_px.h"

#include <algorithm>
#include <map>
#include <string>
#include <utility>

#include "algorithms/algorithm.h"
#include "sim/core/assert.h"

namespace lockstep::algorithms {
namespace lua {
extern const std::string_view set_nx_px_unlock;
extern const std::string_view set_nx_px_renew;
}  // namespace lua

namespace baseline {
namespace {

const Script& unlock_script() {
  static const Script s = make_script("set_nx_px_unlock", lua::set_nx_px_unlock);
  return s;
}
const Script& renew_script() {
  static const Script s = make_script("set_nx_px_renew", lua::set_nx_px_renew);
  return s;
}

// Bounds the retries of one waiting call (a lock() that never gets the lock still ends).
constexpr int kMaxAttempts = 10'000'000;

class SetNxPx : public LockClient {
 public:
  SetNxPx(Runtime& rt, int64_t retry_delay_ms) : rt_(rt), retry_delay_ms_(retry_delay_ms) {
    LS_ASSERT(retry_delay_ms_ >= 1);
  }
  ~SetNxPx() override {
    for (auto& [key, hold] : holds_) rt_.cancel(hold.renewal);
  }

  Task<LockOutcome> acquire(const Thread& thread, const LockRequest& req) override;
  Task<LockOutcome> release(const Thread& thread, const LockRequest& req) override;
  Task<LockOutcome> force_release(const Thread& thread, const LockRequest& req) override;

 private:
  struct Hold {
    std::string token;
    TaskId renewal;
  };
  using Key = std::pair<uint32_t, std::string>;  // (thread index, lock)

  enum : int { kAcquired = 1, kTaken = 0, kTimedOut = -1, kError = -2 };
  // One SET NX PX; returns kAcquired, kTaken, kTimedOut or kError (with *error set).
  Task<int> try_set(std::string_view lock, const std::string& token, int64_t lease_ms,
                    int64_t op, std::string* error);
  LockOutcome on_acquired(const Thread& thread, std::string_view lock, const std::string& token,
                          bool renew, int64_t lease_ms);
  Task<void> renew_loop(const Thread* thread, std::string lock, std::string token,
                        int64_t lease_ms);
  int64_t retry_delay() {
    return rt_.rng().between(std::max<int64_t>(1, retry_delay_ms_ / 2), retry_delay_ms_);
  }

  Runtime& rt_;
  const int64_t retry_delay_ms_;
  uint64_t next_token_ = 0;
  std::map<Key, Hold> holds_;
};

Task<int> SetNxPx::try_set(std::string_view lock, const std::string& token, int64_t lease_ms,
                           int64_t op, std::string* error) {
  // GCC 12 miscompiles braced lists inside co_await expressions: build arguments first.
  std::vector<std::string> argv = {"SET", std::string(lock), token, "NX", "PX",
                                   std::to_string(lease_ms)};
  CallOptions call;
  call.op = op;
  CallResult r = co_await rt_.conn().call(std::move(argv), std::move(call));
  if (!r.ok()) co_return kTimedOut;
  if (r.reply.is_error()) {
    *error = r.reply.str;
    co_return kError;
  }
  co_return r.reply.type == Reply::Type::kStatus ? kAcquired : kTaken;
}

Task<LockOutcome> SetNxPx::acquire(const Thread& thread, const LockRequest& req) {
  if (req.mode != LockMode::kExclusive) co_return LockOutcome::fail("set-nx-px has no read/write modes");
  const bool renew = req.lease_ms < 0;
  const int64_t lease_ms = renew ? rt_.options().lock_watchdog_timeout_ms : req.lease_ms;
  const std::string token = rt_.owner_name(thread) + ":" + std::to_string(++next_token_);
  const int64_t start_ms = rt_.now_ms();
  std::string error;
  for (int attempt = 0; attempt < kMaxAttempts; ++attempt) {
    // The attempt's arguments and reply live in try_set's frame only while it is in flight.
    const int result = co_await try_set(req.lock, token, lease_ms, req.op, &error);
    if (result == kTimedOut) co_return LockOutcome::unknown("command timed out");
    if (result == kError) co_return LockOutcome::fail(error);
    if (result == kAcquired) co_return on_acquired(thread, req.lock, token, renew, lease_ms);
    const int64_t remaining_ms =
        req.wait_ms < 0 ? INT64_MAX : req.wait_ms - (rt_.now_ms() - start_ms);
    if (remaining_ms <= 0) {
      rt_.cover(req.wait_ms == 0 ? coverage::kBusyNoWait : coverage::kWaitTimeRanOut);
      co_return LockOutcome{};  // acquired = false
    }
    rt_.cover(coverage::kRetrySleep);
    co_await rt_.sleep_ms(std::min(retry_delay(), remaining_ms));
  }
  co_return LockOutcome::fail("set-nx-px: gave up after " + std::to_string(kMaxAttempts) + " attempts");
}

LockOutcome SetNxPx::on_acquired(const Thread& thread, std::string_view lock,
                                 const std::string& token, bool renew, int64_t lease_ms) {
  Hold& hold = holds_[Key{thread.index, std::string(lock)}];
  rt_.cancel(hold.renewal);  // a renewal of an earlier, lost hold
  hold.token = token;
  hold.renewal = renew ? rt_.spawn(renew_loop(&thread, std::string(lock), token, lease_ms)) : TaskId{};
  LockOutcome out;
  out.acquired = true;
  out.count = 1;
  return out;
}

Task<LockOutcome> SetNxPx::release(const Thread& thread, const LockRequest& req) {
  auto it = holds_.find(Key{thread.index, std::string(req.lock)});
  if (it == holds_.end()) co_return LockOutcome::fail("lock not held by this thread");
  const std::string token = std::move(it->second.token);
  rt_.cancel(it->second.renewal);
  holds_.erase(it);
  CallOptions call;
  call.op = req.op;
  std::vector<std::string> keys = {std::string(req.lock)};
  std::vector<std::string> args = {token};
  CallResult r = co_await rt_.conn().eval(unlock_script(), std::move(keys), std::move(args), call);
  if (!r.ok()) co_return LockOutcome::unknown("command timed out");
  if (r.reply.is_error()) co_return LockOutcome::fail(r.reply.str);
  if (r.reply.type == Reply::Type::kInteger && r.reply.integer == 1) {
    rt_.cover(coverage::kReleased);
    LockOutcome out;
    out.released = true;
    out.count = 0;
    co_return out;
  }
  rt_.cover(coverage::kUnlockNotHeld);
  co_return LockOutcome::fail("lock was no longer held by this thread (expired or taken)");
}

Task<LockOutcome> SetNxPx::force_release(const Thread& thread, const LockRequest& req) {
  CallOptions call;
  call.op = req.op;
  std::vector<std::string> argv = {"DEL", std::string(req.lock)};
  CallResult r = co_await rt_.conn().call(std::move(argv), call);
  if (!r.ok()) co_return LockOutcome::unknown("command timed out");
  if (r.reply.is_error()) co_return LockOutcome::fail(r.reply.str);
  LockOutcome out;
  out.released = r.reply.type == Reply::Type::kInteger && r.reply.integer > 0;
  co_return out;
}

Task<void> SetNxPx::renew_loop(const Thread* thread, std::string lock, std::string token,
                               int64_t lease_ms) {
  const int64_t period_ms = std::max<int64_t>(1, lease_ms / 3);
  for (int round = 0; round < kMaxAttempts; ++round) {
    co_await rt_.sleep_ms(period_ms);
    OpRecord rec;
    rec.thread = thread;
    rec.lock = lock;
    rec.op = history::OpKind::kRenew;
    rec.lease_ms = lease_ms;
    CallOptions call;
    call.op = rt_.begin_op(rec);
    std::vector<std::string> keys = {lock};
    std::vector<std::string> args = {token, std::to_string(lease_ms)};
    CallResult r = co_await rt_.conn().eval(renew_script(), std::move(keys), std::move(args), call);
    OpResult res;
    if (!r.ok()) {
      rt_.cover(coverage::kRenewalError);
      res.outcome = Outcome::kUnknown;
      res.error = "command timed out";
      rt_.end_op(call.op, res);
      continue;  // try again next period
    }
    const bool renewed = r.reply.type == Reply::Type::kInteger && r.reply.integer == 1;
    rt_.cover(renewed ? coverage::kRenewed : coverage::kRenewalLost);
    res.renewed = renewed ? 1 : 0;
    rt_.end_op(call.op, res);
    if (!renewed) {
      rt_.hold_lost(*thread, lock);
      co_return;
    }
  }
}

}  // namespace

AlgorithmInfo set_nx_px_algorithm() {
  AlgorithmInfo info;
  info.name = "set-nx-px";
  info.lock_kind = "simple";
  info.description =
      "single-node SET key token NX PX + compare-and-delete (the Redis documentation's lock)";
  info.option_defaults = {{"retry_delay_ms", 50}};
  info.scripts = [](const nlohmann::json&) {
    return std::vector<const Script*>{&unlock_script(), &renew_script()};
  };
  info.coverage_points = coverage::declare({coverage::kBusyNoWait, coverage::kRetrySleep,
                                            coverage::kWaitTimeRanOut, coverage::kRenewed,
                                            coverage::kRenewalLost, coverage::kRenewalError,
                                            coverage::kReleased, coverage::kUnlockNotHeld});
  info.validate = [](const nlohmann::json& options, const std::string& path) -> Status {
    Status s = check_known_fields(options, path, {"retry_delay_ms"});
    if (!s.ok()) return s;
    return check_int_field(options, path, "retry_delay_ms", 1, 60'000);
  };
  info.make = [](Runtime& rt, const nlohmann::json& options) -> std::unique_ptr<LockClient> {
    return std::make_unique<SetNxPx>(rt, options.value("retry_delay_ms", int64_t{50}));
  };
  return info;
}

}  // namespace baseline
}  // namespace lockstep::algorithms
