#include "algorithms/redisson/lock_type.h"

#include <utility>

#include "sim/core/assert.h"

namespace lockstep::algorithms::redisson {

std::string prefix_name(std::string_view prefix, std::string_view name) {
  LS_ASSERT(!prefix.empty());
  std::string out(prefix);
  if (name.find('{') != std::string_view::npos) {
    out += ':';
    out += name;
  } else {
    out += ":{";
    out += name;
    out += '}';
  }
  return out;
}

std::string suffix_name(std::string_view name, std::string_view suffix) {
  LS_ASSERT(!suffix.empty());
  std::string out;
  if (name.find('{') != std::string_view::npos) {
    out = std::string(name) + ":";
  } else {
    out = "{" + std::string(name) + "}:";
  }
  out += suffix;
  return out;
}

std::string illegal_monitor_state(std::string_view uuid, int64_t thread_id) {
  return "IllegalMonitorStateException: attempt to unlock lock, not locked by current thread by "
         "node id: " +
         std::string(uuid) + " thread-id: " + std::to_string(thread_id);
}

// --- ClientContext ------------------------------------------------------------------------

ClientContext::ClientContext(Runtime& runtime, const RedissonOptions& opts)
    : rt(runtime), options(opts), exec(runtime, options), watchdog(runtime, options) {
  LS_ASSERT(rt.endpoints() > 0);
  for (size_t e = 0; e < rt.endpoints(); ++e) {
    pubsub_.push_back(std::make_unique<LockPubSub>(rt, e));
  }
}

LockPubSub& ClientContext::pubsub(size_t endpoint) {
  LS_ASSERT(endpoint < pubsub_.size());
  return *pubsub_[endpoint];
}

// Not a coroutine: without the WAIT a run is the executor's eval, and a thread waiting for it
// keeps no frame of its own (a herd of retrying waiters has one such call each).
Task<CallResult> ClientContext::run_script(size_t endpoint, ScriptCall call, bool synced,
                                           bool* no_sync) {
  LS_ASSERT(no_sync != nullptr);
  LS_ASSERT(call.script != nullptr);
  *no_sync = false;
  if (!synced || !options.sync_replicas) return exec.eval(endpoint, std::move(call));
  return synced_eval(endpoint, std::move(call), no_sync);
}

Task<CallResult> ClientContext::synced_eval(size_t endpoint, ScriptCall call, bool* no_sync) {
  const int64_t op = call.options.op;
  CallResult r = co_await exec.eval(endpoint, std::move(call));
  if (!r.ok()) co_return r;
  // syncedEval: WAIT for the replicas the client knows; none acknowledging is an error when
  // checkLockSyncedSlaves is on and there were replicas to wait for.
  const int64_t available = exec.replicas(endpoint);
  const int64_t acked = co_await exec.wait_replicas(endpoint, op);
  if (options.check_lock_synced_slaves && available > 0 && acked <= 0) *no_sync = true;
  co_return r;
}

// --- LockType -------------------------------------------------------------------------------

std::string LockType::lock_name(const Thread& thread) const { return ctx_.rt.owner_name(thread); }

std::string LockType::channel(const std::string& lock, const Thread& thread) const {
  return prefix_name("redisson_lock__channel", lock);
}

Task<void> LockType::acquire_failed(size_t endpoint, std::string lock, const Thread* thread,
                                    int64_t wait_ms, int64_t op) {
  co_return;
}

AcquireReply LockType::acquire_reply(const CallResult& r, bool no_sync) {
  AcquireReply a;
  a.no_sync = no_sync;
  if (!r.ok()) {
    a.outcome = Outcome::kUnknown;
    a.error = std::string(kTimeoutError);
    return a;
  }
  switch (r.reply.type) {
    case Reply::Type::kNil:
    case Reply::Type::kNilArray:
      a.acquired = true;
      return a;
    case Reply::Type::kInteger:
      a.ttl_ms = r.reply.integer;
      return a;
    case Reply::Type::kError:
      a.outcome = Outcome::kFail;
      a.error = "RedisException: " + r.reply.str;
      return a;
    default:
      a.outcome = Outcome::kFail;
      a.error = "unexpected reply to an acquire script: " + redis::describe(r.reply);
      return a;
  }
}

UnlockReply LockType::unlock_reply(const CallResult& r, bool no_sync) {
  UnlockReply u;
  u.no_sync = no_sync;
  if (!r.ok()) {
    u.outcome = Outcome::kUnknown;
    u.error = std::string(kTimeoutError);
  } else if (r.reply.type == Reply::Type::kInteger) {
    u.result = r.reply.integer != 0 ? 1 : 0;
  } else if (r.reply.type == Reply::Type::kError) {
    u.outcome = Outcome::kFail;
    u.error = "RedisException: " + r.reply.str;
  } else if (r.reply.type != Reply::Type::kNil) {
    u.outcome = Outcome::kFail;
    u.error = "unexpected reply to an unlock script: " + redis::describe(r.reply);
  }
  return u;
}

RenewReply LockType::renew_reply(const CallResult& r) {
  RenewReply out;
  if (!r.ok()) {
    out.outcome = Outcome::kUnknown;
    out.error = std::string(kTimeoutError);
  } else if (r.reply.is_error()) {
    out.outcome = Outcome::kFail;
    out.error = "RedisException: " + r.reply.str;
  } else {
    out.renewed = r.reply.type == Reply::Type::kInteger && r.reply.integer == 1;
  }
  return out;
}

namespace {

// Redisson's ServiceManager.generateId(): 16 random bytes as hex.
std::string generate_id(Rng& rng) {
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  for (int i = 0; i < 2; ++i) {
    uint64_t v = rng.next_u64();
    for (int j = 0; j < 16; ++j, v >>= 4) out += kHex[v & 15];
  }
  return out;
}

}  // namespace

std::shared_ptr<std::string> LockType::add_latch(ScriptCall& call, const std::string& lock) {
  const std::string prefix = prefix_name("redisson_unlock_latch", lock) + ":";
  auto last = std::make_shared<std::string>(prefix + generate_id(ctx_.rt.rng()));
  const size_t index = call.keys.size();
  call.keys.push_back(*last);
  if (ctx_.options.latch_request_id == LatchRequestId::kPerAttempt) {
    Runtime* rt = &ctx_.rt;
    call.per_attempt = [rt, prefix, last, index](int32_t attempt, std::vector<std::string>& keys,
                                                 std::vector<std::string>&) {
      if (attempt > 0) *last = prefix + generate_id(rt->rng());
      keys[index] = *last;
    };
  }
  return last;
}

namespace {

Task<void> send_and_forget(Task<CallResult> call) { co_await call; }

}  // namespace

void LockType::delete_latch(size_t endpoint, std::shared_ptr<std::string> latch_key) {
  LS_ASSERT(latch_key != nullptr && !latch_key->empty());
  std::vector<std::string> argv = {"DEL", *latch_key};
  CallOptions opts;
  opts.retry_attempts = 0;
  ctx_.rt.spawn(send_and_forget(ctx_.rt.conn(endpoint).call(std::move(argv), opts)));
}

}  // namespace lockstep::algorithms::redisson
