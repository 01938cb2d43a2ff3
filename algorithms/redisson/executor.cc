#include "algorithms/redisson/executor.h"

#include <algorithm>
#include <utility>

#include "sim/core/assert.h"

namespace lockstep::algorithms::redisson {

Executor::Executor(Runtime& rt, const RedissonOptions& options) : rt_(rt), options_(options) {
  LS_ASSERT(options_.retry_delay_base_ms >= 1);
  LS_ASSERT(options_.retry_delay_base_ms <= options_.retry_delay_max_ms);
}

int32_t Executor::retry_attempts() const {
  const int32_t n = options_.effective_retry_attempts(rt_.options().retry_attempts, rt_.options().retry_attempts_given);
  LS_ASSERT(n >= 0);
  return std::min(n, kMaxAttempts - 1);
}

int64_t Executor::retry_delay_ms(int32_t attempt) {
  LS_ASSERT(attempt >= 0);
  if (options_.retry_delay == RetryDelay::kFixed) return rt_.options().retry_interval_ms;
  // EqualJitterDelay: half of the exponential delay is fixed, the other half random.
  const int32_t shift = std::min(attempt, 30);
  const int64_t d = std::min(options_.retry_delay_max_ms, options_.retry_delay_base_ms << shift);
  LS_ASSERT(d >= 1);
  return d / 2 + rt_.rng().between(0, d / 2);
}

int64_t Executor::latch_ttl_ms() const {
  const int64_t max_delay = options_.retry_delay == RetryDelay::kFixed
                                ? rt_.options().retry_interval_ms
                                : options_.retry_delay_max_ms;
  const int64_t ttl = (rt_.options().timeout_ms + max_delay) * retry_attempts();
  return std::max<int64_t>(1, ttl);
}

std::vector<std::string> Executor::script_argv(const ScriptCall& call, int32_t attempt,
                                               bool by_sha) const {
  LS_ASSERT(call.script != nullptr);
  auto build = [&](const std::vector<std::string>& keys, const std::vector<std::string>& args) {
    std::vector<std::string> argv;
    argv.reserve(3 + keys.size() + args.size());
    argv.emplace_back(by_sha ? "EVALSHA" : "EVAL");
    argv.emplace_back(by_sha ? std::string_view(call.script->sha1) : call.script->body);
    argv.push_back(std::to_string(keys.size()));
    argv.insert(argv.end(), keys.begin(), keys.end());
    argv.insert(argv.end(), args.begin(), args.end());
    return argv;
  };
  // Without a per-attempt rewrite the keys and arguments go straight into the argv (this runs
  // for every script command a Redisson client sends).
  if (!call.per_attempt) return build(call.keys, call.args);
  std::vector<std::string> keys = call.keys;
  std::vector<std::string> args = call.args;
  call.per_attempt(attempt, keys, args);
  return build(keys, args);
}

Task<CallResult> Executor::eval(size_t endpoint, ScriptCall call) {
  LS_ASSERT(call.script != nullptr);
  LS_ASSERT(endpoint < rt_.endpoints());
  // A run may send another text in its place (a mutant, algorithms/mutants).
  call.script = &rt_.script(*call.script);
  const bool by_sha = options_.profile == Profile::kCurrent;
  call.options.script = call.script->name;
  call.options.retry_attempts = 0;
  CallResult r;
  const int32_t attempts = retry_attempts();
  for (int32_t attempt = 0; attempt <= attempts; ++attempt) {
    // One await site (a coroutine frame keeps each site's temporaries): an EVALSHA the server
    // answers NOSCRIPT is sent again at once as an EVAL.
    bool send_sha = by_sha;
    for (;;) {
      r = co_await rt_.conn(endpoint).call(script_argv(call, attempt, send_sha), call.options);
      if (!(r.ok() && send_sha && r.reply.is_error() && r.reply.str.rfind("NOSCRIPT", 0) == 0)) break;
      send_sha = false;
    }
    r.attempts = attempt + 1;
    if (r.ok()) co_return r;
    if (attempt < attempts) co_await rt_.sleep_ms(retry_delay_ms(attempt));
  }
  co_return r;
}

Task<CallResult> Executor::command(size_t endpoint, std::vector<std::string> argv,
                                   CallOptions options) {
  LS_ASSERT(!argv.empty());
  LS_ASSERT(endpoint < rt_.endpoints());
  options.retry_attempts = 0;
  CallResult r;
  const int32_t attempts = retry_attempts();
  for (int32_t attempt = 0; attempt <= attempts; ++attempt) {
    r = co_await rt_.conn(endpoint).call(argv, options);
    r.attempts = attempt + 1;
    if (r.ok()) co_return r;
    if (attempt < attempts) co_await rt_.sleep_ms(retry_delay_ms(attempt));
  }
  co_return r;
}

Task<int64_t> Executor::wait_replicas(size_t endpoint, int64_t op) {
  LS_ASSERT(endpoint < rt_.endpoints());
  LS_ASSERT(options_.slaves_sync_timeout_ms >= 1);
  std::vector<std::string> argv = {"WAIT", std::to_string(replicas(endpoint)),
                                   std::to_string(options_.slaves_sync_timeout_ms)};
  CallOptions opts;
  opts.op = op;
  opts.retry_attempts = 0;
  // The WAIT blocks on the server for up to its timeout; the reply must be allowed that long.
  opts.timeout_ms = rt_.options().timeout_ms + options_.slaves_sync_timeout_ms;
  CallResult r = co_await rt_.conn(endpoint).call(std::move(argv), opts);
  if (!r.ok() || r.reply.type != Reply::Type::kInteger) co_return -1;
  co_return r.reply.integer;
}

}  // namespace lockstep::algorithms::redisson
