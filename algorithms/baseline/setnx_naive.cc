#include "algorithms/baseline/setnx_naive.h"

#include <algorithm>
#include <string>
#include <utility>

#include "algorithms/algorithm.h"
#include "sim/core/assert.h"

namespace lockstep::algorithms::baseline {
namespace {

// Bounds the retries of one waiting call.
constexpr int kMaxAttempts = 10'000'000;

class SetnxNaive : public LockClient {
 public:
  SetnxNaive(Runtime& rt, int64_t retry_delay_ms, int64_t default_lease_ms)
      : rt_(rt), retry_delay_ms_(retry_delay_ms), default_lease_ms_(default_lease_ms) {
    LS_ASSERT(retry_delay_ms_ >= 1);
    LS_ASSERT(default_lease_ms_ >= 1);
  }

  Task<LockOutcome> acquire(const Thread& thread, const LockRequest& req) override;
  Task<LockOutcome> release(const Thread& thread, const LockRequest& req) override;
  Task<LockOutcome> force_release(const Thread& thread, const LockRequest& req) override;

 private:
  Task<LockOutcome> del(const LockRequest& req);

  Runtime& rt_;
  const int64_t retry_delay_ms_;
  const int64_t default_lease_ms_;
  uint64_t next_token_ = 0;
};

Task<LockOutcome> SetnxNaive::acquire(const Thread& thread, const LockRequest& req) {
  if (req.mode != LockMode::kExclusive) co_return LockOutcome::fail("setnx-naive has no read/write modes");
  const int64_t lease_ms = req.lease_ms < 0 ? default_lease_ms_ : req.lease_ms;
  const std::string seconds = std::to_string((lease_ms + 999) / 1000);
  const std::string token = rt_.owner_name(thread) + ":" + std::to_string(++next_token_);
  const int64_t start_ms = rt_.now_ms();
  CallOptions call;
  call.op = req.op;
  for (int attempt = 0; attempt < kMaxAttempts; ++attempt) {
    std::vector<std::string> setnx = {"SETNX", std::string(req.lock), token};
    CallResult r = co_await rt_.conn().call(std::move(setnx), call);
    if (!r.ok()) co_return LockOutcome::unknown("command timed out");
    if (r.reply.is_error()) co_return LockOutcome::fail(r.reply.str);
    if (r.reply.type == Reply::Type::kInteger && r.reply.integer == 1) {
      std::vector<std::string> expire = {"EXPIRE", std::string(req.lock), seconds};
      CallResult e = co_await rt_.conn().call(std::move(expire), call);
      if (!e.ok()) co_return LockOutcome::unknown("EXPIRE timed out after SETNX succeeded");
      LockOutcome out;
      out.acquired = true;
      out.count = 1;
      co_return out;
    }
    const int64_t remaining_ms = req.wait_ms < 0 ? INT64_MAX : req.wait_ms - (rt_.now_ms() - start_ms);
    if (remaining_ms <= 0) {
      rt_.cover(req.wait_ms == 0 ? coverage::kBusyNoWait : coverage::kWaitTimeRanOut);
      co_return LockOutcome{};
    }
    rt_.cover(coverage::kRetrySleep);
    const int64_t delay = rt_.rng().between(std::max<int64_t>(1, retry_delay_ms_ / 2), retry_delay_ms_);
    co_await rt_.sleep_ms(std::min(delay, remaining_ms));
  }
  co_return LockOutcome::fail("setnx-naive: gave up after " + std::to_string(kMaxAttempts) + " attempts");
}

Task<LockOutcome> SetnxNaive::del(const LockRequest& req) {
  CallOptions call;
  call.op = req.op;
  std::vector<std::string> argv = {"DEL", std::string(req.lock)};
  CallResult r = co_await rt_.conn().call(std::move(argv), call);
  if (!r.ok()) co_return LockOutcome::unknown("command timed out");
  if (r.reply.is_error()) co_return LockOutcome::fail(r.reply.str);
  LockOutcome out;
  out.released = r.reply.type == Reply::Type::kInteger && r.reply.integer > 0;
  if (out.released) out.count = 0;
  rt_.cover(out.released ? coverage::kReleased : coverage::kUnlockNotHeld);
  co_return out;
}

Task<LockOutcome> SetnxNaive::release(const Thread& thread, const LockRequest& req) {
  co_return co_await del(req);
}

Task<LockOutcome> SetnxNaive::force_release(const Thread& thread, const LockRequest& req) {
  co_return co_await del(req);
}

}  // namespace

AlgorithmInfo setnx_naive_algorithm() {
  AlgorithmInfo info;
  info.name = "setnx-naive";
  info.lock_kind = "simple";
  info.description =
      "SETNX then EXPIRE as two commands, unlock by plain DEL (unsafe on several counts)";
  info.option_defaults = {
      {"retry_delay_ms", {{"default", 50}, {"doc", "a waiting call retries after [delay/2, delay]"}}},
      {"default_lease_ms", {{"default", 30000}, {"doc", "the EXPIRE used without a lease (no renewal)"}}}};
  info.coverage_points = coverage::declare({coverage::kBusyNoWait, coverage::kRetrySleep,
                                            coverage::kWaitTimeRanOut, coverage::kReleased,
                                            coverage::kUnlockNotHeld});
  info.validate = [](const nlohmann::json& options, const std::string& path) -> Status {
    Status s = check_known_fields(options, path, {"retry_delay_ms", "default_lease_ms"});
    if (s.ok()) s = check_int_field(options, path, "retry_delay_ms", 1, 60'000);
    if (s.ok()) s = check_int_field(options, path, "default_lease_ms", 1, int64_t{24} * 3600 * 1000);
    return s;
  };
  info.make = [](Runtime& rt, const nlohmann::json& options) -> std::unique_ptr<LockClient> {
    return std::make_unique<SetnxNaive>(rt, options.value("retry_delay_ms", int64_t{50}),
                                        options.value("default_lease_ms", int64_t{30000}));
  };
  return info;
}

}  // namespace lockstep::algorithms::baseline
