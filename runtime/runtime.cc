#include "runtime/lock_client.h"

#include <openssl/sha.h>

#include <utility>

#include "sim/core/assert.h"

namespace lockstep::runtime {

Script make_script(const char* name, std::string_view body) {
  LS_ASSERT(name != nullptr && *name != '\0');
  LS_ASSERT(!body.empty());
  unsigned char digest[SHA_DIGEST_LENGTH];
  SHA1(reinterpret_cast<const unsigned char*>(body.data()), body.size(), digest);
  static const char kHex[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(2 * SHA_DIGEST_LENGTH);
  for (unsigned char b : digest) {
    hex += kHex[b >> 4];
    hex += kHex[b & 15];
  }
  return Script{name, body, std::move(hex)};
}

std::string Runtime::owner_name(const Thread& thread) const { return owner_name(thread.id); }

std::string Runtime::owner_name(int64_t thread_id) const {
  std::string out(uuid());
  out += ':';
  out += std::to_string(thread_id);
  return out;
}

CallPlan plan_call(const CallOptions& call, const ClientOptions& client) {
  CallPlan p;
  p.timeout_ms = call.timeout_ms >= 0 ? call.timeout_ms : client.timeout_ms;
  p.retries = call.own_connection ? 0 : call.retry_attempts >= 0 ? call.retry_attempts : client.retry_attempts;
  p.retry_interval_ms = call.retry_interval_ms >= 0 ? call.retry_interval_ms : client.retry_interval_ms;
  return p;
}

Task<bool> Runtime::interruptible(const Thread&, Task<bool> wait, Interrupt* interrupted) {
  *interrupted = Interrupt::kNone;
  return wait;
}

std::vector<std::string> script_argv(std::string_view command, std::string_view first,
                                     std::vector<std::string>& keys,
                                     std::vector<std::string>& args) {
  std::vector<std::string> argv;
  argv.reserve(3 + keys.size() + args.size());
  argv.emplace_back(command);
  argv.emplace_back(first);
  argv.push_back(std::to_string(keys.size()));
  for (std::string& k : keys) argv.push_back(std::move(k));
  for (std::string& a : args) argv.push_back(std::move(a));
  return argv;
}


Task<CallResult> Connection::eval(const Script& script, std::vector<std::string> keys,
                                  std::vector<std::string> args, CallOptions options) {
  options.script = script.name;
  co_return co_await call(script_argv("EVAL", script.body, keys, args), std::move(options));
}

Task<CallResult> Connection::evalsha(const Script& script, std::vector<std::string> keys,
                                     std::vector<std::string> args, CallOptions options) {
  options.script = script.name;
  std::vector<std::string> keys_copy = keys;
  std::vector<std::string> args_copy = args;
  CallResult r = co_await call(script_argv("EVALSHA", script.sha1, keys, args), options);
  if (r.ok() && r.reply.is_error() && r.reply.str.rfind("NOSCRIPT", 0) == 0) {
    r = co_await call(script_argv("EVAL", script.body, keys_copy, args_copy), std::move(options));
  }
  co_return r;
}

LockOutcome LockOutcome::unknown(std::string error) {
  LockOutcome o;
  o.outcome = Outcome::kUnknown;
  o.error = std::move(error);
  return o;
}

LockOutcome LockOutcome::fail(std::string error) {
  LockOutcome o;
  o.outcome = Outcome::kFail;
  o.error = std::move(error);
  return o;
}

}  // namespace lockstep::runtime
