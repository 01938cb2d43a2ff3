// LockClient: the interface every lock algorithm implements (set-nx-px, Redisson's RLock, fair
// lock, read-write lock, RedLock, ...), and the registry that names them.
//
// The workload driver calls acquire/release/force_release from a client thread and records the
// invoke, the completion and the holds itself; the algorithm only talks to Redis through its
// Runtime and reports what happened. An algorithm object belongs to one client process (one
// Redisson client) and serves all its threads; it may keep per-lock state (watchdog entries,
// pub/sub entries) shared between them, exactly as Redisson does.
#ifndef LOCKSTEP_ALGORITHMS_LOCK_CLIENT_H_
#define LOCKSTEP_ALGORITHMS_LOCK_CLIENT_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "algorithms/coverage_point.h"
#include "algorithms/runtime.h"
#include "sim/core/status.h"

namespace lockstep::algorithms {

using history::LockMode;
using history::Outcome;

// One lock call.
struct LockRequest {
  std::string_view lock;                // the lock's name (the Redis key or its base)
  LockMode mode = LockMode::kExclusive;
  int64_t wait_ms = -1;                 // acquire: -1 lock() (wait forever); >= 0 tryLock(wait)
  int64_t lease_ms = -1;                // acquire: -1 no lease, the watchdog keeps it; 0 none at all
                                        // (AlgorithmInfo::default_lease_ms); else the lease
  int64_t op = -1;                      // history operation id; pass it in CallOptions::op
  // The lock object the application calls through, by name within its client process (a
  // scenario step's "object"); empty: a fresh object for this call, as getLock(name).lock()
  // makes. Only algorithms whose objects carry state (Redisson's internalLockLeaseTime) use it.
  std::string_view object;
  // lock(): lockInterruptibly() — an interrupt ends the wait for the lock (lock() ignores one
  // that lands while it waits for a wake-up; docs/algorithms.md "Interrupts").
  bool interruptibly = false;
};

// What a lock call returned. Fields not meaningful for the call stay at their defaults.
struct LockOutcome {
  Outcome outcome = Outcome::kOk;  // ok: a definite answer; fail: an error; unknown: timed out
  bool acquired = false;           // acquire
  bool released = false;           // release: fully released / force_release: a lock existed
  int64_t count = -1;              // hold count after the call, when the algorithm knows it
  int64_t token = -1;              // fencing token of this acquisition (fenced locks)
  int64_t validity_ms = -1;        // RedLock spec: the validity the client computed
  std::string error;               // fail/unknown: the message the application would see

  static LockOutcome unknown(std::string error);
  static LockOutcome fail(std::string error);
};

class LockClient {
 public:
  virtual ~LockClient() = default;
  // lock() / lock(lease) / tryLock(wait, lease), in request.mode.
  virtual Task<LockOutcome> acquire(const Thread& thread, const LockRequest& request) = 0;
  // unlock() of one hold by this thread.
  virtual Task<LockOutcome> release(const Thread& thread, const LockRequest& request) = 0;
  // forceUnlock(): deletes the lock whoever holds it.
  virtual Task<LockOutcome> force_release(const Thread& thread, const LockRequest& request) = 0;
};

// A registered algorithm.
struct AlgorithmInfo {
  std::string name;         // as scenarios spell it: "set-nx-px", "redisson-lock", ...
  std::string lock_kind;    // the history header's lock_kind: reentrant, rwlock, simple, redlock
  std::string description;  // one line for `lockstep list`
  bool fair = false;        // grants must follow enqueue order (history header `fair`)
  bool modes = false;       // supports read/write modes (read-write lock)
  bool multi_master = false;  // needs N independent masters (RedLock)
  bool lock_objects = false;  // its lock objects carry state: scenario steps may name them
  bool interrupts = false;    // its flows react to Thread.interrupt() and Future.cancel()
  // Checks the scenario's `algorithm.options` object. Errors name the JSON path, built from
  // `path` ("/algorithm/options"), what was expected and what was found.
  std::function<Status(const nlohmann::json& options, const std::string& path)> validate;
  // Documented options with their defaults (for `lockstep list` and the docs).
  nlohmann::json option_defaults;
  // Optional: extra history-header fields this algorithm's runs need (e.g. the fair lock's
  // {"thread_wait_ms": 5000} with its profile's default resolved). REQUIRES: validated options.
  std::function<nlohmann::json(const nlohmann::json& options)> history_header;
  // Optional: the lease an acquisition without one gets (REQUIRES: validated options). Empty: such
  // an acquisition has no lease of its own and the algorithm keeps it with a watchdog of the
  // client's lock_watchdog_timeout_ms, as Redisson does, and the history says so. Set: the
  // workload asks for this lease instead, and the history records it as the acquisition's lease;
  // 0 is no lease at all (the key never expires by itself; the history says "lease_ms": null).
  std::function<int64_t(const nlohmann::json& options)> default_lease_ms;
  // With default_lease_ms: the client keeps renewing that lease while it holds (a refresh timer,
  // as redis-semaphore's Mutex has), so a hold may outlast it (derived profiles, sim/explore).
  bool renews_default_lease = false;
  // Coverage (docs/coverage.md): the Lua scripts a client with these (validated) options may
  // send, and the client-side states its clients report with Runtime::cover.
  std::function<std::vector<const Script*>(const nlohmann::json& options)> scripts;
  std::vector<CoveragePoint> coverage_points;
  // Builds the client for one client process. REQUIRES: validate(options) succeeded.
  std::function<std::unique_ptr<LockClient>(Runtime& runtime, const nlohmann::json& options)> make;
};

// All registered algorithms, in name order.
const std::vector<AlgorithmInfo>& algorithms();
// nullptr when no algorithm has that name.
const AlgorithmInfo* find_algorithm(std::string_view name);

// Helpers for validate(): an options object whose keys are all in `allowed`, and typed fields.
Status check_known_fields(const nlohmann::json& options, const std::string& path,
                          const std::vector<std::string>& allowed);
Status check_int_field(const nlohmann::json& options, const std::string& path,
                       const std::string& field, int64_t min, int64_t max);
Status check_bool_field(const nlohmann::json& options, const std::string& path,
                        const std::string& field);
Status check_string_field(const nlohmann::json& options, const std::string& path,
                          const std::string& field, const std::vector<std::string>& allowed);

}  // namespace lockstep::algorithms

#endif  // LOCKSTEP_ALGORITHMS_LOCK_CLIENT_H_
