#include "algorithms/redisson/redisson_options.h"

#include <algorithm>
#include <functional>

#include "algorithms/algorithm.h"
#include "sim/core/assert.h"

namespace lockstep::algorithms::redisson {
namespace {

using nlohmann::json;

// One option: its JSON name, what it means, how it is checked, and where it lives.
struct OptionDef {
  const char* name;
  const char* doc;
  std::vector<std::string> choices;  // non-empty: a string option with these values
  bool boolean = false;
  int64_t min = 0;
  int64_t max = 0;
  std::function<json(const RedissonOptions&)> get;
  std::function<void(RedissonOptions&, const json&)> set;
};

constexpr int64_t kDayMs = int64_t{24} * 3600 * 1000;

template <typename E>
OptionDef choice(const char* name, const char* doc, std::vector<std::string> names,
                 E RedissonOptions::*field) {
  OptionDef d;
  d.name = name;
  d.doc = doc;
  d.choices = names;
  d.get = [names, field](const RedissonOptions& o) { return json(names[static_cast<size_t>(o.*field)]); };
  d.set = [names, field](RedissonOptions& o, const json& v) {
    auto it = std::find(names.begin(), names.end(), v.get<std::string>());
    LS_ASSERT(it != names.end());
    o.*field = static_cast<E>(it - names.begin());
  };
  return d;
}

OptionDef boolean(const char* name, const char* doc, bool RedissonOptions::*field) {
  OptionDef d;
  d.name = name;
  d.doc = doc;
  d.boolean = true;
  d.get = [field](const RedissonOptions& o) { return json(o.*field); };
  d.set = [field](RedissonOptions& o, const json& v) { o.*field = v.get<bool>(); };
  return d;
}

template <typename I>
OptionDef integer(const char* name, const char* doc, int64_t min, int64_t max,
                  I RedissonOptions::*field) {
  OptionDef d;
  d.name = name;
  d.doc = doc;
  d.min = min;
  d.max = max;
  d.get = [field](const RedissonOptions& o) { return json(static_cast<int64_t>(o.*field)); };
  d.set = [field](RedissonOptions& o, const json& v) { o.*field = static_cast<I>(v.get<int64_t>()); };
  return d;
}

const std::vector<OptionDef>& defs() {
  static const std::vector<OptionDef> all = [] {
    std::vector<OptionDef> v;
    v.push_back(choice("profile",
                       "classic: the seed documents (Redisson ~3.10); current: Redisson 3.52/4.x. "
                       "Sets every other option's default",
                       {"classic", "current"}, &RedissonOptions::profile));
    OptionDef retries = integer("retry_attempts",
                                "re-sends of a command after a timeout (classic: the client's "
                                "retry_attempts, default 3; current: 4)",
                                0, 100, &RedissonOptions::retry_attempts);
    retries.get = [](const RedissonOptions& o) {
      return o.retry_attempts < 0 ? json("client") : json(o.retry_attempts);
    };
    v.push_back(retries);
    v.push_back(choice("retry_delay",
                       "pause before a re-send: fixed = the client's retry_interval_ms (1500); "
                       "equal_jitter = Redisson's EqualJitterDelay(base, max)",
                       {"fixed", "equal_jitter"}, &RedissonOptions::retry_delay));
    v.push_back(integer("retry_delay_base_ms", "EqualJitterDelay base", 1, kDayMs,
                        &RedissonOptions::retry_delay_base_ms));
    v.push_back(integer("retry_delay_max_ms", "EqualJitterDelay maximum", 1, kDayMs,
                        &RedissonOptions::retry_delay_max_ms));
    v.push_back(boolean("merged_acquire",
                        "RLock acquire tests `exists == 0 or hexists == 1` in one if (same "
                        "semantics, different command trace)",
                        &RedissonOptions::merged_acquire));
    v.push_back(choice("unlock_script",
                       "exists_check: seed 001's unlock (a missing lock returns 1); owner_check: "
                       "seed 003's (returns nil). With unlock_latch the owner check is used",
                       {"exists_check", "owner_check"}, &RedissonOptions::unlock_script));
    v.push_back(boolean("unlock_latch",
                        "3.24+: unlock scripts cache their result in "
                        "redisson_unlock_latch:{name}:<requestId>, so a retried unlock returns "
                        "it instead of nil; the read-write lock's unlock of a free lock returns "
                        "nil (3.44)",
                        &RedissonOptions::unlock_latch));
    v.push_back(choice("latch_request_id",
                       "per_call (3.52+): retries share the requestId; per_attempt (3.24-3.51): "
                       "each retry has a fresh one, so the latch never matches",
                       {"per_call", "per_attempt"}, &RedissonOptions::latch_request_id));
    v.push_back(boolean("sync_replicas",
                        "3.12.5+: every lock and unlock script is followed by WAIT <replicas> "
                        "<slaves_sync_timeout_ms>",
                        &RedissonOptions::sync_replicas));
    v.push_back(boolean("check_lock_synced_slaves",
                        "with sync_replicas: an acquisition no replica confirmed is undone "
                        "(unlock) and fails with NoSyncedSlavesException",
                        &RedissonOptions::check_lock_synced_slaves));
    v.push_back(integer("slaves_sync_timeout_ms", "the WAIT timeout", 1, kDayMs,
                        &RedissonOptions::slaves_sync_timeout_ms));
    v.push_back(boolean("record_states",
                        "lockstep instrumentation (not Redisson): the RLock's and fenced lock's "
                        "scripts record the lock key's state (hash and expiry) in the history "
                        "after each run, so each step's PTTL can be read",
                        &RedissonOptions::record_states));
    v.push_back(choice("object_lease",
                       "a lock object's internalLockLeaseTime, which unlocks of a re-entered hold "
                       "re-arm with: every_attempt (seed 001: each attempt's lease, set before the "
                       "script), reset_on_unlock (to 3.27.1: an acquisition's lease, reset by every "
                       "unlock), reset_on_release (3.27.2+: reset only by a full release)",
                       {"every_attempt", "reset_on_unlock", "reset_on_release"}, &RedissonOptions::object_lease));
    v.push_back(choice("watchdog_after_failure",
                       "stop (<= 3.43): a renewal that errors or times out ends the watchdog for "
                       "good; reschedule (>= 3.44): it keeps renewing",
                       {"stop", "reschedule"}, &RedissonOptions::watchdog_after_failure));
    v.push_back(choice("interrupted_grant",
                       "a grant whose caller was interrupted while the acquire command was in "
                       "flight: renews (<= 3.16.2, #2714; 3.20.1+, #7272): its callback still "
                       "starts the watchdog, which renews a lock nobody holds; dropped (3.16.3 - "
                       "3.20.0, #3826): the cancelled future skips the callback, the key lives out "
                       "its lease; unlocked (the fix proposed in #7277): the grant is unlocked",
                       {"renews", "dropped", "unlocked"}, &RedissonOptions::interrupted_grant));
    v.push_back(integer("thread_wait_ms", "fair lock threadWaitTime (3.13.3: 5000 -> 300000)",
                        0, kDayMs, &RedissonOptions::fair_thread_wait_ms));
    v.push_back(choice("fair_script",
                       "seed: seed 002's acquire (no guard for a queue entry without a score; a "
                       "re-try refreshes the waiter's score); current: 3.32's guard and "
                       "max(0, pttl) for a queued waiter, 3.45's enqueue rule",
                       {"seed", "current"}, &RedissonOptions::fair_script));
    v.push_back(boolean("fair_acquire_failed_on_timeout",
                        "4.7.0: a command timeout inside tryLock's wait loop runs acquireFailed "
                        "(leaves the queue) instead of leaving the waiter queued",
                        &RedissonOptions::fair_acquire_failed_on_timeout));
    v.push_back(boolean("read_lease_max",
                        "3.11.1+: a read acquisition sets the hash TTL to max(remaining, lease); "
                        "false: plain PEXPIRE (a short reader shortens a long reader's lock)",
                        &RedissonOptions::read_lease_max));
    v.push_back(choice("read_renew",
                       "all_fields: seed 004's renewal refreshes every field's timeout keys (other "
                       "clients' too); own_only (4.4.0+): only this client's threads'",
                       {"all_fields", "own_only"}, &RedissonOptions::read_renew));
    v.push_back(integer("redlock_min_lock_wait_ms",
                        "RedLock's lower bound on the per-lock wait max(remain/N, min) (1; 1000 "
                        "before 2.11.3)",
                        0, kDayMs, &RedissonOptions::redlock_min_lock_wait_ms));
    v.push_back(choice("redlock_lease",
                       "RedLock sub-lock lease when a lease is given: wait_times_two (seed 001: "
                       "waitTime*2, even for a wait of -1 or 0, #2172) or lease_unless_wait "
                       "(3.11.1+: waitTime*2 only if waitTime > 0, else the lease)",
                       {"wait_times_two", "lease_unless_wait"}, &RedissonOptions::redlock_lease));
    return v;
  }();
  return all;
}

const OptionDef* find_def(const std::string& name) {
  for (const OptionDef& d : defs()) {
    if (name == d.name) return &d;
  }
  return nullptr;
}

Status check_value(const OptionDef& d, const json& options, const std::string& path) {
  if (!d.choices.empty()) return check_string_field(options, path, d.name, d.choices);
  if (d.boolean) return check_bool_field(options, path, d.name);
  return check_int_field(options, path, d.name, d.min, d.max);
}

}  // namespace

RedissonOptions profile_defaults(Profile profile) {
  RedissonOptions o;
  o.profile = profile;
  if (profile == Profile::kClassic) return o;
  o.retry_attempts = 4;
  o.retry_delay = RetryDelay::kEqualJitter;
  o.merged_acquire = true;
  o.unlock_script = UnlockScript::kOwnerCheck;
  o.unlock_latch = true;
  o.sync_replicas = true;
  o.watchdog_after_failure = WatchdogAfterFailure::kReschedule;
  o.object_lease = ObjectLease::kResetOnRelease;
  o.fair_thread_wait_ms = 300'000;
  o.fair_script = FairScript::kCurrent;
  o.fair_acquire_failed_on_timeout = true;
  o.read_renew = ReadRenew::kOwnOnly;
  o.redlock_lease = RedlockLease::kLeaseUnlessWait;
  return o;
}

Result<RedissonOptions> parse_options(const json& options, const std::string& path,
                                      const std::vector<std::string>& allowed) {
  Status s = check_known_fields(options, path, allowed);
  if (!s.ok()) return s;
  for (const std::string& name : allowed) {
    const OptionDef* d = find_def(name);
    LS_ASSERT(d != nullptr);
    s = check_value(*d, options, path);
    if (!s.ok()) return s;
  }
  Profile profile = Profile::kClassic;
  if (options.contains("profile") && options["profile"] == "current") profile = Profile::kCurrent;
  RedissonOptions o = profile_defaults(profile);
  for (auto it = options.begin(); it != options.end(); ++it) {
    const OptionDef* d = find_def(it.key());
    LS_ASSERT(d != nullptr);
    if (it.key() != "profile") d->set(o, it.value());
  }
  o.retry_attempts_given = options.contains("retry_attempts");
  if (o.retry_delay_base_ms > o.retry_delay_max_ms) {
    return Status::error(path + "/retry_delay_base_ms: expected at most retry_delay_max_ms (" +
                         std::to_string(o.retry_delay_max_ms) + "), found " +
                         std::to_string(o.retry_delay_base_ms));
  }
  return o;
}

RedissonOptions client_options(const json& options, const std::vector<std::string>& allowed) {
  Result<RedissonOptions> r = parse_options(options, "/algorithm/options", allowed);
  LS_ASSERT(r.ok());
  return r.value();
}

std::vector<std::string> common_option_names() {
  return {"profile",        "retry_attempts",   "retry_delay",       "retry_delay_base_ms",
          "retry_delay_max_ms", "merged_acquire", "unlock_script",   "unlock_latch",
          "latch_request_id", "sync_replicas",  "check_lock_synced_slaves",
          "slaves_sync_timeout_ms", "watchdog_after_failure", "object_lease", "record_states",
          "interrupted_grant"};
}

namespace {

// The RLock's own scripts (merged_acquire, unlock_script) are not the fair lock's or the
// read-write lock's, which have scripts of their own: those options are refused there rather
// than accepted and ignored.
std::vector<std::string> without_rlock_scripts(std::vector<std::string> v) {
  std::erase_if(v, [](const std::string& n) {
    return n == "merged_acquire" || n == "unlock_script" || n == "record_states";  // they always record
  });
  return v;
}

}  // namespace

std::vector<std::string> fair_option_names() {
  std::vector<std::string> v = without_rlock_scripts(common_option_names());
  v.insert(v.end(), {"thread_wait_ms", "fair_script", "fair_acquire_failed_on_timeout"});
  return v;
}

std::vector<std::string> rwlock_option_names() {
  std::vector<std::string> v = without_rlock_scripts(common_option_names());
  v.insert(v.end(), {"read_lease_max", "read_renew"});
  return v;
}

std::vector<std::string> redlock_option_names() {
  std::vector<std::string> v = common_option_names();
  // Its sub-locks are fresh RLock objects per call: no object state to configure; their states
  // are not recorded.
  std::erase(v, "object_lease");
  std::erase(v, "record_states");
  // Interrupts reach only the single-lock algorithms (AlgorithmInfo::interrupts).
  std::erase(v, "interrupted_grant");
  v.insert(v.end(), {"redlock_min_lock_wait_ms", "redlock_lease"});
  return v;
}

json describe(const std::vector<std::string>& names) {
  const RedissonOptions classic = profile_defaults(Profile::kClassic);
  const RedissonOptions current = profile_defaults(Profile::kCurrent);
  json out = json::array();
  for (const std::string& name : names) {
    const OptionDef* d = find_def(name);
    LS_ASSERT(d != nullptr);
    json item = {{"name", name}, {"classic", d->get(classic)}, {"current", d->get(current)},
                 {"doc", d->doc}};
    if (!d->choices.empty()) item["values"] = d->choices;
    out.push_back(std::move(item));
  }
  return out;
}

}  // namespace lockstep::algorithms::redisson
