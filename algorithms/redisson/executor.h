// Executor: how a Redisson client sends one command — Redisson's CommandAsyncService in small.
//
// Each attempt waits up to the client's command timeout (ClientOptions::timeout_ms); after a
// timeout the command is re-sent after the retry delay (fixed, or EqualJitterDelay), up to
// retry_attempts times, and then the call reports a timeout (RedisTimeoutException: the command
// may or may not have run). Classic clients send scripts as EVAL with the whole body (what seed
// 001's MONITOR trace shows); current ones send EVALSHA and fall back to EVAL on NOSCRIPT.
// With sync_replicas, a script is followed by WAIT <replicas> <slaves_sync_timeout_ms> on the
// same connection (Redisson's syncedEval batch).
#ifndef LOCKSTEP_ALGORITHMS_REDISSON_EXECUTOR_H_
#define LOCKSTEP_ALGORITHMS_REDISSON_EXECUTOR_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "algorithms/algorithm.h"
#include "algorithms/redisson/redisson_options.h"

namespace lockstep::algorithms::redisson {

// A script call. `per_attempt`, when set, rewrites copies of the keys and arguments for each
// attempt (the unlock latch's per-attempt requestId).
struct ScriptCall {
  const Script* script = nullptr;
  std::vector<std::string> keys;
  std::vector<std::string> args;
  std::function<void(int32_t attempt, std::vector<std::string>& keys,
                     std::vector<std::string>& args)> per_attempt;
  CallOptions options;  // op, state_keys; timeout and retries are the executor's
};

class Executor {
 public:
  // Bounds a single call's attempts whatever the options say.
  static constexpr int32_t kMaxAttempts = 101;

  Executor(Runtime& rt, const RedissonOptions& options);

  // Sends the script until a reply arrives or the attempts are spent.
  Task<CallResult> eval(size_t endpoint, ScriptCall call);
  // Sends a plain command the same way.
  Task<CallResult> command(size_t endpoint, std::vector<std::string> argv, CallOptions options);
  // WAIT <replicas of endpoint> <slaves_sync_timeout_ms>, one attempt. Returns the replicas
  // that acknowledged, or -1 if the WAIT got no reply in time.
  Task<int64_t> wait_replicas(size_t endpoint, int64_t op);
  // The number of replicas the client knows for `endpoint`.
  int64_t replicas(size_t endpoint) const { return rt_.replicas(endpoint); }

  // The delay before re-send number `attempt` (0-based).
  int64_t retry_delay_ms(int32_t attempt);
  int32_t retry_attempts() const;
  // The unlock latch's TTL: (timeout + max retry delay) * attempts, at least 1 (Redisson).
  int64_t latch_ttl_ms() const;

 private:
  std::vector<std::string> script_argv(const ScriptCall& call, int32_t attempt, bool by_sha) const;

  Runtime& rt_;
  const RedissonOptions& options_;
};

}  // namespace lockstep::algorithms::redisson

#endif  // LOCKSTEP_ALGORITHMS_REDISSON_EXECUTOR_H_
